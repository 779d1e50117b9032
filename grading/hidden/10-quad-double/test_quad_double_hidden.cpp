// Lab 10 hidden tests: error-free transformations at the ends of the exponent range,
// renormalization with zero words, other seeds bit for bit against QD, Newton at extreme
// exponents and odd sizes and block sizes, reductions around block boundaries and with exact
// cancellation, pi for tiny n, complex Newton convergence on the device.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include <qd/qd_real.h>

#include "hpclab/data.hpp"
#include "hpclab/gtest_gpu.hpp"
#include "multi_double.hpp"
#include "qd_reference.hpp"
#include "quad_double.hpp"

namespace {

using namespace lab10;

TEST(Hidden, EftAtExtremes) {
    const double big[] = {0x1.fffffffffffffp1000, 0x1.123456789abcdp900, -0x1.5p1020};
    const double small[] = {0x1.3p990, 0x1.fffffffffffffp850, -0x1.7p968};
    for (double a : big)
        for (double b : small) {
            double e, qe;
            const double s = two_sum(a, b, e), qs = qd::two_sum(a, b, qe);
            EXPECT_TRUE(same_bits(s, qs) && same_bits(e, qe)) << a << " + " << b;
            const double s2 = two_sum(b, a, e);  // |a| < |b| order: two_sum must not care
            EXPECT_TRUE(same_bits(s2, qs) && same_bits(e, qe)) << b << " + " << a;
        }
    // Products of numbers far apart in exponent; QD's split scales large factors itself.
    hpclab::Rng rng(41);
    for (int i = 0; i < 5000; ++i) {
        const double a = std::ldexp(1.0 + rng.uniform01(), static_cast<int>(rng.uniform_int(-480, 480)));
        const double b = std::ldexp(1.0 + rng.uniform01(), static_cast<int>(rng.uniform_int(-480, 480)));
        double e, qe;
        const double p = two_prod(a, b, e), qp = qd::two_prod(a, b, qe);
        ASSERT_TRUE(same_bits(p, qp) && same_bits(e, qe)) << a << " * " << b;
    }
}

TEST(Hidden, RenormWithZeroWords) {
    const double cases[][5] = {
        {1.0, 0.0, 0x1p-120, 0.0, 0x1p-250},  {1.0, 0x1p-60, 0.0, 0x1p-170, 0x1p-230},
        {1.0, 0.0, 0.0, 0.0, 0x1p-200},       {-3.0, 0x1p-55, 0x1p-110, 0x1p-165, -0x1p-220},
        {0x1p500, 0x1p440, 0x1p380, 0.0, 0x1p260}, {1.0, -0x1p-53, 0x1p-107, -0x1p-161, 0x1p-215},
    };
    for (const auto& c : cases) {
        double a[5], q[5];
        for (int k = 0; k < 5; ++k) a[k] = q[k] = c[k];
        renorm(a[0], a[1], a[2], a[3], a[4]);
        qd::renorm(q[0], q[1], q[2], q[3], q[4]);
        for (int k = 0; k < 4; ++k) EXPECT_TRUE(same_bits(a[k], q[k])) << "word " << k << " of case " << c[0];
        // The value is kept: c0 + ... + c4 equals the four words (to the last bit of qd).
        const qd_real in = qd_real(c[0]) + c[1] + c[2] + c[3] + c[4];
        const qd_real out = qd_real(a[0]) + a[1] + a[2] + a[3];
        EXPECT_LE(std::fabs((out - in).x[0]), std::fabs(c[0]) * 1e-63);
    }
}

TEST(Hidden, OtherSeedsBitForBit) {
    hpclab::Rng rng(4242);
    for (int i = 0; i < 20000; ++i) {
        const QuadDouble a = random_qd(rng, 200), b = random_qd(rng, 200);
        const qd_real qa = to_qd_real(a), qb = to_qd_real(b);
        ASSERT_TRUE(same_bits(a + b, from_qd_real(qa + qb))) << "qd_add at " << i;
        ASSERT_TRUE(same_bits(a - b, from_qd_real(qa - qb))) << "qd_sub at " << i;
        ASSERT_TRUE(same_bits(a * b, from_qd_real(qa * qb))) << "qd_mul at " << i;
        ASSERT_TRUE(same_bits(a / b, from_qd_real(qa / qb))) << "qd_div at " << i;
        const QuadDouble pa = a.v.x < 0 ? -a : a;
        ASSERT_LE(relative_error(sqrt(pa), sqrt(to_qd_real(pa))), 4 * kQdEps) << "qd_sqrt at " << i;
        const DoubleDouble da = make_dd(a.v.x, a.v.y), db = make_dd(b.v.x, b.v.y);
        const dd_real ea = to_dd_real(da), eb = to_dd_real(db);
        ASSERT_TRUE(same_bits(da + db, from_dd_real(ea + eb))) << "dd_add at " << i;
        ASSERT_TRUE(same_bits(da - db, from_dd_real(ea - eb))) << "dd_sub at " << i;
        ASSERT_TRUE(same_bits(da * db, from_dd_real(ea * eb))) << "dd_mul at " << i;
        ASSERT_TRUE(same_bits(da / db, from_dd_real(ea / eb))) << "dd_div at " << i;
        const DoubleDouble pd = make_dd(std::fabs(da.v.x), da.v.x < 0 ? -da.v.y : da.v.y);
        ASSERT_TRUE(same_bits(sqrt(pd), from_dd_real(sqrt(to_dd_real(pd))))) << "dd_sqrt at " << i;
    }
}

TEST(Hidden, AdditionWithSmallerFirstOperand) {
    // |a.hi| < |b.hi| and opposite signs: the cases quick_two_sum gets wrong.
    hpclab::Rng rng(43);
    for (int i = 0; i < 20000; ++i) {
        const DoubleDouble a = random_dd(rng, 40), b = random_dd(rng, 40);
        const DoubleDouble small = std::fabs(a.v.x) < std::fabs(b.v.x) ? a : b;
        const DoubleDouble large = std::fabs(a.v.x) < std::fabs(b.v.x) ? b : a;
        ASSERT_TRUE(same_bits(small + large, from_dd_real(to_dd_real(small) + to_dd_real(large)))) << i;
        const QuadDouble qs = make_qd(small.v.x, small.v.y), ql = make_qd(large.v.x, large.v.y);
        ASSERT_TRUE(same_bits(qs + ql, from_qd_real(to_qd_real(qs) + to_qd_real(ql)))) << i;
    }
}

TEST(Hidden, CompareSignsAndZeros) {
    EXPECT_EQ(compare(make_qd(0.0), make_qd(-0.0)), 0);
    EXPECT_EQ(compare(make_qd(1.0, 0x1p-60), make_qd(1.0, -0x1p-60)), 1);
    EXPECT_EQ(compare(make_qd(-1.0, 0, 0, -0x1p-200), make_qd(-1.0)), -1);
    EXPECT_EQ(compare(make_qd(-2.0), make_qd(1.0, 0x1p-55)), -1);
    EXPECT_TRUE(make_qd(3.0, 0x1p-52, 0x1p-110) > make_qd(3.0, 0x1p-52, 0x1p-111));
}

TEST(Hidden, NewtonExtremeExponentsAndBlocks) {
    HPCLAB_REQUIRE_GPU();
    std::vector<QuadDouble> x;
    for (int e = -600; e <= 600; e += 7) x.push_back(from_qd_real(qd_real(std::ldexp(1.0, e)) * 7.0 / 3.0));
    for (int block : {32, 96, 256, 1024}) {
        std::vector<int> iterations;
        const auto y = gpu_sqrt_newton(x, &iterations, block);
        const auto w = gpu_sqrt_newton_interval(x, block);
        for (std::size_t i = 0; i < x.size(); ++i) {
            ASSERT_LE(relative_error(y[i], sqrt(to_qd_real(x[i]))), 1e-62) << "x = " << x[i] << ", block " << block;
            ASSERT_TRUE(same_bits(y[i], w[i])) << "layouts differ at " << i << ", block " << block;
            ASSERT_LE(iterations[i], 4);
        }
    }
    EXPECT_TRUE(gpu_sqrt_newton(std::vector<QuadDouble>{}).empty());
}

TEST(Hidden, ReductionAroundBlockSizes) {
    HPCLAB_REQUIRE_GPU();
    hpclab::Rng rng(44);
    for (std::size_t n : {std::size_t(2), std::size_t(511), std::size_t(512), std::size_t(513),
                          std::size_t(256 * 1024 + 1), std::size_t(3000017)}) {
        std::vector<QuadDouble> x(n);
        qd_real want = 0.0;
        for (auto& v : x) {
            v = random_qd(rng, 30, false);
            want += to_qd_real(v);
        }
        EXPECT_LE(relative_error(gpu_sum(x), want), 1e-58) << "n = " << n;
    }
}

TEST(Hidden, ReductionCancelsExactly) {
    HPCLAB_REQUIRE_GPU();
    hpclab::Rng rng(45);
    const std::size_t pairs = 400000;
    std::vector<QuadDouble> x;
    for (std::size_t i = 0; i < pairs; ++i) {
        const double v = rng.uniform(1.0, 2.0) * std::ldexp(1.0, static_cast<int>(rng.uniform_int(-10, 10)));
        x.push_back(make_qd(v));
        x.push_back(make_qd(-v));
    }
    for (std::size_t i = 0; i < x.size(); ++i) std::swap(x[i], x[static_cast<std::size_t>(rng.uniform_int(0, i))]);
    x.push_back(make_qd(0x1p-40));
    const QuadDouble s = gpu_sum(x);
    EXPECT_EQ(s.v.x, 0x1p-40) << "sum " << s;
    EXPECT_EQ(s.v.y, 0.0);
}

TEST(Hidden, PiForTinyN) {
    HPCLAB_REQUIRE_GPU();
    EXPECT_EQ(gpu_pi(1).v.x, 2.0);  // 4 * (1/2 + 0): the trapezoid on one interval
    const qd_real want2 = 1.0 + sqrt(qd_real(3.0));  // 4 * (1/2) * (1/2 + sqrt(3)/2)
    EXPECT_LE(relative_error(gpu_pi(2), want2), 1e-62);
    EXPECT_THROW(gpu_pi(0), std::invalid_argument);
}

TEST(Hidden, ComplexNewtonConvergesOnDevice) {
    HPCLAB_REQUIRE_GPU();
    hpclab::Rng rng(46);
    std::vector<ComplexQd> c(2000), z0(2000);
    for (std::size_t i = 0; i < c.size(); ++i) {
        const double r = rng.uniform(0.5, 4.0), angle = rng.uniform(-3.0, 3.0);
        c[i] = make_cqd(make_qd(r * std::cos(angle)), make_qd(r * std::sin(angle)));
        z0[i] = make_cqd(make_qd(1.0), make_qd(angle > 0 ? 0.5 : -0.5));
    }
    const auto z = gpu_complex_newton(c, z0, 14);
    for (std::size_t i = 0; i < c.size(); ++i) {
        const qd_real re = to_qd_real(z[i].re), im = to_qd_real(z[i].im);
        const qd_real dr = re * re - im * im - to_qd_real(c[i].re), di = 2.0 * re * im - to_qd_real(c[i].im);
        ASSERT_LE(sqrt(dr * dr + di * di).x[0], 1e-60) << "element " << i;
    }
}

TEST(Hidden, DeviceBitsOtherSizes) {
    HPCLAB_REQUIRE_GPU();
    hpclab::Rng rng(47);
    for (std::size_t n : {std::size_t(1), std::size_t(65537)}) {
        std::vector<QuadDouble> a(n), b(n);
        for (std::size_t i = 0; i < n; ++i) {
            a[i] = random_qd(rng, 300, true);
            b[i] = random_qd(rng, 300);
        }
        for (Op op : kAllOps) {
            const auto got = gpu_apply(op, a, b);
            for (std::size_t i = 0; i < n; ++i)
                ASSERT_TRUE(same_bits(got[i], apply_host(op, a[i], b[i]))) << op_name(op) << " at " << i;
        }
    }
}

}  // namespace
