// Counts in friendly notations, and one-line usage errors with exit code 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "hpclab/cli.hpp"

using hpclab::cli::parse_count;

TEST(ParseCount, AcceptsPlainScientificAndPowers) {
    EXPECT_EQ(parse_count("0"), 0u);
    EXPECT_EQ(parse_count("1000000"), 1000000u);
    EXPECT_EQ(parse_count("1e6"), 1000000u);
    EXPECT_EQ(parse_count("1.5e3"), 1500u);
    EXPECT_EQ(parse_count("2^20"), 1048576u);
}

TEST(ParseCount, RejectsBadInputWithAReason) {
    for (const char* bad : {"-1", "abc", "", "1.5", "1e", "2^", "12abc", "1e30", "-2^3"}) {
        try {
            parse_count(bad);
            ADD_FAILURE() << "accepted '" << bad << "'";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
        }
    }
}

TEST(ParseSeed, WholeNumbersUpTo2To64Less1) {
    EXPECT_EQ(hpclab::cli::parse_seed("0"), 0u);
    EXPECT_EQ(hpclab::cli::parse_seed("20160101"), 20160101u);
    EXPECT_EQ(hpclab::cli::parse_seed("0000000000000000000000042"), 42u);
    EXPECT_EQ(hpclab::cli::parse_seed("18446744073709551615"), 18446744073709551615u);
    for (const char* bad :
         {"-1", "", "1.5", "1e6", "abc", "+3", " 7", "0x10", "18446744073709551616", "99999999999999999999"}) {
        try {
            hpclab::cli::parse_seed(bad);
            ADD_FAILURE() << "accepted '" << bad << "'";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("not a seed"), std::string::npos) << e.what();
        }
    }
}

namespace {
int run_parse(std::vector<std::string> args, std::size_t& n, hpclab::cli::CommonOptions& common) {
    hpclab::cli::App app("test", "prog");
    app.count("--n", n, "size");
    app.common(common);
    std::vector<char*> argv;
    static std::string name = "prog";
    argv.push_back(name.data());
    for (auto& a : args) argv.push_back(a.data());
    return app.parse(static_cast<int>(argv.size()), argv.data());
}
}  // namespace

TEST(Parse, GoodArgumentsContinue) {
    std::size_t n = 5;
    hpclab::cli::CommonOptions common;
    EXPECT_EQ(run_parse({"--n", "2^10", "--json", "--reps", "3"}, n, common), -1);
    EXPECT_EQ(n, 1024u);
    EXPECT_TRUE(common.json);
    EXPECT_EQ(common.reps, 3);
}

TEST(Parse, BadArgumentsGiveExitTwoAndOneLine) {
    std::size_t n = 5;
    hpclab::cli::CommonOptions common;
    testing::internal::CaptureStderr();
    EXPECT_EQ(run_parse({"--n", "-1"}, n, common), 2);
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("prog: error:"), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    testing::internal::CaptureStderr();
    EXPECT_EQ(run_parse({"--reps", "0"}, n, common), 2);
    testing::internal::GetCapturedStderr();
    testing::internal::CaptureStderr();
    EXPECT_EQ(run_parse({"--bogus"}, n, common), 2);
    testing::internal::GetCapturedStderr();
    // A negative seed is refused, not wrapped to 2^64 - 1.
    testing::internal::CaptureStderr();
    EXPECT_EQ(run_parse({"--seed", "-1"}, n, common), 2);
    err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("--seed"), std::string::npos) << err;
    EXPECT_NE(err.find("not a seed"), std::string::npos) << err;
    EXPECT_EQ(run_parse({"--seed", "42"}, n, common), -1);
    EXPECT_EQ(common.seed, 42u);
}

TEST(RunMain, ExceptionsBecomeExitOneWithMessage) {
    testing::internal::CaptureStderr();
    const int code = hpclab::cli::run_main("prog", []() -> int { throw std::runtime_error("boom"); });
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(code, 1);
    EXPECT_EQ(err, "prog: error: boom\n");
}

TEST(RunMain, UnavailableBecomesExit77) {
    testing::internal::CaptureStderr();
    const int code =
        hpclab::cli::run_main("prog", []() -> int { throw hpclab::cli::Unavailable("needs a GPU: none"); });
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(code, hpclab::cli::kExitUnavailable);
    EXPECT_EQ(err, "prog: error: needs a GPU: none\n");
}

TEST(RunMain, UsageErrorBecomesExit2) {
    testing::internal::CaptureStderr();
    const int code =
        hpclab::cli::run_main("prog", []() -> int { throw hpclab::cli::UsageError("give --a or --b, not both"); });
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(code, 2);
    EXPECT_EQ(err, "prog: error: give --a or --b, not both (see --help)\n");
}

TEST(Parse, CountsBelowTheMinimumAreUsageErrors) {
    for (const char* ok : {"1", "7", "1e3"}) {
        std::size_t n = 0;
        std::vector<std::size_t> sizes;
        hpclab::cli::App app("test", "prog");
        app.count("--n", n, "size", 1);
        app.counts("--sizes", sizes, "sizes", 2);
        std::vector<std::string> args = {"prog", "--n", ok, "--sizes", "2", "1e3"};
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        EXPECT_EQ(app.parse(static_cast<int>(argv.size()), argv.data()), -1) << ok;
        EXPECT_EQ(sizes, (std::vector<std::size_t>{2, 1000}));
    }
    for (std::vector<std::string> args :
         {std::vector<std::string>{"prog", "--n", "0"}, std::vector<std::string>{"prog", "--sizes", "5", "1"}}) {
        std::size_t n = 3;
        std::vector<std::size_t> sizes;
        hpclab::cli::App app("test", "prog");
        app.count("--n", n, "size", 1);
        app.counts("--sizes", sizes, "sizes", 2);
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        testing::internal::CaptureStderr();
        EXPECT_EQ(app.parse(static_cast<int>(argv.size()), argv.data()), 2) << args[1];
        const std::string err = testing::internal::GetCapturedStderr();
        EXPECT_NE(err.find("must be at least"), std::string::npos) << err;
        EXPECT_NE(err.find(args[1]), std::string::npos) << err;
    }
}

// What every lab's driver checks used to re-test one by one (--n abc, --n
// -1, --samples lots, --seed -1, ...): a word or a negative number for a
// count, or a bad shared option, is a usage error from the shared parser
// itself, whatever the lab: exit 2 and one line naming the option and the
// value. The drivers' own checks keep only what a lab decides (its bounds,
// its choices, its files).
TEST(Parse, MalformedCountsAndSharedOptionsAreUsageErrorsInEveryDriver) {
    const std::vector<std::vector<std::string>> bad = {{"--n", "-1"},
                                                       {"--n", "-5"},
                                                       {"--n", "abc"},
                                                       {"--n", "lots"},
                                                       {"--n", "many"},
                                                       {"--n", "1e"},
                                                       {"--n", "2^"},
                                                       {"--n", "1.5"},
                                                       {"--sizes", "1e4", "x"},
                                                       {"--sizes", "-1"},
                                                       {"--seed", "-1"},
                                                       {"--seed", "abc"},
                                                       {"--reps", "0"},
                                                       {"--reps", "abc"},
                                                       {"--warmup", "-1"},
                                                       {"--serve", "/nonexistent-hpclab-dir"},
                                                       {"--n"},
                                                       {"--no-such-option"}};
    for (const auto& args : bad) {
        std::size_t n = 5;
        std::vector<std::size_t> sizes;
        hpclab::cli::CommonOptions common;
        hpclab::cli::App app("test", "prog");
        app.count("--n", n, "size", 1);
        app.counts("--sizes", sizes, "sizes", 1);
        app.common(common);
        std::vector<std::string> words = {"prog"};
        words.insert(words.end(), args.begin(), args.end());
        std::vector<char*> argv;
        for (auto& w : words) argv.push_back(w.data());
        testing::internal::CaptureStderr();
        const int code = app.parse(static_cast<int>(argv.size()), argv.data());
        const std::string err = testing::internal::GetCapturedStderr();
        const std::string what = args.size() > 1 ? args[0] + " " + args.back() : args[0];
        EXPECT_EQ(code, 2) << what;
        EXPECT_EQ(err.rfind("prog: error: ", 0), 0u) << what << ": " << err;
        EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << what << ": " << err;
        EXPECT_NE(err.find(args[0]), std::string::npos) << what << ": " << err;
        EXPECT_EQ(n, 5u) << what;  // a rejected value is never stored
    }
}
