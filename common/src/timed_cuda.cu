// Device-side input and output summaries of the timing protocol (see
// hpclab/timed_cuda.hpp).
#include "hpclab/cuda.hpp"
#include "hpclab/timed_cuda.hpp"

#include <stdexcept>

namespace hpclab {
namespace timed {
namespace cuda {

namespace {

constexpr int kBlock = 256;

__host__ __device__ inline std::uint64_t mix64(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int grid_for(std::size_t n) {
    const std::size_t blocks = (n + kBlock - 1) / kBlock;
    return static_cast<int>(blocks < 4096 ? (blocks ? blocks : 1) : 4096);
}

// SplitMix64's stream: one mix per element, keyed by the seed, so a fill
// runs at memory speed rather than at the speed of its hashing.
template <class T>
__global__ void fill_kernel(T* d, std::size_t n, std::uint64_t seed, double lo, double width) {
    const std::uint64_t key = mix64(seed);
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        const double u = static_cast<double>(mix64(key + 0x9E3779B97F4A7C15ull * (i + 1)) >> 11) * 0x1p-53;
        d[i] = static_cast<T>(lo + width * u);
    }
}

// Sum over 8-byte words of mix(word, index): addition modulo 2^64 is exact
// and commutative, so the digest is the same whatever the order of threads.
// Each block adds its threads' sums in shared memory first: one atomic per
// block, not per thread (a million atomics on one address cost 0.9 ms).
__global__ void digest_kernel(const std::uint64_t* words, std::size_t n, unsigned long long* out) {
    __shared__ unsigned long long partial[kBlock];
    unsigned long long local = 0;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        local += mix64(words[i] ^ (0x9E3779B97F4A7C15ull * (i + 1)));
    }
    partial[threadIdx.x] = local;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, partial[0]);
}

template <class T>
__global__ void signed_sum_kernel(const T* d, std::size_t n, std::uint64_t key, double* out) {
    __shared__ double partial[kBlock];
    double local = 0;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        // The weights of the host's timed::signed_sums: +-1 to +-16.
        const std::uint64_t h = mix64(key ^ i);
        const double w = static_cast<double>(1 + (h >> 60));
        local += ((h >> 59) & 1 ? -w : w) * static_cast<double>(d[i]);
    }
    partial[threadIdx.x] = local;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, partial[0]);
}

template <class T>
void fill(T* d, std::size_t n, std::uint64_t seed, double lo, double hi, cudaStream_t stream) {
    if (n == 0) return;
    fill_kernel<<<grid_for(n), kBlock, 0, stream>>>(d, n, seed, lo, hi - lo);
    HPCLAB_CUDA_CHECK_LAUNCH();
}

template <class T>
std::vector<double> sums(const T* d, std::size_t n, std::uint64_t seed, int patterns) {
    HPCLAB_CUDA_CHECK(cudaDeviceSynchronize());
    hpclab::cuda::DeviceBuffer<double> out(static_cast<std::size_t>(patterns));
    out.zero();
    for (int p = 0; p < patterns && n > 0; ++p) {
        // The same keys as the host's timed::signed_sums.
        const std::uint64_t key = mix64(seed + 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(p + 1));
        signed_sum_kernel<<<grid_for(n), kBlock>>>(d, n, key, out.get() + p);
        HPCLAB_CUDA_CHECK_LAUNCH();
    }
    std::vector<double> host(static_cast<std::size_t>(patterns));
    out.copy_to_host(host.data(), host.size());
    return host;
}

}  // namespace

void fill_uniform(float* d, std::size_t n, std::uint64_t seed, float lo, float hi, cudaStream_t stream) {
    fill(d, n, seed, lo, hi, stream);
}
void fill_uniform(double* d, std::size_t n, std::uint64_t seed, double lo, double hi, cudaStream_t stream) {
    fill(d, n, seed, lo, hi, stream);
}

std::vector<double> exact_digest(const void* d, std::size_t bytes) {
    if (reinterpret_cast<std::uintptr_t>(d) % 8 != 0) throw std::invalid_argument("exact_digest: not 8-byte aligned");
    HPCLAB_CUDA_CHECK(cudaDeviceSynchronize());
    const std::size_t words = bytes / 8, tail = bytes % 8;
    hpclab::cuda::DeviceBuffer<unsigned long long> out(1);
    out.zero();
    if (words) {
        digest_kernel<<<grid_for(words), kBlock>>>(static_cast<const std::uint64_t*>(d), words, out.get());
        HPCLAB_CUDA_CHECK_LAUNCH();
    }
    unsigned long long h = 0;
    out.copy_to_host(&h, 1);
    std::uint64_t last = 0;
    if (tail)
        HPCLAB_CUDA_CHECK(cudaMemcpy(&last, static_cast<const char*>(d) + 8 * words, tail, cudaMemcpyDeviceToHost));
    const std::uint64_t g = mix64(h ^ mix64(last) ^ (static_cast<std::uint64_t>(bytes) << 1));
    return {static_cast<double>(g >> 32), static_cast<double>(g & 0xFFFFFFFFull)};
}

std::vector<double> signed_sums(const float* d, std::size_t n, std::uint64_t seed, int patterns) {
    return sums(d, n, seed, patterns);
}
std::vector<double> signed_sums(const double* d, std::size_t n, std::uint64_t seed, int patterns) {
    return sums(d, n, seed, patterns);
}

}  // namespace cuda
}  // namespace timed
}  // namespace hpclab
