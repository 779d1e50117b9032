// Lab 15, stages 1-3: splitting the input, the shuffle, sort and reduce, and
// one MapReduce round. Reference solution.
#include <algorithm>
#include <climits>
#include <cstring>
#include <exception>
#include <string>
#include <unordered_map>

#include "hpclab/mpi.hpp"
#include "mapreduce.hpp"

namespace lab15 {

namespace {

// Start of the nominal block of `rank`: floor(rank * n / p) without overflow.
std::size_t block_start(std::size_t n, int rank, int p) {
    const std::size_t r = static_cast<std::size_t>(rank), q = static_cast<std::size_t>(p);
    return n / q * r + n % q * r / q;
}

// The first byte at or after `pos` that starts a word (a non-separator whose
// predecessor is a separator or the text's start); text.size() if none.
std::size_t next_word_start(std::string_view text, std::size_t pos) {
    if (pos > 0 && pos < text.size() && !is_separator(text[pos - 1]))
        while (pos < text.size() && !is_separator(text[pos])) ++pos;  // inside a word: skip it
    while (pos < text.size() && is_separator(text[pos])) ++pos;
    return pos;
}

using hpclab::mpi::PhaseClock;

double* field(JobReport* r, double JobReport::*member) { return r ? &(r->*member) : nullptr; }

// Runs `part`; if it threw on any rank of comm, throws JobFailed on every
// rank (the full message on the lowest failing rank, a short one elsewhere).
template <class Part>
void on_every_rank(MPI_Comm comm, const char* phase, Part&& part) {
    std::string message;
    try {
        part();
    } catch (const std::exception& e) {
        message = std::string(phase) + " failed: " + e.what();
    } catch (...) {
        message = std::string(phase) + " failed";
    }
    int rank = 0, p = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    int mine = message.empty() ? p : rank, first = p;
    HPCLAB_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
    if (first == p) return;
    if (first == rank) throw JobFailed(first, message);
    throw JobFailed(first, std::string(phase) + " failed on rank " + std::to_string(first));
}

}  // namespace

Split split_of(std::string_view text, int rank, int p) {
    if (p < 1) throw std::invalid_argument("split_of: p must be at least 1, got " + std::to_string(p));
    if (rank < 0 || rank >= p)
        throw std::invalid_argument("split_of: rank " + std::to_string(rank) + " is outside [0, " + std::to_string(p) +
                                    ")");
    const std::size_t n = text.size();
    const std::size_t lo = block_start(n, rank, p), hi = block_start(n, rank + 1, p);
    Split s;
    s.begin = next_word_start(text, lo);
    if (s.begin >= hi) return {hi, hi};  // no word starts in this block
    // The last word starting before hi ends where the next rank's words begin
    // (or the text ends); trailing separators are no one's.
    std::size_t end = next_word_start(text, hi);
    while (end > s.begin && is_separator(text[end - 1])) --end;
    s.end = end;
    return s;
}

std::vector<KV> shuffle(const std::vector<KV>& pairs, MPI_Comm comm, JobReport* report) {
    PhaseClock clock(field(report, &JobReport::shuffle_seconds));
    int p = 1;
    MPI_Comm_size(comm, &p);
    const std::size_t np = static_cast<std::size_t>(p);
    // Pass 1: bytes per destination; pass 2: pack each pair at its place.
    std::vector<long long> bytes(np, 0);
    std::vector<int> dest(pairs.size());
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        dest[i] = owner_of(pairs[i].key, p);
        bytes[static_cast<std::size_t>(dest[i])] += static_cast<long long>(packed_bytes(pairs[i].key));
    }
    long long total = 0, biggest = 0;
    for (long long b : bytes) {
        total += b;
        biggest = std::max(biggest, b);
    }
    // MPI counts are int: every rank must learn if any rank would overflow one.
    long long worst = biggest;
    HPCLAB_MPI_CHECK(MPI_Allreduce(&biggest, &worst, 1, MPI_LONG_LONG, MPI_MAX, comm));
    if (worst > INT_MAX) throw std::length_error("shuffle: more than 2^31 - 1 bytes for one rank");
    std::vector<int> send_counts(np), send_displs(np, 0);
    for (std::size_t r = 0; r < np; ++r) send_counts[r] = static_cast<int>(bytes[r]);
    for (std::size_t r = 1; r < np; ++r) send_displs[r] = send_displs[r - 1] + send_counts[r - 1];
    std::vector<char> out(static_cast<std::size_t>(total));
    std::vector<std::size_t> at(send_displs.begin(), send_displs.end());
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        char* q = out.data() + at[static_cast<std::size_t>(dest[i])];
        const auto len = static_cast<std::uint32_t>(pairs[i].key.size());
        std::memcpy(q, &len, sizeof len);
        std::memcpy(q + sizeof len, pairs[i].key.data(), len);
        std::memcpy(q + sizeof len + len, &pairs[i].value, sizeof(std::int64_t));
        at[static_cast<std::size_t>(dest[i])] += kPairOverhead + len;
    }
    std::vector<int> recv_counts(np), recv_displs(np, 0);
    HPCLAB_MPI_CHECK(MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm));
    long long received = 0;
    for (int c : recv_counts) received += c;
    if (received > INT_MAX) throw std::length_error("shuffle: more than 2^31 - 1 bytes to receive");
    for (std::size_t r = 1; r < np; ++r) recv_displs[r] = recv_displs[r - 1] + recv_counts[r - 1];
    std::vector<char> in(static_cast<std::size_t>(received));
    HPCLAB_MPI_CHECK(MPI_Alltoallv(out.data(), send_counts.data(), send_displs.data(), MPI_BYTE, in.data(),
                                   recv_counts.data(), recv_displs.data(), MPI_BYTE, comm));
    std::vector<KV> got;
    for (std::size_t i = 0; i + kPairOverhead <= in.size();) {
        std::uint32_t len = 0;
        std::memcpy(&len, in.data() + i, sizeof len);
        KV kv;
        kv.key.assign(in.data() + i + sizeof len, len);
        std::memcpy(&kv.value, in.data() + i + sizeof len + len, sizeof(std::int64_t));
        got.push_back(std::move(kv));
        i += kPairOverhead + len;
    }
    if (report) {
        report->pairs_shuffled += static_cast<long long>(pairs.size());
        report->bytes_shuffled += total;
    }
    return got;
}

std::vector<KV> sort_and_reduce(std::vector<KV> pairs, const Reduce& reduce, JobReport* report) {
    {
        PhaseClock clock(field(report, &JobReport::sort_seconds));
        std::sort(pairs.begin(), pairs.end());
    }
    PhaseClock clock(field(report, &JobReport::reduce_seconds));
    std::vector<KV> out;
    const Emit emit = [&](std::string_view key, std::int64_t value) { out.push_back({std::string(key), value}); };
    std::vector<std::int64_t> values;
    for (std::size_t i = 0; i < pairs.size();) {
        std::size_t j = i;
        values.clear();
        while (j < pairs.size() && pairs[j].key == pairs[i].key) values.push_back(pairs[j++].value);
        reduce(pairs[i].key, values, emit);
        i = j;
    }
    return out;
}

std::vector<KV> map_reduce(const MapAll& map, const Combine& combine, const Reduce& reduce, MPI_Comm comm,
                           JobReport* report) {
    std::vector<KV> mapped;
    on_every_rank(comm, "map", [&] {
        PhaseClock clock(field(report, &JobReport::map_seconds));
        long long emitted = 0;
        if (combine) {
            // Fold equal keys here, so that each rank sends each key once.
            std::unordered_map<std::string, std::int64_t> folded;
            std::string scratch;
            map([&](std::string_view key, std::int64_t value) {
                ++emitted;
                scratch.assign(key.data(), key.size());
                auto it = folded.find(scratch);
                if (it == folded.end())
                    folded.emplace(scratch, value);
                else
                    it->second = combine(it->second, value);
            });
            mapped.reserve(folded.size());
            for (auto& kv : folded) mapped.push_back({kv.first, kv.second});
        } else {
            map([&](std::string_view key, std::int64_t value) {
                ++emitted;
                mapped.push_back({std::string(key), value});
            });
        }
        if (report) report->pairs_emitted += emitted;
    });
    std::vector<KV> received = shuffle(mapped, comm, report);
    mapped = std::vector<KV>();  // free the map output before sorting
    std::vector<KV> out;
    on_every_rank(comm, "reduce", [&] { out = sort_and_reduce(std::move(received), reduce, report); });
    // reduce sees keys in order, but may emit other keys or several values.
    if (!std::is_sorted(out.begin(), out.end())) std::sort(out.begin(), out.end());
    return out;
}

}  // namespace lab15
