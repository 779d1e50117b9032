// Tolerances, ULP distance, array comparison and the sort check.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "hpclab/check.hpp"

using hpclab::Tolerance;

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

TEST(SortCheck, LeavesInputsUntouched) {
    const std::vector<double> in = {5, 4, 3};
    std::vector<double> out = {3, 4, 5};
    auto in_copy = in;
    auto out_copy = out;
    hpclab::check_sorted_permutation(out, in);
    EXPECT_EQ(in, in_copy);
    EXPECT_EQ(out, out_copy);
}
