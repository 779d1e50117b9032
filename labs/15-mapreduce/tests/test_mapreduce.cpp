// Lab 15 visible tests, run under mpirun with 1, 2, 3 and 4 ranks: splits at
// word boundaries, the shuffle, sort and reduce, word count and the inverted
// index against a single-process count, the combiner, errors that reach every
// rank, and the pancake graph's level counts against the published ones.
//
// Every call into the student's code goes through HPCLAB_CALL / HPCLAB_VALUE
// (hpclab/judged.hpp): the grader records what it returned on each rank and
// judges the assertions in a build without student code.
#include <gtest/gtest.h>

#include <numeric>

#include "support.hpp"

using lab15::KV;
using namespace lab15_test;

namespace {

// The splits of `text` for p ranks, checked against the contract: in order,
// disjoint, each starting at a word, and together holding every word once.
void expect_valid_splits(const std::string& text, int p) {
    const auto splits = HPCLAB_CALL([&] {
        std::vector<lab15::Split> s;
        for (int r = 0; r < p; ++r) s.push_back(lab15::split_of(text, r, p));
        return s;
    });
    ASSERT_EQ(splits.size(), static_cast<std::size_t>(p));
    std::vector<std::string> words;
    std::size_t last_end = 0;
    for (int r = 0; r < p; ++r) {
        const lab15::Split s = splits[static_cast<std::size_t>(r)];
        ASSERT_LE(s.begin, s.end) << "p = " << p << ", rank " << r;
        ASSERT_LE(s.end, text.size()) << "p = " << p << ", rank " << r;
        if (s.begin < s.end) {
            ASSERT_GE(s.begin, last_end) << "p = " << p << ": rank " << r << "'s split overlaps the previous one";
            EXPECT_TRUE(s.begin == 0 || lab15::is_separator(text[s.begin - 1])) << "rank " << r << " starts mid-word";
            EXPECT_TRUE(s.end == text.size() || lab15::is_separator(text[s.end])) << "rank " << r << " ends mid-word";
            last_end = s.end;
        }
        const auto mine = words_of(std::string_view(text).substr(s.begin, s.end - s.begin));
        words.insert(words.end(), mine.begin(), mine.end());
    }
    EXPECT_EQ(words, words_of(text)) << "p = " << p << ": the splits do not hold every word exactly once";
}

std::vector<KV> random_pairs(std::size_t n, std::uint64_t seed) {
    hpclab::Rng rng(seed);
    const auto vocab = vocabulary(40, seed);
    std::vector<KV> pairs(n);
    for (KV& kv : pairs) {
        kv.key = vocab[static_cast<std::size_t>(rng.uniform_int(0, 39))];
        kv.value = rng.uniform_int(-1000, 1000);
    }
    return pairs;
}

// The pancake level counts of n = 2..7: OEIS A092113 ("number of stacks of n
// pancakes requiring k flips"); n = 4 is lecture 23's table.
const std::vector<std::vector<long long>> kPublished = {{},
                                                        {},
                                                        {1, 1},
                                                        {1, 2, 2, 1},
                                                        {1, 3, 6, 11, 3},
                                                        {1, 4, 12, 35, 48, 20},
                                                        {1, 5, 20, 79, 199, 281, 133, 2},
                                                        {1, 6, 30, 149, 543, 1357, 1903, 1016, 35}};

}  // namespace

// ---- Stage 1: splits ----------------------------------------------------------

TEST(Split, WordsCutByABlockBoundaryGoToTheRankWhereTheyStart) {
    // n = 11: rank 1's block starts at byte 5, inside "abcdefgh".
    const std::string text = "abcdefgh ij";
    const auto s0 = HPCLAB_VALUE(lab15::split_of(text, 0, 2));
    const auto s1 = HPCLAB_VALUE(lab15::split_of(text, 1, 2));
    EXPECT_EQ(s0.begin, 0u);
    EXPECT_EQ(s0.end, 8u);
    EXPECT_EQ(s1.begin, 9u);
    EXPECT_EQ(s1.end, 11u);
}

TEST(Split, EveryWordOnceForManyRankCounts) {
    const std::string text = zipf_text(3000, 50, 1501);
    for (int p : {1, 2, 3, 4, 5, 7, 16, 100}) expect_valid_splits(text, p);
    expect_valid_splits("  leading and trailing\n\n", 3);
    expect_valid_splits("one", 4);
}

TEST(Split, EmptyTextAndBadArguments) {
    for (int r = 0; r < 3; ++r) {
        const auto s = HPCLAB_VALUE(lab15::split_of("", r, 3));
        EXPECT_EQ(s.begin, s.end) << "rank " << r;
    }
    const auto blank = HPCLAB_VALUE(lab15::split_of(" \n\t ", 0, 1));
    EXPECT_EQ(blank.begin, blank.end);
    EXPECT_THROW(HPCLAB_VALUE(lab15::split_of("a b", 0, 0)), std::invalid_argument);
    EXPECT_THROW(HPCLAB_VALUE(lab15::split_of("a b", 2, 2)), std::invalid_argument);
    EXPECT_THROW(HPCLAB_VALUE(lab15::split_of("a b", -1, 2)), std::invalid_argument);
}

// ---- Stage 2: shuffle, sort, reduce -----------------------------------------------

TEST(Shuffle, EveryPairReachesItsOwnerOnce) {
    const int rank = world_rank(), p = world_size();
    const auto pairs = random_pairs(300 + 50 * static_cast<std::size_t>(rank), 1502 + static_cast<std::uint64_t>(rank));
    const auto got = on_every_rank(MPI_COMM_WORLD, [&] { return HPCLAB_VALUE(lab15::shuffle(pairs, MPI_COMM_WORLD)); });
    for (const KV& kv : got) {
        if (lab15::owner_of(kv.key, p) != rank) {
            ADD_FAILURE() << "rank " << rank << " received '" << kv.key << "', owned by another rank";
            break;
        }
    }
    const auto sent = gathered_sorted(pairs), received = gathered_sorted(got);
    if (rank == 0) {
        EXPECT_TRUE(sent == received) << "the pairs received are not the pairs sent";
    }
}

TEST(Shuffle, EmptyRanksEmptyKeysAndLongKeys) {
    const int rank = world_rank();
    std::vector<KV> pairs;
    if (rank == world_size() - 1) {  // only the last rank sends anything
        pairs = {{"", 7}, {std::string(300, 'z'), -3}, {"tab\there", 1}, {"", 8}};
    }
    const auto got = on_every_rank(MPI_COMM_WORLD, [&] { return HPCLAB_VALUE(lab15::shuffle(pairs, MPI_COMM_WORLD)); });
    const auto sent = gathered_sorted(pairs), received = gathered_sorted(got);
    if (rank == 0) {
        EXPECT_TRUE(sent == received);
    }
}

TEST(SortAndReduce, KeysInOrderOnceWithSortedValues) {
    const auto pairs = random_pairs(500, 1503);
    // This reduce echoes what it is given, then the number of values: the
    // output shows the order of the calls and of each call's values.
    const lab15::Reduce echo = [](const std::string& key, const std::vector<std::int64_t>& values,
                                  const lab15::Emit& emit) {
        for (std::int64_t v : values) emit(key, v);
        emit(key + "~", static_cast<std::int64_t>(values.size()));
    };
    const auto got = HPCLAB_VALUE(lab15::sort_and_reduce(pairs, echo));
    std::vector<KV> want;
    std::map<std::string, std::vector<std::int64_t>> groups;
    for (const KV& kv : pairs) groups[kv.key].push_back(kv.value);
    for (auto& g : groups) {
        std::sort(g.second.begin(), g.second.end());
        for (std::int64_t v : g.second) want.push_back({g.first, v});
        want.push_back({g.first + "~", static_cast<std::int64_t>(g.second.size())});
    }
    EXPECT_TRUE(got == want) << "reduce must see each key once, in increasing order, with its values sorted";
    EXPECT_TRUE(HPCLAB_VALUE(lab15::sort_and_reduce({}, echo)).empty());
}

// ---- Stage 3 and 4: jobs -------------------------------------------------------------

TEST(WordCount, EqualsASingleProcessCount) {
    check_word_count(zipf_text(60000, 400, 1504), false);
    // All six separators, runs of them, and bytes above 127 inside words.
    check_word_count("caf\xc3\xa9\tna\xc3\xafve\r\nfoo\vbar\ffoo  caf\xc3\xa9\n\n\xff\xfe x", false);
}

// The two trusted counts agree with each other (a check of the checkers).
TEST(Trusted, CoreutilsAgreesWithTheHashMap) {
    if (world_rank() != 0) return;
    const std::string text = zipf_text(30000, 200, 1509);
    EXPECT_EQ(coreutils_count(text), reference_count(text));
    EXPECT_TRUE(coreutils_count("").empty());
}

// What the combiner saves is seen in what reduce is handed: with word
// count's map and combiner and a reduce that echoes its values, each word
// must arrive once from each rank whose split holds it, with that rank's
// count. (The bytes the framework says it shuffled are its own account:
// Report.CountsWhatItSent, worth no points.)
TEST(WordCount, CombinerKeepsTheCountsAndShufflesLess) {
    const std::string text = zipf_text(40000, 300, 1505);
    check_word_count(text, true);
    const auto handed = reduce_inputs_of_word_count(text, true);
    if (world_rank() == 0) {
        const auto want = reference_combined_pairs(text, world_size());
        EXPECT_EQ(handed.size(), want.size())
            << "values handed to reduce (" << words_of(text).size()
            << " words): each rank must fold its equal words into one pair before the shuffle";
        EXPECT_TRUE(handed == want) << "reduce must be handed, for each word, one partial count from each rank "
                                       "whose split holds it";
    }
}

TEST(WordCount, WordsAcrossRankBoundariesCountOnce) {
    // Seven distinct 60-letter words, 61 bytes apart: for p = 2, 3, 4 every
    // block boundary falls inside a word.
    std::string text;
    for (char c = 'a'; c < 'h'; ++c) text += std::string(59, c) + "z ";
    check_word_count(text, false);
    check_word_count(text + text, true);
}

TEST(WordCount, EmptyTextOneWordAndRanksWithoutData) {
    check_word_count("", false);
    check_word_count("hello", false);
    check_word_count("a b", true);  // fewer words than ranks: some ranks map nothing
    check_word_count("\n  \t\n", false);
}

TEST(MapReduce, AnErrorOnOneRankStopsEveryRank) {
    const int p = world_size(), rank = world_rank();
    const lab15::MapAll map = [&](const lab15::Emit& emit) {
        emit("fine", 1);
        if (rank == p - 1) throw std::runtime_error("map met a bad record");
    };
    const lab15::Reduce sum = [](const std::string& k, const std::vector<std::int64_t>& v, const lab15::Emit& emit) {
        emit(k, static_cast<std::int64_t>(v.size()));
    };
    const auto seen = HPCLAB_CALL([&] {
        return hpclab::mpi::catch_failure<lab15::JobFailed>(
            [&] { lab15::map_reduce(map, lab15::Combine(), sum, MPI_COMM_WORLD); });
    });
    EXPECT_EQ(seen.seen, 1) << "rank " << rank << " did not throw JobFailed";
    EXPECT_EQ(seen.origin_rank, p - 1);
    // A reduce that fails on the owner of "boom" only.
    const lab15::MapAll two = [](const lab15::Emit& emit) {
        emit("boom", 1);
        emit("fine", 1);
    };
    const lab15::Reduce fragile = [](const std::string& k, const std::vector<std::int64_t>& v,
                                     const lab15::Emit& emit) {
        if (k == "boom") throw std::runtime_error("reduce failed");
        emit(k, static_cast<std::int64_t>(v.size()));
    };
    const auto seen2 = HPCLAB_CALL([&] {
        return hpclab::mpi::catch_failure<lab15::JobFailed>(
            [&] { lab15::map_reduce(two, lab15::Combine(), fragile, MPI_COMM_WORLD); });
    });
    EXPECT_EQ(seen2.seen, 1) << "rank " << rank << " did not throw JobFailed";
    EXPECT_EQ(seen2.origin_rank, lab15::owner_of("boom", p));
}

TEST(InvertedIndex, EqualsASingleProcessIndex) {
    const std::string text = zipf_text(30000, 200, 1506) + "last line without newline";
    check_inverted_index(text);
}

// ---- Stage 5: the pancake graph -----------------------------------------------------

TEST(Pancake, NeighboursAndBadStacks) {
    const std::vector<std::string> want = {"2134", "3214", "4321"};  // flip the top 2, 3, 4
    EXPECT_EQ(HPCLAB_VALUE(lab15::pancake_neighbours("1234")), want);
    const std::vector<std::string> three = {"132", "213"};
    EXPECT_EQ(HPCLAB_VALUE(lab15::pancake_neighbours("312")), three);
    for (const char* bad : {"1", "1224", "12a", "0123", "1234567891", ""})
        EXPECT_THROW(HPCLAB_VALUE(lab15::pancake_neighbours(bad)), std::invalid_argument) << "'" << bad << "'";
}

TEST(Pancake, LectureExampleFourPancakes) {
    for (bool combine : {true, false}) {
        const auto levels = on_every_rank(
            MPI_COMM_WORLD, [&] { return HPCLAB_VALUE(lab15::pancake_levels(4, MPI_COMM_WORLD, combine)); });
        EXPECT_EQ(levels, kPublished[4]) << "combiner " << combine;
    }
}

TEST(Pancake, PublishedLevelCountsUpToSeven) {
    for (int n : {2, 3, 5, 6, 7}) {
        const auto levels =
            on_every_rank(MPI_COMM_WORLD, [&] { return HPCLAB_VALUE(lab15::pancake_levels(n, MPI_COMM_WORLD)); });
        EXPECT_EQ(levels, kPublished[static_cast<std::size_t>(n)]) << "n = " << n;
    }
}

TEST(Pancake, BadNThrowsOnEveryRank) {
    EXPECT_THROW(HPCLAB_VALUE(lab15::pancake_levels(1, MPI_COMM_WORLD)), std::invalid_argument);
    EXPECT_THROW(HPCLAB_VALUE(lab15::pancake_levels(10, MPI_COMM_WORLD)), std::invalid_argument);
}

// ---- The framework's account of itself ------------------------------------------------

// Worth no points in the grader (lab.json): a JobReport is what the
// framework writes about its own run (pairs and bytes it says it sent), in
// the submission's process; the judge would replay any figure it was given.
// What the figures stand for earns its points from values the judge checks
// itself: the pairs each rank received (Shuffle.*) and what reduce was
// handed (WordCount.CombinerKeepsTheCountsAndShufflesLess). Kept as a check
// for students: the driver prints these figures.
TEST(Report, CountsWhatItSent) {
    const int rank = world_rank();
    const auto pairs = random_pairs(300 + 50 * static_cast<std::size_t>(rank), 1502 + static_cast<std::uint64_t>(rank));
    lab15::JobReport report;
    on_every_rank(MPI_COMM_WORLD,
                  [&] { return HPCLAB_CALL([&] { return lab15::shuffle(pairs, MPI_COMM_WORLD, &report); }, report); });
    long long pair_bytes = 0;
    for (const KV& kv : pairs) pair_bytes += static_cast<long long>(lab15::packed_bytes(kv.key));
    EXPECT_EQ(report.pairs_shuffled, static_cast<long long>(pairs.size()));
    EXPECT_EQ(report.bytes_shuffled, pair_bytes) << "bytes_shuffled is the wire format's size of the pairs sent";

    const std::string text = zipf_text(40000, 300, 1505);
    const auto words = words_of(text);
    const lab15::JobReport plain = check_word_count(text, false);
    const lab15::JobReport combined = check_word_count(text, true);
    long long bytes = 0;
    for (const auto& w : words) bytes += static_cast<long long>(lab15::packed_bytes(w));
    EXPECT_EQ(plain.pairs_emitted, static_cast<long long>(words.size()));
    EXPECT_EQ(combined.pairs_emitted, static_cast<long long>(words.size()))
        << "pairs_emitted counts before the combiner";
    EXPECT_EQ(plain.pairs_shuffled, static_cast<long long>(words.size()));
    EXPECT_EQ(plain.bytes_shuffled, bytes);
    EXPECT_LT(combined.bytes_shuffled, plain.bytes_shuffled / 2)
        << "a Zipf text repeats words: the combiner must fold them";
    EXPECT_GE(combined.pairs_shuffled, static_cast<long long>(reference_count(text).size()));

    lab15::JobReport with, without;
    on_every_rank(MPI_COMM_WORLD, [&] {
        return HPCLAB_CALL([&] { return lab15::pancake_levels(6, MPI_COMM_WORLD, true, &with); }, with);
    });
    on_every_rank(MPI_COMM_WORLD, [&] {
        return HPCLAB_CALL([&] { return lab15::pancake_levels(6, MPI_COMM_WORLD, false, &without); }, without);
    });
    EXPECT_LT(sum_over_ranks(with.bytes_shuffled), sum_over_ranks(without.bytes_shuffled));
    EXPECT_EQ(sum_over_ranks(with.pairs_emitted), sum_over_ranks(without.pairs_emitted));
}
