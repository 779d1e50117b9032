// Lab 03, stage 1: the lecture's partition, a three-way partition, median of
// three, and a serial quicksort that stays O(n log n) on sorted, reversed and
// duplicate-heavy inputs with O(log n) recursion depth.
// Templates on the element type and the order `less` (a strict weak ordering),
// so the tests can count comparisons.
// Every TODO(student) below throws "not implemented" until you replace it.
#pragma once

#include <cstddef>
#include <utility>

#include "hpclab/not_implemented.hpp"

namespace lab03 {

// The lecture's partition (MCS 572, lecture 12): pivot x = v[lower]; returns
// the pivot's final index k with v[i] <= x for lower <= i < k, v[k] = x,
// and v[i] > x for k < i <= upper. Precondition: lower < upper.
template <class T, class Less>
std::size_t partition_lecture(T* v, std::size_t lower, std::size_t upper, Less less) {
    // TODO(student): the lecture's loop with `up` and `down`. Compare only
    // through less: "v[up] <= x" is !less(x, v[up]), "v[down] > x" is less(x, v[down]).
    (void)v;
    (void)lower;
    (void)upper;
    (void)less;
    throw hpclab::NotImplemented("partition_lecture");
}

// Three-way partition of v[0, n) around the value `pivot`: returns {lt, gt}
// with v[0, lt) < pivot, v[lt, gt) equivalent to pivot, v[gt, n) > pivot.
// The pivot need not occur in v. Stage 1: Dijkstra's Dutch national flag;
// stage 6: Bentley and McIlroy's, which swaps far less (see the handout).
template <class T, class Less>
std::pair<std::size_t, std::size_t> partition3(T* v, std::size_t n, const T pivot, Less less) {
    // TODO(student): one pass with three indices lt <= i <= gt; at most two
    // comparisons per element. Stage 6: scan from both ends instead, swap
    // only pairs of misplaced keys, park keys equal to the pivot at the two
    // ends and swap them into the middle at the end.
    (void)v;
    (void)n;
    (void)pivot;
    (void)less;
    throw hpclab::NotImplemented("partition3");
}

// The median of three values under `less`.
template <class T, class Less>
T median_of_three(const T& a, const T& b, const T& c, Less less) {
    // TODO(student): at most three comparisons.
    (void)a;
    (void)b;
    (void)c;
    (void)less;
    throw hpclab::NotImplemented("median_of_three");
}

// Serial quicksort of v[0, n) by `less`. Requirements (the tests check them):
// O(n log n) comparisons on random, sorted, reversed and all-equal inputs;
// recursion depth O(log n) (recurse on the smaller part, loop on the larger).
template <class T, class Less>
void quicksort(T* v, std::size_t n, Less less) {
    // TODO(student): pick a pivot with median_of_three, partition3 around it,
    // sort v[0, lt) and v[gt, n). Which three? Try v[0], v[n/2], v[n-1]
    // first and watch the comparison-count test on sorted input: the
    // three-way partition reorders what it moves, so take the three from
    // pseudo-random positions (a xorshift generator is plenty). Small ranges
    // may finish with an insertion sort.
    (void)v;
    (void)n;
    (void)less;
    throw hpclab::NotImplemented("quicksort");
}

}  // namespace lab03
