// Lab 14, stage 1: perfect ranking of stacks and the flip move.
// Every TODO(student) below throws "not implemented" until you replace it.
#include <string>

#include "hpclab/not_implemented.hpp"
#include "pancake.hpp"

namespace lab14 {

std::uint64_t rank_stack(const std::uint8_t* stack, int n) {
    // TODO(student): the position of `stack` in lexicographic order (see
    // pancake.hpp). The Lehmer code: digit i = how many pancakes smaller than
    // stack[i] appear below it (after position i); the rank is the digits in
    // the factorial number system, sum of digit_i (n-1-i)!. Reject n outside
    // [1, 20] and anything that is not a permutation of 0..n-1 with
    // std::invalid_argument. Aim for O(n): a bit mask of the pancakes seen so
    // far and a popcount give each digit in one step.
    (void)stack;
    (void)n;
    throw hpclab::NotImplemented("rank_stack");
}

void unrank_stack(std::uint64_t index, int n, std::uint8_t* stack) {
    // TODO(student): the inverse of rank_stack. Reject n outside [1, 20] and
    // index >= n! (factorial() is given). Peel off the factorial-base digits,
    // then place, top to bottom, the digit-th smallest pancake not yet placed.
    (void)index;
    (void)n;
    (void)stack;
    throw hpclab::NotImplemented("unrank_stack");
}

void flip_top(std::uint8_t* stack, int k) {
    // TODO(student): reverse stack[0..k); std::invalid_argument when k < 0.
    (void)stack;
    (void)k;
    throw hpclab::NotImplemented("flip_top");
}

}  // namespace lab14
