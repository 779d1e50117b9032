// CUDA helpers: error checks that throw with file, line and message; device
// information from cudaDeviceGetAttribute (CUDA 13 removed the clock fields
// of cudaDeviceProp); an RAII device buffer; CUDA-event timing.
// Compiled only when the 'cuda' feature is on.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>

#include "hpclab/bench.hpp"

namespace hpclab {
namespace cuda {

class CudaError : public std::runtime_error {
public:
    CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
    cudaError_t code() const { return code_; }

private:
    cudaError_t code_;
};

// "<call> failed at file:line: <cudaGetErrorName>: <cudaGetErrorString>"
[[noreturn]] void throw_error(cudaError_t code, const char* call, const char* file, int line);

}  // namespace cuda
}  // namespace hpclab

// Check a CUDA runtime call; throw hpclab::cuda::CudaError on failure.
#define HPCLAB_CUDA_CHECK(call)                                                                              \
    do {                                                                                                     \
        cudaError_t hpclab_err_ = (call);                                                                    \
        if (hpclab_err_ != cudaSuccess) ::hpclab::cuda::throw_error(hpclab_err_, #call, __FILE__, __LINE__); \
    } while (0)

// After every kernel launch: a bad configuration (e.g. 2048 threads per
// block) is reported here, not silently ignored.
#define HPCLAB_CUDA_CHECK_LAUNCH() HPCLAB_CUDA_CHECK(cudaGetLastError())

namespace hpclab {
namespace cuda {

// Is a usable GPU present? If not, `reason` says why (no driver, no device...).
bool gpu_available(std::string* reason = nullptr);

// Throw hpclab::cli::Unavailable ("needs a GPU: <reason>") when no GPU is
// usable; drivers call this first, so they exit 77 (skipped) without one.
void require_gpu();

// The bandwidth anchor of memory-bound labs: a device-to-device cudaMemcpy
// of `bytes` (read + write counted: 2 * bytes moved), median of `reps` runs
// after a warm-up, in GB/s. Use working sets well beyond L2 (>= 256 MiB).
double measure_copy_gbps(std::size_t bytes, int reps = 10);

struct DeviceInfo {
    int device = 0;
    std::string name;
    int cc_major = 0, cc_minor = 0;
    int sm_count = 0;
    int cores_per_sm = 0;          // FP32 lanes per SM (see fp32_cores_per_sm)
    int fp64_per_sm = 0;           // FP64 lanes per SM
    double clock_ghz = 0;          // SM clock (cudaDevAttrClockRate)
    double memory_clock_ghz = 0;   // cudaDevAttrMemoryClockRate
    int memory_bus_bits = 0;       // cudaDevAttrGlobalMemoryBusWidth
    std::size_t total_memory = 0;  // bytes
    std::size_t l2_bytes = 0;
    int max_threads_per_block = 0;
    int max_threads_per_sm = 0;
    int warp_size = 0;
    std::size_t shared_per_block = 0;
    std::size_t shared_per_sm = 0;
    int registers_per_block = 0;
    int registers_per_sm = 0;

    // 2 flops (one FMA) per lane per clock.
    double peak_fp32_gflops() const { return 2.0 * sm_count * cores_per_sm * clock_ghz; }
    double peak_fp64_gflops() const { return 2.0 * sm_count * fp64_per_sm * clock_ghz; }
    // DDR: two transfers per memory clock; bus width in bytes.
    double peak_bandwidth_gbps() const { return 2.0 * memory_clock_ghz * memory_bus_bits / 8.0; }
};

// FP32 and FP64 lanes per SM by compute capability (7.5 to 12.x); 0 for an
// unknown capability. The one table of this in the repository.
int fp32_cores_per_sm(int major, int minor);
int fp64_cores_per_sm(int major, int minor);

DeviceInfo device_info(int device = 0);

// Free and total device memory, in bytes.
void memory_info(std::size_t* free_bytes, std::size_t* total_bytes);

// Owns n elements of device memory; moves, never copies.
template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t n) : n_(n) {
        if (n_ > 0) HPCLAB_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), n_ * sizeof(T)));
    }
    ~DeviceBuffer() {
        if (ptr_) cudaFree(ptr_);
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), n_(o.n_) {
        o.ptr_ = nullptr;
        o.n_ = 0;
    }
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        if (this != &o) {
            if (ptr_) cudaFree(ptr_);
            ptr_ = o.ptr_;
            n_ = o.n_;
            o.ptr_ = nullptr;
            o.n_ = 0;
        }
        return *this;
    }
    T* get() const { return ptr_; }
    std::size_t size() const { return n_; }
    std::size_t bytes() const { return n_ * sizeof(T); }

    void copy_from_host(const T* host, std::size_t n) {
        check_size(n);
        if (n) HPCLAB_CUDA_CHECK(cudaMemcpy(ptr_, host, n * sizeof(T), cudaMemcpyHostToDevice));
    }
    void copy_to_host(T* host, std::size_t n) const {
        check_size(n);
        if (n) HPCLAB_CUDA_CHECK(cudaMemcpy(host, ptr_, n * sizeof(T), cudaMemcpyDeviceToHost));
    }
    void zero() {
        if (n_) HPCLAB_CUDA_CHECK(cudaMemset(ptr_, 0, bytes()));
    }

private:
    void check_size(std::size_t n) const {
        if (n > n_)
            throw std::length_error("DeviceBuffer: copy of " + std::to_string(n) + " elements into a buffer of " +
                                    std::to_string(n_));
    }
    T* ptr_ = nullptr;
    std::size_t n_ = 0;
};

// Times GPU work between start() and stop() with CUDA events on a stream.
class EventTimer {
public:
    explicit EventTimer(cudaStream_t stream = nullptr);
    ~EventTimer();
    EventTimer(const EventTimer&) = delete;
    EventTimer& operator=(const EventTimer&) = delete;
    void start();
    // Records the stop event, waits for it, returns seconds since start().
    double stop();

private:
    cudaStream_t stream_;
    cudaEvent_t begin_ = nullptr, end_ = nullptr;
};

// Times `work` (GPU work on the default stream) with CUDA events: `warmup`
// untimed runs, then `reps` timed ones; the summary of their seconds.
Stats time_events(const std::function<void()>& work, int warmup, int reps);

// Check that `bytes` can be allocated on the device before trying; throws
// std::runtime_error with sizes in GiB otherwise.
void require_device_memory(std::size_t bytes, const std::string& what);

}  // namespace cuda
}  // namespace hpclab
