// Lab 03, stage 6: a blocked parallel partition (OpenMP), so that the top
// levels of a quicksort need not partition all n elements on one core.
// A template on the element type and the predicate, as std::partition is.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace lab03 {

namespace detail {
// Runs of positions [begin, end), in increasing order, read as one sequence:
// the misplaced elements on one side of the split.
struct Run {
    std::size_t begin, end;
};

// Where the element of rank `rank` of the sequence lies: the index of its run
// and its position. Linear in the number of runs (one per block, few).
inline std::pair<std::size_t, std::size_t> locate(const std::vector<Run>& runs, std::size_t rank) {
    std::size_t r = 0;
    for (; r < runs.size() && rank >= runs[r].end - runs[r].begin; ++r) rank -= runs[r].end - runs[r].begin;
    return {r, r < runs.size() ? runs[r].begin + rank : 0};
}
}  // namespace detail

// Rearranges v[0, n) so that the elements x with is_left(x) come first and
// returns their count k: is_left(v[i]) for i < k, !is_left(v[i]) for i >= k.
// Not stable. Runs on `threads` OpenMP threads (fewer if OpenMP gives fewer,
// one when called inside a parallel region); throws std::invalid_argument
// when threads < 1.
// The method: cut v into one block per thread; each thread partitions its
// block with std::partition (phase 1). Then k = the sum of the blocks' left
// counts, and the misplaced elements are the right ones in [0, k) and the
// left ones in [k, n): as many of one as of the other. Each thread swaps an
// equal share of these pairs (phase 2). Both phases touch every element at
// most once, on all threads.
template <class T, class IsLeft>
std::size_t parallel_partition(T* v, std::size_t n, IsLeft is_left, int threads) {
    if (threads < 1)
        throw std::invalid_argument("parallel_partition: threads = " + std::to_string(threads) + "; need >= 1");
    std::vector<std::size_t> left_in_block;
    std::size_t k = 0;
#pragma omp parallel num_threads(threads)
    {
        // The team may be smaller than asked: cut by the team that runs.
        const std::size_t team = static_cast<std::size_t>(omp_get_num_threads());
        const std::size_t me = static_cast<std::size_t>(omp_get_thread_num());
        auto block_begin = [&](std::size_t b) { return b * (n / team) + std::min(b, n % team); };
#pragma omp single
        left_in_block.assign(team, 0);  // the barrier after single publishes it
        const std::size_t begin = block_begin(me), end = block_begin(me + 1);
        left_in_block[me] = static_cast<std::size_t>(std::partition(v + begin, v + end, is_left) - (v + begin));
        // Every count must be written before anyone reads them.
#pragma omp barrier
        // Each thread derives the same k and the same runs from the counts
        // (O(team) work, cheaper than another barrier).
        std::size_t split = 0;
        for (std::size_t c : left_in_block) split += c;
        std::vector<detail::Run> right_before, left_after;  // misplaced: right in [0, split), left in [split, n)
        for (std::size_t b = 0; b < team; ++b) {
            const std::size_t lo = block_begin(b), mid = lo + left_in_block[b], hi = block_begin(b + 1);
            if (std::min(hi, split) > mid) right_before.push_back({mid, std::min(hi, split)});
            if (mid > std::max(lo, split)) left_after.push_back({std::max(lo, split), mid});
        }
        std::size_t misplaced = 0;
        for (const auto& r : right_before) misplaced += r.end - r.begin;
        // My share of the pairs: ranks [first, last).
        const std::size_t first = misplaced * me / team, last = misplaced * (me + 1) / team;
        auto [ra, pa] = detail::locate(right_before, first);
        auto [rb, pb] = detail::locate(left_after, first);
        for (std::size_t done = first; done < last;) {
            const std::size_t len = std::min({right_before[ra].end - pa, left_after[rb].end - pb, last - done});
            std::swap_ranges(v + pa, v + pa + len, v + pb);
            done += len;
            pa += len;
            pb += len;
            if (pa == right_before[ra].end && ++ra < right_before.size()) pa = right_before[ra].begin;
            if (pb == left_after[rb].end && ++rb < left_after.size()) pb = left_after[rb].begin;
        }
        if (me == 0) k = split;
    }
    return k;
}

}  // namespace lab03
