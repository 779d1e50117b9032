// Lab 09, stage 4c: the serial run and the pipeline over streams.
#include "hpclab/cuda.hpp"
#include "hpclab/cuda_async.hpp"
#include "hpclab/not_implemented.hpp"
#include "pipeline.hpp"

namespace lab09 {

void run_serial(const Buffers& b, int iterations) {
    // TODO(student): one copy in, launch_logistic, one copy out.
    (void)b, (void)iterations;
    throw hpclab::NotImplemented("run_serial");
}

void run_chunks(const Buffers& b, int iterations, const std::vector<Chunk>& chunks, int streams) {
    // TODO(student): `streams` streams (hpclab::cuda::Stream); chunk c on
    // stream c % streams: cudaMemcpyAsync in, launch_logistic on the
    // chunk's slice, cudaMemcpyAsync out. Wait for every stream.
    (void)b, (void)iterations, (void)chunks, (void)streams;
    throw hpclab::NotImplemented("run_chunks");
}

}  // namespace lab09
