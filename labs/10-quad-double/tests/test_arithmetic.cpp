// Lab 10 visible host tests: your double-double and quad-double arithmetic against the QD
// library (Hida, Li, Bailey): error-free transformations bit for bit, known values, special
// cases, and 10^5 random inputs per operation spanning exponents 2^-330 .. 2^330, with the
// worst error reported in ulps of the format.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>

#include <qd/dd_real.h>
#include <qd/qd_real.h>

#include "hpclab/data.hpp"
#include "multi_double.hpp"
#include "qd_reference.hpp"
#include "quad_double.hpp"

// QD needs fpu_fix_start() only where doubles are evaluated in x87 80-bit registers (32-bit
// x86). On x86-64 (SSE2) and aarch64 every double operation rounds to double: no fix needed.
static_assert(FLT_EVAL_METHOD == 0, "double arithmetic must round to double (use SSE2, not x87)");

namespace {

using namespace lab10;

constexpr int kRandomCount = 100000;

TEST(Eft, TwoSumIsExact) {
    hpclab::Rng rng(1);
    for (int i = 0; i < 10000; ++i) {
        const double a = random_qd(rng, 60).v.x, b = random_qd(rng, 60).v.x;
        double err, qerr;
        const double s = two_sum(a, b, err);
        const double qs = qd::two_sum(a, b, qerr);
        ASSERT_TRUE(same_bits(s, qs) && same_bits(err, qerr))
            << "two_sum(" << a << ", " << b << ") = " << s << " + " << err << ", expected " << qs << " + " << qerr;
    }
}

TEST(Eft, QuickTwoSumIsExactWhenOrdered) {
    hpclab::Rng rng(2);
    for (int i = 0; i < 10000; ++i) {
        double a = random_qd(rng, 60).v.x, b = random_qd(rng, 60).v.x;
        if (std::fabs(a) < std::fabs(b)) std::swap(a, b);
        double err, qerr;
        const double s = quick_two_sum(a, b, err);
        const double qs = qd::two_sum(a, b, qerr);
        ASSERT_TRUE(same_bits(s, qs) && same_bits(err, qerr))
            << "quick_two_sum(" << a << ", " << b << ") = " << s << " + " << err << ", exact: " << qs << " + " << qerr;
    }
}

TEST(Eft, TwoProdIsExact) {
    // QD splits the factors (Dekker); an FMA gives the same exact error term.
    hpclab::Rng rng(3);
    for (int i = 0; i < 10000; ++i) {
        const double a = random_qd(rng, 300).v.x, b = random_qd(rng, 300).v.x;
        double err, qerr;
        const double p = two_prod(a, b, err);
        const double qp = qd::two_prod(a, b, qerr);
        ASSERT_TRUE(same_bits(p, qp) && same_bits(err, qerr))
            << "two_prod(" << a << ", " << b << ") = " << p << " + " << err << ", exact: " << qp << " + " << qerr;
    }
    double err;
    const double p = two_prod(1.0 + 0x1p-52, 1.0 - 0x1p-52, err);
    EXPECT_EQ(p, 1.0);
    EXPECT_EQ(err, -0x1p-104) << "(1 + 2^-52)(1 - 2^-52) = 1 - 2^-104 exactly";
}

TEST(Eft, RenormKeepsEveryWord) {
    hpclab::Rng rng(4);
    for (int i = 0; i < 10000; ++i) {
        const double x = random_qd(rng, 100).v.x;
        double c[5], q[5];
        for (int k = 0; k < 5; ++k) c[k] = q[k] = x * std::ldexp(rng.uniform(-1, 1), -50 * k);
        renorm(c[0], c[1], c[2], c[3], c[4]);
        qd::renorm(q[0], q[1], q[2], q[3], q[4]);
        for (int k = 0; k < 4; ++k) ASSERT_TRUE(same_bits(c[k], q[k])) << "word " << k << " differs at input " << i;
    }
    // The fifth term must reach the result: 1 + 2^-60 + 2^-120 + 2^-180 + 2^-240.
    double c0 = 1.0, c1 = 0x1p-60, c2 = 0x1p-120, c3 = 0x1p-180, c4 = 0x1p-240;
    renorm(c0, c1, c2, c3, c4);
    EXPECT_EQ(c0 + 0.0, 1.0);
    const qd_real sum = qd_real(c0, c1, c2, c3);
    const qd_real want = qd_real(1.0) + std::ldexp(1.0, -60) + std::ldexp(1.0, -120) + std::ldexp(1.0, -180) +
                         std::ldexp(1.0, -240);
    EXPECT_EQ((sum - want).x[0], 0.0) << "renormalization lost a term";
}

TEST(Known, PiHalfTimesTwoIsPi) {
    // Lecture 37's first kernel (L5293-5295): pi/2 * 2 == pi in all four words.
    const QuadDouble pi = from_qd_real(qd_real::_pi);
    const QuadDouble half = pi / make_qd(2.0);
    const QuadDouble twice = half * make_qd(2.0);
    EXPECT_TRUE(same_bits(twice, pi)) << "pi/2*2 = " << twice << "\n          pi = " << pi;
    EXPECT_EQ(half.v.x, pi.v.x / 2);
    EXPECT_EQ(half.v.w, pi.v.w / 2);
    const DoubleDouble dpi = from_dd_real(dd_real::_pi);
    EXPECT_TRUE(same_bits((dpi / make_dd(2.0)) * make_dd(2.0), dpi));
}

TEST(Known, OneThirdTimesThree) {
    const QuadDouble third = make_qd(1.0) / make_qd(3.0);
    EXPECT_LE(relative_error(third, qd_real(1.0) / 3.0), 2 * kQdEps);
    EXPECT_LE(std::fabs((to_qd_real(third * make_qd(3.0)) - 1.0).x[0]), 2 * kQdEps);
    const DoubleDouble dthird = make_dd(1.0) / make_dd(3.0);
    EXPECT_LE(relative_error(dthird, dd_real(1.0) / 3.0), 2 * kDdEps);
    EXPECT_LE(std::fabs((to_dd_real(dthird * make_dd(3.0)) - 1.0).x[0]), 2 * kDdEps);
}

TEST(Known, SqrtTwoSquared) {
    const QuadDouble r = sqrt(make_qd(2.0));
    EXPECT_LE(relative_error(r, sqrt(qd_real(2.0))), 4 * kQdEps) << "sqrt(2) = " << r;
    EXPECT_LE(std::fabs((to_qd_real(r * r) - 2.0).x[0]), 8 * kQdEps);
    const DoubleDouble d = sqrt(make_dd(2.0));
    EXPECT_LE(relative_error(d, sqrt(dd_real(2.0))), 4 * kDdEps);
    EXPECT_LE(std::fabs((to_dd_real(d * d) - 2.0).x[0]), 8 * kDdEps);
}

TEST(Known, SqrtOfZeroAndNegative) {
    const QuadDouble z = sqrt(make_qd(0.0));
    EXPECT_TRUE(z.v.x == 0 && z.v.y == 0 && z.v.z == 0 && z.v.w == 0);
    EXPECT_TRUE(std::isnan(sqrt(make_qd(-1.0)).v.x));
    EXPECT_TRUE(std::isnan(sqrt(make_qd(-1e-300, 1e-320)).v.x));
    const DoubleDouble dz = sqrt(make_dd(0.0));
    EXPECT_TRUE(dz.v.x == 0 && dz.v.y == 0);
    EXPECT_TRUE(std::isnan(sqrt(make_dd(-2.0)).v.x));
}

TEST(Known, TinyAndHugeExponents) {
    // Magnitudes near the ends of the double range, where no intermediate overflows and the
    // low words stay normal numbers.
    const qd_real big = qd_real(3.0) * std::ldexp(1.0, 960) / 7.0;   // ~1.2e289
    const qd_real tiny = qd_real(5.0) * std::ldexp(1.0, -800) / 3.0;  // ~1e-241
    const QuadDouble b = from_qd_real(big), t = from_qd_real(tiny);
    EXPECT_LE(relative_error(b * t, big * tiny), 4 * kQdEps);
    EXPECT_LE(relative_error(t / b, tiny / big), 8 * kQdEps);
    EXPECT_LE(relative_error(b + t, big + tiny), 2 * kQdEps);
    EXPECT_LE(relative_error(sqrt(b), sqrt(big)), 8 * kQdEps);
    EXPECT_LE(relative_error(sqrt(t), sqrt(tiny)), 8 * kQdEps);
    const dd_real dbig = dd_real(3.0) * std::ldexp(1.0, 960) / 7.0, dtiny = dd_real(5.0) * std::ldexp(1.0, -900) / 3.0;
    const dd_real dmid = dd_real(7.0) * std::ldexp(1.0, 400) / 3.0;
    const DoubleDouble db = from_dd_real(dbig), dt = from_dd_real(dtiny), dm = from_dd_real(dmid);
    EXPECT_LE(relative_error(db / dm, dbig / dmid), 8 * kDdEps);
    EXPECT_LE(relative_error(dt / dm, dtiny / dmid), 8 * kDdEps);
    EXPECT_LE(relative_error(dt * db, dtiny * dbig), 4 * kDdEps);
    EXPECT_LE(relative_error(sqrt(dt), sqrt(dtiny)), 8 * kDdEps);
}

TEST(Known, CancellationIsExact) {
    hpclab::Rng rng(5);
    for (int i = 0; i < 1000; ++i) {
        const QuadDouble a = random_qd(rng);
        const QuadDouble d = a - a;
        ASSERT_TRUE(d.v.x == 0 && d.v.y == 0 && d.v.z == 0 && d.v.w == 0) << "a - a = " << d;
        const DoubleDouble b = random_dd(rng);
        const DoubleDouble e = b - b;
        ASSERT_TRUE(e.v.x == 0 && e.v.y == 0);
    }
    // 1 + 2^-200 - 1 keeps the tiny part: it is in the fourth word.
    const QuadDouble one = make_qd(1.0), eps = make_qd(0x1p-200);
    EXPECT_EQ(to_qd_real((one + eps) - one).x[0], 0x1p-200);
}

TEST(Compare, OrdersLikeQd) {
    hpclab::Rng rng(6);
    for (int i = 0; i < 10000; ++i) {
        const QuadDouble a = random_qd(rng, 4);
        // Every fourth pair differs only in the last word.
        QuadDouble b = (i % 4 == 0) ? make_qd(a.v.x, a.v.y, a.v.z, a.v.w * (1 + rng.uniform(-0.5, 0.5)))
                                    : random_qd(rng, 4);
        if (i % 16 == 1) b = a;
        const qd_real qa = to_qd_real(a), qb = to_qd_real(b);
        const int want = qa < qb ? -1 : (qa == qb ? 0 : 1);
        ASSERT_EQ(compare(a, b), want) << a << " vs " << b;
        ASSERT_EQ(a < b, qa < qb);
        ASSERT_EQ(a == b, qa == qb);
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

TEST_P(RandomVsQd, Agrees) {
    const OpCase c = GetParam();
    hpclab::Rng rng(100 + static_cast<int>(c.op) + (c.quad ? 10 : 0));
    const double eps = c.quad ? kQdEps : kDdEps;
    const double bound = c.quad ? 1e-60 : 1e-30;  // the bounds on the relative error
    double worst = 0, worst_exact = 0;  // against QD; against the exact result (dd only)
    int differing_bits = 0, first_diff = -1;
    for (int i = 0; i < kRandomCount; ++i) {
        double err;
        bool bits;
        if (c.quad) {
            QuadDouble a = random_qd(rng), b = random_qd(rng);
            if (c.op == Op::sqrt) a = make_qd(std::fabs(a.v.x), a.v.x < 0 ? -a.v.y : a.v.y,
                                             a.v.x < 0 ? -a.v.z : a.v.z, a.v.x < 0 ? -a.v.w : a.v.w);
            const qd_real qa = to_qd_real(a), qb = to_qd_real(b);
            qd_real want;
            switch (c.op) {
                case Op::add: want = qa + qb; break;
                case Op::sub: want = qa - qb; break;
                case Op::mul: want = qa * qb; break;
                case Op::div: want = qa / qb; break;
                case Op::sqrt: want = sqrt(qa); break;
            }
            const QuadDouble got = apply_host(c.op, a, b);
            err = relative_error(got, want);
            bits = same_bits(got, from_qd_real(want));
        } else {
            DoubleDouble a = random_dd(rng), b = random_dd(rng);
            if (c.op == Op::sqrt && a.v.x < 0) a = make_dd(-a.v.x, -a.v.y);
            const dd_real qa = to_dd_real(a), qb = to_dd_real(b);
            dd_real want;
            switch (c.op) {
                case Op::add: want = qa + qb; break;
                case Op::sub: want = qa - qb; break;
                case Op::mul: want = qa * qb; break;
                case Op::div: want = qa / qb; break;
                case Op::sqrt: want = sqrt(qa); break;
            }
            const DoubleDouble got = apply_host(c.op, a, b);
            err = relative_error(got, want);
            bits = same_bits(got, from_dd_real(want));
            // The true result to ~1e-64, in quad-double: the accuracy of the algorithm itself.
            const qd_real xa(a.v.x, a.v.y, 0, 0), xb(b.v.x, b.v.y, 0, 0);
            qd_real exact;
            switch (c.op) {
                case Op::add: exact = xa + xb; break;
                case Op::sub: exact = xa - xb; break;
                case Op::mul: exact = xa * xb; break;
                case Op::div: exact = xa / xb; break;
                case Op::sqrt: exact = sqrt(xa); break;
            }
            worst_exact = std::max(worst_exact, relative_error(qd_real(got.v.x, got.v.y, 0, 0), exact));
        }
        ASSERT_FALSE(std::isnan(err)) << c.name << ": NaN at input " << i;
        if (err > worst) worst = err;
        if (!bits && differing_bits++ == 0) first_diff = i;
    }
    std::printf("[ %-8s ] worst relative error against QD %.3g = %.2f ulps (eps %.3g); %d of %d differ in bits\n",
                c.name, worst, worst / eps, eps, differing_bits, kRandomCount);
    if (!c.quad) std::printf("[ %-8s ] worst relative error against the exact result %.3g = %.2f ulps\n", c.name,
                             worst_exact, worst_exact / eps);
    RecordProperty("worst_ulps", std::to_string(worst / eps));
    EXPECT_LE(worst, bound) << c.name;
    if (c.same_bits_as_qd) {
        EXPECT_EQ(differing_bits, 0) << c.name << " uses QD's algorithm, so the bits must match; first at input "
                                     << first_diff;
    }
}

const OpCase kCases[] = {
    {"dd_add", false, Op::add, true},  {"dd_sub", false, Op::sub, true},  {"dd_mul", false, Op::mul, true},
    {"dd_div", false, Op::div, true},  {"dd_sqrt", false, Op::sqrt, true}, {"qd_add", true, Op::add, true},
    {"qd_sub", true, Op::sub, true},   {"qd_mul", true, Op::mul, true},   {"qd_div", true, Op::div, true},
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
ComplexQd random_cqd(hpclab::Rng& rng) { return make_cqd(random_qd(rng, 20), random_qd(rng, 20)); }

TEST(Complex, ArithmeticVsQd) {
    hpclab::Rng rng(7);
    double worst = 0;
    for (int i = 0; i < 10000; ++i) {
        const ComplexQd a = random_cqd(rng), b = random_cqd(rng);
        const QdComplex qa = to_q(a), qb = to_q(b);
        worst = std::max(worst, complex_error(cqd_add(a, b), {qa.re + qb.re, qa.im + qb.im}));
        worst = std::max(worst, complex_error(cqd_sub(a, b), {qa.re - qb.re, qa.im - qb.im}));
        worst = std::max(worst, complex_error(cqd_mul(a, b), qmul(qa, qb)));
        worst = std::max(worst, complex_error(cqd_div(a, b), qdiv(qa, qb)));
    }
    std::printf("[ complex  ] worst relative error against QD %.3g = %.2f ulps\n", worst, worst / kQdEps);
    EXPECT_LE(worst, 1e-60);
}

TEST(Complex, NewtonStepVsQd) {
    hpclab::Rng rng(8);
    double worst_step = 0, worst_root = 0;
    for (int i = 0; i < 1000; ++i) {
        const double angle = rng.uniform(-3.0, 3.0);  // away from the branch cut at pi
        const ComplexQd c = make_cqd(make_qd(std::cos(angle)), make_qd(std::sin(angle)));
        const ComplexQd z0 = make_cqd(make_qd(1.0), make_qd(angle > 0 ? 0.5 : -0.5));
        const QdComplex qz = to_q(z0), qc = to_q(c);
        const QdComplex zz = qmul(qz, qz);
        const QdComplex q = qdiv({zz.re - qc.re, zz.im - qc.im}, {2.0 * qz.re, 2.0 * qz.im});
        worst_step = std::max(worst_step, complex_error(complex_newton_step(z0, c), {qz.re - q.re, qz.im - q.im}));
        ComplexQd z = z0;
        for (int k = 0; k < 12; ++k) z = complex_newton_step(z, c);
        const QdComplex r = to_q(z), r2 = qmul(r, r);
        worst_root = std::max(worst_root, qabs({r2.re - qc.re, r2.im - qc.im}).x[0]);
    }
    std::printf("[ complex  ] Newton step: worst error %.3g; |z^2 - c| after 12 steps <= %.3g\n", worst_step,
                worst_root);
    EXPECT_LE(worst_step, 1e-60);
    EXPECT_LE(worst_root, 1e-60);
}

}  // namespace
