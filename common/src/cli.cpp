// Command-line layer over CLI11: counts in friendly notations, shared
// options, and one-line errors.
#include "hpclab/cli.hpp"

#include <cmath>
#include <exception>
#include <iostream>
#include <limits>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace hpclab {
namespace cli {

namespace {
// Counts beyond 2^60 are certainly mistakes for any lab here, and keeping
// well below 2^64 leaves room for n * sizeof(T) without overflow checks.
constexpr long double kMaxCount = 1152921504606846976.0L;  // 2^60
}  // namespace

std::size_t parse_count(const std::string& text) {
    static const std::regex plain(R"(\s*\+?[0-9]+\s*)");
    static const std::regex scientific(R"(\s*\+?[0-9]+(\.[0-9]*)?[eE]\+?[0-9]+\s*)");
    static const std::regex power(R"(\s*([0-9]+)\^([0-9]+)\s*)");
    std::smatch m;
    long double value;
    if (!text.empty() && text.find('-') != std::string::npos &&
        std::regex_match(text, std::regex(R"(\s*-[0-9.eE^+]+\s*)"))) {
        throw std::invalid_argument("'" + text + "' is negative; a count must be >= 0");
    }
    if (std::regex_match(text, plain) || std::regex_match(text, scientific)) {
        value = std::strtold(text.c_str(), nullptr);
    } else if (std::regex_match(text, m, power)) {
        value = std::pow(std::strtold(m[1].str().c_str(), nullptr), std::strtold(m[2].str().c_str(), nullptr));
    } else {
        throw std::invalid_argument("'" + text + "' is not a count (examples: 1000000, 1e6, 2^20)");
    }
    if (!(value <= kMaxCount)) throw std::invalid_argument("'" + text + "' is too large");
    if (value != std::floor(value)) throw std::invalid_argument("'" + text + "' is not a whole number");
    return static_cast<std::size_t>(value);
}

std::uint64_t parse_seed(const std::string& text) {
    const std::string why = "'" + text + "' is not a seed: a whole number from 0 to 18446744073709551615";
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) throw std::invalid_argument(why);
    std::uint64_t value = 0;
    for (char c : text) {
        const std::uint64_t digit = static_cast<std::uint64_t>(c - '0');
        if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) throw std::invalid_argument(why);
        value = value * 10 + digit;
    }
    return value;
}

void add_common(CLI::App& app, CommonOptions& o) {
    app.add_flag("--json", o.json, "print one JSON object per measurement instead of a table");
    auto* seed = app.add_option_function<std::string>(
        "--seed", [&o](const std::string& s) { o.seed = parse_seed(s); }, "seed of the input data generator");
    seed->default_str(std::to_string(o.seed));
    seed->check(CLI::Validator(
        [](std::string& s) -> std::string {
            try {
                parse_seed(s);
                return {};
            } catch (const std::exception& e) {
                return e.what();
            }
        },
        "SEED"));
    app.add_option("--reps", o.reps, "timed repetitions; the median is reported")
        ->check(CLI::Range(1, 1000000))
        ->capture_default_str();
    app.add_option("--warmup", o.warmup, "untimed runs before timing")
        ->check(CLI::Range(0, 1000))
        ->capture_default_str();
    app.add_option("--serve", o.serve,
                   "for the grader: serve timed repetitions of the benchmark through the FIFOs in DIR "
                   "(hpclab/timed.hpp); the grader holds the clock")
        ->type_name("DIR")
        ->check(CLI::ExistingDirectory);
}

namespace {
// Validate at parse time, so the error names the option: a count, and at
// least `min` (a size of 0 usually leaves nothing to time or check).
CLI::Validator count_at_least(std::size_t min) {
    return CLI::Validator(
        [min](std::string& s) -> std::string {
            try {
                const std::size_t value = parse_count(s);
                if (value < min) return "must be at least " + std::to_string(min) + ", got " + s;
                return {};
            } catch (const std::exception& e) {
                return e.what();
            }
        },
        "COUNT");
}
}  // namespace

CLI::Option* add_count(CLI::App& app, const std::string& name, std::size_t& target, const std::string& description,
                       std::size_t min) {
    auto* opt = app.add_option_function<std::string>(
        name, [&target](const std::string& s) { target = parse_count(s); }, description);
    opt->default_str(std::to_string(target));
    opt->check(count_at_least(min));
    return opt;
}

CLI::Option* add_counts(CLI::App& app, const std::string& name, std::vector<std::size_t>& target,
                        const std::string& description, std::size_t min) {
    auto* opt = app.add_option_function<std::vector<std::string>>(
        name,
        [&target](const std::vector<std::string>& v) {
            target.clear();
            for (const auto& s : v) target.push_back(parse_count(s));
        },
        description);
    opt->check(count_at_least(min));
    return opt;
}

int parse(CLI::App& app, int argc, char** argv) {
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::string what = e.what();
        while (!what.empty() && (what.back() == '\n' || what.back() == ' ')) what.pop_back();
        std::cerr << app.get_name() << ": error: " << what << " (see --help)\n";
        return 2;
    }
    return -1;
}

int parse(CLI::App& app, int argc, char** argv, bool quiet) {
    if (!quiet) return parse(app, argc, argv);
    std::ostringstream sink;
    std::streambuf* out = std::cout.rdbuf(sink.rdbuf());
    std::streambuf* err = std::cerr.rdbuf(sink.rdbuf());
    const int code = parse(app, argc, argv);
    std::cout.rdbuf(out);
    std::cerr.rdbuf(err);
    return code;
}

int run_main(const std::string& program, const std::function<int()>& body) {
    try {
        return body();
    } catch (const Unavailable& e) {
        std::cerr << program << ": error: " << e.what() << "\n";
        return kExitUnavailable;
    } catch (const UsageError& e) {
        std::cerr << program << ": error: " << e.what() << " (see --help)\n";
        return 2;
    } catch (const std::bad_alloc&) {
        std::cerr << program << ": error: out of memory (try a smaller size)\n";
    } catch (const std::exception& e) {
        std::cerr << program << ": error: " << e.what() << "\n";
    } catch (...) {
        std::cerr << program << ": error: unknown exception\n";
    }
    return 1;
}

}  // namespace cli
}  // namespace hpclab
