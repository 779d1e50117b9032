// Lab 02 visible tests, run under mpirun with 1, 2, 3 and 4 ranks: buckets at
// their edges, both distributed sorts against std::sort (sorted, a permutation,
// the same for every p), bucket sizes, tiny and degenerate inputs, errors that
// reach every rank, and the cost model on the lecture's example.
//
// Every call into the student's code goes through HPCLAB_CALL / HPCLAB_VALUE
// (hpclab/judged.hpp): the grader records what it returned on each rank and
// judges the assertions in a build without student code. The tests' own MPI
// collectives (gather_on_root, sum_over_ranks) run in both.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>

#include "bucket_sort.hpp"
#include "bucket_test_util.hpp"
#include "hpclab/check.hpp"
#include "hpclab/data.hpp"
#include "hpclab/judged.hpp"
#include "hpclab/mpi.hpp"
#include "hpclab/mpi_testing.hpp"

// split_into_buckets returns a struct of vectors: recorded field by field.
template <>
struct hpclab::judged::Codec<lab02::Buckets> {
    static void encode(Writer& w, const lab02::Buckets& b) { put(w, b.values, b.counts, b.displs); }
    static lab02::Buckets decode(Reader& r) {
        lab02::Buckets b;
        get(r, b.values, b.counts, b.displs);
        return b;
    }
};

namespace {

using hpclab::mpi::on_every_rank;

int world_rank() { return hpclab::mpi::rank(); }
int world_size() { return hpclab::mpi::size(); }

// Collect every rank's vector on rank 0, in rank order (test plumbing, not
// part of the lab). Other ranks get an empty vector.
std::vector<double> gather_on_root(const std::vector<double>& mine) {
    const int p = world_size();
    int count = static_cast<int>(mine.size());
    std::vector<int> counts(static_cast<std::size_t>(p)), displs(static_cast<std::size_t>(p), 0);
    MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int r = 1; r < p; ++r) displs[r] = displs[r - 1] + counts[r - 1];
    std::vector<double> all;
    if (world_rank() == 0) all.resize(static_cast<std::size_t>(displs[p - 1] + counts[p - 1]));
    MPI_Gatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
    return all;
}

// The bucket of x in [0, 1] among p, as BucketOf's tests pin it down: x p
// rounded down, 1.0 in the last bucket; -1 (no bucket) for anything else, NaN
// included. The sorts and split_into_buckets are checked against this rule,
// not against the submission's own bucket_of on the very values it has just
// sorted.
int expected_bucket(double x, int p) {
    if (!(x >= 0.0 && x <= 1.0)) return -1;
    return std::min(static_cast<int>(x * p), p - 1);
}

// bucket_of for each of xs, as one judged call.
std::vector<int> buckets_of(const std::vector<double>& xs, int p) {
    return HPCLAB_CALL([&] {
        std::vector<int> b;
        b.reserve(xs.size());
        for (double x : xs) b.push_back(lab02::bucket_of(x, p));
        return b;
    });
}

long long sum_over_ranks(long long x) {
    long long s = 0;
    MPI_Allreduce(&x, &s, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return s;
}

// Rank 0's result must be a sorted permutation of the input, bit for bit (so
// any lost, duplicated or changed value shows, NaN and -0.0 included), and
// std::sort's result; every rank checks the same input.
void expect_root_result(const std::vector<double>& got, const std::vector<double>& input) {
    if (world_rank() != 0) {
        EXPECT_TRUE(got.empty()) << "only rank 0 returns the sorted numbers";
        return;
    }
    const auto report = hpclab::check_sorted_permutation(got, input);
    ASSERT_TRUE(report.ok()) << report.message;
    std::vector<double> want = input;
    std::sort(want.begin(), want.end());
    const auto cmp = hpclab::compare_arrays(got, want, hpclab::Tolerance::exact());
    EXPECT_TRUE(cmp.ok()) << cmp.describe("sorted");
}

// Run the root version on `input` (every rank knows it; only rank 0 passes it)
// and check the result. (Which rank sorted what is in the SortReport, the
// submission's own account: Report.EachRankCountsWhatItSorted, no points.)
void check_root_distributes(const std::vector<double>& input) {
    const std::vector<double> none;
    const auto got = on_every_rank(MPI_COMM_WORLD, [&] {
        return HPCLAB_VALUE(lab02::sort_root_distributes(world_rank() == 0 ? input : none, MPI_COMM_WORLD));
    });
    expect_root_result(got, input);
}

// Run the fan-out version with rank r holding block r of `input`.
void check_fan_out(const std::vector<double>& input) {
    const int p = world_size(), rank = world_rank();
    const std::vector<double> local = lab02_test::block_of(input, rank, p);
    const auto mine =
        on_every_rank(MPI_COMM_WORLD, [&] { return HPCLAB_VALUE(lab02::sort_fan_out(local, MPI_COMM_WORLD)); });
    // Sorted here (NaN included: hpclab/check.hpp); that the buckets hold
    // the input's values is checked on the gathered result below.
    EXPECT_EQ(hpclab::first_unsorted_pair(mine.data(), mine.size()), mine.size())
        << "rank " << rank << "'s bucket is not sorted";
    // No ASSERT before the collectives below: a rank that returned early
    // would leave the others waiting in them.
    std::size_t strangers = 0;
    double first_stranger = 0;
    for (double x : mine) {
        if (expected_bucket(x, p) != rank && strangers++ == 0) first_stranger = x;
    }
    EXPECT_EQ(strangers, 0u) << "rank " << rank << " holds " << strangers << " values outside its bucket, e.g. "
                             << first_stranger;
    EXPECT_EQ(sum_over_ranks(static_cast<long long>(mine.size())), static_cast<long long>(input.size()))
        << "bucket sizes do not add up to n";
    expect_root_result(gather_on_root(mine), input);
}

// ---- Stage 1 ----------------------------------------------------------------

TEST(BucketOf, InteriorAndEdges) {
    EXPECT_EQ(HPCLAB_VALUE(lab02::bucket_of(0.0, 4)), 0);
    EXPECT_EQ(HPCLAB_VALUE(lab02::bucket_of(-0.0, 4)), 0);
    EXPECT_EQ(HPCLAB_VALUE(lab02::bucket_of(0.25, 4)), 1);  // i/p belongs to bucket i
    EXPECT_EQ(HPCLAB_VALUE(lab02::bucket_of(std::nextafter(0.25, 0.0), 4)), 0);
    EXPECT_EQ(HPCLAB_VALUE(lab02::bucket_of(0.5, 4)), 2);
    EXPECT_EQ(HPCLAB_VALUE(lab02::bucket_of(0.99, 4)), 3);
    EXPECT_EQ(HPCLAB_VALUE(lab02::bucket_of(0.7, 1)), 0);
    EXPECT_EQ(HPCLAB_VALUE(lab02::bucket_of(0.5, 3)), 1);
}

TEST(BucketOf, OneAndAHairBelowGoToTheLastBucket) {
    const double below_one = std::nextafter(1.0, 0.0);
    // p = 3 and 7: x / (1.0 / p) rounds up to p for x = 1 - 2^-53.
    for (int p : {1, 2, 3, 4, 7, 1000, 1 << 20}) {
        EXPECT_EQ(HPCLAB_VALUE(lab02::bucket_of(1.0, p)), p - 1) << "x = 1.0, p = " << p;
        EXPECT_EQ(HPCLAB_VALUE(lab02::bucket_of(below_one, p)), p - 1) << "x = 1 - 2^-53, p = " << p;
    }
}

TEST(BucketOf, MonotoneAndInRange) {
    auto x = hpclab::uniform_doubles(20000, 8);
    std::sort(x.begin(), x.end());
    for (int p : {2, 3, 5, 16}) {
        const std::vector<int> buckets = buckets_of(x, p);
        ASSERT_EQ(buckets.size(), x.size());
        int last = 0;
        for (std::size_t i = 0; i < x.size(); ++i) {
            const double v = x[i];
            const int b = buckets[i];
            ASSERT_GE(b, last) << "bucket_of is not monotone at x = " << v << ", p = " << p;
            ASSERT_LT(b, p);
            last = b;
        }
    }
}

TEST(BucketOf, RejectsValuesOutsideTheUnitInterval) {
    for (double bad : {-1e-300, -0.5, std::nextafter(1.0, 2.0), 2.0, std::numeric_limits<double>::quiet_NaN(),
                       std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()}) {
        EXPECT_THROW(HPCLAB_VALUE(lab02::bucket_of(bad, 4)), std::invalid_argument) << "x = " << bad;
    }
    EXPECT_THROW(HPCLAB_VALUE(lab02::bucket_of(0.5, 0)), std::invalid_argument);
    EXPECT_THROW(HPCLAB_VALUE(lab02::bucket_of(0.5, -3)), std::invalid_argument);
}

TEST(SplitIntoBuckets, CountsDisplacementsAndGrouping) {
    const auto x = hpclab::uniform_doubles(5000, 21);
    const int p = 7;
    const auto b = HPCLAB_VALUE(lab02::split_into_buckets(x.data(), x.size(), p));
    ASSERT_EQ(b.counts.size(), 7u);
    ASSERT_EQ(b.displs.size(), 7u);
    ASSERT_EQ(b.values.size(), x.size());
    EXPECT_EQ(std::accumulate(b.counts.begin(), b.counts.end(), 0), 5000);
    int start = 0;
    for (int i = 0; i < p; ++i) {
        EXPECT_EQ(b.displs[i], start) << "displs[" << i << "]";
        for (int k = start; k < start + b.counts[i]; ++k) {
            ASSERT_EQ(expected_bucket(b.values[k], p), i) << "values[" << k << "] = " << b.values[k];
        }
        start += b.counts[i];
    }
    const std::string difference = hpclab::multiset_difference(b.values, x);
    EXPECT_TRUE(difference.empty()) << "values is not a permutation of x, bit for bit: " << difference;
}

TEST(SplitIntoBuckets, EmptyAndAllEqual) {
    const auto empty = HPCLAB_VALUE(lab02::split_into_buckets(nullptr, 0, 3));
    EXPECT_EQ(empty.counts, std::vector<int>({0, 0, 0}));
    EXPECT_EQ(empty.displs, std::vector<int>({0, 0, 0}));
    EXPECT_TRUE(empty.values.empty());
    const std::vector<double> same(100, 0.6);
    const auto b = HPCLAB_VALUE(lab02::split_into_buckets(same.data(), same.size(), 4));
    EXPECT_EQ(b.counts, std::vector<int>({0, 0, 100, 0}));
    EXPECT_EQ(b.displs, std::vector<int>({0, 0, 0, 100}));
    const std::vector<double> bad = {0.1, 0.2, 1.5};
    EXPECT_THROW(HPCLAB_VALUE(lab02::split_into_buckets(bad.data(), bad.size(), 2)), std::invalid_argument);
}

// ---- Stage 2: root distributes -------------------------------------------------

TEST(RootDistributes, SortsRandomNumbers) { check_root_distributes(hpclab::uniform_doubles(10007, 1)); }

TEST(RootDistributes, EmptyAndFewerNumbersThanRanks) {
    check_root_distributes({});
    check_root_distributes({0.42});
    check_root_distributes({0.9, 0.1});
    check_root_distributes({0.9, 0.1, 0.5});
}

TEST(RootDistributes, AllEqualGoToOneBucket) { check_root_distributes(std::vector<double>(3000, 0.375)); }

TEST(RootDistributes, ExactZerosAndOnes) {
    std::vector<double> v = hpclab::uniform_doubles(500, 3);
    for (std::size_t i = 0; i < v.size(); i += 3) v[i] = (i % 2) ? 1.0 : 0.0;
    check_root_distributes(v);
}

TEST(RootDistributes, BadValueOnRootThrowsOnEveryRank) {
    std::vector<double> v = hpclab::uniform_doubles(100, 4);
    v[17] = -0.5;
    const std::vector<double> none;
    const hpclab::mpi::FailureSeen e = on_every_rank(MPI_COMM_WORLD, [&] {
        return HPCLAB_CALL([&] {
            return hpclab::mpi::catch_failure<lab02::BadInput>(
                [&] { lab02::sort_root_distributes(world_rank() == 0 ? v : none, MPI_COMM_WORLD); });
        });
    });
    if (!e.seen) {
        ADD_FAILURE() << "no BadInput on rank " << world_rank();
    } else {
        EXPECT_EQ(e.origin_rank, 0);
    }
}

// ---- Stage 3: fan-out -------------------------------------------------------

TEST(FanOut, SortsRandomNumbers) { check_fan_out(hpclab::uniform_doubles(10007, 1)); }

TEST(FanOut, EmptyAndFewerNumbersThanRanks) {
    check_fan_out({});
    check_fan_out({0.42});
    check_fan_out({0.9, 0.1});
    check_fan_out({0.9, 0.1, 0.5});
}

TEST(FanOut, AllEqualGoToOneBucket) { check_fan_out(std::vector<double>(3000, 0.375)); }

TEST(FanOut, ExactZerosAndOnes) {
    std::vector<double> v = hpclab::uniform_doubles(500, 3);
    for (std::size_t i = 0; i < v.size(); i += 3) v[i] = (i % 2) ? 1.0 : 0.0;
    check_fan_out(v);
}

TEST(FanOut, UnevenShares) {
    // Rank r holds 37 r + 1 numbers: shares need not be equal.
    const int rank = world_rank();
    const auto local = hpclab::uniform_doubles(static_cast<std::size_t>(37 * rank + 1), 100 + rank);
    const auto mine =
        on_every_rank(MPI_COMM_WORLD, [&] { return HPCLAB_VALUE(lab02::sort_fan_out(local, MPI_COMM_WORLD)); });
    const auto all_sorted = gather_on_root(mine);
    const auto all_input = gather_on_root(local);
    if (rank == 0) {
        const auto report = hpclab::check_sorted_permutation(all_sorted, all_input);
        EXPECT_TRUE(report.ok()) << report.message;
    }
}

TEST(FanOut, BadValueOnLastRankThrowsOnEveryRank) {
    const int p = world_size();
    std::vector<double> local = hpclab::uniform_doubles(50, 5 + world_rank());
    if (world_rank() == p - 1) local[7] = 1.5;
    const hpclab::mpi::FailureSeen e = on_every_rank(MPI_COMM_WORLD, [&] {
        return HPCLAB_CALL([&] {
            return hpclab::mpi::catch_failure<lab02::BadInput>([&] { lab02::sort_fan_out(local, MPI_COMM_WORLD); });
        });
    });
    if (!e.seen) {
        ADD_FAILURE() << "no BadInput on rank " << world_rank();
    } else {
        EXPECT_EQ(e.origin_rank, p - 1);
    }
}

TEST(BothVersions, AgreeWithEachOther) {
    // Numbers on a grid, like rand()/RAND_MAX: multiples of 1/1000, 1.0 included.
    std::vector<double> v = hpclab::uniform_doubles(4000, 9);
    for (auto& x : v) x = std::round(x * 1000.0) / 1000.0;
    // The fan-out gets the same numbers plus one more grid value, rotated, so
    // that neither version can hand back the other's result: they agree when
    // the fan-out's equals the root's with that value put in its place.
    hpclab::Rng rng(10);
    const double extra = static_cast<double>(rng.uniform_int(0, 1000)) / 1000.0;
    std::vector<double> w = v;
    w.push_back(extra);
    std::rotate(w.begin(), w.begin() + rng.uniform_int(0, static_cast<std::int64_t>(w.size()) - 1), w.end());
    const std::vector<double> none;
    const auto root = on_every_rank(MPI_COMM_WORLD, [&] {
        return HPCLAB_VALUE(lab02::sort_root_distributes(world_rank() == 0 ? v : none, MPI_COMM_WORLD));
    });
    const int p = world_size(), rank = world_rank();
    const std::vector<double> local = lab02_test::block_of(w, rank, p);
    const auto fan = gather_on_root(
        on_every_rank(MPI_COMM_WORLD, [&] { return HPCLAB_VALUE(lab02::sort_fan_out(local, MPI_COMM_WORLD)); }));
    if (rank == 0) {
        std::vector<double> root_and_extra = root;
        const auto at = std::count_if(root.begin(), root.end(), [&](double x) { return x <= extra; });
        root_and_extra.insert(root_and_extra.begin() + at, extra);
        EXPECT_EQ(root_and_extra, fan) << "the root version's result with " << extra
                                       << " inserted differs from the fan-out version's";
    }
}

// Worth no points in the grader (lab.json): a SortReport is the submission's
// own account of its run (how many numbers this rank sorted, its times),
// written in its process; nothing the judge sees shows which rank sorted
// what in the root version (a root that sorted everything and reported the
// bucket sizes would pass). The sorts earn their points from their results
// above. Kept as a check for students: the driver prints these figures.
TEST(Report, EachRankCountsWhatItSorted) {
    const int p = world_size(), rank = world_rank();
    const auto input = hpclab::uniform_doubles(10007, 2);
    const std::vector<double> none;
    lab02::SortReport report;
    on_every_rank(MPI_COMM_WORLD, [&] {
        return HPCLAB_CALL(
            [&] { return lab02::sort_root_distributes(rank == 0 ? input : none, MPI_COMM_WORLD, &report); }, report);
    });
    long long expected_mine = 0;
    for (double x : input) expected_mine += (expected_bucket(x, p) == rank);
    EXPECT_EQ(report.my_bucket, expected_mine) << "rank " << rank << " sorted the wrong number of values";
    EXPECT_EQ(sum_over_ranks(report.my_bucket), static_cast<long long>(input.size()));
    EXPECT_GE(report.compute_seconds, 0.0);
    EXPECT_GE(report.communicate_seconds, 0.0);
    const std::vector<double> local = lab02_test::block_of(input, rank, p);
    lab02::SortReport fan;
    const auto mine = on_every_rank(MPI_COMM_WORLD, [&] {
        return HPCLAB_CALL([&] { return lab02::sort_fan_out(local, MPI_COMM_WORLD, &fan); }, fan);
    });
    EXPECT_EQ(fan.my_bucket, static_cast<long long>(mine.size()));
}

// ---- Stage 4: the cost model ----------------------------------------------------

TEST(Model, LectureExample) {
    // n = 2^20, p = 4: 20 / (20/4 + (3/4) 2) = 40/13.
    EXPECT_NEAR(HPCLAB_VALUE(lab02::speedup_over_quicksort(1 << 20, 4)), 40.0 / 13.0, 1e-12);
    // L = 18/2 = 9: 4 * 10 / 13, the same number (see the handout: why?).
    EXPECT_NEAR(HPCLAB_VALUE(lab02::speedup_over_bucket_sort(1 << 20, 4)), 40.0 / 13.0, 1e-12);
}

TEST(Model, OneProcessorAndOtherSizes) {
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab02::speedup_over_bucket_sort(1 << 20, 1)), 1.0);
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab02::speedup_over_quicksort(1 << 20, 1)), 1.0);
    // n = 2^10, p = 2: 10 / (5 + 0.5) = 20/11.
    EXPECT_NEAR(HPCLAB_VALUE(lab02::speedup_over_quicksort(1024, 2)), 20.0 / 11.0, 1e-12);
    EXPECT_NEAR(HPCLAB_VALUE(lab02::speedup_over_bucket_sort(1024, 2)), 20.0 / 11.0, 1e-12);
    EXPECT_THROW(HPCLAB_VALUE(lab02::speedup_over_quicksort(100, 0)), std::invalid_argument);
    EXPECT_THROW(HPCLAB_VALUE(lab02::speedup_over_bucket_sort(2, 4)), std::invalid_argument);
}

TEST(Model, ComputeAndCommunicationTimes) {
    const lab02::MachineConstants c{1e-9, 1e-6, 1e-8};
    const double n = 1 << 20, p = 4;
    // (2^20 * 2 + 2^18 * 18) ns and 8 (1 us + 2^18 * 10 ns).
    EXPECT_NEAR(HPCLAB_VALUE(lab02::root_compute_seconds(n, p, c)), (2097152.0 + 4718592.0) * 1e-9, 1e-15);
    EXPECT_NEAR(HPCLAB_VALUE(lab02::root_communicate_seconds(n, p, c)), 8 * (1e-6 + 262144 * 1e-8), 1e-15);
    // (2^18 * 20) ns and 3 (1 us + 2^16 * 10 ns).
    EXPECT_NEAR(HPCLAB_VALUE(lab02::fan_out_compute_seconds(n, p, c)), 5242880.0 * 1e-9, 1e-15);
    EXPECT_NEAR(HPCLAB_VALUE(lab02::fan_out_communicate_seconds(n, p, c)), 3 * (1e-6 + 65536 * 1e-8), 1e-15);
}

}  // namespace
