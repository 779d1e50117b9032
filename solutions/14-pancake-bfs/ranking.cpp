// Lab 14, stage 1: perfect ranking of stacks (the Lehmer code in
// lexicographic order) and the flip move.
#include <algorithm>
#include <string>

#include "pancake.hpp"

namespace lab14 {

namespace {
void check_n(int n) {
    if (n < 1 || n > kMaxPancakes)
        throw std::invalid_argument("n = " + std::to_string(n) + ": stacks of 1 to 20 pancakes only");
}
}  // namespace

std::uint64_t rank_stack(const std::uint8_t* stack, int n) {
    check_n(n);
    // Digit i of the Lehmer code: how many pancakes below stack[i] are not
    // yet used above it; the rank is those digits in the factorial base,
    // evaluated by Horner's rule. A bit mask makes each digit one popcount.
    std::uint32_t used = 0;
    std::uint64_t r = 0;
    for (int i = 0; i < n; ++i) {
        const unsigned v = stack[i];
        if (v >= static_cast<unsigned>(n) || (used >> v & 1u))
            throw std::invalid_argument("not a stack of " + std::to_string(n) + " pancakes (pancake " +
                                        std::to_string(v) + " at position " + std::to_string(i) + ")");
        const std::uint32_t below = (1u << v) - 1u;
        r = r * static_cast<std::uint64_t>(n - i) + static_cast<std::uint64_t>(__builtin_popcount(~used & below));
        used |= 1u << v;
    }
    return r;
}

void unrank_stack(std::uint64_t index, int n, std::uint8_t* stack) {
    check_n(n);
    if (index >= factorial(n))
        throw std::invalid_argument("index " + std::to_string(index) + " is not below " + std::to_string(n) + "!");
    // Digits from the least significant (radix 1, 2, ..., n), then pick the
    // digit-th smallest pancake not used yet, top to bottom.
    int digit[kMaxPancakes];
    for (int i = n - 1; i >= 0; --i) {
        const std::uint64_t radix = static_cast<std::uint64_t>(n - i);
        digit[i] = static_cast<int>(index % radix);
        index /= radix;
    }
    std::uint8_t left[kMaxPancakes];
    for (int v = 0; v < n; ++v) left[v] = static_cast<std::uint8_t>(v);
    int count = n;
    for (int i = 0; i < n; ++i) {
        const int d = digit[i];
        stack[i] = left[d];
        std::copy(left + d + 1, left + count, left + d);
        --count;
    }
}

void flip_top(std::uint8_t* stack, int k) {
    if (k < 0) throw std::invalid_argument("flip of " + std::to_string(k) + " pancakes");
    std::reverse(stack, stack + k);
}

}  // namespace lab14
