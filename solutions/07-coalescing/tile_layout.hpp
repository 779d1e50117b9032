// Lab 07, stage 2c: the row stride of the padded transpose's tile (see
// launch_shapes.hpp for what it sets).
#pragma once

#include "launch_shapes.hpp"

namespace lab07 {

constexpr int kPaddedTileStride = kTile + 1;  // 33 is odd: k * 33 % 32 = k, 32 distinct banks

}  // namespace lab07
