// Command-line layer over CLI11: counts in friendly notations, shared
// options, and one-line errors.
#include "hpclab/cli.hpp"

#include <CLI/CLI.hpp>

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

Option& Option::show_default() {
    engine_->capture_default_str();
    return *this;
}

Option& Option::one_of(const std::vector<std::string>& names) {
    engine_->check(CLI::IsMember(names));
    return *this;
}

Option& Option::in_range(long long lo, long long hi) {
    engine_->check(CLI::Range(lo, hi));
    return *this;
}

Option& Option::non_negative() {
    engine_->check(CLI::NonNegativeNumber);
    return *this;
}

Option& Option::positive() {
    engine_->check(CLI::PositiveNumber);
    return *this;
}

Option& Option::split_on(char delimiter) {
    engine_->delimiter(delimiter);
    return *this;
}

Option& Option::check(const std::function<std::string(const std::string&)>& why_not, const std::string& type_name) {
    engine_->check(CLI::Validator([why_not](std::string& s) { return why_not(s); }, type_name));
    return *this;
}

App::App(const std::string& description, const std::string& name)
    : engine_(std::make_unique<CLI::App>(description, name)) {}
App::~App() = default;
App::App(App&&) noexcept = default;
App& App::operator=(App&&) noexcept = default;

template <typename T>
Option App::option(const std::string& name, T& target, const std::string& description) {
    return Option(engine_->add_option(name, target, description));
}

// The types drivers parse (cli.hpp lists them).
template Option App::option(const std::string&, int&, const std::string&);
template Option App::option(const std::string&, long&, const std::string&);
template Option App::option(const std::string&, long long&, const std::string&);
template Option App::option(const std::string&, unsigned&, const std::string&);
template Option App::option(const std::string&, unsigned long&, const std::string&);
template Option App::option(const std::string&, unsigned long long&, const std::string&);
template Option App::option(const std::string&, float&, const std::string&);
template Option App::option(const std::string&, double&, const std::string&);
template Option App::option(const std::string&, std::string&, const std::string&);
template Option App::option(const std::string&, std::vector<int>&, const std::string&);
template Option App::option(const std::string&, std::vector<double>&, const std::string&);
template Option App::option(const std::string&, std::vector<std::string>&, const std::string&);

Option App::flag(const std::string& name, bool& target, const std::string& description) {
    return Option(engine_->add_flag(name, target, description));
}

void App::common(CommonOptions& o) {
    flag("--json", o.json, "print one JSON object per measurement instead of a table");
    auto* seed = engine_->add_option_function<std::string>(
        "--seed", [&o](const std::string& s) { o.seed = parse_seed(s); }, "seed of the input data generator");
    seed->default_str(std::to_string(o.seed));
    Option(seed).check(
        [](const std::string& s) -> std::string {
            try {
                parse_seed(s);
                return {};
            } catch (const std::exception& e) {
                return e.what();
            }
        },
        "SEED");
    option("--reps", o.reps, "timed repetitions; the median is reported").in_range(1, 1000000).show_default();
    option("--warmup", o.warmup, "untimed runs before timing").in_range(0, 1000).show_default();
    engine_
        ->add_option("--serve", o.serve,
                     "for the grader: serve timed repetitions of the benchmark through the FIFOs in DIR "
                     "(hpclab/timed.hpp); the grader holds the clock")
        ->type_name("DIR")
        ->check(CLI::ExistingDirectory);
}

namespace {
// Validate at parse time, so the error names the option: a count, and at
// least `min` (a size of 0 usually leaves nothing to time or check).
std::function<std::string(const std::string&)> count_at_least(std::size_t min) {
    return [min](const std::string& s) -> std::string {
        try {
            const std::size_t value = parse_count(s);
            if (value < min) return "must be at least " + std::to_string(min) + ", got " + s;
            return {};
        } catch (const std::exception& e) {
            return e.what();
        }
    };
}
}  // namespace

Option App::count(const std::string& name, std::size_t& target, const std::string& description, std::size_t min) {
    auto* opt = engine_->add_option_function<std::string>(
        name, [&target](const std::string& s) { target = parse_count(s); }, description);
    opt->default_str(std::to_string(target));
    return Option(opt).check(count_at_least(min), "COUNT");
}

Option App::counts(const std::string& name, std::vector<std::size_t>& target, const std::string& description,
                   std::size_t min) {
    auto* opt = engine_->add_option_function<std::vector<std::string>>(
        name,
        [&target](const std::vector<std::string>& v) {
            target.clear();
            for (const auto& s : v) target.push_back(parse_count(s));
        },
        description);
    return Option(opt).check(count_at_least(min), "COUNT");
}

namespace {
int parse_loudly(CLI::App& app, int argc, char** argv) {
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
}  // namespace

int App::parse(int argc, char** argv, bool quiet) {
    if (!quiet) return parse_loudly(*engine_, argc, argv);
    std::ostringstream sink;
    std::streambuf* out = std::cout.rdbuf(sink.rdbuf());
    std::streambuf* err = std::cerr.rdbuf(sink.rdbuf());
    const int code = parse_loudly(*engine_, argc, argv);
    std::cout.rdbuf(out);
    std::cerr.rdbuf(err);
    return code;
}

bool App::given(const std::string& name) const { return engine_->count(name) > 0; }

const std::string& App::name() const { return engine_->get_name(); }

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
