// MPI helpers under mpirun with several ranks.
#include <gtest/gtest.h>

#include "hpclab/mpi.hpp"

TEST(Mpi, RankAndSizeAgreeWithMpi) {
    int r = -1, s = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    EXPECT_EQ(hpclab::mpi::rank(), r);
    EXPECT_EQ(hpclab::mpi::size(), s);
    EXPECT_EQ(hpclab::mpi::is_root(), r == 0);
}

TEST(Mpi, MaxOverRanksIsTheSlowest) {
    const double mine = 1.0 + hpclab::mpi::rank();
    EXPECT_EQ(hpclab::mpi::max_over_ranks(mine), static_cast<double>(hpclab::mpi::size()));
}

TEST(Mpi, FirstFailureNamesTheLowestFailingRankEverywhere) {
    const int me = hpclab::mpi::rank(), p = hpclab::mpi::size();
    EXPECT_FALSE(hpclab::mpi::first_failure(false, "").any());
    // Every odd rank fails with a message of its own, longer than any fixed
    // buffer would hold; rank 1 is the first (none with one rank).
    const std::string mine = "rank " + std::to_string(me) + " failed: " + std::string(1000, 'x');
    const hpclab::mpi::FirstFailure f = hpclab::mpi::first_failure(me % 2 == 1, mine);
    if (p == 1) {
        EXPECT_FALSE(f.any());
        return;
    }
    EXPECT_EQ(f.rank, 1);
    EXPECT_EQ(f.message, "rank 1 failed: " + std::string(1000, 'x'));
    // A failure with no message still names its rank.
    const hpclab::mpi::FirstFailure silent = hpclab::mpi::first_failure(me == p - 1, "");
    EXPECT_EQ(silent.rank, p - 1);
    EXPECT_EQ(silent.message, "");
}

TEST(Mpi, TimerAdvances) {
    hpclab::mpi::Timer t;
    volatile double x = 0;
    for (int i = 0; i < 100000; ++i) x = x + 1;
    EXPECT_GE(t.seconds(), 0.0);
}
