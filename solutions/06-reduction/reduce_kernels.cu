// Lab 06, stages 1-5 and exercise 3 on the device: five reduction kernels,
// the passes that launch them, and pi by the trapezoid rule.
#include <cstdint>

#include "hpclab/cuda.hpp"
#include "kernel_helpers.cuh"
#include "reduction.hpp"

namespace lab06 {
namespace {

// ---- helpers --------------------------------------------------------------

// The sum of v over the 32 lanes of a warp ends in lane 0 (DTU report's
// warpReduceSum): five shuffles, no shared memory, no __syncthreads.
template <class T>
__device__ T warp_sum(T v) {
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

// The sum of v over the whole block ends in thread 0. Every thread of the
// block must call it (it contains __syncthreads), at most once per kernel
// (warp_sums is reused without a second barrier).
template <class T>
__device__ T block_sum(T v) {
    __shared__ T warp_sums[32];  // one per warp; 1024 threads = 32 warps at most
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();  // all warp sums are written before warp 0 reads them
    if (warp == 0) {
        const unsigned warps = (blockDim.x + 31) / 32;
        v = warp_sum(lane < warps ? warp_sums[lane] : T(0));
    }
    return v;
}

// ---- stage 1: interleaved addressing (lecture 34, kernel 1) ----------------

template <class T>
__global__ void reduce_interleaved(const T* __restrict__ in, std::size_t n, T* __restrict__ partial) {
    T* s = shared_array<T>();
    const unsigned t = threadIdx.x;
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + t;
    s[t] = i < n ? in[i] : T(0);  // threads past the end add a zero
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        __syncthreads();  // the previous step's sums (and the loads) are complete
        // Active threads are t = 0, 2 stride, 4 stride, ...: every warp keeps
        // some active lanes for many steps, hence the divergence.
        if (t % (2 * stride) == 0) s[t] += s[t + stride];
    }
    if (t == 0) partial[blockIdx.x] = s[0];  // thread 0 wrote s[0] itself
}

// ---- stage 2: sequential addressing (kernel 2, with stride >>= 1) ----------

template <class T>
__global__ void reduce_sequential(const T* __restrict__ in, std::size_t n, T* __restrict__ partial) {
    T* s = shared_array<T>();
    const unsigned t = threadIdx.x;
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + t;
    s[t] = i < n ? in[i] : T(0);
    // The slide wrote "stride >> 1", which computes a value and discards it:
    // the loop never ends. The stride must be assigned: stride >>= 1.
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        __syncthreads();
        // Active threads are 0 .. stride-1: whole warps stay idle, and only
        // the last five steps (stride < 32) diverge inside a warp.
        if (t < stride) s[t] += s[t + stride];
    }
    if (t == 0) partial[blockIdx.x] = s[0];
}

// ---- stage 3: first add during the global load -----------------------------

template <class T>
__global__ void reduce_first_add(const T* __restrict__ in, std::size_t n, T* __restrict__ partial) {
    T* s = shared_array<T>();
    const unsigned t = threadIdx.x;
    // A block covers 2 * blockDim.x elements: half the blocks, and no thread
    // is idle in the first step of the tree.
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * 2 * blockDim.x + t;
    T v = i < n ? in[i] : T(0);
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    s[t] = v;
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        __syncthreads();
        if (t < stride) s[t] += s[t + stride];
    }
    if (t == 0) partial[blockIdx.x] = s[0];
}

// ---- stage 4: warp shuffles ------------------------------------------------

template <class T>
__global__ void reduce_warp_shuffle(const T* __restrict__ in, std::size_t n, T* __restrict__ partial) {
    const unsigned t = threadIdx.x;
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * 2 * blockDim.x + t;
    T v = i < n ? in[i] : T(0);
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    v = block_sum(v);  // 5 shuffles per warp, one barrier, 5 shuffles in warp 0
    if (t == 0) partial[blockIdx.x] = v;
}

// ---- stage 5: many elements per thread, a grid-stride loop -----------------

template <class T>
__global__ void reduce_grid_stride(const T* __restrict__ in, std::size_t n, T* __restrict__ partial) {
    using V = typename Vec16<T>::type;
    constexpr std::size_t kLanes = sizeof(V) / sizeof(T);
    const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;

    // Vector loads need 16-byte alignment: peel the first few elements if
    // the caller passed an offset pointer (cudaMalloc memory is aligned).
    const std::size_t misaligned = (reinterpret_cast<std::uintptr_t>(in) / sizeof(T)) % kLanes;
    std::size_t head = misaligned ? kLanes - misaligned : 0;
    if (head > n) head = n;
    T acc0 = tid < head ? in[tid] : T(0), acc1 = 0, acc2 = 0, acc3 = 0;

    const V* vin = reinterpret_cast<const V*>(in + head);
    const std::size_t vectors = (n - head) / kLanes;
    // Four independent loads in flight per thread, four accumulators so
    // the additions do not wait on each other.
    std::size_t j = tid;
    for (; j + 3 * threads < vectors; j += 4 * threads) {
        const V a = vin[j], b = vin[j + threads], c = vin[j + 2 * threads], d = vin[j + 3 * threads];
        acc0 += lanes_sum(a);
        acc1 += lanes_sum(b);
        acc2 += lanes_sum(c);
        acc3 += lanes_sum(d);
    }
    for (; j < vectors; j += threads) acc0 += lanes_sum(vin[j]);
    const std::size_t tail = head + vectors * kLanes;  // fewer than kLanes left
    if (tid < n - tail) acc1 += in[tail + tid];

    const T v = block_sum((acc0 + acc1) + (acc2 + acc3));
    if (threadIdx.x == 0) partial[blockIdx.x] = v;
}

// ---- exercise 3: pi by the trapezoid rule ----------------------------------

// Block sums of w_i sqrt(1 - x_i^2), x_i = i / intervals, i = 0..intervals,
// w_0 = w_n = 1/2, other weights 1; each thread takes every threads-th node.
__global__ void trapezoid_block_sums(std::size_t intervals, double* __restrict__ partial) {
    const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    const double n = static_cast<double>(intervals);
    double acc = 0;
    for (std::size_t i = tid; i <= intervals; i += threads) {
        const double x = static_cast<double>(i) / n;
        double f = sqrt((1.0 - x) * (1.0 + x));
        if (i == 0 || i == intervals) f *= 0.5;
        acc += f;
    }
    acc = block_sum(acc);
    if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}

}  // namespace

// ---- the passes: each launches its kernel (see Pass in reduction.hpp) -------

template <class T>
void Pass<T>::interleaved(const T* in, std::size_t n, T* partial, std::size_t blocks, int block, cudaStream_t stream) {
    reduce_interleaved<T><<<static_cast<unsigned>(blocks), block, block * sizeof(T), stream>>>(in, n, partial);
    HPCLAB_CUDA_CHECK_LAUNCH();
}

template <class T>
void Pass<T>::sequential(const T* in, std::size_t n, T* partial, std::size_t blocks, int block, cudaStream_t stream) {
    reduce_sequential<T><<<static_cast<unsigned>(blocks), block, block * sizeof(T), stream>>>(in, n, partial);
    HPCLAB_CUDA_CHECK_LAUNCH();
}

template <class T>
void Pass<T>::first_add(const T* in, std::size_t n, T* partial, std::size_t blocks, int block, cudaStream_t stream) {
    reduce_first_add<T><<<static_cast<unsigned>(blocks), block, block * sizeof(T), stream>>>(in, n, partial);
    HPCLAB_CUDA_CHECK_LAUNCH();
}

template <class T>
void Pass<T>::warp_shuffle(const T* in, std::size_t n, T* partial, std::size_t blocks, int block, cudaStream_t stream) {
    reduce_warp_shuffle<T><<<static_cast<unsigned>(blocks), block, 0, stream>>>(in, n, partial);
    HPCLAB_CUDA_CHECK_LAUNCH();
}

template <class T>
void Pass<T>::grid_stride(const T* in, std::size_t n, T* partial, std::size_t blocks, int block, cudaStream_t stream) {
    reduce_grid_stride<T><<<static_cast<unsigned>(blocks), block, 0, stream>>>(in, n, partial);
    HPCLAB_CUDA_CHECK_LAUNCH();
}

template <class T>
const void* Pass<T>::grid_stride_kernel() {
    return reinterpret_cast<const void*>(&reduce_grid_stride<T>);
}

void trapezoid_pass(std::size_t intervals, double* partial, std::size_t blocks, int block) {
    trapezoid_block_sums<<<static_cast<unsigned>(blocks), block>>>(intervals, partial);
    HPCLAB_CUDA_CHECK_LAUNCH();
}

const void* trapezoid_kernel() { return reinterpret_cast<const void*>(&trapezoid_block_sums); }

// DeviceReducer (device_reducer.cu) calls the passes for float and double.
template struct Pass<float>;
template struct Pass<double>;

}  // namespace lab06
