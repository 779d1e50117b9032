// Lab 06, stage 0 and the host halves of stages 1-5 and exercise 3: the
// compensated reference sum, the launch geometry, and pi on the host.
#include <cmath>
#include <cstddef>
#include <stdexcept>

#include "hpclab/not_implemented.hpp"
#include "reduction.hpp"

namespace lab06 {

double compensated_sum(const float* x, std::size_t n) {
    // TODO(student): stage 0, a Kahan-Babuska (Neumaier) sum in double. Keep
    // a running sum s and a compensation c; after t = s + v, add the bits the
    // addition lost, taken from the larger of |s| and |v|, to c. Return s + c.
    (void)x;
    (void)n;
    throw hpclab::NotImplemented("compensated_sum(float)");
}

double compensated_sum(const double* x, std::size_t n) {
    // TODO(student): the same for doubles (a template used by both is fine).
    (void)x;
    (void)n;
    throw hpclab::NotImplemented("compensated_sum(double)");
}

std::size_t blocks_for(Method m, std::size_t n, int block, std::size_t max_resident_blocks) {
    // TODO(student): the number of blocks per pass (see reduction.hpp). Round
    // up: n is rarely a multiple of the block, and the tail must be summed.
    (void)m;
    (void)n;
    (void)block;
    (void)max_resident_blocks;
    throw hpclab::NotImplemented("blocks_for");
}

double trapezoid_pi_host(std::size_t intervals) {
    // TODO(student): exercise 3 on the host: 4/n * (f(0)/2 + f(1/n) + ... +
    // f((n-1)/n) + f(1)/2) with f(x) = sqrt(1 - x^2), x_i = i/n, summed with
    // compensation; std::invalid_argument for 0 intervals.
    (void)intervals;
    throw hpclab::NotImplemented("trapezoid_pi_host");
}

}  // namespace lab06
