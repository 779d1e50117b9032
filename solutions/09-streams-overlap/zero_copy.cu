// Lab 09, stage 2: a kernel that reads and writes mapped pinned host memory.
#include "hpclab/cuda.hpp"
#include "pipeline.hpp"

namespace lab09 {

void gather_mapped(const float* host_in, float* host_out, std::size_t n, int reads) {
    if (n == 0) return;
    // The device's addresses of the mapped buffers (equal to the host's
    // under unified addressing, but only the runtime may say so).
    void* in = nullptr;
    void* out = nullptr;
    HPCLAB_CUDA_CHECK(cudaHostGetDevicePointer(&in, const_cast<float*>(host_in), 0));
    HPCLAB_CUDA_CHECK(cudaHostGetDevicePointer(&out, host_out, 0));
    launch_gather(static_cast<const float*>(in), static_cast<float*>(out), n, reads, nullptr);
    // The results are in host memory only once the kernel is done.
    HPCLAB_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace lab09
