// Lab 03 visible tests: partition postconditions, O(n log n) comparison counts
// (sorted, reversed, all-equal inputs), every sorter against std::sort, the
// two-halves contract (each half sorted once, on two different threads).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "hpclab/check.hpp"
#include "hpclab/data.hpp"
#include "parallel_quicksort.hpp"
#include "quicksort.hpp"

namespace {

struct NamedInput {
    const char* name;
    std::vector<double> (*make)(std::size_t n);
};

const NamedInput kInputs[] = {
    {"random", [](std::size_t n) { return hpclab::uniform_doubles(n, 17); }},
    {"sorted", [](std::size_t n) { return hpclab::ascending_doubles(n); }},
    {"reversed", [](std::size_t n) { return hpclab::descending_doubles(n); }},
    {"few_distinct", [](std::size_t n) { return hpclab::few_distinct_doubles(n, 4, 5); }},
    {"all_equal", [](std::size_t n) { return std::vector<double>(n, 2.5); }},
};

std::string input_name(const ::testing::TestParamInfo<NamedInput>& info) { return info.param.name; }

// ---- Stage 1: partitions --------------------------------------------------------

class Partition : public ::testing::TestWithParam<NamedInput> {};

TEST_P(Partition, LecturePostcondition) {
    for (std::size_t n : {2, 3, 10, 1000}) {
        const auto input = GetParam().make(n);
        auto v = input;
        const std::size_t k = lab03::partition_lecture(v.data(), 0, n - 1, std::less<double>());
        ASSERT_LT(k, n);
        EXPECT_EQ(v[k], input[0]) << "the pivot is v[lower] and ends at the returned index";
        for (std::size_t i = 0; i < k; ++i) ASSERT_LE(v[i], v[k]) << "n = " << n << ", i = " << i << " < pivot " << k;
        for (std::size_t i = k + 1; i < n; ++i) ASSERT_GT(v[i], v[k]) << "n = " << n << ", i = " << i << " > pivot " << k;
        auto a = v, b = input;
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        EXPECT_EQ(a, b) << "not a permutation of the input";
    }
}

TEST_P(Partition, LectureOnASubrange) {
    // Only v[lower..upper] may change.
    const auto input = GetParam().make(200);
    auto v = input;
    const std::size_t k = lab03::partition_lecture(v.data(), 50, 149, std::less<double>());
    ASSERT_GE(k, 50u);
    ASSERT_LE(k, 149u);
    for (std::size_t i = 0; i < 50; ++i) ASSERT_EQ(v[i], input[i]);
    for (std::size_t i = 150; i < 200; ++i) ASSERT_EQ(v[i], input[i]);
    for (std::size_t i = 50; i < k; ++i) ASSERT_LE(v[i], v[k]);
    for (std::size_t i = k + 1; i <= 149; ++i) ASSERT_GT(v[i], v[k]);
}

TEST_P(Partition, ThreeWayPostcondition) {
    for (std::size_t n : {0, 1, 2, 7, 5000}) {
        const auto input = GetParam().make(n);
        // Pivots that occur and one that does not.
        std::vector<double> pivots = {0.5, -1.0, 1e9};
        if (n > 0) pivots.push_back(input[n / 2]);
        for (double pivot : pivots) {
            auto v = input;
            const auto [lt, gt] = lab03::partition3(v.data(), n, pivot, std::less<double>());
            ASSERT_LE(lt, gt);
            ASSERT_LE(gt, n);
            for (std::size_t i = 0; i < lt; ++i) ASSERT_LT(v[i], pivot);
            for (std::size_t i = lt; i < gt; ++i) ASSERT_EQ(v[i], pivot);
            for (std::size_t i = gt; i < n; ++i) ASSERT_GT(v[i], pivot);
            auto a = v, b = input;
            std::sort(a.begin(), a.end());
            std::sort(b.begin(), b.end());
            ASSERT_EQ(a, b) << "not a permutation of the input";
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Inputs, Partition, ::testing::ValuesIn(kInputs), input_name);

TEST(MedianOfThree, EveryOrder) {
    std::vector<double> v = {1, 2, 3};
    do {
        EXPECT_EQ(lab03::median_of_three(v[0], v[1], v[2], std::less<double>()), 2.0)
            << v[0] << " " << v[1] << " " << v[2];
    } while (std::next_permutation(v.begin(), v.end()));
    v = {1, 1, 2};
    do {
        EXPECT_EQ(lab03::median_of_three(v[0], v[1], v[2], std::less<double>()), 1.0);
    } while (std::next_permutation(v.begin(), v.end()));
    EXPECT_EQ(lab03::median_of_three(3.0, 1.0, 2.0, std::greater<double>()), 2.0);
}

// ---- Stage 1: serial quicksort -----------------------------------------------------

// Thrown when a sort has used up its comparison budget: a quadratic sort
// fails fast instead of running for minutes.
struct TooManyComparisons : std::runtime_error {
    TooManyComparisons() : std::runtime_error("more than 4 n log2 n comparisons") {}
};

struct CountingLess {
    long long* count;
    long long budget;
    bool operator()(double a, double b) const {
        if (++*count > budget) throw TooManyComparisons();
        return a < b;
    }
};

class SerialQuicksort : public ::testing::TestWithParam<NamedInput> {};

TEST_P(SerialQuicksort, SortsLikeStdSort) {
    for (std::size_t n : {0, 1, 2, 3, 17, 1000, 100000}) {
        const auto input = GetParam().make(n);
        auto got = input, want = input;
        lab03::quicksort(got.data(), got.size(), std::less<double>());
        std::sort(want.begin(), want.end());
        const auto cmp = hpclab::compare_arrays(got, want, hpclab::Tolerance::exact());
        ASSERT_TRUE(cmp.ok()) << "n = " << n << ": " << cmp.describe("sorted");
    }
}

TEST_P(SerialQuicksort, NLogNComparisons) {
    const std::size_t n = 1 << 16;
    auto v = GetParam().make(n);
    long long count = 0;
    const long long budget = 4LL * n * 16;  // 4 n log2 n
    try {
        lab03::quicksort(v.data(), n, CountingLess{&count, budget});
    } catch (const TooManyComparisons&) {
        FAIL() << "quicksort needed more than 4 n log2 n = " << budget << " comparisons on " << GetParam().name
               << " input of " << n << " (a quadratic case: pivot choice or equal keys?)";
    }
    EXPECT_TRUE(std::is_sorted(v.begin(), v.end()));
}

INSTANTIATE_TEST_SUITE_P(Inputs, SerialQuicksort, ::testing::ValuesIn(kInputs), input_name);

TEST(SerialQuicksortOrder, Descending) {
    auto v = hpclab::uniform_doubles(5000, 3);
    lab03::quicksort(v.data(), v.size(), std::greater<double>());
    EXPECT_TRUE(std::is_sorted(v.begin(), v.end(), std::greater<double>()));
}

// ---- Stages 2-5: every parallel sorter -------------------------------------------

struct NamedSorter {
    const char* name;
    std::function<void(double*, std::size_t, int)> sort;  // data, n, threads
};

const NamedSorter kSorters[] = {
    {"sections", [](double* v, std::size_t n, int) { lab03::sort_two_halves_sections(v, n); }},
    {"threads", [](double* v, std::size_t n, int) { lab03::sort_two_halves_threads(v, n); }},
    {"omp_tasks", [](double* v, std::size_t n, int t) { lab03::quicksort_omp_tasks(v, n, t, 1000); }},
    {"tbb_parallel_sort", [](double* v, std::size_t n, int t) { lab03::tbb_parallel_sort(v, n, t); }},
    {"tbb_quicksort", [](double* v, std::size_t n, int t) { lab03::quicksort_tbb(v, n, t, 1000); }},
};

void expect_sorts_like_std(const NamedSorter& s, const std::vector<double>& input, int threads) {
    auto got = input, want = input;
    s.sort(got.data(), got.size(), threads);
    std::sort(want.begin(), want.end());
    const auto report = hpclab::check_sorted_permutation(got, input);
    ASSERT_TRUE(report.ok()) << s.name << " on " << threads << " threads, n = " << input.size() << ": " << report.message;
    const auto cmp = hpclab::compare_arrays(got, want, hpclab::Tolerance::exact());
    EXPECT_TRUE(cmp.ok()) << s.name << ": " << cmp.describe("sorted");
}

class EverySorter : public ::testing::TestWithParam<NamedSorter> {};

TEST_P(EverySorter, Random) {
    for (int t : {1, 2, 4}) expect_sorts_like_std(GetParam(), hpclab::uniform_doubles(200000, 40 + t), t);
}

TEST_P(EverySorter, SortedAndReversed) {
    expect_sorts_like_std(GetParam(), hpclab::ascending_doubles(100000), 2);
    expect_sorts_like_std(GetParam(), hpclab::descending_doubles(100000), 2);
}

TEST_P(EverySorter, ManyDuplicates) {
    expect_sorts_like_std(GetParam(), hpclab::few_distinct_doubles(100000, 3, 8), 2);
    expect_sorts_like_std(GetParam(), std::vector<double>(50000, -1.0), 2);
}

TEST_P(EverySorter, TinySizes) {
    for (std::size_t n : {0, 1, 2, 3}) expect_sorts_like_std(GetParam(), hpclab::uniform_doubles(n, 90 + n), 2);
    expect_sorts_like_std(GetParam(), {2.0, 1.0}, 2);
    expect_sorts_like_std(GetParam(), {1.0, 1.0}, 2);
    GetParam().sort(nullptr, 0, 2);  // an empty range may come with a null pointer
}

INSTANTIATE_TEST_SUITE_P(Lab03, EverySorter, ::testing::ValuesIn(kSorters),
                         [](const ::testing::TestParamInfo<NamedSorter>& info) { return std::string(info.param.name); });

TEST(ThreadCount, RejectsFewerThanOne) {
    std::vector<double> v = {3, 1, 2};
    EXPECT_THROW(lab03::quicksort_omp_tasks(v.data(), v.size(), 0), std::invalid_argument);
    EXPECT_THROW(lab03::tbb_parallel_sort(v.data(), v.size(), 0), std::invalid_argument);
    EXPECT_THROW(lab03::quicksort_tbb(v.data(), v.size(), -2), std::invalid_argument);
}

// ---- Stages 2 and 4: the two-halves contract --------------------------------------

// A half sorter that records each call (range and thread) and sleeps a little
// first, so that the other thread has time to pick up the other half.
struct Recorder {
    struct Call {
        const double* begin;
        std::size_t n;
        std::thread::id thread;
    };
    std::mutex mutex;
    std::vector<Call> calls;
    int sleep_ms = 0;

    lab03::RangeSorter sorter() {
        return [this](double* v, std::size_t n) {
            {
                std::lock_guard<std::mutex> lock(mutex);
                calls.push_back({v, n, std::this_thread::get_id()});
            }
            if (sleep_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
            std::sort(v, v + n);
        };
    }
};

using TwoHalves = std::size_t (*)(double*, std::size_t, const lab03::RangeSorter&);

struct NamedTwoHalves {
    const char* name;
    TwoHalves run;
};

const NamedTwoHalves kTwoHalves[] = {
    {"sections", lab03::sort_two_halves_sections},
    {"threads", lab03::sort_two_halves_threads},
};

class TwoHalvesContract : public ::testing::TestWithParam<NamedTwoHalves> {};

TEST_P(TwoHalvesContract, EachHalfSortedExactlyOnce) {
    for (const auto& input : {hpclab::uniform_doubles(100000, 12), hpclab::ascending_doubles(1000),
                              std::vector<double>(1000, 7.0), std::vector<double>{2.0, 1.0}}) {
        auto v = input;
        Recorder rec;
        const std::size_t k = GetParam().run(v.data(), v.size(), rec.sorter());
        ASSERT_LT(k, v.size());
        ASSERT_EQ(rec.calls.size(), 2u) << GetParam().name << ": sort_half must be called once per half, got "
                                        << rec.calls.size() << " calls (two threads sorting both halves?)";
        std::set<std::pair<const double*, std::size_t>> ranges;
        for (const auto& c : rec.calls) ranges.insert({c.begin, c.n});
        const std::set<std::pair<const double*, std::size_t>> want = {{v.data(), k},
                                                                      {v.data() + k + 1, v.size() - k - 1}};
        EXPECT_EQ(ranges, want) << "the halves must be [0, k) and [k+1, n) for the returned k = " << k;
        const auto report = hpclab::check_sorted_permutation(v, input);
        EXPECT_TRUE(report.ok()) << report.message;
    }
}

TEST_P(TwoHalvesContract, SortedInputSplitsInTheMiddle) {
    // With v[0] as the pivot, sorted input leaves one half empty: no parallelism.
    auto v = hpclab::ascending_doubles(10001);
    Recorder rec;
    const std::size_t k = GetParam().run(v.data(), v.size(), rec.sorter());
    EXPECT_EQ(k, 5000u) << "the median of three of sorted input is its middle element";
}

TEST_P(TwoHalvesContract, HalvesRunOnDifferentThreads) {
    if (std::thread::hardware_concurrency() < 2) {
        GTEST_SKIP() << "this machine has one core (std::thread::hardware_concurrency() < 2): "
                        "two threads cannot be shown to run at once";
    }
    // Up to three tries: a busy machine may start the second thread late.
    bool different = false;
    for (int attempt = 0; attempt < 3 && !different; ++attempt) {
        auto v = hpclab::uniform_doubles(20000, 70 + attempt);
        Recorder rec;
        rec.sleep_ms = 50;
        GetParam().run(v.data(), v.size(), rec.sorter());
        ASSERT_EQ(rec.calls.size(), 2u);
        different = rec.calls[0].thread != rec.calls[1].thread;
    }
    EXPECT_TRUE(different) << GetParam().name << ": both halves were sorted by the same thread";
}

INSTANTIATE_TEST_SUITE_P(Lab03, TwoHalvesContract, ::testing::ValuesIn(kTwoHalves),
                         [](const ::testing::TestParamInfo<NamedTwoHalves>& info) { return std::string(info.param.name); });

TEST(TwoHalvesThreads, ExceptionReachesTheCaller) {
    auto v = hpclab::uniform_doubles(1000, 5);
    int calls = 0;
    std::mutex m;
    const lab03::RangeSorter failing = [&](double* p, std::size_t n) {
        std::lock_guard<std::mutex> lock(m);
        if (++calls == 1) throw std::runtime_error("half sorter failed");
        std::sort(p, p + n);
    };
    EXPECT_THROW(lab03::sort_two_halves_threads(v.data(), v.size(), failing), std::runtime_error);
}

}  // namespace
