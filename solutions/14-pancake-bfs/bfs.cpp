// Lab 14, stage 3: level-synchronous BFS of the pancake graph over MPI ranks.
// Each rank owns an index range and keeps two bits per owned stack, in two
// bit arrays: visited and frontier, cut into BitSegments when the budget is
// smaller than the arrays. Neighbours go into the outbox (one bucket per owner
// rank), and only after the whole frontier is expanded are they delivered, in
// rounds of MPI_Alltoallv. Because updates are delayed until the level's
// expansion is over, a new stack can go straight into the frontier array:
// nothing reads it again at this level. With several segments, received
// indices wait in the inbox (one bucket per segment) and are applied one
// segment at a time, so each segment is read and written once per phase.
#include <algorithm>
#include <memory>
#include <string>

#include "bit_segments.hpp"
#include "hpclab/mpi.hpp"
#include "pancake.hpp"

namespace lab14 {

namespace {

bool test_bit(const std::vector<std::uint64_t>& bits, std::uint64_t i) { return bits[i >> 6] >> (i & 63) & 1u; }
void set_bit(std::vector<std::uint64_t>& bits, std::uint64_t i) { bits[i >> 6] |= std::uint64_t(1) << (i & 63); }

// Every rank learns whether any rank failed; the ones that did rethrow their
// own error, the others a short one, so all leave the collective code alike.
void agree_on_failure(const std::string& mine, MPI_Comm comm) {
    int bad = mine.empty() ? 0 : 1, any = 0;
    HPCLAB_MPI_CHECK(MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm));
    if (bad) throw std::runtime_error(mine);
    if (any) throw std::runtime_error("the search stopped: a file failed on another rank");
}

// The validated start stack (the sorted one when o.start is empty); throws
// std::invalid_argument alike on every rank.
std::vector<std::uint8_t> checked_start(const BfsOptions& o, int p) {
    const int n = o.n;
    if (n < 2 || n > kMaxPancakes)
        throw std::invalid_argument("n = " + std::to_string(n) + ": the search takes 2 to 20 pancakes");
    const std::size_t least = min_budget_bytes(p, factorial(n));
    if (o.budget_bytes > 0 && o.budget_bytes < least)
        throw std::invalid_argument("a budget of " + std::to_string(o.budget_bytes) + " bytes is too small for " +
                                    std::to_string(n) + " pancakes on " + std::to_string(p) + " ranks (at least " +
                                    std::to_string(least) + ")");
    std::vector<std::uint8_t> start = o.start;
    if (start.empty())
        for (int i = 0; i < n; ++i) start.push_back(static_cast<std::uint8_t>(i));
    if (start.size() != static_cast<std::size_t>(n))
        throw std::invalid_argument("the start stack has " + std::to_string(start.size()) + " pancakes, not " +
                                    std::to_string(n));
    rank_stack(start.data(), n);  // throws when it is not a stack
    return start;
}

// The bits of a rank's search: new stacks are marked here, counted per
// segment so that the expansion skips segments with no frontier.
class SearchBits {
public:
    SearchBits(std::uint64_t states, std::size_t budget_bytes, const std::string& path)
        : bits_(states, segment_states(budget_bytes), path), frontier_in_(bits_.count(), 0) {}

    BitSegments& segments() { return bits_; }
    std::uint64_t frontier_in(std::size_t s) const { return frontier_in_[s]; }
    void frontier_expanded(std::size_t s) { frontier_in_[s] = 0; }

    // Marks local state i (in the loaded segment `seg`) as reached; true when
    // it was not visited before.
    bool mark(BitSegments::Segment& seg, std::uint64_t i) {
        const std::uint64_t at = i - seg.first;
        if (test_bit(seg.visited, at)) return false;
        set_bit(seg.visited, at);
        set_bit(seg.frontier, at);
        ++frontier_in_[bits_.segment_of(i)];
        return true;
    }

private:
    BitSegments bits_;
    std::vector<std::uint64_t> frontier_in_;
};

}  // namespace

BfsResult pancake_bfs(const BfsOptions& o, MPI_Comm comm) {
    const int p = hpclab::mpi::size(comm), me = hpclab::mpi::rank(comm);
    const std::vector<std::uint8_t> start = checked_start(o, p);
    const int n = o.n;
    const std::uint64_t total = factorial(n), start_index = rank_stack(start.data(), n);
    BfsResult res;
    res.first = block_first(total, me, p);
    res.owned = block_size(total, me, p);

    // Creating the bit-array file may fail on one rank only.
    const std::string prefix = o.spill_dir + "/pancake-r" + std::to_string(me) + "-";
    std::unique_ptr<SearchBits> bits;
    std::string error;
    try {
        bits = std::make_unique<SearchBits>(res.owned, o.budget_bytes, prefix + "bits");
    } catch (const std::runtime_error& e) {
        error = e.what();
    }
    agree_on_failure(error, comm);
    BitSegments& segments = bits->segments();
    const bool segmented = segments.count() > 1;
    res.bit_segments = segments.count();
    if (owner_of(start_index, total, p) == me) {
        const std::uint64_t local = start_index - res.first;
        bits->mark(segments.load(segments.segment_of(local)), local);
    }
    res.level_counts.push_back(1);

    Outbox outbox(p, o.budget_bytes / 4, prefix + "out-");
    Outbox inbox(static_cast<int>(segments.count()), o.budget_bytes / 4, prefix + "in-");
    const std::size_t chunk = exchange_chunk_items(o.budget_bytes, p);
    // Exchange buffers grow to what a round carries (at most chunk per rank)
    // and keep their capacity from round to round.
    std::vector<std::uint64_t> send, receive;
    std::vector<int> send_counts(static_cast<std::size_t>(p)), send_displs(static_cast<std::size_t>(p));
    std::vector<int> recv_counts(static_cast<std::size_t>(p)), recv_displs(static_cast<std::size_t>(p));
    if (me == 0 && o.on_level) o.on_level(0, 1, o.on_level_context);

    for (int level = 0;; ++level) {
        // Expand: every frontier stack, its n - 1 flips, into the outbox,
        // segment by segment.
        hpclab::mpi::Timer expand_clock;
        std::uint64_t fingerprint = 0;
        try {
            std::uint8_t stack[kMaxPancakes], next[kMaxPancakes];
            for (std::size_t s = 0; s < segments.count(); ++s) {
                if (bits->frontier_in(s) == 0) continue;
                BitSegments::Segment& seg = segments.load(s);
                for (std::size_t w = 0; w < seg.frontier.size(); ++w) {
                    std::uint64_t word = seg.frontier[w];
                    seg.frontier[w] = 0;
                    while (word) {
                        const std::uint64_t local =
                            seg.first + w * 64 + static_cast<std::uint64_t>(__builtin_ctzll(word));
                        word &= word - 1;
                        unrank_stack(res.first + local, n, stack);
                        fingerprint += stack_fingerprint(stack, n);
                        for (int k = 2; k <= n; ++k) {
                            std::copy(stack, stack + n, next);
                            flip_top(next, k);
                            const std::uint64_t j = rank_stack(next, n);
                            outbox.add(owner_of(j, total, p), j);
                        }
                    }
                }
                bits->frontier_expanded(s);
            }
        } catch (const std::runtime_error& e) {
            error = e.what();
        }
        agree_on_failure(error, comm);
        std::uint64_t level_fingerprint = 0;
        HPCLAB_MPI_CHECK(MPI_Allreduce(&fingerprint, &level_fingerprint, 1, MPI_UINT64_T, MPI_SUM, comm));
        res.level_fingerprints.push_back(level_fingerprint);
        res.expand_seconds += expand_clock.seconds();

        // Exchange in rounds of at most `chunk` indices per pair of ranks.
        // With one segment, new stacks are marked as they arrive; with
        // several, they wait in the inbox. Every round, the ranks agree on
        // errors and on whether anyone still has indices to send.
        hpclab::mpi::Timer exchange_clock;
        std::uint64_t found = 0;
        for (;;) {
            std::uint64_t state[2] = {error.empty() ? 0u : 1u, 0};  // [failed, items pending after this round]
            try {
                std::size_t offset = 0;
                for (int r = 0; r < p && error.empty(); ++r) {
                    const std::size_t k = static_cast<std::size_t>(r);
                    const std::size_t want =
                        static_cast<std::size_t>(std::min<std::uint64_t>(outbox.pending(r), chunk));
                    send.resize(offset + want);
                    send_counts[k] = static_cast<int>(outbox.take(r, send.data() + offset, want));
                    send_displs[k] = static_cast<int>(offset);
                    offset += static_cast<std::size_t>(send_counts[k]);
                    state[1] += outbox.pending(r);
                    if (r != me) res.sent_to_others += static_cast<std::uint64_t>(send_counts[k]);
                }
            } catch (const std::runtime_error& e) {
                error = e.what();
                state[0] = 1;
            }
            std::uint64_t all[2];
            HPCLAB_MPI_CHECK(MPI_Allreduce(state, all, 2, MPI_UINT64_T, MPI_MAX, comm));
            if (all[0]) agree_on_failure(error, comm);
            HPCLAB_MPI_CHECK(MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm));
            std::size_t incoming = 0;
            for (int r = 0; r < p; ++r) {
                recv_displs[static_cast<std::size_t>(r)] = static_cast<int>(incoming);
                incoming += static_cast<std::size_t>(recv_counts[static_cast<std::size_t>(r)]);
            }
            receive.resize(incoming);
            HPCLAB_MPI_CHECK(MPI_Alltoallv(send.data(), send_counts.data(), send_displs.data(), MPI_UINT64_T,
                                           receive.data(), recv_counts.data(), recv_displs.data(), MPI_UINT64_T, comm));
            ++res.exchange_rounds;
            try {
                if (segmented) {
                    for (const std::uint64_t j : receive)
                        inbox.add(static_cast<int>(segments.segment_of(j - res.first)), j - res.first);
                } else {
                    BitSegments::Segment& seg = segments.load(0);
                    for (const std::uint64_t j : receive) found += bits->mark(seg, j - res.first);
                }
            } catch (const std::runtime_error& e) {
                error = e.what();
            }
            if (all[1] == 0) break;
        }
        agree_on_failure(error, comm);
        outbox.clear();

        // Apply the inbox, one segment at a time, in order.
        try {
            for (std::size_t s = 0; segmented && s < segments.count(); ++s) {
                const int bucket = static_cast<int>(s);
                if (inbox.pending(bucket) == 0) continue;
                BitSegments::Segment& seg = segments.load(s);
                receive.resize(chunk);
                while (const std::size_t got = inbox.take(bucket, receive.data(), chunk))
                    for (std::size_t i = 0; i < got; ++i) found += bits->mark(seg, receive[i]);
            }
            inbox.clear();
        } catch (const std::runtime_error& e) {
            error = e.what();
        }
        agree_on_failure(error, comm);
        res.exchange_seconds += exchange_clock.seconds();

        std::uint64_t level_count = 0;
        HPCLAB_MPI_CHECK(MPI_Allreduce(&found, &level_count, 1, MPI_UINT64_T, MPI_SUM, comm));
        if (level_count == 0) break;
        res.level_counts.push_back(level_count);
        if (me == 0 && o.on_level) o.on_level(level + 1, level_count, o.on_level_context);
    }
    res.spilled_bytes = outbox.spilled_bytes() + inbox.spilled_bytes() + segments.bytes_written();
    return res;
}

}  // namespace lab14
