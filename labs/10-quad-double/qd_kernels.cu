// Lab 10, stages 3 to 5: quad-double kernels: Newton square roots in two memory layouts, the
// less-divergent sum, pi by the trapezoid rule, complex Newton steps; and the given kernels
// (element-wise operations, the lecture's Newton) that the tests and the driver use.
// Every TODO(student) below throws "not implemented" until you write it.
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

// ---- stage 3: Newton from the double square root, to convergence ----------------------------
// ---- stage 4: the interval layout ------------------------------------------------------------
// ---- stage 5: the quad-double sum, pi, complex Newton -----------------------------------------
// Write your kernels here (in an anonymous namespace, as above); the launchers below are what
// the tests and the driver call.

void launch_sqrt_newton(const QuadDouble* x, QuadDouble* y, int* iterations, std::size_t n, int block) {
    // TODO(student): a kernel with one thread per number: y0 = sqrt(x.hi) in double, then
    // y -= (y*y - x) / (2y) until |step| <= kNewtonTolerance * |y| (at most
    // kMaxNewtonIterations steps); 0 for x == 0, NaN for x < 0; store the step count in
    // iterations[i] when iterations is not null. Launch it with `block` threads per block and
    // check the launch (a block the device refuses must throw).
    (void)x;
    (void)y;
    (void)iterations;
    (void)n;
    (void)block;
    throw hpclab::NotImplemented("launch_sqrt_newton");
}

void launch_sqrt_newton_interval(const double* x, double* y, std::size_t n, int block) {
    // TODO(student): the same Newton, reading word k of number i from x[k * n + i] and writing
    // y likewise: the bits must equal launch_sqrt_newton's.
    (void)x;
    (void)y;
    (void)n;
    (void)block;
    throw hpclab::NotImplemented("launch_sqrt_newton_interval");
}

QuadDouble gpu_sum(const QuadDouble* x, std::size_t n) {
    // TODO(student): lecture 34's second reduction in quad-double: each thread adds a
    // grid-stride slice; a shared-memory tree with stride = blockDim.x/2, /4, ..., 1 where
    // thread t < stride adds element t + stride (__syncthreads() between steps); one partial
    // per block; a second launch with one block adds the partials. Return 0 for n == 0.
    (void)x;
    (void)n;
    throw hpclab::NotImplemented("gpu_sum");
}

QuadDouble gpu_pi(std::size_t n) {
    // TODO(student): h = 1/n in quad-double, t_i = h * i; sum sqrt(1 - t_i^2) for i = 1..n-1
    // on the GPU (reuse your reduction); pi = 4 h (1/2 + sum) since f(0) = 1 and f(1) = 0.
    // n == 0 is an error (std::invalid_argument).
    (void)n;
    throw hpclab::NotImplemented("gpu_pi");
}

void launch_complex_newton(const ComplexQd* c, ComplexQd* z, std::size_t n, int steps) {
    // TODO(student): one thread per number: z[i] = complex_newton_step(z[i], c[i]), `steps`
    // times.
    (void)c;
    (void)z;
    (void)n;
    (void)steps;
    throw hpclab::NotImplemented("launch_complex_newton");
}

}  // namespace lab10
