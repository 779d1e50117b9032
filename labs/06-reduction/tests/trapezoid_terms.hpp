// Lab 06 test helper (visible and hidden tests): the terms of the trapezoid
// rule for pi, which each test sums with its own trusted reference sum.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace lab06_test {

// pi = 4 * integral of sqrt(1 - x^2) over [0, 1]: the integrand at
// x = i / intervals for i = 0..intervals, the two ends halved, so that
// pi ~ 4 * (sum of the terms) / intervals.
inline std::vector<double> trapezoid_pi_terms(std::size_t intervals) {
    const double n = static_cast<double>(intervals);
    std::vector<double> f(intervals + 1);
    for (std::size_t i = 0; i <= intervals; ++i) {
        const double x = static_cast<double>(i) / n;
        f[i] = std::sqrt((1.0 - x) * (1.0 + x));
    }
    f.front() *= 0.5;
    f.back() *= 0.5;
    return f;
}

}  // namespace lab06_test
