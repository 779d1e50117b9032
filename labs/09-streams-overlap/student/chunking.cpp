// Lab 09, stage 4a: how the data is cut into chunks for a pipeline.
#include <stdexcept>

#include "hpclab/not_implemented.hpp"
#include "overlap.hpp"

namespace lab09 {

std::vector<Chunk> equal_chunks(std::size_t n, std::size_t count) {
    // TODO(student): count chunks in order, sizes differing by at most one
    // (the first n % count one larger); refuse count 0 and count > n with
    // std::invalid_argument.
    (void)n, (void)count;
    throw hpclab::NotImplemented("equal_chunks");
}

std::vector<Chunk> geometric_chunks(std::size_t n, std::size_t first, double ratio) {
    // TODO(student): chunk i holds llround(first * ratio^i) elements, the
    // last what is left (see overlap.hpp); refuse n 0, first 0, and a ratio
    // below 1 or not finite. Compare the wanted size with what is left
    // before rounding it.
    (void)n, (void)first, (void)ratio;
    throw hpclab::NotImplemented("geometric_chunks");
}

}  // namespace lab09
