// Helpers for MPI tests of collective student functions (labs 02, 15):
// every rank learns whether a judged call failed anywhere, and an exception
// that names its rank is turned into values a judged call can record.
#pragma once

#include <mpi.h>

#include <exception>
#include <optional>
#include <stdexcept>
#include <utility>

namespace hpclab {
namespace mpi {

// Runs `call` (a judged call of a collective student function) and makes
// every rank of comm learn whether it failed anywhere before the test goes on
// to its own MPI calls: a rank where it threw (or, in the judge, whose record
// ends early because the recording crashed there) leaves the test, and the
// others must not wait for it in a gather or a reduction. They stop too, and
// the test fails on every rank.
template <class F>
auto on_every_rank(MPI_Comm comm, F&& call) {
    std::optional<decltype(call())> result;
    std::exception_ptr error;
    try {
        result.emplace(call());
    } catch (...) {
        error = std::current_exception();
    }
    int failed_here = error ? 1 : 0, failed_anywhere = 0;
    MPI_Allreduce(&failed_here, &failed_anywhere, 1, MPI_INT, MPI_MAX, comm);
    if (error) std::rethrow_exception(error);
    if (failed_anywhere) throw std::runtime_error("the call failed on another rank; this rank stops with it");
    return std::move(*result);
}

// How a call that must fail ended, as values: an exception's type and its
// origin_rank() do not survive a judged call's rethrow, so the expected
// exception is caught inside the call and recorded as these two numbers.
struct FailureSeen {
    int seen = 0;  // 1: the call threw the expected exception
    int origin_rank = -1;
};
// Runs `call`; an `Expected` (which has origin_rank()) becomes a FailureSeen,
// any other exception goes through to the test.
template <class Expected, class F>
FailureSeen catch_failure(F&& call) {
    FailureSeen out;
    try {
        call();
    } catch (const Expected& e) {
        out.seen = 1;
        out.origin_rank = e.origin_rank();
    }
    return out;
}

}  // namespace mpi
}  // namespace hpclab
