// Lab 10, stages 1, 2 and 5a: double-double and quad-double arithmetic for host and device.
// Every function is MD_HD (__host__ __device__ under nvcc): the tests check it on the host
// against the QD library, then check that the GPU gives the same bits.
// Rule of this file: no bare `*` on doubles. Products go through mul_rn (never fused) or
// fma_rn (always fused), so results do not depend on the compiler's FMA contraction.
#pragma once

#include "md_helpers.hpp"

namespace lab10 {

// ---- stage 1: error-free transformations ----------------------------------------------------

// s = fl(a + b) and err with a + b = s + err exactly (Knuth; no condition on a, b).
MD_HD inline double two_sum(double a, double b, double& err) {
    const double s = a + b;
    const double bb = s - a;
    err = (a - (s - bb)) + (b - bb);
    return s;
}

// s = fl(a + b) and err, exact only when |a| >= |b| (or a == 0): three flops instead of six.
MD_HD inline double quick_two_sum(double a, double b, double& err) {
    const double s = a + b;
    err = b - (s - a);
    return s;
}

// p = fl(a * b) and err with a * b = p + err exactly: the FMA computes a*b - p with one
// rounding, and that difference is representable (barring underflow).
MD_HD inline double two_prod(double a, double b, double& err) {
    const double p = mul_rn(a, b);
    err = fma_rn(a, b, -p);
    return p;
}

// Five words in, four out: c4 is folded in, not dropped.
MD_HD inline void renorm(double& c0, double& c1, double& c2, double& c3, double& c4) {
    if (c0 - c0 != 0.0) return;
    double s0, s1, s2 = 0.0, s3 = 0.0;
    s0 = quick_two_sum(c3, c4, c4);
    s0 = quick_two_sum(c2, s0, c3);
    s0 = quick_two_sum(c1, s0, c2);
    c0 = quick_two_sum(c0, s0, c1);
    s0 = c0;
    s1 = c1;
    if (s1 != 0.0) {
        s1 = quick_two_sum(s1, c2, s2);
        if (s2 != 0.0) {
            s2 = quick_two_sum(s2, c3, s3);
            if (s3 != 0.0)
                s3 += c4;
            else
                s2 = quick_two_sum(s2, c4, s3);
        } else {
            s1 = quick_two_sum(s1, c3, s2);
            if (s2 != 0.0)
                s2 = quick_two_sum(s2, c4, s3);
            else
                s1 = quick_two_sum(s1, c4, s2);
        }
    } else {
        s0 = quick_two_sum(s0, c2, s1);
        if (s1 != 0.0) {
            s1 = quick_two_sum(s1, c3, s2);
            if (s2 != 0.0)
                s2 = quick_two_sum(s2, c4, s3);
            else
                s1 = quick_two_sum(s1, c4, s2);
        } else {
            s0 = quick_two_sum(s0, c3, s1);
            if (s1 != 0.0)
                s1 = quick_two_sum(s1, c4, s2);
            else
                s0 = quick_two_sum(s0, c4, s1);
        }
    }
    c0 = s0;
    c1 = s1;
    c2 = s2;
    c3 = s3;
}

// ---- stage 2a: double-double (QD's algorithms, so the bits match dd_real) ---------------------

MD_HD inline DoubleDouble dd_add(DoubleDouble a, DoubleDouble b) {
    double e;
    double s = two_sum(a.v.x, b.v.x, e);
    e += (a.v.y + b.v.y);
    s = quick_two_sum(s, e, e);
    return make_dd(s, e);
}

MD_HD inline DoubleDouble dd_mul(DoubleDouble a, DoubleDouble b) {
    double p2;
    double p1 = two_prod(a.v.x, b.v.x, p2);
    p2 += (mul_rn(a.v.x, b.v.y) + mul_rn(a.v.y, b.v.x));  // a.lo*b.lo is below the last bit
    p1 = quick_two_sum(p1, p2, p2);
    return make_dd(p1, p2);
}

// Long division with two double quotients: q1 from the high words, then the remainder
// a - q1*b computed in double-double gives the correction q2.
MD_HD inline DoubleDouble dd_div(DoubleDouble a, DoubleDouble b) {
    const double q1 = a.v.x / b.v.x;
    DoubleDouble r = dd_mul_d(b, q1);
    double s2;
    const double s1 = two_diff(a.v.x, r.v.x, s2);
    s2 -= r.v.y;
    s2 += a.v.y;
    const double q2 = (s1 + s2) / b.v.x;
    double lo;
    const double hi = quick_two_sum(q1, q2, lo);
    return make_dd(hi, lo);
}

// Karp's trick: x ~ 1/sqrt(a) in double, then one Newton correction in double-double:
// sqrt(a) ~ a*x + (a - (a*x)^2) * x / 2.
MD_HD inline DoubleDouble dd_sqrt(DoubleDouble a) {
    if (a.v.x == 0.0) return make_dd(0.0);
    if (a.v.x < 0.0) return make_dd(md_nan());
    const double x = 1.0 / ::sqrt(a.v.x);
    const double ax = mul_rn(a.v.x, x);
    double sq_lo;
    const double sq_hi = two_sqr(ax, sq_lo);
    const double d = dd_sub(a, make_dd(sq_hi, sq_lo)).v.x;
    double lo;
    const double hi = two_sum(ax, mul_rn(d, mul_rn(x, 0.5)), lo);
    return make_dd(hi, lo);
}

// ---- stage 2b: quad-double --------------------------------------------------------------------

// QD's sloppy_add: pairwise two_sum of the words, merge the error terms, renormalize 5 -> 4.
MD_HD inline QuadDouble qd_add(QuadDouble a, QuadDouble b) {
    double t0, t1, t2, t3;
    double s0 = two_sum(a.v.x, b.v.x, t0);
    double s1 = two_sum(a.v.y, b.v.y, t1);
    double s2 = two_sum(a.v.z, b.v.z, t2);
    double s3 = two_sum(a.v.w, b.v.w, t3);
    s1 = two_sum(s1, t0, t0);
    three_sum(s2, t0, t1);
    three_sum2(s3, t0, t2);
    t0 = t0 + t1 + t3;
    renorm(s0, s1, s2, s3, t0);
    return make_qd(s0, s1, s2, s3);
}

// QD's sloppy_mul: the products a_i*b_j with i+j <= 2 exactly (two_prod), the i+j == 3 ones
// in plain double; everything smaller is below the last word.
MD_HD inline QuadDouble qd_mul(QuadDouble a, QuadDouble b) {
    double q0, q1, q2, q3, q4, q5, t0, t1;
    double p0 = two_prod(a.v.x, b.v.x, q0);
    double p1 = two_prod(a.v.x, b.v.y, q1);
    double p2 = two_prod(a.v.y, b.v.x, q2);
    double p3 = two_prod(a.v.x, b.v.z, q3);
    double p4 = two_prod(a.v.y, b.v.y, q4);
    double p5 = two_prod(a.v.z, b.v.x, q5);
    three_sum(p1, p2, q0);
    // Six-three sum of p2, q1, q2, p3, p4, p5.
    three_sum(p2, q1, q2);
    three_sum(p3, p4, p5);
    double s0 = two_sum(p2, p3, t0);
    double s1 = two_sum(q1, p4, t1);
    double s2 = q2 + p5;
    s1 = two_sum(s1, t0, t0);
    s2 += (t0 + t1);
    // O(eps^3) terms.
    s1 += mul_rn(a.v.x, b.v.w) + mul_rn(a.v.y, b.v.z) + mul_rn(a.v.z, b.v.y) + mul_rn(a.v.w, b.v.x) + q0 + q3 + q4 + q5;
    renorm(p0, p1, s0, s1, s2);
    return make_qd(p0, p1, s0, s1);
}

// Long division: four double quotients, each from the remainder of the previous ones.
MD_HD inline QuadDouble qd_div(QuadDouble a, QuadDouble b) {
    double q0 = a.v.x / b.v.x;
    QuadDouble r = qd_sub(a, qd_mul_d(b, q0));
    double q1 = r.v.x / b.v.x;
    r = qd_sub(r, qd_mul_d(b, q1));
    double q2 = r.v.x / b.v.x;
    r = qd_sub(r, qd_mul_d(b, q2));
    double q3 = r.v.x / b.v.x;
    renorm(q0, q1, q2, q3);
    return make_qd(q0, q1, q2, q3);
}

// Newton on 1/sqrt(a) from the double value (no division in the loop): r += r(1/2 - h r^2)
// with h = a/2; three steps take 53 correct bits to more than 212; then sqrt(a) = a r.
MD_HD inline QuadDouble qd_sqrt(QuadDouble a) {
    if (a.v.x == 0.0) return make_qd(0.0);
    if (a.v.x < 0.0) return make_qd(md_nan());
    QuadDouble r = make_qd(1.0 / ::sqrt(a.v.x));
    const QuadDouble h = make_qd(mul_rn(a.v.x, 0.5), mul_rn(a.v.y, 0.5), mul_rn(a.v.z, 0.5),
                                 mul_rn(a.v.w, 0.5));  // exact: a power of two
    const QuadDouble half = make_qd(0.5);
    for (int i = 0; i < 3; ++i) r = qd_add(r, qd_mul(qd_sub(half, qd_mul(h, qd_mul(r, r))), r));
    return qd_mul(r, a);
}

// Comparison of normalized numbers: the words decide in order. Returns -1, 0 or +1.
MD_HD inline int compare(QuadDouble a, QuadDouble b) {
    const double x[4] = {a.v.x, a.v.y, a.v.z, a.v.w};
    const double y[4] = {b.v.x, b.v.y, b.v.z, b.v.w};
    for (int i = 0; i < 4; ++i) {
        if (x[i] < y[i]) return -1;
        if (x[i] > y[i]) return 1;
    }
    return 0;
}

// ---- stage 5a: complex quad-double (exercise 2) ---------------------------------------------

// (a + bi)(c + di) = (ac - bd) + (ad + bc) i
MD_HD inline ComplexQd cqd_mul(ComplexQd a, ComplexQd b) {
    return make_cqd(qd_sub(qd_mul(a.re, b.re), qd_mul(a.im, b.im)), qd_add(qd_mul(a.re, b.im), qd_mul(a.im, b.re)));
}
// (a + bi)/(c + di) = ((ac + bd) + (bc - ad) i) / (c^2 + d^2)
MD_HD inline ComplexQd cqd_div(ComplexQd a, ComplexQd b) {
    const QuadDouble den = qd_add(qd_mul(b.re, b.re), qd_mul(b.im, b.im));
    const QuadDouble re = qd_add(qd_mul(a.re, b.re), qd_mul(a.im, b.im));
    const QuadDouble im = qd_sub(qd_mul(a.im, b.re), qd_mul(a.re, b.im));
    return make_cqd(qd_div(re, den), qd_div(im, den));
}
// One Newton step for z^2 = c: z - (z^2 - c) / (2z).
MD_HD inline ComplexQd complex_newton_step(ComplexQd z, ComplexQd c) {
    const ComplexQd two_z = make_cqd(qd_add(z.re, z.re), qd_add(z.im, z.im));
    return cqd_sub(z, cqd_div(cqd_sub(cqd_mul(z, z), c), two_z));
}

}  // namespace lab10
