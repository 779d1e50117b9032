// Lab 10, stages 3 to 5: quad-double kernels: Newton square roots in two memory layouts, the
// less-divergent sum, pi by the trapezoid rule, complex Newton steps. (The given kernels, the
// element-wise operations and the lecture's Newton, are in elementwise_kernels.cu.)
// Every TODO(student) below throws "not implemented" until you write it.
#include <algorithm>
#include <cmath>

#include "hpclab/cuda.hpp"
#include "md_operators.hpp"  // your arithmetic (multi_double.hpp) and its operators
#include "quad_double.hpp"

namespace lab10 {

// ---- stage 3: Newton from the double square root, to convergence ----------------------------
// ---- stage 4: the interval layout ------------------------------------------------------------
// ---- stage 5: the quad-double sum, pi, complex Newton -----------------------------------------
// Write your kernels here (in an anonymous namespace); the launchers below are what the tests
// and the driver call. quad_double.hpp gives grid_for(n, block) for grid-stride loops.

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
