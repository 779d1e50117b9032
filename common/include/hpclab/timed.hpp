// Timed from outside: the worker side of the grader's timing protocol.
//
// The grader never believes a time that a submission's process prints. With
// `--serve DIR` a driver instead serves repetitions of its benchmark to the
// grader, which holds the clock:
//
//   driver -> grader   ready                       (setup done, untimed)
//   grader -> driver   go <k> <seed>               (clock starts)
//                      prepare(seed): fresh input made from the seed, which
//                                     the driver has not seen before
//                      work():        the student's code
//                      summarize():   values only the finished output gives
//   driver -> grader   done <k> <values...>        (clock stops)
//   grader -> driver   end
//
// The seed of repetition k is drawn by the grader when it sends `go`, so no
// input can be known, cached or worked on before its clock starts; the next
// `go` waits for this `done`, so no work can be deferred past it; and the
// grader compares every repetition's values with the reference's for the
// same seed, so work skipped or done wrong is caught. Lines travel through
// two FIFOs in DIR ("go", "done"), which the grader creates; under MPI only
// rank 0 opens them and passes each command on to the other ranks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace hpclab {
namespace timed {

struct Benchmark {
    // Makes repetition k's input from its seed. Inside the timed window, so
    // keep it to one pass over the data; reuse buffers, allocate nothing.
    std::function<void(std::uint64_t seed)> prepare;
    // The student's code: what is being measured.
    std::function<void()> work;
    // A few numbers that depend on the whole output (see exact_digest and
    // the labs' summaries); compared with the reference's, exactly or within
    // the lab's tolerance (lab.json benchmark.check).
    std::function<std::vector<double>()> summarize;
};

// How the ranks of an MPI driver agree on each command (hpclab/mpi.hpp
// provides one); a single process needs none.
struct Coordinator {
    bool is_root = true;
    // Broadcast `n` words from the root to every rank.
    std::function<void(std::uint64_t* words, int n)> broadcast;
};

// Serves repetitions until `end` (see above); returns the exit code for
// main. Errors of the protocol (a FIFO that cannot be opened, a malformed
// command) throw std::runtime_error. An exception from the benchmark is
// reported to the grader as `error <k> <message>` and ends the serving.
int serve(const std::string& dir, const Benchmark& benchmark, const Coordinator& coordinator = Coordinator{});

// A digest of bytes that must come out exactly (sorted keys, a transpose):
// 64 bits of a strong mix, as two doubles holding 32 bits each.
std::vector<double> exact_digest(const void* data, std::size_t bytes);
template <class T>
std::vector<double> exact_digest(const std::vector<T>& v) {
    return exact_digest(v.data(), v.size() * sizeof(T));
}

// Sums of the output weighted by pseudo-random integers from -16 to 16 (not
// 0) drawn from `seed`, one sum per weight pattern, in double: each depends
// on every element, so no output can be skipped, and unlike a plain sum it
// changes when elements are swapped or moved (two elements swapped escape a
// pattern with probability 1/32). For floating-point outputs whose last
// bits may differ from the reference's (compare within a tolerance).
std::vector<double> signed_sums(const double* values, std::size_t n, std::uint64_t seed, int patterns = 2);
std::vector<double> signed_sums(const float* values, std::size_t n, std::uint64_t seed, int patterns = 2);

}  // namespace timed
}  // namespace hpclab
