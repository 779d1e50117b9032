// Lab 03 hidden tests (compiled only by the grader): other seeds and sizes,
// organ-pipe and sawtooth inputs, signed zeros, extreme thread counts and
// cutoffs, and the lecture partition on every two-element case.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <stdexcept>
#include <vector>

#include "hpclab/check.hpp"
#include "hpclab/data.hpp"
#include "parallel_quicksort.hpp"
#include "quicksort.hpp"

namespace {

std::vector<double> organ_pipe(std::size_t n) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<double>(i < n / 2 ? i : n - i);
    return v;
}

std::vector<double> sawtooth(std::size_t n, std::size_t period) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<double>(i % period);
    return v;
}

void check_all(const std::vector<double>& input) {
    std::vector<double> want = input;
    std::sort(want.begin(), want.end());
    auto check = [&](const char* name, const std::function<void(double*, std::size_t)>& sort) {
        std::vector<double> got = input;
        sort(got.data(), got.size());
        const auto cmp = hpclab::compare_arrays(got, want, hpclab::Tolerance::exact());
        EXPECT_TRUE(cmp.ok()) << name << ", n = " << input.size() << ": " << cmp.describe("sorted");
    };
    check("quicksort", [](double* v, std::size_t n) { lab03::quicksort(v, n, std::less<double>()); });
    check("sections", [](double* v, std::size_t n) { lab03::sort_two_halves_sections(v, n); });
    check("threads", [](double* v, std::size_t n) { lab03::sort_two_halves_threads(v, n); });
    check("omp_tasks", [](double* v, std::size_t n) { lab03::quicksort_omp_tasks(v, n, 3, 500); });
    check("tbb_parallel_sort", [](double* v, std::size_t n) { lab03::tbb_parallel_sort(v, n, 3); });
    check("tbb_quicksort", [](double* v, std::size_t n) { lab03::quicksort_tbb(v, n, 3, 500); });
}

TEST(Hidden, OtherSeedsAndOddSizes) {
    for (std::size_t n : {4, 5, 15, 16, 17, 31, 33, 999, 65537}) check_all(hpclab::uniform_doubles(n, 300 + n, -5.0, 5.0));
}

TEST(Hidden, OrganPipeAndSawtooth) {
    check_all(organ_pipe(100001));
    check_all(sawtooth(100000, 97));
    check_all(sawtooth(100000, 2));
}

TEST(Hidden, SignedZerosAndExtremes) {
    const double big = std::numeric_limits<double>::max(), tiny = std::numeric_limits<double>::denorm_min();
    std::vector<double> v;
    for (int i = 0; i < 3000; ++i) v.push_back(i % 5 == 0 ? big : i % 5 == 1 ? -tiny : i % 5 == 2 ? 0.0 : i % 5 == 3 ? -big : 1.0);
    std::vector<double> got = v;
    lab03::quicksort_omp_tasks(got.data(), got.size(), 2, 100);
    EXPECT_TRUE(hpclab::check_sorted_permutation(got, v).ok());
    std::vector<double> zeros = {0.0, -0.0, 0.0, -0.0, -1.0, 1.0};
    got = zeros;
    lab03::quicksort(got.data(), got.size(), std::less<double>());
    EXPECT_TRUE(hpclab::check_sorted_permutation(got, zeros).ok());
}

TEST(Hidden, ComparisonsOnOrganPipeAndSawtooth) {
    for (const auto& input : {organ_pipe(1 << 16), sawtooth(1 << 16, 1000), hpclab::few_distinct_doubles(1 << 16, 2, 3)}) {
        auto v = input;
        long long count = 0;
        lab03::quicksort(v.data(), v.size(), [&](double a, double b) {
            if (++count > 4LL * 65536 * 16) throw std::runtime_error("more than 4 n log2 n comparisons");
            return a < b;
        });
        EXPECT_TRUE(std::is_sorted(v.begin(), v.end()));
    }
}

TEST(Hidden, ManyThreadsAndTinyCutoff) {
    const auto input = hpclab::uniform_doubles(50000, 4040);
    std::vector<double> want = input;
    std::sort(want.begin(), want.end());
    for (int t : {1, 7, 16}) {
        auto a = input, b = input, c = input;
        lab03::quicksort_omp_tasks(a.data(), a.size(), t, 1);
        lab03::quicksort_tbb(b.data(), b.size(), t, 0);
        lab03::tbb_parallel_sort(c.data(), c.size(), t);
        EXPECT_EQ(a, want) << "omp tasks, " << t << " threads";
        EXPECT_EQ(b, want) << "tbb quicksort, " << t << " threads";
        EXPECT_EQ(c, want) << "tbb parallel_sort, " << t << " threads";
    }
}

TEST(Hidden, LecturePartitionTwoElements) {
    for (auto pair : {std::vector<double>{1, 2}, std::vector<double>{2, 1}, std::vector<double>{3, 3}}) {
        auto v = pair;
        const std::size_t k = lab03::partition_lecture(v.data(), 0, 1, std::less<double>());
        EXPECT_EQ(v[k], pair[0]);
        EXPECT_LE(v[0], v[1]);
        EXPECT_EQ(k, pair[0] <= pair[1] ? (pair[0] < pair[1] ? 0u : 1u) : 1u);
    }
}

}  // namespace
