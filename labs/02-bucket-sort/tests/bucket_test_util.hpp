// Lab 02 test helper (visible and hidden tests): the block of an input that
// one rank holds before the fan-out sort.
#pragma once

#include <cstddef>
#include <vector>

#include "bucket_sort.hpp"

namespace lab02_test {

// Block `rank` of `input` split over `p` ranks as lab02::block_first and
// lab02::block_size lay it out (the harness's distribution, trusted here).
inline std::vector<double> block_of(const std::vector<double>& input, int rank, int p) {
    const std::size_t first = lab02::block_first(input.size(), rank, p);
    return std::vector<double>(
        input.begin() + static_cast<std::ptrdiff_t>(first),
        input.begin() + static_cast<std::ptrdiff_t>(first + lab02::block_size(input.size(), rank, p)));
}

}  // namespace lab02_test
