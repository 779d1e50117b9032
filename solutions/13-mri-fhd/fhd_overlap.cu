// Lab 13, stage 9: the turns kernel with two constant-memory buffers. While
// the kernel reads one chunk, a second stream copies the next chunk into
// the other buffer; events keep a buffer from being overwritten before the
// kernel that reads it has finished. Reference solution.
#include <algorithm>

#include "fhd.hpp"
#include "fhd_math.cuh"
#include "hpclab/cuda.hpp"

namespace lab13 {
namespace {

constexpr int kBlock = 256;

// Two buffers of kOverlapChunkCapacity structs: 65,520 bytes in all.
__constant__ KSample c_buffer[2][kOverlapChunkCapacity];

template <int kBuffer>
__global__ void chunk_kernel(int count, bool first, const float* __restrict__ x, const float* __restrict__ y,
                             const float* __restrict__ z, std::size_t n, float* __restrict__ rFHd,
                             float* __restrict__ iFHd) {
    const std::size_t v = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (v >= n) return;
    const float xv = x[v], yv = y[v], zv = z[v];
    float r = first ? 0.0f : rFHd[v], i = first ? 0.0f : iFHd[v];
    for (int j = 0; j < count; ++j) {
        const KSample s = c_buffer[kBuffer][j];
        accumulate_turns(s.kx, s.ky, s.kz, s.rMu, s.iMu, xv, yv, zv, r, i);
    }
    rFHd[v] = r;
    iFHd[v] = i;
}

// Streams and events for one call, released on every path out.
struct Pipeline {
    cudaStream_t compute = nullptr, copy = nullptr;
    cudaEvent_t copied[2] = {nullptr, nullptr}, used[2] = {nullptr, nullptr};
    Pipeline() {
        HPCLAB_CUDA_CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
        HPCLAB_CUDA_CHECK(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking));
        for (int b = 0; b < 2; ++b) {
            HPCLAB_CUDA_CHECK(cudaEventCreateWithFlags(&copied[b], cudaEventDisableTiming));
            HPCLAB_CUDA_CHECK(cudaEventCreateWithFlags(&used[b], cudaEventDisableTiming));
        }
    }
    ~Pipeline() {
        for (int b = 0; b < 2; ++b) {
            if (copied[b]) cudaEventDestroy(copied[b]);
            if (used[b]) cudaEventDestroy(used[b]);
        }
        if (compute) cudaStreamDestroy(compute);
        if (copy) cudaStreamDestroy(copy);
    }
    Pipeline(const Pipeline&) = delete;
    Pipeline& operator=(const Pipeline&) = delete;
};

}  // namespace

void fhd_overlap(const DeviceKSpace& k, const DeviceGrid& g, float* rFHd, float* iFHd, std::size_t chunk) {
    if (nothing_to_sum(k, g, rFHd, iFHd)) return;
    // The inputs may still be in flight on the legacy default stream.
    HPCLAB_CUDA_CHECK(cudaDeviceSynchronize());
    Pipeline p;
    const unsigned blocks = static_cast<unsigned>((g.n + kBlock - 1) / kBlock);
    const std::size_t chunks = (k.m + chunk - 1) / chunk;
    auto copy_chunk = [&](std::size_t c) {
        const int b = static_cast<int>(c % 2);
        const std::size_t start = c * chunk, count = std::min(chunk, k.m - start);
        // The kernel that last read buffer b (chunk c - 2) must be done.
        if (c >= 2) HPCLAB_CUDA_CHECK(cudaStreamWaitEvent(p.copy, p.used[b], 0));
        HPCLAB_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_buffer, k.samples + start, count * sizeof(KSample),
                                                  b * sizeof(c_buffer[0]), cudaMemcpyDeviceToDevice, p.copy));
        HPCLAB_CUDA_CHECK(cudaEventRecord(p.copied[b], p.copy));
    };
    copy_chunk(0);
    for (std::size_t c = 0; c < chunks; ++c) {
        const int b = static_cast<int>(c % 2);
        const int count = static_cast<int>(std::min(chunk, k.m - c * chunk));
        if (c + 1 < chunks) copy_chunk(c + 1);  // queued now, runs beside this chunk's kernel
        HPCLAB_CUDA_CHECK(cudaStreamWaitEvent(p.compute, p.copied[b], 0));
        if (b == 0) {
            chunk_kernel<0><<<blocks, kBlock, 0, p.compute>>>(count, c == 0, g.x, g.y, g.z, g.n, rFHd, iFHd);
        } else {
            chunk_kernel<1><<<blocks, kBlock, 0, p.compute>>>(count, c == 0, g.x, g.y, g.z, g.n, rFHd, iFHd);
        }
        HPCLAB_CUDA_CHECK(cudaGetLastError());
        HPCLAB_CUDA_CHECK(cudaEventRecord(p.used[b], p.compute));
    }
    HPCLAB_CUDA_CHECK(cudaStreamSynchronize(p.compute));
}

}  // namespace lab13
