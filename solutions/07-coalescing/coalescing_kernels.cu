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

constexpr bool kCopyOffsetDone = true;

__global__ void copy_offset_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n,
                                   std::size_t offset) {
    // Lecture 35's copyKernel, with the bound it lacks: the last block
    // usually runs past n.
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x + offset;
    if (i < n) out[i] = in[i];
}

constexpr bool kCopyStrideDone = true;

__global__ void copy_stride_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t count,
                                   std::size_t stride) {
    const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t < count) out[t * stride] = in[t * stride];
}

// ---- stage 2: transposes ---------------------------------------------------
// Block (kTile, kBlockRows); block (bx, by) handles the tile of rows
// [by kTile, by kTile + kTile) and columns [bx kTile, bx kTile + kTile) of in.

constexpr bool kNaiveDone = true;

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

constexpr bool kTiledDone = true;

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

constexpr bool kPaddedDone = true;

__global__ void transpose_padded_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t rows,
                                        std::size_t cols) {
    // One extra column: element (k, c) is word k * kPaddedTileStride + c,
    // so a column spans 32 different banks.
    __shared__ float tile[kTile][kPaddedTileStride];
    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    const std::size_t row0 = static_cast<std::size_t>(blockIdx.y) * kTile;
    const std::size_t col0 = static_cast<std::size_t>(blockIdx.x) * kTile;
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

constexpr bool kTileRowWiseDone = true;

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

constexpr bool kTileColumnWiseDone = true;

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

constexpr bool kPowersDone = true;

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
            if (Layout == PowersLayout::thread_major) t[lane * kPowers + k] = v;
            else t[k * 32 + lane] = v;
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
