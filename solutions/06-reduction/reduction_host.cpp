// Lab 06, stage 0 and the host halves of stages 1-5 and exercise 3: the
// compensated reference sum, the launch geometry, and pi on the host.
#include <cmath>
#include <cstddef>
#include <stdexcept>

#include "hpclab/not_implemented.hpp"
#include "reduction.hpp"

namespace lab06 {

namespace {

// Neumaier's variant of Kahan summation: the compensation also catches the
// case |x| > |s|, where plain Kahan loses the running sum (1 + 1e100 - 1e100).
template <class T>
double neumaier(const T* x, std::size_t n) {
    double s = 0, c = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double v = static_cast<double>(x[i]);
        const double t = s + v;
        // The low-order bits lost by the addition, from the larger operand.
        c += std::fabs(s) >= std::fabs(v) ? (s - t) + v : (v - t) + s;
        s = t;
    }
    return s + c;
}

std::size_t ceil_div(std::size_t a, std::size_t b) { return a / b + (a % b != 0); }

}  // namespace

double compensated_sum(const float* x, std::size_t n) { return neumaier(x, n); }
double compensated_sum(const double* x, std::size_t n) { return neumaier(x, n); }

std::size_t blocks_for(Method m, std::size_t n, int block, std::size_t max_resident_blocks) {
    if (block < 1) throw std::invalid_argument("blocks_for: block size must be >= 1");
    if (max_resident_blocks == 0) throw std::invalid_argument("blocks_for: max_resident_blocks must be >= 1");
    const std::size_t b = static_cast<std::size_t>(block);
    switch (m) {
        case Method::interleaved:
        case Method::sequential: return ceil_div(n, b);
        case Method::first_add:
        case Method::warp_shuffle:
            // Each thread loads two elements, so a block covers 2 * block;
            // rounding up keeps the tail when n is not a multiple of that.
            return ceil_div(n, 2 * b);
        case Method::grid_stride: {
            const std::size_t wanted = ceil_div(n, b);
            return wanted < max_resident_blocks ? wanted : max_resident_blocks;
        }
    }
    throw std::invalid_argument("blocks_for: unknown method");
}

double trapezoid_pi_host(std::size_t intervals) {
    if (intervals == 0) throw std::invalid_argument("trapezoid_pi_host: need at least one interval");
    const double n = static_cast<double>(intervals);
    // f(x) = sqrt(1 - x^2) written as sqrt((1 - x)(1 + x)): no cancellation near x = 1.
    auto f = [](double x) { return std::sqrt((1.0 - x) * (1.0 + x)); };
    double s = 0.5 * (f(0.0) + f(1.0)), c = 0;
    for (std::size_t i = 1; i < intervals; ++i) {
        // x from i, not x += h: repeated addition drifts by i rounding errors.
        const double v = f(static_cast<double>(i) / n);
        const double t = s + v;
        c += std::fabs(s) >= std::fabs(v) ? (s - t) + v : (v - t) + s;
        s = t;
    }
    return 4.0 * (s + c) / n;
}

}  // namespace lab06
