// Statistics, repetition and the two output formats of a measurement.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "hpclab/bench.hpp"

TEST(Summarize, OddAndEvenCounts) {
    auto s = hpclab::summarize({3, 1, 2});
    EXPECT_EQ(s.min, 1);
    EXPECT_EQ(s.median, 2);
    EXPECT_EQ(s.max, 3);
    EXPECT_EQ(s.count, 3u);
    s = hpclab::summarize({4, 1, 3, 2});
    EXPECT_DOUBLE_EQ(s.median, 2.5);
    EXPECT_DOUBLE_EQ(s.mean, 2.5);
}

TEST(Summarize, EmptyIsZero) {
    auto s = hpclab::summarize({});
    EXPECT_EQ(s.count, 0u);
    EXPECT_EQ(s.median, 0);
}

TEST(Repeat, WarmupRunsAreNotCounted) {
    int calls = 0;
    auto s = hpclab::repeat([&] { return double(++calls); }, 2, 3);
    EXPECT_EQ(calls, 5);
    EXPECT_EQ(s.count, 3u);
    EXPECT_EQ(s.min, 3);  // the first two calls (1, 2) were warm-up
    EXPECT_EQ(s.median, 4);
}

TEST(Throughput, Units) {
    EXPECT_DOUBLE_EQ(hpclab::gb_per_s(2e9, 0.5), 4.0);
    EXPECT_DOUBLE_EQ(hpclab::gflop_per_s(1e12, 2.0), 500.0);
    EXPECT_DOUBLE_EQ(hpclab::percent_of(75, 300), 25.0);
    EXPECT_EQ(hpclab::percent_of(1, 0), 0.0);
}

TEST(Measurement, JsonLineHasTheFigures) {
    hpclab::Measurement m;
    m.lab = "00-test";
    m.name = "copy";
    m.n = 1000;
    m.seconds = hpclab::summarize({0.5, 0.5, 0.5});
    m.bytes = 1e9;
    m.ratio = 0.9;
    m.anchor = "memcpy";
    m.extra = {{"blocks", 4}};
    const std::string line = hpclab::json_line(m);
    EXPECT_EQ(line.find('\n'), std::string::npos);
    auto j = nlohmann::json::parse(line);
    EXPECT_EQ(j["name"], "copy");
    EXPECT_DOUBLE_EQ(j["gb_per_s"].get<double>(), 2.0);
    EXPECT_DOUBLE_EQ(j["ratio"].get<double>(), 0.9);
    EXPECT_EQ(j["anchor"], "memcpy");
    EXPECT_EQ(j["blocks"], 4);
    EXPECT_EQ(j["seconds"]["reps"], 3);
}

TEST(Measurement, TableRowNamesItAndHasTheMedian) {
    hpclab::Measurement m;
    m.name = "qsort";
    m.n = 42;
    m.seconds = hpclab::summarize({0.25});
    const std::string row = hpclab::table_row(m);
    EXPECT_NE(row.find("qsort"), std::string::npos);
    EXPECT_NE(row.find("0.250000"), std::string::npos);
    EXPECT_NE(hpclab::table_header().find("median"), std::string::npos);
}

// ---- the drivers' reporter (hpclab/report.hpp) ----

#include <sstream>

#include "hpclab/report.hpp"

TEST(Reporter, JsonOrHumanAndTheLabsName) {
    hpclab::Measurement m;
    m.name = "merge";
    m.n = 10;
    std::ostringstream json_out, human_out, quiet_out;
    hpclab::Reporter json(true, true, "01-sorting", json_out);
    json.header();
    json.note("for people");
    json.emit(m, "merge took no time");
    EXPECT_EQ(json_out.str().find("for people"), std::string::npos);
    EXPECT_NE(json_out.str().find("\"lab\":\"01-sorting\""), std::string::npos) << json_out.str();
    hpclab::Reporter human(false, true, "01-sorting", human_out);
    human.emit(m, "merge took no time");
    EXPECT_EQ(human_out.str(), "merge took no time\n");
    hpclab::Reporter quiet(true, false, "01-sorting", quiet_out);
    quiet.emit(m, "x");
    quiet.row(m);
    EXPECT_EQ(quiet_out.str(), "");
}
