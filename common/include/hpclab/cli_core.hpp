// The parts of a driver's command line that need no parser: its errors,
// its shared options, count and seed parsing, and run_main. A file that only
// throws Unavailable or holds CommonOptions includes this, not
// hpclab/cli.hpp, which declares the App a driver builds its command line
// with (CLI11 itself is confined to common/src/cli.cpp: hpclab/cli.hpp says
// why).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

namespace hpclab {
namespace cli {

// Thrown when the machine lacks something a driver needs (a GPU, a second
// GPU, an MPI launcher). run_main prints it and exits with kExitUnavailable,
// which `meson test` reports as SKIP rather than FAIL.
class Unavailable : public std::runtime_error {
public:
    explicit Unavailable(const std::string& what) : std::runtime_error(what) {}
};
constexpr int kExitUnavailable = 77;

// A usage error found after the parse (options that conflict): run_main
// prints "<program>: error: <what> (see --help)", as the parse does, exit 2.
class UsageError : public std::invalid_argument {
public:
    explicit UsageError(const std::string& what) : std::invalid_argument(what) {}
};

// Options every driver shares.
struct CommonOptions {
    bool json = false;              // one JSON object per measurement on stdout
    std::uint64_t seed = 20160101;  // data generator seed
    int reps = 5;                   // timed repetitions (the median is reported)
    int warmup = 1;                 // untimed runs first
    std::string serve;              // --serve DIR: timed from outside by the grader (hpclab/timed.hpp)
};

// Parse a count: "1000000", "1e6", "2^20" (and "1.5e6" when it is an integer).
// Throws std::invalid_argument with a readable reason otherwise (negative,
// fractional, a word, too large).
std::size_t parse_count(const std::string& text);

// Parse a seed: decimal digits only, 0 to 2^64 - 1. Throws
// std::invalid_argument with a readable reason otherwise ("-1" would wrap to
// 2^64 - 1 in a plain conversion, and a seed too large would wrap silently).
std::uint64_t parse_seed(const std::string& text);

// A check of the driver's input beyond what CLI11 can say: throws
// std::invalid_argument(message), which run_main prints as one line, exit 1.
inline void fail_if(bool bad, const std::string& message) {
    if (bad) throw std::invalid_argument(message);
}

// Run a driver's body; any exception becomes "<program>: error: <what>" on
// stderr and exit code 1 (Unavailable: exit code 77), so bad input never
// ends in a crash or core dump.
int run_main(const std::string& program, const std::function<int()>& body);

// A lab's name comes from its build (labs/meson.build defines HPCLAB_LAB for
// every target of a lab), so no driver spells it. Outside a lab target these
// are not declared, and a driver that uses them does not compile.
#ifdef HPCLAB_LAB
inline const char* lab_name() { return HPCLAB_LAB; }
// run_main with the lab's name.
inline int run_main(const std::function<int()>& body) { return run_main(lab_name(), body); }
#endif

}  // namespace cli
}  // namespace hpclab
