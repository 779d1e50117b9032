// Lab 12, stage 1: the host's arithmetic: the mailbox layout and the
// co-residency check (see gmp.hpp for what each must do).
#include <stdexcept>
#include <string>

#include "gmp.hpp"
#include "hpclab/not_implemented.hpp"

namespace gmp {

Layout mailbox_layout(int ranks, int slots, std::size_t max_bytes) {
    // TODO(student): check the arguments (std::invalid_argument), then
    // each slot: one header line of kLineBytes, then max_bytes rounded up
    // to whole lines; a mailbox is `slots` slots, the region `ranks`
    // mailboxes. Every product can overflow: check before multiplying
    // (std::overflow_error).
    (void)ranks, (void)slots, (void)max_bytes;
    throw hpclab::NotImplemented("gmp::mailbox_layout");
}

long long max_resident_ranks(int sm_count, int blocks_per_sm) {
    // TODO(student): SMs times blocks per SM, refusing negative inputs.
    (void)sm_count, (void)blocks_per_sm;
    throw hpclab::NotImplemented("gmp::max_resident_ranks");
}

void check_co_residency(int ranks, int sm_count, int blocks_per_sm) {
    // TODO(student): refuse ranks < 1 and any grid larger than
    // max_resident_ranks, with a message that gives both numbers (and says
    // so when not even one block fits).
    (void)ranks, (void)sm_count, (void)blocks_per_sm;
    throw hpclab::NotImplemented("gmp::check_co_residency");
}

}  // namespace gmp
