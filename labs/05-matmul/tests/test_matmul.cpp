// Lab 05 visible tests: the lecture's 3x4x5 example, CPU loop orders, CGMA, and
// every GPU kernel in float and double against a double reference (normwise
// and exactly on small integers), from 1x1x1 to 4096^3.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "hpclab/gtest_gpu.hpp"
#include "hpclab/judged.hpp"
#include "matmul.hpp"
#include "matmul_harness.hpp"
#include "matmul_test_util.hpp"

using lab05::Kernel;
using namespace lab05_test;

namespace {

// The lecture's run of matmatmul (lecture 31): a 3x4 and a 4x5 0/1 matrix.
const std::vector<float> kLectureA = {1, 0, 1, 1,  //
                                      1, 1, 1, 1,  //
                                      1, 0, 1, 0};
const std::vector<float> kLectureB = {0, 1, 0, 0, 1,  //
                                      0, 1, 1, 0, 0,  //
                                      1, 1, 0, 0, 0,  //
                                      1, 1, 0, 1, 0};
const std::vector<float> kLectureC = {2, 3, 0, 1, 1,  //
                                      2, 4, 1, 1, 1,  //
                                      1, 2, 0, 0, 1};

template <class T>
std::vector<T> as(const std::vector<float>& v) {
    return std::vector<T>(v.begin(), v.end());
}

// The rows of a row-major matrix with `cols` columns, last row first.
std::vector<float> rows_reversed(const std::vector<float>& v, std::size_t cols) {
    std::vector<float> out;
    for (std::size_t r = v.size() / cols; r-- > 0;)
        out.insert(out.end(), v.begin() + r * cols, v.begin() + (r + 1) * cols);
    return out;
}

// What ReportsItsLaunch judges, from one judged call: whether the launch
// names a kernel, its grid and block, and the runtime's answers about that
// kernel with that block (cudaFuncGetAttributes, occupancy).
struct LaunchReport {
    int names_kernel = 0;
    dim3 grid{0, 0, 0};
    dim3 block{0, 0, 0};
    lab05::Occupancy occupancy;
};

// C = A A (64 x 64) with kernel k: the launch it reports and the product.
std::pair<LaunchReport, std::vector<float>> launch_and_report(Kernel k, const std::vector<float>& a) {
    hpclab::cuda::DeviceBuffer<float> dA(a.size()), dC(a.size());
    dA.copy_from_host(a.data(), a.size());
    HPCLAB_CUDA_CHECK(cudaMemset(dC.get(), 0xff, dC.bytes()));  // NaN: a skipped element shows
    const lab05::Launch l = lab05::gpu_matmul<float>(k, 64, 64, 64, dA.get(), dA.get(), dC.get());
    HPCLAB_CUDA_CHECK(cudaDeviceSynchronize());
    LaunchReport r;
    r.names_kernel = l.kernel != nullptr;
    r.grid = l.grid;
    r.block = l.block;
    if (l.kernel) r.occupancy = lab05::occupancy_of(l);
    std::vector<float> c(dC.size());
    dC.copy_to_host(c.data(), c.size());
    return {r, c};
}

// A 64 x 64 x 64 product with kernel k: the launch it reports, the runtime's
// answers about that launch, and the product it computed.
void expect_launch_report(Kernel k) {
    const auto a = lab05::random_matrix<float>(64, 64, 1);
    const auto [l, c] = HPCLAB_VALUE(launch_and_report(k, a));
    ASSERT_NE(l.names_kernel, 0) << "the launch names no kernel";
    const lab05::Occupancy& o = l.occupancy;
    const long long threads = static_cast<long long>(l.block.x) * l.block.y * l.block.z;
    EXPECT_EQ(o.threads, threads) << "the runtime was asked about another block";
    EXPECT_GT(o.registers, 0);
    EXPECT_GT(o.blocks_per_sm, 0) << "the kernel cannot run with the block it was launched with";
    EXPECT_GT(static_cast<long long>(l.grid.x) * l.grid.y * l.grid.z * threads, 0);
    // Enough threads launched for 64 x 64 outputs (the final kernels: 64 and
    // 128 per thread).
    const double per_thread = k == Kernel::Final ? lab05::kFinalTM * lab05::kFinalTN : k == Kernel::FinalTma ? 128 : 1;
    EXPECT_GE(static_cast<double>(l.grid.x) * l.grid.y * l.grid.z * threads * per_thread, 64.0 * 64);
    // The product of that launch.
    ASSERT_EQ(c.size(), a.size());
    const auto ref = lab05::reference_matmul(64, 64, 64, a.data(), a.data());
    const auto check = lab05::normwise_check(64, 64, 64, a.data(), a.data(), c.data(), ref);
    EXPECT_TRUE(check.ok()) << check.describe();
}

}  // namespace

// ---- Stage 1: CPU ------------------------------------------------------------------

// Each loop order gets an input of its own, so that neither can answer from
// the other's result: i-k-j multiplies the lecture's A with its rows in
// reverse order, which reverses the rows of C.
TEST(Cpu, LectureExample) {
    std::vector<float> c(15, -1.0f);
    HPCLAB_CALL([&] { lab05::cpu_matmul_ijk(3, 4, 5, kLectureA.data(), kLectureB.data(), c.data()); }, c);
    EXPECT_EQ(c, kLectureC) << "i-j-k";
    const std::vector<float> a_reversed = rows_reversed(kLectureA, 4), c_reversed = rows_reversed(kLectureC, 5);
    std::vector<float> c2(15, -1.0f);
    HPCLAB_CALL([&] { lab05::cpu_matmul_ikj(3, 4, 5, a_reversed.data(), kLectureB.data(), c2.data()); }, c2);
    EXPECT_EQ(c2, c_reversed) << "i-k-j (is row i of C zeroed first?)";
}

// Each loop order multiplies random matrices of its own (see above).
template <class T>
void cpu_random(int n, int m, int p) {
    const std::size_t size_c = static_cast<std::size_t>(n) * p;
    {
        const auto a = lab05::random_matrix<T>(n, m, 7), b = lab05::random_matrix<T>(m, p, 8);
        const auto ref = lab05::reference_matmul(n, m, p, a.data(), b.data());
        std::vector<T> c(size_c, std::numeric_limits<T>::quiet_NaN());
        HPCLAB_CALL([&] { lab05::cpu_matmul_ijk(n, m, p, a.data(), b.data(), c.data()); }, c);
        ASSERT_EQ(c.size(), size_c);
        const auto check = lab05::normwise_check(n, m, p, a.data(), b.data(), c.data(), ref);
        EXPECT_TRUE(check.ok()) << "i-j-k: " << check.describe();
    }
    {
        const auto a = lab05::random_matrix<T>(n, m, 9), b = lab05::random_matrix<T>(m, p, 10);
        const auto ref = lab05::reference_matmul(n, m, p, a.data(), b.data());
        std::vector<T> c(size_c, std::numeric_limits<T>::quiet_NaN());
        HPCLAB_CALL([&] { lab05::cpu_matmul_ikj(n, m, p, a.data(), b.data(), c.data()); }, c);
        ASSERT_EQ(c.size(), size_c);
        const auto check = lab05::normwise_check(n, m, p, a.data(), b.data(), c.data(), ref);
        EXPECT_TRUE(check.ok()) << "i-k-j: " << check.describe();
    }
}

TEST(Cpu, RandomRectangularFloat) { cpu_random<float>(37, 129, 65); }
TEST(Cpu, RandomRectangularDouble) { cpu_random<double>(64, 33, 100); }

// ---- Stage 5: CGMA -----------------------------------------------------------------

TEST(Cgma, EveryKernel) {
    EXPECT_NEAR(HPCLAB_VALUE(lab05::cgma(Kernel::OneThreadPerBlock)), 2.0 / 3.0, 1e-12) << "the lecture's value";
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab05::cgma(Kernel::Naive1D)), 1.0);
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab05::cgma(Kernel::Naive2DRowX)), 1.0);
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab05::cgma(Kernel::Naive2D)), 1.0);
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab05::cgma(Kernel::Tiled16)), 16.0);
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab05::cgma(Kernel::Tiled32)), 32.0);
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab05::cgma(Kernel::Final)),
                     2.0 * lab05::kFinalBM * lab05::kFinalBN / (lab05::kFinalBM + lab05::kFinalBN));
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab05::cgma(Kernel::FinalTma)),
                     2.0 * lab05::kFinalTmaBM * lab05::kFinalTmaBN / (lab05::kFinalTmaBM + lab05::kFinalTmaBN));
}

// ---- Harness (0 points: these check the lab's own tools, not your code) -----------------

TEST(Harness, ShapeChecks) {
    EXPECT_NO_THROW(lab05::validate_shape(1, 1, 1));
    EXPECT_NO_THROW(lab05::validate_shape(46340, 46340, 46340));  // 46340^2 < 2^31
    EXPECT_THROW(lab05::validate_shape(0, 5, 5), std::invalid_argument);
    EXPECT_THROW(lab05::validate_shape(5, 0, 5), std::invalid_argument);
    EXPECT_THROW(lab05::validate_shape(5, 5, 0), std::invalid_argument);
    EXPECT_THROW(lab05::validate_shape(46341, 46341, 1), std::invalid_argument);  // A overflows
    EXPECT_THROW(lab05::validate_shape(1, 65536, 32768), std::invalid_argument);  // B = 2^31
    EXPECT_THROW(lab05::validate_shape(70000, 1, 70000), std::invalid_argument);  // C overflows
    EXPECT_THROW(lab05::validate_shape(std::size_t(1) << 40, 1, 1), std::invalid_argument);
    EXPECT_EQ(lab05::device_bytes(10, 20, 30, 4), 4u * (200 + 600 + 2 * 300));
}

TEST(Harness, NormwiseBoundAcceptsRoundingRejectsOneLostTerm) {
    const int n = 50, m = 60, p = 70;
    const auto a = lab05::random_matrix<float>(n, m, 1), b = lab05::random_matrix<float>(m, p, 2);
    const auto ref = lab05::reference_matmul(n, m, p, a.data(), b.data());
    std::vector<float> c(ref.begin(), ref.end());  // rounded once to float: fine
    EXPECT_TRUE(lab05::normwise_check(n, m, p, a.data(), b.data(), c.data(), ref).ok());
    EXPECT_NEAR(lab05::normwise_tolerance<float>(100, 2, 3),
                lab05::kNormwiseC * 100 * std::numeric_limits<float>::epsilon() * 6, 1e-12);
    // Drop the k = 0 term of every element: far outside the bound.
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < p; ++j) c[i * p + j] -= a[i * m] * b[j];
    const auto bad = lab05::normwise_check(n, m, p, a.data(), b.data(), c.data(), ref);
    EXPECT_FALSE(bad.ok()) << bad.describe();
    c[3] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_FALSE(lab05::normwise_check(n, m, p, a.data(), b.data(), c.data(), ref).finite);
}

TEST(Harness, CublasDefaultMathIsNotTf32) {
    HPCLAB_REQUIRE_GPU();
    const int n = 512, m = 1024, p = 384;
    const auto a = lab05::random_matrix<float>(n, m, 3), b = lab05::random_matrix<float>(m, p, 4);
    hpclab::cuda::DeviceBuffer<float> dA(a.size()), dB(b.size()), dC(static_cast<std::size_t>(n) * p);
    dA.copy_from_host(a.data(), a.size());
    dB.copy_from_host(b.data(), b.size());
    lab05::Cublas cublas;
    EXPECT_EQ(cublas.mode(), CUBLAS_DEFAULT_MATH);
    cublas.gemm(n, m, p, dA.get(), dB.get(), dC.get());
    std::vector<float> c(dC.size());
    dC.copy_to_host(c.data(), c.size());
    const auto ref = lab05::reference_matmul(n, m, p, a.data(), b.data());
    double err = 0, norm = 0;
    for (std::size_t i = 0; i < c.size(); ++i) {
        err += (c[i] - ref[i]) * (c[i] - ref[i]);
        norm += ref[i] * ref[i];
    }
    // FP32 gives ~1e-7 relative; TF32 (10-bit mantissa inputs) ~3e-4.
    EXPECT_LT(std::sqrt(err / norm), 1e-5) << "cuBLAS seems to use TF32 for FP32";
}

// ---- Stages 2-4: every kernel --------------------------------------------------------------

class GpuMatmul : public ::testing::TestWithParam<Kernel> {};

TEST_P(GpuMatmul, LectureExample) {
    HPCLAB_REQUIRE_GPU();
    EXPECT_EQ(run_gpu<float>(GetParam(), 3, 4, 5, kLectureA, kLectureB), kLectureC);
    EXPECT_EQ(run_gpu<double>(GetParam(), 3, 4, 5, as<double>(kLectureA), as<double>(kLectureB)),
              as<double>(kLectureC));
}

TEST_P(GpuMatmul, OneByOne) {
    HPCLAB_REQUIRE_GPU();
    EXPECT_EQ(run_gpu<float>(GetParam(), 1, 1, 1, {3.0f}, {-2.5f}), std::vector<float>{-7.5f});
    EXPECT_EQ(run_gpu<double>(GetParam(), 1, 1, 1, {3.0}, {-2.5}), std::vector<double>{-7.5});
}

// Small odd sizes: edges of tiles in every direction (also the sanitizer's set).
TEST_P(GpuMatmul, OddSmallSizes) {
    HPCLAB_REQUIRE_GPU();
    expect_exact<float>(GetParam(), 33, 65, 17, 21);
    expect_exact<double>(GetParam(), 130, 9, 131, 22);
    expect_exact<float>(GetParam(), 5, 132, 260, 23);
}

TEST_P(GpuMatmul, Random1000x1001x999Float) {
    HPCLAB_REQUIRE_GPU();
    expect_normwise<float>(GetParam(), 1000, 1001, 999, 31);
}

TEST_P(GpuMatmul, Random1000x1001x999Double) {
    HPCLAB_REQUIRE_GPU();
    expect_normwise<double>(GetParam(), 1000, 1001, 999, 32);
}

TEST_P(GpuMatmul, ExactSmallIntegers) {
    HPCLAB_REQUIRE_GPU();
    expect_exact<float>(GetParam(), 300, 512, 260, 41);
    expect_exact<double>(GetParam(), 257, 300, 129, 42);
}

TEST_P(GpuMatmul, TallAndSkinny) {
    HPCLAB_REQUIRE_GPU();
    expect_normwise<float>(GetParam(), 20000, 7, 3, 51);  // tall A, thin C
    expect_normwise<double>(GetParam(), 3, 5000, 2, 52);  // long inner dimension
    expect_exact<float>(GetParam(), 2, 16, 3000, 53);     // wide C
}

// Worth no points in the grader (lab.json), nor FinalTma.ReportsItsLaunch:
// the Launch is the launcher's own account of what it launched, and the
// runtime's answers about that kernel (registers, blocks per SM) can only be
// taken in the submission's process, where the kernel is; no value the
// judge sees shows that the kernel named is the one that computed the
// product (which every other test judges). Kept as a check for students:
// the driver's occupancy figures come from this report.
TEST_P(GpuMatmul, ReportsItsLaunch) {
    HPCLAB_REQUIRE_GPU();
    expect_launch_report(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Lab05, GpuMatmul, ::testing::ValuesIn(lab05::kEveryGpuKernels), param_name);

// 4096^3: every kernel but the lecture's one thread per block (minutes there).
class GpuMatmulLarge : public ::testing::TestWithParam<Kernel> {};

TEST_P(GpuMatmulLarge, Square4096Float) {
    HPCLAB_REQUIRE_GPU();
    expect_sampled_rows<float>(GetParam(), 4096, 4096, 4096, 61);
}

TEST_P(GpuMatmulLarge, Square4096Double) {
    HPCLAB_REQUIRE_GPU();
    expect_sampled_rows<double>(GetParam(), 4096, 4096, 4096, 62);
}

INSTANTIATE_TEST_SUITE_P(Lab05, GpuMatmulLarge,
                         ::testing::Values(Kernel::Naive1D, Kernel::Naive2DRowX, Kernel::Naive2D, Kernel::Tiled16,
                                           Kernel::Tiled32, Kernel::Final),
                         param_name);

// ---- Stage 6d: the final kernel fed by TMA (float, Hopper) ------------------------------
// m and p multiples of 4 take the TMA path; 520 = 16 k steps of 32 and 8 more.

TEST(FinalTma, ExactSmallIntegers) {
    HPCLAB_REQUIRE_GPU();
    LAB05_REQUIRE_FINAL_TMA();
    const int shapes[][3] = {{300, 512, 260}, {264, 520, 136}, {1, 4, 4}, {129, 36, 260}, {128, 32, 256}};
    for (const auto& s : shapes) {
        expect_exact<float>(Kernel::FinalTma, s[0], s[1], s[2], 300 + s[0]);
        if (HasFatalFailure()) return;
    }
}

TEST(FinalTma, Random1000x1004x996) {
    HPCLAB_REQUIRE_GPU();
    LAB05_REQUIRE_FINAL_TMA();
    expect_normwise<float>(Kernel::FinalTma, 1000, 1004, 996, 71);
}

TEST(FinalTma, Square4096SampledRows) {
    HPCLAB_REQUIRE_GPU();
    LAB05_REQUIRE_FINAL_TMA();
    expect_sampled_rows<float>(Kernel::FinalTma, 4096, 4096, 4096, 72);
}

// m and p not multiples of 4: TMA cannot take the rows, final_tma hands over to final.
TEST(FinalTma, HandsOtherShapesToFinal) {
    HPCLAB_REQUIRE_GPU();
    LAB05_REQUIRE_FINAL_TMA();
    expect_exact<float>(Kernel::FinalTma, 33, 65, 17, 73);
    expect_exact<float>(Kernel::FinalTma, 20, 16, 3001, 74);
}

TEST(FinalTma, ReportsItsLaunch) {
    HPCLAB_REQUIRE_GPU();
    LAB05_REQUIRE_FINAL_TMA();
    expect_launch_report(Kernel::FinalTma);
}
