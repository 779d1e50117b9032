// Lab 03 test helper (visible and hidden tests): lab03::quicksort under a
// comparison budget, as one judged call.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <vector>

#include "hpclab/judged.hpp"
#include "quicksort.hpp"

namespace lab03_test {

// Thrown when a sort has used up its comparison budget: a quadratic sort
// fails fast instead of running for minutes.
struct TooManyComparisons : std::runtime_error {
    TooManyComparisons() : std::runtime_error("more comparisons than the budget") {}
};

// Counts its calls and refuses after `budget` (throws, and keeps throwing).
struct CountingLess {
    long long* count;
    long long budget;
    bool operator()(double a, double b) const {
        if (++*count > budget) throw TooManyComparisons();
        return a < b;
    }
};

// lab03::quicksort of `v` in place with a CountingLess, as one judged call
// (its outputs: `v` and whether the comparator refused). The budget lives in
// the submission's process and decides nothing: it only makes quadratic code
// fail fast instead of running into the grader's time limit.
inline bool judged_quicksort_refused(std::vector<double>& v, long long budget) {
    bool refused = false;
    HPCLAB_CALL(
        [&] {
            long long count = 0;
            try {
                lab03::quicksort(v.data(), v.size(), CountingLess{&count, budget});
            } catch (const TooManyComparisons&) {
                refused = true;
            }
        },
        v, refused);
    return refused;
}

}  // namespace lab03_test
