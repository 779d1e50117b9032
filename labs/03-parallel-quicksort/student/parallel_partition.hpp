// Lab 03, stage 6: a blocked parallel partition (OpenMP), so that the top
// levels of a quicksort need not partition all n elements on one core.
// A template on the element type and the predicate, as std::partition is.
// Every TODO(student) below throws "not implemented" until you replace it.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "hpclab/not_implemented.hpp"

namespace lab03 {

// Rearranges v[0, n) so that the elements x with is_left(x) come first and
// returns their count k: is_left(v[i]) for i < k, !is_left(v[i]) for i >= k.
// Not stable. Runs on `threads` OpenMP threads (fewer if OpenMP gives fewer,
// one when called inside a parallel region); throws std::invalid_argument
// when threads < 1. Any n, including 0 (v may then be null) and n < threads.
template <class T, class IsLeft>
std::size_t parallel_partition(T* v, std::size_t n, IsLeft is_left, int threads) {
    // TODO(student): the blocked parallel partition of the handout, in one
    // `#pragma omp parallel num_threads(threads)` region:
    //  1. cut v into one block per thread of the team that actually runs
    //     (omp_get_num_threads()); each thread partitions its own block with
    //     std::partition and writes its left count into a shared vector;
    //  2. a barrier; then k = the sum of the counts. The misplaced elements
    //     are the right ones in [0, k) and the left ones in [k, n): as many of
    //     one kind as of the other. Each thread swaps an equal share of these
    //     pairs (std::swap_ranges over runs of consecutive positions).
    // Mind the blocks' edges when n is not a multiple of the team size.
    (void)v;
    (void)n;
    (void)is_left;
    (void)threads;
    throw hpclab::NotImplemented("parallel_partition");
}

}  // namespace lab03
