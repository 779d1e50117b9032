// Lab 07, stages 1-4 on the device: copies with an offset and a stride,
// three transposes, tile loads in two thread mappings, consecutive powers,
// and the launch of each. The host entries that check the arguments and
// choose the grids (launch_geometry.cu) and the launch shapes
// (launch_shapes.hpp) are given.
// Every launch below throws "not implemented" until you write it; the
// kernels are [[maybe_unused]] until your launches use them.
#include "coalescing.hpp"
#include "hpclab/cuda.hpp"
#include "hpclab/not_implemented.hpp"
#include "launch_shapes.hpp"
#include "tile_layout.hpp"

namespace lab07 {
namespace {

// ---- stage 1: copy with an offset, copy with a stride ----------------------

[[maybe_unused]] __global__ void copy_offset_kernel(const float* __restrict__ in, float* __restrict__ out,
                                                    std::size_t n, std::size_t offset) {
    // TODO(student): stage 1. i = global thread index + offset; copy
    // in[i] to out[i] when i < n (lecture 35's copyKernel lacks that bound).
    (void)in;
    (void)out;
    (void)n;
    (void)offset;
}

[[maybe_unused]] __global__ void copy_stride_kernel(const float* __restrict__ in, float* __restrict__ out,
                                                    std::size_t count, std::size_t stride) {
    // TODO(student): stage 1. Thread t < count copies element t * stride.
    (void)in;
    (void)out;
    (void)count;
    (void)stride;
}

// ---- stage 2: transposes ---------------------------------------------------
// Block (kTile, kBlockRows); block (bx, by) handles the tile of rows
// [by kTile, by kTile + kTile) and columns [bx kTile, bx kTile + kTile) of in.

[[maybe_unused]] __global__ void transpose_naive_kernel(const float* __restrict__ in, float* __restrict__ out,
                                                        std::size_t rows, std::size_t cols) {
    // TODO(student): stage 2a. Thread (tx, ty) of block (bx, by) handles
    // column c = bx * kTile + tx and rows by * kTile + ty + j, j = 0, 8, 16,
    // 24: out[c * rows + r] = in[r * cols + c] inside the matrix.
    (void)in;
    (void)out;
    (void)rows;
    (void)cols;
}

[[maybe_unused]] __global__ void transpose_tiled_kernel(const float* __restrict__ in, float* __restrict__ out,
                                                        std::size_t rows, std::size_t cols) {
    // TODO(student): stage 2b. Load the tile with coalesced reads into
    // __shared__ float tile[kTile][kTile], __syncthreads(), then write row
    // (bx * kTile + ty + j) of out from column ty + j of the tile, so that
    // consecutive tx write consecutive addresses. Mind both bounds.
    (void)in;
    (void)out;
    (void)rows;
    (void)cols;
}

[[maybe_unused]] __global__ void transpose_padded_kernel(const float* __restrict__ in, float* __restrict__ out,
                                                         std::size_t rows, std::size_t cols) {
    // TODO(student): stage 2c. Stage 2b with tile[kTile][kPaddedTileStride]
    // (set the stride in tile_layout.hpp).
    (void)in;
    (void)out;
    (void)rows;
    (void)cols;
}

// ---- stage 3: tile loads in two mappings (exercise 2) -----------------------
// Both use a padded tile, so that only the global access pattern differs.

[[maybe_unused]] __global__ void tile_copy_row_wise_kernel(const float* __restrict__ in, float* __restrict__ out,
                                                           std::size_t n) {
    // TODO(student): stage 3. Through __shared__ float tile[kTile][kTile + 1]:
    // thread (tx, ty) loads in[(row0 + ty + j) * n + col0 + tx] into
    // tile[ty + j][tx]; __syncthreads(); store row-wise to out.
    (void)in;
    (void)out;
    (void)n;
}

[[maybe_unused]] __global__ void tile_copy_column_wise_kernel(const float* __restrict__ in, float* __restrict__ out,
                                                              std::size_t n) {
    // TODO(student): stage 3. The same copy, but thread (tx, ty) loads
    // in[(row0 + tx) * n + col0 + ty + j] into tile[tx][ty + j]; the store
    // stays row-wise.
    (void)in;
    (void)out;
    (void)n;
}

// ---- stage 4: consecutive powers (exercise 3) --------------------------------

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

// ---- the launches (see coalescing.hpp): each launches its kernel -------------

void launch_copy_offset(const float* in, float* out, std::size_t n, std::size_t offset, dim3 grid, dim3 block,
                        cudaStream_t stream) {
    // TODO(student): stage 1. Launch copy_offset_kernel with `grid` blocks
    // of `block` threads on `stream`; then HPCLAB_CUDA_CHECK_LAUNCH().
    (void)in;
    (void)out;
    (void)n;
    (void)offset;
    (void)grid;
    (void)block;
    (void)stream;
    throw hpclab::NotImplemented("launch_copy_offset");
}

void launch_copy_stride(const float* in, float* out, std::size_t count, std::size_t stride, dim3 grid, dim3 block,
                        cudaStream_t stream) {
    // TODO(student): stage 1. The same for copy_stride_kernel.
    (void)in;
    (void)out;
    (void)count;
    (void)stride;
    (void)grid;
    (void)block;
    (void)stream;
    throw hpclab::NotImplemented("launch_copy_stride");
}

void launch_transpose_naive(const float* in, float* out, std::size_t rows, std::size_t cols, dim3 grid, dim3 block,
                            cudaStream_t stream) {
    // TODO(student): stage 2a. The same for transpose_naive_kernel.
    (void)in;
    (void)out;
    (void)rows;
    (void)cols;
    (void)grid;
    (void)block;
    (void)stream;
    throw hpclab::NotImplemented("launch_transpose_naive");
}

void launch_transpose_tiled(const float* in, float* out, std::size_t rows, std::size_t cols, dim3 grid, dim3 block,
                            cudaStream_t stream) {
    // TODO(student): stage 2b. The same for transpose_tiled_kernel.
    (void)in;
    (void)out;
    (void)rows;
    (void)cols;
    (void)grid;
    (void)block;
    (void)stream;
    throw hpclab::NotImplemented("launch_transpose_tiled");
}

void launch_transpose_padded(const float* in, float* out, std::size_t rows, std::size_t cols, dim3 grid, dim3 block,
                             cudaStream_t stream) {
    // TODO(student): stage 2c. The same for transpose_padded_kernel.
    (void)in;
    (void)out;
    (void)rows;
    (void)cols;
    (void)grid;
    (void)block;
    (void)stream;
    throw hpclab::NotImplemented("launch_transpose_padded");
}

void launch_tile_copy_row_wise(const float* in, float* out, std::size_t n, dim3 grid, dim3 block, cudaStream_t stream) {
    // TODO(student): stage 3. The same for tile_copy_row_wise_kernel.
    (void)in;
    (void)out;
    (void)n;
    (void)grid;
    (void)block;
    (void)stream;
    throw hpclab::NotImplemented("launch_tile_copy_row_wise");
}

void launch_tile_copy_column_wise(const float* in, float* out, std::size_t n, dim3 grid, dim3 block,
                                  cudaStream_t stream) {
    // TODO(student): stage 3. The same for tile_copy_column_wise_kernel.
    (void)in;
    (void)out;
    (void)n;
    (void)grid;
    (void)block;
    (void)stream;
    throw hpclab::NotImplemented("launch_tile_copy_column_wise");
}

void launch_powers(PowersLayout layout, const float* x, std::size_t n, float* out, int rounds, dim3 grid, dim3 block,
                   cudaStream_t stream) {
    // TODO(student): stage 4. Launch powers_kernel<PowersLayout::thread_major>
    // or powers_kernel<PowersLayout::power_major>, as `layout` says.
    (void)layout;
    (void)x;
    (void)n;
    (void)out;
    (void)rounds;
    (void)grid;
    (void)block;
    (void)stream;
    throw hpclab::NotImplemented("launch_powers");
}

}  // namespace lab07
