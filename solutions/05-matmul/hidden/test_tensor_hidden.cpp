// Lab 05 hidden tests, stage 6 (compiled only by the grader): other sizes
// around the tiles, a long k, other seeds.
#include <gtest/gtest.h>

#include <vector>

#include "hpclab/gtest_gpu.hpp"
#include "tensor.hpp"
#include "tensor_harness.hpp"
#include "tests/tensor_test_util.hpp"

using lab05::TcKernel;
using namespace lab05_test;

class TcHidden : public ::testing::TestWithParam<TcKernel> {};

TEST_P(TcHidden, SizesAroundTileEdges) {
    HPCLAB_REQUIRE_GPU();
    LAB05_REQUIRE_TC_KERNEL(GetParam());
    const int shapes[][3] = {{8, 1000, 8}, {120, 136, 128}, {128, 128, 128}, {136, 8, 264}, {64, 32, 64}, {200, 96, 8}};
    for (const auto& s : shapes) {
        expect_tc_exact(GetParam(), s[0], s[1], s[2], 900 + s[0]);
        if (HasFatalFailure()) return;
    }
}

TEST_P(TcHidden, OtherSeedsAndShapes) {
    HPCLAB_REQUIRE_GPU();
    LAB05_REQUIRE_TC_KERNEL(GetParam());
    expect_tc_accuracy(GetParam(), 776, 552, 336, 2027, all_rows(776));
    expect_tc_accuracy(GetParam(), 64, 4096, 72, 2028, all_rows(64));  // long k: the FP32 sums
}

INSTANTIATE_TEST_SUITE_P(Lab05, TcHidden, ::testing::ValuesIn(lab05::kAllTcKernels), tc_param_name);
