// Lab 14 hidden tests: sizes, starts, budgets and communicators the visible
// tests do not use. Same judged-call rules as tests/test_pancake.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "hpclab/data.hpp"
#include "hpclab/judged.hpp"
#include "hpclab/mpi.hpp"
#include "pancake.hpp"
#include "tests/bfs_codec.hpp"
#include "tests/reference_search.hpp"
#include "tests/spill_dir.hpp"

namespace {

using Stack = std::vector<std::uint8_t>;

Stack random_stack(int n, hpclab::Rng& rng) {
    Stack s;
    for (int i = 0; i < n; ++i) s.push_back(static_cast<std::uint8_t>(i));
    for (int i = n - 1; i > 0; --i) std::swap(s[static_cast<std::size_t>(i)], s[rng.uniform_int(0, i)]);
    return s;
}

using lab14_test::spill_dir;

void expect_levels(const lab14::BfsResult& r, const Stack& start) {
    const auto want = lab14_test::reference_levels(start);
    EXPECT_EQ(r.level_counts, want.counts) << "n = " << start.size();
    EXPECT_EQ(r.level_fingerprints, want.fingerprints) << "n = " << start.size();
}

TEST(Hidden, RandomIndicesRoundTripUpToTwenty) {
    hpclab::Rng rng(2023);
    for (int n = 10; n <= lab14::kMaxPancakes; ++n) {
        const std::uint64_t total = lab14::factorial(n);
        for (int t = 0; t < 10; ++t) {
            const std::uint64_t i = rng.next_u64() % (total - 1);
            Stack a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n));
            HPCLAB_CALL([&] { lab14::unrank_stack(i, n, a.data()); }, a);
            HPCLAB_CALL([&] { lab14::unrank_stack(i + 1, n, b.data()); }, b);
            EXPECT_LT(a, b) << "index " << i << " and the next must be in lexicographic order, n = " << n;
            // Both are stacks (permutations of 0..n-1): order alone would
            // pass any b above a.
            for (const Stack& s : {a, b}) {
                Stack sorted = s;
                std::sort(sorted.begin(), sorted.end());
                for (int k = 0; k < n; ++k)
                    EXPECT_EQ(sorted[static_cast<std::size_t>(k)], k) << "not a stack, n = " << n;
            }
            EXPECT_EQ(HPCLAB_VALUE(lab14::rank_stack(a.data(), n)), i) << "n = " << n;
        }
    }
}

TEST(Hidden, OutboxReusedOverLevels) {
    const std::string prefix = spill_dir() + "/reuse-r" + std::to_string(hpclab::mpi::rank()) + "-";
    hpclab::Rng rng(77 + static_cast<std::uint64_t>(hpclab::mpi::rank()));
    const std::vector<std::size_t> sizes = {23, 5, 301};
    std::vector<std::vector<std::uint64_t>> adds;
    for (std::size_t s : sizes) {
        std::vector<std::uint64_t> level;
        for (std::size_t i = 0; i < s; ++i) level.push_back(rng.next_u64());
        adds.push_back(level);
    }
    // Two destinations, items alternate; 40 bytes = 5 items of budget. Only
    // the items come back as values: spilled_bytes() is the outbox's own
    // account, which no value the judge sees could confirm.
    const auto got = HPCLAB_CALL([&] {
        std::vector<std::uint64_t> out;
        lab14::Outbox box(2, 40, prefix);
        for (const auto& level : adds) {
            for (std::size_t i = 0; i < level.size(); ++i) box.add(static_cast<int>(i % 2), level[i]);
            for (int d = 0; d < 2; ++d) {
                std::uint64_t buf[3];
                for (std::size_t k; (k = box.take(d, buf, 3)) > 0;) out.insert(out.end(), buf, buf + k);
            }
            box.clear();
        }
        return out;
    });
    std::vector<std::uint64_t> want;
    for (const auto& level : adds) {
        for (int d = 0; d < 2; ++d)
            for (std::size_t i = static_cast<std::size_t>(d); i < level.size(); i += 2) want.push_back(level[i]);
    }
    EXPECT_EQ(got, want);
}

TEST(Hidden, SubCommunicatorsSearchApart) {
    const int me = hpclab::mpi::rank();
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    hpclab::Rng rng(4242);
    const Stack six = random_stack(6, rng), seven = random_stack(7, rng);
    lab14::BfsOptions o;
    o.n = me % 2 ? 7 : 6;
    o.start = me % 2 ? seven : six;
    const auto r = HPCLAB_CALL([&] { return lab14::pancake_bfs(o, half); });
    MPI_Comm_free(&half);
    expect_levels(r, o.start);
}

TEST(Hidden, OddBudgetsAndRandomStarts) {
    const int p = hpclab::mpi::size();
    hpclab::Rng rng(909);
    lab14::BfsOptions o;
    o.spill_dir = spill_dir();
    o.n = 7;
    o.start = random_stack(7, rng);
    o.budget_bytes = 3 * lab14::min_budget_bytes(p) + 13;
    const auto spilled = HPCLAB_CALL([&] { return lab14::pancake_bfs(o, MPI_COMM_WORLD); });
    expect_levels(spilled, o.start);
    o.n = 8;
    o.start = random_stack(8, rng);
    o.budget_bytes = 0;
    const auto in_memory = HPCLAB_CALL([&] { return lab14::pancake_bfs(o, MPI_COMM_WORLD); });
    expect_levels(in_memory, o.start);
}

}  // namespace
