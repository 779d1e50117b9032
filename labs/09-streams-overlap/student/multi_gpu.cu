// Lab 09, stage 5: the pipeline over every GPU of the host.
#include "hpclab/cuda.hpp"
#include "hpclab/cuda_async.hpp"
#include "hpclab/not_implemented.hpp"
#include "pipeline.hpp"

namespace lab09 {

void run_devices(const float* host_in, float* host_out, std::size_t n, int iterations, int devices,
                 std::size_t chunks_per_device, int streams) {
    // TODO(student): split [0, n) over the devices; on each (cudaSetDevice)
    // its own device buffers and streams, its part pipelined in chunks.
    // Queue the work of every device before waiting for any; restore the
    // current device before returning.
    (void)host_in, (void)host_out, (void)n, (void)iterations, (void)devices, (void)chunks_per_device, (void)streams;
    throw hpclab::NotImplemented("run_devices");
}

}  // namespace lab09
