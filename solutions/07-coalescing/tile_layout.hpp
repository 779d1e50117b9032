// Lab 07, stage 2: the shape of the shared-memory tiles of the transposes.
#pragma once

namespace lab07 {

constexpr int kTile = 32;      // a tile is kTile x kTile floats
constexpr int kBlockRows = 8;  // a block is kTile x kBlockRows threads; each thread moves kTile / kBlockRows elements

// The row stride, in floats, of the padded transpose's tile
// (__shared__ float tile[kTile][kPaddedTileStride]). Reading a column of
// the tile touches words c, c + stride, c + 2 stride, ...: their banks are
// (c + k * stride) % 32.
constexpr int kPaddedTileStride = kTile + 1;  // 33 is odd: k * 33 % 32 = k, 32 distinct banks

}  // namespace lab07
