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

// Values from the grade-time seed (hpclab::Rng), so no submission knows them.
std::vector<std::int64_t> random_values(std::size_t n, std::uint64_t seed) {
    hpclab::Rng rng(seed);
    std::vector<std::int64_t> v(n);
    for (auto& x : v) x = rng.uniform_int(-1000000, 1000000);
    return v;
}

void expect_scan(const std::vector<std::int64_t>& in) {
    std::vector<std::int64_t> got(in.size(), -1), want(in.size());
    std::inclusive_scan(in.begin(), in.end(), want.begin());
    HPCLAB_CALL([&] { LABNS::inclusive_scan(in.data(), got.data(), in.size()); }, got);
    const auto cmp = hpclab::compare_arrays(got, want, hpclab::Tolerance::exact());
    EXPECT_TRUE(cmp.ok()) << cmp.describe("scan");
}

TEST(InclusiveScan, Random) { expect_scan(random_values(10007, 1)); }

TEST(InclusiveScan, EmptyAndOne) {
    expect_scan({});
    expect_scan({42});
    expect_scan({-7, 7});
}

TEST(InclusiveScan, InPlace) {
    std::vector<std::int64_t> v = random_values(4099, 2), want(v.size());
    std::inclusive_scan(v.begin(), v.end(), want.begin());
    HPCLAB_CALL([&] { LABNS::inclusive_scan(v.data(), v.data(), v.size()); }, v);
    const auto cmp = hpclab::compare_arrays(v, want, hpclab::Tolerance::exact());
    EXPECT_TRUE(cmp.ok()) << cmp.describe("in-place scan");
}

TEST(Total, MatchesAccumulate) {
    const auto v = random_values(100003, 3);
    EXPECT_EQ(HPCLAB_VALUE(LABNS::total(v.data(), v.size())), std::accumulate(v.begin(), v.end(), std::int64_t{0}));
}

TEST(Total, EmptyIsZero) {
    const std::vector<std::int64_t> none;
    EXPECT_EQ(HPCLAB_VALUE(LABNS::total(none.data(), 0)), 0);
}

}  // namespace
