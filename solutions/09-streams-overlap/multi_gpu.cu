// Lab 09, stage 5: the pipeline over every GPU of the host.
#include <vector>

#include "hpclab/cuda.hpp"
#include "hpclab/cuda_async.hpp"
#include "pipeline.hpp"

namespace lab09 {

namespace {

// What one device holds for its part: buffers and streams made while that
// device is current (a stream belongs to the device current at creation).
struct DevicePart {
    int device = 0;
    Chunk part;
    hpclab::cuda::DeviceBuffer<float> in, out;
    std::vector<hpclab::cuda::Stream> streams;
};

}  // namespace

void run_devices(const float* host_in, float* host_out, std::size_t n, int iterations, int devices,
                 std::size_t chunks_per_device, int streams) {
    int previous = 0;
    HPCLAB_CUDA_CHECK(cudaGetDevice(&previous));
    const std::vector<Chunk> parts = equal_chunks(n, static_cast<std::size_t>(devices));
    std::vector<DevicePart> work(parts.size());
    try {
        // Everything is queued on every device before anything is waited
        // for, so that the devices run at once.
        for (int d = 0; d < devices; ++d) {
            DevicePart& w = work[d];
            w.device = d;
            w.part = parts[d];
            HPCLAB_CUDA_CHECK(cudaSetDevice(d));
            w.in = hpclab::cuda::DeviceBuffer<float>(w.part.size);
            w.out = hpclab::cuda::DeviceBuffer<float>(w.part.size);
            for (int s = 0; s < streams; ++s) w.streams.emplace_back();
            const std::vector<Chunk> chunks = equal_chunks(w.part.size, chunks_per_device);
            for (std::size_t c = 0; c < chunks.size(); ++c) {
                const cudaStream_t st = w.streams[c % w.streams.size()];
                const std::size_t local = chunks[c].offset, global = w.part.offset + local;
                const std::size_t count = chunks[c].size, bytes = count * sizeof(float);
                HPCLAB_CUDA_CHECK(
                    cudaMemcpyAsync(w.in.get() + local, host_in + global, bytes, cudaMemcpyHostToDevice, st));
                launch_logistic(w.in.get() + local, w.out.get() + local, count, iterations, st);
                HPCLAB_CUDA_CHECK(
                    cudaMemcpyAsync(host_out + global, w.out.get() + local, bytes, cudaMemcpyDeviceToHost, st));
            }
        }
        for (DevicePart& w : work) {
            HPCLAB_CUDA_CHECK(cudaSetDevice(w.device));
            for (const auto& s : w.streams) s.synchronize();
        }
    } catch (...) {
        cudaSetDevice(previous);
        throw;
    }
    // The buffers and streams of each device are released by their owners;
    // cudaFree and cudaStreamDestroy do not need their device to be current.
    HPCLAB_CUDA_CHECK(cudaSetDevice(previous));
}

}  // namespace lab09
