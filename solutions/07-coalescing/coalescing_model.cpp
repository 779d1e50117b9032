// Lab 07, host models: how many 32-byte sectors a warp's access touches
// (coalescing) and how many passes a shared-memory access needs (bank conflicts).
#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "coalescing.hpp"
#include "hpclab/not_implemented.hpp"

namespace lab07 {

int sectors_per_warp(std::size_t first, std::size_t stride, std::size_t element_bytes) {
    if (element_bytes == 0) throw std::invalid_argument("sectors_per_warp: element_bytes must be >= 1");
    std::set<std::size_t> sectors;
    for (std::size_t t = 0; t < 32; ++t) {
        const std::size_t begin = (first + t * stride) * element_bytes;
        // An element may straddle a sector boundary (not for aligned 4/8/16-byte types).
        for (std::size_t s = begin / 32; s <= (begin + element_bytes - 1) / 32; ++s) sectors.insert(s);
    }
    return static_cast<int>(sectors.size());
}

int bank_conflict_ways(const std::vector<std::uint32_t>& word_addresses) {
    // Distinct words per bank: the same word for several threads is one
    // access (a broadcast), different words in one bank are serialised.
    std::map<std::uint32_t, std::set<std::uint32_t>> words_in_bank;
    for (std::uint32_t w : word_addresses) words_in_bank[w % 32].insert(w);
    std::size_t ways = 0;
    for (const auto& kv : words_in_bank) ways = std::max(ways, kv.second.size());
    return static_cast<int>(ways);
}

}  // namespace lab07
