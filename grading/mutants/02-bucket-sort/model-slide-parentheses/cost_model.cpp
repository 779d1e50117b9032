// Lab 02, stage 4: the lecture's cost model of parallel bucket sort.
#include <cmath>
#include <stdexcept>
#include <string>

#include "bucket_sort.hpp"

namespace lab02 {

namespace {
void require_sizes(double n, double p) {
    if (!(p >= 1) || !(n >= p))
        throw std::invalid_argument("cost model: need p >= 1 and n >= p (got n = " + std::to_string(n) +
                                    ", p = " + std::to_string(p) + ")");
}
}  // namespace

double speedup_over_bucket_sort(double n, double p) {
    require_sizes(n, p);
    if (p == 1) return 1.0;  // L = log2(n)/0: the formula's limit is 1
    const double L = std::log2(n / p) / std::log2(p);
    return p * (1 + L) / (p + L);
}

double speedup_over_quicksort(double n, double p) {
    require_sizes(n, p);
    // The slide writes 1/p(log2(n) + (1 - 1/p) log2(p)) in the last line;
    // the 1/p applies to log2(n) only, as its own example (40/13) shows.
    return std::log2(n) / ((std::log2(n) + (1 - 1 / p) * std::log2(p)) / p);
}

double root_compute_seconds(double n, double p, const MachineConstants& c) {
    require_sizes(n, p);
    return (n * std::log2(p) + (n / p) * std::log2(n / p)) * c.t_compare;
}

double root_communicate_seconds(double n, double p, const MachineConstants& c) {
    require_sizes(n, p);
    return 2 * p * (c.t_startup + (n / p) * c.t_data);
}

double fan_out_compute_seconds(double n, double p, const MachineConstants& c) {
    require_sizes(n, p);
    return (n / p) * (std::log2(p) + std::log2(n / p)) * c.t_compare;
}

double fan_out_communicate_seconds(double n, double p, const MachineConstants& c) {
    require_sizes(n, p);
    return (p - 1) * (c.t_startup + n / (p * p) * c.t_data);
}

}  // namespace lab02
