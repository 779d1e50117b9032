// Lab 01, stage 3: a stable merge sort of your own.
// Requirements (the tests check each one):
//   - sorts [first, last) by `less` (a strict weak ordering);
//   - stable: elements that compare equal keep their input order;
//   - allocates its work buffer once per call (not once per merge);
//   - O(n log n) time on every input.
#pragma once

#include <iterator>
#include <vector>

#include "hpclab/not_implemented.hpp"

namespace lab01 {

template <class RandomIt, class Less>
void merge_sort(RandomIt first, RandomIt last, Less less) {
    // TODO(student): bottom-up (widths 1, 2, 4, ...) or top-down; merge
    // into one buffer of size last - first allocated here, once.
    (void)first;
    (void)last;
    (void)less;
    throw hpclab::NotImplemented("merge_sort");
}

}  // namespace lab01
