// Lab 08, part 3 on the device: dependent-instruction chains (two kernels
// per instruction that differ in one instruction per loop iteration), FMA
// throughput, the pointer chase, and the tiled matrix product with and
// without prefetching into registers.
#include "hpclab/cuda.hpp"
#include "hpclab/not_implemented.hpp"
#include "microbench.hpp"

namespace lab08 {
namespace {

// One dependent instruction, in inline PTX, so that the compiler can
// neither fold a chain of them nor move them across clock64().
__device__ __forceinline__ float fadd_step(float x, float y) {
    asm volatile("add.rn.f32 %0, %0, %1;" : "+f"(x) : "f"(y));
    return x;
}
__device__ __forceinline__ float ffma_step(float x, float y, float z) {
    asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x) : "f"(y), "f"(z));
    return x;
}
__device__ __forceinline__ double dfma_step(double x, double y, double z) {
    asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(x) : "d"(y), "d"(z));
    return x;
}
__device__ __forceinline__ int imad_step(int x, int y, int z) {
    asm volatile("mad.lo.s32 %0, %0, %1, %2;" : "+r"(x) : "r"(y), "r"(z));
    return x;
}
__device__ __forceinline__ float sfu_step(float x) {
    asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(x));
    return x;
}

template <Op kOp, int kBody>
__global__ void chain_kernel(int iterations, int seed, long long* cycles, double* sink) {
    __shared__ unsigned ring[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) ring[i] = (i + 1 + seed) & 255;
    __syncthreads();
    float xf = 1.0f + seed * 1e-7f, yf = 0.999f + seed * 1e-9f, zf = 1e-3f;
    double xd = xf, yd = yf, zd = zf;
    int xi = seed, yi = 3 + seed, zi = 7;
    unsigned idx = seed & 255;
    volatile unsigned* vring = ring;
    const long long start = clock64();
#pragma unroll 1
    for (int it = 0; it < iterations; ++it) {
#pragma unroll
        for (int k = 0; k < kBody; ++k) {
            if constexpr (kOp == Op::fadd) xf = fadd_step(xf, yf);
            if constexpr (kOp == Op::ffma) xf = ffma_step(xf, yf, zf);
            if constexpr (kOp == Op::dfma) xd = dfma_step(xd, yd, zd);
            if constexpr (kOp == Op::imad) xi = imad_step(xi, yi, zi);
            if constexpr (kOp == Op::sfu) xf = sfu_step(xf);
            if constexpr (kOp == Op::shared_load) idx = vring[idx];
        }
    }
    const long long stop = clock64();
    *cycles = stop - start;
    *sink = double(xf) + xd + double(xi) + double(idx);
}

template <Op kOp>
void launch_op(bool long_body, int iterations, int seed, long long* d_cycles, double* d_sink) {
    if (long_body) {
        chain_kernel<kOp, kChainShort + 1><<<1, 1>>>(iterations, seed, d_cycles, d_sink);
    } else {
        chain_kernel<kOp, kChainShort><<<1, 1>>>(iterations, seed, d_cycles, d_sink);
    }
}

template <class T>
__global__ void fma_throughput_kernel(int iterations, float seed, double* sink) {
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    T acc[8];
    const T mul = T(0.9999) + T(seed) * T(1e-9), add = T(1e-4);
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[j] = T(seed) + T(j) * T(1e-3) + T(t) * T(1e-9);
#pragma unroll 1
    for (int it = 0; it < iterations; ++it) {
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            if constexpr (sizeof(T) == 8) {
                asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(acc[j]) : "d"(mul), "d"(add));
            } else {
                asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(acc[j]) : "f"(mul), "f"(add));
            }
        }
    }
    double s = 0;
#pragma unroll
    for (int j = 0; j < 8; ++j) s += double(acc[j]);
    sink[t] = s;
}

__global__ void chase_kernel(const std::uint32_t* __restrict__ next, long long steps, long long* cycles,
                             std::uint32_t* end) {
    std::uint32_t i = 0;
    for (long long s = 0; s < steps; ++s) i = next[i];
    const long long start = clock64();
    for (long long s = 0; s < steps; ++s) i = next[i];
    const long long stop = clock64();
    *cycles = stop - start;
    *end = i;
}

template <bool kPrefetch>
__global__ void matmul_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int n) {
    __shared__ float As[kMatTile][kMatTile];
    __shared__ float Bs[kMatTile][kMatTile];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * kMatTile + ty, col = blockIdx.x * kMatTile + tx;
    const int tiles = (n + kMatTile - 1) / kMatTile;
    auto load_a = [&](int t) {
        const int c = t * kMatTile + tx;
        return row < n && c < n ? A[static_cast<std::size_t>(row) * n + c] : 0.0f;
    };
    auto load_b = [&](int t) {
        const int r = t * kMatTile + ty;
        return r < n && col < n ? B[static_cast<std::size_t>(r) * n + col] : 0.0f;
    };
    float sum = 0.0f;
    float a = 0.0f, b = 0.0f;
    if (kPrefetch) {
        a = load_a(0);
        b = load_b(0);
    }
    for (int t = 0; t < tiles; ++t) {
        if (kPrefetch) {
            As[ty][tx] = a;  // deposit the tile loaded during the last round
            Bs[ty][tx] = b;
        } else {
            As[ty][tx] = load_a(t);
            Bs[ty][tx] = load_b(t);
        }
        __syncthreads();
        if (kPrefetch && t + 1 < tiles) {  // the next tile's loads fly while this one is used
            a = load_a(t + 1);
            b = load_b(t + 1);
        }
#pragma unroll
        for (int k = 0; k < kMatTile; ++k) sum += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < n && col < n) C[static_cast<std::size_t>(row) * n + col] = sum;
}

}  // namespace

void launch_chain(Op op, bool long_body, int iterations, int seed, long long* d_cycles, double* d_sink) {
    switch (op) {
        case Op::fadd: launch_op<Op::fadd>(long_body, iterations, seed, d_cycles, d_sink); break;
        case Op::ffma: launch_op<Op::ffma>(long_body, iterations, seed, d_cycles, d_sink); break;
        case Op::dfma: launch_op<Op::dfma>(long_body, iterations, seed, d_cycles, d_sink); break;
        case Op::imad: launch_op<Op::imad>(long_body, iterations, seed, d_cycles, d_sink); break;
        case Op::sfu: launch_op<Op::sfu>(long_body, iterations, seed, d_cycles, d_sink); break;
        case Op::shared_load: launch_op<Op::shared_load>(long_body, iterations, seed, d_cycles, d_sink); break;
    }
    HPCLAB_CUDA_CHECK_LAUNCH();
    HPCLAB_CUDA_CHECK(cudaDeviceSynchronize());
}

void launch_fma_throughput(bool fp64, int blocks, int threads, int iterations, float seed, double* d_sink) {
    if (fp64) {
        fma_throughput_kernel<double><<<blocks, threads>>>(iterations, seed, d_sink);
    } else {
        fma_throughput_kernel<float><<<blocks, threads>>>(iterations, seed, d_sink);
    }
    HPCLAB_CUDA_CHECK_LAUNCH();
    HPCLAB_CUDA_CHECK(cudaDeviceSynchronize());
}

void launch_chase(const std::uint32_t* d_next, long long steps, long long* d_cycles, std::uint32_t* d_end) {
    chase_kernel<<<1, 1>>>(d_next, steps, d_cycles, d_end);
    HPCLAB_CUDA_CHECK_LAUNCH();
    HPCLAB_CUDA_CHECK(cudaDeviceSynchronize());
}

void launch_matmul_tiled(const float* A, const float* B, float* C, int n, bool prefetch, cudaStream_t stream) {
    if (n < 1) return;
    const unsigned g = static_cast<unsigned>((n + kMatTile - 1) / kMatTile);
    const dim3 grid(g, g), block(kMatTile, kMatTile);
    if (prefetch) {
        matmul_kernel<true><<<grid, block, 0, stream>>>(A, B, C, n);
    } else {
        matmul_kernel<false><<<grid, block, 0, stream>>>(A, B, C, n);
    }
    HPCLAB_CUDA_CHECK_LAUNCH();
}

cudaFuncAttributes matmul_attributes(bool prefetch) {
    cudaFuncAttributes a;
    if (prefetch) {
        HPCLAB_CUDA_CHECK(cudaFuncGetAttributes(&a, matmul_kernel<true>));
    } else {
        HPCLAB_CUDA_CHECK(cudaFuncGetAttributes(&a, matmul_kernel<false>));
    }
    return a;
}

}  // namespace lab08
