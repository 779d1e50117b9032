// Lab LABNUM hidden tests (compiled only by the grader): other block sizes
// and seeds, and the total of the scan's blocks.
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

TEST(Hidden, OtherSizesAndSeeds) {
    const int rank = hpclab::mpi::rank(), p = hpclab::mpi::size();
    for (std::size_t each : {1, 2, 65, 4097}) {
        hpclab::Rng rng(100 + each);
        std::vector<std::int64_t> all(each * static_cast<std::size_t>(p));
        for (auto& x : all) x = rng.uniform_int(-1000000000, 1000000000);
        std::vector<std::int64_t> scan(all.size()), got(each, -1);
        std::inclusive_scan(all.begin(), all.end(), scan.begin());
        const std::size_t lo = each * static_cast<std::size_t>(rank);
        const std::vector<std::int64_t> mine(all.begin() + static_cast<std::ptrdiff_t>(lo),
                                             all.begin() + static_cast<std::ptrdiff_t>(lo + each));
        hpclab::mpi::on_every_rank(MPI_COMM_WORLD, [&] {
            HPCLAB_CALL([&] { LABNS::distributed_scan(mine.data(), got.data(), each, MPI_COMM_WORLD); }, got);
            return 0;
        });
        for (std::size_t i = 0; i < each; ++i) ASSERT_EQ(got[i], scan[lo + i]) << "each " << each << ", i " << i;
        const std::int64_t total = hpclab::mpi::on_every_rank(
            MPI_COMM_WORLD, [&] { return HPCLAB_VALUE(LABNS::global_total(mine.data(), each, MPI_COMM_WORLD)); });
        EXPECT_EQ(total, scan.back()) << "each " << each;
    }
}

}  // namespace
