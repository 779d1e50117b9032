// Test plumbing for lab 14: an independent, deliberately plain reference.
// Stacks are ranked by binary search in the sorted list of all n! stacks
// (packed 4 bits a pancake, the top pancake in the highest nibble, so that
// numeric order is lexicographic order), and the search is a queue BFS over
// one byte of distance per stack. Small n only (n <= 9 in the tests).
#pragma once

#include <algorithm>
#include <cstdint>
#include <queue>
#include <vector>

#include "pancake.hpp"

namespace lab14_test {

inline std::uint64_t pack_top_high(const std::uint8_t* s, int n) {
    std::uint64_t w = 0;
    for (int i = 0; i < n; ++i) w = w << 4 | s[i];
    return w;
}

// Every stack of n in lexicographic order (std::next_permutation).
inline std::vector<std::vector<std::uint8_t>> all_stacks(int n) {
    std::vector<std::uint8_t> s;
    for (int i = 0; i < n; ++i) s.push_back(static_cast<std::uint8_t>(i));
    std::vector<std::vector<std::uint8_t>> all;
    do {
        all.push_back(s);
    } while (std::next_permutation(s.begin(), s.end()));
    return all;
}

struct ReferenceLevels {
    std::vector<std::uint64_t> counts, fingerprints;
};

// Levels of the pancake graph from `start` (n = start.size() <= 9).
inline ReferenceLevels reference_levels(const std::vector<std::uint8_t>& start) {
    const int n = static_cast<int>(start.size());
    const auto stacks = all_stacks(n);
    std::vector<std::uint64_t> keys;
    keys.reserve(stacks.size());
    for (const auto& s : stacks) keys.push_back(pack_top_high(s.data(), n));
    auto index_of = [&](const std::vector<std::uint8_t>& s) {
        return static_cast<std::size_t>(std::lower_bound(keys.begin(), keys.end(), pack_top_high(s.data(), n)) -
                                        keys.begin());
    };
    std::vector<std::uint8_t> dist(stacks.size(), 255);
    std::queue<std::size_t> queue;
    dist[index_of(start)] = 0;
    queue.push(index_of(start));
    ReferenceLevels out;
    while (!queue.empty()) {
        const std::size_t i = queue.front();
        queue.pop();
        const std::size_t d = dist[i];
        if (out.counts.size() <= d) {
            out.counts.push_back(0);
            out.fingerprints.push_back(0);
        }
        ++out.counts[d];
        out.fingerprints[d] += lab14::stack_fingerprint(stacks[i].data(), n);
        for (int k = 2; k <= n; ++k) {
            std::vector<std::uint8_t> t = stacks[i];
            std::reverse(t.begin(), t.begin() + k);
            const std::size_t j = index_of(t);
            if (dist[j] == 255) {
                dist[j] = static_cast<std::uint8_t>(d + 1);
                queue.push(j);
            }
        }
    }
    return out;
}

}  // namespace lab14_test
