// Lab 12 visible tests. On the CPU (everywhere): the mailbox layout and the
// co-residency check. On the GPU: ordering of point-to-point messages
// (one pair, one tag; tags in the receiver's order; all to all; rings;
// permutations), the collectives against the host at odd rank counts and
// several roots and at EVERY rank count up to the co-resident maximum, a
// barrier stress test, and every misuse ending at its deadline with a
// report that names the rank, the peer and the tag.
//
// Every call into student code goes through HPCLAB_CALL / HPCLAB_VALUE
// (hpclab/judged.hpp); expected values are computed here, on the host.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
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

// ---- stage 1: the host's arithmetic (CPU) ----------------------------------------------

gmp::Layout layout(int ranks, int slots, std::size_t max_bytes) {
    return HPCLAB_VALUE(gmp::mailbox_layout(ranks, slots, max_bytes));
}

TEST(Layout, SlotsAreWholeLinesThatHoldTheLongestMessage) {
    for (std::size_t bytes : {std::size_t(1), std::size_t(127), std::size_t(128), std::size_t(129), std::size_t(1000),
                              std::size_t(1) << 20}) {
        for (int slots : {1, 7, gmp::kMaxSlots}) {
            const int ranks = 1 + static_cast<int>(bytes % 97) + slots;
            const gmp::Layout l = layout(ranks, slots, bytes);
            const std::string what = std::to_string(ranks) + " ranks, " + std::to_string(slots) + " slots, " +
                                     std::to_string(bytes) + " bytes";
            EXPECT_EQ(l.ranks, ranks) << what;
            EXPECT_EQ(l.slots, slots) << what;
            EXPECT_EQ(l.max_bytes, bytes) << what;
            EXPECT_EQ(l.slot_bytes % gmp::kLineBytes, 0u) << what;
            EXPECT_GE(l.slot_bytes, gmp::kLineBytes + bytes) << what << ": the header line and the payload";
            EXPECT_LT(l.slot_bytes, 2 * gmp::kLineBytes + bytes) << what << ": no more than one line of padding";
            EXPECT_EQ(l.mailbox_bytes, l.slot_bytes * slots) << what;
            EXPECT_EQ(l.total_bytes, l.mailbox_bytes * ranks) << what;
        }
    }
}

TEST(Layout, RefusesBadArgumentsAndOverflow) {
    EXPECT_THROW(layout(0, 4, 64), std::invalid_argument);
    EXPECT_THROW(layout(-3, 4, 64), std::invalid_argument);
    EXPECT_THROW(layout(2, 0, 64), std::invalid_argument);
    EXPECT_THROW(layout(2, gmp::kMaxSlots + 1, 64), std::invalid_argument);
    EXPECT_THROW(layout(2, 4, 0), std::invalid_argument);
    const std::size_t huge = std::numeric_limits<std::size_t>::max() / 8;
    EXPECT_THROW(layout(1000, 16, huge), std::overflow_error);
    EXPECT_THROW(layout(1, 1, std::numeric_limits<std::size_t>::max()), std::overflow_error);
}

TEST(CoResidency, MaximumIsSmsTimesBlocksPerSm) {
    for (int sms : {1, 132, 144}) {
        for (int per : {0, 1, 8, 32}) EXPECT_EQ(HPCLAB_VALUE(gmp::max_resident_ranks(sms, per)), 1LL * sms * per);
    }
    EXPECT_THROW(HPCLAB_VALUE(gmp::max_resident_ranks(-1, 4)), std::invalid_argument);
    EXPECT_THROW(HPCLAB_VALUE(gmp::max_resident_ranks(4, -1)), std::invalid_argument);
}

// The refusal's message, or "" when the check let the grid through.
std::string refusal(int ranks, int sms, int per) {
    try {
        HPCLAB_CALL([&] { gmp::check_co_residency(ranks, sms, per); });
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

TEST(CoResidency, RefusesTooManyRanksNamingBothNumbers) {
    EXPECT_EQ(refusal(1056, 132, 8), "");
    EXPECT_EQ(refusal(1, 1, 1), "");
    const std::string over = refusal(1057, 132, 8);
    EXPECT_NE(over.find("1057"), std::string::npos) << over;
    EXPECT_NE(over.find("1056"), std::string::npos) << over;
    const std::string none = refusal(5, 132, 0);
    EXPECT_NE(none.find('5'), std::string::npos) << none;
    EXPECT_NE(none.find('0'), std::string::npos) << none;
    EXPECT_NE(refusal(0, 132, 8), "");
    EXPECT_NE(refusal(-2, 132, 8), "");
}

// The harness's error texts (given code: no points).
TEST(Report, DescribeNamesCallRankPeerAndTag) {
    gmp::Report r;
    EXPECT_EQ(gmp::describe(r), "success");
    r.code = gmp::kErrTimeout;
    r.func = static_cast<int>(gmp::Func::recv);
    r.rank = 3;
    r.peer = 12;
    r.tag = 7;
    const std::string s = gmp::describe(r);
    for (const char* part : {"recv", "rank 3", "rank 12", "tag 7", "ERR_TIMEOUT"})
        EXPECT_NE(s.find(part), std::string::npos) << s;
    EXPECT_EQ(gmp::code_name(99), "unknown error code 99");
}

// ---- stage 2: point to point (GPU) ---------------------------------------------------

gmp::Config config(int ranks, int slots = 8) {
    gmp::Config c;
    c.ranks = ranks;
    c.slots = slots;
    return c;
}

TEST(PointToPoint, OnePairOneTagArriveInSendOrder) {
    HPCLAB_REQUIRE_GPU();
    const std::uint64_t seed = salted(1201);
    // More messages than slots, of many lengths: slots are reused out of order.
    const auto got = HPCLAB_VALUE(gmp::run_stream(config(3, 4), 300, 100, seed));
    ASSERT_TRUE(clean(got.report));
    const auto want = lab12test::expected_stream(300, 100, seed);
    ASSERT_EQ(got.values.size(), want.size());
    for (std::size_t m = 0; m < 300; ++m) {
        const std::size_t at = m * 101;
        ASSERT_EQ(got.values[at], want[at]) << "message " << m << ": the count received";
        for (std::size_t i = 1; i <= static_cast<std::size_t>(want[at]); ++i)
            ASSERT_EQ(got.values[at + i], want[at + i]) << "message " << m << ", value " << i - 1;
    }
}

TEST(PointToPoint, DifferentTagsInTheReceiversOrder) {
    HPCLAB_REQUIRE_GPU();
    const std::uint64_t seed = salted(1202);
    const std::vector<int> order = lab12test::shuffled(8, seed);
    const auto got = HPCLAB_VALUE(gmp::run_tags(config(2, 8), order, 5, seed));
    ASSERT_TRUE(clean(got.report));
    ASSERT_EQ(got.values.size(), 8u * 5);
    for (int j = 0; j < 8; ++j)
        for (int i = 0; i < 5; ++i)
            EXPECT_EQ(got.values[j * 5 + i], gmp::value_of(seed, order[j], i))
                << "receive " << j << " (tag " << order[j] << "), value " << i;
}

TEST(PointToPoint, AllToAll) {
    HPCLAB_REQUIRE_GPU();
    const int most = lab12test::max_ranks(gmp::Program::all_to_all);
    for (int ranks : {2, 5, std::min(most, 48)}) {
        const std::uint64_t seed = salted(1203 + ranks);
        const auto got = HPCLAB_VALUE(gmp::run_all_to_all(config(ranks), 3, seed));
        ASSERT_TRUE(clean(got.report)) << ranks << " ranks";
        ASSERT_EQ(got.values.size(), static_cast<std::size_t>(ranks) * ranks * 3);
        for (int t = 0; t < ranks; ++t)
            for (int r = 0; r < ranks; ++r)
                for (int i = 0; i < 3; ++i) {
                    const std::int64_t want =
                        r == t ? 0 : gmp::value_of(seed, static_cast<std::uint64_t>(r) * ranks + t, i);
                    ASSERT_EQ(got.values[(static_cast<std::size_t>(t) * ranks + r) * 3 + i], want)
                        << ranks << " ranks: rank " << t << " from rank " << r << ", value " << i;
                }
    }
}

TEST(PointToPoint, RingShiftsAtEveryScaleAndRandomPermutations) {
    HPCLAB_REQUIRE_GPU();
    const int most = lab12test::max_ranks(gmp::Program::ring);
    ASSERT_GE(most, hpclab::cuda::device_info().sm_count) << "fewer resident ranks than SMs at 256 threads";
    for (int ranks : {1, 3, most}) {
        const std::uint64_t seed = salted(1204 + ranks);
        const auto got = HPCLAB_VALUE(gmp::run_ring(config(ranks), 6, seed));
        ASSERT_TRUE(clean(got.report)) << ranks << " ranks";
        EXPECT_EQ(got.values, lab12test::expected_ring(ranks, 6, seed)) << ranks << " ranks";
    }
    const int pmost = lab12test::max_ranks(gmp::Program::permutation);
    for (int ranks : {2, 17, pmost}) {
        const std::uint64_t seed = salted(1205 + ranks);
        const std::vector<int> perm = lab12test::shuffled(ranks, seed);
        const auto got = HPCLAB_VALUE(gmp::run_permutation(config(ranks), perm, 4, seed));
        ASSERT_TRUE(clean(got.report)) << ranks << " ranks";
        ASSERT_EQ(got.values.size(), static_cast<std::size_t>(ranks) * 4);
        for (int r = 0; r < ranks; ++r)
            for (int i = 0; i < 4; ++i)
                ASSERT_EQ(got.values[perm[r] * 4 + i], gmp::value_of(seed, r, i))
                    << ranks << " ranks: rank " << perm[r] << " from rank " << r << ", value " << i;
    }
}

// ---- stage 3: the collectives and the barrier (GPU) ------------------------------------

TEST(Collectives, AgreeWithTheHostAtSmallCountsAndEveryRoot) {
    HPCLAB_REQUIRE_GPU();
    for (int ranks : {1, 2, 3, 6}) {
        for (int root = 0; root < ranks; ++root) {
            const std::uint64_t seed = salted(1210 + 10 * ranks + root);
            const auto got = HPCLAB_VALUE(gmp::run_collectives(config(ranks, 4), root, 3, seed));
            lab12test::expect_collectives(got, ranks, root, 3, seed);
        }
    }
}

TEST(Collectives, AgreeWithTheHostAtOddCountsAndRoots) {
    HPCLAB_REQUIRE_GPU();
    const int most = lab12test::max_ranks(gmp::Program::collectives);
    for (int ranks : {7, 33, 100, 131, most}) {
        for (int root : {0, ranks / 2, ranks - 1}) {
            const std::uint64_t seed = salted(1220 + ranks + root);
            const auto got = HPCLAB_VALUE(gmp::run_collectives(config(ranks), root, 2, seed));
            lab12test::expect_collectives(got, ranks, root, 2, seed);
        }
    }
}

TEST(Collectives, EveryRankCountUpToTheCoResidentMaximum) {
    HPCLAB_REQUIRE_GPU();
    const int most = lab12test::max_ranks(gmp::Program::sweep);
    ASSERT_GE(most, hpclab::cuda::device_info().sm_count);
    static const char* const what[] = {"bcast", "reduce", "allreduce", "scatter", "gather", "barrier"};
    for (int ranks = 1; ranks <= most; ++ranks) {
        const std::uint64_t seed = salted(1230 + ranks);
        const int root = static_cast<int>((7 * static_cast<long long>(ranks) + 3) % ranks);
        const auto got = HPCLAB_VALUE(gmp::run_sweep(config(ranks), root, seed));
        ASSERT_TRUE(clean(got.report)) << ranks << " ranks, root " << root;
        const auto want = lab12test::expected_sweep(ranks, root, seed);
        ASSERT_EQ(got.values.size(), want.size());
        for (int j = 0; j < gmp::kSweepDigests; ++j)
            ASSERT_EQ(got.values[j], want[j])
                << ranks << " ranks, root " << root << ": " << what[j] << " gave some rank a wrong value";
    }
}

TEST(Barrier, StressTenThousandRounds) {
    HPCLAB_REQUIRE_GPU();
    const int sms = hpclab::cuda::device_info().sm_count;
    for (int ranks : {sms, 2 * sms - 1}) {
        if (ranks > lab12test::max_ranks(gmp::Program::barrier_stress)) continue;
        const auto got = HPCLAB_VALUE(gmp::run_barrier_stress(config(ranks), 10000, 32));
        ASSERT_TRUE(clean(got.report)) << ranks << " ranks";
        ASSERT_EQ(got.values.size(), static_cast<std::size_t>(ranks));
        for (int r = 0; r < ranks; ++r)
            EXPECT_EQ(got.values[r], 0) << ranks << " ranks: rank " << r
                                        << " read values from before the barrier (or from the next round)";
    }
}

// ---- errors, and no hang ---------------------------------------------------------------

constexpr double kDeadlineMs = 100;

gmp::MisuseResult misuse(gmp::Misuse what, int ranks, int victim = 0, int slots = 4) {
    gmp::Config c = config(ranks, slots);
    c.timeout_ms = kDeadlineMs;
    return HPCLAB_VALUE(gmp::run_misuse(c, what, victim));
}

void expect_report(const gmp::Report& r, int code, gmp::Func f, int rank, int peer, int tag) {
    EXPECT_EQ(r.code, code) << gmp::describe(r);
    EXPECT_EQ(r.func, static_cast<int>(f)) << gmp::describe(r);
    EXPECT_EQ(r.rank, rank) << gmp::describe(r);
    EXPECT_EQ(r.peer, peer) << gmp::describe(r);
    EXPECT_EQ(r.tag, tag) << gmp::describe(r);
}

// A hang ended by the deadline: well before the grader's own timeout. The
// elapsed time is taken in the submission's process: only
// Errors.WaitsEndAtTheirDeadlines, worth no points, reads it. The grader's
// own time limit per test ends a wait that never ends.
void expect_ended_in_time(const gmp::MisuseResult& m) {
    EXPECT_GE(m.elapsed_ms, 0.5 * kDeadlineMs) << "ended before the deadline: did it wait at all?";
    EXPECT_LT(m.elapsed_ms, 20 * kDeadlineMs) << "the deadline did not end the wait";
}

TEST(Errors, TruncationUnknownRankOversizeAndWrongType) {
    HPCLAB_REQUIRE_GPU();
    expect_report(misuse(gmp::Misuse::truncation, 2).report, gmp::kErrTruncate, gmp::Func::recv, 1, 0, 4);
    expect_report(misuse(gmp::Misuse::unknown_rank, 3).report, gmp::kErrRank, gmp::Func::send, 0, 3, 2);
    expect_report(misuse(gmp::Misuse::oversize, 2).report, gmp::kErrCount, gmp::Func::send, 0, 1, 6);
    expect_report(misuse(gmp::Misuse::wrong_type, 2).report, gmp::kErrType, gmp::Func::recv, 1, 0, 8);
}

TEST(Errors, RecvWithoutSendEndsAtTheDeadline) {
    HPCLAB_REQUIRE_GPU();
    const gmp::MisuseResult m = misuse(gmp::Misuse::recv_without_send, 2);
    expect_report(m.report, gmp::kErrTimeout, gmp::Func::recv, 0, 1, 7);
}

TEST(Errors, MissedBarrierEndsAtTheDeadline) {
    HPCLAB_REQUIRE_GPU();
    const gmp::MisuseResult two = misuse(gmp::Misuse::missed_barrier, 2, 1);
    expect_report(two.report, gmp::kErrTimeout, gmp::Func::barrier, 0, 1, gmp::kNoTag);
    const gmp::MisuseResult many = misuse(gmp::Misuse::missed_barrier, 9, 4);
    EXPECT_EQ(many.report.code, gmp::kErrTimeout) << gmp::describe(many.report);
    EXPECT_EQ(many.report.func, static_cast<int>(gmp::Func::barrier));
    EXPECT_NE(many.report.rank, 4) << "the rank that never came cannot be the one waiting";
    EXPECT_TRUE(many.report.rank >= 0 && many.report.rank < 9 && many.report.peer >= 0 && many.report.peer < 9 &&
                many.report.peer != many.report.rank)
        << gmp::describe(many.report);
}

TEST(Errors, FullMailboxEndsAtTheDeadline) {
    HPCLAB_REQUIRE_GPU();
    const gmp::MisuseResult m = misuse(gmp::Misuse::full_mailbox, 2, 0, 3);
    expect_report(m.report, gmp::kErrNoSpace, gmp::Func::send, 0, 1, 3);
}

// Worth no points in the grader (lab.json): the time is measured in the
// submission's process (MisuseResult::elapsed_ms), which could report any.
// The reports above earn the points; a wait that never ends runs into the
// grader's own time limit. Kept as a check for students.
TEST(Errors, WaitsEndAtTheirDeadlines) {
    HPCLAB_REQUIRE_GPU();
    expect_ended_in_time(misuse(gmp::Misuse::recv_without_send, 2));
    expect_ended_in_time(misuse(gmp::Misuse::missed_barrier, 2, 1));
    expect_ended_in_time(misuse(gmp::Misuse::missed_barrier, 9, 4));
    expect_ended_in_time(misuse(gmp::Misuse::full_mailbox, 2, 0, 3));
}

TEST(Errors, BadRootIsRefused) {
    HPCLAB_REQUIRE_GPU();
    const gmp::Report r = misuse(gmp::Misuse::bad_root, 3).report;
    EXPECT_EQ(r.code, gmp::kErrRank) << gmp::describe(r);
    EXPECT_EQ(r.func, static_cast<int>(gmp::Func::bcast)) << gmp::describe(r);
    EXPECT_EQ(r.peer, 3) << gmp::describe(r);
}

TEST(Errors, TooManyRanksAreRefusedBeforeLaunch) {
    HPCLAB_REQUIRE_GPU();
    const int most = lab12test::max_ranks(gmp::Program::ring);
    std::string message;
    try {
        HPCLAB_VALUE(gmp::run_ring(config(most + 1), 1, 1));
    } catch (const std::invalid_argument& e) {
        message = e.what();
    }
    EXPECT_NE(message.find(std::to_string(most + 1)), std::string::npos) << "message: " << message;
    EXPECT_NE(message.find(std::to_string(most)), std::string::npos) << "message: " << message;
}

}  // namespace
