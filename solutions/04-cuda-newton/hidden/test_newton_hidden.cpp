// Lab 04 hidden tests (compiled only by the grader): other seeds and sizes, odd
// block sizes, points off the unit circle, mixed magnitudes, a cubic's roots.
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

TEST(HiddenComplex, MixedMagnitudesAndSigns) {
    const double e = std::numeric_limits<double>::epsilon();
    const cplx vals[] = {{1e-150, -3e150}, {-2.5, 1e-300}, {7e100, -7e100}, {-1, -1}, {0.0, 5e-310}, {1e15, 1}};
    for (const cplx& a : vals) {
        for (const cplx& b : vals) {
            const cplx q = a / b;
            if (!std::isfinite(q.real()) || !std::isfinite(q.imag()) || std::abs(q) < 1e-290 || std::abs(q) > 1e290)
                continue;  // outside what either side can represent well
            const double2 got = HPCLAB_VALUE(to_d2(a) / to_d2(b));
            EXPECT_LE(std::abs(to_std(got) - q), 16 * e * std::abs(q)) << a << " / " << b;
            const double2 p = HPCLAB_VALUE(to_d2(a) * to_d2(b));
            if (std::isfinite(std::abs(a) * std::abs(b)) && std::abs(a) * std::abs(b) > 1e-290) {
                EXPECT_LE(std::abs(to_std(p) - a * b), 4 * e * std::abs(a) * std::abs(b)) << a << " * " << b;
            }
        }
        EXPECT_NEAR(HPCLAB_VALUE(complex_abs(to_d2(a))), std::abs(a), 2 * e * std::abs(a)) << a;
    }
}

TEST(HiddenSqrt, OffTheCircleOddBlocks) {
    HPCLAB_REQUIRE_GPU();
    hpclab::Rng rng(77);
    std::vector<double2> c(70001);
    for (auto& z : c) {
        const double r = std::exp(rng.uniform(-20, 20)), t = rng.uniform(-3.1, 3.1);
        z = make_double2(r * std::cos(t), r * std::sin(t));
    }
    // Each block size gets the numbers rotated by an amount of its own, so no
    // call is handed the input of another (no result can be reused).
    const std::size_t n = c.size();
    for (int block : {33, 192, 1024}) {
        const auto shift = static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(n) - 1));
        std::vector<double2> rotated(n);
        for (std::size_t i = 0; i < n; ++i) rotated[i] = c[(i + shift) % n];
        const auto s = HPCLAB_VALUE(lab04::gpu_sqrt_tol(rotated, 1e-14, 200, block));
        ASSERT_EQ(s.roots.size(), n) << "block " << block;
        ASSERT_EQ(s.iterations.size(), n) << "block " << block;
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t j = (i + shift) % n;
            const cplx want = std::sqrt(to_std(c[j]));
            ASSERT_GE(s.iterations[i], 1) << "c[" << j << "] = " << to_std(c[j]);
            ASSERT_LE(std::abs(to_std(s.roots[i]) - want), 1e-13 * std::abs(want)) << "c[" << j << "]";
        }
    }
}

TEST(HiddenSqrt, LargeNFixedK) {
    HPCLAB_REQUIRE_GPU();
    const auto c = lab04::random_unit_circle(2000003, 78);
    const auto r = HPCLAB_VALUE(lab04::gpu_sqrt_fixed(c, 45, 1024));
    ASSERT_EQ(r.size(), c.size());
    std::size_t bad = 0;
    for (std::size_t i = 0; i < c.size(); ++i)
        if (!(std::abs(to_std(r[i]) - std::sqrt(to_std(c[i]))) <= 1e-14)) ++bad;
    EXPECT_EQ(bad, 0u);
    // The tail: the last element is computed too.
    EXPECT_LE(std::abs(to_std(r.back()) - std::sqrt(to_std(c.back()))), 1e-14);
}

TEST(HiddenSqrt, RefusedBlockSizeOnPolynomialToo) {
    HPCLAB_REQUIRE_GPU();
    const auto a = lab04::poly_from_roots({{1, 0}, {-1, 0}});
    const auto starts = lab04::random_in_square(3000, 2.0, 79);
    // The CudaError's code comes back as a value (see tests/newton_judged.hpp).
    const auto [code, what] =
        HPCLAB_VALUE(lab04_test::cuda_error_of([&] { lab04::gpu_poly_newton(a, starts, 1e-13, 100, 4096); }));
    if (code == cudaSuccess) {
        ADD_FAILURE() << "4096 threads per block was not reported";
    } else {
        EXPECT_TRUE(lab04_test::is_refused_launch(code)) << what;
    }
}

TEST(HiddenPoly, CubeRootsOfUnity) {
    HPCLAB_REQUIRE_GPU();
    // z^3 - 1: the famous fractal basins; every converged start ends on a cube root of 1.
    const std::vector<double2> a = {make_double2(-1, 0), make_double2(0, 0), make_double2(0, 0), make_double2(1, 0)};
    const auto starts = lab04::random_in_square(5001, 1.5, 80);
    const auto s = HPCLAB_VALUE(lab04::gpu_poly_newton(a, starts, 1e-14, 500, 96));
    ASSERT_EQ(s.roots.size(), starts.size());
    ASSERT_EQ(s.iterations.size(), starts.size());
    int converged = 0;
    for (std::size_t t = 0; t < starts.size(); ++t) {
        if (s.iterations[t] < 0) continue;
        ++converged;
        const cplx z = to_std(s.roots[t]);
        ASSERT_NEAR(std::abs(z), 1.0, 1e-12) << "trial " << t;
        ASSERT_LE(std::abs(z * z * z - 1.0), 1e-12) << "trial " << t;
    }
    EXPECT_GT(converged, 4900);
    EXPECT_EQ(HPCLAB_VALUE(lab04::count_distinct_roots(s.roots, s.iterations, 1e-6)), 3);
    EXPECT_LE(HPCLAB_VALUE(lab04::trials_to_find(s.roots, s.iterations, 2, 1e-6)), 20);
}

TEST(HiddenPoly, CountingEdgeCases) {
    EXPECT_EQ(HPCLAB_VALUE(lab04::count_distinct_roots({}, {}, 1e-6)), 0);
    EXPECT_EQ(HPCLAB_VALUE(lab04::trials_to_find({}, {}, 1, 1e-6)), -1);
    const std::vector<double2> r = {make_double2(NAN, NAN), make_double2(2, 2), make_double2(2, 2)};
    const std::vector<int> u = {-1, 0, 9};
    EXPECT_EQ(HPCLAB_VALUE(lab04::count_distinct_roots(r, u, 1e-9)), 1);
    EXPECT_EQ(HPCLAB_VALUE(lab04::trials_to_find(r, u, 1, 1e-9)), 2);
}
