// Lab LABNUM visible tests: the launch geometry (host code: these run on any
// machine) and the kernel against the host (these skip without a GPU, and
// the grader reports "needs a GPU"). Every call into student code is a
// judged call (HPCLAB_CALL; device outputs through judged_cuda.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <vector>

#include "hpclab/check.hpp"
#include "hpclab/cuda.hpp"
#include "hpclab/data.hpp"
#include "hpclab/gtest_gpu.hpp"
#include "hpclab/judged.hpp"
#include "hpclab/judged_cuda.hpp"
#include "saxpy.hpp"

namespace {

TEST(Grid, BlocksCoverEveryElement) {
    for (unsigned block : {32u, 128u, 256u}) {
        for (std::size_t n : {1, 2, 31, 32, 33, 255, 256, 257, 100003}) {
            const std::size_t b = HPCLAB_VALUE(LABNS::blocks_for(n, block));
            EXPECT_GE(b * block, n) << "n " << n << ", block " << block << ": some elements have no thread";
            EXPECT_LT((b - 1) * block, n) << "n " << n << ", block " << block << ": a block is wholly idle";
        }
    }
}

TEST(Grid, NoBlocksForNoElements) { EXPECT_EQ(HPCLAB_VALUE(LABNS::blocks_for(0, 256)), 0u); }

// y = a x + y on the GPU for n elements of a buffer of n + pad: the n must
// match the host's a * x + y within 1e-6 (a rounding: the GPU may fuse it into
// one FMA), the pad must be left as it was.
void check_saxpy(std::size_t n, std::uint64_t seed, unsigned block) {
    const std::size_t pad = 64;
    const float a = 1.5f;
    const auto x = hpclab::uniform_floats(n + pad, seed, -1.0f, 1.0f);
    const auto y0 = hpclab::uniform_floats(n + pad, seed + 1, -1.0f, 1.0f);
    hpclab::cuda::DeviceBuffer<float> dx(n + pad), dy(n + pad);
    dx.copy_from_host(x.data(), x.size());
    dy.copy_from_host(y0.data(), y0.size());
    HPCLAB_CALL([&] { LABNS::saxpy(a, dx.get(), dy.get(), n, block); }, dy);
    std::vector<float> got(n + pad), want = y0;
    dy.copy_to_host(got.data(), got.size());
    for (std::size_t i = 0; i < n; ++i) want[i] = a * x[i] + y0[i];
    const auto cmp = hpclab::compare_arrays(got, want, hpclab::Tolerance::absolute(1e-6));
    EXPECT_TRUE(cmp.ok()) << "n " << n << ", block " << block << ": " << cmp.describe("y");
}

TEST(Saxpy, MatchesHost) {
    HPCLAB_REQUIRE_GPU();
    check_saxpy(1 << 20, 1, 256);
}

TEST(Saxpy, OddSizesTouchNothingBeyondN) {
    HPCLAB_REQUIRE_GPU();
    for (std::size_t n : {1, 255, 257, 100003}) check_saxpy(n, 2 + n, 128);
}

}  // namespace
