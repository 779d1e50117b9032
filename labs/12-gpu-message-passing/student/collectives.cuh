// Lab 12, stage 3: the barrier and the collectives, for ANY number of ranks
// and any root. Every thread of every rank calls them with the same
// arguments. See the handout, "Stage 3".
#pragma once

#include <cstdint>

#include "gmp_device.cuh"
#include "p2p.cuh"

namespace gmp {

// Returns when every rank has called it; what any rank wrote before it is
// visible to every rank after it. A rank that never comes: kErrTimeout,
// naming a rank this one waited for. Use the sync words (sync_word) and
// this rank's count (c.w.epoch[c.rank]), with release/acquire atomics.
__device__ inline int barrier(const Comm& c) {
    // TODO(student)
    return not_implemented(c, Func::barrier);
}

// Every rank ends with root's `count` values in `buf`.
template <class T>
__device__ int bcast(const Comm& c, T* buf, int count, int root) {
    // TODO(student): a tree of send_bytes/recv_bytes with a negative tag.
    (void)buf, (void)count, (void)root;
    return not_implemented(c, Func::bcast);
}

// `out` at root (count values) is `op` over every rank's `in`; `out` is not
// touched elsewhere. Scratch: scratch(c, 0) and scratch(c, 1).
template <class T>
__device__ int reduce(const Comm& c, const T* in, T* out, int count, Op op, int root) {
    // TODO(student)
    (void)in, (void)out, (void)count, (void)op, (void)root;
    return not_implemented(c, Func::reduce);
}

// Every rank's `out` is `op` over every rank's `in`.
template <class T>
__device__ int allreduce(const Comm& c, const T* in, T* out, int count, Op op) {
    // TODO(student)
    (void)in, (void)out, (void)count, (void)op;
    return not_implemented(c, Func::allreduce);
}

// At root, out[r * count ...] holds rank r's `count` values of `in`.
template <class T>
__device__ int gather(const Comm& c, const T* in, int count, T* out, int root) {
    // TODO(student)
    (void)in, (void)count, (void)out, (void)root;
    return not_implemented(c, Func::gather);
}

// Rank r's `out` gets root's in[r * count ...] (count values).
template <class T>
__device__ int scatter(const Comm& c, const T* in, int count, T* out, int root) {
    // TODO(student)
    (void)in, (void)count, (void)out, (void)root;
    return not_implemented(c, Func::scatter);
}

}  // namespace gmp
