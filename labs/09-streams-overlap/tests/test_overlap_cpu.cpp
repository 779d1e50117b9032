// Lab 09 visible tests on the CPU: the chunkings, Luo's TPSM formulas
// against cases worked by hand and against the thesis's own tables, and
// the latency/bandwidth fit. Every call into student code goes through
// HPCLAB_CALL / HPCLAB_VALUE (hpclab/judged.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "hpclab/data.hpp"
#include "hpclab/judged.hpp"
#include "overlap.hpp"

namespace {

using lab09::Bound;
using lab09::Chunk;
using lab09::Heavy;

std::vector<Chunk> equal(std::size_t n, std::size_t count) { return HPCLAB_VALUE(lab09::equal_chunks(n, count)); }

void expect_equal_chunking(const std::vector<Chunk>& chunks, std::size_t n, std::size_t count) {
    std::string why;
    ASSERT_EQ(chunks.size(), count) << n << " in " << count;
    EXPECT_TRUE(lab09::covers_exactly(chunks, n, &why)) << n << " in " << count << ": " << why;
    for (std::size_t c = 0; c < chunks.size(); ++c) {
        // The first n % count chunks hold one more element.
        EXPECT_EQ(chunks[c].size, n / count + (c < n % count ? 1 : 0)) << n << " in " << count << ", chunk " << c;
    }
}

TEST(EqualChunks, CoverOddSizesAndDifferByAtMostOne) {
    hpclab::Rng rng(901);
    std::vector<std::pair<std::size_t, std::size_t>> cases = {{1000003, 7},         {10, 3}, {5, 5}, {17, 1},
                                                              {(1u << 20) + 1, 64}, {1, 1}};
    for (int k = 0; k < 5; ++k) {
        const auto n = static_cast<std::size_t>(rng.uniform_int(1, 1 << 22));
        cases.push_back({n, static_cast<std::size_t>(rng.uniform_int(1, std::min<std::int64_t>(n, 10000)))});
    }
    for (const auto& c : cases) expect_equal_chunking(equal(c.first, c.second), c.first, c.second);
}

TEST(EqualChunks, RefuseZeroChunksAndMoreChunksThanElements) {
    EXPECT_THROW(equal(100, 0), std::invalid_argument);
    EXPECT_THROW(equal(5, 6), std::invalid_argument);
    EXPECT_THROW(equal(0, 1), std::invalid_argument);
}

std::vector<Chunk> geometric(std::size_t n, std::size_t first, double ratio) {
    return HPCLAB_VALUE(lab09::geometric_chunks(n, first, ratio));
}

void expect_geometric(std::size_t n, std::size_t first, double ratio) {
    const std::vector<Chunk> chunks = geometric(n, first, ratio);
    std::string why;
    ASSERT_FALSE(chunks.empty());
    EXPECT_TRUE(lab09::covers_exactly(chunks, n, &why)) << why;
    for (std::size_t i = 0; i < chunks.size(); ++i) {
        const double want = first * std::pow(ratio, static_cast<double>(i));
        if (i + 1 < chunks.size()) {
            EXPECT_EQ(static_cast<double>(chunks[i].size), static_cast<double>(std::llround(want)))
                << "n " << n << ", first " << first << ", ratio " << ratio << ": chunk " << i;
        } else {
            EXPECT_LE(static_cast<double>(chunks[i].size), std::max(1.0, std::round(want)))
                << "the last chunk holds what is left, no more than its geometric size";
        }
    }
}

TEST(GeometricChunks, FollowTheRatioAndCover) {
    expect_geometric(1000, 10, 2.0);
    expect_geometric(99991, 3, 1.5);
    expect_geometric(1 << 20, 1000, 1.0);
    expect_geometric(12345, 77, 2.718);
    const std::vector<Chunk> one = geometric(50, 64, 3.0);
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one[0].size, 50u);
}

TEST(GeometricChunks, RefuseBadArguments) {
    EXPECT_THROW(geometric(100, 0, 2.0), std::invalid_argument);
    EXPECT_THROW(geometric(0, 1, 2.0), std::invalid_argument);
    EXPECT_THROW(geometric(100, 1, 0.5), std::invalid_argument);
    EXPECT_THROW(geometric(100, 1, std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
    EXPECT_THROW(geometric(100, 1, std::numeric_limits<double>::infinity()), std::invalid_argument);
}

lab09::Classification classify(double s, double k, double r) { return HPCLAB_VALUE(lab09::classify(s, k, r)); }

// Luo's dissertation, Table 4.1 (shares of send, kernel and receive on a
// Tesla C2075) and the type the thesis gives each benchmark.
TEST(Tpsm, ClassifiesTheRowsOfLuosTable41) {
    struct Row {
        const char* name;
        double send, kernel, recv;
        Bound bound;
        Heavy heavy;
    };
    const Row rows[] = {
        {"linear filter", 3.7, 92.1, 4.2, Bound::kernel, Heavy::general},
        {"sepia filter", 14.2, 69.5, 16.3, Bound::kernel, Heavy::general},
        {"black filter", 48.5, 45.3, 6.2, Bound::transfer, Heavy::send},
        {"matrix 358400x512x14", 11.9, 87.7, 0.4, Bound::kernel, Heavy::send},
        {"matrix 16384x4x7186", 0.6, 79.3, 20.1, Bound::kernel, Heavy::receive},
    };
    for (const Row& r : rows) {
        const lab09::Classification c = classify(r.send, r.kernel, r.recv);
        EXPECT_EQ(c.bound, r.bound) << r.name;
        EXPECT_EQ(c.heavy, r.heavy) << r.name;
    }
    // Synthetic tasks given in seconds, on each side of both thresholds.
    EXPECT_EQ(classify(1, 2.0, 1).bound, Bound::kernel);
    EXPECT_EQ(classify(1, 1.99, 1).bound, Bound::transfer);
    EXPECT_EQ(classify(4, 1, 1.01).heavy, Heavy::general);
    EXPECT_EQ(classify(4, 1, 0.99).heavy, Heavy::send);
    EXPECT_EQ(classify(0, 1, 3).heavy, Heavy::receive);
    EXPECT_EQ(classify(0, 1, 0).bound, Bound::kernel);
    EXPECT_THROW(classify(-1, 1, 1), std::invalid_argument);
    EXPECT_THROW(classify(0, 0, 0), std::invalid_argument);
    EXPECT_THROW(classify(1, std::numeric_limits<double>::infinity(), 1), std::invalid_argument);
}

// Rates (any unit): alone 10 out, 8 back; at once 6 out, 5 back.
const lab09::Rates kRates{10, 8, 6, 5};

TEST(Tpsm, BothWaysTimeAndTheTwoChunkFormulasByHand) {
    // 12 out, 5 back: at once for 5/5 = 1 (6 sent), then 6 more alone at 10.
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab09::both_ways_time(12, 5, kRates)), 1.6);
    // 6 out, 10 back: at once for 6/6 = 1 (5 received), then 5 more alone at 8.
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab09::both_ways_time(6, 10, kRates)), 1.625);
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab09::both_ways_time(12, 0, kRates)), 1.2);
    // eq. 4.4: a = S_S T_k / D_s = 10 * 3 / 12.
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab09::geometric_ratio({12, 1, 3}, kRates)), 2.5);
    // eq. 4.53: D_s/S_S + D_r/R_R - H = 1.2 + 1.25 - 2 = 0.45; sqrt(0.9 / 0.001) = 30.
    EXPECT_NEAR(HPCLAB_VALUE(lab09::equal_chunk_count({12, 10, 0}, kRates, 0.001)), 30.0, 1e-9);
    EXPECT_THROW(HPCLAB_VALUE(lab09::equal_chunk_count({12, 10, 0}, kRates, 0)), std::invalid_argument);
}

// Luo's Table 4.2 (dual Tesla C2075, GB/s): both GPUs sending (5.11 each),
// one sending and receiving (2.9, 2.99) while the other sends (2.99), both
// receiving (3.38 each). Mixing the first two gives eq. 4.70's first case,
// the last two its second, with plus signs where the thesis prints minus:
// a time cannot fall as more data is sent.
TEST(Tpsm, TwoStateTimeGivesEq470WithPlusSigns) {
    const lab09::State both_send{5.11 + 5.11, 0}, mixed{2.9 + 2.99, 2.99}, both_recv{0, 3.38 + 3.38};
    auto T = [&](const lab09::State& p, const lab09::State& q, double xs, double xr) {
        return HPCLAB_VALUE(lab09::two_state_time(p, q, xs, xr));
    };
    // X_r / X_s <= 0.5076: T = 0.0978 X_s + 0.1417 X_r (s/GB, to the thesis's 4 digits).
    EXPECT_NEAR(T(both_send, mixed, 1, 0), 0.0978, 5e-5);
    EXPECT_NEAR((T(both_send, mixed, 1, 0.4) - T(both_send, mixed, 1, 0)) / 0.4, 0.1417, 5e-5);
    EXPECT_NEAR(T(both_send, mixed, 3, 0.6), 0.0978 * 3 + 0.1417 * 0.6, 1e-3);
    // Above 0.5076: T = 0.0947 X_s + 0.1479 X_r.
    EXPECT_NEAR(T(mixed, both_recv, 0, 1), 0.1479, 5e-5);
    EXPECT_NEAR((T(mixed, both_recv, 1, 2) - T(mixed, both_recv, 0, 2)), 0.0947, 5e-5);
    // Outside its range a pair of states cannot serve the mix.
    EXPECT_THROW(T(both_send, mixed, 1, 0.8), std::invalid_argument);
    EXPECT_THROW(T(mixed, both_recv, 1, 0.1), std::invalid_argument);
    EXPECT_THROW(T(both_send, both_send, 1, 0), std::invalid_argument);
}

double search(const std::function<double(double)>& W, double b, int steps) {
    return HPCLAB_VALUE(lab09::three_point_search(W, b, steps));
}

TEST(Tpsm, ThreePointSearchAsCorrected) {
    auto around = [](double c) { return [c](double a) { return (a - c) * (a - c); }; };
    // No step: the middle of [max(1, b/2), max(2b, lo + 1)].
    EXPECT_DOUBLE_EQ(search(around(0), 10, 0), 12.5);
    EXPECT_DOUBLE_EQ(search(around(0), 0.5, 0), 1.5);
    // One step toward a minimum at 6: W(5) is least, so hi = 12.5, mid = 8.75.
    EXPECT_DOUBLE_EQ(search(around(6), 10, 1), 8.75);
    // Converges on a parabola's vertex inside the bracket, and stops at the
    // bracket's edge when the vertex is outside.
    EXPECT_NEAR(search(around(13.7), 10, 80), 13.7, 1e-9);
    EXPECT_NEAR(search(around(3), 10, 80), 5.0, 1e-9);
    EXPECT_NEAR(search(around(50), 10, 80), 20.0, 1e-9);
    EXPECT_THROW(search(around(1), 10, -1), std::invalid_argument);
    EXPECT_THROW(search(around(1), 0, 5), std::invalid_argument);
}

lab09::LinkFit fit(const std::vector<double>& b, const std::vector<double>& s) {
    return HPCLAB_VALUE(lab09::fit_latency_bandwidth(b, s));
}

TEST(Fit, RecoversLatencyAndBandwidthOfALine) {
    hpclab::Rng rng(902);
    const double latency = rng.uniform(2e-6, 2e-5), bandwidth = rng.uniform(5e9, 6e10);
    std::vector<double> bytes, seconds;
    for (double b = 4096; b <= double(1 << 30); b *= 2) {
        bytes.push_back(b);
        seconds.push_back(latency + b / bandwidth);
    }
    const lab09::LinkFit f = fit(bytes, seconds);
    EXPECT_NEAR(f.latency_s, latency, 1e-12);
    EXPECT_NEAR(f.bandwidth_Bps / bandwidth, 1.0, 1e-9);
}

TEST(Fit, RefusesWhatCannotBeFitted) {
    EXPECT_THROW(fit({4096}, {1e-5}), std::invalid_argument);
    EXPECT_THROW(fit({4096, 8192}, {1e-5}), std::invalid_argument);
    EXPECT_THROW(fit({4096, 4096, 4096}, {1e-5, 2e-5, 3e-5}), std::invalid_argument);
    EXPECT_THROW(fit({4096, 8192}, {2e-5, 1e-5}), std::domain_error);
}

}  // namespace
