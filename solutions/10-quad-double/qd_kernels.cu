// Lab 10, stages 3 to 5: quad-double kernels: Newton square roots in two memory layouts, the
// less-divergent sum, pi by the trapezoid rule, complex Newton steps.
#include <algorithm>
#include <cmath>

#include "hpclab/cuda.hpp"
#include "md_operators.hpp"
#include "quad_double.hpp"

namespace lab10 {
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

unsigned blocks_for(std::size_t n, int block) { return static_cast<unsigned>((n + block - 1) / block); }

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

constexpr int kSumBlock = 256;  // a power of two: the tree halves it
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
