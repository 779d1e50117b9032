// MPI helpers: RAII init/finalize, rank-0 printing, MPI_Wtime timing, and
// errors that stop the whole job with one message (MPI_Abort), never a hang.
// Compiled only when the 'mpi' feature is on.
#pragma once

#include <mpi.h>

#include <exception>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

#include "hpclab/timed.hpp"

namespace hpclab {
namespace cli {
class App;
}
}  // namespace hpclab

namespace hpclab {
namespace mpi {

// MPI_Init in the constructor, MPI_Finalize in the destructor. Sets
// MPI_ERRORS_RETURN on MPI_COMM_WORLD so HPCLAB_MPI_CHECK can name the call.
class Environment {
public:
    Environment(int* argc, char*** argv);
    ~Environment();
    Environment(const Environment&) = delete;
    Environment& operator=(const Environment&) = delete;
};

int rank(MPI_Comm comm = MPI_COMM_WORLD);
int size(MPI_Comm comm = MPI_COMM_WORLD);
bool is_root(MPI_Comm comm = MPI_COMM_WORLD);

// Print "<prefix>error on rank r: message" on stderr and MPI_Abort the job.
// Any rank may call it; the others are killed by the launcher, so nobody
// waits forever in a collective.
[[noreturn]] void abort_job(const std::string& message, int code = 1);

// An error every rank raises at the same point (bad arguments seen alike):
// nobody is left waiting, so no MPI_Abort is needed. Drivers catch it and
// return fail_on_every_rank.
struct SameOnEveryRank : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// Rank 0 prints "<program>: error: message" once; every rank returns 1.
int fail_on_every_rank(const std::string& program, const std::string& message);

// A driver's error on this rank: alone, "<program>: error: message" and
// return 1; with other ranks, which may wait in a collective for this one,
// abort_job (one message, the whole job down, never a hang).
int fail_here(const std::string& program, const std::string& message);

// What a lab adds to run_main's error ladder.
struct MainHooks {
    // The message when memory runs out, with the option that makes it smaller.
    std::string out_of_memory = "out of memory (try a smaller size)";
    // A lab's own exception type, tried first: the exit code when `own`
    // knows the exception, nullopt to let the ladder go on. For an error
    // every rank has but only one rank should report (lab 02's BadInput).
    std::function<std::optional<int>(const std::exception&)> own;
};

// The whole main() of an MPI driver: starts MPI (Environment), parses argv
// into `app` on every rank with only rank 0 printing help and usage errors,
// runs `body`, and turns what it throws into one message and an exit code:
//   MainHooks::own                  whatever it returns;
//   SameOnEveryRank                 rank 0 prints it, every rank returns 1;
//   cli::UsageError (every rank)    rank 0 prints it with "(see --help)", 2;
//   std::bad_alloc                  fail_here(out_of_memory);
//   any other exception             fail_here(what);
//   anything else                   fail_here("unknown exception").
// Messages begin "<app's name>: error: ". Objects `body` made are gone
// before MPI is finalized.
int run_main(int argc, char** argv, cli::App& app, const std::function<int()>& body, const MainHooks& hooks = {});

[[noreturn]] void throw_or_abort(int code, const char* call, const char* file, int line);

// Seconds since an arbitrary origin (MPI_Wtime).
class Timer {
public:
    Timer() : start_(MPI_Wtime()) {}
    void restart() { start_ = MPI_Wtime(); }
    double seconds() const { return MPI_Wtime() - start_; }

private:
    double start_;
};

// Adds the seconds from construction to destruction to *sink (nothing when
// sink is null): { PhaseClock clock(&report.shuffle_seconds); ...work... }
class PhaseClock {
public:
    explicit PhaseClock(double* sink) : sink_(sink) {}
    ~PhaseClock() {
        if (sink_) *sink_ += timer_.seconds();
    }
    PhaseClock(const PhaseClock&) = delete;
    PhaseClock& operator=(const PhaseClock&) = delete;

private:
    double* sink_;
    Timer timer_;
};

// The largest of a value over all ranks (for timings: the slowest rank).
double max_over_ranks(double value, MPI_Comm comm = MPI_COMM_WORLD);

// Did any rank fail, and which first? Collective: every rank says whether it
// failed and why; every rank gets the lowest failing rank and its message
// (rank -1 when none failed), so all can take the same path afterwards.
struct FirstFailure {
    int rank = -1;
    std::string message;
    bool any() const { return rank >= 0; }
};
FirstFailure first_failure(bool failed, const std::string& message, MPI_Comm comm = MPI_COMM_WORLD);

// Print only on rank 0: hpclab::mpi::root_out() << ... ;
std::ostream& root_out(MPI_Comm comm = MPI_COMM_WORLD);

// For --serve under mpirun (hpclab/timed.hpp): rank 0 talks to the grader
// and every command reaches all ranks by MPI_Bcast.
timed::Coordinator timed_coordinator(MPI_Comm comm = MPI_COMM_WORLD);

}  // namespace mpi
}  // namespace hpclab

// Check an MPI call; on failure abort the job with the call's text and place.
#define HPCLAB_MPI_CHECK(call)                                                                                         \
    do {                                                                                                               \
        int hpclab_mpi_err_ = (call);                                                                                  \
        if (hpclab_mpi_err_ != MPI_SUCCESS) ::hpclab::mpi::throw_or_abort(hpclab_mpi_err_, #call, __FILE__, __LINE__); \
    } while (0)
