// Lab 06, stages 1-5 and exercise 3 on the device: five reduction kernels,
// the passes that combine their block sums, and pi by the trapezoid rule.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "hpclab/not_implemented.hpp"
#include "reduction.hpp"

namespace lab06 {
namespace {

// ---- helpers --------------------------------------------------------------

// Dynamic shared memory (the third launch parameter) seen as T. One extern
// array serves float and double; 16-byte alignment suits both.
template <class T>
__device__ T* shared_array() {
    extern __shared__ __align__(16) unsigned char lab06_dynamic_shared[];
    return reinterpret_cast<T*>(lab06_dynamic_shared);
}

// The sum of v over the 32 lanes of a warp ends in lane 0 (DTU report's
// warpReduceSum): five shuffles, no shared memory, no __syncthreads.
template <class T>
__device__ T warp_sum(T v) {
    // TODO(student): stage 4. Five __shfl_down_sync steps (offsets 16, 8, 4,
    // 2, 1) with the full mask. Used by block_sum below.
    return v;
}

// The sum of v over the whole block ends in thread 0. Every thread of the
// block must call it (it contains __syncthreads), at most once per kernel
// (warp_sums is reused without a second barrier).
template <class T>
__device__ T block_sum(T v) {
    // TODO(student): stage 4. warp_sum in every warp; lane 0 of each warp
    // stores its sum in a __shared__ array of 32; __syncthreads(); warp 0
    // sums those (zeros for lanes past the last warp) with warp_sum.
    return v;
}

// A TODO kernel cannot throw; its host launch does, through this.
void require(bool implemented, const char* kernel) {
    if (!implemented) throw hpclab::NotImplemented(kernel);
}

// ---- stage 1: interleaved addressing (lecture 34, kernel 1) ----------------

constexpr bool kInterleavedDone = false;  // TODO(student): true once reduce_interleaved is written

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

constexpr bool kSequentialDone = false;  // TODO(student): true once reduce_sequential is written

template <class T>
__global__ void reduce_sequential(const T* __restrict__ in, std::size_t n, T* __restrict__ partial) {
    // TODO(student): stage 2, kernel 2 with its bug fixed (see the handout):
    // stride from blockDim.x / 2 down to 1, threads t < stride add s[t + stride].
    (void)in;
    (void)n;
    (void)partial;
}

// ---- stage 3: first add during the global load -----------------------------

constexpr bool kFirstAddDone = false;  // TODO(student): true once reduce_first_add is written

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

constexpr bool kWarpShuffleDone = false;  // TODO(student): true once reduce_warp_shuffle is written

template <class T>
__global__ void reduce_warp_shuffle(const T* __restrict__ in, std::size_t n, T* __restrict__ partial) {
    // TODO(student): stage 4. The two-element load of stage 3, then
    // block_sum (write warp_sum and block_sum above first).
    (void)in;
    (void)n;
    (void)partial;
}

// ---- stage 5: many elements per thread, a grid-stride loop -----------------

constexpr bool kGridStrideDone = false;  // TODO(student): true once reduce_grid_stride is written

// 16-byte vectors: one load instruction fetches 4 floats or 2 doubles.
template <class T> struct Vec16;
template <> struct Vec16<float> { using type = float4; };
template <> struct Vec16<double> { using type = double2; };

[[maybe_unused]] __device__ inline float lanes_sum(float4 a) { return (a.x + a.y) + (a.z + a.w); }
[[maybe_unused]] __device__ inline double lanes_sum(double2 a) { return a.x + a.y; }

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

constexpr bool kTrapezoidDone = false;  // TODO(student): true once trapezoid_block_sums is written

// Block sums of w_i sqrt(1 - x_i^2), x_i = i / intervals, i = 0..intervals,
// w_0 = w_n = 1/2, other weights 1; each thread takes every threads-th node.
__global__ void trapezoid_block_sums(std::size_t intervals, double* __restrict__ partial) {
    // TODO(student): exercise 3. Grid-stride loop over the nodes i = 0 ..
    // intervals: x = i / intervals, f = sqrt((1 - x)(1 + x)), halved at both
    // ends; block_sum; thread 0 writes partial[blockIdx.x].
    (void)intervals;
    (void)partial;
}

// ---- launches --------------------------------------------------------------

template <class T>
void launch(Method m, const T* in, std::size_t n, T* out, std::size_t blocks, int block, cudaStream_t stream) {
    const unsigned grid = static_cast<unsigned>(blocks);
    const std::size_t shared = static_cast<std::size_t>(block) * sizeof(T);
    switch (m) {
        case Method::interleaved:
            reduce_interleaved<T><<<grid, block, shared, stream>>>(in, n, out);
            break;
        case Method::sequential:
            reduce_sequential<T><<<grid, block, shared, stream>>>(in, n, out);
            break;
        case Method::first_add:
            reduce_first_add<T><<<grid, block, shared, stream>>>(in, n, out);
            break;
        case Method::warp_shuffle:
            reduce_warp_shuffle<T><<<grid, block, 0, stream>>>(in, n, out);
            break;
        case Method::grid_stride:
            reduce_grid_stride<T><<<grid, block, 0, stream>>>(in, n, out);
            break;
    }
    HPCLAB_CUDA_CHECK_LAUNCH();
}

void require_method(Method m) {
    switch (m) {
        case Method::interleaved: require(kInterleavedDone, "reduce_interleaved"); break;
        case Method::sequential: require(kSequentialDone, "reduce_sequential"); break;
        case Method::first_add: require(kFirstAddDone, "reduce_first_add"); break;
        case Method::warp_shuffle: require(kWarpShuffleDone, "reduce_warp_shuffle"); break;
        case Method::grid_stride: require(kGridStrideDone, "reduce_grid_stride"); break;
    }
}

void check_block(int block) {
    int device = 0, max_threads = 0;
    HPCLAB_CUDA_CHECK(cudaGetDevice(&device));
    HPCLAB_CUDA_CHECK(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerBlock, device));
    const bool power_of_two = block > 0 && (block & (block - 1)) == 0;
    if (!power_of_two || block < 32 || block > 1024 || block > max_threads) {
        throw std::invalid_argument("block size " + std::to_string(block) +
                                    " refused: the tree kernels need a power of two from 32 to " +
                                    std::to_string(max_threads < 1024 ? max_threads : 1024));
    }
}

// Blocks of the grid-stride kernel (or the pi kernel) resident on the whole GPU.
template <class Kernel>
std::size_t resident_blocks(Kernel kernel, int block) {
    int device = 0, sms = 0, per_sm = 0;
    HPCLAB_CUDA_CHECK(cudaGetDevice(&device));
    HPCLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    HPCLAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, 0));
    const std::size_t r = static_cast<std::size_t>(sms) * static_cast<std::size_t>(per_sm);
    return r > 0 ? r : 1;
}

}  // namespace

template <class T>
DeviceReducer<T>::DeviceReducer(Method method, std::size_t max_n, int block)
    : method_(method), block_(block), max_n_(max_n) {
    check_block(block);
    resident_blocks_ = resident_blocks(reduce_grid_stride<T>, block);
    // Pass k writes into half k % 2 of the scratch; later passes are smaller.
    const std::size_t first = blocks_for(method, max_n, block, resident_blocks_);
    scratch_ = hpclab::cuda::DeviceBuffer<T>(2 * (first > 0 ? first : 1));
    result_ = hpclab::cuda::DeviceBuffer<T>(1);
}

template <class T>
std::size_t DeviceReducer<T>::first_pass_blocks(std::size_t n) const {
    return blocks_for(method_, n, block_, resident_blocks_);
}

template <class T>
void DeviceReducer<T>::sum(const T* d_in, std::size_t n, T* d_out, cudaStream_t stream) {
    require_method(method_);
    if (n > max_n_) {
        throw std::length_error("DeviceReducer::sum: n = " + std::to_string(n) + " exceeds max_n = " +
                                std::to_string(max_n_));
    }
    if (n == 0) {
        HPCLAB_CUDA_CHECK(cudaMemsetAsync(d_out, 0, sizeof(T), stream));  // the empty sum
        return;
    }
    const std::size_t half = scratch_.size() / 2;
    const T* src = d_in;
    std::size_t count = n;
    for (int pass = 0;; ++pass) {
        // Each pass turns count values into one per block; the grid-stride
        // kernel needs only one more pass, of a single block.
        const std::size_t blocks = (method_ == Method::grid_stride && pass > 0)
                                       ? 1
                                       : blocks_for(method_, count, block_, resident_blocks_);
        T* dst = blocks == 1 ? d_out : scratch_.get() + (pass % 2) * half;
        launch(method_, src, count, dst, blocks, block_, stream);
        if (blocks == 1) break;
        src = dst;
        count = blocks;
    }
}

template <class T>
T DeviceReducer<T>::sum_to_host(const T* d_in, std::size_t n) {
    sum(d_in, n, result_.get());
    T value{};
    result_.copy_to_host(&value, 1);  // cudaMemcpy waits for the kernels
    return value;
}

template class DeviceReducer<float>;
template class DeviceReducer<double>;

double trapezoid_pi_device(std::size_t intervals, int block) {
    require(kTrapezoidDone, "trapezoid_block_sums");
    if (intervals == 0) throw std::invalid_argument("trapezoid_pi_device: need at least one interval");
    check_block(block);
    const std::size_t nodes = intervals + 1;
    std::size_t blocks = nodes / block + (nodes % block != 0);
    const std::size_t resident = resident_blocks(trapezoid_block_sums, block);
    if (blocks > resident) blocks = resident;
    hpclab::cuda::DeviceBuffer<double> partial(blocks);
    trapezoid_block_sums<<<static_cast<unsigned>(blocks), block>>>(intervals, partial.get());
    HPCLAB_CUDA_CHECK_LAUNCH();
    DeviceReducer<double> reducer(Method::grid_stride, blocks, block);
    return 4.0 * reducer.sum_to_host(partial.get(), blocks) / static_cast<double>(intervals);
}

}  // namespace lab06
