// Lab 10 test helpers (visible and hidden tests): the shapes of a judged
// call over a whole loop, and over error-free transformations.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "hpclab/judged.hpp"

namespace lab10_test {

// A result and its error term (two_sum, quick_two_sum, two_prod).
using Pair = std::array<double, 2>;

// f(0), ..., f(n-1) as a vector: the body of one judged call over a whole loop.
template <class F>
auto each(std::size_t n, F f) {
    std::vector<decltype(f(std::size_t(0)))> out;
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) out.push_back(f(i));
    return out;
}

// One judged call: eft(a[i], b[i], err) for every i, each result with its
// error term (a and b of one size).
template <class Eft>
std::vector<Pair> judged_eft(const std::vector<double>& a, const std::vector<double>& b, Eft eft) {
    return HPCLAB_CALL([&] {
        return each(a.size(), [&](std::size_t i) {
            double err;
            const double r = eft(a[i], b[i], err);
            return Pair{r, err};
        });
    });
}

}  // namespace lab10_test
