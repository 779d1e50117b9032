// Lab 09, stage 4c: the serial run and the pipeline over streams.
#include <vector>

#include "hpclab/cuda.hpp"
#include "hpclab/cuda_async.hpp"
#include "pipeline.hpp"

namespace lab09 {

void run_serial(const Buffers& b, int iterations) {
    const std::size_t bytes = b.n * sizeof(float);
    if (b.n == 0) return;
    HPCLAB_CUDA_CHECK(cudaMemcpy(b.dev_in, b.host_in, bytes, cudaMemcpyHostToDevice));
    launch_logistic(b.dev_in, b.dev_out, b.n, iterations, nullptr);
    HPCLAB_CUDA_CHECK(cudaMemcpy(b.host_out, b.dev_out, bytes, cudaMemcpyDeviceToHost));
}

void run_chunks(const Buffers& b, int iterations, const std::vector<Chunk>& chunks, int streams) {
    std::vector<hpclab::cuda::Stream> pool;
    pool.reserve(streams);
    for (int s = 0; s < streams; ++s) pool.emplace_back();
    // Chunks go round the streams in order: within a stream each chunk's
    // send, kernel and receive follow one another, and the streams let the
    // copy engines and the SMs work on different chunks at once. Each chunk
    // has its own slice of the device buffers, so no chunk overwrites
    // another's data however the streams interleave.
    for (std::size_t c = 0; c < chunks.size(); ++c) {
        const cudaStream_t s = pool[c % pool.size()];
        const std::size_t off = chunks[c].offset, count = chunks[c].size, bytes = count * sizeof(float);
        HPCLAB_CUDA_CHECK(cudaMemcpyAsync(b.dev_in + off, b.host_in + off, bytes, cudaMemcpyHostToDevice, s));
        launch_logistic(b.dev_in + off, b.dev_out + off, count, iterations, s);
        HPCLAB_CUDA_CHECK(cudaMemcpyAsync(b.host_out + off, b.dev_out + off, bytes, cudaMemcpyDeviceToHost, s));
    }
    for (const auto& s : pool) s.synchronize();
}

}  // namespace lab09
