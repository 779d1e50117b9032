// Lab 04, stages 3-5: Newton kernels for square roots and polynomial roots, their
// launchers (with the launch checked), and counting the distinct roots found.
#include <stdexcept>
#include <vector>

#include "complex_double2.cuh"
#include "hpclab/cuda.hpp"
#include "hpclab/not_implemented.hpp"
#include "newton.hpp"

namespace lab04 {
namespace {

// Blocks to cover n threads; block_size < 1 is a caller's bug, not a CUDA error.
int blocks_for(int n, int block_size) {
    if (block_size < 1) throw std::invalid_argument("block size must be at least 1");
    return (n + block_size - 1) / block_size;
}

// The lecture's squareRoot kernel with k steps instead of 5, and the bounds
// check it lacked (launched <<<n/w, w>>> it silently skipped n mod w numbers;
// rounded up without the check it would read past the arrays).
__global__ void sqrt_fixed_kernel(int n, const double2* c, double2* r, int iterations) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const double2 ci = c[i];
    double2 x = ci;
    for (int k = 0; k < iterations; ++k) x = x - (x * x - ci) / (x + x);
    r[i] = x;
}

__global__ void sqrt_tol_kernel(int n, const double2* c, double2* r, int* used, double tol, int max_iterations) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const double2 ci = c[i];
    if (ci.x == 0 && ci.y == 0) {  // x_0 = 0 would give 0/0
        r[i] = ci;
        used[i] = 0;
        return;
    }
    double2 x = ci;
    int steps = -1;
    for (int k = 1; k <= max_iterations; ++k) {
        const double2 dx = (x * x - ci) / (x + x);
        x = x - dx;
        if (complex_abs(dx) <= tol * complex_abs(x)) {  // false for NaN: runs on, reports -1
            steps = k;
            break;
        }
    }
    r[i] = x;
    used[i] = steps;
}

// p(z) and p'(z) together by Horner's rule: p <- p z + a_j, p' <- p' z + p.
__device__ void horner(const double2* a, int degree, double2 z, double2* p, double2* dp) {
    double2 v = a[degree], d = make_double2(0, 0);
    for (int j = degree - 1; j >= 0; --j) {
        d = d * z + v;
        v = v * z + a[j];
    }
    *p = v;
    *dp = d;
}

__global__ void poly_newton_kernel(const double2* a, int degree, const double2* starts, double2* roots, int* used,
                                   int trials, double tol, int max_iterations) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= trials) return;
    double2 z = starts[t];
    int steps = -1;
    for (int k = 1; k <= max_iterations; ++k) {
        double2 p, dp;
        horner(a, degree, z, &p, &dp);
        const double2 dz = p / dp;
        z = z - dz;
        if (complex_abs(dz) <= tol * complex_abs(z)) {
            steps = k;
            break;
        }
    }
    roots[t] = z;
    used[t] = steps;
}

}  // namespace

void launch_sqrt_fixed(const double2* c, double2* r, int n, int iterations, int block_size) {
    const int blocks = blocks_for(n, block_size);
    if (n == 0) return;
    sqrt_fixed_kernel<<<blocks, block_size>>>(n, c, r, iterations);
    HPCLAB_CUDA_CHECK_LAUNCH();  // 2048 threads per block: cudaErrorInvalidConfiguration here
}

void launch_sqrt_tol(const double2* c, double2* r, int* iterations_used, int n, double tol, int max_iterations,
                     int block_size) {
    const int blocks = blocks_for(n, block_size);
    if (n == 0) return;
    sqrt_tol_kernel<<<blocks, block_size>>>(n, c, r, iterations_used, tol, max_iterations);
    HPCLAB_CUDA_CHECK_LAUNCH();
}

void launch_poly_newton(const double2* a, int degree, const double2* starts, double2* roots, int* iterations_used,
                        int trials, double tol, int max_iterations, int block_size) {
    const int blocks = blocks_for(trials, block_size);
    if (trials == 0) return;
    poly_newton_kernel<<<blocks, block_size>>>(a, degree, starts, roots, iterations_used, trials, tol, max_iterations);
    HPCLAB_CUDA_CHECK_LAUNCH();
}

namespace {
// Add z to `found` unless a root within `radius` is there already.
bool add_if_new(std::vector<double2>& found, double2 z, double radius) {
    for (const double2& f : found)
        if (complex_abs(z - f) <= radius) return false;
    found.push_back(z);
    return true;
}
}  // namespace

int count_distinct_roots(const std::vector<double2>& roots, const std::vector<int>& iterations_used, double radius) {
    std::vector<double2> found;
    for (std::size_t t = 0; t < roots.size() && t < iterations_used.size(); ++t)
        if (iterations_used[t] >= 0) add_if_new(found, roots[t], radius);
    return static_cast<int>(found.size());
}

int trials_to_find(const std::vector<double2>& roots, const std::vector<int>& iterations_used, int wanted,
                   double radius) {
    if (wanted <= 0) return 0;
    std::vector<double2> found;
    for (std::size_t t = 0; t < roots.size() && t < iterations_used.size(); ++t) {
        if (iterations_used[t] >= 0 && add_if_new(found, roots[t], radius) && static_cast<int>(found.size()) == wanted)
            return static_cast<int>(t) + 1;
    }
    return -1;
}

}  // namespace lab04
