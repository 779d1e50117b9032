// Lab LABNUM, stages 1 and 2: the launch geometry and the SAXPY kernel.
// Every TODO(student) below throws "not implemented" until you replace it.
#include "hpclab/cuda.hpp"
#include "hpclab/not_implemented.hpp"
#include "saxpy.hpp"

namespace LABNS {

std::size_t blocks_for(std::size_t n, unsigned block) {
    // TODO(student): n / block, rounded up.
    (void)n;
    (void)block;
    throw hpclab::NotImplemented("blocks_for");
}

// TODO(student): a __global__ kernel, one element per thread, that leaves
// y[i] alone for i >= n.

void saxpy(float a, const float* x, float* y, std::size_t n, unsigned block) {
    // TODO(student): launch your kernel with blocks_for(n, block) blocks
    // (none when n is 0), then HPCLAB_CUDA_CHECK_LAUNCH().
    (void)a;
    (void)x;
    (void)y;
    (void)n;
    (void)block;
    throw hpclab::NotImplemented("saxpy");
}

}  // namespace LABNS
