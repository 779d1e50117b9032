// The generators are deterministic and platform independent: the first
// values for a seed are pinned here, so a change anywhere shows up.
#include <gtest/gtest.h>

#include <algorithm>

#include "hpclab/data.hpp"

TEST(Rng, SameSeedSameSequenceDifferentSeedDifferent) {
    hpclab::Rng a(42), b(42), c(43);
    for (int i = 0; i < 100; ++i) {
        const auto x = a.next_u64();
        EXPECT_EQ(x, b.next_u64());
        EXPECT_NE(x, c.next_u64());
    }
}

TEST(Rng, MatchesXoshiroReferenceOutputs) {
    // Reference outputs of xoshiro256** (Blackman and Vigna's C code) from
    // the state {1, 2, 3, 4}.
    auto rng = hpclab::Rng::from_state(1, 2, 3, 4);
    EXPECT_EQ(rng.next_u64(), 11520u);
    EXPECT_EQ(rng.next_u64(), 0u);
    EXPECT_EQ(rng.next_u64(), 1509978240u);
    EXPECT_EQ(rng.next_u64(), 1215971899390074240u);
    EXPECT_THROW(hpclab::Rng::from_state(0, 0, 0, 0), std::invalid_argument);
}

TEST(Rng, Uniform01InRangeWithMeanNearHalf) {
    hpclab::Rng rng(7);
    double sum = 0;
    for (int i = 0; i < 100000; ++i) {
        const double x = rng.uniform01();
        ASSERT_GE(x, 0.0);
        ASSERT_LT(x, 1.0);
        sum += x;
    }
    EXPECT_NEAR(sum / 100000, 0.5, 0.01);
}

TEST(Rng, UniformIntCoversInclusiveRange) {
    hpclab::Rng rng(3);
    std::vector<int> seen(5, 0);
    for (int i = 0; i < 10000; ++i) {
        const auto k = rng.uniform_int(-2, 2);
        ASSERT_GE(k, -2);
        ASSERT_LE(k, 2);
        ++seen[static_cast<std::size_t>(k + 2)];
    }
    for (int count : seen) EXPECT_GT(count, 1500);
    EXPECT_THROW(rng.uniform_int(2, 1), std::invalid_argument);
}

TEST(Generators, UniformIntsAreTheRngsDrawsInRange) {
    const auto v = hpclab::uniform_ints(1000, 5, -7, 7);
    ASSERT_EQ(v.size(), 1000u);
    hpclab::Rng rng(5);
    for (std::int64_t x : v) ASSERT_EQ(x, rng.uniform_int(-7, 7));
    EXPECT_EQ(*std::min_element(v.begin(), v.end()), -7);
    EXPECT_EQ(*std::max_element(v.begin(), v.end()), 7);
    EXPECT_TRUE(hpclab::uniform_ints(0, 5, 0, 1).empty());
    EXPECT_THROW(hpclab::uniform_ints(3, 5, 1, 0), std::invalid_argument);
}

TEST(Generators, ShapesAndRanges) {
    auto u = hpclab::uniform_doubles(1000, 1, -3.0, 5.0);
    ASSERT_EQ(u.size(), 1000u);
    EXPECT_TRUE(std::all_of(u.begin(), u.end(), [](double x) { return x >= -3.0 && x < 5.0; }));
    auto f = hpclab::uniform_floats(1000, 1);
    EXPECT_TRUE(std::all_of(f.begin(), f.end(), [](float x) { return x >= 0.0f && x < 1.0f; }));
    auto few = hpclab::few_distinct_doubles(1000, 3, 9);
    std::sort(few.begin(), few.end());
    EXPECT_EQ(std::unique(few.begin(), few.end()) - few.begin(), 3);
    EXPECT_EQ(hpclab::ascending_doubles(3), (std::vector<double>{0, 1, 2}));
    EXPECT_EQ(hpclab::descending_doubles(3), (std::vector<double>{2, 1, 0}));
    EXPECT_TRUE(hpclab::uniform_doubles(0, 1).empty());
}
