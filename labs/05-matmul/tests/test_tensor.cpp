// Lab 05 visible tests, stage 6: the tensor-core kernels exactly on small
// integers, against the FP32 bound of the rounded inputs, and with the error
// the handout derives for BF16 and TF32 inputs; the harness's own model on the CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "hpclab/gtest_gpu.hpp"
#include "matmul_harness.hpp"
#include "tensor.hpp"
#include "tensor_harness.hpp"
#include "tensor_test_util.hpp"

using lab05::TcKernel;
using lab05::TcType;
using namespace lab05_test;

// ---- Harness (0 points: the lab's own tools) -------------------------------------------

TEST(TensorHarness, ShapeChecks) {
    EXPECT_NO_THROW(lab05::validate_tensor_shape(8, 8, 8));
    EXPECT_NO_THROW(lab05::validate_tensor_shape(8200, 1000, 24));
    EXPECT_THROW(lab05::validate_tensor_shape(100, 64, 64), std::invalid_argument);
    EXPECT_THROW(lab05::validate_tensor_shape(64, 12, 64), std::invalid_argument);
    EXPECT_THROW(lab05::validate_tensor_shape(64, 64, 4), std::invalid_argument);
    EXPECT_THROW(lab05::validate_tensor_shape(0, 64, 64), std::invalid_argument);
}

TEST(TensorHarness, Roundings) {
    // BF16: gap 2^-7 at 1; a tie goes to the even neighbour.
    EXPECT_EQ(lab05::round_to_bf16(1.0f + std::ldexp(1.0f, -8)), 1.0f);
    EXPECT_EQ(lab05::round_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)), 1.0f + std::ldexp(1.0f, -6));
    EXPECT_EQ(lab05::round_to_bf16(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -12)), 1.0f + std::ldexp(1.0f, -7));
    // TF32: gap 2^-10 at 1; a tie goes away from zero (cvt.rna).
    EXPECT_EQ(lab05::round_to_tf32(1.0f + std::ldexp(1.0f, -11)), 1.0f + std::ldexp(1.0f, -10));
    EXPECT_EQ(lab05::round_to_tf32(-1.0f - std::ldexp(1.0f, -11)), -1.0f - std::ldexp(1.0f, -10));
    EXPECT_EQ(lab05::round_to_tf32(1.0f + std::ldexp(1.0f, -12)), 1.0f);
    EXPECT_EQ(lab05::round_to_tf32(0.1f), 0.0999755859375f);  // 0x3DCCCCCD -> 0x3DCCC000
    for (float x : {1.5f, -3.0f, 0.75f}) EXPECT_EQ(lab05::round_to_tf32(x), x) << "exact in TF32";
}

// The handout's error model, checked with no GPU: the product of the rounded
// inputs, summed in double, against the unrounded one.
TEST(TensorHarness, ErrorModelMatchesRoundedProducts) {
    const int n = 96, m = 256, p = 128;
    const auto a = lab05::random_matrix<float>(n, m, 11), b = lab05::random_matrix<float>(m, p, 12);
    const auto ref = lab05::reference_matmul(n, m, p, a.data(), b.data());
    for (TcType t : {TcType::Bf16, TcType::Tf32}) {
        const auto ar = lab05::rounded(t, a), br = lab05::rounded(t, b);
        const auto c = lab05::reference_matmul(n, m, p, ar.data(), br.data());
        const double err = lab05::relative_error(c.data(), ref, c.size());
        const double expected = lab05::expected_relative_error(t);
        EXPECT_NEAR(err, expected, lab05::kExpectedErrorSlack * expected) << lab05::tc_type_name(t);
        const double bound = lab05::input_rounding_bound(
            t, m, lab05::frobenius_norm(a.data(), a.size()), lab05::frobenius_norm(b.data(), b.size()),
            lab05::frobenius_norm(ar.data(), ar.size()), lab05::frobenius_norm(br.data(), br.size()));
        double e2 = 0;
        for (std::size_t i = 0; i < c.size(); ++i) e2 += (c[i] - ref[i]) * (c[i] - ref[i]);
        EXPECT_LE(std::sqrt(e2), bound) << lab05::tc_type_name(t) << ": the worst-case bound";
    }
    EXPECT_NEAR(lab05::expected_relative_error(TcType::Bf16), 2.09e-3, 0.01e-3);
    EXPECT_NEAR(lab05::expected_relative_error(TcType::Tf32), 2.61e-4, 0.01e-4);
}

// ---- Stage 6: every tensor-core kernel ---------------------------------------------------

class TensorCore : public ::testing::TestWithParam<TcKernel> {};

// Sizes at and around the tiles (8 is the smallest, 64 and 128 the blocks, 32 the k slice).
TEST_P(TensorCore, ExactSmallIntegers) {
    HPCLAB_REQUIRE_GPU();
    LAB05_REQUIRE_TC_KERNEL(GetParam());
    const int shapes[][3] = {{8, 8, 8}, {24, 40, 72}, {136, 264, 152}, {256, 520, 200}};
    for (const auto& s : shapes) {
        expect_tc_exact(GetParam(), s[0], s[1], s[2], 300 + s[1]);
        if (HasFatalFailure()) return;
    }
}

TEST_P(TensorCore, Random264x520x136) {
    HPCLAB_REQUIRE_GPU();
    LAB05_REQUIRE_TC_KERNEL(GetParam());
    expect_tc_accuracy(GetParam(), 264, 520, 136, 71, all_rows(264));
}

TEST_P(TensorCore, Random512x256x384) {
    HPCLAB_REQUIRE_GPU();
    LAB05_REQUIRE_TC_KERNEL(GetParam());
    expect_tc_accuracy(GetParam(), 512, 256, 384, 72, all_rows(512));
}

// 4096^3: 24 rows spread over C (first, last, between), 98304 elements.
TEST_P(TensorCore, Square4096SampledRows) {
    HPCLAB_REQUIRE_GPU();
    LAB05_REQUIRE_TC_KERNEL(GetParam());
    const int n = 4096;
    std::vector<int> rows = {0, n - 1};
    for (int r = 1; r < 23; ++r) rows.push_back(static_cast<int>((static_cast<long long>(n) * r * 7919 / 23) % n));
    expect_tc_accuracy(GetParam(), n, n, n, 73, rows);
}

INSTANTIATE_TEST_SUITE_P(Lab05, TensorCore, ::testing::ValuesIn(lab05::kAllTcKernels), tc_param_name);
