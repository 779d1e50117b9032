// Lab 12 hidden tests: other seeds, sizes and rank counts than the visible
// ones: a one-slot mailbox (every send waits for the receive before it), the
// longest message a slot holds, layouts at line boundaries, rings and
// permutations at the co-resident maximum minus one, collectives with one
// value and with a whole slot's worth, the barrier at a count that is no
// multiple of anything, and misuse with more ranks.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "gmp.hpp"
#include "hpclab/cuda.hpp"
#include "hpclab/gtest_gpu.hpp"
#include "hpclab/judged.hpp"
#include "programs.hpp"
#include "tests/gmp_judged.hpp"

namespace {

using lab12test::clean;
using lab12test::salted;

gmp::Config config(int ranks, int slots = 8, std::size_t max_bytes = 1024) {
    gmp::Config c;
    c.ranks = ranks;
    c.slots = slots;
    c.max_bytes = max_bytes;
    return c;
}

TEST(HiddenHost, LayoutAtLineBoundariesAndTheCheckAtTheEdge) {
    for (std::size_t bytes : {std::size_t(255), std::size_t(256), std::size_t(257)}) {
        const gmp::Layout l = HPCLAB_VALUE(gmp::mailbox_layout(3, 5, bytes));
        EXPECT_EQ(l.slot_bytes % gmp::kLineBytes, 0u);
        EXPECT_GE(l.slot_bytes, gmp::kLineBytes + bytes);
        EXPECT_LT(l.slot_bytes, 2 * gmp::kLineBytes + bytes);
        EXPECT_EQ(l.total_bytes, l.slot_bytes * 15);
    }
    EXPECT_NO_THROW(HPCLAB_CALL([] { gmp::check_co_residency(288, 144, 2); }));
    std::string message;
    try {
        HPCLAB_CALL([] { gmp::check_co_residency(289, 144, 2); });
    } catch (const std::invalid_argument& e) {
        message = e.what();
    }
    EXPECT_NE(message.find("289"), std::string::npos) << message;
    EXPECT_NE(message.find("288"), std::string::npos) << message;
}

TEST(HiddenGpu, OneSlotMailboxAndFullSlotMessages) {
    HPCLAB_REQUIRE_GPU();
    const std::uint64_t seed = salted(91201);
    const auto got = HPCLAB_VALUE(gmp::run_stream(config(2, 1, 1024), 77, 128, seed));
    ASSERT_TRUE(clean(got.report));
    EXPECT_EQ(got.values, lab12test::expected_stream(77, 128, seed));
}

TEST(HiddenGpu, RingAndPermutationNearTheMaximum) {
    HPCLAB_REQUIRE_GPU();
    const int most = lab12test::max_ranks(gmp::Program::ring);
    const std::uint64_t seed = salted(91202);
    const auto ring = HPCLAB_VALUE(gmp::run_ring(config(most - 1, 2), 3, seed));
    ASSERT_TRUE(clean(ring.report));
    EXPECT_EQ(ring.values, lab12test::expected_ring(most - 1, 3, seed));
    const int ranks = lab12test::max_ranks(gmp::Program::permutation) - 2;
    const std::vector<int> perm = lab12test::shuffled(ranks, seed + 1);
    const auto got = HPCLAB_VALUE(gmp::run_permutation(config(ranks), perm, 1, seed));
    ASSERT_TRUE(clean(got.report));
    ASSERT_EQ(got.values.size(), static_cast<std::size_t>(ranks));
    for (int r = 0; r < ranks; ++r)
        ASSERT_EQ(got.values[perm[r]], gmp::value_of(seed, r, 0)) << "rank " << perm[r] << " from rank " << r;
}

TEST(HiddenGpu, CollectivesWithOneValueAndAWholeSlot) {
    HPCLAB_REQUIRE_GPU();
    for (int ranks : {5, 61, 250}) {
        const std::uint64_t seed = salted(91203 + ranks);
        const int root = ranks - 2;
        lab12test::expect_collectives(HPCLAB_VALUE(gmp::run_collectives(config(ranks, 2), root, 1, seed)), ranks, root,
                                      1, seed);
        lab12test::expect_collectives(HPCLAB_VALUE(gmp::run_collectives(config(ranks, 3, 512), root, 64, seed)), ranks,
                                      root, 64, seed);
    }
}

TEST(HiddenGpu, BarrierStressAtAnOddCount) {
    HPCLAB_REQUIRE_GPU();
    const int ranks = std::min(97, lab12test::max_ranks(gmp::Program::barrier_stress));
    const auto got = HPCLAB_VALUE(gmp::run_barrier_stress(config(ranks), 5000, 48));
    ASSERT_TRUE(clean(got.report));
    for (int r = 0; r < ranks; ++r) EXPECT_EQ(got.values[r], 0) << "rank " << r;
}

TEST(HiddenGpu, MisuseWithMoreRanks) {
    HPCLAB_REQUIRE_GPU();
    gmp::Config c = config(12, 2);
    c.timeout_ms = 80;
    const auto full = HPCLAB_VALUE(gmp::run_misuse(c, gmp::Misuse::full_mailbox, 0));
    EXPECT_EQ(full.report.code, gmp::kErrNoSpace) << gmp::describe(full.report);
    EXPECT_EQ(full.report.rank, 0);
    EXPECT_EQ(full.report.peer, 1);
    EXPECT_EQ(full.report.tag, 3);
    const auto recv = HPCLAB_VALUE(gmp::run_misuse(c, gmp::Misuse::recv_without_send, 0));
    EXPECT_EQ(recv.report.code, gmp::kErrTimeout) << gmp::describe(recv.report);
    EXPECT_EQ(recv.report.peer, 1);
    EXPECT_EQ(recv.report.tag, 7);  // (its elapsed_ms is timed in the submission's process: not judged)
    const auto barrier = HPCLAB_VALUE(gmp::run_misuse(c, gmp::Misuse::missed_barrier, 11));
    EXPECT_EQ(barrier.report.code, gmp::kErrTimeout) << gmp::describe(barrier.report);
    EXPECT_NE(barrier.report.rank, 11);
}

}  // namespace
