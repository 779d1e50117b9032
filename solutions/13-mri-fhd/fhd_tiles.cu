// Lab 13, stage 10: the turns arithmetic with k-space in shared-memory
// tiles loaded from global memory, and four voxels a thread. On an H100
// the constant-memory stages stall on constant-cache misses (the resident
// warps stand at different samples of a 64 KiB chunk, more than the cache
// holds); a tile in shared memory is read by every warp of its block, and
// each sample read serves four voxels. Blocks of 512 threads: each SM
// loads half as many copies of each tile as with 256 (2% on an H200).
// Reference solution.
#include <algorithm>

#include "fhd.hpp"
#include "fhd_math.cuh"
#include "hpclab/cuda.hpp"

namespace lab13 {
namespace {

constexpr int kBlock = 512, kVoxelsPerThread = 4, kTile = 1024;

__global__ void tiles_kernel(const KSample* __restrict__ samples, std::size_t m, const float* __restrict__ x,
                             const float* __restrict__ y, const float* __restrict__ z, std::size_t n,
                             float* __restrict__ rFHd, float* __restrict__ iFHd) {
    // Position and mu's real part in one 16-byte load, mu's imaginary part apart.
    __shared__ float4 position_re[kTile];
    __shared__ float im[kTile];
    float xv[kVoxelsPerThread], yv[kVoxelsPerThread], zv[kVoxelsPerThread], r[kVoxelsPerThread], i[kVoxelsPerThread];
    const std::size_t first = blockIdx.x * std::size_t(blockDim.x) * kVoxelsPerThread + threadIdx.x;
#pragma unroll
    for (int q = 0; q < kVoxelsPerThread; ++q) {
        const std::size_t v = first + std::size_t(q) * blockDim.x;
        const bool live = v < n;  // dead voxels still help load tiles
        xv[q] = live ? x[v] : 0.0f;
        yv[q] = live ? y[v] : 0.0f;
        zv[q] = live ? z[v] : 0.0f;
        r[q] = i[q] = 0.0f;
    }
    for (std::size_t start = 0; start < m; start += kTile) {
        const int count = static_cast<int>(std::min<std::size_t>(kTile, m - start));
        __syncthreads();  // the previous tile is read by every warp
        for (int t = threadIdx.x; t < count; t += blockDim.x) {
            const KSample s = samples[start + t];
            position_re[t] = make_float4(s.kx, s.ky, s.kz, s.rMu);
            im[t] = s.iMu;
        }
        __syncthreads();  // this tile is written
        for (int j = 0; j < count; ++j) {
            const float4 s = position_re[j];
            const float iMu = im[j];
#pragma unroll
            for (int q = 0; q < kVoxelsPerThread; ++q)
                accumulate_turns_fused(s.x, s.y, s.z, s.w, iMu, xv[q], yv[q], zv[q], r[q], i[q]);
        }
    }
#pragma unroll
    for (int q = 0; q < kVoxelsPerThread; ++q) {
        const std::size_t v = first + std::size_t(q) * blockDim.x;
        if (v < n) {
            rFHd[v] = r[q];
            iFHd[v] = i[q];
        }
    }
}

}  // namespace

void fhd_tiles(const DeviceKSpace& k, const DeviceGrid& g, float* rFHd, float* iFHd) {
    if (g.n == 0) return;
    const std::size_t per_block = std::size_t(kBlock) * kVoxelsPerThread;
    const unsigned blocks = static_cast<unsigned>((g.n + per_block - 1) / per_block);
    tiles_kernel<<<blocks, kBlock>>>(k.samples, k.m, g.x, g.y, g.z, g.n, rFHd, iFHd);
}

}  // namespace lab13
