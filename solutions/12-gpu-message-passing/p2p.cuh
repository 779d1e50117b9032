// Lab 12, stage 2: point-to-point messages. Eager sends into the sender's
// own mailbox; a receive scans the sender's mailbox for the oldest message
// to it with the tag (lowest serial number), so messages between one pair
// with one tag never overtake each other. Warp 0 of the block does the
// scanning and the handshakes; the whole block copies the payload.
//
// Ordering (the CUDA memory model, not `volatile`): the sender's payload
// and header writes come before its release store of kFull; the receiver's
// acquire load that sees kFull makes them visible, and __syncthreads()
// carries that to the rest of its block. The receiver's copy-out comes
// before its release store of kFree, which the sender's acquire load sees
// before it writes the slot again.
#pragma once

#include <cstdint>

#include "gmp_device.cuh"

namespace gmp {

namespace detail {

// Warp 0's verdict while it waits: aborted, past the deadline, or go on.
// Lane 0 decides and every lane gets the answer.
__device__ inline int wait_verdict(const Comm& c, std::uint64_t deadline, int timeout_code) {
    int v = kSuccess;
    if ((threadIdx.x & 31) == 0)
        v = aborted(c) ? kErrAborted : (global_nanoseconds() > deadline ? timeout_code : kSuccess);
    return __shfl_sync(0xffffffffu, v, 0);
}

// A call's failure found before any waiting: recorded once, seen by all.
__device__ inline int refuse(const Comm& c, int code, Func f, int peer, int tag) {
    if (threadIdx.x == 0) fail_one(c, code, f, peer, tag);
    __syncthreads();
    return code;
}

}  // namespace detail

// Sends `bytes` bytes at `buf` (any device memory; every thread of the
// block calls it with the same arguments) to rank `dest` with `tag`, typed
// `type`. Returns once the message sits in this rank's mailbox (the buffer
// may then be reused), or an error: kErrRank, kErrCount (more than a slot
// holds), kErrNoSpace (the mailbox stayed full until the deadline),
// kErrAborted. `f` names the call in a report (collectives pass their own).
__device__ inline int send_bytes(const Comm& c, const void* buf, std::uint64_t bytes, Datatype type, int dest, int tag,
                                 Func f = Func::send) {
    if (dest < 0 || dest >= comm_size(c)) return detail::refuse(c, kErrRank, f, dest, tag);
    if (bytes > c.w.max_bytes) return detail::refuse(c, kErrCount, f, dest, tag);
    __shared__ int chosen, code;
    __syncthreads();  // earlier readers of chosen/code are done
    if (threadIdx.x < 32) {
        const int lane = threadIdx.x;
        const std::uint64_t deadline = deadline_from_now(c);
        int slot = -1, verdict = kSuccess;
        for (;;) {
            const bool free_slot = lane < c.w.slots && load_acquire(&slot_header(c, c.rank, lane)->state) == kFree;
            const unsigned mask = __ballot_sync(0xffffffffu, free_slot);
            if (mask != 0) {
                slot = __ffs(mask) - 1;
                break;
            }
            verdict = detail::wait_verdict(c, deadline, kErrNoSpace);
            if (verdict != kSuccess) break;
        }
        if (lane == 0) {
            chosen = slot;
            code = verdict;
            if (verdict != kSuccess) fail_one(c, verdict, f, dest, tag);
        }
    }
    __syncthreads();
    if (code != kSuccess) return code;
    SlotHeader* h = slot_header(c, c.rank, chosen);
    block_copy(slot_payload(c, c.rank, chosen), buf, bytes);
    if (threadIdx.x == 0) {
        h->dest = dest;
        h->tag = tag;
        h->type = static_cast<int>(type);
        h->bytes = bytes;
        h->serial = c.w.serial[c.rank]++;  // only this thread of this rank writes it
    }
    __syncthreads();  // every thread's payload writes come before the release
    if (threadIdx.x == 0) store_release(&h->state, kFull);
    return kSuccess;
}

// Receives into `buf` (room for `capacity` bytes) the oldest message from
// rank `source` to this rank with `tag`, which must have been sent as
// `type`. Sets *received (when not null; each thread passes its own, a
// local variable) to its length. Errors: kErrRank,
// kErrTimeout (nothing matching before the deadline), kErrType, kErrTruncate
// (longer than capacity), kErrAborted.
__device__ inline int recv_bytes(const Comm& c, void* buf, std::uint64_t capacity, Datatype type, int source, int tag,
                                 std::uint64_t* received = nullptr, Func f = Func::recv) {
    if (source < 0 || source >= comm_size(c)) return detail::refuse(c, kErrRank, f, source, tag);
    __shared__ int chosen, code;
    __shared__ std::uint64_t length;
    __syncthreads();
    if (threadIdx.x < 32) {
        const int lane = threadIdx.x;
        const std::uint64_t deadline = deadline_from_now(c);
        int slot = -1, verdict = kSuccess;
        for (;;) {
            std::uint64_t serial = ~std::uint64_t(0);
            if (lane < c.w.slots) {
                const SlotHeader* h = slot_header(c, source, lane);
                if (load_acquire(&const_cast<SlotHeader*>(h)->state) == kFull && h->dest == c.rank && h->tag == tag)
                    serial = h->serial;
            }
            // The lowest serial number among the matches, and its lane.
            std::uint64_t best = serial;
            for (int off = 16; off > 0; off >>= 1) {
                const std::uint64_t other = __shfl_xor_sync(0xffffffffu, best, off);
                best = other < best ? other : best;
            }
            if (best != ~std::uint64_t(0)) {
                slot = __ffs(__ballot_sync(0xffffffffu, serial == best)) - 1;
                break;
            }
            verdict = detail::wait_verdict(c, deadline, kErrTimeout);
            if (verdict != kSuccess) break;
        }
        if (lane == 0) {
            if (verdict == kSuccess) {
                const SlotHeader* h = slot_header(c, source, slot);
                length = h->bytes;
                if (h->type != static_cast<int>(type))
                    verdict = kErrType;
                else if (h->bytes > capacity)
                    verdict = kErrTruncate;
            }
            chosen = slot;
            code = verdict;
            if (verdict != kSuccess) fail_one(c, verdict, f, source, tag);
        }
    }
    __syncthreads();
    if (code != kSuccess) return code;
    block_copy(buf, slot_payload(c, source, chosen), length);
    if (received != nullptr) *received = length;
    __syncthreads();  // the whole payload is copied out before the slot is freed
    if (threadIdx.x == 0) store_release(&slot_header(c, source, chosen)->state, kFree);
    return kSuccess;
}

}  // namespace gmp
