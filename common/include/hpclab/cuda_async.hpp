// RAII owners for the pieces of asynchronous CUDA work: pinned (page-locked)
// host memory, streams and events. Each releases what it owns on every path,
// including when a later call throws, and moves but never copies.
// Compiled only when the 'cuda' feature is on.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

#include "hpclab/cuda.hpp"

namespace hpclab {
namespace cuda {

// n elements of page-locked host memory from cudaHostAlloc. `flags` as
// cudaHostAlloc takes them (cudaHostAllocDefault, cudaHostAllocMapped,
// cudaHostAllocPortable...). A failure to pin is a CudaError naming the size,
// never a crash: pinning can fail where pageable memory would not.
template <class T>
class PinnedBuffer {
public:
    PinnedBuffer() = default;
    explicit PinnedBuffer(std::size_t n, unsigned flags = cudaHostAllocDefault) : n_(n) {
        if (n_ == 0) return;
        const cudaError_t err = cudaHostAlloc(reinterpret_cast<void**>(&ptr_), n_ * sizeof(T), flags);
        if (err != cudaSuccess) {
            cudaGetLastError();  // clear it: the next call must not see it
            ptr_ = nullptr;
            throw CudaError(err, "cannot pin " + std::to_string(n_ * sizeof(T)) +
                                     " bytes of host memory (cudaHostAlloc: " + cudaGetErrorString(err) + ")");
        }
    }
    ~PinnedBuffer() {
        if (ptr_) cudaFreeHost(ptr_);
    }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    PinnedBuffer(PinnedBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), n_(std::exchange(o.n_, 0)) {}
    PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
        if (this != &o) {
            if (ptr_) cudaFreeHost(ptr_);
            ptr_ = std::exchange(o.ptr_, nullptr);
            n_ = std::exchange(o.n_, 0);
        }
        return *this;
    }
    T* get() const { return ptr_; }
    T& operator[](std::size_t i) const { return ptr_[i]; }
    std::size_t size() const { return n_; }
    std::size_t bytes() const { return n_ * sizeof(T); }

private:
    T* ptr_ = nullptr;
    std::size_t n_ = 0;
};

// A stream (non-blocking by default: it does not synchronise with the
// legacy default stream, so that copies and kernels on several streams can
// overlap).
class Stream {
public:
    explicit Stream(unsigned flags = cudaStreamNonBlocking) {
        HPCLAB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, flags));
    }
    ~Stream() {
        if (stream_) cudaStreamDestroy(stream_);
    }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    Stream(Stream&& o) noexcept : stream_(std::exchange(o.stream_, nullptr)) {}
    Stream& operator=(Stream&& o) noexcept {
        if (this != &o) {
            if (stream_) cudaStreamDestroy(stream_);
            stream_ = std::exchange(o.stream_, nullptr);
        }
        return *this;
    }
    // A stream whose blocks the scheduler serves before those of streams with a
    // lower priority (lower numbers run first; 0 is the default): for short work
    // that others wait on, such as the boundary rows of a halo exchange.
    static Stream with_priority(int priority, unsigned flags = cudaStreamNonBlocking) {
        Stream s(nullptr);
        HPCLAB_CUDA_CHECK(cudaStreamCreateWithPriority(&s.stream_, flags, priority));
        return s;
    }
    // The device's highest (numerically least) stream priority.
    static int highest_priority() {
        int least = 0, greatest = 0;
        HPCLAB_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
        return greatest;
    }
    cudaStream_t get() const { return stream_; }
    operator cudaStream_t() const { return stream_; }
    void synchronize() const { HPCLAB_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

private:
    explicit Stream(std::nullptr_t) {}  // owns nothing yet: for with_priority
    cudaStream_t stream_ = nullptr;
};

// An event (timing on by default; cudaEventDisableTiming for one used only
// to order streams, which is cheaper).
class Event {
public:
    explicit Event(unsigned flags = cudaEventDefault) { HPCLAB_CUDA_CHECK(cudaEventCreateWithFlags(&event_, flags)); }
    ~Event() {
        if (event_) cudaEventDestroy(event_);
    }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    Event(Event&& o) noexcept : event_(std::exchange(o.event_, nullptr)) {}
    Event& operator=(Event&& o) noexcept {
        if (this != &o) {
            if (event_) cudaEventDestroy(event_);
            event_ = std::exchange(o.event_, nullptr);
        }
        return *this;
    }
    cudaEvent_t get() const { return event_; }
    operator cudaEvent_t() const { return event_; }
    void record(cudaStream_t stream) const { HPCLAB_CUDA_CHECK(cudaEventRecord(event_, stream)); }
    void synchronize() const { HPCLAB_CUDA_CHECK(cudaEventSynchronize(event_)); }
    // Seconds from `start` to this event (both recorded and complete).
    double seconds_since(const Event& start) const {
        float ms = 0;
        HPCLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, start.event_, event_));
        return ms * 1e-3;
    }

private:
    cudaEvent_t event_ = nullptr;
};

}  // namespace cuda
}  // namespace hpclab
