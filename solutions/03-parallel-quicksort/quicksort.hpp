// Lab 03, stage 1: the lecture's partition, a three-way partition, median of
// three, and a serial quicksort that stays O(n log n) on sorted, reversed and
// duplicate-heavy inputs with O(log n) recursion depth.
// Templates on the element type and the order `less` (a strict weak ordering),
// so the tests can count comparisons.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace lab03 {

// The lecture's partition (MCS 572, lecture 12): pivot x = v[lower]; returns
// the pivot's final index k with v[i] <= x for lower <= i < k, v[k] = x,
// and v[i] > x for k < i <= upper. Precondition: lower < upper.
template <class T, class Less>
std::size_t partition_lecture(T* v, std::size_t lower, std::size_t upper, Less less) {
    const T x = v[lower];
    std::size_t up = lower + 1;  // goes up over values <= x
    std::size_t down = upper;    // goes down over values > x
    while (up < down) {
        while (up < down && !less(x, v[up])) ++up;
        while (up < down && less(x, v[down])) --down;
        if (up == down) break;
        std::swap(v[up], v[down]);
    }
    // up == down here: that element is either <= x (it stays left of the
    // pivot) or > x (the pivot goes just before it).
    if (less(x, v[up])) --up;
    v[lower] = v[up];
    v[up] = x;
    return up;
}

// Three-way partition of v[0, n) around the value `pivot` (Bentley and
// McIlroy's): returns {lt, gt} with v[0, lt) < pivot, v[lt, gt) equivalent to
// pivot, v[gt, n) > pivot. The pivot need not occur in v.
// Why not Dijkstra's Dutch flag: it swaps every key that is not equal to the
// pivot, about n swaps a pass on distinct keys. This one scans from both ends
// as Hoare's partition does and swaps only a pair of misplaced keys (about
// n/4 swaps on random keys); keys equal to the pivot are parked at the two
// ends and moved to the middle at the end, so many equal keys still finish
// in one pass.
template <class T, class Less>
std::pair<std::size_t, std::size_t> partition3(T* v, std::size_t n, const T pivot, Less less) {
    // Invariant: [0, a) == pivot, [a, i) < pivot, [i, j) unseen,
    // [j, d) > pivot, [d, n) == pivot.
    std::size_t a = 0, i = 0, j = n, d = n;
    for (;;) {
        // One comparison for a key that stays, two for one that stops the scan.
        while (i < j) {
            if (less(v[i], pivot)) {
                ++i;
            } else if (less(pivot, v[i])) {
                break;
            } else {
                std::swap(v[a++], v[i++]);
            }
        }
        while (i < j) {
            if (less(pivot, v[j - 1])) {
                --j;
            } else if (less(v[j - 1], pivot)) {
                break;
            } else {
                std::swap(v[--d], v[--j]);
            }
        }
        if (i == j) break;
        // v[i] > pivot and v[j - 1] < pivot, so i < j - 1: swap the pair.
        std::swap(v[i++], v[--j]);
    }
    // Move the parked equal keys from the ends to the middle: swap the
    // shorter of each pair of runs (a block swap, not a rotation).
    const std::size_t less_count = i - a, greater_count = d - i;
    const std::size_t left_moves = std::min(a, less_count), right_moves = std::min(n - d, greater_count);
    std::swap_ranges(v, v + left_moves, v + i - left_moves);
    std::swap_ranges(v + i, v + i + right_moves, v + n - right_moves);
    return {less_count, n - greater_count};
}

// The median of three values under `less`.
template <class T, class Less>
T median_of_three(const T& a, const T& b, const T& c, Less less) {
    if (less(a, b)) {
        if (less(b, c)) return b;   // a < b < c
        return less(a, c) ? c : a;  // a < b, c <= b
    }
    if (less(a, c)) return a;   // b <= a < c
    return less(b, c) ? c : b;  // b <= a, c <= a
}

namespace detail {
// xorshift64: a few cycles per number, plenty for picking pivot positions.
inline std::uint64_t next_random(std::uint64_t& state) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

// The median of three elements at pseudo-random positions of v[0, n), n >= 1.
// Why not v[0], v[n/2], v[n-1]: the three-way partition reorders what it
// moves, and on sorted input the parts it leaves behind are patterned so that
// first/middle/last picks poor pivots again and again (17 n log2 n
// comparisons at n = 2^16, measured); random positions have no such pattern.
template <class T, class Less>
T random_pivot(const T* v, std::size_t n, std::uint64_t& state, Less less) {
    const T& a = v[next_random(state) % n];
    const T& b = v[next_random(state) % n];
    const T& c = v[next_random(state) % n];
    return median_of_three(a, b, c, less);
}

template <class T, class Less>
void insertion_sort(T* v, std::size_t n, Less less) {
    for (std::size_t i = 1; i < n; ++i) {
        T x = v[i];
        std::size_t j = i;
        for (; j > 0 && less(x, v[j - 1]); --j) v[j] = v[j - 1];
        v[j] = x;
    }
}
}  // namespace detail

// Serial quicksort of v[0, n): pivot = median of three at random positions
// (no input order is a bad case in expectation), three-way partition (equal
// keys are done in one pass), recursion on the smaller part and a loop on the
// larger one (depth <= log2 n), insertion sort below 16 elements.
template <class T, class Less>
void quicksort(T* v, std::size_t n, Less less) {
    std::uint64_t state = 0x9E3779B97F4A7C15ULL ^ n;  // any nonzero seed
    while (n > 16) {
        const T pivot = detail::random_pivot(v, n, state, less);
        const auto [lt, gt] = partition3(v, n, pivot, less);
        const std::size_t left = lt, right = n - gt;
        if (left < right) {
            quicksort(v, left, less);
            v += gt;
            n = right;
        } else {
            quicksort(v + gt, right, less);
            n = left;
        }
    }
    detail::insertion_sort(v, n, less);
}

}  // namespace lab03
