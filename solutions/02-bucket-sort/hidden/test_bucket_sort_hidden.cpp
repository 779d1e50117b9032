// Lab 02 hidden tests (compiled only by the grader): other seeds and sizes,
// skewed data (very uneven buckets), a communicator other than MPI_COMM_WORLD,
// repeated calls, and the model at other points. Every call into the
// student's code is a judged call (hpclab/judged.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <optional>
#include <stdexcept>

#include "bucket_sort.hpp"
#include "hpclab/check.hpp"
#include "hpclab/data.hpp"
#include "hpclab/judged.hpp"
#include "hpclab/mpi.hpp"
#include "hpclab/mpi_testing.hpp"
#include "tests/bucket_test_util.hpp"

namespace {

using hpclab::mpi::on_every_rank;

std::vector<double> gather_on_root(const std::vector<double>& mine, MPI_Comm comm) {
    const int p = hpclab::mpi::size(comm);
    int count = static_cast<int>(mine.size());
    std::vector<int> counts(static_cast<std::size_t>(p)), displs(static_cast<std::size_t>(p), 0);
    MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
    for (int r = 1; r < p; ++r) displs[r] = displs[r - 1] + counts[r - 1];
    std::vector<double> all;
    if (hpclab::mpi::rank(comm) == 0) all.resize(static_cast<std::size_t>(displs[p - 1] + counts[p - 1]));
    MPI_Gatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, 0, comm);
    return all;
}

// Both versions over `comm`, rank 0 of comm checks each against its input
// and std::sort.
// The root version sorts `input`; the fan-out version sorts its own copy with
// one more value in [0, 1), rotated, so that neither can hand back the
// other's result. (Every rank of comm makes the same copy: same generator.)
void check_both(const std::vector<double>& input, MPI_Comm comm) {
    const int p = hpclab::mpi::size(comm), rank = hpclab::mpi::rank(comm);
    std::vector<double> want = input;
    std::sort(want.begin(), want.end());
    hpclab::Rng rng(input.size());
    std::vector<double> fan_input = input;
    fan_input.push_back(rng.uniform01());
    std::rotate(fan_input.begin(),
                fan_input.begin() + rng.uniform_int(0, static_cast<std::int64_t>(fan_input.size()) - 1),
                fan_input.end());
    std::vector<double> fan_want = fan_input;
    std::sort(fan_want.begin(), fan_want.end());
    const std::vector<double> none;
    const auto root =
        on_every_rank(comm, [&] { return HPCLAB_VALUE(lab02::sort_root_distributes(rank == 0 ? input : none, comm)); });
    const std::vector<double> local = lab02_test::block_of(fan_input, rank, p);
    const auto fan =
        gather_on_root(on_every_rank(comm, [&] { return HPCLAB_VALUE(lab02::sort_fan_out(local, comm)); }), comm);
    if (rank == 0) {
        // A sorted permutation of its input, bit for bit, and std::sort's result.
        const auto root_report = hpclab::check_sorted_permutation(root, input);
        const auto fan_report = hpclab::check_sorted_permutation(fan, fan_input);
        EXPECT_TRUE(root_report.ok() && root == want) << "root version: " << root_report.message;
        EXPECT_TRUE(fan_report.ok() && fan == fan_want) << "fan-out version: " << fan_report.message;
    } else {
        EXPECT_TRUE(root.empty());
    }
}

TEST(Hidden, OtherSeedsAndSizes) {
    for (std::uint64_t seed : {7u, 4242u}) check_both(hpclab::uniform_doubles(65537, seed), MPI_COMM_WORLD);
    check_both(hpclab::uniform_doubles(5, 3), MPI_COMM_WORLD);
}

TEST(Hidden, SkewedDataMakesUnevenBuckets) {
    auto v = hpclab::uniform_doubles(30011, 12);
    for (auto& x : v) x = x * x * x * x;  // most values land in bucket 0
    v[0] = 1.0;
    v[1] = 0.0;
    check_both(v, MPI_COMM_WORLD);
}

TEST(Hidden, SubCommunicator) {
    // Even and odd world ranks sort separately: code that uses
    // MPI_COMM_WORLD instead of comm gets the sizes and ranks wrong.
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, hpclab::mpi::rank() % 2, hpclab::mpi::rank(), &half);
    check_both(hpclab::uniform_doubles(9001, 31 + static_cast<std::uint64_t>(hpclab::mpi::rank() % 2)), half);
    MPI_Comm_free(&half);
}

// Three calls in a row, each on data of its own, each checked: a call that
// keeps state from the last one shows. (The SortReport's reset is the
// submission's own account of its run: worth no points, see the visible
// Report.EachRankCountsWhatItSorted.)
TEST(Hidden, RepeatedCallsOnFreshData) {
    const int p = hpclab::mpi::size(), rank = hpclab::mpi::rank();
    for (int k = 0; k < 3; ++k) {
        const auto v =
            hpclab::uniform_doubles(2000 + 7 * static_cast<std::size_t>(k), 77 + static_cast<std::uint64_t>(k));
        const std::vector<double> local = lab02_test::block_of(v, rank, p);
        const auto mine =
            on_every_rank(MPI_COMM_WORLD, [&] { return HPCLAB_VALUE(lab02::sort_fan_out(local, MPI_COMM_WORLD)); });
        const auto all = gather_on_root(mine, MPI_COMM_WORLD);
        if (rank == 0) {
            std::vector<double> want = v;
            std::sort(want.begin(), want.end());
            EXPECT_TRUE(all == want) << "call " << k << ": " << hpclab::check_sorted_permutation(all, v).message;
        }
    }
}

TEST(Hidden, BucketEdgesForOtherP) {
    EXPECT_EQ(HPCLAB_VALUE(lab02::bucket_of(0.125, 8)), 1);
    EXPECT_EQ(HPCLAB_VALUE(lab02::bucket_of(std::nextafter(0.125, 0.0), 8)), 0);
    EXPECT_EQ(HPCLAB_VALUE(lab02::bucket_of(std::nextafter(1.0, 0.0), 999)), 998);
    EXPECT_EQ(HPCLAB_VALUE(lab02::bucket_of(std::nextafter(1.0, 0.0), 3000)), 2999);
    EXPECT_EQ(HPCLAB_VALUE(lab02::bucket_of(1.0, 3000)), 2999);
    EXPECT_EQ(HPCLAB_VALUE(lab02::bucket_of(5e-324, 3000)), 0);
}

TEST(Hidden, ModelAtOtherPoints) {
    // n = 2^30, p = 16: 30 / (30/16 + (15/16) 4) = 30 / 5.625 = 16/3.
    EXPECT_NEAR(HPCLAB_VALUE(lab02::speedup_over_quicksort(std::ldexp(1.0, 30), 16)), 16.0 / 3.0, 1e-12);
    EXPECT_NEAR(HPCLAB_VALUE(lab02::speedup_over_bucket_sort(std::ldexp(1.0, 30), 16)), 16.0 / 3.0, 1e-12);
    // The speedup stays below p and grows with n.
    EXPECT_LT(HPCLAB_VALUE(lab02::speedup_over_quicksort(1e9, 8)), 8.0);
    const double at_1e9 = HPCLAB_VALUE(lab02::speedup_over_quicksort(1e9, 8));
    const double at_1e6 = HPCLAB_VALUE(lab02::speedup_over_quicksort(1e6, 8));
    EXPECT_GT(at_1e9, at_1e6);
    const lab02::MachineConstants c{2e-9, 5e-6, 4e-9};
    // Both communication times and both compute times for n = 2^24, p = 8.
    const double n = std::ldexp(1.0, 24), p = 8;
    EXPECT_NEAR(HPCLAB_VALUE(lab02::root_communicate_seconds(n, p, c)), 16 * (5e-6 + n / 8 * 4e-9), 1e-12);
    EXPECT_NEAR(HPCLAB_VALUE(lab02::fan_out_communicate_seconds(n, p, c)), 7 * (5e-6 + n / 64 * 4e-9), 1e-12);
    EXPECT_NEAR(HPCLAB_VALUE(lab02::fan_out_compute_seconds(n, p, c)), n / 8 * 24 * 2e-9, 1e-12);
    EXPECT_NEAR(HPCLAB_VALUE(lab02::root_compute_seconds(n, p, c)), (n * 3 + n / 8 * 21) * 2e-9, 1e-12);
}

}  // namespace
