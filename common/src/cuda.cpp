// CUDA runtime helpers: errors, device facts, memory checks, event timing.
#include "hpclab/cuda.hpp"

#include <algorithm>
#include <vector>

#include "hpclab/cli_core.hpp"

#include <cstdio>
#include <sstream>

namespace hpclab {
namespace cuda {

void throw_error(cudaError_t code, const char* call, const char* file, int line) {
    std::ostringstream os;
    os << call << " failed at " << file << ":" << line << ": " << cudaGetErrorName(code) << ": "
       << cudaGetErrorString(code);
    throw CudaError(code, os.str());
}

bool gpu_available(std::string* reason) {
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        if (reason) *reason = std::string("no usable CUDA device (") + cudaGetErrorString(err) + ")";
        cudaGetLastError();  // clear the sticky-free error so later calls start clean
        return false;
    }
    if (count == 0) {
        if (reason) *reason = "no CUDA device found";
        return false;
    }
    return true;
}

// FP32 lanes per SM; from NVIDIA's CUDA C++ Programming Guide, "Arithmetic
// Instructions" throughput table (results per clock per SM for 32-bit
// floating-point add/multiply/FMA).
int fp32_cores_per_sm(int major, int minor) {
    switch (major * 10 + minor) {
        case 75: return 64;  // Turing
        case 80: return 64;  // A100
        case 86:
        case 87:
        case 89: return 128;  // GA10x, Orin, Ada
        case 90: return 128;  // Hopper
        case 100:
        case 101:
        case 103:
        case 110: return 128;  // Blackwell datacenter
        case 120:
        case 121: return 128;  // Blackwell consumer
        default: return 0;
    }
}

// FP64 lanes per SM (same table, 64-bit floating-point rows).
int fp64_cores_per_sm(int major, int minor) {
    switch (major * 10 + minor) {
        case 75: return 2;
        case 80: return 32;
        case 86:
        case 87:
        case 89: return 2;
        case 90: return 64;
        case 100:
        case 101:
        case 103:
        case 110: return 64;
        case 120:
        case 121: return 2;
        default: return 0;
    }
}

void require_gpu() {
    std::string reason;
    if (!gpu_available(&reason)) throw cli::Unavailable("needs a GPU: " + reason);
}

double measure_copy_gbps(std::size_t bytes, int reps) {
    require_device_memory(2 * bytes, "the copy-bandwidth anchor");
    DeviceBuffer<unsigned char> src(bytes), dst(bytes);
    src.zero();
    EventTimer timer;
    std::vector<double> seconds;
    for (int i = 0; i <= reps; ++i) {
        timer.start();
        HPCLAB_CUDA_CHECK(cudaMemcpy(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice));
        const double s = timer.stop();
        if (i > 0) seconds.push_back(s);  // the first run is the warm-up
    }
    std::sort(seconds.begin(), seconds.end());
    const double median = seconds[seconds.size() / 2];
    return 2.0 * static_cast<double>(bytes) / median / 1e9;  // read + write
}

DeviceInfo device_info(int device) {
    DeviceInfo d;
    d.device = device;
    cudaDeviceProp prop;
    HPCLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    d.name = prop.name;
    auto attr = [device](cudaDeviceAttr a) {
        int v = 0;
        HPCLAB_CUDA_CHECK(cudaDeviceGetAttribute(&v, a, device));
        return v;
    };
    d.cc_major = attr(cudaDevAttrComputeCapabilityMajor);
    d.cc_minor = attr(cudaDevAttrComputeCapabilityMinor);
    d.sm_count = attr(cudaDevAttrMultiProcessorCount);
    d.cores_per_sm = fp32_cores_per_sm(d.cc_major, d.cc_minor);
    d.fp64_per_sm = fp64_cores_per_sm(d.cc_major, d.cc_minor);
    d.clock_ghz = attr(cudaDevAttrClockRate) / 1e6;               // kHz -> GHz
    d.memory_clock_ghz = attr(cudaDevAttrMemoryClockRate) / 1e6;  // kHz -> GHz
    d.memory_bus_bits = attr(cudaDevAttrGlobalMemoryBusWidth);
    d.total_memory = prop.totalGlobalMem;
    d.l2_bytes = static_cast<std::size_t>(attr(cudaDevAttrL2CacheSize));
    d.max_threads_per_block = attr(cudaDevAttrMaxThreadsPerBlock);
    d.max_threads_per_sm = attr(cudaDevAttrMaxThreadsPerMultiProcessor);
    d.warp_size = attr(cudaDevAttrWarpSize);
    d.shared_per_block = static_cast<std::size_t>(attr(cudaDevAttrMaxSharedMemoryPerBlock));
    d.shared_per_sm = static_cast<std::size_t>(attr(cudaDevAttrMaxSharedMemoryPerMultiprocessor));
    d.registers_per_block = attr(cudaDevAttrMaxRegistersPerBlock);
    d.registers_per_sm = attr(cudaDevAttrMaxRegistersPerMultiprocessor);
    return d;
}

void memory_info(std::size_t* free_bytes, std::size_t* total_bytes) {
    HPCLAB_CUDA_CHECK(cudaMemGetInfo(free_bytes, total_bytes));
}

void require_device_memory(std::size_t bytes, const std::string& what) {
    std::size_t free_bytes = 0, total = 0;
    memory_info(&free_bytes, &total);
    if (bytes > free_bytes) {
        char buf[256];
        std::snprintf(buf, sizeof buf, "%s needs %.2f GiB of device memory; %.2f GiB of %.2f GiB are free",
                      what.c_str(), bytes / 1073741824.0, free_bytes / 1073741824.0, total / 1073741824.0);
        throw std::runtime_error(buf);
    }
}

EventTimer::EventTimer(cudaStream_t stream) : stream_(stream) {
    HPCLAB_CUDA_CHECK(cudaEventCreate(&begin_));
    HPCLAB_CUDA_CHECK(cudaEventCreate(&end_));
}

EventTimer::~EventTimer() {
    cudaEventDestroy(begin_);
    cudaEventDestroy(end_);
}

void EventTimer::start() { HPCLAB_CUDA_CHECK(cudaEventRecord(begin_, stream_)); }

double EventTimer::stop() {
    HPCLAB_CUDA_CHECK(cudaEventRecord(end_, stream_));
    HPCLAB_CUDA_CHECK(cudaEventSynchronize(end_));
    float ms = 0;
    HPCLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, begin_, end_));
    return ms / 1e3;
}

Stats time_events(const std::function<void()>& work, int warmup, int reps) {
    EventTimer timer;
    return repeat(
        [&] {
            timer.start();
            work();
            return timer.stop();
        },
        warmup, reps);
}

}  // namespace cuda
}  // namespace hpclab
