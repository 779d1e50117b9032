// Lab 01, stages 1, 2 and 4: qsort, std::sort, and the n log n analysis.
#include "sorting.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace lab01 {

int compare_doubles(const void* a, const void* b) {
    const double x = *static_cast<const double*>(a);
    const double y = *static_cast<const double*>(b);
    // (x > y) - (x < y): -1, 0 or +1 without the truncation of (int)(x - y).
    return (x > y) - (x < y);
}

void qsort_doubles(double* data, std::size_t n) {
    if (n > 1) std::qsort(data, n, sizeof(double), compare_doubles);
}

bool AscendingDoubles::operator()(double a, double b) const { return a < b; }

void std_sort_functor(double* data, std::size_t n) { std::sort(data, data + n, AscendingDoubles()); }

void std_sort_lambda(double* data, std::size_t n) {
    std::sort(data, data + n, [](double a, double b) { return a < b; });
}

std::vector<double> seconds_per_n_log2_n(const std::vector<std::size_t>& n, const std::vector<double>& seconds) {
    if (n.size() != seconds.size())
        throw std::invalid_argument("seconds_per_n_log2_n: " + std::to_string(n.size()) + " sizes but " +
                                    std::to_string(seconds.size()) + " times");
    std::vector<double> c(n.size());
    for (std::size_t i = 0; i < n.size(); ++i) {
        if (n[i] < 2) throw std::invalid_argument("seconds_per_n_log2_n: n must be >= 2");
        const double nd = static_cast<double>(n[i]);
        c[i] = seconds[i] / (nd * std::log2(nd));
    }
    return c;
}

}  // namespace lab01
