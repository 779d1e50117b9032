// Lab 15, stage 5: breadth-first search of the pancake graph as rounds of
// map and reduce (lecture 24's exercise). Reference solution.
#include <algorithm>
#include <numeric>
#include <string>

#include "hpclab/mpi.hpp"
#include "mapreduce.hpp"

namespace lab15 {

namespace {

void check_n(int n) {
    if (n < 2 || n > 9)
        throw std::invalid_argument("pancakes: n must be in [2, 9] (one digit per pancake), got " + std::to_string(n));
}

}  // namespace

std::vector<std::string> pancake_neighbours(const std::string& stack) {
    const int n = static_cast<int>(stack.size());
    check_n(n);
    std::string sorted = stack;
    std::sort(sorted.begin(), sorted.end());
    std::string want(static_cast<std::size_t>(n), '1');
    std::iota(want.begin(), want.end(), '1');
    if (sorted != want)
        throw std::invalid_argument("pancakes: '" + stack + "' is not a permutation of 1.." + std::to_string(n));
    std::vector<std::string> out;
    out.reserve(static_cast<std::size_t>(n - 1));
    for (int k = 2; k <= n; ++k) {
        std::string next = stack;
        std::reverse(next.begin(), next.begin() + k);
        out.push_back(std::move(next));
    }
    return out;
}

std::vector<long long> pancake_levels(int n, MPI_Comm comm, bool combine_min, JobReport* total) {
    check_n(n);  // the same n on every rank: every rank throws, nobody waits
    int rank = 0, p = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    std::string start(static_cast<std::size_t>(n), '1');
    std::iota(start.begin(), start.end(), '1');
    std::vector<KV> known;  // (stack, distance), on the owner of each stack
    if (owner_of(start, p) == rank) known.push_back({start, 0});
    const Combine smaller = [](std::int64_t a, std::int64_t b) { return std::min(a, b); };
    // Values arrive sorted: the first is the smallest distance, the first seen.
    const Reduce first_seen = [](const std::string& key, const std::vector<std::int64_t>& values, const Emit& emit) {
        emit(key, values.front());
    };
    std::int64_t level = 0;
    for (;; ++level) {
        // Map: every known stack keeps its distance; the frontier (distance
        // == level) proposes level + 1 for its neighbours. The known pairs
        // go to their own rank: only the proposals cross the network.
        const MapAll expand = [&](const Emit& emit) {
            for (const KV& kv : known) {
                emit(kv.key, kv.value);
                if (kv.value == level)
                    for (const std::string& next : pancake_neighbours(kv.key)) emit(next, level + 1);
            }
        };
        known = map_reduce(expand, combine_min ? smaller : Combine(), first_seen, comm, total);
        long long fresh = 0, fresh_all = 0;
        for (const KV& kv : known) fresh += kv.value == level + 1;
        HPCLAB_MPI_CHECK(MPI_Allreduce(&fresh, &fresh_all, 1, MPI_LONG_LONG, MPI_SUM, comm));
        if (fresh_all == 0) break;
    }
    std::vector<long long> mine(static_cast<std::size_t>(level + 1), 0), counts(mine.size(), 0);
    for (const KV& kv : known) ++mine[static_cast<std::size_t>(kv.value)];
    HPCLAB_MPI_CHECK(
        MPI_Allreduce(mine.data(), counts.data(), static_cast<int>(mine.size()), MPI_LONG_LONG, MPI_SUM, comm));
    return counts;
}

}  // namespace lab15
