// Lab 12, stage 2: point-to-point messages between the blocks of one grid.
// Every thread of the block calls each function with the same arguments and
// gets the same code back. See the handout, "Stage 2", for the protocol.
#pragma once

#include <cstdint>

#include "gmp_device.cuh"

namespace gmp {

// Sends `bytes` bytes at `buf` to rank `dest` with `tag`, typed `type`:
// eagerly, into a free slot of THIS rank's mailbox. Returns once the message
// sits there (the buffer may then be reused), or an error: kErrRank,
// kErrCount (more than a slot holds), kErrNoSpace (no slot came free before
// the deadline), kErrAborted. `f` names the call in a report.
__device__ inline int send_bytes(const Comm& c, const void* buf, std::uint64_t bytes, Datatype type, int dest, int tag,
                                 Func f = Func::send) {
    // TODO(student): warp 0 finds a free slot in this rank's mailbox
    // (acquire loads of the states; the deadline from deadline_from_now;
    // give up on aborted()); the block copies the payload (block_copy);
    // thread 0 writes the header and the next serial number; after a
    // __syncthreads(), thread 0 publishes the slot with a release store of
    // kFull. Errors through fail_one (one thread), the code to every thread.
    (void)buf, (void)bytes, (void)type, (void)dest, (void)tag;
    return not_implemented(c, f);
}

// Receives into `buf` (room for `capacity` bytes) the oldest message (the
// lowest serial number) from rank `source` to this rank with `tag`, which
// must have been sent as `type`. Sets *received (when not null; each
// thread passes its own) to its length. Errors: kErrRank, kErrTimeout,
// kErrType, kErrTruncate, kErrAborted.
__device__ inline int recv_bytes(const Comm& c, void* buf, std::uint64_t capacity, Datatype type, int source, int tag,
                                 std::uint64_t* received = nullptr, Func f = Func::recv) {
    // TODO(student): warp 0 scans the source's mailbox (acquire loads) for
    // full slots addressed to this rank with this tag and takes the lowest
    // serial; checks type and length; the block copies the payload out;
    // after a __syncthreads(), thread 0 frees the slot with a release store.
    (void)buf, (void)capacity, (void)type, (void)source, (void)tag, (void)received;
    return not_implemented(c, f);
}

}  // namespace gmp
