// Lab 10, stages 1, 2 and 5a: double-double and quad-double arithmetic for host and device.
// Every TODO(student) below throws "not implemented" on the host (NaN on the device).
// Every function is MD_HD (__host__ __device__ under nvcc): the tests check it on the host
// against the QD library, then check that the GPU gives the same bits.
// Rule of this file: no bare `*` on doubles. Products go through mul_rn (never fused) or
// fma_rn (always fused), so results do not depend on the compiler's FMA contraction.
#pragma once

#include "md_types.hpp"

namespace lab10 {

// ---- stage 1: error-free transformations ----------------------------------------------------

// s = fl(a + b) and err with a + b = s + err exactly (Knuth; no condition on a, b).
MD_HD inline double two_sum(double a, double b, double& err) {
    // TODO(student): Knuth's two-sum (six flops, no branch): s = fl(a + b), then recover the
    // rounding error from bb = s - a without assuming |a| >= |b|. See two_diff below.
    (void)a;
    (void)b;
    err = 0.0;
    return md_todo("two_sum");
}

// s = fl(a - b) and err with a - b = s + err exactly.
MD_HD inline double two_diff(double a, double b, double& err) {
    const double s = a - b;
    const double bb = s - a;
    err = (a - (s - bb)) - (b + bb);
    return s;
}

// s = fl(a + b) and err, exact only when |a| >= |b| (or a == 0): three flops instead of six.
MD_HD inline double quick_two_sum(double a, double b, double& err) {
    // TODO(student): Dekker's fast two-sum: s = fl(a + b), err = b - (s - a); exact only when
    // |a| >= |b|. Three flops.
    (void)a;
    (void)b;
    err = 0.0;
    return md_todo("quick_two_sum");
}

// p = fl(a * b) and err with a * b = p + err exactly: the FMA computes a*b - p with one
// rounding, and that difference is representable (barring underflow).
MD_HD inline double two_prod(double a, double b, double& err) {
    // TODO(student): p = fl(a * b) through mul_rn, err = a*b - p with ONE rounding: fma_rn.
    // Do not write a * b - p: whether that is fused depends on the compiler's flags.
    (void)a;
    (void)b;
    err = 0.0;
    return md_todo("two_prod");
}

MD_HD inline double two_sqr(double a, double& err) {
    const double p = mul_rn(a, a);
    err = fma_rn(a, a, -p);
    return p;
}

// (a, b, c) <- three words whose sum is a + b + c (QD's three_sum).
MD_HD inline void three_sum(double& a, double& b, double& c) {
    double t1, t2, t3;
    t1 = two_sum(a, b, t2);
    a = two_sum(c, t1, t3);
    b = two_sum(t2, t3, c);
}

// Same, when only two words of the result are kept (the third is folded into b).
MD_HD inline void three_sum2(double& a, double& b, double& c) {
    double t1, t2, t3;
    t1 = two_sum(a, b, t2);
    a = two_sum(c, t1, t3);
    b = t2 + t3;
}

// Renormalize c0 + c1 + c2 + c3 (roughly decreasing, overlapping) into four
// non-overlapping words: a sweep of quick_two_sum from the bottom, then one from the top
// that skips zeros so that no word is lost.
MD_HD inline void renorm(double& c0, double& c1, double& c2, double& c3) {
    if (c0 - c0 != 0.0) return;  // Inf or NaN: nothing to renormalize
    double s0, s1, s2 = 0.0, s3 = 0.0;
    s0 = quick_two_sum(c2, c3, c3);
    s0 = quick_two_sum(c1, s0, c2);
    c0 = quick_two_sum(c0, s0, c1);
    s0 = c0;
    s1 = c1;
    if (s1 != 0.0) {
        s1 = quick_two_sum(s1, c2, s2);
        if (s2 != 0.0)
            s2 = quick_two_sum(s2, c3, s3);
        else
            s1 = quick_two_sum(s1, c3, s2);
    } else {
        s0 = quick_two_sum(s0, c2, s1);
        if (s1 != 0.0)
            s1 = quick_two_sum(s1, c3, s2);
        else
            s0 = quick_two_sum(s0, c3, s1);
    }
    c0 = s0;
    c1 = s1;
    c2 = s2;
    c3 = s3;
}

// Five words in, four out: c4 is folded in, not dropped.
MD_HD inline void renorm(double& c0, double& c1, double& c2, double& c3, double& c4) {
    // TODO(student): QD's five-term renormalization. Like the four-term version above: a
    // bottom-up sweep of quick_two_sum from (c3, c4) to c0, then a top-down pass that builds
    // s0..s3 skipping zero words; c4 must end up in the result (fold it into s3 when all of
    // s0..s3 are already in use).
    (void)c1;
    (void)c2;
    (void)c3;
    (void)c4;
    c0 = md_todo("renorm (five terms)");
}

// ---- stage 2a: double-double (QD's algorithms, so the bits match dd_real) ---------------------

MD_HD inline DoubleDouble dd_add(DoubleDouble a, DoubleDouble b) {
    // TODO(student): QD's sloppy add: two_sum of the high words, add both low words to the
    // error, quick_two_sum to renormalize. (dd_sub below is the same with two_diff.)
    (void)a;
    (void)b;
    return make_dd(md_todo("dd_add"));
}

MD_HD inline DoubleDouble dd_sub(DoubleDouble a, DoubleDouble b) {
    double e;
    double s = two_diff(a.v.x, b.v.x, e);
    e += a.v.y;
    e -= b.v.y;
    s = quick_two_sum(s, e, e);
    return make_dd(s, e);
}

MD_HD inline DoubleDouble dd_mul(DoubleDouble a, DoubleDouble b) {
    // TODO(student): two_prod of the high words; add hi*lo + lo*hi (each through mul_rn) to
    // the error; quick_two_sum. lo*lo is below the last bit.
    (void)a;
    (void)b;
    return make_dd(md_todo("dd_mul"));
}

// double-double times a double (used by the division).
MD_HD inline DoubleDouble dd_mul_d(DoubleDouble a, double b) {
    double p2;
    double p1 = two_prod(a.v.x, b, p2);
    p2 += mul_rn(a.v.y, b);
    p1 = quick_two_sum(p1, p2, p2);
    return make_dd(p1, p2);
}

// Long division with two double quotients: q1 from the high words, then the remainder
// a - q1*b computed in double-double gives the correction q2.
MD_HD inline DoubleDouble dd_div(DoubleDouble a, DoubleDouble b) {
    // TODO(student): q1 = a.hi / b.hi; r = b * q1 (dd_mul_d); the remainder
    // (s1, s2) = two_diff(a.hi, r.hi), minus r.lo, plus a.lo; q2 = (s1 + s2) / b.hi;
    // the result is quick_two_sum(q1, q2).
    (void)a;
    (void)b;
    return make_dd(md_todo("dd_div"));
}

// Karp's trick: x ~ 1/sqrt(a) in double, then one Newton correction in double-double:
// sqrt(a) ~ a*x + (a - (a*x)^2) * x / 2.
MD_HD inline DoubleDouble dd_sqrt(DoubleDouble a) {
    // TODO(student): 0 for 0, NaN below 0; else Karp's trick as QD does it: x = 1/sqrt(a.hi),
    // ax = a.hi * x; the result is two_sum(ax, (a - ax^2).hi * (x / 2)) with ax^2 from
    // two_sqr and the subtraction in double-double.
    (void)a;
    return make_dd(md_todo("dd_sqrt"));
}

// ---- stage 2b: quad-double --------------------------------------------------------------------

MD_HD inline QuadDouble qd_neg(QuadDouble a) { return make_qd(-a.v.x, -a.v.y, -a.v.z, -a.v.w); }

// QD's sloppy_add: pairwise two_sum of the words, merge the error terms, renormalize 5 -> 4.
MD_HD inline QuadDouble qd_add(QuadDouble a, QuadDouble b) {
    // TODO(student): QD's sloppy add: two_sum word by word (s_i, t_i); fold t0 into s1
    // (two_sum), then three_sum(s2, t0, t1), three_sum2(s3, t0, t2), t0 = t0 + t1 + t3;
    // renormalize the five words (s0, s1, s2, s3, t0).
    (void)a;
    (void)b;
    return make_qd(md_todo("qd_add"));
}

MD_HD inline QuadDouble qd_sub(QuadDouble a, QuadDouble b) { return qd_add(a, qd_neg(b)); }

// QD's sloppy_mul: the products a_i*b_j with i+j <= 2 exactly (two_prod), the i+j == 3 ones
// in plain double; everything smaller is below the last word.
MD_HD inline QuadDouble qd_mul(QuadDouble a, QuadDouble b) {
    // TODO(student): QD's sloppy multiplication (Hida, Li, Bailey, section 4): the products
    // a_i b_j with i + j <= 2 by two_prod, the i + j == 3 ones plainly (mul_rn), accumulate
    // them order by order with three_sum, renormalize five words to four.
    (void)a;
    (void)b;
    return make_qd(md_todo("qd_mul"));
}

// quad-double times a double (QD's operator*(qd_real, double)).
MD_HD inline QuadDouble qd_mul_d(QuadDouble a, double b) {
    double q0, q1, q2;
    const double p0 = two_prod(a.v.x, b, q0);
    const double p1 = two_prod(a.v.y, b, q1);
    double p2 = two_prod(a.v.z, b, q2);
    double p3 = mul_rn(a.v.w, b);
    double s0 = p0, s2;
    double s1 = two_sum(q0, p1, s2);
    three_sum(s2, q1, p2);
    three_sum2(q1, q2, p3);
    double s3 = q1;
    double s4 = q2 + p2;
    renorm(s0, s1, s2, s3, s4);
    return make_qd(s0, s1, s2, s3);
}

// Long division: four double quotients, each from the remainder of the previous ones.
MD_HD inline QuadDouble qd_div(QuadDouble a, QuadDouble b) {
    // TODO(student): long division: q0 = a.x / b.x, r = a - b*q0 (qd_mul_d, qd_sub); then
    // q1, q2, q3 the same way from the remainder; renormalize (q0, q1, q2, q3).
    (void)a;
    (void)b;
    return make_qd(md_todo("qd_div"));
}

// Newton on 1/sqrt(a) from the double value (no division in the loop): r += r(1/2 - h r^2)
// with h = a/2; three steps take 53 correct bits to more than 212; then sqrt(a) = a r.
MD_HD inline QuadDouble qd_sqrt(QuadDouble a) {
    // TODO(student): 0 for 0, NaN below 0; else Newton on r = 1/sqrt(a) from the double
    // value: r += r * (1/2 - (a/2) r^2), three times (53 -> 106 -> 212 bits); return r * a.
    (void)a;
    return make_qd(md_todo("qd_sqrt"));
}

// Comparison of normalized numbers: the words decide in order. Returns -1, 0 or +1.
MD_HD inline int compare(QuadDouble a, QuadDouble b) {
    // TODO(student): -1, 0 or +1: the first word that differs decides (the numbers are
    // normalized, so a smaller word can never outweigh a larger one).
    (void)a;
    (void)b;
    return md_todo("compare") == 0.0 ? 0 : 2;
}

// ---- stage 5a: complex quad-double (exercise 2) ---------------------------------------------

MD_HD inline ComplexQd cqd_add(ComplexQd a, ComplexQd b) {
    return make_cqd(qd_add(a.re, b.re), qd_add(a.im, b.im));
}
MD_HD inline ComplexQd cqd_sub(ComplexQd a, ComplexQd b) {
    return make_cqd(qd_sub(a.re, b.re), qd_sub(a.im, b.im));
}
// (a + bi)(c + di) = (ac - bd) + (ad + bc) i
MD_HD inline ComplexQd cqd_mul(ComplexQd a, ComplexQd b) {
    // TODO(student): (a + bi)(c + di) = (ac - bd) + (ad + bc)i in quad-double.
    (void)a;
    (void)b;
    return make_cqd(make_qd(md_todo("cqd_mul")), make_qd(0.0));
}
// (a + bi)/(c + di) = ((ac + bd) + (bc - ad) i) / (c^2 + d^2)
MD_HD inline ComplexQd cqd_div(ComplexQd a, ComplexQd b) {
    // TODO(student): ((ac + bd) + (bc - ad)i) / (c^2 + d^2).
    (void)a;
    (void)b;
    return make_cqd(make_qd(md_todo("cqd_div")), make_qd(0.0));
}
// One Newton step for z^2 = c: z - (z^2 - c) / (2z).
MD_HD inline ComplexQd complex_newton_step(ComplexQd z, ComplexQd c) {
    // TODO(student): one Newton step for z^2 = c: z - (z^2 - c) / (2z).
    (void)z;
    (void)c;
    return make_cqd(make_qd(md_todo("complex_newton_step")), make_qd(0.0));
}

// ---- given: operators and conversions on top of the functions above ---------------------------

MD_HD inline DoubleDouble operator+(DoubleDouble a, DoubleDouble b) { return dd_add(a, b); }
MD_HD inline DoubleDouble operator-(DoubleDouble a, DoubleDouble b) { return dd_sub(a, b); }
MD_HD inline DoubleDouble operator*(DoubleDouble a, DoubleDouble b) { return dd_mul(a, b); }
MD_HD inline DoubleDouble operator/(DoubleDouble a, DoubleDouble b) { return dd_div(a, b); }
MD_HD inline DoubleDouble sqrt(DoubleDouble a) { return dd_sqrt(a); }
MD_HD inline QuadDouble operator-(QuadDouble a) { return qd_neg(a); }
MD_HD inline QuadDouble operator+(QuadDouble a, QuadDouble b) { return qd_add(a, b); }
MD_HD inline QuadDouble operator-(QuadDouble a, QuadDouble b) { return qd_sub(a, b); }
MD_HD inline QuadDouble operator*(QuadDouble a, QuadDouble b) { return qd_mul(a, b); }
MD_HD inline QuadDouble operator/(QuadDouble a, QuadDouble b) { return qd_div(a, b); }
MD_HD inline QuadDouble operator*(double a, QuadDouble b) { return qd_mul_d(b, a); }
MD_HD inline QuadDouble operator*(QuadDouble a, double b) { return qd_mul_d(a, b); }
MD_HD inline QuadDouble sqrt(QuadDouble a) { return qd_sqrt(a); }
MD_HD inline bool operator<(QuadDouble a, QuadDouble b) { return compare(a, b) < 0; }
MD_HD inline bool operator>(QuadDouble a, QuadDouble b) { return compare(a, b) > 0; }
MD_HD inline bool operator<=(QuadDouble a, QuadDouble b) { return compare(a, b) <= 0; }
MD_HD inline bool operator>=(QuadDouble a, QuadDouble b) { return compare(a, b) >= 0; }
MD_HD inline bool operator==(QuadDouble a, QuadDouble b) { return compare(a, b) == 0; }
MD_HD inline bool operator!=(QuadDouble a, QuadDouble b) { return compare(a, b) != 0; }

// ---- given: one operation by name, and a chain of them (the tests and the benchmarks) --------

MD_HD inline DoubleDouble apply_host(Op op, DoubleDouble a, DoubleDouble b) {
    switch (op) {
        case Op::add: return dd_add(a, b);
        case Op::sub: return dd_sub(a, b);
        case Op::mul: return dd_mul(a, b);
        case Op::div: return dd_div(a, b);
        case Op::sqrt: return dd_sqrt(a);
    }
    return a;
}
MD_HD inline QuadDouble apply_host(Op op, QuadDouble a, QuadDouble b) {
    switch (op) {
        case Op::add: return qd_add(a, b);
        case Op::sub: return qd_sub(a, b);
        case Op::mul: return qd_mul(a, b);
        case Op::div: return qd_div(a, b);
        case Op::sqrt: return qd_sqrt(a);
    }
    return a;
}

// `chain` dependent operations acc = acc op b: enough work per element to be compute-bound.
template <class T>
MD_HD T run_chain(Op op, T acc, T b, int chain) {
    for (int k = 0; k < chain; ++k) acc = apply_host(op, acc, b);
    return acc;
}

}  // namespace lab10
