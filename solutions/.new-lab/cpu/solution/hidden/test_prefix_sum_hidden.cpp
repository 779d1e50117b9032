// Lab LABNUM hidden tests (compiled only by the grader): sizes the visible
// tests do not try, with other seeds.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "hpclab/check.hpp"
#include "hpclab/data.hpp"
#include "hpclab/judged.hpp"
#include "prefix_sum.hpp"

namespace {

TEST(Hidden, OtherSizesAndSeeds) {
    for (std::size_t n : {2, 3, 63, 64, 65, 1000, 65537}) {
        hpclab::Rng rng(100 + n);
        std::vector<std::int64_t> in(n), got(n, -1), want(n);
        for (auto& x : in) x = rng.uniform_int(-1000000000, 1000000000);
        std::inclusive_scan(in.begin(), in.end(), want.begin());
        HPCLAB_CALL([&] { LABNS::inclusive_scan(in.data(), got.data(), n); }, got);
        const auto cmp = hpclab::compare_arrays(got, want, hpclab::Tolerance::exact());
        ASSERT_TRUE(cmp.ok()) << "n = " << n << ": " << cmp.describe("scan");
        EXPECT_EQ(HPCLAB_VALUE(LABNS::total(in.data(), n)), want.back()) << "n = " << n;
    }
}

}  // namespace
