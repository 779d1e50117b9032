// Lab 10, stages 3 to 5: quad-double kernels: Newton square roots in two memory layouts, the
// less-divergent sum, pi by the trapezoid rule, complex Newton steps; and the given kernels
// (element-wise operations, the lecture's Newton) that the tests and the driver use.
#include <algorithm>
#include <cmath>

#include "hpclab/cuda.hpp"
#include "multi_double.hpp"  // quotes: this directory's copy, the variant being built
#include "quad_double.hpp"

namespace lab10 {
namespace {

constexpr int kApplyBlock = 256;

// Enough blocks to fill the GPU with a grid-stride loop, never zero.
unsigned grid_for(std::size_t n, int block) {
    const std::size_t blocks = (n + block - 1) / block;
    return static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(blocks, 65535)));
}

// ---- given: element-wise operations --------------------------------------------------------

template <class T>
__global__ void apply_kernel(Op op, const T* a, const T* b, T* c, std::size_t n) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        c[i] = apply_host(op, a[i], b[i]);
}

template <class T>
__global__ void chain_kernel(Op op, const T* a, const T* b, T* c, std::size_t n, int chain) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < n) c[i] = run_chain(op, a[i], b[i], chain);
}

template <class T>
void launch_apply_t(Op op, const T* a, const T* b, T* c, std::size_t n) {
    if (n == 0) return;
    apply_kernel<<<grid_for(n, kApplyBlock), kApplyBlock>>>(op, a, b, c, n);
    HPCLAB_CUDA_CHECK_LAUNCH();
}

// ---- given: the lecture's kernel, 10 steps from y = x ---------------------------------------

__global__ void sqrt_lecture_kernel(const QuadDouble* x, QuadDouble* y, std::size_t n) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= n) return;  // the lecture had no bound: n was a multiple of 32
    const QuadDouble c = x[i];
    QuadDouble r = c;
    for (int j = 0; j < 10; ++j) r = r - (r * r - c) / (2.0 * r);
    y[i] = r;
}

template <class T>
void launch_chain_t(Op op, const T* a, const T* b, T* c, std::size_t n, int chain) {
    if (n == 0) return;
    chain_kernel<<<static_cast<unsigned>((n + kApplyBlock - 1) / kApplyBlock), kApplyBlock>>>(op, a, b, c, n, chain);
    HPCLAB_CUDA_CHECK_LAUNCH();
}

}  // namespace

void launch_chain(Op op, const DoubleDouble* a, const DoubleDouble* b, DoubleDouble* c, std::size_t n, int chain) {
    launch_chain_t(op, a, b, c, n, chain);
}
void launch_chain(Op op, const QuadDouble* a, const QuadDouble* b, QuadDouble* c, std::size_t n, int chain) {
    launch_chain_t(op, a, b, c, n, chain);
}

void launch_apply(Op op, const DoubleDouble* a, const DoubleDouble* b, DoubleDouble* c, std::size_t n) {
    launch_apply_t(op, a, b, c, n);
}
void launch_apply(Op op, const QuadDouble* a, const QuadDouble* b, QuadDouble* c, std::size_t n) {
    launch_apply_t(op, a, b, c, n);
}

void launch_sqrt_lecture(const QuadDouble* x, QuadDouble* y, std::size_t n) {
    if (n == 0) return;
    sqrt_lecture_kernel<<<static_cast<unsigned>((n + 31) / 32), 32>>>(x, y, n);
    HPCLAB_CUDA_CHECK_LAUNCH();
}

namespace {

// ---- stage 3: Newton from the double square root, to convergence ----------------------------

// Quadratic convergence from 53 correct bits: 106, 212, then the step is at rounding level,
// so three steps per element, the same for every x (no divergence within a warp).
__device__ QuadDouble sqrt_newton_one(QuadDouble x, int* steps) {
    *steps = 0;
    if (x.v.x == 0.0) return make_qd(0.0);
    if (x.v.x < 0.0) return make_qd(md_nan());
    QuadDouble y = make_qd(::sqrt(x.v.x));
    for (int k = 0; k < kMaxNewtonIterations; ++k) {
        const QuadDouble delta = (y * y - x) / (2.0 * y);
        y = y - delta;
        *steps = k + 1;
        if (::fabs(delta.v.x) <= kNewtonTolerance * ::fabs(y.v.x)) break;
    }
    return y;
}

__global__ void sqrt_newton_kernel(const QuadDouble* x, QuadDouble* y, int* iterations, std::size_t n) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    int steps;
    y[i] = sqrt_newton_one(x[i], &steps);
    if (iterations) iterations[i] = steps;
}

// ---- stage 4: interval layout: consecutive threads read consecutive doubles of each word ----

__global__ void sqrt_newton_interval_kernel(const double* x, double* y, std::size_t n) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    int steps;
    const QuadDouble r = sqrt_newton_one(make_qd(x[i], x[n + i], x[2 * n + i], x[3 * n + i]), &steps);
    y[i] = r.v.x;
    y[n + i] = r.v.y;
    y[2 * n + i] = r.v.z;
    y[3 * n + i] = r.v.w;
}

unsigned blocks_for(std::size_t n, int block) {
    return static_cast<unsigned>((n + block - 1) / block);
}

}  // namespace

void launch_sqrt_newton(const QuadDouble* x, QuadDouble* y, int* iterations, std::size_t n, int block) {
    if (n == 0) return;
    if (block <= 0) throw std::invalid_argument("launch_sqrt_newton: block must be positive");
    sqrt_newton_kernel<<<blocks_for(n, block), block>>>(x, y, iterations, n);
    HPCLAB_CUDA_CHECK_LAUNCH();
}

void launch_sqrt_newton_interval(const double* x, double* y, std::size_t n, int block) {
    if (n == 0) return;
    if (block <= 0) throw std::invalid_argument("launch_sqrt_newton_interval: block must be positive");
    sqrt_newton_interval_kernel<<<blocks_for(n, block), block>>>(x, y, n);
    HPCLAB_CUDA_CHECK_LAUNCH();
}

namespace {

// ---- stage 5b: lecture 34's second (less divergent) reduction, in quad-double ---------------

constexpr int kSumBlock = 256;   // a power of two: the tree halves it
constexpr unsigned kSumGrid = 1024;

// Tree sum of the block's values: in step s, threads 0..s-1 add the value s places above, so
// the active threads stay contiguous and whole warps retire together.
__device__ QuadDouble block_sum(QuadDouble value, QuadDouble* shared) {
    shared[threadIdx.x] = value;
    __syncthreads();
    for (unsigned stride = blockDim.x >> 1; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) shared[threadIdx.x] = shared[threadIdx.x] + shared[threadIdx.x + stride];
        __syncthreads();
    }
    return shared[0];
}

// Each thread first adds a grid-stride slice, then the block tree; one partial per block.
__global__ void sum_kernel(const QuadDouble* x, std::size_t n, QuadDouble* partial) {
    __shared__ QuadDouble shared[kSumBlock];
    QuadDouble acc = make_qd(0.0);
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        acc = acc + x[i];
    const QuadDouble s = block_sum(acc, shared);
    if (threadIdx.x == 0) partial[blockIdx.x] = s;
}

// sqrt(1 - t_i^2) for the interior points i = 1 .. n-1, summed like sum_kernel.
__global__ void pi_kernel(std::size_t n, QuadDouble h, QuadDouble* partial) {
    __shared__ QuadDouble shared[kSumBlock];
    const QuadDouble one = make_qd(1.0);
    QuadDouble acc = make_qd(0.0);
    for (std::size_t i = 1 + blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const QuadDouble t = h * static_cast<double>(i);  // exact for i < 2^53
        acc = acc + sqrt(one - t * t);
    }
    const QuadDouble s = block_sum(acc, shared);
    if (threadIdx.x == 0) partial[blockIdx.x] = s;
}

// Add the block partials with one block.
QuadDouble finish_sum(hpclab::cuda::DeviceBuffer<QuadDouble>& partial, unsigned grid) {
    hpclab::cuda::DeviceBuffer<QuadDouble> total(1);
    sum_kernel<<<1, kSumBlock>>>(partial.get(), grid, total.get());
    HPCLAB_CUDA_CHECK_LAUNCH();
    QuadDouble s;
    total.copy_to_host(&s, 1);
    return s;
}

}  // namespace

QuadDouble gpu_sum(const QuadDouble* x, std::size_t n) {
    const unsigned grid = std::min<unsigned>(kSumGrid, grid_for(n, kSumBlock));
    hpclab::cuda::DeviceBuffer<QuadDouble> partial(grid);
    sum_kernel<<<grid, kSumBlock>>>(x, n, partial.get());
    HPCLAB_CUDA_CHECK_LAUNCH();
    return finish_sum(partial, grid);
}

QuadDouble gpu_pi(std::size_t n) {
    if (n == 0) throw std::invalid_argument("gpu_pi: needs at least one interval");
    const QuadDouble h = make_qd(1.0) / make_qd(static_cast<double>(n));
    const unsigned grid = std::min<unsigned>(kSumGrid, grid_for(n, kSumBlock));
    hpclab::cuda::DeviceBuffer<QuadDouble> partial(grid);
    pi_kernel<<<grid, kSumBlock>>>(n, h, partial.get());
    HPCLAB_CUDA_CHECK_LAUNCH();
    const QuadDouble interior = finish_sum(partial, grid);
    // Trapezoid: h * (f(0)/2 + interior + f(1)/2) with f(0) = 1, f(1) = 0; times 4.
    return 4.0 * (h * (interior + make_qd(0.5)));
}

namespace {

// ---- stage 5d: complex Newton, one thread per number ----------------------------------------

__global__ void complex_newton_kernel(const ComplexQd* c, ComplexQd* z, std::size_t n, int steps) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    ComplexQd zi = z[i];
    const ComplexQd ci = c[i];
    for (int k = 0; k < steps; ++k) zi = complex_newton_step(zi, ci);
    z[i] = zi;
}

}  // namespace

void launch_complex_newton(const ComplexQd* c, ComplexQd* z, std::size_t n, int steps) {
    if (n == 0) return;
    complex_newton_kernel<<<blocks_for(n, 128), 128>>>(c, z, n, steps);
    HPCLAB_CUDA_CHECK_LAUNCH();
}

}  // namespace lab10
