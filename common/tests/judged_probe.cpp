// Tests of the judged-call probe. judged_roundtrip.py runs them directly,
// records them, replays them against good, wrong and hostile record files.
#include <gtest/gtest.h>

#include <numeric>
#include <stdexcept>
#include <vector>

#include "hpclab/data.hpp"
#include "hpclab/not_implemented.hpp"
#include "judged_probe.hpp"

TEST(Probe, Value) {
    const int x = static_cast<int>(hpclab::Rng(1).uniform_int(1, 1000));
    EXPECT_EQ(HPCLAB_VALUE(probe::twice(x)), 2 * x);
}

TEST(Probe, VectorOutput) {
    std::vector<double> v(100, -1.0);
    HPCLAB_CALL([&] { probe::fill_squares(v); }, v);
    for (std::size_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], static_cast<double>(i * i)) << i;
}

TEST(Probe, SpanOutput) {
    auto v = hpclab::uniform_doubles(50, 2);
    const auto want = v;
    HPCLAB_CALL([&] { probe::negate(v.data(), v.size()); }, hpclab::judged::span(v.data(), v.size()));
    for (std::size_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], -want[i]) << i;
}

TEST(Probe, Throws) {
    EXPECT_THROW(HPCLAB_VALUE(probe::must_be_positive(-1.0)), std::invalid_argument);
    EXPECT_EQ(HPCLAB_VALUE(probe::must_be_positive(2.5)), 2.5);
}

TEST(Probe, StructResult) {
    const std::vector<double> v = {1, 2, 3.5};
    const auto s = HPCLAB_VALUE(probe::summarize(v));
    EXPECT_EQ(s.count, 3u);
    EXPECT_EQ(s.total, 6.5);
    EXPECT_EQ(s.name, "summary");
}

TEST(Probe, NotImplementedKeepsItsMessage) {
    try {
        HPCLAB_CALL([] { probe::todo(); });
        FAIL() << "no exception";
    } catch (const hpclab::NotImplemented& e) {
        EXPECT_STREQ(e.what(), "not implemented: todo (look for TODO(student))");
    }
}

namespace {
bool is_probe_error(const std::exception& e) { return dynamic_cast<const probe::ProbeError*>(&e) != nullptr; }
void throw_probe_error(const std::string& m) { throw probe::ProbeError(m); }
const bool registered =
    hpclab::judged::register_kind({hpclab::judged::ExceptionKind::cuda_error, is_probe_error, throw_probe_error});
}  // namespace

TEST(Probe, ExtraExceptionKindKeepsItsClass) {
    EXPECT_THROW(HPCLAB_CALL([] { probe::fail_with_probe_error(); }), probe::ProbeError);
}

TEST(Probe, ManyCallsInALoop) {
    int sum = 0;
    for (int i = 0; i < 1000; ++i) sum += HPCLAB_VALUE(probe::twice(i));
    EXPECT_EQ(sum, 999 * 1000);
}

// Two calls, so that work can be handed to a thread the first call left
// parked (PROBE_LATE=pool_task). judged_roundtrip.py records it with each
// PROBE_LATE mode.
TEST(Probe, LateWork) {
    for (int round = 0; round < 2; ++round) {
        std::vector<double> v(100, -1.0);
        HPCLAB_CALL([&] { probe::fill_squares_leaving_work(v); }, v);
        for (std::size_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], static_cast<double>(i * i)) << i;
    }
}
