// GoogleTest main of every lab's test binary (MPI labs use mpi_gtest_main):
// GoogleTest's own main, plus the judged-call listener, so that the same
// binary runs directly, records for the grader, or replays for its judge.
#include <gtest/gtest.h>

#include "hpclab/judged.hpp"

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    hpclab::judged::install_listener();
    return RUN_ALL_TESTS();
}
