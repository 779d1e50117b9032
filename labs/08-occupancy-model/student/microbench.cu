// Lab 08, part 3 on the device: dependent-instruction chains (two kernels
// per instruction that differ in one instruction per loop iteration), FMA
// throughput, the pointer chase, and the tiled matrix product with and
// without prefetching into registers.
// Every launch below throws "not implemented" until you write it; the
// kernels are [[maybe_unused]] until your launches use them.
#include <cmath>

#include "hpclab/cuda.hpp"
#include "hpclab/not_implemented.hpp"
#include "microbench.hpp"

namespace lab08 {
namespace {

// One dependent instruction, in inline PTX, so that the compiler can
// neither fold a chain of them nor move them across clock64(). The fadd
// step is written for you; the others return NaN until you write them
// (a device function cannot throw).
[[maybe_unused]] __device__ __forceinline__ float fadd_step(float x, float y) {
    asm volatile("add.rn.f32 %0, %0, %1;" : "+f"(x) : "f"(y));
    return x;
}
[[maybe_unused]] __device__ __forceinline__ float ffma_step(float x, float y, float z) {
    // TODO(student): fma.rn.f32
    (void)x, (void)y, (void)z;
    return NAN;
}
[[maybe_unused]] __device__ __forceinline__ double dfma_step(double x, double y, double z) {
    // TODO(student): fma.rn.f64 (constraint "d")
    (void)x, (void)y, (void)z;
    return NAN;
}
[[maybe_unused]] __device__ __forceinline__ int imad_step(int x, int y, int z) {
    // TODO(student): mad.lo.s32 (constraint "r")
    (void)y, (void)z;
    return x;
}
[[maybe_unused]] __device__ __forceinline__ float sfu_step(float x) {
    // TODO(student): ex2.approx.ftz.f32
    (void)x;
    return NAN;
}

// TODO(student): a kernel template chain_kernel<Op, kBody>(iterations,
// seed, cycles, sink): one thread; values from `seed`; clock64() before and
// after a loop of `iterations` rounds (#pragma unroll 1) of kBody dependent
// steps (#pragma unroll); for the shared load, idx = ring[idx] through a
// volatile pointer to a __shared__ ring of 256 indices; the cycles to
// *cycles, the chain's values to *sink.

// TODO(student): fma_throughput_kernel<T>, chase_kernel and the two tiled
// matrix-product kernels (lecture 36's prefetching loop for the second).

}  // namespace

void launch_chain(Op op, bool long_body, int iterations, int seed, long long* d_cycles, double* d_sink) {
    // TODO(student): launch chain_kernel<op, kChainShort + long_body> with
    // one thread, check the launch, synchronise.
    (void)op, (void)long_body, (void)iterations, (void)seed, (void)d_cycles, (void)d_sink;
    throw hpclab::NotImplemented("launch_chain");
}

void launch_fma_throughput(bool fp64, int blocks, int threads, int iterations, float seed, double* d_sink) {
    (void)fp64, (void)blocks, (void)threads, (void)iterations, (void)seed, (void)d_sink;
    throw hpclab::NotImplemented("launch_fma_throughput");
}

void launch_chase(const std::uint32_t* d_next, long long steps, long long* d_cycles, std::uint32_t* d_end) {
    (void)d_next, (void)steps, (void)d_cycles, (void)d_end;
    throw hpclab::NotImplemented("launch_chase");
}

void launch_matmul_tiled(const float* A, const float* B, float* C, int n, bool prefetch, cudaStream_t stream) {
    (void)A, (void)B, (void)C, (void)n, (void)prefetch, (void)stream;
    throw hpclab::NotImplemented("launch_matmul_tiled");
}

cudaFuncAttributes matmul_attributes(bool prefetch) {
    // TODO(student): cudaFuncGetAttributes of the kernel launch_matmul_tiled uses.
    (void)prefetch;
    throw hpclab::NotImplemented("matmul_attributes");
}

}  // namespace lab08
