// Lab 13, stages 2-4: k-space in global memory. A thread per sample with
// atomics, the interchanged loops with a thread per voxel, and the voxel's
// position and sums kept in registers. Reference solution.
#include "fhd.hpp"
#include "fhd_math.cuh"
#include "hpclab/cuda.hpp"

namespace lab13 {
namespace {

constexpr int kBlock = 256;

unsigned blocks_for(std::size_t work) { return static_cast<unsigned>((work + kBlock - 1) / kBlock); }

// Stage 2: the lecture's first kernel, corrected. Every thread walks all
// voxels and adds its term to each: N atomics per thread, and all threads
// of a warp hit the same voxel at once.
__global__ void per_sample(const float* __restrict__ kx, const float* __restrict__ ky, const float* __restrict__ kz,
                           const float* __restrict__ rMu, const float* __restrict__ iMu, std::size_t m,
                           const float* __restrict__ x, const float* __restrict__ y, const float* __restrict__ z,
                           std::size_t n, float* rFHd, float* iFHd) {
    const std::size_t j = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (j >= m) return;
    for (std::size_t v = 0; v < n; ++v) {
        float r = 0, i = 0;
        accumulate_accurate(kx[j], ky[j], kz[j], rMu[j], iMu[j], x[v], y[v], z[v], r, i);
        atomicAdd(&rFHd[v], r);
        atomicAdd(&iFHd[v], i);
    }
}

// Stage 3: a thread per voxel; the sums still live in global memory.
__global__ void per_voxel_global(const float* __restrict__ kx, const float* __restrict__ ky,
                                 const float* __restrict__ kz, const float* __restrict__ rMu,
                                 const float* __restrict__ iMu, std::size_t m, const float* __restrict__ x,
                                 const float* __restrict__ y, const float* __restrict__ z, std::size_t n, float* rFHd,
                                 float* iFHd) {
    const std::size_t v = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (v >= n) return;
    rFHd[v] = 0;
    iFHd[v] = 0;
    for (std::size_t j = 0; j < m; ++j) {
        float r = rFHd[v], i = iFHd[v];
        accumulate_accurate(kx[j], ky[j], kz[j], rMu[j], iMu[j], x[v], y[v], z[v], r, i);
        rFHd[v] = r;
        iFHd[v] = i;
    }
}

// Stage 4: x_n and the sums in registers: one read and one write per voxel.
__global__ void per_voxel_registers(const float* __restrict__ kx, const float* __restrict__ ky,
                                    const float* __restrict__ kz, const float* __restrict__ rMu,
                                    const float* __restrict__ iMu, std::size_t m, const float* __restrict__ x,
                                    const float* __restrict__ y, const float* __restrict__ z, std::size_t n,
                                    float* __restrict__ rFHd, float* __restrict__ iFHd) {
    const std::size_t v = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (v >= n) return;
    const float xv = x[v], yv = y[v], zv = z[v];
    float r = 0, i = 0;
    for (std::size_t j = 0; j < m; ++j) accumulate_accurate(kx[j], ky[j], kz[j], rMu[j], iMu[j], xv, yv, zv, r, i);
    rFHd[v] = r;
    iFHd[v] = i;
}

}  // namespace

void fhd_atomic(const DeviceKSpace& k, const DeviceGrid& g, float* rFHd, float* iFHd) {
    if (g.n == 0) return;
    HPCLAB_CUDA_CHECK(cudaMemset(rFHd, 0, g.n * sizeof(float)));
    HPCLAB_CUDA_CHECK(cudaMemset(iFHd, 0, g.n * sizeof(float)));
    if (k.m == 0) return;
    per_sample<<<blocks_for(k.m), kBlock>>>(k.kx, k.ky, k.kz, k.rMu, k.iMu, k.m, g.x, g.y, g.z, g.n, rFHd, iFHd);
}

void fhd_interchange(const DeviceKSpace& k, const DeviceGrid& g, float* rFHd, float* iFHd) {
    if (g.n == 0) return;
    per_voxel_global<<<blocks_for(g.n), kBlock>>>(k.kx, k.ky, k.kz, k.rMu, k.iMu, k.m, g.x, g.y, g.z, g.n, rFHd, iFHd);
}

void fhd_registers(const DeviceKSpace& k, const DeviceGrid& g, float* rFHd, float* iFHd) {
    if (g.n == 0) return;
    per_voxel_registers<<<blocks_for(g.n), kBlock>>>(k.kx, k.ky, k.kz, k.rMu, k.iMu, k.m, g.x, g.y, g.z, g.n, rFHd,
                                                     iFHd);
}

}  // namespace lab13
