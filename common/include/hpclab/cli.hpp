// A thin layer over CLI11 so that every driver parses, validates and fails
// the same way: one clear line on stderr and a non-zero exit, never a crash.
// The parts that need no CLI11 (errors, CommonOptions, run_main) are in
// hpclab/cli_core.hpp.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>
#include <vector>

#include "hpclab/cli_core.hpp"

namespace hpclab {
namespace cli {

void add_common(CLI::App& app, CommonOptions& options);

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

#ifdef HPCLAB_LAB
// The driver's command line, named after its lab.
inline CLI::App app(const std::string& description) { return CLI::App(description, lab_name()); }
#endif

}  // namespace cli
}  // namespace hpclab
