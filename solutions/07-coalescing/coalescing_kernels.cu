// Lab 07, stages 1-4 on the device: copies with an offset and a stride,
// three transposes, tile loads in two thread mappings, consecutive powers,
// and the launch of each.
#include "coalescing.hpp"
#include "hpclab/cuda.hpp"
#include "launch_shapes.hpp"
#include "tile_layout.hpp"

namespace lab07 {
namespace {

// ---- stage 1: copy with an offset, copy with a stride ----------------------

__global__ void copy_offset_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n,
                                   std::size_t offset) {
    // Lecture 35's copyKernel, with the bound it lacks: the last block
    // usually runs past n.
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x + offset;
    if (i < n) out[i] = in[i];
}

__global__ void copy_stride_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t count,
                                   std::size_t stride) {
    const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t < count) out[t * stride] = in[t * stride];
}

// ---- stage 2: transposes ---------------------------------------------------
// Block (kTile, kBlockRows); block (bx, by) handles the tile of rows
// [by kTile, by kTile + kTile) and columns [bx kTile, bx kTile + kTile) of in.

__global__ void transpose_naive_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t rows,
                                       std::size_t cols) {
    const std::size_t c = static_cast<std::size_t>(blockIdx.x) * kTile + threadIdx.x;
    const std::size_t r0 = static_cast<std::size_t>(blockIdx.y) * kTile + threadIdx.y;
    for (int j = 0; j < kTile; j += kBlockRows) {
        const std::size_t r = r0 + j;
        // Reads: consecutive threads, consecutive c: coalesced. Writes:
        // consecutive threads are `rows` floats apart: one sector each.
        if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
    }
}

__global__ void transpose_tiled_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t rows,
                                       std::size_t cols) {
    __shared__ float tile[kTile][kTile];
    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    const std::size_t row0 = static_cast<std::size_t>(blockIdx.y) * kTile;
    const std::size_t col0 = static_cast<std::size_t>(blockIdx.x) * kTile;
    for (int j = 0; j < kTile; j += kBlockRows) {
        const std::size_t r = row0 + ty + j, c = col0 + tx;
        if (r < rows && c < cols) tile[ty + j][tx] = in[r * cols + c];  // coalesced read
    }
    __syncthreads();  // the whole tile is loaded before any thread reads another's element
    for (int j = 0; j < kTile; j += kBlockRows) {
        // Row (col0 + ty + j) of out holds column (col0 + ty + j) of in;
        // consecutive tx write consecutive addresses: coalesced. Reading
        // tile[tx][...] walks down a column: 32 words 32 apart, one bank.
        const std::size_t out_r = col0 + ty + j, out_c = row0 + tx;
        if (out_r < cols && out_c < rows) out[out_r * rows + out_c] = tile[tx][ty + j];
    }
}

__global__ void transpose_padded_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t rows,
                                        std::size_t cols) {
    // One extra column: element (k, c) is word k * kPaddedTileStride + c,
    // so a column spans 32 different banks.
    __shared__ float tile[kTile][kPaddedTileStride];
    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    const std::size_t row0 = static_cast<std::size_t>(blockIdx.y) * kTile;
    const std::size_t col0 = static_cast<std::size_t>(blockIdx.x) * kTile;
    if (row0 + kTile <= rows && col0 + kTile <= cols) {
        // A whole tile (every block but the edges'): no bounds to test, and
        // one address per thread stepped by a constant, so the instructions
        // are the loads, the stores and little else (the copy's count).
        const float* src = in + (row0 + ty) * cols + col0 + tx;
        const std::size_t in_step = kBlockRows * cols;
#pragma unroll
        for (int j = 0; j < kTile; j += kBlockRows, src += in_step) tile[ty + j][tx] = *src;
        __syncthreads();
        float* dst = out + (col0 + ty) * rows + row0 + tx;
        const std::size_t out_step = kBlockRows * rows;
#pragma unroll
        for (int j = 0; j < kTile; j += kBlockRows, dst += out_step) *dst = tile[tx][ty + j];
        return;
    }
    for (int j = 0; j < kTile; j += kBlockRows) {
        const std::size_t r = row0 + ty + j, c = col0 + tx;
        if (r < rows && c < cols) tile[ty + j][tx] = in[r * cols + c];
    }
    __syncthreads();
    for (int j = 0; j < kTile; j += kBlockRows) {
        const std::size_t out_r = col0 + ty + j, out_c = row0 + tx;
        if (out_r < cols && out_c < rows) out[out_r * rows + out_c] = tile[tx][ty + j];
    }
}

// ---- stage 3: tile loads in two mappings (exercise 2) -----------------------
// Both use a padded tile, so that only the global access pattern differs.

__global__ void tile_copy_row_wise_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
    __shared__ float tile[kTile][kTile + 1];
    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    const std::size_t row0 = static_cast<std::size_t>(blockIdx.y) * kTile;
    const std::size_t col0 = static_cast<std::size_t>(blockIdx.x) * kTile;
    for (int j = 0; j < kTile; j += kBlockRows) {
        // Lecture 35: As[ty][tx] = A[row * m + (k * w + tx)]; adjacent tx,
        // adjacent addresses: one 128-byte request per warp.
        const std::size_t r = row0 + ty + j, c = col0 + tx;
        if (r < n && c < n) tile[ty + j][tx] = in[r * n + c];
    }
    __syncthreads();
    for (int j = 0; j < kTile; j += kBlockRows) {
        const std::size_t r = row0 + ty + j, c = col0 + tx;
        if (r < n && c < n) out[r * n + c] = tile[ty + j][tx];
    }
}

__global__ void tile_copy_column_wise_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
    __shared__ float tile[kTile][kTile + 1];
    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    const std::size_t row0 = static_cast<std::size_t>(blockIdx.y) * kTile;
    const std::size_t col0 = static_cast<std::size_t>(blockIdx.x) * kTile;
    for (int j = 0; j < kTile; j += kBlockRows) {
        // The same tile, but thread (tx, ty) takes row tx: adjacent threads
        // are n floats apart, 32 sectors per warp request.
        const std::size_t r = row0 + tx, c = col0 + ty + j;
        if (r < n && c < n) tile[tx][ty + j] = in[r * n + c];
    }
    __syncthreads();
    for (int j = 0; j < kTile; j += kBlockRows) {
        const std::size_t r = row0 + ty + j, c = col0 + tx;
        if (r < n && c < n) out[r * n + c] = tile[ty + j][tx];
    }
}

// ---- stage 4: consecutive powers (exercise 3) --------------------------------

template <PowersLayout Layout>
__global__ void powers_kernel(const float* __restrict__ x, std::size_t n, float* __restrict__ out, int rounds) {
    __shared__ float table[kPowersWarps][32 * kPowers];  // 4 KiB per warp
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const std::size_t group = static_cast<std::size_t>(blockIdx.x) * kPowersWarps + warp;
    if (group * 32 >= n) return;  // the whole warp leaves together
    const std::size_t i = group * 32 + lane;
    const float xi = i < n ? x[i] : 0.0f;  // 32 consecutive floats: coalesced
    float* t = table[warp];
    for (int r = 0; r < rounds; ++r) {
        float v = xi;
        for (int k = 0; k < kPowers; ++k) {
            v *= xi;  // x^(k + 2)
            // thread-major: the 32 lanes store 32 words apart, all in bank k:
            // a 32-way conflict. power-major: 32 consecutive words.
            if (Layout == PowersLayout::thread_major)
                t[lane * kPowers + k] = v;
            else
                t[k * 32 + lane] = v;
        }
        __syncwarp();  // the table is complete before lanes read each other's slots
    }
    // The warp's 1024 outputs are contiguous in the table's order: lane l
    // stores slots l, 32 + l, 64 + l, ...: coalesced, conflict-free reads.
    for (int m = 0; m < kPowers; ++m) {
        const unsigned q = m * 32 + lane;
        const unsigned input_lane = Layout == PowersLayout::thread_major ? q / kPowers : q % 32;
        if (group * 32 + input_lane < n) out[group * 32 * kPowers + q] = t[q];
    }
}

}  // namespace

// ---- the launches (see coalescing.hpp): each launches its kernel -------------

void launch_copy_offset(const float* in, float* out, std::size_t n, std::size_t offset, dim3 grid, dim3 block,
                        cudaStream_t stream) {
    copy_offset_kernel<<<grid, block, 0, stream>>>(in, out, n, offset);
    HPCLAB_CUDA_CHECK_LAUNCH();
}

void launch_copy_stride(const float* in, float* out, std::size_t count, std::size_t stride, dim3 grid, dim3 block,
                        cudaStream_t stream) {
    copy_stride_kernel<<<grid, block, 0, stream>>>(in, out, count, stride);
    HPCLAB_CUDA_CHECK_LAUNCH();
}

void launch_transpose_naive(const float* in, float* out, std::size_t rows, std::size_t cols, dim3 grid, dim3 block,
                            cudaStream_t stream) {
    transpose_naive_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
    HPCLAB_CUDA_CHECK_LAUNCH();
}

void launch_transpose_tiled(const float* in, float* out, std::size_t rows, std::size_t cols, dim3 grid, dim3 block,
                            cudaStream_t stream) {
    transpose_tiled_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
    HPCLAB_CUDA_CHECK_LAUNCH();
}

void launch_transpose_padded(const float* in, float* out, std::size_t rows, std::size_t cols, dim3 grid, dim3 block,
                             cudaStream_t stream) {
    transpose_padded_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
    HPCLAB_CUDA_CHECK_LAUNCH();
}

void launch_tile_copy_row_wise(const float* in, float* out, std::size_t n, dim3 grid, dim3 block, cudaStream_t stream) {
    tile_copy_row_wise_kernel<<<grid, block, 0, stream>>>(in, out, n);
    HPCLAB_CUDA_CHECK_LAUNCH();
}

void launch_tile_copy_column_wise(const float* in, float* out, std::size_t n, dim3 grid, dim3 block,
                                  cudaStream_t stream) {
    tile_copy_column_wise_kernel<<<grid, block, 0, stream>>>(in, out, n);
    HPCLAB_CUDA_CHECK_LAUNCH();
}

void launch_powers(PowersLayout layout, const float* x, std::size_t n, float* out, int rounds, dim3 grid, dim3 block,
                   cudaStream_t stream) {
    if (layout == PowersLayout::thread_major) {
        powers_kernel<PowersLayout::thread_major><<<grid, block, 0, stream>>>(x, n, out, rounds);
    } else {
        powers_kernel<PowersLayout::power_major><<<grid, block, 0, stream>>>(x, n, out, rounds);
    }
    HPCLAB_CUDA_CHECK_LAUNCH();
}

}  // namespace lab07
