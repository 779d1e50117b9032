// Lab 15 test support, shared by the visible and the hidden tests: how a KV
// is recorded, failures agreed over ranks, test corpora and the trusted
// single-process counts the framework is checked against.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "corpus.hpp"
#include "gather.hpp"
#include "hpclab/data.hpp"
#include "hpclab/judged.hpp"
#include "hpclab/mpi.hpp"
#include "hpclab/mpi_testing.hpp"
#include "mapreduce.hpp"

// A pair is recorded as its key, then its value.
template <>
struct hpclab::judged::Codec<lab15::KV> {
    static void encode(Writer& w, const lab15::KV& kv) { put(w, kv.key, kv.value); }
    static lab15::KV decode(Reader& r) {
        lab15::KV kv;
        get(r, kv.key, kv.value);
        return kv;
    }
};

namespace lab15_test {

using lab15::KV;

inline int world_rank() { return hpclab::mpi::rank(); }
inline int world_size() { return hpclab::mpi::size(); }

inline long long sum_over_ranks(long long x, MPI_Comm comm = MPI_COMM_WORLD) {
    long long s = 0;
    MPI_Allreduce(&x, &s, 1, MPI_LONG_LONG, MPI_SUM, comm);
    return s;
}

// `count` distinct lowercase words of 1 to 12 letters, from the (salted) seed.
inline std::vector<std::string> vocabulary(std::size_t count, std::uint64_t seed) {
    hpclab::Rng rng(seed);
    std::set<std::string> seen;
    std::vector<std::string> words;
    while (words.size() < count) {
        std::string w(static_cast<std::size_t>(rng.uniform_int(1, 12)), 'a');
        for (char& c : w) c = static_cast<char>('a' + rng.uniform_int(0, 25));
        if (seen.insert(w).second) words.push_back(w);
    }
    return words;
}

// A Zipf text of at most `bytes` bytes over a vocabulary of `words` words.
inline std::string zipf_text(std::size_t bytes, std::size_t words, std::uint64_t seed) {
    const lab15::ZipfCorpus corpus(vocabulary(words, seed), 1.0);
    return corpus.generate(bytes, seed + 1);
}

// The words of `text`, in order (the trusted split: whitespace runs).
inline std::vector<std::string> words_of(std::string_view text) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && lab15::is_separator(text[i])) ++i;
        const std::size_t start = i;
        while (i < text.size() && !lab15::is_separator(text[i])) ++i;
        if (i > start) out.emplace_back(text.substr(start, i - start));
    }
    return out;
}

// The trusted word count: one process, one hash map, sorted for comparing.
inline std::vector<KV> reference_count(std::string_view text) {
    std::unordered_map<std::string, std::int64_t> counts;
    for (const std::string& w : words_of(text)) ++counts[w];
    std::vector<KV> out;
    for (const auto& kv : counts) out.push_back({kv.first, kv.second});
    std::sort(out.begin(), out.end());
    return out;
}

// A second, independent count: coreutils in the C locale, where the word
// separators are exactly is_separator's six bytes.
//   tr -s ' \t\n\v\f\r' '\n' < text | grep -v '^$' | sort | uniq -c
// The text goes through a private temporary file; any failure of the
// pipeline throws; a tool missing upstream of uniq gives no words, which
// no correct job matches, so a test fails rather than passes.
inline std::vector<KV> coreutils_count(std::string_view text) {
    const char* tmp = std::getenv("TMPDIR");
    std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/lab15-uniq-XXXXXX";
    if (mkdtemp(dir.data()) == nullptr) throw std::runtime_error("mkdtemp failed under " + dir);
    const std::string file = dir + "/text";
    std::ofstream(file, std::ios::binary).write(text.data(), static_cast<std::streamsize>(text.size()));
    const std::string command = "LC_ALL=C tr -s ' \\t\\n\\v\\f\\r' '\\n' < '" + file +
                                "' | LC_ALL=C grep -v '^$' | LC_ALL=C sort | LC_ALL=C uniq -c";
    std::FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) throw std::runtime_error("cannot run: " + command);
    std::vector<KV> out;
    char line[4096];
    while (std::fgets(line, sizeof line, pipe) != nullptr) {
        // "<spaces><count> <word>\n"
        char* end = nullptr;
        const long long count = std::strtoll(line, &end, 10);
        std::string word(end + 1);
        if (!word.empty() && word.back() == '\n') word.pop_back();
        out.push_back({word, count});
    }
    const int status = pclose(pipe);  // uniq's: a missing tool upstream shows as a wrong count
    std::remove(file.c_str());
    rmdir(dir.c_str());
    if (status != 0)
        throw std::runtime_error("the pipeline failed (status " + std::to_string(status) + "): " + command);
    std::sort(out.begin(), out.end());
    return out;
}

// The trusted inverted index: (word, offset of its line), each once, sorted.
inline std::vector<KV> reference_index(std::string_view text) {
    std::set<std::pair<std::string, std::int64_t>> pairs;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t eol = std::min(text.find('\n', at), text.size());
        for (const std::string& w : words_of(text.substr(at, eol - at)))
            pairs.insert({w, static_cast<std::int64_t>(at)});
        at = eol + 1;
    }
    std::vector<KV> out;
    for (const auto& p : pairs) out.push_back({p.first, p.second});
    return out;
}

// What word count's combiner hands the shuffle, for p ranks: for each rank r
// and each word that starts in r's block [r n / p, (r + 1) n / p) (the
// split rule of split_of), one pair (word, its occurrences there): each
// rank sends each of its distinct words once. All ranks' pairs, sorted.
inline std::vector<KV> reference_combined_pairs(std::string_view text, int p) {
    const std::uint64_t n = text.size();
    std::vector<KV> out;
    for (int r = 0; r < p; ++r) {
        const std::uint64_t lo = n * static_cast<std::uint64_t>(r) / static_cast<std::uint64_t>(p);
        const std::uint64_t hi = n * static_cast<std::uint64_t>(r + 1) / static_cast<std::uint64_t>(p);
        std::map<std::string, std::int64_t> counts;
        for (std::uint64_t i = lo; i < hi; ++i) {
            if (lab15::is_separator(text[i]) || (i > 0 && !lab15::is_separator(text[i - 1]))) continue;
            std::uint64_t end = i;
            while (end < n && !lab15::is_separator(text[end])) ++end;
            ++counts[std::string(text.substr(i, end - i))];
        }
        for (const auto& kv : counts) out.push_back({kv.first, kv.second});
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Every rank's output on rank 0, sorted (empty elsewhere).
inline std::vector<KV> gathered_sorted(const std::vector<KV>& mine, MPI_Comm comm = MPI_COMM_WORLD) {
    std::vector<KV> all = lab15::gather_pairs(mine, comm);
    std::sort(all.begin(), all.end());
    return all;
}

using hpclab::mpi::on_every_rank;

// This rank's output: every key owned here, sorted by key then value.
inline void expect_owned_and_sorted(const std::vector<KV>& mine, MPI_Comm comm = MPI_COMM_WORLD) {
    const int rank = hpclab::mpi::rank(comm), p = hpclab::mpi::size(comm);
    EXPECT_TRUE(std::is_sorted(mine.begin(), mine.end())) << "rank " << rank << "'s output is not sorted";
    for (const KV& kv : mine) {
        if (lab15::owner_of(kv.key, p) != rank) {
            ADD_FAILURE() << "rank " << rank << " holds '" << kv.key << "', owned by rank "
                          << lab15::owner_of(kv.key, p);
            break;
        }
    }
}

// Texts up to this size are also counted by coreutils_count.
constexpr std::size_t kCoreutilsBytes = 1 << 20;

// Word count of `text` (every rank has it) with the student's job, checked
// against the trusted counts (and coreutils' on small texts); returns the
// job's report summed over ranks (the framework's own account of its run:
// only tests worth no points may read it, see Report.CountsWhatItSent).
inline lab15::JobReport check_word_count(const std::string& text, bool combiner, MPI_Comm comm = MPI_COMM_WORLD) {
    lab15::JobReport report;
    const auto mine = on_every_rank(comm, [&] {
        return HPCLAB_CALL([&] { return lab15::run_text_job(lab15::word_count_job(combiner), text, comm, &report); },
                           report);
    });
    expect_owned_and_sorted(mine, comm);
    const auto all = gathered_sorted(mine, comm);
    if (hpclab::mpi::rank(comm) == 0) {
        const auto want = reference_count(text);
        EXPECT_EQ(all.size(), want.size()) << "distinct words";
        EXPECT_TRUE(all == want) << "the counts differ from a single process's std::unordered_map count";
        if (text.size() <= kCoreutilsBytes) {
            EXPECT_TRUE(all == coreutils_count(text)) << "the counts differ from tr | sort | uniq -c";
        }
    }
    lab15::JobReport sum;
    sum.pairs_emitted = sum_over_ranks(report.pairs_emitted, comm);
    sum.pairs_shuffled = sum_over_ranks(report.pairs_shuffled, comm);
    sum.bytes_shuffled = sum_over_ranks(report.bytes_shuffled, comm);
    return sum;
}

// Inverted index of `text` (every rank has it) with the student's job,
// checked against the trusted single-process index.
inline void check_inverted_index(const std::string& text, MPI_Comm comm = MPI_COMM_WORLD) {
    const auto mine =
        on_every_rank(comm, [&] { return HPCLAB_VALUE(lab15::run_text_job(lab15::inverted_index_job(), text, comm)); });
    expect_owned_and_sorted(mine, comm);
    const auto all = gathered_sorted(mine, comm);
    if (hpclab::mpi::rank(comm) == 0) {
        EXPECT_TRUE(all == reference_index(text)) << "the index differs from one process's";
    }
}

// What reduce is handed in word count of `text`: the student's map and
// combiner, and a reduce that emits each value it receives, so that the
// output is what the shuffle delivered; every rank's on rank 0, sorted.
// The shuffle is seen in values the judge checks, not in a byte count the
// framework writes about itself.
inline std::vector<KV> reduce_inputs_of_word_count(const std::string& text, bool combiner,
                                                   MPI_Comm comm = MPI_COMM_WORLD) {
    const auto mine = on_every_rank(comm, [&] {
        return HPCLAB_CALL([&] {
            lab15::TextJob job = lab15::word_count_job(combiner);
            job.reduce = [](const std::string& key, const std::vector<std::int64_t>& values, const lab15::Emit& emit) {
                for (std::int64_t v : values) emit(key, v);
            };
            return lab15::run_text_job(job, text, comm);
        });
    });
    expect_owned_and_sorted(mine, comm);
    return gathered_sorted(mine, comm);
}

}  // namespace lab15_test
