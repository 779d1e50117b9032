// Lab 10, stages 1, 2 and 5a: double-double and quad-double arithmetic for host and device.
// Every TODO(student) below throws hpclab::NotImplemented on the host; the device cannot throw,
// so there it gives NaN (md_todo, md_types.hpp), and every launch on the host throws first.
// Every function is MD_HD (__host__ __device__ under nvcc): the tests check it on the host
// against the QD library, then check that the GPU gives the same bits.
// Given: md_helpers.hpp (two_diff, two_sqr, three_sum, three_sum2, the four-term renorm,
// dd_sub, dd_mul_d, qd_neg, qd_sub, qd_mul_d, cqd_add, cqd_sub), included below, and
// md_operators.hpp (operators, apply_host, run_chain), which includes this file.
// Rule of this file: no bare `*` on doubles. Products go through mul_rn (never fused) or
// fma_rn (always fused), so results do not depend on the compiler's FMA contraction.
#pragma once

#include "md_helpers.hpp"

namespace lab10 {

// ---- stage 1: error-free transformations ----------------------------------------------------

// s = fl(a + b) and err with a + b = s + err exactly (Knuth; no condition on a, b).
MD_HD inline double two_sum(double a, double b, double& err) {
    // TODO(student): Knuth's two-sum (six flops, no branch): s = fl(a + b), then recover the
    // rounding error from bb = s - a without assuming |a| >= |b|. See two_diff (md_helpers.hpp).
    (void)a;
    (void)b;
    err = md_todo("two_sum");
    return err;
}

// s = fl(a + b) and err, exact only when |a| >= |b| (or a == 0): three flops instead of six.
MD_HD inline double quick_two_sum(double a, double b, double& err) {
    // TODO(student): Dekker's fast two-sum: s = fl(a + b), err = b - (s - a); exact only when
    // |a| >= |b|. Three flops.
    (void)a;
    (void)b;
    err = md_todo("quick_two_sum");
    return err;
}

// p = fl(a * b) and err with a * b = p + err exactly: the FMA computes a*b - p with one
// rounding, and that difference is representable (barring underflow).
MD_HD inline double two_prod(double a, double b, double& err) {
    // TODO(student): p = fl(a * b) through mul_rn, err = a*b - p with ONE rounding: fma_rn.
    // Do not write a * b - p: whether that is fused depends on the compiler's flags.
    (void)a;
    (void)b;
    err = md_todo("two_prod");
    return err;
}

// Five words in, four out: c4 is folded in, not dropped.
MD_HD inline void renorm(double& c0, double& c1, double& c2, double& c3, double& c4) {
    // TODO(student): QD's five-term renormalization. Like the four-term version (given, in
    // md_helpers.hpp): a bottom-up sweep of quick_two_sum from (c3, c4) to c0, then a top-down
    // pass that builds s0..s3 skipping zero words; c4 must end up in the result (fold it into
    // s3 when all of s0..s3 are already in use).
    (void)c4;
    c0 = c1 = c2 = c3 = md_todo("renorm");
}

// ---- stage 2a: double-double (QD's algorithms, so the bits match dd_real) ---------------------

MD_HD inline DoubleDouble dd_add(DoubleDouble a, DoubleDouble b) {
    // TODO(student): QD's sloppy add: two_sum of the high words, add both low words to the
    // error, quick_two_sum to renormalize. (dd_sub, given, is the same with two_diff.)
    (void)a;
    (void)b;
    return make_dd(md_todo("dd_add"));
}

MD_HD inline DoubleDouble dd_mul(DoubleDouble a, DoubleDouble b) {
    // TODO(student): two_prod of the high words; add hi*lo + lo*hi (each through mul_rn) to
    // the error; quick_two_sum. lo*lo is below the last bit.
    (void)a;
    (void)b;
    return make_dd(md_todo("dd_mul"));
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

// QD's sloppy_add: pairwise two_sum of the words, merge the error terms, renormalize 5 -> 4.
MD_HD inline QuadDouble qd_add(QuadDouble a, QuadDouble b) {
    // TODO(student): QD's sloppy add: two_sum word by word (s_i, t_i); fold t0 into s1
    // (two_sum), then three_sum(s2, t0, t1), three_sum2(s3, t0, t2), t0 = t0 + t1 + t3;
    // renormalize the five words (s0, s1, s2, s3, t0).
    (void)a;
    (void)b;
    return make_qd(md_todo("qd_add"));
}

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
    (void)md_todo("compare");  // the device gets 0: an int has no NaN
    return 0;
}

// ---- stage 5a: complex quad-double (exercise 2) ---------------------------------------------

// (a + bi)(c + di) = (ac - bd) + (ad + bc) i
MD_HD inline ComplexQd cqd_mul(ComplexQd a, ComplexQd b) {
    // TODO(student): (a + bi)(c + di) = (ac - bd) + (ad + bc)i in quad-double.
    (void)a;
    (void)b;
    const QuadDouble nan = make_qd(md_todo("cqd_mul"));
    return make_cqd(nan, nan);
}
// (a + bi)/(c + di) = ((ac + bd) + (bc - ad) i) / (c^2 + d^2)
MD_HD inline ComplexQd cqd_div(ComplexQd a, ComplexQd b) {
    // TODO(student): ((ac + bd) + (bc - ad)i) / (c^2 + d^2).
    (void)a;
    (void)b;
    const QuadDouble nan = make_qd(md_todo("cqd_div"));
    return make_cqd(nan, nan);
}
// One Newton step for z^2 = c: z - (z^2 - c) / (2z).
MD_HD inline ComplexQd complex_newton_step(ComplexQd z, ComplexQd c) {
    // TODO(student): one Newton step for z^2 = c: z - (z^2 - c) / (2z).
    (void)z;
    (void)c;
    const QuadDouble nan = make_qd(md_todo("complex_newton_step"));
    return make_cqd(nan, nan);
}

}  // namespace lab10
