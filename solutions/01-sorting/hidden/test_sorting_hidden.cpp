// Lab 01 hidden tests (compiled only by the grader): other seeds and sizes,
// odd lengths around powers of two, extreme values, and stability at scale.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <utility>

#include "hpclab/check.hpp"
#include "hpclab/data.hpp"
#include "hpclab/judged.hpp"
#include "merge_sort.hpp"
#include "sorting.hpp"

namespace {

// Each sorter gets its own input: the given values plus one fresh random
// value, rotated by a random amount, so no sorter can pass by reusing the
// result of another on the same values.
void check_all(const std::vector<double>& input) {
    hpclab::Rng rng(input.size());
    for (auto sort :
         {lab01::qsort_doubles, lab01::std_sort_functor, lab01::std_sort_lambda, lab01::merge_sort_doubles}) {
        std::vector<double> got = input;
        got.push_back(rng.uniform(-1.0, 1.0));
        std::rotate(got.begin(), got.begin() + rng.uniform_int(0, static_cast<std::int64_t>(got.size()) - 1),
                    got.end());
        const std::vector<double> mine = got;
        std::vector<double> want = got;
        std::sort(want.begin(), want.end());
        HPCLAB_CALL([&] { sort(got.data(), got.size()); }, got);
        // A sorted permutation of its own input, bit for bit, and std::sort's result.
        const auto report = hpclab::check_sorted_permutation(got, mine);
        ASSERT_TRUE(report.ok()) << report.message;
        const auto cmp = hpclab::compare_arrays(got, want, hpclab::Tolerance::exact());
        ASSERT_TRUE(cmp.ok()) << cmp.describe("sorted");
    }
}

TEST(Hidden, OddLengthsAroundPowersOfTwo) {
    for (std::size_t n : {3, 7, 31, 33, 63, 65, 1023, 1025, 4097}) check_all(hpclab::uniform_doubles(n, 1000 + n));
}

TEST(Hidden, ExtremeValues) {
    const double big = std::numeric_limits<double>::max(), tiny = std::numeric_limits<double>::denorm_min();
    check_all({big, -big, tiny, -tiny, 0.0, 1.0, -1.0, big, tiny});
}

TEST(Hidden, OtherSeedsAndSawtooth) {
    for (std::uint64_t seed : {77u, 1234u, 99999u}) check_all(hpclab::uniform_doubles(20000, seed, -1.0, 1.0));
    std::vector<double> saw(30000);
    for (std::size_t i = 0; i < saw.size(); ++i) saw[i] = static_cast<double>(i % 97);
    check_all(saw);
}

TEST(Hidden, MergeSortStableWithTwoKeysAtScale) {
    std::vector<std::pair<int, int>> v;
    hpclab::Rng rng(2024);
    for (int i = 0; i < 200000; ++i) v.emplace_back(static_cast<int>(rng.uniform_int(0, 99)), i);
    auto want = v;
    auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
    std::stable_sort(want.begin(), want.end(), by_key);
    HPCLAB_CALL([&] { lab01::merge_sort(v.begin(), v.end(), by_key); }, v);
    EXPECT_TRUE(v == want);
}

TEST(Hidden, AnalysisIsLinearInTime) {
    const auto c = HPCLAB_VALUE(lab01::seconds_per_n_log2_n({256, 256}, {1.0, 2.0}));
    ASSERT_EQ(c.size(), 2u);
    EXPECT_DOUBLE_EQ(c[1], 2 * c[0]);
    EXPECT_DOUBLE_EQ(c[0], 1.0 / 2048.0);
}

}  // namespace
