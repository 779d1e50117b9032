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
    // TODO(student): stage 1. Collect the sector numbers byte_address / 32 of
    // the 32 accesses (byte_address = (first + t * stride) * element_bytes)
    // in a std::set and return its size; std::invalid_argument for 0 bytes.
    (void)first;
    (void)stride;
    (void)element_bytes;
    throw hpclab::NotImplemented("sectors_per_warp");
}

int bank_conflict_ways(const std::vector<std::uint32_t>& word_addresses) {
    // TODO(student): stage 4. Group the DISTINCT words by bank (word % 32);
    // return the size of the largest group (0 for an empty list).
    (void)word_addresses;
    throw hpclab::NotImplemented("bank_conflict_ways");
}

}  // namespace lab07
