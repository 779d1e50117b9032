// Lab 03 visible tests: partition postconditions, O(n log n) comparison counts
// (sorted, reversed, all-equal inputs) and a million keys of each within the
// grader's time limit, the parallel partition's postcondition, every sorter
// against std::sort, the two-halves contract (each half sorted once, on two
// different threads).
//
// Every call into the student's code goes through HPCLAB_CALL / HPCLAB_VALUE
// (hpclab/judged.hpp): the grader records what it returned and judges the
// assertions in a build without student code. Where a test used to watch the
// student's code from inside (a comparator counting its calls, a half sorter
// noting its ranges and threads), that observation is now either visible in
// the output values or worth no points; see each test.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "hpclab/check.hpp"
#include "hpclab/data.hpp"
#include "hpclab/judged.hpp"
#include "parallel_partition.hpp"
#include "parallel_quicksort.hpp"
#include "quicksort.hpp"
#include "quicksort_budget.hpp"
#include "tbb_threads.hpp"

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
        const std::size_t k =
            HPCLAB_CALL([&] { return lab03::partition_lecture(v.data(), 0, n - 1, std::less<double>()); }, v);
        ASSERT_LT(k, n);
        EXPECT_EQ(v[k], input[0]) << "the pivot is v[lower] and ends at the returned index";
        for (std::size_t i = 0; i < k; ++i) ASSERT_LE(v[i], v[k]) << "n = " << n << ", i = " << i << " < pivot " << k;
        for (std::size_t i = k + 1; i < n; ++i)
            ASSERT_GT(v[i], v[k]) << "n = " << n << ", i = " << i << " > pivot " << k;
        const std::string difference = hpclab::multiset_difference(v, input);
        EXPECT_TRUE(difference.empty()) << "n = " << n << ": not a permutation of the input: " << difference;
    }
}

TEST_P(Partition, LectureOnASubrange) {
    // Only v[lower..upper] may change, and only by moving its elements.
    const auto input = GetParam().make(200);
    auto v = input;
    const std::size_t k =
        HPCLAB_CALL([&] { return lab03::partition_lecture(v.data(), 50, 149, std::less<double>()); }, v);
    ASSERT_GE(k, 50u);
    ASSERT_LE(k, 149u);
    for (std::size_t i = 0; i < 50; ++i) ASSERT_EQ(v[i], input[i]);
    for (std::size_t i = 150; i < 200; ++i) ASSERT_EQ(v[i], input[i]);
    for (std::size_t i = 50; i < k; ++i) ASSERT_LE(v[i], v[k]);
    for (std::size_t i = k + 1; i <= 149; ++i) ASSERT_GT(v[i], v[k]);
    const std::string difference = hpclab::multiset_difference(v.data() + 50, 100, input.data() + 50, 100);
    EXPECT_TRUE(difference.empty()) << "v[50..149] is not a permutation of the input's: " << difference;
}

TEST_P(Partition, ThreeWayPostcondition) {
    for (std::size_t n : {0, 1, 2, 7, 5000}) {
        const auto input = GetParam().make(n);
        // Pivots that occur and one that does not.
        std::vector<double> pivots = {0.5, -1.0, 1e9};
        if (n > 0) pivots.push_back(input[n / 2]);
        for (double pivot : pivots) {
            auto v = input;
            const auto [lt, gt] =
                HPCLAB_CALL([&] { return lab03::partition3(v.data(), n, pivot, std::less<double>()); }, v);
            ASSERT_LE(lt, gt);
            ASSERT_LE(gt, n);
            for (std::size_t i = 0; i < lt; ++i) ASSERT_LT(v[i], pivot);
            for (std::size_t i = lt; i < gt; ++i) ASSERT_EQ(v[i], pivot);
            for (std::size_t i = gt; i < n; ++i) ASSERT_GT(v[i], pivot);
            const std::string difference = hpclab::multiset_difference(v, input);
            ASSERT_TRUE(difference.empty()) << "not a permutation of the input: " << difference;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Inputs, Partition, ::testing::ValuesIn(kInputs), input_name);

TEST(MedianOfThree, EveryOrder) {
    std::vector<double> v = {1, 2, 3};
    do {
        EXPECT_EQ(HPCLAB_VALUE(lab03::median_of_three(v[0], v[1], v[2], std::less<double>())), 2.0)
            << v[0] << " " << v[1] << " " << v[2];
    } while (std::next_permutation(v.begin(), v.end()));
    v = {1, 1, 2};
    do {
        EXPECT_EQ(HPCLAB_VALUE(lab03::median_of_three(v[0], v[1], v[2], std::less<double>())), 1.0);
    } while (std::next_permutation(v.begin(), v.end()));
    EXPECT_EQ(HPCLAB_VALUE(lab03::median_of_three(3.0, 1.0, 2.0, std::greater<double>())), 2.0);
}

// ---- Stage 1: serial quicksort -----------------------------------------------------

using lab03_test::TooManyComparisons;

// The comparison-count tests sort tags whose order only the comparator knows.
// The input is 0, 1, ..., n-1 (as doubles) shuffled; each tag has a hidden
// key, and position i of the input holds the tag whose key is the named
// input's element i, so the keys in input order are exactly the named input
// (sorted, reversed, few distinct, ...). A sort can learn the order of the
// tags only by asking the comparator, and after the budget of comparisons it
// refuses: it throws, and throws again on every later call. So an honest
// sort that needs more than the budget cannot finish. But the count and the
// keys live in the submission's process, which can reset the one and read
// the other (or remake both from the seed): a budget kept there proves
// nothing to the grader, so NLogNComparisons is worth no points. What the
// grader can see is the clock: AMillionKeysWithinTheTimeLimit. (The tags
// being doubles, quicksort is instantiated as before, on double; only its
// order comes from the comparator.)
class HiddenKeys {
public:
    HiddenKeys(const std::vector<double>& keys, std::uint64_t seed) : key_of_tag_(keys.size()), tags_(keys.size()) {
        std::iota(tags_.begin(), tags_.end(), 0.0);
        hpclab::Rng rng(seed);
        for (std::size_t i = tags_.size(); i > 1; --i) {
            std::swap(tags_[i - 1],
                      tags_[static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(i) - 1))]);
        }
        for (std::size_t i = 0; i < keys.size(); ++i) key_of_tag_[static_cast<std::size_t>(tags_[i])] = keys[i];
    }
    // The input to sort: position i holds the tag whose key is keys[i].
    const std::vector<double>& tags() const { return tags_; }
    double key(double tag) const {
        if (!(tag >= 0 && tag < static_cast<double>(key_of_tag_.size())) || tag != std::floor(tag)) {
            throw std::logic_error("the sort compared a value that is not in its input");
        }
        return key_of_tag_[static_cast<std::size_t>(tag)];
    }
    // "" when `got` holds every tag once, in nondecreasing order of the keys.
    std::string check(const std::vector<double>& got) const {
        if (got.size() != tags_.size())
            return "the output has " + std::to_string(got.size()) + " elements, not " + std::to_string(tags_.size());
        std::vector<char> seen(tags_.size(), 0);
        for (std::size_t i = 0; i < got.size(); ++i) {
            const double t = got[i];
            if (!(t >= 0 && t < static_cast<double>(seen.size())) || t != std::floor(t) ||
                seen[static_cast<std::size_t>(t)]++) {
                return "the output is not a permutation of the input (index " + std::to_string(i) + ")";
            }
            if (i > 0 && key(t) < key(got[i - 1])) return "the output is not sorted (index " + std::to_string(i) + ")";
        }
        return "";
    }

private:
    std::vector<double> key_of_tag_;
    std::vector<double> tags_;
};

struct BudgetedLess {
    const HiddenKeys* keys;
    long long* count;
    long long budget;
    bool operator()(double a, double b) const {
        if (++*count > budget) throw TooManyComparisons();
        return keys->key(a) < keys->key(b);
    }
};

// lab03::quicksort of the tags under the budget, as one judged call: whether
// the comparator refused, and the output.
std::pair<bool, std::vector<double>> quicksort_within_budget(const HiddenKeys& keys, long long budget) {
    std::vector<double> v = keys.tags();
    bool refused = false;
    HPCLAB_CALL(
        [&] {
            long long count = 0;
            try {
                lab03::quicksort(v.data(), v.size(), BudgetedLess{&keys, &count, budget});
            } catch (const TooManyComparisons&) {
                refused = true;
            }
        },
        v, refused);
    return {refused, v};
}

class SerialQuicksort : public ::testing::TestWithParam<NamedInput> {};

TEST_P(SerialQuicksort, SortsLikeStdSort) {
    for (std::size_t n : {0, 1, 2, 3, 17, 1000, 100000}) {
        const auto input = GetParam().make(n);
        auto got = input, want = input;
        HPCLAB_CALL([&] { lab03::quicksort(got.data(), got.size(), std::less<double>()); }, got);
        std::sort(want.begin(), want.end());
        const auto report = hpclab::check_sorted_permutation(got, input);
        ASSERT_TRUE(report.ok()) << "n = " << n << ": " << report.message;
        const auto cmp = hpclab::compare_arrays(got, want, hpclab::Tolerance::exact());
        ASSERT_TRUE(cmp.ok()) << "n = " << n << ": " << cmp.describe("sorted");
    }
}

// Worth no points in the grader (lab.json): the count is kept in the
// submission's process (see HiddenKeys). Kept as a check for students: it
// names the quadratic case in a second.
TEST_P(SerialQuicksort, NLogNComparisons) {
    const std::size_t n = 1 << 16;
    const HiddenKeys keys(GetParam().make(n), 60);
    const long long budget = 4LL * n * 16;  // 4 n log2 n
    const auto [refused, v] = quicksort_within_budget(keys, budget);
    if (refused) {
        FAIL() << "quicksort needed more than 4 n log2 n = " << budget << " comparisons on " << GetParam().name
               << " input of " << n << " (a quadratic case: pivot choice or equal keys?)";
    }
    const std::string problem = keys.check(v);
    EXPECT_TRUE(problem.empty()) << problem;
}

// The scored form of the same question: 2^20 keys of each named input,
// sorted within the grader's time limit for one test (20 s by default),
// which the grader keeps outside the submission's process; the output is a
// recorded value the judge checks. n log2 n is 2e7 comparisons (a fraction
// of a second); a quadratic case needs n^2 / 8 or more, 1.4e11, minutes even
// at a comparison a nanosecond. The comparator refuses after 16 n log2 n
// comparisons only so that honest quadratic code fails in a second instead
// of running into the limit: code that resets that count gains nothing.
TEST_P(SerialQuicksort, AMillionKeysWithinTheTimeLimit) {
    const std::size_t n = std::size_t(1) << 20;
    const auto input = GetParam().make(n);
    const long long budget = 16LL * static_cast<long long>(n) * 20;
    auto v = input;
    if (lab03_test::judged_quicksort_refused(v, budget)) {
        FAIL() << "quicksort needed more than 16 n log2 n = " << budget << " comparisons on " << GetParam().name
               << " input of " << n << " (a quadratic case: pivot choice or equal keys?)";
    }
    auto want = input;
    std::sort(want.begin(), want.end());
    const auto cmp = hpclab::compare_arrays(v, want, hpclab::Tolerance::exact());
    EXPECT_TRUE(cmp.ok()) << GetParam().name << ": " << cmp.describe("sorted");
}

INSTANTIATE_TEST_SUITE_P(Inputs, SerialQuicksort, ::testing::ValuesIn(kInputs), input_name);

// Descending, and still the input's elements: order alone would give the
// point to an output of one value repeated.
TEST(SerialQuicksortOrder, Descending) {
    const auto input = hpclab::uniform_doubles(5000, 3);
    auto v = input;
    HPCLAB_CALL([&] { lab03::quicksort(v.data(), v.size(), std::greater<double>()); }, v);
    const auto report = hpclab::check_sorted_permutation(v, input, std::greater<double>());
    EXPECT_TRUE(report.ok()) << report.message;
}

// ---- Stage 6: the parallel partition ------------------------------------------------

// "" when `got` is `input` partitioned by is_left at k: is_left before k, not
// from k on, and a permutation of the input, bit for bit.
template <class IsLeft>
std::string check_partitioned(const std::vector<double>& got, const std::vector<double>& input, std::size_t k,
                              IsLeft is_left) {
    if (k > got.size()) return "k = " + std::to_string(k) + " > n = " + std::to_string(got.size());
    const auto want_k = static_cast<std::size_t>(std::count_if(input.begin(), input.end(), is_left));
    if (k != want_k) return "k = " + std::to_string(k) + ", but the input has " + std::to_string(want_k) + " left keys";
    for (std::size_t i = 0; i < got.size(); ++i) {
        if (static_cast<bool>(is_left(got[i])) != (i < k))
            return "v[" + std::to_string(i) + "] = " + std::to_string(got[i]) +
                   " is on the wrong side of k = " + std::to_string(k);
    }
    const std::string difference = hpclab::multiset_difference(got, input);
    return difference.empty() ? "" : "not a permutation of the input: " + difference;
}

// parallel_partition of `input` by x < pivot on `threads` threads, checked.
void expect_partition(const std::vector<double>& input, double pivot, int threads) {
    auto v = input;
    const auto is_left = [pivot](double x) { return x < pivot; };
    const std::size_t k =
        HPCLAB_CALL([&] { return lab03::parallel_partition(v.data(), v.size(), is_left, threads); }, v);
    const std::string problem = check_partitioned(v, input, k, is_left);
    EXPECT_TRUE(problem.empty()) << "n = " << input.size() << ", pivot " << pivot << ", " << threads
                                 << " threads: " << problem;
}

class ParallelPartition : public ::testing::TestWithParam<NamedInput> {};

// Sizes that no thread count divides, pivots inside and outside the keys.
TEST_P(ParallelPartition, Postcondition) {
    for (std::size_t n : {1, 2, 3, 7, 1000, 20011}) {
        const auto input = GetParam().make(n);
        for (int threads : {1, 2, 3, 4, 7}) {
            for (double pivot : {input[n / 2], input[0], -1e9, 1e9}) expect_partition(input, pivot, threads);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Inputs, ParallelPartition, ::testing::ValuesIn(kInputs), input_name);

// Sorted input split exactly at, just before and just after each block edge
// (blocks of 334, 333, 333 on 3 threads; 250 each on 4), where an off-by-one
// in a block's bounds or in the misplaced runs shows.
TEST(ParallelPartitionEdges, SplitAtEveryBlockEdge) {
    const auto input = hpclab::ascending_doubles(1000);
    for (int threads : {3, 4}) {
        for (std::size_t edge : {250, 333, 334, 500, 667, 750}) {
            for (std::size_t at : {edge - 1, edge, edge + 1}) {
                // Reversed, every block's left keys sit at its end, so most
                // of them are misplaced and cross a block edge.
                auto reversed = input;
                std::reverse(reversed.begin(), reversed.end());
                expect_partition(reversed, input[at], threads);
                expect_partition(input, input[at], threads);
            }
        }
    }
}

// More threads than elements (empty blocks), and an empty range with a null
// pointer.
TEST(ParallelPartitionEdges, MoreThreadsThanElements) {
    for (std::size_t n : {1, 2, 5, 9}) {
        const auto input = hpclab::uniform_doubles(n, 500 + n);
        for (int threads : {8, 16}) expect_partition(input, input[n / 2], threads);
    }
    const std::size_t k = HPCLAB_VALUE(lab03::parallel_partition(
        static_cast<double*>(nullptr), 0, [](double x) { return x < 0; }, 4));
    EXPECT_EQ(k, 0u);
}

// ---- Stages 2-6: every parallel sorter -------------------------------------------

struct NamedSorter {
    const char* name;
    std::function<void(double*, std::size_t, int)> sort;  // data, n, threads
};

const NamedSorter kSorters[] = {
    {"sections", [](double* v, std::size_t n, int) { lab03::sort_two_halves_sections(v, n); }},
    {"threads", [](double* v, std::size_t n, int) { lab03::sort_two_halves_threads(v, n); }},
    {"omp_tasks", [](double* v, std::size_t n, int t) { lab03::quicksort_omp_tasks(v, n, t, 1000); }},
    {"pp_tasks", [](double* v, std::size_t n, int t) { lab03::quicksort_parallel_partition(v, n, t, 1000); }},
    {"tbb_parallel_sort", [](double* v, std::size_t n, int t) { lab03::tbb_parallel_sort(v, n, t); }},
    {"tbb_quicksort", [](double* v, std::size_t n, int t) { lab03::quicksort_tbb(v, n, t, 1000); }},
};

void expect_sorts_like_std(const NamedSorter& s, const std::vector<double>& input, int threads) {
    auto got = input, want = input;
    HPCLAB_CALL([&] { s.sort(got.data(), got.size(), threads); }, got);
    std::sort(want.begin(), want.end());
    const auto report = hpclab::check_sorted_permutation(got, input);
    ASSERT_TRUE(report.ok()) << s.name << " on " << threads << " threads, n = " << input.size() << ": "
                             << report.message;
    const auto cmp = hpclab::compare_arrays(got, want, hpclab::Tolerance::exact());
    EXPECT_TRUE(cmp.ok()) << s.name << ": " << cmp.describe("sorted");
}

class EverySorter : public ::testing::TestWithParam<NamedSorter> {};

// The TBB sorters get at most one thread per core (tbb_threads.hpp says why).
int threads_for(const NamedSorter& s, int wanted) {
    return std::string(s.name).rfind("tbb", 0) == 0 ? lab03::tbb_threads(wanted) : wanted;
}

TEST_P(EverySorter, Random) {
    for (int t : {1, 2, 4})
        expect_sorts_like_std(GetParam(), hpclab::uniform_doubles(200000, 40 + t), threads_for(GetParam(), t));
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
    HPCLAB_CALL([&] { GetParam().sort(nullptr, 0, 2); });  // an empty range may come with a null pointer
}

INSTANTIATE_TEST_SUITE_P(Lab03, EverySorter, ::testing::ValuesIn(kSorters),
                         [](const ::testing::TestParamInfo<NamedSorter>& info) {
                             return std::string(info.param.name);
                         });

TEST(ThreadCount, RejectsFewerThanOne) {
    std::vector<double> v = {3, 1, 2};
    EXPECT_THROW(HPCLAB_CALL([&] { lab03::quicksort_omp_tasks(v.data(), v.size(), 0); }), std::invalid_argument);
    EXPECT_THROW(HPCLAB_CALL([&] { lab03::tbb_parallel_sort(v.data(), v.size(), 0); }), std::invalid_argument);
    EXPECT_THROW(HPCLAB_CALL([&] { lab03::quicksort_tbb(v.data(), v.size(), -2); }), std::invalid_argument);
    EXPECT_THROW(HPCLAB_CALL([&] { lab03::quicksort_parallel_partition(v.data(), v.size(), 0); }),
                 std::invalid_argument);
    EXPECT_THROW(HPCLAB_CALL([&] {
                     lab03::parallel_partition(
                         v.data(), v.size(), [](double x) { return x < 2; }, 0);
                 }),
                 std::invalid_argument);
}

// ---- Stages 2 and 4: the two-halves contract --------------------------------------

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

// The half sorter of EachHalfSortedExactlyOnce leaves its traces in the
// array, so that the recorded output alone shows which ranges were sorted and
// how often (it used to note its calls in the test's memory, inside the
// submission's process, where no value the judge sees could confirm them).
// After sorting its range it stamps every element, x -> -2^256 x: exact,
// undone exactly, and the number of stamps can be read from the sign and the
// exponent (the inputs are >= 0 and below 2^20; a 0 shows an odd number of
// stamps as -0). It also marks the pivot next to its range, so that a call on
// an empty half shows as well: a range that starts at v is the first half and
// its pivot follows it (x 2^32); any other range is the second half and its
// pivot precedes it (x 2^64). The contract held when every element but v[k]
// carries one stamp, v[k] none, v[k] is its input value times 2^96 (one call
// of each kind; the pivots of these inputs are not 0), and the array with the
// stamps undone is sorted.
constexpr double kStamp = -0x1p256, kFirstHalfMark = 0x1p32, kSecondHalfMark = 0x1p64, kBothMarks = 0x1p96;

lab03::RangeSorter stamping_sorter(double* base, std::size_t n, std::mutex& mutex) {
    return [base, n, &mutex](double* p, std::size_t len) {
        // A range outside the array is left alone (its missing stamps show).
        const auto b = reinterpret_cast<std::uintptr_t>(base), q = reinterpret_cast<std::uintptr_t>(p);
        if (q < b || (q - b) % sizeof(double) != 0) return;
        const std::size_t at = (q - b) / sizeof(double);
        if (at > n || len > n - at) return;
        // One call at a time: two calls on the same range (the lecture's
        // race) then add up their stamps instead of tripping each other up.
        std::lock_guard<std::mutex> lock(mutex);
        std::sort(p, p + len);
        for (std::size_t i = 0; i < len; ++i) p[i] *= kStamp;
        const std::size_t pivot = at == 0 ? len : at - 1;
        if (pivot < n) base[pivot] *= at == 0 ? kFirstHalfMark : kSecondHalfMark;
    };
}

// How many stamps an output element carries, and its value before them;
// -1 stamps when sign and exponent do not fit a stamped input value.
std::pair<int, double> unstamp(double y) {
    if (y == 0) return {std::signbit(y) ? 1 : 0, 0.0};  // a stamped 0 is -0
    if (!std::isfinite(y)) return {-1, y};
    const int stamps = static_cast<int>(std::floor((std::ilogb(y) + 128) / 256.0));
    if (stamps < 0 || (stamps % 2 == 1) != std::signbit(y)) return {-1, y};
    return {stamps, std::ldexp(std::fabs(y), -256 * stamps)};
}

// "" when `out` shows the contract for the returned k (see stamping_sorter).
std::string check_stamps(const std::vector<double>& out, const std::vector<double>& input, std::size_t k) {
    std::vector<double> plain(out.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
        const auto [stamps, x] = unstamp(out[i]);
        const int want = i == k ? 0 : 1;
        if (stamps != want) {
            return "v[" + std::to_string(i) + "] " + (i == k ? "(the pivot) " : "") + "was sorted by sort_half " +
                   (stamps < 0 ? "an unknown number of" : std::to_string(stamps)) + " time(s), not " +
                   std::to_string(want) +
                   ": sort_half must be called once per half, on [0, k) and [k+1, n) for the "
                   "returned k = " +
                   std::to_string(k) + (stamps > 1 ? " (two threads sorting both halves?)" : "");
        }
        plain[i] = i == k ? x / kBothMarks : x;
    }
    const auto report = hpclab::check_sorted_permutation(plain, input);
    if (!report.ok()) {
        return "with the stamps undone: " + report.message +
               " (if only the pivot is off: sort_half was not called "
               "exactly once for each half, an empty half included)";
    }
    return "";
}

TEST_P(TwoHalvesContract, EachHalfSortedExactlyOnce) {
    for (const auto& input : {hpclab::uniform_doubles(100000, 12), hpclab::ascending_doubles(1000),
                              std::vector<double>(1000, 7.0), std::vector<double>{2.0, 1.0}}) {
        auto v = input;
        const std::size_t k = HPCLAB_CALL(
            [&] {
                std::mutex mutex;
                return GetParam().run(v.data(), v.size(), stamping_sorter(v.data(), v.size(), mutex));
            },
            v);
        ASSERT_LT(k, v.size());
        const std::string problem = check_stamps(v, input, k);
        EXPECT_TRUE(problem.empty()) << GetParam().name << ", n = " << input.size() << ": " << problem;
    }
}

TEST_P(TwoHalvesContract, SortedInputSplitsInTheMiddle) {
    // With v[0] as the pivot, sorted input leaves one half empty: no parallelism.
    auto v = hpclab::ascending_doubles(10001);
    const lab03::RangeSorter sort_half = [](double* p, std::size_t len) { std::sort(p, p + len); };
    const std::size_t k = HPCLAB_VALUE(GetParam().run(v.data(), v.size(), sort_half));
    EXPECT_EQ(k, 5000u) << "the median of three of sorted input is its middle element";
}

// A half sorter that records each call's thread and sleeps a little first,
// so that the other thread has time to pick up the other half.
struct Recorder {
    std::mutex mutex;
    std::vector<std::thread::id> threads;
    int sleep_ms = 0;

    lab03::RangeSorter sorter() {
        return [this](double* v, std::size_t n) {
            {
                std::lock_guard<std::mutex> lock(mutex);
                threads.push_back(std::this_thread::get_id());
            }
            if (sleep_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
            std::sort(v, v + n);
        };
    }
};

// Worth no points in the grader (lab.json): which thread sorted which half is
// seen only by the half sorter, inside the submission's process, which could
// report any threads it likes; no output value can show it. Kept as a check
// for students (the driver shows the two halves' speed).
TEST_P(TwoHalvesContract, HalvesRunOnDifferentThreads) {
    // Read in the recording run, so that the judge takes the same branch.
    if (HPCLAB_VALUE(std::thread::hardware_concurrency()) < 2) {
        GTEST_SKIP() << "this machine has one core (std::thread::hardware_concurrency() < 2): "
                        "two threads cannot be shown to run at once";
    }
    // Up to three tries: a busy machine may start the second thread late.
    bool different = false;
    for (int attempt = 0; attempt < 3 && !different; ++attempt) {
        auto v = hpclab::uniform_doubles(20000, 70 + attempt);
        // (calls of the half sorter, whether the first two came from two threads)
        const auto [calls, two_threads] = HPCLAB_CALL([&] {
            Recorder rec;
            rec.sleep_ms = 50;
            GetParam().run(v.data(), v.size(), rec.sorter());
            return std::make_pair(rec.threads.size(), rec.threads.size() >= 2 && rec.threads[0] != rec.threads[1]);
        });
        ASSERT_EQ(calls, 2u);
        different = two_threads;
    }
    EXPECT_TRUE(different) << GetParam().name << ": both halves were sorted by the same thread";
}

INSTANTIATE_TEST_SUITE_P(Lab03, TwoHalvesContract, ::testing::ValuesIn(kTwoHalves),
                         [](const ::testing::TestParamInfo<NamedTwoHalves>& info) {
                             return std::string(info.param.name);
                         });

// The half sorter's exception is the call's outcome: recorded, and rethrown
// to the judge as a std::runtime_error.
TEST(TwoHalvesThreads, ExceptionReachesTheCaller) {
    auto v = hpclab::uniform_doubles(1000, 5);
    int calls = 0;
    std::mutex m;
    const lab03::RangeSorter failing = [&](double* p, std::size_t n) {
        std::lock_guard<std::mutex> lock(m);
        if (++calls == 1) throw std::runtime_error("half sorter failed");
        std::sort(p, p + n);
    };
    EXPECT_THROW(HPCLAB_CALL([&] { lab03::sort_two_halves_threads(v.data(), v.size(), failing); }), std::runtime_error);
}

}  // namespace
