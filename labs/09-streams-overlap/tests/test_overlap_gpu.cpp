// Lab 09 visible tests on the GPU: the serial run, pipelines over streams
// with chunkings the test draws (unequal, one element, one chunk, none),
// every GPU of the host, and zero copy, each against the host's result bit
// for bit (the kernels round every operation explicitly: kernels.cu).
// Outputs are NaN until written. Without a GPU these tests skip.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "hpclab/data.hpp"
#include "hpclab/gtest_gpu.hpp"
#include "overlap_judged.hpp"
#include "pipeline.hpp"

namespace {

using lab09::Chunk;
namespace t = lab09::testing;

// `count` chunks of [0, n) with cut points drawn from the seed: sizes as
// unequal as chance makes them (count <= n).
std::vector<Chunk> random_chunks(std::size_t n, std::size_t count, std::uint64_t seed) {
    hpclab::Rng rng(seed);
    std::vector<std::size_t> cuts = {0, n};
    while (cuts.size() < count + 1) {
        const auto c = static_cast<std::size_t>(rng.uniform_int(1, static_cast<std::int64_t>(n) - 1));
        bool fresh = true;
        for (std::size_t x : cuts) fresh = fresh && x != c;
        if (fresh) cuts.push_back(c);
    }
    std::sort(cuts.begin(), cuts.end());
    std::vector<Chunk> chunks;
    for (std::size_t i = 0; i + 1 < cuts.size(); ++i) chunks.push_back({cuts[i], cuts[i + 1] - cuts[i]});
    return chunks;
}

void expect_bitwise(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    int reported = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
        // Compared as bits: NaN (an element never written) fails too.
        if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0 && reported++ < 5)
            ADD_FAILURE() << what << ": element " << i << " of " << want.size() << " is " << got[i] << ", not "
                          << want[i];
    }
}

TEST(Serial, EqualsTheHostBitForBit) {
    HPCLAB_REQUIRE_GPU();
    const std::vector<float> in = t::logistic_input(100003, 911);
    for (int iterations : {1, 37}) {
        expect_bitwise(t::serial(in, iterations), t::logistic_expected(in, iterations), "serial");
    }
}

TEST(Pipeline, UnequalChunksOverStreamsEqualTheHost) {
    HPCLAB_REQUIRE_GPU();
    const std::vector<float> in = t::logistic_input(100003, 912);
    const std::vector<float> want = t::logistic_expected(in, 23);
    expect_bitwise(t::pipelined(in, 23, random_chunks(in.size(), 7, 913), 4), want, "7 chunks, 4 streams");
    expect_bitwise(t::pipelined(in, 23, random_chunks(in.size(), 64, 914), 3), want, "64 chunks, 3 streams");
    expect_bitwise(t::pipelined(in, 23, random_chunks(in.size(), 2, 915), 8), want, "2 chunks, 8 streams");
}

TEST(Pipeline, OneChunkOneElementChunksAndNoData) {
    HPCLAB_REQUIRE_GPU();
    const std::vector<float> in = t::logistic_input(257, 916);
    expect_bitwise(t::pipelined(in, 5, {{0, in.size()}}, 1), t::logistic_expected(in, 5), "one chunk");
    std::vector<Chunk> singles;
    for (std::size_t i = 0; i < in.size(); ++i) singles.push_back({i, 1});
    expect_bitwise(t::pipelined(in, 5, singles, lab09::kMaxStreams), t::logistic_expected(in, 5),
                   "257 chunks of one element");
    const std::vector<float> one = t::logistic_input(1, 917);
    expect_bitwise(t::pipelined(one, 2, {{0, 1}}, 2), t::logistic_expected(one, 2), "one element");
    EXPECT_TRUE(t::pipelined({}, 3, {}, 2).empty());
}

// The harness refuses a chunking that does not cover the data once, before
// any student code runs: no points, since the starter passes it too.
TEST(Pipeline, BadChunkingIsRefused) {
    HPCLAB_REQUIRE_GPU();
    const std::vector<float> in = t::logistic_input(100, 918);
    EXPECT_THROW(t::pipelined(in, 1, {{0, 60}, {50, 50}}, 2), std::invalid_argument);
    EXPECT_THROW(t::pipelined(in, 1, {{0, 60}}, 2), std::invalid_argument);
    EXPECT_THROW(t::pipelined(in, 1, {{0, 100}}, 0), std::invalid_argument);
}

TEST(MultiGpu, EveryDeviceTogetherEqualsTheHost) {
    HPCLAB_REQUIRE_GPU();
    const std::vector<float> in = t::logistic_input(200001, 919);
    const std::vector<float> want = t::logistic_expected(in, 9);
    const int devices = lab09::device_count();
    expect_bitwise(t::multi_gpu(in, 9, devices, 5, 3), want, "every device, 5 chunks each");
    expect_bitwise(t::multi_gpu(in, 9, 1, 1, 1), want, "one device, one chunk");
}

// Refused by the harness (no points): a device that does not exist.
TEST(MultiGpu, MissingDeviceIsRefused) {
    HPCLAB_REQUIRE_GPU();
    const std::vector<float> in = t::logistic_input(100, 920);
    EXPECT_THROW(t::multi_gpu(in, 1, lab09::device_count() + 1, 1, 1), std::invalid_argument);
    EXPECT_THROW(t::multi_gpu(in, 1, 0, 1, 1), std::invalid_argument);
}

TEST(ZeroCopy, MappedGatherEqualsTheHost) {
    HPCLAB_REQUIRE_GPU();
    const std::vector<float> in = t::logistic_input(50021, 921);
    for (int reads : {1, 8}) expect_bitwise(t::mapped(in, reads), t::gather_expected(in, reads), "mapped gather");
    const std::vector<float> tiny = t::logistic_input(3, 922);
    expect_bitwise(t::mapped(tiny, 5), t::gather_expected(tiny, 5), "3 elements read 5 times");
}

}  // namespace
