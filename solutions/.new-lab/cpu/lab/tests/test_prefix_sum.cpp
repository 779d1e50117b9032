// Lab LABNUM visible tests: the scan against std::inclusive_scan on random,
// empty, one-element and in-place inputs, and the total against
// std::accumulate. Every call into student code is a judged call
// (HPCLAB_CALL, hpclab/judged.hpp): the grader takes its verdict out of the
// student's process.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "hpclab/check.hpp"
#include "hpclab/data.hpp"
#include "hpclab/judged.hpp"
#include "prefix_sum.hpp"

namespace {

void expect_scan(const std::vector<std::int64_t>& in) {
    std::vector<std::int64_t> got(in.size(), -1), want(in.size());
    std::inclusive_scan(in.begin(), in.end(), want.begin());
    HPCLAB_CALL([&] { LABNS::inclusive_scan(in.data(), got.data(), in.size()); }, got);
    const auto cmp = hpclab::compare_arrays(got, want, hpclab::Tolerance::exact());
    EXPECT_TRUE(cmp.ok()) << cmp.describe("scan");
}

TEST(InclusiveScan, Random) { expect_scan(hpclab::uniform_ints(10007, 1, -1000000, 1000000)); }

TEST(InclusiveScan, EmptyAndOne) {
    expect_scan({});
    expect_scan({42});
    expect_scan({-7, 7});
}

TEST(InclusiveScan, InPlace) {
    std::vector<std::int64_t> v = hpclab::uniform_ints(4099, 2, -1000000, 1000000), want(v.size());
    std::inclusive_scan(v.begin(), v.end(), want.begin());
    HPCLAB_CALL([&] { LABNS::inclusive_scan(v.data(), v.data(), v.size()); }, v);
    const auto cmp = hpclab::compare_arrays(v, want, hpclab::Tolerance::exact());
    EXPECT_TRUE(cmp.ok()) << cmp.describe("in-place scan");
}

TEST(Total, MatchesAccumulate) {
    const auto v = hpclab::uniform_ints(100003, 3, -1000000, 1000000);
    EXPECT_EQ(HPCLAB_VALUE(LABNS::total(v.data(), v.size())), std::accumulate(v.begin(), v.end(), std::int64_t{0}));
}

TEST(Total, EmptyIsZero) {
    const std::vector<std::int64_t> none;
    EXPECT_EQ(HPCLAB_VALUE(LABNS::total(none.data(), 0)), 0);
}

}  // namespace
