// Lab 12, stage 3: the barrier and the collectives, for any number of ranks
// (the thesis's reduction needed a power of two).
//
// The barrier is a dissemination barrier: in round k a rank signals rank
// + 2^k and waits for the signal of rank - 2^k; after ceil(log2 p) rounds
// every rank has heard, through a chain, from every other. Signals are
// counters that only grow (one increment per barrier), compared with this
// rank's own count of barriers, so no round ever needs resetting. A
// release increment and an acquire wait make each chain a happens-before
// chain: what a rank wrote before the barrier, every rank reads after it.
//
// bcast and reduce walk a binomial tree rooted at `root` (ceil(log2 p)
// steps, any p); gather and scatter are linear at the root (p - 1
// messages, which the root must handle one by one anyway).
#pragma once

#include <cstdint>

#include "gmp_device.cuh"
#include "p2p.cuh"

namespace gmp {

// The collectives' own tags: negative, so no user receive matches them.
constexpr int kTagBcast = -2;
constexpr int kTagReduce = -3;
constexpr int kTagGather = -4;
constexpr int kTagScatter = -5;

__device__ inline int barrier(const Comm& c) {
    const int p = comm_size(c);
    int code = kSuccess;
    __syncthreads();  // the block's writes come before thread 0's release
    if (threadIdx.x == 0) {
        const std::uint32_t e = ++c.w.epoch[c.rank];
        for (int k = 0, d = 1; d < p; ++k, d <<= 1) {
            const int to = (c.rank + d) % p, from = (c.rank - d + p) % p;
            device_ref<std::uint32_t>(*sync_word(c, to, k)).fetch_add(1u, cuda::memory_order_release);
            const std::uint64_t deadline = deadline_from_now(c);
            // Counters wrap after 2^32 barriers: compare by difference.
            while (static_cast<std::int32_t>(load_acquire(sync_word(c, c.rank, k)) - e) < 0) {
                if (aborted(c)) {
                    code = kErrAborted;
                    break;
                }
                if (global_nanoseconds() > deadline) {
                    code = fail_one(c, kErrTimeout, Func::barrier, from, kNoTag);
                    break;
                }
            }
            if (code != kSuccess) break;
        }
    }
    return block_agree(code);
}

namespace detail {

__device__ inline int check_root(const Comm& c, int root, Func f, int tag) {
    if (root < 0 || root >= comm_size(c)) return refuse(c, kErrRank, f, root, tag);
    return kSuccess;
}

template <class T>
__device__ inline T combine(Op op, T a, T b) {
    switch (op) {
        case Op::max: return a < b ? b : a;
        case Op::min: return b < a ? b : a;
        default: return a + b;
    }
}

}  // namespace detail

// Every rank ends with root's `count` values in `buf`.
template <class T>
__device__ int bcast(const Comm& c, T* buf, int count, int root) {
    if (int e = detail::check_root(c, root, Func::bcast, kTagBcast)) return e;
    if (count < 0) return detail::refuse(c, kErrCount, Func::bcast, root, kTagBcast);
    const int p = comm_size(c);
    const int rel = (c.rank - root + p) % p;
    const std::uint64_t bytes = static_cast<std::uint64_t>(count) * sizeof(T);
    int mask = 1;
    for (; mask < p; mask <<= 1) {
        if (rel & mask) {
            const int from = (rel - mask + root) % p;
            if (int e = recv_bytes(c, buf, bytes, TypeOf<T>::value, from, kTagBcast, nullptr, Func::bcast)) return e;
            break;
        }
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (rel + mask < p) {
            const int to = (rel + mask + root) % p;
            if (int e = send_bytes(c, buf, bytes, TypeOf<T>::value, to, kTagBcast, Func::bcast)) return e;
        }
    }
    return kSuccess;
}

// `out` at root (count values) is `op` over every rank's `in`; `out` is
// not touched elsewhere. in and out must not overlap.
template <class T>
__device__ int reduce(const Comm& c, const T* in, T* out, int count, Op op, int root) {
    if (int e = detail::check_root(c, root, Func::reduce, kTagReduce)) return e;
    if (op != Op::sum && op != Op::max && op != Op::min)
        return detail::refuse(c, kErrOp, Func::reduce, root, kTagReduce);
    const std::uint64_t bytes = static_cast<std::uint64_t>(count) * sizeof(T);
    if (count < 0 || bytes > c.w.max_bytes) return detail::refuse(c, kErrCount, Func::reduce, root, kTagReduce);
    const int p = comm_size(c);
    const int rel = (c.rank - root + p) % p;
    T* acc = reinterpret_cast<T*>(scratch(c, 0));
    T* incoming = reinterpret_cast<T*>(scratch(c, 1));
    for (int i = threadIdx.x; i < count; i += blockDim.x) acc[i] = in[i];
    __syncthreads();
    for (int mask = 1; mask < p; mask <<= 1) {
        if (rel & mask) {
            const int to = ((rel & ~mask) + root) % p;
            return send_bytes(c, acc, bytes, TypeOf<T>::value, to, kTagReduce, Func::reduce);
        }
        if ((rel | mask) < p) {
            const int from = ((rel | mask) + root) % p;
            if (int e = recv_bytes(c, incoming, bytes, TypeOf<T>::value, from, kTagReduce, nullptr, Func::reduce))
                return e;
            for (int i = threadIdx.x; i < count; i += blockDim.x) acc[i] = detail::combine(op, acc[i], incoming[i]);
            __syncthreads();
        }
    }
    // Only the root gets here.
    for (int i = threadIdx.x; i < count; i += blockDim.x) out[i] = acc[i];
    __syncthreads();
    return kSuccess;
}

// Every rank's `out` is `op` over every rank's `in`.
template <class T>
__device__ int allreduce(const Comm& c, const T* in, T* out, int count, Op op) {
    if (int e = reduce(c, in, out, count, op, 0)) return e;
    return bcast(c, out, count, 0);
}

// At root, out[r * count ...] holds rank r's `count` values of `in`.
template <class T>
__device__ int gather(const Comm& c, const T* in, int count, T* out, int root) {
    if (int e = detail::check_root(c, root, Func::gather, kTagGather)) return e;
    if (count < 0) return detail::refuse(c, kErrCount, Func::gather, root, kTagGather);
    const std::uint64_t bytes = static_cast<std::uint64_t>(count) * sizeof(T);
    if (c.rank != root) return send_bytes(c, in, bytes, TypeOf<T>::value, root, kTagGather, Func::gather);
    for (int i = threadIdx.x; i < count; i += blockDim.x) out[static_cast<std::int64_t>(root) * count + i] = in[i];
    for (int r = 0; r < comm_size(c); ++r) {
        if (r == root) continue;
        if (int e = recv_bytes(c, out + static_cast<std::int64_t>(r) * count, bytes, TypeOf<T>::value, r, kTagGather,
                               nullptr, Func::gather))
            return e;
    }
    __syncthreads();
    return kSuccess;
}

// Rank r's `out` gets root's in[r * count ...] (count values).
template <class T>
__device__ int scatter(const Comm& c, const T* in, int count, T* out, int root) {
    if (int e = detail::check_root(c, root, Func::scatter, kTagScatter)) return e;
    if (count < 0) return detail::refuse(c, kErrCount, Func::scatter, root, kTagScatter);
    const std::uint64_t bytes = static_cast<std::uint64_t>(count) * sizeof(T);
    if (c.rank != root) return recv_bytes(c, out, bytes, TypeOf<T>::value, root, kTagScatter, nullptr, Func::scatter);
    for (int r = 0; r < comm_size(c); ++r) {
        if (r == root) continue;
        if (int e = send_bytes(c, in + static_cast<std::int64_t>(r) * count, bytes, TypeOf<T>::value, r, kTagScatter,
                               Func::scatter))
            return e;
    }
    for (int i = threadIdx.x; i < count; i += blockDim.x) out[i] = in[static_cast<std::int64_t>(root) * count + i];
    __syncthreads();
    return kSuccess;
}

}  // namespace gmp
