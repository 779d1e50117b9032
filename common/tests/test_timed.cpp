// The driver's side of the timing protocol (hpclab/timed.hpp): serve()
// against a grader played by a thread through real FIFOs, and the digests.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "hpclab/timed.hpp"

namespace {

class Fifos : public ::testing::Test {
protected:
    void SetUp() override {
        char tmpl[] = "/tmp/timed-XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        dir = tmpl;
        ASSERT_EQ(mkfifo((dir + "/go").c_str(), 0600), 0);
        ASSERT_EQ(mkfifo((dir + "/done").c_str(), 0600), 0);
    }
    void TearDown() override {
        unlink((dir + "/go").c_str());
        unlink((dir + "/done").c_str());
        rmdir(dir.c_str());
    }
    // The grader: sends the commands, returns every line it got back (it
    // waits for a reply to each well-formed "go" command).
    std::vector<std::string> grader(const std::vector<std::string>& commands) {
        const int go = open((dir + "/go").c_str(), O_RDWR);
        const int done = open((dir + "/done").c_str(), O_RDWR);
        std::vector<std::string> lines;
        auto read_line = [&] {
            std::string line;
            char c;
            while (read(done, &c, 1) == 1 && c != '\n') line += c;
            return line;
        };
        lines.push_back(read_line());  // ready
        for (const auto& cmd : commands) {
            const std::string text = cmd + "\n";
            EXPECT_EQ(write(go, text.data(), text.size()), static_cast<ssize_t>(text.size()));
            unsigned long long k, seed;
            if (std::sscanf(cmd.c_str(), "go %llu %llx", &k, &seed) == 2) lines.push_back(read_line());
        }
        close(go);
        close(done);
        return lines;
    }
    std::string dir;
};

TEST_F(Fifos, ServesEachRepetitionOnItsOwnSeed) {
    std::uint64_t seen = 0, input = 0;
    std::vector<std::uint64_t> seeds;
    hpclab::timed::Benchmark b;
    b.prepare = [&](std::uint64_t seed) {
        input = seed;
        seeds.push_back(seed);
    };
    b.work = [&] { seen = input * 3; };
    b.summarize = [&] { return std::vector<double>{static_cast<double>(seen % 1000), 0.5}; };
    std::vector<std::string> lines;
    std::thread g([&] { lines = grader({"go 0 a", "go 1 1f", "end"}); });
    EXPECT_EQ(hpclab::timed::serve(dir, b), 0);
    g.join();
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0], "ready");
    EXPECT_EQ(lines[1], "done 0 0x1.ep+4 0x1p-1");   // 30, 0.5
    EXPECT_EQ(lines[2], "done 1 0x1.74p+6 0x1p-1");  // 93
    EXPECT_EQ(seeds, (std::vector<std::uint64_t>{10, 31}));
}

TEST_F(Fifos, AnErrorIsReportedToTheGraderAndThrown) {
    hpclab::timed::Benchmark b;
    b.prepare = [](std::uint64_t) {};
    b.work = [] { throw std::runtime_error("not implemented: merge_sort"); };
    b.summarize = [] { return std::vector<double>{}; };
    std::vector<std::string> lines;
    std::thread g([&] { lines = grader({"go 0 1"}); });
    EXPECT_THROW(hpclab::timed::serve(dir, b), std::runtime_error);
    g.join();
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[1], "error 0 not implemented: merge_sort");
}

TEST_F(Fifos, AnUnknownCommandIsAnError) {
    hpclab::timed::Benchmark b;
    b.prepare = [](std::uint64_t) {};
    b.work = [] {};
    b.summarize = [] { return std::vector<double>{}; };
    std::thread g([&] { grader({"go zero 1"}); });
    EXPECT_THROW(hpclab::timed::serve(dir, b), std::runtime_error);
    g.join();
}

TEST(Timed, ServeWithoutItsFifosSaysWhy) {
    hpclab::timed::Benchmark b;
    try {
        hpclab::timed::serve("/nonexistent-dir", b);
        FAIL();
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("cannot open /nonexistent-dir/go"), std::string::npos);
    }
}

TEST(Timed, ExactDigestSeesEveryBitAndTheOrder) {
    std::vector<double> v = {1.0, 2.0, 3.0, -0.0};
    const auto d = hpclab::timed::exact_digest(v);
    ASSERT_EQ(d.size(), 2u);
    EXPECT_EQ(d, hpclab::timed::exact_digest(v));
    auto w = v;
    std::swap(w[0], w[1]);
    EXPECT_NE(d, hpclab::timed::exact_digest(w));
    w = v;
    w[3] = 0.0;  // -0.0 and +0.0 differ in one bit
    EXPECT_NE(d, hpclab::timed::exact_digest(w));
    EXPECT_NE(d, hpclab::timed::exact_digest(v.data(), 3 * sizeof(double)));
    for (double x : d) EXPECT_EQ(x, static_cast<double>(static_cast<std::uint32_t>(x)));
}

TEST(Timed, SignedSumsDependOnEveryElementAndItsPlace) {
    std::vector<double> v(1000);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i % 7);
    const auto s = hpclab::timed::signed_sums(v.data(), v.size(), 42, 3);
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(s, hpclab::timed::signed_sums(v.data(), v.size(), 42, 3));
    EXPECT_NE(s, hpclab::timed::signed_sums(v.data(), v.size(), 43, 3));
    auto w = v;
    std::swap(w[1], w[2]);  // values 1 and 2 swapped: a plain sum would not see it
    const auto t = hpclab::timed::signed_sums(w.data(), w.size(), 42, 3);
    EXPECT_TRUE(s[0] != t[0] || s[1] != t[1] || s[2] != t[2]);
    std::vector<float> f(v.begin(), v.end());
    EXPECT_EQ(hpclab::timed::signed_sums(f.data(), f.size(), 42, 3), s);
}

}  // namespace
