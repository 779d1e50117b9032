// Lab 13, stage 5: k-space in chunks of constant memory, one array per
// field, one launch per chunk. Every thread of a warp reads the same sample
// at the same time: the constant cache's broadcast. Reference solution.
#include <algorithm>

#include "fhd.hpp"
#include "fhd_math.cuh"
#include "hpclab/cuda.hpp"

namespace lab13 {
namespace {

constexpr int kBlock = 256;

// Five arrays of kChunkCapacity floats: 65,520 of this module's 65,536 bytes.
__constant__ float c_kx[kChunkCapacity], c_ky[kChunkCapacity], c_kz[kChunkCapacity], c_rMu[kChunkCapacity],
    c_iMu[kChunkCapacity];

// One chunk of `count` samples; the first chunk starts the sums at zero,
// the others continue from what the previous launches stored.
__global__ void chunk_kernel(int count, bool first, const float* __restrict__ x, const float* __restrict__ y,
                             const float* __restrict__ z, std::size_t n, float* __restrict__ rFHd,
                             float* __restrict__ iFHd) {
    const std::size_t v = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (v >= n) return;
    const float xv = x[v], yv = y[v], zv = z[v];
    float r = first ? 0.0f : rFHd[v], i = first ? 0.0f : iFHd[v];
    for (int j = 0; j < count; ++j)
        accumulate_accurate(c_kx[j], c_ky[j], c_kz[j], c_rMu[j], c_iMu[j], xv, yv, zv, r, i);
    rFHd[v] = r;
    iFHd[v] = i;
}

// `symbol` is a __constant__ array (its host-side address names it).
void copy_field(const void* symbol, const float* from, std::size_t count) {
    HPCLAB_CUDA_CHECK(cudaMemcpyToSymbol(symbol, from, count * sizeof(float), 0, cudaMemcpyDeviceToDevice));
}

}  // namespace

void fhd_constant(const DeviceKSpace& k, const DeviceGrid& g, float* rFHd, float* iFHd, std::size_t chunk) {
    if (nothing_to_sum(k, g, rFHd, iFHd)) return;
    const unsigned blocks = static_cast<unsigned>((g.n + kBlock - 1) / kBlock);
    // The lecture's loop ran i < M / CHUNK_SZ and dropped the last, partial
    // chunk; this one covers every sample.
    for (std::size_t start = 0; start < k.m; start += chunk) {
        const std::size_t count = std::min(chunk, k.m - start);
        copy_field(c_kx, k.kx + start, count);
        copy_field(c_ky, k.ky + start, count);
        copy_field(c_kz, k.kz + start, count);
        copy_field(c_rMu, k.rMu + start, count);
        copy_field(c_iMu, k.iMu + start, count);
        chunk_kernel<<<blocks, kBlock>>>(static_cast<int>(count), start == 0, g.x, g.y, g.z, g.n, rFHd, iFHd);
        HPCLAB_CUDA_CHECK(cudaGetLastError());
    }
}

}  // namespace lab13
