// Lab 07, stages 1-4 on the device: copies with an offset and a stride,
// three transposes, tile loads in two thread mappings, consecutive powers.
#include <stdexcept>
#include <string>

#include "coalescing.hpp"
#include "hpclab/cuda.hpp"
#include "hpclab/not_implemented.hpp"
#include "tile_layout.hpp"

namespace lab07 {
namespace {

// A TODO kernel cannot throw; its host launch does, through this.
void require(bool implemented, const char* kernel) {
    if (!implemented) throw hpclab::NotImplemented(kernel);
}

constexpr int kCopyBlock = 256;
constexpr int kPowersWarps = 8;  // warps per block of the powers kernels

unsigned grid_for(std::size_t threads, std::size_t block) {
    const std::size_t blocks = threads / block + (threads % block != 0);
    if (blocks > 2147483647u) throw std::invalid_argument("too many elements for a one-dimensional grid");
    return static_cast<unsigned>(blocks);
}

// ---- stage 1: copy with an offset, copy with a stride ----------------------

constexpr bool kCopyOffsetDone = false;  // TODO(student): true once copy_offset_kernel is written

__global__ void copy_offset_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n,
                                   std::size_t offset) {
    // TODO(student): stage 1. i = global thread index + offset; copy
    // in[i] to out[i] when i < n (lecture 35's copyKernel lacks that bound).
    (void)in;
    (void)out;
    (void)n;
    (void)offset;
}

constexpr bool kCopyStrideDone = false;  // TODO(student): true once copy_stride_kernel is written

__global__ void copy_stride_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t count,
                                   std::size_t stride) {
    // TODO(student): stage 1. Thread t < count copies element t * stride.
    (void)in;
    (void)out;
    (void)count;
    (void)stride;
}

// ---- stage 2: transposes ---------------------------------------------------
// Block (kTile, kBlockRows); block (bx, by) handles the tile of rows
// [by kTile, by kTile + kTile) and columns [bx kTile, bx kTile + kTile) of in.

constexpr bool kNaiveDone = false;  // TODO(student): true once transpose_naive_kernel is written

__global__ void transpose_naive_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t rows,
                                       std::size_t cols) {
    // TODO(student): stage 2a. Thread (tx, ty) of block (bx, by) handles
    // column c = bx * kTile + tx and rows by * kTile + ty + j, j = 0, 8, 16,
    // 24: out[c * rows + r] = in[r * cols + c] inside the matrix.
    (void)in;
    (void)out;
    (void)rows;
    (void)cols;
}

constexpr bool kTiledDone = false;  // TODO(student): true once transpose_tiled_kernel is written

__global__ void transpose_tiled_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t rows,
                                       std::size_t cols) {
    // TODO(student): stage 2b. Load the tile with coalesced reads into
    // __shared__ float tile[kTile][kTile], __syncthreads(), then write row
    // (bx * kTile + ty + j) of out from column ty + j of the tile, so that
    // consecutive tx write consecutive addresses. Mind both bounds.
    (void)in;
    (void)out;
    (void)rows;
    (void)cols;
}

constexpr bool kPaddedDone = false;  // TODO(student): true once transpose_padded_kernel is written

__global__ void transpose_padded_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t rows,
                                        std::size_t cols) {
    // TODO(student): stage 2c. Stage 2b with tile[kTile][kPaddedTileStride]
    // (set the stride in tile_layout.hpp).
    (void)in;
    (void)out;
    (void)rows;
    (void)cols;
}

// ---- stage 3: tile loads in two mappings (exercise 2) -----------------------
// Both use a padded tile, so that only the global access pattern differs.

constexpr bool kTileRowWiseDone = false;  // TODO(student): true once tile_copy_row_wise_kernel is written

__global__ void tile_copy_row_wise_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
    // TODO(student): stage 3. Through __shared__ float tile[kTile][kTile + 1]:
    // thread (tx, ty) loads in[(row0 + ty + j) * n + col0 + tx] into
    // tile[ty + j][tx]; __syncthreads(); store row-wise to out.
    (void)in;
    (void)out;
    (void)n;
}

constexpr bool kTileColumnWiseDone = false;  // TODO(student): true once tile_copy_column_wise_kernel is written

__global__ void tile_copy_column_wise_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
    // TODO(student): stage 3. The same copy, but thread (tx, ty) loads
    // in[(row0 + tx) * n + col0 + ty + j] into tile[tx][ty + j]; the store
    // stays row-wise.
    (void)in;
    (void)out;
    (void)n;
}

// ---- stage 4: consecutive powers (exercise 3) --------------------------------

constexpr bool kPowersDone = false;  // TODO(student): true once powers_kernel is written

template <PowersLayout Layout>
__global__ void powers_kernel(const float* __restrict__ x, std::size_t n, float* __restrict__ out, int rounds) {
    // TODO(student): stage 4. One warp per 32 inputs (group = blockIdx.x *
    // kPowersWarps + warp; leave if group * 32 >= n). Load x[i] coalesced;
    // compute v = x^2, x^3, ..., x^33 by repeated multiplication, storing
    // each in this warp's __shared__ table of 32 * kPowers floats: at
    // lane * kPowers + k (thread_major) or k * 32 + lane (power_major);
    // repeat `rounds` times; __syncwarp(); then store the table to
    // out[group * 1024 ...] with lane l writing slots l, 32 + l, ... (skip
    // slots of inputs past n, see powers_index in coalescing.hpp).
    (void)x;
    (void)n;
    (void)out;
    (void)rounds;
}

}  // namespace

void copy_with_offset(const float* in, float* out, std::size_t n, std::size_t offset, cudaStream_t stream) {
    require(kCopyOffsetDone, "copy_offset_kernel");
    if (offset >= n) return;
    copy_offset_kernel<<<grid_for(n - offset, kCopyBlock), kCopyBlock, 0, stream>>>(in, out, n, offset);
    HPCLAB_CUDA_CHECK_LAUNCH();
}

void copy_with_stride(const float* in, float* out, std::size_t n, std::size_t stride, cudaStream_t stream) {
    require(kCopyStrideDone, "copy_stride_kernel");
    if (stride == 0) throw std::invalid_argument("copy_with_stride: stride must be >= 1");
    if (n == 0) return;
    const std::size_t count = (n - 1) / stride + 1;
    copy_stride_kernel<<<grid_for(count, kCopyBlock), kCopyBlock, 0, stream>>>(in, out, count, stride);
    HPCLAB_CUDA_CHECK_LAUNCH();
}

void transpose(Transpose kind, const float* in, float* out, std::size_t rows, std::size_t cols, cudaStream_t stream) {
    switch (kind) {
        case Transpose::naive: require(kNaiveDone, "transpose_naive_kernel"); break;
        case Transpose::tiled: require(kTiledDone, "transpose_tiled_kernel"); break;
        case Transpose::padded: require(kPaddedDone, "transpose_padded_kernel"); break;
    }
    if (rows == 0 || cols == 0) return;
    const std::size_t gx = (cols + kTile - 1) / kTile, gy = (rows + kTile - 1) / kTile;
    if (gx > 2147483647u || gy > 65535u) throw std::invalid_argument("transpose: matrix too large for the grid");
    const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy)), block(kTile, kBlockRows);
    switch (kind) {
        case Transpose::naive: transpose_naive_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols); break;
        case Transpose::tiled: transpose_tiled_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols); break;
        case Transpose::padded: transpose_padded_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols); break;
    }
    HPCLAB_CUDA_CHECK_LAUNCH();
}

void tile_copy(TileMapping mapping, const float* in, float* out, std::size_t n, cudaStream_t stream) {
    require(mapping == TileMapping::row_wise ? kTileRowWiseDone : kTileColumnWiseDone,
            mapping == TileMapping::row_wise ? "tile_copy_row_wise_kernel" : "tile_copy_column_wise_kernel");
    if (n == 0) return;
    const std::size_t g = (n + kTile - 1) / kTile;
    if (g > 65535u) throw std::invalid_argument("tile_copy: matrix too large for the grid");
    const dim3 grid(static_cast<unsigned>(g), static_cast<unsigned>(g)), block(kTile, kBlockRows);
    if (mapping == TileMapping::row_wise) {
        tile_copy_row_wise_kernel<<<grid, block, 0, stream>>>(in, out, n);
    } else {
        tile_copy_column_wise_kernel<<<grid, block, 0, stream>>>(in, out, n);
    }
    HPCLAB_CUDA_CHECK_LAUNCH();
}

void powers(PowersLayout layout, const float* x, std::size_t n, float* out, int rounds, cudaStream_t stream) {
    require(kPowersDone, "powers_kernel");
    if (rounds < 1) throw std::invalid_argument("powers: rounds must be >= 1");
    if (n == 0) return;
    const std::size_t groups = (n + 31) / 32;
    const unsigned grid = grid_for(groups, kPowersWarps);
    if (layout == PowersLayout::thread_major) {
        powers_kernel<PowersLayout::thread_major><<<grid, 32 * kPowersWarps, 0, stream>>>(x, n, out, rounds);
    } else {
        powers_kernel<PowersLayout::power_major><<<grid, 32 * kPowersWarps, 0, stream>>>(x, n, out, rounds);
    }
    HPCLAB_CUDA_CHECK_LAUNCH();
}

}  // namespace lab07
