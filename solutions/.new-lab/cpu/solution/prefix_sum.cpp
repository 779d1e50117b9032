// Lab LABNUM, stages 1 and 2: the reference solution.
#include "prefix_sum.hpp"

namespace LABNS {

void inclusive_scan(const std::int64_t* in, std::int64_t* out, std::size_t n) {
    // Read in[i] before writing out[i]: correct when they are one array.
    std::int64_t sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
        sum += in[i];
        out[i] = sum;
    }
}

std::int64_t total(const std::int64_t* in, std::size_t n) {
    std::int64_t sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += in[i];
    return sum;
}

}  // namespace LABNS
