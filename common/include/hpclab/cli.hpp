// A thin layer over CLI11 so that every driver parses, validates and fails
// the same way: one clear line on stderr and a non-zero exit, never a crash.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

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
void add_common(CLI::App& app, CommonOptions& options);

// Parse a count: "1000000", "1e6", "2^20" (and "1.5e6" when it is an integer).
// Throws std::invalid_argument with a readable reason otherwise (negative,
// fractional, a word, too large).
std::size_t parse_count(const std::string& text);

// Parse a seed: decimal digits only, 0 to 2^64 - 1. Throws
// std::invalid_argument with a readable reason otherwise ("-1" would wrap to
// 2^64 - 1 in a plain conversion, and a seed too large would wrap silently).
std::uint64_t parse_seed(const std::string& text);

// Add an option that takes a count through parse_count; a value below `min`
// is a usage error naming the option ("--n: must be at least 1, got 0").
CLI::Option* add_count(CLI::App& app, const std::string& name, std::size_t& target, const std::string& description,
                       std::size_t min = 0);
// Same, for a list of counts ("--sizes 1e5 1e6 1e7").
CLI::Option* add_counts(CLI::App& app, const std::string& name, std::vector<std::size_t>& target,
                        const std::string& description, std::size_t min = 0);

// Parse; returns -1 when the program should go on, else the exit code to
// return now (0 after --help, 2 after a usage error, which is printed as one
// line: "<program>: error: <reason> (see --help)").
int parse(CLI::App& app, int argc, char** argv);
// The same, silent when `quiet`: under MPI every rank parses the same
// arguments and only rank 0 prints help or errors (all return the same code).
int parse(CLI::App& app, int argc, char** argv, bool quiet);

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
// The driver's command line, named after its lab.
inline CLI::App app(const std::string& description) { return CLI::App(description, lab_name()); }
// run_main with the lab's name.
inline int run_main(const std::function<int()>& body) { return run_main(lab_name(), body); }
#endif

}  // namespace cli
}  // namespace hpclab
