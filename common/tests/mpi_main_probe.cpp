// Probe for hpclab::mpi::run_main's error ladder, run by mpi_main_check.py
// under mpirun: --throw KIND raises one kind of error on rank --on (every
// rank when -1) while the other ranks wait in a barrier.
#include <cstdio>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>

#include "hpclab/cli.hpp"
#include "hpclab/mpi.hpp"

namespace {
// A lab's own exception type, for MainHooks::own.
struct OwnError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
}  // namespace

int main(int argc, char** argv) {
    std::string kind = "none";
    int on = -1;
    hpclab::cli::App app("probe of hpclab::mpi::run_main", "probe");
    app.option("--throw", kind, "the kind of error to raise")
        .one_of({"none", "same", "usage", "here", "oom", "own", "other"});
    app.option("--on", on, "the rank that throws (-1: every rank)");
    hpclab::mpi::MainHooks hooks;
    hooks.out_of_memory = "out of memory (probe)";
    hooks.own = [](const std::exception& e) -> std::optional<int> {
        if (!dynamic_cast<const OwnError*>(&e)) return std::nullopt;
        if (hpclab::mpi::is_root()) std::fprintf(stderr, "probe: own: %s\n", e.what());
        return 3;
    };
    return hpclab::mpi::run_main(
        argc, argv, app,
        [&] {
            if (on < 0 || on == hpclab::mpi::rank()) {
                if (kind == "same") throw hpclab::mpi::SameOnEveryRank("same");
                if (kind == "usage") throw hpclab::cli::UsageError("usage");
                if (kind == "here") throw std::runtime_error("here");
                if (kind == "oom") throw std::bad_alloc();
                if (kind == "own") throw OwnError("own");
                if (kind == "other") throw 42;
            }
            if (on >= 0) MPI_Barrier(MPI_COMM_WORLD);  // the others wait: the job must still end
            return 0;
        },
        hooks);
}
