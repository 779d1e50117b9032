// Lab 04, stages 3-5: Newton kernels for square roots and polynomial roots, their
// launchers (with the launch checked), and counting the distinct roots found.
// Every TODO(student) below throws "not implemented" until you replace it.
#include <stdexcept>
#include <vector>

#include "complex_double2.cuh"
#include "hpclab/cuda.hpp"
#include "hpclab/not_implemented.hpp"
#include "newton.hpp"

namespace lab04 {

// Write your __global__ kernels here (in an anonymous namespace), one thread
// per number or per trial, with the double2 operators of complex_double2.cuh.

void launch_sqrt_fixed(const double2* c, double2* r, int n, int iterations, int block_size) {
    // TODO(student): stage 3a, the lecture's squareRoot kernel with `iterations`
    // steps and a bounds check; launch ceil(n / block_size) blocks; then
    // HPCLAB_CUDA_CHECK_LAUNCH() so a refused block size becomes an error.
    (void)c;
    (void)r;
    (void)n;
    (void)iterations;
    (void)block_size;
    throw hpclab::NotImplemented("launch_sqrt_fixed");
}

void launch_sqrt_tol(const double2* c, double2* r, int* iterations_used, int n, double tol, int max_iterations,
                     int block_size) {
    // TODO(student): stage 3b, the stopping test |dx| <= tol |x| with at most
    // max_iterations steps; record the steps taken or -1 (see newton.hpp).
    (void)c;
    (void)r;
    (void)iterations_used;
    (void)n;
    (void)tol;
    (void)max_iterations;
    (void)block_size;
    throw hpclab::NotImplemented("launch_sqrt_tol");
}

void launch_poly_newton(const double2* a, int degree, const double2* starts, double2* roots, int* iterations_used,
                        int trials, double tol, int max_iterations, int block_size) {
    // TODO(student): stage 4, Newton on p(z) from each start, p and p' by Horner.
    (void)a;
    (void)degree;
    (void)starts;
    (void)roots;
    (void)iterations_used;
    (void)trials;
    (void)tol;
    (void)max_iterations;
    (void)block_size;
    throw hpclab::NotImplemented("launch_poly_newton");
}

int count_distinct_roots(const std::vector<double2>& roots, const std::vector<int>& iterations_used, double radius) {
    // TODO(student): stage 4, distinct converged roots (|z1 - z2| <= radius: the same root).
    (void)roots;
    (void)iterations_used;
    (void)radius;
    throw hpclab::NotImplemented("count_distinct_roots");
}

int trials_to_find(const std::vector<double2>& roots, const std::vector<int>& iterations_used, int wanted,
                   double radius) {
    // TODO(student): stage 4, trials taken in order until `wanted` distinct roots are found; -1 if never.
    (void)roots;
    (void)iterations_used;
    (void)wanted;
    (void)radius;
    throw hpclab::NotImplemented("trials_to_find");
}

}  // namespace lab04
