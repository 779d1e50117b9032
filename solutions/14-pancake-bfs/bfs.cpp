// Lab 14, stage 3: level-synchronous BFS of the pancake graph over MPI ranks.
// Each rank owns an index range and keeps two bits per owned stack, in two
// bit arrays: visited and frontier. Neighbours go into the Outbox (one bucket
// per owner rank), and only after the whole frontier is expanded are they
// delivered, in rounds of MPI_Alltoallv. Because updates are delayed until
// the level's expansion is over, a new stack can go straight into the
// frontier array: nothing reads it again at this level.
#include <algorithm>
#include <string>

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
    if (any) throw std::runtime_error("the search stopped: a spill file failed on another rank");
}

}  // namespace

BfsResult pancake_bfs(const BfsOptions& o, MPI_Comm comm) {
    const int n = o.n;
    if (n < 2 || n > kMaxPancakes)
        throw std::invalid_argument("n = " + std::to_string(n) + ": the search takes 2 to 20 pancakes");
    const int p = hpclab::mpi::size(comm), me = hpclab::mpi::rank(comm);
    if (o.budget_bytes > 0 && o.budget_bytes < min_budget_bytes(p))
        throw std::invalid_argument("a budget of " + std::to_string(o.budget_bytes) + " bytes is too small for " +
                                    std::to_string(p) + " ranks to make progress (at least " +
                                    std::to_string(min_budget_bytes(p)) + ")");
    std::vector<std::uint8_t> start = o.start;
    if (start.empty())
        for (int i = 0; i < n; ++i) start.push_back(static_cast<std::uint8_t>(i));
    if (start.size() != static_cast<std::size_t>(n))
        throw std::invalid_argument("the start stack has " + std::to_string(start.size()) + " pancakes, not " +
                                    std::to_string(n));
    const std::uint64_t start_index = rank_stack(start.data(), n);  // throws alike on every rank

    const std::uint64_t total = factorial(n);
    BfsResult res;
    res.first = block_first(total, me, p);
    res.owned = block_size(total, me, p);
    const std::size_t words = static_cast<std::size_t>((res.owned + 63) / 64);
    std::vector<std::uint64_t> visited(words, 0), frontier(words, 0);
    if (owner_of(start_index, total, p) == me) {
        set_bit(visited, start_index - res.first);
        set_bit(frontier, start_index - res.first);
    }
    res.level_counts.push_back(1);

    Outbox outbox(p, o.budget_bytes / 2, o.spill_dir + "/pancake-r" + std::to_string(me) + "-");
    const std::size_t chunk = exchange_chunk_items(o.budget_bytes, p);
    // Exchange buffers grow to what a round carries (at most chunk per rank)
    // and keep their capacity from round to round.
    std::vector<std::uint64_t> send, receive;
    std::vector<int> send_counts(static_cast<std::size_t>(p)), send_displs(static_cast<std::size_t>(p));
    std::vector<int> recv_counts(static_cast<std::size_t>(p)), recv_displs(static_cast<std::size_t>(p));
    if (me == 0 && o.on_level) o.on_level(0, 1, o.on_level_context);

    for (int level = 0;; ++level) {
        // Expand: every frontier stack, its n - 1 flips, into the outbox.
        hpclab::mpi::Timer expand_clock;
        std::uint64_t fingerprint = 0;
        std::string error;
        try {
            std::uint8_t stack[kMaxPancakes], next[kMaxPancakes];
            for (std::size_t w = 0; w < words; ++w) {
                std::uint64_t bits = frontier[w];
                frontier[w] = 0;
                while (bits) {
                    const std::uint64_t local = w * 64 + static_cast<std::uint64_t>(__builtin_ctzll(bits));
                    bits &= bits - 1;
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
        } catch (const std::runtime_error& e) {
            error = e.what();
        }
        agree_on_failure(error, comm);
        std::uint64_t level_fingerprint = 0;
        HPCLAB_MPI_CHECK(MPI_Allreduce(&fingerprint, &level_fingerprint, 1, MPI_UINT64_T, MPI_SUM, comm));
        res.level_fingerprints.push_back(level_fingerprint);
        res.expand_seconds += expand_clock.seconds();

        // Exchange in rounds of at most `chunk` indices per pair of ranks;
        // mark what is new. Every round, the ranks agree on errors and on
        // whether anyone still has indices to send.
        hpclab::mpi::Timer exchange_clock;
        std::uint64_t found = 0;
        for (;;) {
            std::uint64_t state[2] = {0, 0};  // [failed, items still pending after this round]
            try {
                std::size_t offset = 0;
                for (int r = 0; r < p; ++r) {
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
            for (const std::uint64_t j : receive) {
                const std::uint64_t local = j - res.first;
                if (!test_bit(visited, local)) {
                    set_bit(visited, local);
                    set_bit(frontier, local);
                    ++found;
                }
            }
            if (all[1] == 0) break;
        }
        outbox.clear();
        res.exchange_seconds += exchange_clock.seconds();

        std::uint64_t level_count = 0;
        HPCLAB_MPI_CHECK(MPI_Allreduce(&found, &level_count, 1, MPI_UINT64_T, MPI_SUM, comm));
        if (level_count == 0) break;
        res.level_counts.push_back(level_count);
        if (me == 0 && o.on_level) o.on_level(level + 1, level_count, o.on_level_context);
    }
    res.spilled_bytes = outbox.spilled_bytes();
    return res;
}

}  // namespace lab14
