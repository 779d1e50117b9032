// Lab 13, stages 6-8: k-space chunks as an array of KSample structs in
// constant memory; accurate sine and cosine, then the special function
// units on the raw phase, then on the phase reduced in turns.
// Reference solution.
#include <algorithm>

#include "fhd.hpp"
#include "fhd_math.cuh"
#include "hpclab/cuda.hpp"

namespace lab13 {
namespace {

constexpr int kBlock = 256;

// kChunkCapacity structs of 20 bytes: 65,520 of this module's 65,536 bytes.
__constant__ KSample c_k[kChunkCapacity];

enum class Trig { accurate, fast, turns };

template <Trig kTrig>
__global__ void chunk_kernel(int count, bool first, const float* __restrict__ x, const float* __restrict__ y,
                             const float* __restrict__ z, std::size_t n, float* __restrict__ rFHd,
                             float* __restrict__ iFHd) {
    const std::size_t v = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (v >= n) return;
    const float xv = x[v], yv = y[v], zv = z[v];
    float r = first ? 0.0f : rFHd[v], i = first ? 0.0f : iFHd[v];
    for (int j = 0; j < count; ++j) {
        const KSample s = c_k[j];
        if (kTrig == Trig::accurate) accumulate_accurate(s.kx, s.ky, s.kz, s.rMu, s.iMu, xv, yv, zv, r, i);
        if (kTrig == Trig::fast) accumulate_fast(s.kx, s.ky, s.kz, s.rMu, s.iMu, xv, yv, zv, r, i);
        if (kTrig == Trig::turns) accumulate_turns(s.kx, s.ky, s.kz, s.rMu, s.iMu, xv, yv, zv, r, i);
    }
    rFHd[v] = r;
    iFHd[v] = i;
}

template <Trig kTrig>
void run_chunks(const DeviceKSpace& k, const DeviceGrid& g, float* rFHd, float* iFHd, std::size_t chunk) {
    if (nothing_to_sum(k, g, rFHd, iFHd)) return;
    const unsigned blocks = static_cast<unsigned>((g.n + kBlock - 1) / kBlock);
    for (std::size_t start = 0; start < k.m; start += chunk) {
        const std::size_t count = std::min(chunk, k.m - start);
        HPCLAB_CUDA_CHECK(
            cudaMemcpyToSymbol(c_k, k.samples + start, count * sizeof(KSample), 0, cudaMemcpyDeviceToDevice));
        chunk_kernel<kTrig><<<blocks, kBlock>>>(static_cast<int>(count), start == 0, g.x, g.y, g.z, g.n, rFHd, iFHd);
        HPCLAB_CUDA_CHECK(cudaGetLastError());
    }
}

}  // namespace

void fhd_structs(const DeviceKSpace& k, const DeviceGrid& g, float* rFHd, float* iFHd, std::size_t chunk) {
    run_chunks<Trig::accurate>(k, g, rFHd, iFHd, chunk);
}

void fhd_fast_trig(const DeviceKSpace& k, const DeviceGrid& g, float* rFHd, float* iFHd, std::size_t chunk) {
    run_chunks<Trig::fast>(k, g, rFHd, iFHd, chunk);
}

void fhd_turns(const DeviceKSpace& k, const DeviceGrid& g, float* rFHd, float* iFHd, std::size_t chunk) {
    run_chunks<Trig::turns>(k, g, rFHd, iFHd, chunk);
}

}  // namespace lab13
