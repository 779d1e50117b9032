// Tolerances, ULP distance, array comparison and the sort check, with NaN,
// signed zeros, infinities, empty and large inputs: every check is total.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <vector>

#include "hpclab/check.hpp"
#include "hpclab/data.hpp"

using hpclab::Tolerance;

namespace {

const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// A NaN with the given payload and sign: NaNs differ in their bits.
double nan_with(std::uint64_t payload, bool negative) {
    std::uint64_t bits = 0x7ff8000000000000ull | (payload & 0x0007ffffffffffffull);
    if (negative) bits |= 0x8000000000000000ull;
    double x;
    std::memcpy(&x, &bits, sizeof x);
    return x;
}

}  // namespace

TEST(NanMax, KeepsNanWhereStdMaxDropsIt) {
    EXPECT_EQ(hpclab::nan_max(1.0, 2.0), 2.0);
    EXPECT_EQ(hpclab::nan_max(2.0, 1.0), 2.0);
    EXPECT_EQ(hpclab::nan_max(0.0, kInf), kInf);
    EXPECT_TRUE(std::isnan(hpclab::nan_max(0.0, kNan)));
    EXPECT_TRUE(std::isnan(hpclab::nan_max(kNan, 5.0)));
    // The loop this replaces: std::max and std::fmax lose the NaN.
    double with_std = 0, with_nan_max = 0;
    for (double err : {1e-20, kNan, 1e-19}) {
        with_std = std::max(with_std, err);
        with_nan_max = hpclab::nan_max(with_nan_max, err);
    }
    EXPECT_LE(with_std, 1e-12);
    EXPECT_FALSE(with_nan_max <= 1e-12);
}

TEST(Ulp, NeighboursAreOneApart) {
    EXPECT_EQ(hpclab::ulp_distance(1.0, std::nextafter(1.0, 2.0)), 1u);
    EXPECT_EQ(hpclab::ulp_distance(1.0f, std::nextafter(1.0f, 2.0f)), 1u);
    EXPECT_EQ(hpclab::ulp_distance(1.0, 1.0), 0u);
}

TEST(Ulp, SignedZerosCoincideAndZeroIsCrossed) {
    EXPECT_EQ(hpclab::ulp_distance(0.0, -0.0), 0u);
    const double tiny = std::numeric_limits<double>::denorm_min();
    EXPECT_EQ(hpclab::ulp_distance(-tiny, tiny), 2u);
}

TEST(Ulp, NanAndInfinityAreFar) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_EQ(hpclab::ulp_distance(nan, 1.0), std::numeric_limits<std::uint64_t>::max());
    EXPECT_EQ(hpclab::ulp_distance(inf, 1.0), std::numeric_limits<std::uint64_t>::max());
    EXPECT_EQ(hpclab::ulp_distance(inf, inf), 0u);
}

TEST(Matches, EachToleranceKind) {
    EXPECT_TRUE(hpclab::matches(1.0 + 1e-12, 1.0, Tolerance::absolute(1e-11)));
    EXPECT_FALSE(hpclab::matches(1.0 + 1e-10, 1.0, Tolerance::absolute(1e-11)));
    EXPECT_TRUE(hpclab::matches(1000.001, 1000.0, Tolerance::relative(2e-6)));
    EXPECT_FALSE(hpclab::matches(1000.01, 1000.0, Tolerance::relative(2e-6)));
    EXPECT_TRUE(hpclab::matches(std::nextafter(2.0, 3.0), 2.0, Tolerance::in_ulps(1)));
    EXPECT_FALSE(hpclab::matches(std::nextafter(2.0, 3.0), 2.0, Tolerance::exact()));
}

TEST(Matches, NanOnlyMatchesNanAndInfOnlyItself) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    const Tolerance loose{1e300, 1e300, 1000};
    EXPECT_TRUE(hpclab::matches(nan, nan, Tolerance::exact()));
    EXPECT_FALSE(hpclab::matches(nan, 1.0, loose));
    EXPECT_FALSE(hpclab::matches(1.0, nan, loose));
    EXPECT_TRUE(hpclab::matches(inf, inf, Tolerance::exact()));
    EXPECT_FALSE(hpclab::matches(inf, -inf, loose));
    EXPECT_FALSE(hpclab::matches(1e308, inf, loose));
}

TEST(CompareArrays, ReportsWorstErrorAndFirstMismatches) {
    std::vector<double> ref = {1, 2, 3, 4, 5, 6};
    std::vector<double> got = {1, 2.5, 3, 4, 9, 6};
    auto r = hpclab::compare_arrays(got, ref, Tolerance::absolute(0.1), 1);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.mismatches, 2u);
    EXPECT_DOUBLE_EQ(r.worst_abs, 4.0);
    EXPECT_EQ(r.worst_index, 4u);
    EXPECT_DOUBLE_EQ(r.worst_rel, 0.8);
    ASSERT_EQ(r.first.size(), 1u);  // keep_first = 1
    EXPECT_EQ(r.first[0].index, 1u);
    const std::string text = r.describe("C");
    EXPECT_NE(text.find("C[1] = 2.5, expected 2"), std::string::npos) << text;
}

TEST(CompareArrays, SizeMismatchIsNeverOk) {
    auto r = hpclab::compare_arrays(std::vector<float>{1, 2}, std::vector<float>{1, 2, 3}, Tolerance::exact());
    EXPECT_FALSE(r.ok());
    EXPECT_TRUE(r.size_mismatch);
}

TEST(CompareArrays, IntegersCompareExactly) {
    auto r = hpclab::compare_arrays(std::vector<int>{1, 2, 4}, std::vector<int>{1, 2, 3}, Tolerance::exact());
    EXPECT_EQ(r.mismatches, 1u);
}

TEST(CompareArrays, LargeIntegersAreNotRoundedThroughDouble) {
    // 2^60 + 1 and 2^60 are the same double: the difference must still show.
    const std::int64_t big = std::int64_t(1) << 60;
    auto r =
        hpclab::compare_arrays(std::vector<std::int64_t>{big + 1}, std::vector<std::int64_t>{big}, Tolerance::exact());
    EXPECT_EQ(r.mismatches, 1u);
    r = hpclab::compare_arrays(std::vector<std::int64_t>{big + 1}, std::vector<std::int64_t>{big},
                               Tolerance::absolute(1));
    EXPECT_TRUE(r.ok());
    r = hpclab::compare_arrays(std::vector<std::int64_t>{big + 2}, std::vector<std::int64_t>{big},
                               Tolerance::absolute(1.5));
    EXPECT_EQ(r.mismatches, 1u);
    const std::int64_t lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
    r = hpclab::compare_arrays(std::vector<std::int64_t>{lo}, std::vector<std::int64_t>{hi}, Tolerance::absolute(1e18));
    EXPECT_EQ(r.mismatches, 1u);
    r = hpclab::compare_arrays(std::vector<std::uint64_t>{~0ull}, std::vector<std::uint64_t>{~0ull - 1},
                               Tolerance::exact());
    EXPECT_EQ(r.mismatches, 1u);
}

TEST(CompareArrays, NanWhereANumberIsExpectedFails) {
    // Every NaN stands against a number: no tolerance lets one through.
    const std::vector<double> ref = {0.1, 0.2, 0.3};
    for (const Tolerance& tol : {Tolerance::exact(), Tolerance{1e300, 1e300, ~0ull}}) {
        auto r = hpclab::compare_arrays(std::vector<double>{0.1, kNan, 0.3}, ref, tol);
        EXPECT_FALSE(r.ok());
        EXPECT_EQ(r.mismatches, 1u);
        EXPECT_TRUE(std::isnan(r.worst_abs)) << "the worst error of a NaN output is NaN, not 0";
        EXPECT_EQ(r.worst_index, 1u);
        r = hpclab::compare_arrays(std::vector<double>(3, kNan), ref, tol);
        EXPECT_EQ(r.mismatches, 3u);
        // And the other way: a number where NaN is expected.
        r = hpclab::compare_arrays(ref, std::vector<double>(3, kNan), tol);
        EXPECT_EQ(r.mismatches, 3u);
    }
    const auto r = hpclab::compare_arrays(std::vector<float>{1.0f, std::nanf("")}, std::vector<float>{1.0f, 2.0f},
                                          Tolerance::relative(1e30));
    EXPECT_EQ(r.mismatches, 1u);
    EXPECT_NE(r.describe("y").find("y[1] = nan"), std::string::npos) << r.describe("y");
}

TEST(CompareArrays, NanMatchesAnyNanAndInfinityOnlyItself) {
    // Decided: an expected NaN is met by any NaN (sign and payload are left
    // open by IEEE 754); an infinity only by the same infinity; -0.0 and
    // +0.0 are the same number here (check_sorted_permutation tells them apart).
    auto r = hpclab::compare_arrays(std::vector<double>{nan_with(1, true), kInf, -kInf, -0.0, 0.0},
                                    std::vector<double>{kNan, kInf, -kInf, 0.0, -0.0}, Tolerance::exact());
    EXPECT_TRUE(r.ok()) << r.describe();
    EXPECT_EQ(r.worst_abs, 0.0);
    r = hpclab::compare_arrays(std::vector<double>{kInf, -kInf, std::numeric_limits<double>::max(), kNan},
                               std::vector<double>{-kInf, std::numeric_limits<double>::lowest(), kInf, kInf},
                               Tolerance{1e308, 1e300, ~0ull});
    EXPECT_EQ(r.mismatches, 4u);
}

TEST(CompareArrays, EmptyAndHuge) {
    EXPECT_TRUE(hpclab::compare_arrays(std::vector<double>{}, std::vector<double>{}, Tolerance::exact()).ok());
    EXPECT_FALSE(hpclab::compare_arrays(std::vector<double>{}, std::vector<double>{1.0}, Tolerance::exact()).ok());
    const auto ref = hpclab::uniform_doubles(1000000, 1);
    auto got = ref;
    EXPECT_TRUE(hpclab::compare_arrays(got, ref, Tolerance::exact()).ok());
    got[999999] = kNan;
    const auto r = hpclab::compare_arrays(got, ref, Tolerance::absolute(1.0));
    EXPECT_EQ(r.mismatches, 1u);
    EXPECT_EQ(r.worst_index, 999999u);
}

TEST(Matches, UnsetBoundsAreZeroNegativeOrNan) {
    EXPECT_FALSE(hpclab::matches(1.5, 1.0, Tolerance::absolute(-1.0)));
    EXPECT_FALSE(hpclab::matches(1.5, 1.0, Tolerance::absolute(kNan)));
    EXPECT_FALSE(hpclab::matches(1.5, 1.0, Tolerance::relative(kNan)));
    EXPECT_TRUE(hpclab::matches(1.5, 1.0, Tolerance::absolute(kInf)));
    EXPECT_FALSE(hpclab::matches(kNan, 1.0, Tolerance::absolute(kInf)));
    EXPECT_FALSE(hpclab::matches(kInf, 1.0, Tolerance::absolute(kInf)));
}

TEST(SortCheck, AcceptsSortedPermutation) {
    const std::vector<double> in = {3, 1, 2, 1};
    const std::vector<double> out = {1, 1, 2, 3};
    auto r = hpclab::check_sorted_permutation(out, in);
    EXPECT_TRUE(r.ok()) << r.message;
}

TEST(SortCheck, RejectsUnsortedAndNamesWhere) {
    auto r = hpclab::check_sorted_permutation(std::vector<double>{1, 3, 2}, std::vector<double>{1, 2, 3});
    EXPECT_FALSE(r.sorted);
    EXPECT_EQ(r.first_unsorted, 1u);
    EXPECT_TRUE(r.permutation);
}

TEST(SortCheck, RejectsSortedNonPermutation) {
    auto r = hpclab::check_sorted_permutation(std::vector<double>{1, 1, 3}, std::vector<double>{1, 2, 3});
    EXPECT_TRUE(r.sorted);
    EXPECT_FALSE(r.permutation);
    r = hpclab::check_sorted_permutation(std::vector<double>{1, 2}, std::vector<double>{1, 2, 3});
    EXPECT_FALSE(r.permutation);
}

// The two examples of issue 38: with < alone, NaN compared equal to
// everything, and both passed.
TEST(SortCheck, AllNanOutputOfAMillionFails) {
    const auto in = hpclab::uniform_doubles(1000000, 38);
    const std::vector<double> out(in.size(), kNan);
    const auto r = hpclab::check_sorted_permutation(out, in);
    EXPECT_FALSE(r.ok());
    EXPECT_FALSE(r.permutation);
    EXPECT_NE(r.message.find(" occurs 0 time(s) in the output, 1 in the input"), std::string::npos) << r.message;
    // Descending too.
    EXPECT_FALSE(hpclab::check_sorted_permutation(out, in, std::greater<double>()).ok());
}

TEST(SortCheck, NanInPlaceOfAnElementFails) {
    const auto r = hpclab::check_sorted_permutation(std::vector<double>{0.1, kNan, 0.3}, {0.1, 0.2, 0.3});
    EXPECT_FALSE(r.sorted) << "a NaN followed by a number";
    EXPECT_EQ(r.first_unsorted, 1u);
    EXPECT_FALSE(r.permutation);
    EXPECT_NE(r.message.find("element 1 is NaN"), std::string::npos) << r.message;
}

TEST(SortCheck, NanBreaksTheOrderAroundIt) {
    // 1 > 0, with a NaN between them that < cannot see past.
    auto r = hpclab::check_sorted_permutation(std::vector<double>{1, kNan, 0}, {0, kNan, 1});
    EXPECT_FALSE(r.sorted);
    EXPECT_TRUE(r.permutation);
    r = hpclab::check_sorted_permutation(std::vector<double>{kNan, 0, 1}, {0, kNan, 1});
    EXPECT_FALSE(r.sorted);
    EXPECT_EQ(r.first_unsorted, 0u);
}

TEST(SortCheck, NansGoLastInEitherOrder) {
    const double a = nan_with(5, false), b = nan_with(0, true);
    const std::vector<double> in = {a, 2, b, -1, kInf};
    EXPECT_TRUE(hpclab::check_sorted_permutation(std::vector<double>{-1, 2, kInf, b, a}, in).ok());
    EXPECT_TRUE(
        hpclab::check_sorted_permutation(std::vector<double>{kInf, 2, -1, a, b}, in, std::greater<double>()).ok());
    EXPECT_FALSE(
        hpclab::check_sorted_permutation(std::vector<double>{a, b, kInf, 2, -1}, in, std::greater<double>()).sorted);
    // NaNs are told apart by their bits: another payload is another element.
    const auto r = hpclab::check_sorted_permutation(std::vector<double>{-1, 2, kInf, a, a}, in);
    EXPECT_TRUE(r.sorted);
    EXPECT_FALSE(r.permutation);
}

TEST(SortCheck, SignedZerosAreEqualKeysButDifferentElements) {
    const std::vector<double> in = {0.0, -1.0, -0.0, 1.0};
    EXPECT_TRUE(hpclab::check_sorted_permutation(std::vector<double>{-1.0, -0.0, 0.0, 1.0}, in).ok());
    EXPECT_TRUE(hpclab::check_sorted_permutation(std::vector<double>{-1.0, 0.0, -0.0, 1.0}, in).ok());
    const auto r = hpclab::check_sorted_permutation(std::vector<double>{-1.0, 0.0, 0.0, 1.0}, in);
    EXPECT_TRUE(r.sorted);
    EXPECT_FALSE(r.permutation);
    EXPECT_NE(r.message.find("0 occurs 2 time(s) in the output, 1 in the input; -0 occurs 0 time(s) in the output, 1"),
              std::string::npos)
        << r.message;
}

TEST(SortCheck, InfinitiesAreKeysLikeAnyOther) {
    const std::vector<double> in = {kInf, 0.5, -kInf};
    EXPECT_TRUE(hpclab::check_sorted_permutation(std::vector<double>{-kInf, 0.5, kInf}, in).ok());
    EXPECT_FALSE(hpclab::check_sorted_permutation(std::vector<double>{0.5, -kInf, kInf}, in).sorted);
    const double big = std::numeric_limits<double>::max();
    EXPECT_FALSE(hpclab::check_sorted_permutation(std::vector<double>{-big, 0.5, big}, in).permutation);
}

TEST(SortCheck, ConstantOutputOfADescendingSortFails) {
    // Sorted under greater, but not the input's elements.
    const auto in = hpclab::uniform_doubles(1001, 6);
    const std::vector<double> out(in.size(), in[0]);
    const auto r = hpclab::check_sorted_permutation(out, in, std::greater<double>());
    EXPECT_TRUE(r.sorted);
    EXPECT_FALSE(r.permutation);
    auto want = in;
    std::sort(want.begin(), want.end(), std::greater<double>());
    EXPECT_TRUE(hpclab::check_sorted_permutation(want, in, std::greater<double>()).ok());
    std::reverse(want.begin(), want.end());
    EXPECT_FALSE(hpclab::check_sorted_permutation(want, in, std::greater<double>()).sorted);
}

TEST(SortCheck, EmptyAndOneElement) {
    const std::vector<double> none;
    EXPECT_TRUE(hpclab::check_sorted_permutation(none, none).ok());
    EXPECT_FALSE(hpclab::check_sorted_permutation(none, {1.0}).ok());
    EXPECT_FALSE(hpclab::check_sorted_permutation(std::vector<double>{1.0}, none).ok());
    EXPECT_TRUE(hpclab::check_sorted_permutation(std::vector<double>{kNan}, {kNan}).ok());
    EXPECT_FALSE(hpclab::check_sorted_permutation(std::vector<double>{kNan}, {1.0}).ok());
}

TEST(SortCheck, AMillionWithOneElementChanged) {
    const auto in = hpclab::uniform_doubles(1000000, 7, -1.0, 1.0);
    auto out = in;
    std::sort(out.begin(), out.end());
    EXPECT_TRUE(hpclab::check_sorted_permutation(out, in).ok());
    out[500000] = std::nextafter(out[500000], out[500001]);  // one ulp: still sorted
    const auto r = hpclab::check_sorted_permutation(out, in);
    EXPECT_TRUE(r.sorted);
    EXPECT_FALSE(r.permutation);
    out[500000] = out[500001];  // a duplicate instead: still sorted
    EXPECT_FALSE(hpclab::check_sorted_permutation(out, in).permutation);
}

TEST(SortCheck, IntegersAndFloats) {
    EXPECT_TRUE(hpclab::check_sorted_permutation(std::vector<int>{-3, 0, 7}, {7, -3, 0}).ok());
    EXPECT_FALSE(hpclab::check_sorted_permutation(std::vector<int>{-3, 0, 0}, {7, -3, 0}).ok());
    const auto big = std::numeric_limits<std::int64_t>::max();
    EXPECT_FALSE(hpclab::check_sorted_permutation(std::vector<std::int64_t>{big - 1}, {big}).ok());
    EXPECT_TRUE(hpclab::check_sorted_permutation(std::vector<std::uint64_t>{9, 2}, {2, 9}, std::greater<>()).ok());
    const float fnan = std::numeric_limits<float>::quiet_NaN();
    EXPECT_FALSE(hpclab::check_sorted_permutation(std::vector<float>{0.1f, fnan, 0.3f}, {0.1f, 0.2f, 0.3f}).ok());
    EXPECT_FALSE(hpclab::check_sorted_permutation(std::vector<float>{0.0f}, {-0.0f}).ok());
}

TEST(SortCheck, MultisetDifferenceNamesTheElement) {
    EXPECT_EQ(hpclab::multiset_difference(std::vector<double>{2, 1}, {1, 2}), "");
    EXPECT_EQ(hpclab::multiset_difference(std::vector<double>{1, 1}, {1, 2}),
              "1 occurs 2 time(s) in the output, 1 in the input; 2 occurs 0 time(s) in the output, 1 in the input");
    EXPECT_EQ(hpclab::multiset_difference(std::vector<int>{5}, {}), "1 elements out, 0 in");
    const double nan = nan_with(0, false);
    EXPECT_EQ(hpclab::multiset_difference(std::vector<double>{nan, 3, 3, 3}, {1, 2, 3, 4}, 2),
              "1 occurs 0 time(s) in the output, 1 in the input; 2 occurs 0 time(s) in the output, 1 in the input");
    EXPECT_EQ(hpclab::multiset_difference(std::vector<double>{nan}, {1}),
              "1 occurs 0 time(s) in the output, 1 in the input; NaN (bits 0x7ff8000000000000) occurs 1 time(s) in "
              "the output, 0 in the input");
}

TEST(SortCheck, LeavesInputsUntouched) {
    const std::vector<double> in = {5, 4, 3};
    std::vector<double> out = {3, 4, 5};
    auto in_copy = in;
    auto out_copy = out;
    hpclab::check_sorted_permutation(out, in);
    EXPECT_EQ(in, in_copy);
    EXPECT_EQ(out, out_copy);
}
