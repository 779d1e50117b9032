// Helpers shared by the lab 11 tests: random starting grids that every rank
// can build its part of, and bitwise grid comparison with a readable report.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hpclab/check.hpp"
#include "hpclab/data.hpp"
#include "sor.hpp"

namespace lab11_test {

// Problem `kind` with the interior filled by seeded uniform values in [-1, 1)
// (boundary exact), restricted to rows [first, first + rows). The values
// depend on the global position only, so every rank's strip agrees.
inline lab11::Strip random_start(lab11::ProblemKind kind, int n, int first = 1, int rows = -1,
                                 std::uint64_t seed = 11) {
    if (rows < 0) rows = n;
    lab11::Strip s = lab11::make_problem(kind, n, first, rows);
    const std::vector<double> values = hpclab::uniform_doubles(static_cast<std::size_t>(n) * n, seed, -1.0, 1.0);
    for (int li = 0; li < rows + 2; ++li) {
        const int i = s.global_row(li);
        if (i < 1 || i > n) continue;
        for (int j = 1; j <= n; ++j) s.at(li, j) = values[static_cast<std::size_t>(i - 1) * n + (j - 1)];
    }
    return s;
}

// The n x n interior of a whole-grid strip, row-major (what
// gather_block_interior returns).
inline std::vector<double> interior_of(const lab11::Strip& s) {
    std::vector<double> out;
    for (int i = 1; i <= s.n; ++i)
        for (int j = 1; j <= s.n; ++j) out.push_back(s.at(i, j));
    return out;
}

// Bitwise comparison of two grids (same length); names the first differences.
inline ::testing::AssertionResult same_bits(const std::vector<double>& got, const std::vector<double>& want,
                                            int width) {
    const auto rep = hpclab::compare_arrays(got, want, hpclab::Tolerance::exact());
    if (rep.ok()) return ::testing::AssertionSuccess();
    auto out = ::testing::AssertionFailure() << rep.describe("u");
    if (!rep.first.empty() && width > 0)
        out << " (first at row " << rep.first[0].index / width << ", column " << rep.first[0].index % width << ")";
    return out;
}

}  // namespace lab11_test
