// Lab 07, stage 2c: the row stride of the padded transpose's tile (see
// launch_shapes.hpp for what it sets).
#pragma once

#include "launch_shapes.hpp"

namespace lab07 {

// TODO(student): stage 2c: choose the stride that makes the 32 banks of a
// tile column distinct.
constexpr int kPaddedTileStride = kTile;

}  // namespace lab07
