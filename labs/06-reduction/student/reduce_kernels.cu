// Lab 06, stages 1-5 and exercise 3 on the device: five reduction kernels,
// the passes that launch them, and pi by the trapezoid rule. The given
// DeviceReducer (device_reducer.cu) chains your passes; shared_array, Vec16
// and lanes_sum are in kernel_helpers.cuh.
// Every pass below throws "not implemented" until you write it.
#include <cmath>
#include <cstdint>

#include "hpclab/cuda.hpp"
#include "hpclab/not_implemented.hpp"
#include "kernel_helpers.cuh"
#include "reduction.hpp"

namespace lab06 {
namespace {

// ---- helpers --------------------------------------------------------------

// The sum of v over the 32 lanes of a warp ends in lane 0 (DTU report's
// warpReduceSum): five shuffles, no shared memory, no __syncthreads.
template <class T>
__device__ T warp_sum(T v) {
    // TODO(student): stage 4. Five __shfl_down_sync steps (offsets 16, 8, 4,
    // 2, 1) with the full mask. Used by block_sum below.
    (void)v;
    return T(NAN);  // a device function cannot throw: NaN until written
}

// The sum of v over the whole block ends in thread 0. Every thread of the
// block must call it (it contains __syncthreads), at most once per kernel
// (warp_sums is reused without a second barrier).
template <class T>
__device__ T block_sum(T v) {
    // TODO(student): stage 4. warp_sum in every warp; lane 0 of each warp
    // stores its sum in a __shared__ array of 32; __syncthreads(); warp 0
    // sums those (zeros for lanes past the last warp) with warp_sum.
    (void)v;
    return T(NAN);
}

// ---- stage 1: interleaved addressing (lecture 34, kernel 1) ----------------

template <class T>
__global__ void reduce_interleaved(const T* __restrict__ in, std::size_t n, T* __restrict__ partial) {
    // TODO(student): stage 1, lecture 34's kernel 1. Load in[i] (0 past the
    // end) into shared_array<T>()[t]; for stride = 1, 2, 4, ... < blockDim.x:
    // __syncthreads(), then threads with t % (2 * stride) == 0 add
    // s[t + stride]. Thread 0 writes s[0] to partial[blockIdx.x].
    (void)in;
    (void)n;
    (void)partial;
}

// ---- stage 2: sequential addressing (kernel 2, with stride >>= 1) ----------

template <class T>
__global__ void reduce_sequential(const T* __restrict__ in, std::size_t n, T* __restrict__ partial) {
    // TODO(student): stage 2, kernel 2 with its bug fixed (see the handout):
    // stride from blockDim.x / 2 down to 1, threads t < stride add s[t + stride].
    (void)in;
    (void)n;
    (void)partial;
}

// ---- stage 3: first add during the global load -----------------------------

template <class T>
__global__ void reduce_first_add(const T* __restrict__ in, std::size_t n, T* __restrict__ partial) {
    // TODO(student): stage 3. Block b covers elements [2 b blockDim.x,
    // 2 (b + 1) blockDim.x): each thread adds its two elements (either may
    // be past the end) while loading, then the tree of stage 2.
    (void)in;
    (void)n;
    (void)partial;
}

// ---- stage 4: warp shuffles ------------------------------------------------

template <class T>
__global__ void reduce_warp_shuffle(const T* __restrict__ in, std::size_t n, T* __restrict__ partial) {
    // TODO(student): stage 4. The two-element load of stage 3, then
    // block_sum (write warp_sum and block_sum above first).
    (void)in;
    (void)n;
    (void)partial;
}

// ---- stage 5: many elements per thread, a grid-stride loop -----------------

template <class T>
__global__ void reduce_grid_stride(const T* __restrict__ in, std::size_t n, T* __restrict__ partial) {
    // TODO(student): stage 5. Each thread sums elements tid, tid + threads,
    // tid + 2 threads, ... (threads = gridDim.x * blockDim.x) in a register,
    // then block_sum. To reach CUB: 16-byte loads (Vec16<T>, mind the
    // alignment of `in` and the tail), several loads in flight per thread.
    (void)in;
    (void)n;
    (void)partial;
}

// ---- exercise 3: pi by the trapezoid rule ----------------------------------

// Block sums of w_i sqrt(1 - x_i^2), x_i = i / intervals, i = 0..intervals,
// w_0 = w_n = 1/2, other weights 1; each thread takes every threads-th node.
__global__ void trapezoid_block_sums(std::size_t intervals, double* __restrict__ partial) {
    // TODO(student): exercise 3. Grid-stride loop over the nodes i = 0 ..
    // intervals: x = i / intervals, f = sqrt((1 - x)(1 + x)), halved at both
    // ends; block_sum; thread 0 writes partial[blockIdx.x].
    (void)intervals;
    (void)partial;
}

}  // namespace

// ---- the passes: each launches its kernel (see Pass in reduction.hpp) -------

template <class T>
void Pass<T>::interleaved(const T* in, std::size_t n, T* partial, std::size_t blocks, int block, cudaStream_t stream) {
    // TODO(student): stage 1. Launch reduce_interleaved<T> with `blocks`
    // blocks of `block` threads, block * sizeof(T) bytes of dynamic shared
    // memory, on `stream`; then HPCLAB_CUDA_CHECK_LAUNCH().
    (void)in;
    (void)n;
    (void)partial;
    (void)blocks;
    (void)block;
    (void)stream;
    throw hpclab::NotImplemented("Pass<T>::interleaved");
}

template <class T>
void Pass<T>::sequential(const T* in, std::size_t n, T* partial, std::size_t blocks, int block, cudaStream_t stream) {
    // TODO(student): stage 2. The same for reduce_sequential<T>.
    (void)in;
    (void)n;
    (void)partial;
    (void)blocks;
    (void)block;
    (void)stream;
    throw hpclab::NotImplemented("Pass<T>::sequential");
}

template <class T>
void Pass<T>::first_add(const T* in, std::size_t n, T* partial, std::size_t blocks, int block, cudaStream_t stream) {
    // TODO(student): stage 3. The same for reduce_first_add<T>.
    (void)in;
    (void)n;
    (void)partial;
    (void)blocks;
    (void)block;
    (void)stream;
    throw hpclab::NotImplemented("Pass<T>::first_add");
}

template <class T>
void Pass<T>::warp_shuffle(const T* in, std::size_t n, T* partial, std::size_t blocks, int block, cudaStream_t stream) {
    // TODO(student): stage 4. Launch reduce_warp_shuffle<T>; block_sum's
    // __shared__ array is static, so no dynamic shared memory.
    (void)in;
    (void)n;
    (void)partial;
    (void)blocks;
    (void)block;
    (void)stream;
    throw hpclab::NotImplemented("Pass<T>::warp_shuffle");
}

template <class T>
void Pass<T>::grid_stride(const T* in, std::size_t n, T* partial, std::size_t blocks, int block, cudaStream_t stream) {
    // TODO(student): stage 5. Launch reduce_grid_stride<T>, no dynamic shared
    // memory; `blocks` is at most what the GPU holds at once (blocks_for).
    (void)in;
    (void)n;
    (void)partial;
    (void)blocks;
    (void)block;
    (void)stream;
    throw hpclab::NotImplemented("Pass<T>::grid_stride");
}

template <class T>
const void* Pass<T>::grid_stride_kernel() {
    return reinterpret_cast<const void*>(&reduce_grid_stride<T>);
}

void trapezoid_pass(std::size_t intervals, double* partial, std::size_t blocks, int block) {
    // TODO(student): exercise 3. Launch trapezoid_block_sums with `blocks`
    // blocks of `block` threads on the default stream; check the launch.
    (void)intervals;
    (void)partial;
    (void)blocks;
    (void)block;
    throw hpclab::NotImplemented("trapezoid_pass");
}

const void* trapezoid_kernel() { return reinterpret_cast<const void*>(&trapezoid_block_sums); }

// DeviceReducer (device_reducer.cu) calls the passes for float and double.
template struct Pass<float>;
template struct Pass<double>;

}  // namespace lab06
