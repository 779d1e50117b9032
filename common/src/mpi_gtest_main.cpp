// GoogleTest main for tests run under mpirun: every rank runs every test;
// only rank 0 prints and writes --gtest_output; the exit code is non-zero if
// any test failed on any rank, so one rank's failure cannot hide.
#include <gtest/gtest.h>

#include "hpclab/judged.hpp"
#include "hpclab/mpi.hpp"

namespace {

// Makes a test fail on every rank when it failed on any rank, so rank 0's
// report (the one the grader reads) tells the truth about the whole job.
class AllRanksAgree : public ::testing::EmptyTestEventListener {
    void OnTestEnd(const ::testing::TestInfo& info) override {
        int failed_here = info.result()->Failed() ? 1 : 0;
        int failed_anywhere = 0;
        MPI_Allreduce(&failed_here, &failed_anywhere, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (failed_anywhere && !failed_here) {
            ADD_FAILURE() << "failed on another rank";
        }
    }
};

}  // namespace

int main(int argc, char** argv) {
    hpclab::mpi::Environment env(&argc, &argv);
    ::testing::InitGoogleTest(&argc, argv);
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    if (!hpclab::mpi::is_root()) {
        delete listeners.Release(listeners.default_result_printer());
        delete listeners.Release(listeners.default_xml_generator());
    }
    listeners.Append(new AllRanksAgree);
    hpclab::judged::install_listener();
    if (hpclab::judged::mode() == hpclab::judged::Mode::replay) {
        hpclab::judged::on_replay_failure([](const std::string& reason) {
            hpclab::mpi::abort_job("the judge cannot replay this test: " + reason, 3);
        });
    }
    const int local = RUN_ALL_TESTS();
    int global = 0;
    MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return global;
}
