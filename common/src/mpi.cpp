// MPI helpers: RAII environment, rank queries, one-message aborts.
#include "hpclab/mpi.hpp"

#include <cstdio>
#include <cstdlib>
#include <new>

#include "hpclab/cli.hpp"

namespace hpclab {
namespace mpi {

namespace {
// Swallows everything written to it; what non-root ranks print through root_out().
class NullBuffer : public std::streambuf {
protected:
    int overflow(int c) override { return c; }
};
}  // namespace

Environment::Environment(int* argc, char*** argv) {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) MPI_Init(argc, argv);
    // Return error codes instead of aborting inside the library, so that
    // HPCLAB_MPI_CHECK can say which call failed before it aborts the job.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

Environment::~Environment() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
}

int rank(MPI_Comm comm) {
    int r = 0;
    MPI_Comm_rank(comm, &r);
    return r;
}

int size(MPI_Comm comm) {
    int s = 1;
    MPI_Comm_size(comm, &s);
    return s;
}

bool is_root(MPI_Comm comm) { return rank(comm) == 0; }

void abort_job(const std::string& message, int code) {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    const int r = (initialized && !finalized) ? rank() : 0;
    std::fprintf(stderr, "error on rank %d: %s\n", r, message.c_str());
    std::fflush(stderr);
    if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, code);
    std::exit(code);
}

int fail_on_every_rank(const std::string& program, const std::string& message) {
    if (rank() == 0) std::fprintf(stderr, "%s: error: %s\n", program.c_str(), message.c_str());
    return 1;
}

int fail_here(const std::string& program, const std::string& message) {
    if (size() == 1) {
        std::fprintf(stderr, "%s: error: %s\n", program.c_str(), message.c_str());
        return 1;
    }
    abort_job(message);
}

int run_main(int argc, char** argv, cli::App& app, const std::function<int()>& body, const MainHooks& hooks) {
    Environment env(&argc, &argv);
    const std::string program = app.name();
    // Every rank parses the same arguments; only rank 0 talks about them.
    const int code = app.parse(argc, argv, rank() != 0);
    if (code >= 0) return code;
    try {
        return body();
    } catch (const std::exception& e) {
        if (hooks.own) {
            if (const std::optional<int> own = hooks.own(e)) return *own;
        }
        if (dynamic_cast<const SameOnEveryRank*>(&e)) return fail_on_every_rank(program, e.what());
        if (dynamic_cast<const cli::UsageError*>(&e)) {
            if (rank() == 0) std::fprintf(stderr, "%s: error: %s (see --help)\n", program.c_str(), e.what());
            return 2;
        }
        if (dynamic_cast<const std::bad_alloc*>(&e)) return fail_here(program, hooks.out_of_memory);
        return fail_here(program, e.what());
    } catch (...) {
        return fail_here(program, "unknown exception");
    }
}

void throw_or_abort(int code, const char* call, const char* file, int line) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) std::snprintf(text, sizeof text, "MPI error %d", code);
    char buf[MPI_MAX_ERROR_STRING + 512];
    std::snprintf(buf, sizeof buf, "%s failed at %s:%d: %s", call, file, line, text);
    abort_job(buf, 1);
}

FirstFailure first_failure(bool failed, const std::string& message, MPI_Comm comm) {
    const int p = size(comm);
    int mine = failed ? rank(comm) : p, first = p;
    HPCLAB_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
    FirstFailure out;
    if (first == p) return out;
    out.rank = first;
    out.message = message;
    int length = static_cast<int>(out.message.size());
    HPCLAB_MPI_CHECK(MPI_Bcast(&length, 1, MPI_INT, first, comm));
    out.message.resize(static_cast<std::size_t>(length));
    if (length > 0) HPCLAB_MPI_CHECK(MPI_Bcast(&out.message[0], length, MPI_CHAR, first, comm));
    return out;
}

double max_over_ranks(double value, MPI_Comm comm) {
    double result = value;
    HPCLAB_MPI_CHECK(MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, comm));
    return result;
}

std::ostream& root_out(MPI_Comm comm) {
    static NullBuffer null_buffer;
    static std::ostream null_stream(&null_buffer);
    return is_root(comm) ? std::cout : null_stream;
}

timed::Coordinator timed_coordinator(MPI_Comm comm) {
    timed::Coordinator c;
    c.is_root = is_root(comm);
    c.broadcast = [comm](std::uint64_t* words, int n) { HPCLAB_MPI_CHECK(MPI_Bcast(words, n, MPI_UINT64_T, 0, comm)); };
    return c;
}

}  // namespace mpi
}  // namespace hpclab
