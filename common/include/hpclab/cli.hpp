// Every driver's command line, parsed and validated by CLI11 the same way:
// one clear line on stderr and a non-zero exit, never a crash. The parts
// that need no parser (errors, CommonOptions, run_main) are in
// hpclab/cli_core.hpp.
//
// CLI11 lives behind this header, in common/src/cli.cpp only: the packaged
// CLI11 (2.1) is header-only, and a file that includes it takes 10-14 s to
// compile at -O2, which every driver, every grade and every release
// build paid again (the cold export's build of 15 labs on two cores fell
// from 453 s to 392 s without it). A driver declares its options here
// instead:
//
//   void declare_options(hpclab::cli::App& app, Options& o) {
//       app.count("--n", o.n, "number of doubles to sort", 1);
//       app.option("--algo", o.algo, "algorithm").one_of({"all", "qsort"}).show_default();
//       app.flag("--sweep", o.sweep, "time a sweep of sizes");
//   }
//   int main(int argc, char** argv) {
//       return hpclab::cli::run_driver<Options>(argc, argv, "Lab 01: ...", declare_options, run);
//   }
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hpclab/cli_core.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace hpclab {
namespace cli {

// One option of an App, refined as it is declared (each call returns the
// option, so they chain). The App owns it.
class Option {
public:
    // "[default: X]" in --help, X being the target's value when declared.
    Option& show_default();
    // The value must be one of NAMES (CLI11's IsMember).
    Option& one_of(const std::vector<std::string>& names);
    // The value must lie in [LO, HI] (CLI11's Range; whole numbers, so that
    // --help and the error print them as such).
    Option& in_range(long long lo, long long hi);
    Option& non_negative();
    Option& positive();
    // A list option whose values may also come as one word: "--bs 1,2,4".
    Option& split_on(char delimiter);
    // A check of one's own: WHY_NOT returns "" for a good value, else the
    // reason; TYPE_NAME names the value in --help ("BLOCK").
    Option& check(const std::function<std::string(const std::string& value)>& why_not, const std::string& type_name);

private:
    friend class App;
    explicit Option(CLI::Option* engine) : engine_(engine) {}
    CLI::Option* engine_;
};

class App {
public:
    App(const std::string& description, const std::string& name);
    ~App();
    App(App&&) noexcept;
    App& operator=(App&&) noexcept;

    // An option with a value, parsed into TARGET. T is one of int, long,
    // long long, unsigned, unsigned long, unsigned long long, float, double,
    // std::string, or a std::vector of int, double or std::string (cli.cpp
    // instantiates those; another is a link error).
    template <typename T>
    Option option(const std::string& name, T& target, const std::string& description);
    // A flag: TARGET becomes true ("!--no-x": false).
    Option flag(const std::string& name, bool& target, const std::string& description);
    // A count through parse_count (1e6, 2^20); a value below MIN is a usage
    // error naming the option ("--n: must be at least 1, got 0").
    Option count(const std::string& name, std::size_t& target, const std::string& description, std::size_t min = 0);
    // The same, for a list of counts ("--sizes 1e5 1e6 1e7").
    Option counts(const std::string& name, std::vector<std::size_t>& target, const std::string& description,
                  std::size_t min = 0);
    // --json, --seed, --reps, --warmup and --serve (CommonOptions).
    void common(CommonOptions& options);

    // Parse; returns -1 when the program should go on, else the exit code to
    // return now (0 after --help, 2 after a usage error, which is printed as
    // one line: "<program>: error: <reason> (see --help)"). QUIET: print
    // nothing (under MPI only rank 0 talks; every rank gets the same code).
    int parse(int argc, char** argv, bool quiet = false);
    // Whether NAME was given on the command line (after parse).
    bool given(const std::string& name) const;
    const std::string& name() const;

private:
    std::unique_ptr<CLI::App> engine_;
};

#ifdef HPCLAB_LAB
// The driver's command line, named after its lab.
inline App app(const std::string& description) { return App(description, lab_name()); }

// The whole main() of a driver without MPI, so that every driver parses,
// checks and fails the same way: `declare(app, options)` adds the lab's
// options (Options holds a CommonOptions `common`, declared after them),
// the parse ends --help and usage errors with their exit code, and
// `run(options)` does the work. What either throws becomes run_main's one
// line and exit code. An MPI driver uses mpi::run_main instead.
template <typename Options, typename Declare, typename Run>
int run_driver(int argc, char** argv, const std::string& description, Declare declare, Run run) {
    return run_main([&] {
        Options options;
        App parser = app(description);
        declare(parser, options);
        parser.common(options.common);
        const int code = parser.parse(argc, argv);
        return code >= 0 ? code : run(static_cast<const Options&>(options));
    });
}
#endif

}  // namespace cli
}  // namespace hpclab
