// Lab 09, stage 4a: how the data is cut into chunks for a pipeline.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "overlap.hpp"

namespace lab09 {

std::vector<Chunk> equal_chunks(std::size_t n, std::size_t count) {
    if (count == 0) throw std::invalid_argument("equal_chunks: the chunk count must be at least 1");
    if (count > n)
        throw std::invalid_argument("equal_chunks: " + std::to_string(count) + " chunks of " + std::to_string(n) +
                                    " elements would leave some empty");
    const std::size_t base = n / count, extra = n % count;
    std::vector<Chunk> chunks(count);
    std::size_t offset = 0;
    for (std::size_t c = 0; c < count; ++c) {
        chunks[c].offset = offset;
        chunks[c].size = base + (c < extra ? 1 : 0);
        offset += chunks[c].size;
    }
    return chunks;
}

std::vector<Chunk> geometric_chunks(std::size_t n, std::size_t first, double ratio) {
    if (n == 0) throw std::invalid_argument("geometric_chunks: no data to cut");
    if (first == 0) throw std::invalid_argument("geometric_chunks: the first chunk must hold at least 1 element");
    if (!std::isfinite(ratio) || ratio < 1)
        throw std::invalid_argument("geometric_chunks: the ratio must be finite and at least 1");
    std::vector<Chunk> chunks;
    std::size_t offset = 0;
    // The size in double, so that ratio^i is computed as the formula says
    // (no drift from rounding each size before the next multiplication);
    // compared with what is left before it is rounded, so that a huge
    // ratio^i never reaches llround.
    for (std::size_t i = 0; offset < n; ++i) {
        const double want = static_cast<double>(first) * std::pow(ratio, static_cast<double>(i));
        const std::size_t left = n - offset;
        const std::size_t size =
            want >= static_cast<double>(left) ? left : std::min<std::size_t>(left, std::llround(want));
        chunks.push_back({offset, size});
        offset += size;
    }
    return chunks;
}

}  // namespace lab09
