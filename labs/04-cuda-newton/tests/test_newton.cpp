// Lab 04 visible tests: double2 operators against std::complex on the host; GPU
// square roots against std::sqrt for awkward sizes and every block size; the
// stopping test; a refused block size; polynomial roots and their counting.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "complex_double2.cuh"
#include "hpclab/data.hpp"
#include "hpclab/gtest_gpu.hpp"
#include "hpclab/judged.hpp"
#include "newton.hpp"
#include "newton_harness.hpp"
#include "tests/newton_judged.hpp"

using lab04::cplx;
using lab04::to_d2;
using lab04::to_std;

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();

std::vector<cplx> random_complex(std::size_t n, std::uint64_t seed, double lo = -10, double hi = 10) {
    hpclab::Rng rng(seed);
    std::vector<cplx> v(n);
    for (auto& z : v) {
        const double x = rng.uniform(lo, hi);
        z = cplx(x, rng.uniform(lo, hi));
    }
    return v;
}

// One double2 operation (student code, from complex_double2.cuh) applied to
// every pair a[i], b[i]; the test judges the results.
template <class Op>
std::vector<double2> pairwise(const std::vector<cplx>& a, const std::vector<cplx>& b, Op op) {
    std::vector<double2> out(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) out[i] = op(to_d2(a[i]), to_d2(b[i]));
    return out;
}

// |got - want| <= ulps * eps * scale
void expect_close(double2 got, cplx want, double scale, double ulps, const char* what) {
    EXPECT_LE(std::abs(to_std(got) - want), ulps * kEps * scale)
        << what << ": got (" << got.x << ", " << got.y << "), std::complex gives " << want;
}

}  // namespace

// ---- Stage 2: complex arithmetic on the host ------------------------------------------

TEST(Complex, AddSubtractMultiply) {
    const auto a = random_complex(1000, 1), b = random_complex(1000, 2);
    const auto sums = HPCLAB_VALUE(pairwise(a, b, [](double2 x, double2 y) { return x + y; }));
    const auto differences = HPCLAB_VALUE(pairwise(a, b, [](double2 x, double2 y) { return x - y; }));
    const auto products = HPCLAB_VALUE(pairwise(a, b, [](double2 x, double2 y) { return x * y; }));
    ASSERT_EQ(sums.size(), a.size());
    ASSERT_EQ(differences.size(), a.size());
    ASSERT_EQ(products.size(), a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double2 s = sums[i], d = differences[i];
        EXPECT_EQ(s.x, (a[i] + b[i]).real());
        EXPECT_EQ(s.y, (a[i] + b[i]).imag());
        EXPECT_EQ(d.x, (a[i] - b[i]).real());
        EXPECT_EQ(d.y, (a[i] - b[i]).imag());
        expect_close(products[i], a[i] * b[i], std::abs(a[i]) * std::abs(b[i]), 4, "a*b");
    }
    const double2 i = make_double2(0, 1), m = HPCLAB_VALUE(i * i);
    EXPECT_EQ(m.x, -1.0);
    EXPECT_EQ(m.y, 0.0);
}

TEST(Complex, DivideAndAbs) {
    const auto a = random_complex(1000, 3), b = random_complex(1000, 4);
    const auto quotients = HPCLAB_VALUE(pairwise(a, b, [](double2 x, double2 y) { return x / y; }));
    const auto moduli = HPCLAB_CALL([&] {
        std::vector<double> out(a.size());
        for (std::size_t i = 0; i < a.size(); ++i) out[i] = complex_abs(to_d2(a[i]));
        return out;
    });
    ASSERT_EQ(quotients.size(), a.size());
    ASSERT_EQ(moduli.size(), a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        expect_close(quotients[i], a[i] / b[i], std::abs(a[i] / b[i]), 8, "a/b");
        EXPECT_NEAR(moduli[i], std::abs(a[i]), 2 * kEps * std::abs(a[i]));
    }
    const double2 q = HPCLAB_VALUE(make_double2(1, 2) / make_double2(3, -4));  // (1+2i)/(3-4i) = -0.2 + 0.4i
    EXPECT_NEAR(q.x, -0.2, 4 * kEps);
    EXPECT_NEAR(q.y, 0.4, 4 * kEps);
    EXPECT_EQ(HPCLAB_VALUE(complex_abs(make_double2(3, -4))), 5.0);
}

TEST(Complex, NoOverflowOrUnderflowInTheSquares) {
    // |b|^2 would overflow (1e400) or underflow (1e-400) although a/b and |b| are fine.
    const double2 big = make_double2(3e200, 4e200), tiny = make_double2(3e-200, 4e-200);
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(complex_abs(big)), 5e200);
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(complex_abs(tiny)), 5e-200);
    const double2 one = HPCLAB_VALUE(big / big), also_one = HPCLAB_VALUE(tiny / tiny);
    EXPECT_NEAR(one.x, 1.0, 4 * kEps);
    EXPECT_NEAR(one.y, 0.0, 4 * kEps);
    EXPECT_NEAR(also_one.x, 1.0, 4 * kEps);
    EXPECT_NEAR(also_one.y, 0.0, 4 * kEps);
    const double2 q = HPCLAB_VALUE(make_double2(1, 0) / big);  // (3 - 4i) / 25e200
    EXPECT_NEAR(q.x, 0.12e-200, 1e-215);
    EXPECT_NEAR(q.y, -0.16e-200, 1e-215);
}

// ---- Stage 3: square roots on the GPU ---------------------------------------------------

// Every root is the principal square root (std::sqrt) to near machine precision.
void expect_principal_roots(const std::vector<double2>& c, const std::vector<double2>& r, double tol) {
    ASSERT_EQ(c.size(), r.size());
    std::size_t bad = 0;
    for (std::size_t i = 0; i < c.size(); ++i) {
        const cplx want = std::sqrt(to_std(c[i]));
        const double err = std::abs(to_std(r[i]) - want);
        if (!(err <= tol) || !(lab04::residual(r[i], c[i]) <= 4 * tol)) {
            if (++bad <= 3)
                ADD_FAILURE() << "c[" << i << "] = " << to_std(c[i]) << ": got " << to_std(r[i]) << ", std::sqrt gives "
                              << want << " (|err| = " << err << ")";
        }
    }
    EXPECT_EQ(bad, 0u) << "of " << c.size() << " numbers";
}

class SqrtSizes : public ::testing::TestWithParam<int> {};

TEST_P(SqrtSizes, FixedIterations) {
    HPCLAB_REQUIRE_GPU();
    // 40 steps converge everywhere except within ~1e-11 of the basin
    // boundary (theta = pi), which random data does not hit.
    const auto c = lab04::random_unit_circle(GetParam(), 100 + GetParam());
    expect_principal_roots(c, HPCLAB_VALUE(lab04::gpu_sqrt_fixed(c, 40, 32)), 1e-14);
}

TEST_P(SqrtSizes, StoppingTest) {
    HPCLAB_REQUIRE_GPU();
    const auto c = lab04::random_unit_circle(GetParam(), 200 + GetParam());
    const auto s = HPCLAB_VALUE(lab04::gpu_sqrt_tol(c, 1e-14, 64, 32));
    expect_principal_roots(c, s.roots, 1e-14);
    ASSERT_EQ(s.iterations.size(), c.size());
    for (std::size_t i = 0; i < c.size(); ++i) {
        ASSERT_GE(s.iterations[i], 1) << "c[" << i << "]";
        ASSERT_LE(s.iterations[i], 64) << "c[" << i << "]";
    }
}

INSTANTIATE_TEST_SUITE_P(Lab04, SqrtSizes, ::testing::Values(1, 31, 32, 33, 1000001),
                         [](const ::testing::TestParamInfo<int>& info) { return "n" + std::to_string(info.param); });

TEST(Sqrt, IterationCountIsHonoured) {
    HPCLAB_REQUIRE_GPU();
    const auto c = lab04::random_unit_circle(257, 5);
    for (int k : {0, 1, 2, 3, 5}) {
        const auto r = HPCLAB_VALUE(lab04::gpu_sqrt_fixed(c, k, 64));
        ASSERT_EQ(r.size(), c.size()) << "k = " << k;
        for (std::size_t i = 0; i < c.size(); ++i) {
            cplx x = to_std(c[i]);
            for (int j = 0; j < k; ++j) x -= (x * x - to_std(c[i])) / (2.0 * x);
            ASSERT_LE(std::abs(to_std(r[i]) - x), 1e-13 * (1 + std::abs(x))) << "k = " << k << ", c[" << i << "]";
        }
    }
}

TEST(Sqrt, StoppingTestCountsAndGivesUp) {
    HPCLAB_REQUIRE_GPU();
    // c = 1: x0 = 1 is the root, the first step is 0. c = -1: x1 = 0, then
    // 0/0. c = -4: a real start stays real, never converges. c = 0: zero steps.
    // theta = 3.1 (near pi) needs about 14 steps.
    const double t = 3.1;
    const std::vector<double2> c = {make_double2(1, 0),
                                    make_double2(-1, 0),
                                    make_double2(-4, 0),
                                    make_double2(0, 0),
                                    make_double2(std::cos(t), std::sin(t)),
                                    make_double2(4, 0)};
    const auto s = HPCLAB_VALUE(lab04::gpu_sqrt_tol(c, 1e-14, 100, 128));
    ASSERT_EQ(s.roots.size(), c.size());
    ASSERT_EQ(s.iterations.size(), c.size());
    EXPECT_EQ(s.iterations[0], 1);
    EXPECT_EQ(s.iterations[1], -1) << "c = -1 must be reported as not converged";
    EXPECT_EQ(s.iterations[2], -1) << "c = -4 must be reported as not converged";
    EXPECT_EQ(s.iterations[3], 0);
    EXPECT_EQ(s.roots[3].x, 0.0);
    EXPECT_EQ(s.roots[3].y, 0.0);
    EXPECT_GT(s.iterations[4], 8);
    EXPECT_LT(s.iterations[4], 30);
    EXPECT_NEAR(s.roots[5].x, 2.0, 1e-15);
    const auto few = HPCLAB_VALUE(lab04::gpu_sqrt_tol({c[4]}, 1e-14, 5, 32));
    ASSERT_EQ(few.iterations.size(), 1u);
    EXPECT_EQ(few.iterations[0], -1) << "5 steps are not enough near theta = pi";
}

TEST(Sqrt, EveryBlockSizeGivesTheSameRoots) {
    HPCLAB_REQUIRE_GPU();
    const auto c = lab04::random_unit_circle(100003, 9);
    const auto want = HPCLAB_VALUE(lab04::gpu_sqrt_tol(c, 1e-14, 64, 256));
    ASSERT_EQ(want.iterations.size(), c.size());
    expect_principal_roots(c, want.roots, 1e-14);
    // Every block size gets the same numbers rotated by an amount of its own,
    // so no call is handed the input of another (no result can be reused);
    // the root of c[j] must come out bit for bit the same wherever it sits.
    hpclab::Rng rng(90);
    const std::size_t n = c.size();
    for (int block : {32, 64, 96, 128, 512, 1000, 1024}) {
        const auto shift = static_cast<std::size_t>(rng.uniform_int(1, static_cast<std::int64_t>(n) - 1));
        std::vector<double2> rotated(n);
        for (std::size_t i = 0; i < n; ++i) rotated[i] = c[(i + shift) % n];
        const auto got = HPCLAB_VALUE(lab04::gpu_sqrt_tol(rotated, 1e-14, 64, block));
        ASSERT_EQ(got.roots.size(), n) << "block " << block;
        ASSERT_EQ(got.iterations.size(), n) << "block " << block;
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t j = (i + shift) % n;
            ASSERT_EQ(got.roots[i].x, want.roots[j].x) << "block " << block << ", c[" << j << "]";
            ASSERT_EQ(got.roots[i].y, want.roots[j].y) << "block " << block << ", c[" << j << "]";
            ASSERT_EQ(got.iterations[i], want.iterations[j]) << "block " << block << ", c[" << j << "]";
        }
    }
}

TEST(Sqrt, BlockSize2048IsACudaError) {
    HPCLAB_REQUIRE_GPU();
    const auto c = lab04::random_unit_circle(4096, 10);
    for (int which = 0; which < 2; ++which) {
        // The CudaError's code comes back as a value (see newton_judged.hpp).
        const auto [code, what] = HPCLAB_VALUE(lab04_test::cuda_error_of([&] {
            if (which == 0)
                lab04::gpu_sqrt_fixed(c, 5, 2048);
            else
                lab04::gpu_sqrt_tol(c, 1e-14, 64, 2048);
        }));
        if (code == cudaSuccess) {
            ADD_FAILURE() << "a launch with 2048 threads per block was not reported";
            continue;
        }
        // The runtime names it cudaErrorInvalidConfiguration or (CUDA 13 on
        // an H100) cudaErrorInvalidValue; either way the launch was refused.
        EXPECT_TRUE(lab04_test::is_refused_launch(code)) << what;
    }
    // The error is not sticky: the next launch works.
    expect_principal_roots(c, HPCLAB_VALUE(lab04::gpu_sqrt_fixed(c, 40, 256)), 1e-14);
}

TEST(Sqrt, EmptyInputLaunchesNothing) {
    HPCLAB_REQUIRE_GPU();
    EXPECT_TRUE(HPCLAB_VALUE(lab04::gpu_sqrt_fixed({}, 5, 256)).empty());
    EXPECT_TRUE(HPCLAB_VALUE(lab04::gpu_sqrt_tol({}, 1e-14, 64, 256)).roots.empty());
}

// ---- Stage 4: polynomial roots --------------------------------------------------------------

TEST(Poly, CountingOnTheHost) {
    const std::vector<double2> roots = {make_double2(1, 0), make_double2(1 + 1e-9, 0), make_double2(-1, 0),
                                        make_double2(2, 0), make_double2(-1, 1e-10),   make_double2(0, 3)};
    const std::vector<int> used = {3, 4, -1, 5, 2, 7};
    EXPECT_EQ(HPCLAB_VALUE(lab04::count_distinct_roots(roots, used, 1e-6)), 4);
    EXPECT_EQ(HPCLAB_VALUE(lab04::trials_to_find(roots, used, 1, 1e-6)), 1);
    EXPECT_EQ(HPCLAB_VALUE(lab04::trials_to_find(roots, used, 2, 1e-6)), 4);
    EXPECT_EQ(HPCLAB_VALUE(lab04::trials_to_find(roots, used, 3, 1e-6)), 5);
    EXPECT_EQ(HPCLAB_VALUE(lab04::trials_to_find(roots, used, 4, 1e-6)), 6);
    EXPECT_EQ(HPCLAB_VALUE(lab04::trials_to_find(roots, used, 5, 1e-6)), -1);
    EXPECT_EQ(HPCLAB_VALUE(lab04::count_distinct_roots(roots, used, 10.0)), 1);
}

TEST(Poly, KnownRoots) {
    HPCLAB_REQUIRE_GPU();
    const std::vector<cplx> known = {{1, 0}, {-1, 0}, {0, 2}, {-0.5, 0.5}, {1.5, -1}, {-2, -0.3}};
    const auto a = lab04::poly_from_roots(known);
    const auto starts = lab04::random_in_square(2000, 3.0, 11);
    const auto s = HPCLAB_VALUE(lab04::gpu_poly_newton(a, starts, 1e-13, 200, 128));
    ASSERT_EQ(s.roots.size(), starts.size());
    ASSERT_EQ(s.iterations.size(), starts.size());
    int converged = 0;
    for (std::size_t t = 0; t < starts.size(); ++t) {
        if (s.iterations[t] < 0) continue;
        ++converged;
        const cplx z = to_std(s.roots[t]);
        ASSERT_LE(std::abs(lab04::poly_eval(a, z)), 1e-12 * lab04::poly_scale(a, z)) << "trial " << t << ": z = " << z;
        double nearest = 1e300;
        for (const cplx& r : known) nearest = std::min(nearest, std::abs(z - r));
        ASSERT_LE(nearest, 1e-10) << "trial " << t << ": z = " << z << " is no root of p";
    }
    EXPECT_GT(converged, 1800);
    EXPECT_EQ(HPCLAB_VALUE(lab04::count_distinct_roots(s.roots, s.iterations, 1e-8)), 6);
    const int half = HPCLAB_VALUE(lab04::trials_to_find(s.roots, s.iterations, 3, 1e-8));
    EXPECT_GE(half, 3);
    EXPECT_LE(half, 100);
}

TEST(Poly, RandomCoefficients) {
    HPCLAB_REQUIRE_GPU();
    const int d = 12;
    const auto a = lab04::random_polynomial(d, 12);
    const auto starts = lab04::random_in_square(4096, 2.0, 13);
    const auto s = HPCLAB_VALUE(lab04::gpu_poly_newton(a, starts, 1e-13, 300, 256));
    ASSERT_EQ(s.roots.size(), starts.size());
    ASSERT_EQ(s.iterations.size(), starts.size());
    for (std::size_t t = 0; t < starts.size(); ++t) {
        if (s.iterations[t] < 0) continue;
        const cplx z = to_std(s.roots[t]);
        ASSERT_LE(std::abs(lab04::poly_eval(a, z)), 1e-11 * lab04::poly_scale(a, z)) << "trial " << t << ": z = " << z;
    }
    const int distinct = HPCLAB_VALUE(lab04::count_distinct_roots(s.roots, s.iterations, 1e-8));
    EXPECT_GE(distinct, d / 2);
    EXPECT_LE(distinct, d);
    const int half = HPCLAB_VALUE(lab04::trials_to_find(s.roots, s.iterations, d / 2, 1e-8));
    EXPECT_GE(half, d / 2);
}
