// Lab 12, stage 1: the host's arithmetic. The mailbox layout (every slot on
// lines of its own, so that two ranks never share a cache line) and the
// co-residency check (a grid that spins must fit on the GPU at once).
#include <limits>
#include <stdexcept>
#include <string>

#include "gmp.hpp"

namespace gmp {

namespace {
// a * b, or std::overflow_error naming `what`.
std::size_t times(std::size_t a, std::size_t b, const char* what) {
    if (a != 0 && b > std::numeric_limits<std::size_t>::max() / a)
        throw std::overflow_error(std::string("mailbox layout: the ") + what +
                                  " does not fit in memory's address range");
    return a * b;
}
}  // namespace

Layout mailbox_layout(int ranks, int slots, std::size_t max_bytes) {
    if (ranks < 1)
        throw std::invalid_argument("mailbox layout: ranks must be at least 1, got " + std::to_string(ranks));
    if (slots < 1 || slots > kMaxSlots)
        throw std::invalid_argument("mailbox layout: slots must be 1 to " + std::to_string(kMaxSlots) + ", got " +
                                    std::to_string(slots));
    if (max_bytes == 0) throw std::invalid_argument("mailbox layout: the longest message must be at least 1 byte");
    const std::size_t limit = std::numeric_limits<std::size_t>::max();
    if (max_bytes > limit - 2 * kLineBytes) throw std::overflow_error("mailbox layout: the slot size overflows");
    Layout l;
    l.ranks = ranks;
    l.slots = slots;
    l.max_bytes = max_bytes;
    // The header line, then the payload rounded up to whole lines.
    l.slot_bytes = kLineBytes + (max_bytes + kLineBytes - 1) / kLineBytes * kLineBytes;
    l.mailbox_bytes = times(l.slot_bytes, static_cast<std::size_t>(slots), "mailbox");
    l.total_bytes = times(l.mailbox_bytes, static_cast<std::size_t>(ranks), "mailbox region");
    return l;
}

long long max_resident_ranks(int sm_count, int blocks_per_sm) {
    if (sm_count < 0 || blocks_per_sm < 0)
        throw std::invalid_argument("co-residency: SM count and blocks per SM must be at least 0, got " +
                                    std::to_string(sm_count) + " and " + std::to_string(blocks_per_sm));
    return static_cast<long long>(sm_count) * blocks_per_sm;
}

void check_co_residency(int ranks, int sm_count, int blocks_per_sm) {
    if (ranks < 1) throw std::invalid_argument("ranks must be at least 1, got " + std::to_string(ranks));
    const long long most = max_resident_ranks(sm_count, blocks_per_sm);
    if (most == 0)
        throw std::invalid_argument("the kernel cannot run at all: 0 blocks fit on an SM (" + std::to_string(ranks) +
                                    " ranks requested, at most 0 can be resident)");
    if (ranks > most)
        throw std::invalid_argument(std::to_string(ranks) + " ranks requested, but at most " + std::to_string(most) +
                                    " blocks can be resident at once (" + std::to_string(sm_count) + " SMs x " +
                                    std::to_string(blocks_per_sm) +
                                    " blocks each): ranks that spin on each other must all be running");
}

}  // namespace gmp
