// Lab LABNUM visible tests, run on 1, 2 and 3 ranks (lab.json "mpi_ranks"):
// every rank makes the same global array from the seed, passes its block to
// the collective, and checks its part against one process's scan. A call
// that fails on one rank stops the test on all (on_every_rank), so no rank
// waits forever in the next collective.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "distributed_scan.hpp"
#include "hpclab/check.hpp"
#include "hpclab/data.hpp"
#include "hpclab/judged.hpp"
#include "hpclab/mpi.hpp"
#include "hpclab/mpi_testing.hpp"

namespace {

// This rank's block [lo, hi) of `all`, given every rank's size in `sizes`.
void check_scan(const std::vector<std::int64_t>& all, const std::vector<std::size_t>& sizes) {
    const int rank = hpclab::mpi::rank();
    std::size_t lo = 0;
    for (int r = 0; r < rank; ++r) lo += sizes[static_cast<std::size_t>(r)];
    const std::size_t n = sizes[static_cast<std::size_t>(rank)];
    const std::vector<std::int64_t> mine(all.begin() + static_cast<std::ptrdiff_t>(lo),
                                         all.begin() + static_cast<std::ptrdiff_t>(lo + n));
    std::vector<std::int64_t> got(n, -1), scan(all.size());
    std::inclusive_scan(all.begin(), all.end(), scan.begin());
    hpclab::mpi::on_every_rank(MPI_COMM_WORLD, [&] {
        HPCLAB_CALL([&] { LABNS::distributed_scan(mine.data(), got.data(), n, MPI_COMM_WORLD); }, got);
        return 0;
    });
    const std::vector<std::int64_t> want(scan.begin() + static_cast<std::ptrdiff_t>(lo),
                                         scan.begin() + static_cast<std::ptrdiff_t>(lo + n));
    const auto cmp = hpclab::compare_arrays(got, want, hpclab::Tolerance::exact());
    EXPECT_TRUE(cmp.ok()) << "rank " << rank << ": " << cmp.describe("scan");
}

TEST(DistributedScan, MatchesOneProcessScan) {
    const auto p = static_cast<std::size_t>(hpclab::mpi::size());
    std::vector<std::size_t> sizes(p);
    for (std::size_t r = 0; r < p; ++r) sizes[r] = 1000 + 37 * r;  // uneven blocks
    check_scan(hpclab::uniform_ints(std::accumulate(sizes.begin(), sizes.end(), std::size_t{0}), 1, -1000000, 1000000),
               sizes);
}

TEST(DistributedScan, SomeRanksHoldNothing) {
    const auto p = static_cast<std::size_t>(hpclab::mpi::size());
    std::vector<std::size_t> sizes(p, 0);
    sizes[p - 1] = 500;  // only the last rank holds values (the only one, on 1 rank)
    check_scan(hpclab::uniform_ints(500, 2, -1000000, 1000000), sizes);
}

TEST(GlobalTotal, MatchesOneProcessSum) {
    const int rank = hpclab::mpi::rank(), p = hpclab::mpi::size();
    const auto all = hpclab::uniform_ints(static_cast<std::size_t>(p) * 1001, 3, -1000000, 1000000);
    const std::vector<std::int64_t> mine(all.begin() + rank * 1001, all.begin() + (rank + 1) * 1001);
    const std::int64_t got = hpclab::mpi::on_every_rank(
        MPI_COMM_WORLD, [&] { return HPCLAB_VALUE(LABNS::global_total(mine.data(), mine.size(), MPI_COMM_WORLD)); });
    EXPECT_EQ(got, std::accumulate(all.begin(), all.end(), std::int64_t{0})) << "rank " << rank;
}

}  // namespace
