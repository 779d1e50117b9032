// Lab 15 hidden tests: other seeds and sizes than the visible ones, other
// separators, lines longer than a rank's block, many ranks over tiny texts,
// a job on a sub-communicator, and the pancake graph for n = 8.
#include <gtest/gtest.h>

#include "tests/support.hpp"

using lab15::KV;
using namespace lab15_test;

TEST(Hidden, OtherSeedsAndSizes) {
    for (std::size_t bytes : {997u, 20011u, 150001u}) {
        const std::string text = zipf_text(bytes, 30 + bytes / 100, 9151 + bytes);
        check_word_count(text, bytes % 2 == 1);
        check_word_count(text, false);
    }
}

TEST(Hidden, OtherSeparatorsAndLongLines) {
    // Tabs, carriage returns, vertical tabs, form feeds and runs of them; the
    // last line is longer than any rank's block, so its words' line starts
    // lie on rank 0.
    std::string text = "alpha\tbeta\r\ngamma\v\fdelta  alpha\n\n\t";
    const auto words = vocabulary(120, 9152);
    for (std::size_t i = 0; i < 600; ++i) text += words[(i * 7) % words.size()] + (i % 5 ? " " : "\t");
    check_word_count(text, true);
    check_inverted_index(text);
}

TEST(Hidden, SplitsForManyRanksAndTinyTexts) {
    for (const std::string& text :
         {std::string("x"), std::string(" y "), std::string("ab cd"), zipf_text(500, 9, 9153)}) {
        for (int p : {1, 2, 3, 6, 64}) {
            const auto splits = HPCLAB_CALL([&] {
                std::vector<lab15::Split> s;
                for (int r = 0; r < p; ++r) s.push_back(lab15::split_of(text, r, p));
                return s;
            });
            std::vector<std::string> got;
            std::size_t last = 0;
            for (const auto& s : splits) {
                ASSERT_LE(s.begin, s.end);
                ASSERT_LE(s.end, text.size());
                if (s.begin < s.end) {
                    ASSERT_GE(s.begin, last);
                    last = s.end;
                }
                const auto w = words_of(std::string_view(text).substr(s.begin, s.end - s.begin));
                got.insert(got.end(), w.begin(), w.end());
            }
            EXPECT_EQ(got, words_of(text)) << "p = " << p << ", text '" << text << "'";
        }
    }
}

TEST(Hidden, SubCommunicator) {
    // Even and odd ranks run separate jobs on different texts at once.
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank() % 2, world_rank(), &half);
    const std::string text = zipf_text(25000, 150, 9154 + static_cast<std::uint64_t>(world_rank() % 2));
    check_word_count(text, world_rank() % 2 == 0, half);
    MPI_Comm_free(&half);
}

TEST(Hidden, PancakeEight) {
    // OEIS A092113, row n = 8.
    const std::vector<long long> want = {1, 7, 42, 251, 1191, 4281, 10561, 15011, 8520, 455};
    const auto levels =
        on_every_rank(MPI_COMM_WORLD, [&] { return HPCLAB_VALUE(lab15::pancake_levels(8, MPI_COMM_WORLD)); });
    EXPECT_EQ(levels, want);
}
