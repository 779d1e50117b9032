// Lab 14 visible tests, run under mpirun with 1, 2, 3 and 4 ranks: ranking
// against std::next_permutation's order, flips, the outbox with and without
// spilling, and the distributed search against lecture 23's counts, the
// pancake numbers and a plain queue BFS (tests/reference_search.hpp), with
// rank counts that do not divide n!, spilling, and errors on every rank.
//
// Whether anything spilled, how many segments, rounds and indices a rank
// says it used: figures the submission's process writes about itself (the
// outbox's spilled_bytes, the files it finds, BfsResult's own figures). The
// tests that read them are worth no points (lab.json); the tests worth
// points judge the values: the order items come back in, the levels.
//
// Every call into the student's code goes through HPCLAB_CALL / HPCLAB_VALUE
// (hpclab/judged.hpp): the grader records what it returned on each rank and
// judges the assertions in a build without student code.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "bfs_codec.hpp"
#include "hpclab/data.hpp"
#include "hpclab/judged.hpp"
#include "hpclab/mpi.hpp"
#include "pancake.hpp"
#include "reference_search.hpp"
#include "spill_dir.hpp"

namespace {

using Stack = std::vector<std::uint8_t>;

int world_rank() { return hpclab::mpi::rank(); }
int world_size() { return hpclab::mpi::size(); }

std::uint64_t sum_over_ranks(std::uint64_t x) {
    std::uint64_t s = 0;
    MPI_Allreduce(&x, &s, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    return s;
}

// OEIS A058986 (the pancake numbers): the most flips a stack of n needs, n = 1..11.
const std::vector<std::size_t> kPancakeNumbers = {0, 1, 3, 4, 5, 7, 8, 9, 10, 11, 13};

Stack sorted_stack(int n) {
    Stack s(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) s[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(i);
    return s;
}

Stack random_stack(int n, hpclab::Rng& rng) {
    Stack s = sorted_stack(n);
    for (int i = n - 1; i > 0; --i) std::swap(s[static_cast<std::size_t>(i)], s[rng.uniform_int(0, i)]);
    return s;
}

using lab14_test::spill_dir;

lab14::BfsResult search(const lab14::BfsOptions& o) {
    return HPCLAB_CALL([&] { return lab14::pancake_bfs(o, MPI_COMM_WORLD); });
}

// The levels of `r` equal the reference search's from the same start.
void expect_levels(const lab14::BfsResult& r, const Stack& start) {
    const auto want = lab14_test::reference_levels(start);
    EXPECT_EQ(r.level_counts, want.counts) << "n = " << start.size();
    EXPECT_EQ(r.level_fingerprints, want.fingerprints) << "the stacks at some level are wrong, n = " << start.size();
}

// ---- Stage 1: ranking -------------------------------------------------------------

TEST(Ranking, SortedIsZeroAndReversedIsLast) {
    for (int n = 1; n <= lab14::kMaxPancakes; ++n) {
        Stack s = sorted_stack(n);
        EXPECT_EQ(HPCLAB_VALUE(lab14::rank_stack(s.data(), n)), 0u) << "n = " << n;
        std::reverse(s.begin(), s.end());
        EXPECT_EQ(HPCLAB_VALUE(lab14::rank_stack(s.data(), n)), lab14::factorial(n) - 1) << "n = " << n;
    }
}

TEST(Ranking, LexicographicOrderUpToSeven) {
    for (int n = 1; n <= 7; ++n) {
        const auto all = lab14_test::all_stacks(n);
        const auto ranks = HPCLAB_CALL([&] {
            std::vector<std::uint64_t> r;
            for (const auto& s : all) r.push_back(lab14::rank_stack(s.data(), n));
            return r;
        });
        ASSERT_EQ(ranks.size(), all.size());
        for (std::size_t i = 0; i < all.size(); ++i) ASSERT_EQ(ranks[i], i) << "n = " << n << ", stack " << i;
    }
}

TEST(Ranking, UnrankGivesTheStackOfEachIndexUpToEight) {
    for (int n = 1; n <= 8; ++n) {
        const auto all = lab14_test::all_stacks(n);
        const auto got = HPCLAB_CALL([&] {
            std::vector<std::uint8_t> flat(all.size() * static_cast<std::size_t>(n));
            for (std::size_t i = 0; i < all.size(); ++i)
                lab14::unrank_stack(i, n, flat.data() + i * static_cast<std::size_t>(n));
            return flat;
        });
        ASSERT_EQ(got.size(), all.size() * static_cast<std::size_t>(n));
        for (std::size_t i = 0; i < all.size(); ++i)
            ASSERT_TRUE(std::equal(all[i].begin(), all[i].end(), got.begin() + static_cast<std::ptrdiff_t>(i * n)))
                << "n = " << n << ", index " << i;
    }
}

TEST(Ranking, LargeStacksRoundTripInOrder) {
    hpclab::Rng rng(14);
    for (int n = 9; n <= lab14::kMaxPancakes; ++n) {
        for (int t = 0; t < 20; ++t) {
            const Stack a = random_stack(n, rng), b = random_stack(n, rng);
            const std::uint64_t ra = HPCLAB_VALUE(lab14::rank_stack(a.data(), n));
            const std::uint64_t rb = HPCLAB_VALUE(lab14::rank_stack(b.data(), n));
            EXPECT_LT(ra, lab14::factorial(n));
            EXPECT_EQ(ra < rb, a < b) << "rank must follow lexicographic order, n = " << n;
            Stack back(static_cast<std::size_t>(n), 0);
            HPCLAB_CALL([&] { lab14::unrank_stack(ra, n, back.data()); }, back);
            EXPECT_EQ(back, a) << "n = " << n;
        }
    }
}

TEST(Ranking, RejectsWhatIsNotAStack) {
    Stack s = sorted_stack(21);
    EXPECT_THROW(HPCLAB_VALUE(lab14::rank_stack(s.data(), 21)), std::invalid_argument);
    EXPECT_THROW(HPCLAB_VALUE(lab14::rank_stack(s.data(), 0)), std::invalid_argument);
    Stack twice = {0, 1, 1, 3};
    EXPECT_THROW(HPCLAB_VALUE(lab14::rank_stack(twice.data(), 4)), std::invalid_argument);
    Stack big = {0, 1, 2, 4};
    EXPECT_THROW(HPCLAB_VALUE(lab14::rank_stack(big.data(), 4)), std::invalid_argument);
    Stack out(5, 0);
    EXPECT_THROW(HPCLAB_CALL([&] { lab14::unrank_stack(120, 5, out.data()); }), std::invalid_argument);
    EXPECT_THROW(HPCLAB_CALL([&] { lab14::unrank_stack(0, 21, out.data()); }), std::invalid_argument);
    EXPECT_THROW(HPCLAB_CALL([&] { lab14::flip_top(out.data(), -1); }), std::invalid_argument);
}

TEST(Flip, ReversesOnlyTheTop) {
    Stack s = {3, 1, 4, 0, 2};
    HPCLAB_CALL([&] { lab14::flip_top(s.data(), 3); }, s);
    EXPECT_EQ(s, (Stack{4, 1, 3, 0, 2}));
    HPCLAB_CALL([&] { lab14::flip_top(s.data(), 5); }, s);
    EXPECT_EQ(s, (Stack{2, 0, 3, 1, 4}));
    HPCLAB_CALL([&] { lab14::flip_top(s.data(), 1); }, s);
    EXPECT_EQ(s, (Stack{2, 0, 3, 1, 4}));
}

// ---- Stage 2: the outbox (each rank on its own, files named by rank) ----------------

// What an outbox did, as values: items taken per destination in chunks of
// `chunk`, pending counts before taking, spilled bytes, files seen.
struct OutboxRun {
    std::vector<std::vector<std::uint64_t>> taken;
    std::vector<std::uint64_t> pending;
    std::uint64_t spilled = 0;
    int files_before_clear = 0, files_after_clear = 0;
};

int count_files(const std::string& prefix, int destinations) {
    int k = 0;
    for (int d = 0; d < destinations; ++d) k += std::filesystem::exists(prefix + std::to_string(d) + ".spill");
    return k;
}

OutboxRun run_outbox(const std::vector<std::pair<int, std::uint64_t>>& adds, int destinations, std::size_t budget,
                     std::size_t chunk, const std::string& prefix) {
    OutboxRun out;
    lab14::Outbox box(destinations, budget, prefix);
    for (const auto& a : adds) box.add(a.first, a.second);
    for (int d = 0; d < destinations; ++d) out.pending.push_back(box.pending(d));
    out.files_before_clear = count_files(prefix, destinations);
    for (int d = 0; d < destinations; ++d) {
        std::vector<std::uint64_t> got, buf(chunk);
        for (std::size_t k; (k = box.take(d, buf.data(), chunk)) > 0;)
            got.insert(got.end(), buf.begin(), buf.begin() + k);
        out.taken.push_back(got);
    }
    out.spilled = box.spilled_bytes();
    box.clear();
    out.files_after_clear = count_files(prefix, destinations);
    return out;
}

std::vector<std::pair<int, std::uint64_t>> random_adds(std::size_t count, int destinations, hpclab::Rng& rng) {
    std::vector<std::pair<int, std::uint64_t>> adds;
    for (std::size_t i = 0; i < count; ++i)
        adds.emplace_back(static_cast<int>(rng.uniform_int(0, destinations - 1)), rng.next_u64());
    return adds;
}

void expect_in_order(const OutboxRun& run, const std::vector<std::pair<int, std::uint64_t>>& adds, int destinations) {
    ASSERT_EQ(run.taken.size(), static_cast<std::size_t>(destinations));
    for (int d = 0; d < destinations; ++d) {
        std::vector<std::uint64_t> want;
        for (const auto& a : adds)
            if (a.first == d) want.push_back(a.second);
        EXPECT_EQ(run.pending[static_cast<std::size_t>(d)], want.size()) << "destination " << d;
        EXPECT_EQ(run.taken[static_cast<std::size_t>(d)], want) << "destination " << d << ": not in the order added";
    }
}

}  // namespace

template <>
struct hpclab::judged::Codec<OutboxRun> {
    static void encode(Writer& w, const OutboxRun& r) {
        put(w, r.taken, r.pending, r.spilled, r.files_before_clear, r.files_after_clear);
    }
    static OutboxRun decode(Reader& rd) {
        OutboxRun r;
        get(rd, r.taken, r.pending, r.spilled, r.files_before_clear, r.files_after_clear);
        return r;
    }
};

namespace {

std::string rank_prefix(const std::string& name) {
    return spill_dir() + "/" + name + "-r" + std::to_string(world_rank()) + "-";
}

TEST(Outbox, KeepsOrderWithoutBudget) {
    hpclab::Rng rng(1401 + static_cast<std::uint64_t>(world_rank()));
    const auto adds = random_adds(3000, 3, rng);
    const std::string prefix = rank_prefix("nobudget");
    const auto run = HPCLAB_CALL([&] { return run_outbox(adds, 3, 0, 100, prefix); });
    expect_in_order(run, adds, 3);
}

TEST(Outbox, StreamsBackInOrderUnderABudget) {
    hpclab::Rng rng(1402 + static_cast<std::uint64_t>(world_rank()));
    const auto adds = random_adds(1000, 4, rng);
    const std::string prefix = rank_prefix("budget");
    // 64 bytes: 8 items, so that nearly every item goes through a file.
    const auto run = HPCLAB_CALL([&] { return run_outbox(adds, 4, 64, 7, prefix); });
    expect_in_order(run, adds, 4);
}

// Worth no points in the grader (lab.json): spilled_bytes is the outbox's
// own account, and the files are counted inside the submission's process,
// which could write any number or leave any file (an outbox that kept
// everything in memory could pass). Kept as a check for students.
TEST(Outbox, SpillsUnderBudgetAndClearsItsFiles) {
    hpclab::Rng rng(1402 + static_cast<std::uint64_t>(world_rank()));
    const auto adds = random_adds(1000, 4, rng);
    // 64 bytes: 8 items. Before items 9, 17, ..., 993 all 8 in memory spill.
    const auto run = HPCLAB_CALL([&] { return run_outbox(adds, 4, 64, 7, rank_prefix("spills")); });
    EXPECT_EQ(run.spilled, 124u * 8u * 8u);
    EXPECT_GT(run.files_before_clear, 0) << "spilled buckets must be in files named <prefix><d>.spill";
    EXPECT_EQ(run.files_after_clear, 0) << "clear() deletes the files";
    const auto none = HPCLAB_CALL([&] { return run_outbox(adds, 4, 0, 7, rank_prefix("nospill")); });
    EXPECT_EQ(none.spilled, 0u) << "without a budget nothing spills";
    EXPECT_EQ(none.files_before_clear, 0);
}

TEST(Outbox, RejectsBadUse) {
    const std::string prefix = rank_prefix("bad");
    EXPECT_THROW(HPCLAB_CALL([&] {
                     lab14::Outbox box(2, 0, prefix);
                     box.add(2, 7);
                 }),
                 std::out_of_range);
    EXPECT_THROW(HPCLAB_CALL([&] {
                     lab14::Outbox box(2, 0, prefix);
                     box.add(0, 7);
                     std::uint64_t x;
                     box.take(0, &x, 1);
                     box.add(0, 8);
                 }),
                 std::logic_error);
    EXPECT_THROW(HPCLAB_CALL([&] {
                     lab14::Outbox box(2, 8, "/nonexistent-lab14-dir/x-");
                     for (int i = 0; i < 4; ++i) box.add(i % 2, static_cast<std::uint64_t>(i));
                 }),
                 std::runtime_error);
}

// ---- Stage 3: the search --------------------------------------------------------------

TEST(Search, FourPancakesAsInTheLecture) {
    lab14::BfsOptions o;
    o.n = 4;
    const auto r = search(o);
    // Lecture 23, the pancake sorting graph: 24 = 1 + 3 + 6 + 11 + 3.
    EXPECT_EQ(r.level_counts, (std::vector<std::uint64_t>{1, 3, 6, 11, 3}));
    expect_levels(r, sorted_stack(4));
}

TEST(Search, LevelsAndStacksMatchAQueueSearch) {
    hpclab::Rng rng(1403);
    for (int n = 5; n <= 8; ++n) {
        lab14::BfsOptions o;
        o.n = n;
        o.start = n % 2 ? random_stack(n, rng) : Stack();
        const auto r = search(o);
        expect_levels(r, o.start.empty() ? sorted_stack(n) : o.start);
    }
}

TEST(Search, LargestDistanceIsThePancakeNumber) {
    for (int n = 2; n <= 9; ++n) {
        lab14::BfsOptions o;
        o.n = n;
        const auto r = search(o);
        ASSERT_FALSE(r.level_counts.empty());
        EXPECT_EQ(r.level_counts.size() - 1, kPancakeNumbers[static_cast<std::size_t>(n - 1)]) << "n = " << n;
        std::uint64_t sum = 0;
        for (auto c : r.level_counts) sum += c;
        EXPECT_EQ(sum, lab14::factorial(n)) << "n = " << n;
    }
}

TEST(Search, RankCountsThatDoNotDivide) {
    for (int n : {2, 3, 5}) {  // 2 and 6 stacks leave some of 3 or 4 ranks with little or nothing
        lab14::BfsOptions o;
        o.n = n;
        expect_levels(search(o), sorted_stack(n));
    }
}

// The options of the searches under a small budget: n = 7 and 8 from
// random starts, 7 under the smallest budget that makes progress.
lab14::BfsOptions small_budget(int n, hpclab::Rng& rng) {
    lab14::BfsOptions o;
    o.n = n;
    o.start = random_stack(n, rng);
    o.spill_dir = spill_dir();
    o.budget_bytes = n == 7 ? lab14::min_budget_bytes(world_size()) : 32 * 1024;
    return o;
}

// n = 9 under the smallest budget: each rank's bits are cut into segments
// of 4096 p states (363k stacks: 89 segments on one rank, 6 on four).
lab14::BfsOptions nine_in_segments(hpclab::Rng& rng) {
    lab14::BfsOptions o;
    o.n = 9;
    o.start = random_stack(9, rng);
    o.spill_dir = spill_dir();
    o.budget_bytes = lab14::min_budget_bytes(world_size(), lab14::factorial(9));
    return o;
}

TEST(Search, SpillingGivesTheSameLevels) {
    hpclab::Rng rng(1404);
    for (int n : {7, 8}) {
        const lab14::BfsOptions o = small_budget(n, rng);
        expect_levels(search(o), o.start);
    }
}

TEST(Search, NineUnderTheSmallestBudget) {
    hpclab::Rng rng(1405);
    const lab14::BfsOptions o = nine_in_segments(rng);
    expect_levels(search(o), o.start);
}

// Worth no points in the grader (lab.json): which states a rank owned, how
// many indices it sent, how much it spilled, in how many rounds and
// segments are BfsResult's own figures, written in the submission's process
// (a search that kept everything in memory could report any of them). The
// levels of these searches earn their points in the tests above. Kept as a
// check for students: the driver prints these figures.
TEST(Search, ReportsOwnershipTrafficSpillsAndSegments) {
    const int p = world_size(), me = world_rank();
    for (int n : {2, 3, 5}) {
        lab14::BfsOptions o;
        o.n = n;
        const auto r = search(o);
        const std::uint64_t total = lab14::factorial(n);
        EXPECT_EQ(r.first, lab14::block_first(total, me, p)) << "n = " << n;
        EXPECT_EQ(r.owned, lab14::block_size(total, me, p)) << "n = " << n;
        const std::uint64_t sent = sum_over_ranks(r.sent_to_others);
        if (p == 1) {
            EXPECT_EQ(sent, 0u);
        } else if (n == 5) {
            EXPECT_GT(sent, 0u);
        }
        EXPECT_EQ(r.spilled_bytes, 0u) << "without a budget nothing spills";
    }
    hpclab::Rng rng(1404);
    for (int n : {7, 8}) {
        const lab14::BfsOptions o = small_budget(n, rng);
        const auto r = search(o);
        EXPECT_GT(sum_over_ranks(r.spilled_bytes), 0u) << "a budget this small must spill, n = " << n;
        EXPECT_GT(r.exchange_rounds, r.level_counts.size()) << "a small budget needs several rounds per level";
        // The bit arrays in segments of segment_states(budget) states (n = 7
        // under the smallest budget: two on one rank), which live in a file.
        const std::uint64_t per_segment = lab14::segment_states(o.budget_bytes);
        EXPECT_EQ(r.bit_segments, (r.owned + per_segment - 1) / per_segment)
            << "segments of segment_states(budget) states each, n = " << n;
        // Each segment's two arrays are written at least once (zeroed at the start).
        if (r.bit_segments > 1) {
            EXPECT_GE(r.spilled_bytes, r.owned / 4) << "the bit arrays must live in a file, n = " << n;
        }
    }
}

TEST(Search, BadInputThrowsOnEveryRank) {
    lab14::BfsOptions o;
    o.n = 1;
    EXPECT_THROW(search(o), std::invalid_argument);
    o.n = 21;
    EXPECT_THROW(search(o), std::invalid_argument);
    o.n = 5;
    o.budget_bytes = lab14::min_budget_bytes(world_size()) - 1;
    EXPECT_THROW(search(o), std::invalid_argument) << "a budget too small to make progress";
    o.n = 12;
    o.budget_bytes = lab14::min_budget_bytes(world_size(), lab14::factorial(12)) - 64;
    EXPECT_THROW(search(o), std::invalid_argument) << "a budget that needs more than kMaxSegments segments";
    o.n = 5;
    o.budget_bytes = 0;
    o.start = {0, 1, 2, 3};
    EXPECT_THROW(search(o), std::invalid_argument) << "a start stack of 4 for n = 5";
    o.start = {0, 1, 2, 3, 3};
    EXPECT_THROW(search(o), std::invalid_argument) << "a start that is not a stack";
}

TEST(Search, UnwritableSpillDirectoryStopsEveryRank) {
    lab14::BfsOptions o;
    o.n = 7;
    o.budget_bytes = lab14::min_budget_bytes(world_size());
    o.spill_dir = "/nonexistent-lab14-dir";
    EXPECT_THROW(search(o), std::runtime_error);
}

}  // namespace
