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

TEST(Mpi, TimerAdvances) {
    hpclab::mpi::Timer t;
    volatile double x = 0;
    for (int i = 0; i < 100000; ++i) x = x + 1;
    EXPECT_GE(t.seconds(), 0.0);
}
