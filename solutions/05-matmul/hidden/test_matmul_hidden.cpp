// Lab 05 hidden tests (compiled only by the grader): sizes around the tile
// edges, misaligned arrays for the vector path, other seeds, larger CPU runs.
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "hpclab/gtest_gpu.hpp"
#include "hpclab/judged.hpp"
#include "matmul.hpp"
#include "matmul_harness.hpp"
#include "tests/matmul_test_util.hpp"

using lab05::Kernel;
using namespace lab05_test;

class Hidden : public ::testing::TestWithParam<Kernel> {};

TEST_P(Hidden, SizesAroundTileEdges) {
    HPCLAB_REQUIRE_GPU();
    const int shapes[][3] = {{1, 1000, 1},   {127, 129, 128}, {128, 128, 128}, {129, 4, 127},
                             {257, 12, 260}, {16, 1, 16},     {31, 33, 32},    {1, 7, 513}};
    for (const auto& s : shapes) {
        expect_exact<float>(GetParam(), s[0], s[1], s[2], 100 + s[0]);
        if (HasFatalFailure()) return;
    }
    expect_exact<double>(GetParam(), 129, 132, 260, 99);
}

// Sizes that allow vector loads (m, p multiples of 4) but arrays that start
// one element past an aligned address: a vector path must not be taken.
namespace {

void expect_misaligned_exact(Kernel k) {
    const int n = 70, m = 64, p = 136;
    const auto a = lab05::small_integer_matrix<float>(n, m, 5), b = lab05::small_integer_matrix<float>(m, p, 6);
    const auto c = HPCLAB_CALL([&] {
        hpclab::cuda::DeviceBuffer<float> dA(a.size() + 1), dB(b.size() + 1), dC(static_cast<std::size_t>(n) * p + 1);
        HPCLAB_CUDA_CHECK(cudaMemcpy(dA.get() + 1, a.data(), a.size() * 4, cudaMemcpyHostToDevice));
        HPCLAB_CUDA_CHECK(cudaMemcpy(dB.get() + 1, b.data(), b.size() * 4, cudaMemcpyHostToDevice));
        lab05::gpu_matmul<float>(k, n, m, p, dA.get() + 1, dB.get() + 1, dC.get() + 1);
        HPCLAB_CUDA_CHECK(cudaDeviceSynchronize());
        std::vector<float> out(static_cast<std::size_t>(n) * p);
        HPCLAB_CUDA_CHECK(cudaMemcpy(out.data(), dC.get() + 1, out.size() * 4, cudaMemcpyDeviceToHost));
        return out;
    });
    ASSERT_EQ(c.size(), static_cast<std::size_t>(n) * p);
    const auto ref = lab05::reference_matmul(n, m, p, a.data(), b.data());
    for (std::size_t i = 0; i < c.size(); ++i) ASSERT_EQ(c[i], ref[i]) << "C[" << i / p << "][" << i % p << "]";
}

}  // namespace

TEST_P(Hidden, MisalignedArrays) {
    HPCLAB_REQUIRE_GPU();
    expect_misaligned_exact(GetParam());
}

TEST_P(Hidden, OtherSeedsAndShapes) {
    HPCLAB_REQUIRE_GPU();
    expect_normwise<float>(GetParam(), 777, 555, 333, 2024);
    expect_normwise<double>(GetParam(), 333, 1024, 555, 2025);
    expect_normwise<float>(GetParam(), 64, 4096, 64, 2026);  // long k: accumulation order
}

INSTANTIATE_TEST_SUITE_P(Lab05, Hidden, ::testing::ValuesIn(lab05::kEveryGpuKernels), param_name);

// Stage 6d around its 128 x 256 x 32 tile, on the TMA path (m, p multiples of 4).
TEST(HiddenFinalTma, SizesAroundTileEdges) {
    HPCLAB_REQUIRE_GPU();
    LAB05_REQUIRE_FINAL_TMA();
    const int shapes[][3] = {{127, 28, 252}, {128, 4, 256}, {129, 36, 260}, {255, 68, 516}, {1, 1028, 4}, {513, 32, 8}};
    for (const auto& s : shapes) {
        expect_exact<float>(Kernel::FinalTma, s[0], s[1], s[2], 400 + s[0]);
        if (HasFatalFailure()) return;
    }
}

TEST(HiddenFinalTma, MisalignedArrays) {
    HPCLAB_REQUIRE_GPU();
    LAB05_REQUIRE_FINAL_TMA();
    expect_misaligned_exact(Kernel::FinalTma);
}

// Other seeds, and a long k (the accumulation over 128 k steps).
TEST(HiddenFinalTma, OtherSeedsAndShapes) {
    HPCLAB_REQUIRE_GPU();
    LAB05_REQUIRE_FINAL_TMA();
    expect_normwise<float>(Kernel::FinalTma, 777, 556, 332, 2027);
    expect_normwise<float>(Kernel::FinalTma, 64, 4096, 64, 2028);
}

// Each loop order gets matrices of its own (small integers: both products
// are exact), so that neither can answer from the other's result.
TEST(HiddenCpu, LoopOrdersAgreeAndMatchReference) {
    const int n = 120, m = 250, p = 90;
    const auto a1 = lab05::small_integer_matrix<double>(n, m, 8), b1 = lab05::small_integer_matrix<double>(m, p, 9);
    const auto a2 = lab05::small_integer_matrix<double>(n, m, 10), b2 = lab05::small_integer_matrix<double>(m, p, 11);
    const auto ref1 = lab05::reference_matmul(n, m, p, a1.data(), b1.data());
    const auto ref2 = lab05::reference_matmul(n, m, p, a2.data(), b2.data());
    std::vector<double> c1(static_cast<std::size_t>(n) * p, -1), c2(c1.size(), -1);
    HPCLAB_CALL([&] { lab05::cpu_matmul_ijk(n, m, p, a1.data(), b1.data(), c1.data()); }, c1);
    HPCLAB_CALL([&] { lab05::cpu_matmul_ikj(n, m, p, a2.data(), b2.data(), c2.data()); }, c2);
    EXPECT_EQ(c1, ref1);
    EXPECT_EQ(c2, ref2);
    std::vector<float> one(1, -1);
    const float x = 2, y = 3;
    HPCLAB_CALL([&] { lab05::cpu_matmul_ikj(1, 1, 1, &x, &y, one.data()); }, one);
    EXPECT_EQ(one[0], 6.0f);
}

TEST(HiddenCpu, CgmaOrdering) {
    // More reuse per load as we go: naive < tiled16 < tiled32 < final.
    const double one_thread = HPCLAB_VALUE(lab05::cgma(Kernel::OneThreadPerBlock));
    const double naive = HPCLAB_VALUE(lab05::cgma(Kernel::Naive2D));
    const double tiled16 = HPCLAB_VALUE(lab05::cgma(Kernel::Tiled16));
    const double tiled32 = HPCLAB_VALUE(lab05::cgma(Kernel::Tiled32));
    const double final_kernel = HPCLAB_VALUE(lab05::cgma(Kernel::Final));
    EXPECT_LT(one_thread, naive);
    EXPECT_LT(naive, tiled16);
    EXPECT_LT(tiled16, tiled32);
    EXPECT_LT(tiled32, final_kernel);
}
