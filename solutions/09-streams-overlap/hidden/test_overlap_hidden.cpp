// Lab 09 hidden tests: sizes, seeds and chunkings the visible tests do not
// use. On the CPU: equal chunks of sizes near powers of two, geometric
// chunks with a ratio just above 1 and a large first chunk, classification
// of random synthetic tasks against the rule stated in overlap.hpp, and a
// fit through noisy points. On the GPU: a geometric chunking over five
// streams at 2^20 + 3 elements, one device with a single chunk per part,
// and zero copy on a size below the gather's stride.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "hpclab/data.hpp"
#include "hpclab/gtest_gpu.hpp"
#include "hpclab/judged.hpp"
#include "overlap.hpp"
#include "pipeline.hpp"
#include "tests/overlap_judged.hpp"

namespace {

using lab09::Chunk;
namespace t = lab09::testing;

TEST(HiddenCpu, EqualChunksNearPowersOfTwo) {
    for (std::size_t n : {std::size_t(1) << 16, (std::size_t(1) << 16) - 1, (std::size_t(1) << 16) + 1}) {
        for (std::size_t count : {std::size_t(3), std::size_t(1024), n}) {
            const std::vector<Chunk> c = HPCLAB_VALUE(lab09::equal_chunks(n, count));
            std::string why;
            ASSERT_EQ(c.size(), count);
            EXPECT_TRUE(lab09::covers_exactly(c, n, &why)) << why;
            for (std::size_t i = 0; i < count; ++i) EXPECT_EQ(c[i].size, n / count + (i < n % count ? 1 : 0));
        }
    }
}

TEST(HiddenCpu, GeometricChunksWithASmallRatio) {
    const std::size_t n = 777777, first = 5000;
    const double ratio = 1.07;
    const std::vector<Chunk> c = HPCLAB_VALUE(lab09::geometric_chunks(n, first, ratio));
    std::string why;
    ASSERT_FALSE(c.empty());
    EXPECT_TRUE(lab09::covers_exactly(c, n, &why)) << why;
    for (std::size_t i = 0; i + 1 < c.size(); ++i)
        EXPECT_EQ(double(c[i].size), double(std::llround(first * std::pow(ratio, double(i))))) << "chunk " << i;
}

TEST(HiddenCpu, RandomTasksClassifiedByTheStatedRule) {
    hpclab::Rng rng(931);
    for (int k = 0; k < 200; ++k) {
        const double s = rng.uniform(0, 10), kern = rng.uniform(0, 20), r = rng.uniform(0, 10);
        const lab09::Classification c = HPCLAB_VALUE(lab09::classify(s, kern, r));
        EXPECT_EQ(c.bound, kern >= s + r ? lab09::Bound::kernel : lab09::Bound::transfer);
        const lab09::Heavy h = r < lab09::kLightShare * (s + r)   ? lab09::Heavy::send
                               : s < lab09::kLightShare * (s + r) ? lab09::Heavy::receive
                                                                  : lab09::Heavy::general;
        EXPECT_EQ(c.heavy, h) << s << " " << kern << " " << r;
    }
}

TEST(HiddenCpu, FitThroughNoisyPoints) {
    hpclab::Rng rng(932);
    const double latency = 9e-6, bandwidth = 2.5e10;
    std::vector<double> bytes, seconds;
    for (double b = 8192; b <= double(1 << 28); b *= 2) {
        for (int rep = 0; rep < 3; ++rep) {
            bytes.push_back(b);
            seconds.push_back((latency + b / bandwidth) * (1 + rng.uniform(-1e-3, 1e-3)));
        }
    }
    // The least-squares solution, from the normal equations in long double.
    long double sx = 0, sy = 0, sxx = 0, sxy = 0;
    const long double n = bytes.size();
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        sx += bytes[i], sy += seconds[i], sxx += (long double)bytes[i] * bytes[i];
        sxy += (long double)bytes[i] * seconds[i];
    }
    const long double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx), icept = (sy - slope * sx) / n;
    const lab09::LinkFit f = HPCLAB_VALUE(lab09::fit_latency_bandwidth(bytes, seconds));
    EXPECT_NEAR(f.latency_s, double(icept), 1e-9);
    EXPECT_NEAR(f.bandwidth_Bps * double(slope), 1.0, 1e-9);
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(HiddenGpu, GeometricChunkingOverFiveStreams) {
    HPCLAB_REQUIRE_GPU();
    const std::size_t n = (std::size_t(1) << 20) + 3;
    const std::vector<float> in = t::logistic_input(n, 933);
    std::vector<Chunk> chunks;  // 1000, 2000, 4000, ... then the rest
    for (std::size_t off = 0, size = 1000; off < n; off += size, size *= 2)
        chunks.push_back({off, std::min(size, n - off)});
    EXPECT_TRUE(same_bits(t::pipelined(in, 11, chunks, 5), t::logistic_expected(in, 11)));
}

TEST(HiddenGpu, OneDeviceOneChunkAndZeroCopyBelowTheStride) {
    HPCLAB_REQUIRE_GPU();
    const std::vector<float> in = t::logistic_input(4097, 934);
    EXPECT_TRUE(same_bits(t::multi_gpu(in, 4, 1, 1, 2), t::logistic_expected(in, 4)));
    EXPECT_TRUE(same_bits(t::mapped(in, 3), t::gather_expected(in, 3)));
}

}  // namespace
