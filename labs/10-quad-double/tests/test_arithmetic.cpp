// Lab 10 visible host tests: your double-double and quad-double arithmetic against the QD
// library (Hida, Li, Bailey): error-free transformations bit for bit, known values, special
// cases, and 10^5 random inputs per operation spanning exponents 2^-330 .. 2^330, with the
// worst error reported in ulps of the format.
//
// Every call into multi_double.hpp is a judged call (hpclab/judged.hpp): a loop over many
// operands is one call that returns the vector of results; the expected values come from QD.
#include <gtest/gtest.h>

#include <array>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <qd/dd_real.h>
#include <qd/qd_real.h>

#include "eft_test_util.hpp"
#include "hpclab/check.hpp"
#include "hpclab/data.hpp"
#include "hpclab/judged.hpp"
#include "md_operators.hpp"
#include "qd_reference.hpp"
#include "quad_double.hpp"

// QD needs fpu_fix_start() only where doubles are evaluated in x87 80-bit registers (32-bit
// x86). On x86-64 (SSE2) and aarch64 every double operation rounds to double: no fix needed.
static_assert(FLT_EVAL_METHOD == 0, "double arithmetic must round to double (use SSE2, not x87)");

namespace {

using namespace lab10;

constexpr int kRandomCount = 100000;

using lab10_test::each;
using lab10_test::judged_eft;
using lab10_test::Pair;

TEST(Eft, TwoSumIsExact) {
    hpclab::Rng rng(1);
    const std::size_t n = 10000;
    std::vector<double> a(n), b(n);
    for (std::size_t i = 0; i < n; ++i) {
        a[i] = random_qd(rng, 60).v.x;
        b[i] = random_qd(rng, 60).v.x;
    }
    const auto got = judged_eft(a, b, [](double x, double y, double& e) { return two_sum(x, y, e); });
    ASSERT_EQ(got.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
        double qerr;
        const double qs = qd::two_sum(a[i], b[i], qerr);
        ASSERT_TRUE(same_bits(got[i][0], qs) && same_bits(got[i][1], qerr))
            << "two_sum(" << a[i] << ", " << b[i] << ") = " << got[i][0] << " + " << got[i][1] << ", expected " << qs
            << " + " << qerr;
    }
}

TEST(Eft, QuickTwoSumIsExactWhenOrdered) {
    hpclab::Rng rng(2);
    const std::size_t n = 10000;
    std::vector<double> a(n), b(n);
    for (std::size_t i = 0; i < n; ++i) {
        a[i] = random_qd(rng, 60).v.x;
        b[i] = random_qd(rng, 60).v.x;
        if (std::fabs(a[i]) < std::fabs(b[i])) std::swap(a[i], b[i]);
    }
    const auto got = judged_eft(a, b, [](double x, double y, double& e) { return quick_two_sum(x, y, e); });
    ASSERT_EQ(got.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
        double qerr;
        const double qs = qd::two_sum(a[i], b[i], qerr);
        ASSERT_TRUE(same_bits(got[i][0], qs) && same_bits(got[i][1], qerr))
            << "quick_two_sum(" << a[i] << ", " << b[i] << ") = " << got[i][0] << " + " << got[i][1]
            << ", exact: " << qs << " + " << qerr;
    }
}

TEST(Eft, TwoProdIsExact) {
    // QD splits the factors (Dekker); an FMA gives the same exact error term.
    hpclab::Rng rng(3);
    const std::size_t n = 10000;
    std::vector<double> a(n), b(n);
    for (std::size_t i = 0; i < n; ++i) {
        a[i] = random_qd(rng, 300).v.x;
        b[i] = random_qd(rng, 300).v.x;
    }
    const auto got = judged_eft(a, b, [](double x, double y, double& e) { return two_prod(x, y, e); });
    ASSERT_EQ(got.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
        double qerr;
        const double qp = qd::two_prod(a[i], b[i], qerr);
        ASSERT_TRUE(same_bits(got[i][0], qp) && same_bits(got[i][1], qerr))
            << "two_prod(" << a[i] << ", " << b[i] << ") = " << got[i][0] << " + " << got[i][1] << ", exact: " << qp
            << " + " << qerr;
    }
    const Pair pe = HPCLAB_CALL([&] {
        double err;
        const double p = two_prod(1.0 + 0x1p-52, 1.0 - 0x1p-52, err);
        return Pair{p, err};
    });
    EXPECT_EQ(pe[0], 1.0);
    EXPECT_EQ(pe[1], -0x1p-104) << "(1 + 2^-52)(1 - 2^-52) = 1 - 2^-104 exactly";
}

using Five = std::array<double, 5>;

// The five words after renorm(c0, c1, c2, c3, c4).
Five renormed(Five c) {
    renorm(c[0], c[1], c[2], c[3], c[4]);
    return c;
}

TEST(Eft, RenormKeepsEveryWord) {
    hpclab::Rng rng(4);
    const std::size_t n = 10000;
    std::vector<Five> in(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double x = random_qd(rng, 100).v.x;
        for (int k = 0; k < 5; ++k) in[i][k] = x * std::ldexp(rng.uniform(-1, 1), -50 * k);
    }
    const auto got = HPCLAB_CALL([&] { return each(n, [&](std::size_t i) { return renormed(in[i]); }); });
    ASSERT_EQ(got.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
        Five q = in[i];
        qd::renorm(q[0], q[1], q[2], q[3], q[4]);
        for (int k = 0; k < 4; ++k)
            ASSERT_TRUE(same_bits(got[i][k], q[k])) << "word " << k << " differs at input " << i;
    }
    // The fifth term must reach the result: 1 + 2^-60 + 2^-120 + 2^-180 + 2^-240.
    const Five c = HPCLAB_VALUE(renormed(Five{1.0, 0x1p-60, 0x1p-120, 0x1p-180, 0x1p-240}));
    EXPECT_EQ(c[0] + 0.0, 1.0);
    const qd_real sum = qd_real(c[0], c[1], c[2], c[3]);
    const qd_real want =
        qd_real(1.0) + std::ldexp(1.0, -60) + std::ldexp(1.0, -120) + std::ldexp(1.0, -180) + std::ldexp(1.0, -240);
    EXPECT_EQ((sum - want).x[0], 0.0) << "renormalization lost a term";
}

TEST(Known, PiHalfTimesTwoIsPi) {
    // Lecture 37's first kernel (L5293-5295): pi/2 * 2 == pi in all four words.
    const QuadDouble pi = from_qd_real(qd_real::_pi);
    const QuadDouble half = HPCLAB_VALUE(pi / make_qd(2.0));
    const QuadDouble twice = HPCLAB_VALUE(half * make_qd(2.0));
    EXPECT_TRUE(same_bits(twice, pi)) << "pi/2*2 = " << twice << "\n          pi = " << pi;
    EXPECT_EQ(half.v.x, pi.v.x / 2);
    EXPECT_EQ(half.v.w, pi.v.w / 2);
    const DoubleDouble dpi = from_dd_real(dd_real::_pi);
    const DoubleDouble dhalf = HPCLAB_VALUE(dpi / make_dd(2.0));
    EXPECT_TRUE(same_bits(HPCLAB_VALUE(dhalf * make_dd(2.0)), dpi));
}

TEST(Known, OneThirdTimesThree) {
    const QuadDouble third = HPCLAB_VALUE(make_qd(1.0) / make_qd(3.0));
    EXPECT_LE(relative_error(third, qd_real(1.0) / 3.0), 2 * kQdEps);
    const QuadDouble one = HPCLAB_VALUE(third * make_qd(3.0));
    EXPECT_LE(std::fabs((to_qd_real(one) - 1.0).x[0]), 2 * kQdEps);
    const DoubleDouble dthird = HPCLAB_VALUE(make_dd(1.0) / make_dd(3.0));
    EXPECT_LE(relative_error(dthird, dd_real(1.0) / 3.0), 2 * kDdEps);
    const DoubleDouble done = HPCLAB_VALUE(dthird * make_dd(3.0));
    EXPECT_LE(std::fabs((to_dd_real(done) - 1.0).x[0]), 2 * kDdEps);
}

TEST(Known, SqrtTwoSquared) {
    const QuadDouble r = HPCLAB_VALUE(sqrt(make_qd(2.0)));
    EXPECT_LE(relative_error(r, sqrt(qd_real(2.0))), 4 * kQdEps) << "sqrt(2) = " << r;
    const QuadDouble r2 = HPCLAB_VALUE(r * r);
    EXPECT_LE(std::fabs((to_qd_real(r2) - 2.0).x[0]), 8 * kQdEps);
    const DoubleDouble d = HPCLAB_VALUE(sqrt(make_dd(2.0)));
    EXPECT_LE(relative_error(d, sqrt(dd_real(2.0))), 4 * kDdEps);
    const DoubleDouble d2 = HPCLAB_VALUE(d * d);
    EXPECT_LE(std::fabs((to_dd_real(d2) - 2.0).x[0]), 8 * kDdEps);
}

TEST(Known, SqrtOfZeroAndNegative) {
    const QuadDouble z = HPCLAB_VALUE(sqrt(make_qd(0.0)));
    EXPECT_TRUE(z.v.x == 0 && z.v.y == 0 && z.v.z == 0 && z.v.w == 0);
    EXPECT_TRUE(std::isnan(HPCLAB_VALUE(sqrt(make_qd(-1.0))).v.x));
    EXPECT_TRUE(std::isnan(HPCLAB_VALUE(sqrt(make_qd(-1e-300, 1e-320))).v.x));
    const DoubleDouble dz = HPCLAB_VALUE(sqrt(make_dd(0.0)));
    EXPECT_TRUE(dz.v.x == 0 && dz.v.y == 0);
    EXPECT_TRUE(std::isnan(HPCLAB_VALUE(sqrt(make_dd(-2.0))).v.x));
}

TEST(Known, TinyAndHugeExponents) {
    // Magnitudes near the ends of the double range, where no intermediate overflows and the
    // low words stay normal numbers.
    const qd_real big = qd_real(3.0) * std::ldexp(1.0, 960) / 7.0;    // ~1.2e289
    const qd_real tiny = qd_real(5.0) * std::ldexp(1.0, -800) / 3.0;  // ~1e-241
    const QuadDouble b = from_qd_real(big), t = from_qd_real(tiny);
    EXPECT_LE(relative_error(HPCLAB_VALUE(b * t), big * tiny), 4 * kQdEps);
    EXPECT_LE(relative_error(HPCLAB_VALUE(t / b), tiny / big), 8 * kQdEps);
    EXPECT_LE(relative_error(HPCLAB_VALUE(b + t), big + tiny), 2 * kQdEps);
    EXPECT_LE(relative_error(HPCLAB_VALUE(sqrt(b)), sqrt(big)), 8 * kQdEps);
    EXPECT_LE(relative_error(HPCLAB_VALUE(sqrt(t)), sqrt(tiny)), 8 * kQdEps);
    const dd_real dbig = dd_real(3.0) * std::ldexp(1.0, 960) / 7.0, dtiny = dd_real(5.0) * std::ldexp(1.0, -900) / 3.0;
    const dd_real dmid = dd_real(7.0) * std::ldexp(1.0, 400) / 3.0;
    const DoubleDouble db = from_dd_real(dbig), dt = from_dd_real(dtiny), dm = from_dd_real(dmid);
    EXPECT_LE(relative_error(HPCLAB_VALUE(db / dm), dbig / dmid), 8 * kDdEps);
    EXPECT_LE(relative_error(HPCLAB_VALUE(dt / dm), dtiny / dmid), 8 * kDdEps);
    EXPECT_LE(relative_error(HPCLAB_VALUE(dt * db), dtiny * dbig), 4 * kDdEps);
    EXPECT_LE(relative_error(HPCLAB_VALUE(sqrt(dt)), sqrt(dtiny)), 8 * kDdEps);
}

TEST(Known, CancellationIsExact) {
    hpclab::Rng rng(5);
    const std::size_t n = 1000;
    std::vector<QuadDouble> a(n);
    std::vector<DoubleDouble> b(n);
    for (std::size_t i = 0; i < n; ++i) {
        a[i] = random_qd(rng);
        b[i] = random_dd(rng);
    }
    const auto d = HPCLAB_CALL([&] { return each(n, [&](std::size_t i) { return a[i] - a[i]; }); });
    const auto e = HPCLAB_CALL([&] { return each(n, [&](std::size_t i) { return b[i] - b[i]; }); });
    ASSERT_EQ(d.size(), n);
    ASSERT_EQ(e.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
        ASSERT_TRUE(d[i].v.x == 0 && d[i].v.y == 0 && d[i].v.z == 0 && d[i].v.w == 0) << "a - a = " << d[i];
        ASSERT_TRUE(e[i].v.x == 0 && e[i].v.y == 0);
    }
    // 1 + 2^-200 - 1 keeps the tiny part: it is in the fourth word.
    const QuadDouble one = make_qd(1.0), eps = make_qd(0x1p-200);
    const QuadDouble sum = HPCLAB_VALUE(one + eps);
    EXPECT_EQ(to_qd_real(HPCLAB_VALUE(sum - one)).x[0], 0x1p-200);
}

TEST(Compare, OrdersLikeQd) {
    hpclab::Rng rng(6);
    const std::size_t n = 10000;
    std::vector<QuadDouble> a(n), b(n);
    for (std::size_t i = 0; i < n; ++i) {
        a[i] = random_qd(rng, 4);
        // Every fourth pair differs only in the last word.
        b[i] = (i % 4 == 0) ? make_qd(a[i].v.x, a[i].v.y, a[i].v.z, a[i].v.w * (1 + rng.uniform(-0.5, 0.5)))
                            : random_qd(rng, 4);
        if (i % 16 == 1) b[i] = a[i];
    }
    const auto cmp = HPCLAB_CALL([&] { return each(n, [&](std::size_t i) { return compare(a[i], b[i]); }); });
    const auto less = HPCLAB_CALL([&] { return each(n, [&](std::size_t i) { return a[i] < b[i] ? 1 : 0; }); });
    const auto equal = HPCLAB_CALL([&] { return each(n, [&](std::size_t i) { return a[i] == b[i] ? 1 : 0; }); });
    ASSERT_EQ(cmp.size(), n);
    ASSERT_EQ(less.size(), n);
    ASSERT_EQ(equal.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
        const qd_real qa = to_qd_real(a[i]), qb = to_qd_real(b[i]);
        const int want = qa < qb ? -1 : (qa == qb ? 0 : 1);
        ASSERT_EQ(cmp[i], want) << a[i] << " vs " << b[i];
        ASSERT_EQ(less[i] != 0, qa < qb);
        ASSERT_EQ(equal[i] != 0, qa == qb);
    }
}

// ---- every operation against QD on 10^5 random inputs ------------------------------------

struct OpCase {
    const char* name;
    bool quad;
    Op op;
    bool same_bits_as_qd;  // the lab uses QD's own algorithm for this operation
};

// GoogleTest prints a failing parameter with this (instead of its bytes).
void PrintTo(const OpCase& c, std::ostream* os) { *os << c.name; }

class RandomVsQd : public ::testing::TestWithParam<OpCase> {};

template <class Q>
Q qd_apply(Op op, const Q& a, const Q& b) {
    switch (op) {
        case Op::add: return a + b;
        case Op::sub: return a - b;
        case Op::mul: return a * b;
        case Op::div: return a / b;
        case Op::sqrt: return sqrt(a);
    }
    return a;
}

TEST_P(RandomVsQd, Agrees) {
    const OpCase c = GetParam();
    hpclab::Rng rng(100 + static_cast<int>(c.op) + (c.quad ? 10 : 0));
    const double eps = c.quad ? kQdEps : kDdEps;
    const double bound = c.quad ? 1e-60 : 1e-30;  // the bounds on the relative error
    double worst = 0, worst_exact = 0;            // against QD; against the exact result (dd only)
    int differing_bits = 0, first_diff = -1;
    const std::size_t n = kRandomCount;
    if (c.quad) {
        std::vector<QuadDouble> a(n), b(n);
        for (std::size_t i = 0; i < n; ++i) {
            a[i] = random_qd(rng);
            b[i] = random_qd(rng);
            const QuadDouble& x = a[i];
            if (c.op == Op::sqrt)
                a[i] = make_qd(std::fabs(x.v.x), x.v.x < 0 ? -x.v.y : x.v.y, x.v.x < 0 ? -x.v.z : x.v.z,
                               x.v.x < 0 ? -x.v.w : x.v.w);
        }
        const auto got =
            HPCLAB_CALL([&] { return each(n, [&](std::size_t i) { return apply_host(c.op, a[i], b[i]); }); });
        ASSERT_EQ(got.size(), n);
        for (std::size_t i = 0; i < n; ++i) {
            const qd_real want = qd_apply(c.op, to_qd_real(a[i]), to_qd_real(b[i]));
            const double err = relative_error(got[i], want);
            ASSERT_FALSE(std::isnan(err)) << c.name << ": NaN at input " << i;
            if (err > worst) worst = err;
            if (!same_bits(got[i], from_qd_real(want)) && differing_bits++ == 0) first_diff = static_cast<int>(i);
        }
    } else {
        std::vector<DoubleDouble> a(n), b(n);
        for (std::size_t i = 0; i < n; ++i) {
            a[i] = random_dd(rng);
            b[i] = random_dd(rng);
            if (c.op == Op::sqrt && a[i].v.x < 0) a[i] = make_dd(-a[i].v.x, -a[i].v.y);
        }
        const auto got =
            HPCLAB_CALL([&] { return each(n, [&](std::size_t i) { return apply_host(c.op, a[i], b[i]); }); });
        ASSERT_EQ(got.size(), n);
        for (std::size_t i = 0; i < n; ++i) {
            const dd_real want = qd_apply(c.op, to_dd_real(a[i]), to_dd_real(b[i]));
            const double err = relative_error(got[i], want);
            ASSERT_FALSE(std::isnan(err)) << c.name << ": NaN at input " << i;
            if (err > worst) worst = err;
            if (!same_bits(got[i], from_dd_real(want)) && differing_bits++ == 0) first_diff = static_cast<int>(i);
            // The true result to ~1e-64, in quad-double: the accuracy of the algorithm itself.
            const qd_real exact = qd_apply(c.op, qd_real(a[i].v.x, a[i].v.y, 0, 0), qd_real(b[i].v.x, b[i].v.y, 0, 0));
            worst_exact = hpclab::nan_max(worst_exact, relative_error(qd_real(got[i].v.x, got[i].v.y, 0, 0), exact));
        }
    }
    std::printf("[ %-8s ] worst relative error against QD %.3g = %.2f ulps (eps %.3g); %d of %d differ in bits\n",
                c.name, worst, worst / eps, eps, differing_bits, kRandomCount);
    if (!c.quad)
        std::printf("[ %-8s ] worst relative error against the exact result %.3g = %.2f ulps\n", c.name, worst_exact,
                    worst_exact / eps);
    RecordProperty("worst_ulps", std::to_string(worst / eps));
    EXPECT_LE(worst, bound) << c.name;
    if (c.same_bits_as_qd) {
        EXPECT_EQ(differing_bits, 0) << c.name << " uses QD's algorithm, so the bits must match; first at input "
                                     << first_diff;
    }
}

const OpCase kCases[] = {
    {"dd_add", false, Op::add, true},   {"dd_sub", false, Op::sub, true},   {"dd_mul", false, Op::mul, true},
    {"dd_div", false, Op::div, true},   {"dd_sqrt", false, Op::sqrt, true}, {"qd_add", true, Op::add, true},
    {"qd_sub", true, Op::sub, true},    {"qd_mul", true, Op::mul, true},    {"qd_div", true, Op::div, true},
    {"qd_sqrt", true, Op::sqrt, false},
};
INSTANTIATE_TEST_SUITE_P(Lab10, RandomVsQd, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<OpCase>& info) { return std::string(info.param.name); });

// ---- exercise 2: complex quad-double ---------------------------------------------------------

struct QdComplex {
    qd_real re, im;
};
QdComplex qmul(QdComplex a, QdComplex b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
QdComplex qdiv(QdComplex a, QdComplex b) {
    const qd_real den = b.re * b.re + b.im * b.im;
    return {(a.re * b.re + a.im * b.im) / den, (a.im * b.re - a.re * b.im) / den};
}
qd_real qabs(QdComplex a) { return sqrt(a.re * a.re + a.im * a.im); }
QdComplex to_q(ComplexQd z) { return {to_qd_real(z.re), to_qd_real(z.im)}; }
double complex_error(ComplexQd got, QdComplex want) {
    const QdComplex g = to_q(got);
    return (qabs({g.re - want.re, g.im - want.im}) / qabs(want)).x[0];
}
ComplexQd random_cqd(hpclab::Rng& rng) {
    const QuadDouble re = random_qd(rng, 20);
    const QuadDouble im = random_qd(rng, 20);
    return make_cqd(re, im);
}

TEST(Complex, ArithmeticVsQd) {
    hpclab::Rng rng(7);
    const std::size_t n = 10000;
    std::vector<ComplexQd> a(n), b(n);
    for (std::size_t i = 0; i < n; ++i) {
        a[i] = random_cqd(rng);
        b[i] = random_cqd(rng);
    }
    const auto sum = HPCLAB_CALL([&] { return each(n, [&](std::size_t i) { return cqd_add(a[i], b[i]); }); });
    const auto diff = HPCLAB_CALL([&] { return each(n, [&](std::size_t i) { return cqd_sub(a[i], b[i]); }); });
    const auto prod = HPCLAB_CALL([&] { return each(n, [&](std::size_t i) { return cqd_mul(a[i], b[i]); }); });
    const auto quot = HPCLAB_CALL([&] { return each(n, [&](std::size_t i) { return cqd_div(a[i], b[i]); }); });
    ASSERT_TRUE(sum.size() == n && diff.size() == n && prod.size() == n && quot.size() == n);
    double worst = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const QdComplex qa = to_q(a[i]), qb = to_q(b[i]);
        // nan_max, not std::max: a NaN result is the worst error, not none.
        worst = hpclab::nan_max(worst, complex_error(sum[i], {qa.re + qb.re, qa.im + qb.im}));
        worst = hpclab::nan_max(worst, complex_error(diff[i], {qa.re - qb.re, qa.im - qb.im}));
        worst = hpclab::nan_max(worst, complex_error(prod[i], qmul(qa, qb)));
        worst = hpclab::nan_max(worst, complex_error(quot[i], qdiv(qa, qb)));
    }
    std::printf("[ complex  ] worst relative error against QD %.3g = %.2f ulps\n", worst, worst / kQdEps);
    EXPECT_LE(worst, 1e-60);
}

TEST(Complex, NewtonStepVsQd) {
    hpclab::Rng rng(8);
    const std::size_t n = 1000;
    std::vector<ComplexQd> c(n), z0(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double angle = rng.uniform(-3.0, 3.0);  // away from the branch cut at pi
        c[i] = make_cqd(make_qd(std::cos(angle)), make_qd(std::sin(angle)));
        z0[i] = make_cqd(make_qd(1.0), make_qd(angle > 0 ? 0.5 : -0.5));
    }
    const auto step =
        HPCLAB_CALL([&] { return each(n, [&](std::size_t i) { return complex_newton_step(z0[i], c[i]); }); });
    const auto root = HPCLAB_CALL([&] {
        return each(n, [&](std::size_t i) {
            ComplexQd z = z0[i];
            for (int k = 0; k < 12; ++k) z = complex_newton_step(z, c[i]);
            return z;
        });
    });
    ASSERT_TRUE(step.size() == n && root.size() == n);
    double worst_step = 0, worst_root = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const QdComplex qz = to_q(z0[i]), qc = to_q(c[i]);
        const QdComplex zz = qmul(qz, qz);
        const QdComplex q = qdiv({zz.re - qc.re, zz.im - qc.im}, {2.0 * qz.re, 2.0 * qz.im});
        worst_step = hpclab::nan_max(worst_step, complex_error(step[i], {qz.re - q.re, qz.im - q.im}));
        const QdComplex r = to_q(root[i]), r2 = qmul(r, r);
        worst_root = hpclab::nan_max(worst_root, qabs({r2.re - qc.re, r2.im - qc.im}).x[0]);
    }
    std::printf("[ complex  ] Newton step: worst error %.3g; |z^2 - c| after 12 steps <= %.3g\n", worst_step,
                worst_root);
    EXPECT_LE(worst_step, 1e-60);
    EXPECT_LE(worst_root, 1e-60);
}

}  // namespace
