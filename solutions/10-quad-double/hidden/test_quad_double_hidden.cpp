// Lab 10 hidden tests: error-free transformations at the ends of the exponent range,
// renormalization with zero words, other seeds bit for bit against QD, Newton at extreme
// exponents and odd sizes and block sizes, reductions around block boundaries and with exact
// cancellation, pi for tiny n, complex Newton convergence on the device.
//
// Every call into student code is a judged call (hpclab/judged.hpp): a loop over many operands
// is one call that returns the vector of results; the expected values come from QD.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include <qd/qd_real.h>

#include "hpclab/data.hpp"
#include "hpclab/gtest_gpu.hpp"
#include "hpclab/judged.hpp"
#include "md_operators.hpp"
#include "qd_reference.hpp"
#include "quad_double.hpp"
#include "tests/eft_test_util.hpp"

namespace {

using namespace lab10;

using lab10_test::each;
using lab10_test::judged_eft;
using lab10_test::Pair;

TEST(Hidden, EftAtExtremes) {
    const double big[] = {0x1.fffffffffffffp1000, 0x1.123456789abcdp900, -0x1.5p1020};
    const double small[] = {0x1.3p990, 0x1.fffffffffffffp850, -0x1.7p968};
    std::vector<double> xs, ys;  // every (big, small) pair, then the same pairs swapped
    for (double a : big)
        for (double b : small) {
            xs.push_back(a);
            ys.push_back(b);
        }
    const std::size_t pairs = xs.size();
    for (std::size_t i = 0; i < pairs; ++i) {
        xs.push_back(ys[i]);  // |a| < |b| order: two_sum must not care
        ys.push_back(xs[i]);
    }
    const auto sums = judged_eft(xs, ys, [](double x, double y, double& e) { return two_sum(x, y, e); });
    ASSERT_EQ(sums.size(), xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i) {
        double qe;
        const double qs = qd::two_sum(xs[i], ys[i], qe);
        EXPECT_TRUE(same_bits(sums[i][0], qs) && same_bits(sums[i][1], qe)) << xs[i] << " + " << ys[i];
    }
    // Products of numbers far apart in exponent; QD's split scales large factors itself.
    hpclab::Rng rng(41);
    const std::size_t n = 5000;
    std::vector<double> a(n), b(n);
    for (std::size_t i = 0; i < n; ++i) {
        a[i] = std::ldexp(1.0 + rng.uniform01(), static_cast<int>(rng.uniform_int(-480, 480)));
        b[i] = std::ldexp(1.0 + rng.uniform01(), static_cast<int>(rng.uniform_int(-480, 480)));
    }
    const auto prods = judged_eft(a, b, [](double x, double y, double& e) { return two_prod(x, y, e); });
    ASSERT_EQ(prods.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
        double qe;
        const double qp = qd::two_prod(a[i], b[i], qe);
        ASSERT_TRUE(same_bits(prods[i][0], qp) && same_bits(prods[i][1], qe)) << a[i] << " * " << b[i];
    }
}

TEST(Hidden, RenormWithZeroWords) {
    const double cases[][5] = {
        {1.0, 0.0, 0x1p-120, 0.0, 0x1p-250},
        {1.0, 0x1p-60, 0.0, 0x1p-170, 0x1p-230},
        {1.0, 0.0, 0.0, 0.0, 0x1p-200},
        {-3.0, 0x1p-55, 0x1p-110, 0x1p-165, -0x1p-220},
        {0x1p500, 0x1p440, 0x1p380, 0.0, 0x1p260},
        {1.0, -0x1p-53, 0x1p-107, -0x1p-161, 0x1p-215},
    };
    using Five = std::array<double, 5>;
    const std::size_t count = sizeof cases / sizeof cases[0];
    const auto got = HPCLAB_CALL([&] {
        return each(count, [&](std::size_t i) {
            Five a;
            for (int k = 0; k < 5; ++k) a[k] = cases[i][k];
            renorm(a[0], a[1], a[2], a[3], a[4]);
            return a;
        });
    });
    ASSERT_EQ(got.size(), count);
    for (std::size_t i = 0; i < count; ++i) {
        const double* c = cases[i];
        const Five& a = got[i];
        double q[5];
        for (int k = 0; k < 5; ++k) q[k] = c[k];
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
    const std::size_t n = 20000;
    std::vector<QuadDouble> a(n), b(n), pa(n);
    std::vector<DoubleDouble> da(n), db(n), pd(n);
    for (std::size_t i = 0; i < n; ++i) {
        a[i] = random_qd(rng, 200);
        b[i] = random_qd(rng, 200);
        const QuadDouble& x = a[i];
        pa[i] = x.v.x < 0 ? make_qd(-x.v.x, -x.v.y, -x.v.z, -x.v.w) : x;
        da[i] = make_dd(a[i].v.x, a[i].v.y);
        db[i] = make_dd(b[i].v.x, b[i].v.y);
        pd[i] = make_dd(std::fabs(da[i].v.x), da[i].v.x < 0 ? -da[i].v.y : da[i].v.y);
    }
    const auto qadd = HPCLAB_CALL([&] { return each(n, [&](std::size_t i) { return a[i] + b[i]; }); });
    const auto qsub = HPCLAB_CALL([&] { return each(n, [&](std::size_t i) { return a[i] - b[i]; }); });
    const auto qmul = HPCLAB_CALL([&] { return each(n, [&](std::size_t i) { return a[i] * b[i]; }); });
    const auto qdiv = HPCLAB_CALL([&] { return each(n, [&](std::size_t i) { return a[i] / b[i]; }); });
    const auto qsqrt = HPCLAB_CALL([&] { return each(n, [&](std::size_t i) { return sqrt(pa[i]); }); });
    const auto dadd = HPCLAB_CALL([&] { return each(n, [&](std::size_t i) { return da[i] + db[i]; }); });
    const auto dsub = HPCLAB_CALL([&] { return each(n, [&](std::size_t i) { return da[i] - db[i]; }); });
    const auto dmul = HPCLAB_CALL([&] { return each(n, [&](std::size_t i) { return da[i] * db[i]; }); });
    const auto ddiv = HPCLAB_CALL([&] { return each(n, [&](std::size_t i) { return da[i] / db[i]; }); });
    const auto dsqrt = HPCLAB_CALL([&] { return each(n, [&](std::size_t i) { return sqrt(pd[i]); }); });
    for (const std::size_t size : {qadd.size(), qsub.size(), qmul.size(), qdiv.size(), qsqrt.size(), dadd.size(),
                                   dsub.size(), dmul.size(), ddiv.size(), dsqrt.size()})
        ASSERT_EQ(size, n);
    for (std::size_t i = 0; i < n; ++i) {
        const qd_real qa = to_qd_real(a[i]), qb = to_qd_real(b[i]);
        ASSERT_TRUE(same_bits(qadd[i], from_qd_real(qa + qb))) << "qd_add at " << i;
        ASSERT_TRUE(same_bits(qsub[i], from_qd_real(qa - qb))) << "qd_sub at " << i;
        ASSERT_TRUE(same_bits(qmul[i], from_qd_real(qa * qb))) << "qd_mul at " << i;
        ASSERT_TRUE(same_bits(qdiv[i], from_qd_real(qa / qb))) << "qd_div at " << i;
        ASSERT_LE(relative_error(qsqrt[i], sqrt(to_qd_real(pa[i]))), 4 * kQdEps) << "qd_sqrt at " << i;
        const dd_real ea = to_dd_real(da[i]), eb = to_dd_real(db[i]);
        ASSERT_TRUE(same_bits(dadd[i], from_dd_real(ea + eb))) << "dd_add at " << i;
        ASSERT_TRUE(same_bits(dsub[i], from_dd_real(ea - eb))) << "dd_sub at " << i;
        ASSERT_TRUE(same_bits(dmul[i], from_dd_real(ea * eb))) << "dd_mul at " << i;
        ASSERT_TRUE(same_bits(ddiv[i], from_dd_real(ea / eb))) << "dd_div at " << i;
        ASSERT_TRUE(same_bits(dsqrt[i], from_dd_real(sqrt(to_dd_real(pd[i]))))) << "dd_sqrt at " << i;
    }
}

TEST(Hidden, AdditionWithSmallerFirstOperand) {
    // |a.hi| < |b.hi| and opposite signs: the cases quick_two_sum gets wrong.
    hpclab::Rng rng(43);
    const std::size_t n = 20000;
    std::vector<DoubleDouble> small(n), large(n);
    std::vector<QuadDouble> qs(n), ql(n);
    for (std::size_t i = 0; i < n; ++i) {
        const DoubleDouble a = random_dd(rng, 40), b = random_dd(rng, 40);
        small[i] = std::fabs(a.v.x) < std::fabs(b.v.x) ? a : b;
        large[i] = std::fabs(a.v.x) < std::fabs(b.v.x) ? b : a;
        qs[i] = make_qd(small[i].v.x, small[i].v.y);
        ql[i] = make_qd(large[i].v.x, large[i].v.y);
    }
    const auto dsum = HPCLAB_CALL([&] { return each(n, [&](std::size_t i) { return small[i] + large[i]; }); });
    const auto qsum = HPCLAB_CALL([&] { return each(n, [&](std::size_t i) { return qs[i] + ql[i]; }); });
    ASSERT_EQ(dsum.size(), n);
    ASSERT_EQ(qsum.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
        ASSERT_TRUE(same_bits(dsum[i], from_dd_real(to_dd_real(small[i]) + to_dd_real(large[i])))) << i;
        ASSERT_TRUE(same_bits(qsum[i], from_qd_real(to_qd_real(qs[i]) + to_qd_real(ql[i])))) << i;
    }
}

TEST(Hidden, CompareSignsAndZeros) {
    EXPECT_EQ(HPCLAB_VALUE(compare(make_qd(0.0), make_qd(-0.0))), 0);
    EXPECT_EQ(HPCLAB_VALUE(compare(make_qd(1.0, 0x1p-60), make_qd(1.0, -0x1p-60))), 1);
    EXPECT_EQ(HPCLAB_VALUE(compare(make_qd(-1.0, 0, 0, -0x1p-200), make_qd(-1.0))), -1);
    EXPECT_EQ(HPCLAB_VALUE(compare(make_qd(-2.0), make_qd(1.0, 0x1p-55))), -1);
    EXPECT_TRUE(HPCLAB_VALUE(make_qd(3.0, 0x1p-52, 0x1p-110) > make_qd(3.0, 0x1p-52, 0x1p-111)));
}

TEST(Hidden, NewtonExtremeExponentsAndBlocks) {
    HPCLAB_REQUIRE_GPU();
    int j = 0;
    for (int block : {32, 96, 256, 1024}) {
        // Each block size gets its own numbers (2^e times 7/3, 10/3, 13/3, 16/3), so that no
        // launch can pass by reusing the results of another.
        std::vector<QuadDouble> x;
        for (int e = -600; e <= 600; e += 7)
            x.push_back(from_qd_real(qd_real(std::ldexp(1.0, e)) * (7.0 + 3.0 * j) / 3.0));
        ++j;
        // The interval layout first: its results cannot come from the other layout's. (How
        // many steps the kernel says it took is its own account: not judged, see the visible
        // Newton.StepsFromTheDoubleRoot.)
        const auto w = HPCLAB_VALUE(gpu_sqrt_newton_interval(x, block));
        const auto y = HPCLAB_VALUE(gpu_sqrt_newton(x, nullptr, block));
        ASSERT_EQ(w.size(), x.size());
        ASSERT_EQ(y.size(), x.size());
        for (std::size_t i = 0; i < x.size(); ++i) {
            ASSERT_LE(relative_error(y[i], sqrt(to_qd_real(x[i]))), 1e-62) << "x = " << x[i] << ", block " << block;
            ASSERT_TRUE(same_bits(y[i], w[i])) << "layouts differ at " << i << ", block " << block;
        }
    }
    EXPECT_TRUE(HPCLAB_VALUE(gpu_sqrt_newton(std::vector<QuadDouble>{})).empty());
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
        EXPECT_LE(relative_error(HPCLAB_VALUE(gpu_sum(x)), want), 1e-58) << "n = " << n;
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
    const QuadDouble s = HPCLAB_VALUE(gpu_sum(x));
    EXPECT_EQ(s.v.x, 0x1p-40) << "sum " << s;
    EXPECT_EQ(s.v.y, 0.0);
}

TEST(Hidden, PiForTinyN) {
    HPCLAB_REQUIRE_GPU();
    EXPECT_EQ(HPCLAB_VALUE(gpu_pi(1)).v.x, 2.0);     // 4 * (1/2 + 0): the trapezoid on one interval
    const qd_real want2 = 1.0 + sqrt(qd_real(3.0));  // 4 * (1/2) * (1/2 + sqrt(3)/2)
    EXPECT_LE(relative_error(HPCLAB_VALUE(gpu_pi(2)), want2), 1e-62);
    EXPECT_THROW(HPCLAB_VALUE(gpu_pi(0)), std::invalid_argument);
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
    const auto z = HPCLAB_VALUE(gpu_complex_newton(c, z0, 14));
    ASSERT_EQ(z.size(), c.size());
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
            // The device first: its results cannot come from the host's.
            const auto got = HPCLAB_VALUE(gpu_apply(op, a, b));
            const auto host =
                HPCLAB_CALL([&] { return each(n, [&](std::size_t i) { return apply_host(op, a[i], b[i]); }); });
            ASSERT_EQ(got.size(), n);
            ASSERT_EQ(host.size(), n);
            for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(same_bits(got[i], host[i])) << op_name(op) << " at " << i;
        }
    }
}

}  // namespace
