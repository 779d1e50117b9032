// Lab 05 stage 6c: the product on Hopper's asynchronous tensor-core path
// (TcLaunchers::wgmma_bf16 in tensor.hpp): TMA copies into a ring of swizzled
// shared-memory stages, wgmma reading them directly, one producer warpgroup
// and consumer warpgroups. Hopper only; the tests skip it on other GPUs.
// Every TODO(student) below throws "not implemented" until you replace it.
#include <cstdint>

#include "hopper.cuh"
#include "hpclab/cuda.hpp"
#include "hpclab/not_implemented.hpp"
#include "tensor.hpp"

namespace lab05 {
namespace {

// Write your __global__ kernel here, with the wrappers of hopper.cuh. One
// plan (the handout, stage 6c, explains each step):
//  - a block of 3 warpgroups (384 threads, __launch_bounds__(384, 1)) owns a
//    128 x 256 tile of C at a time, tiles taken in a grouped order, the grid
//    one block per SM (persistent);
//  - per k step of 64: a 128 x 64 box of A and four 64 x 64 boxes of B
//    (hopper::bf16_tile_map, 128-byte swizzle) land in one of 4 stages of
//    dynamic shared memory, each box on a 1024-byte boundary;
//  - mbarriers: full[s] (the producer's arrive_expect_tx plus the copies'
//    bytes) and empty[s] (one arrival per consumer warp once it is done);
//  - warpgroup 0 (setmaxnreg_dec): one thread issues the copies;
//    warpgroups 1 and 2 (setmaxnreg_inc): 64 rows each, one
//    wgmma_m64n256k16_bf16 per 16 of k, with descriptors from
//    smem_desc_sw128 (A K-major, B MN-major: the offsets differ);
//  - keep one wgmma group in flight (wgmma_wait<1>), release a stage only
//    after its group is done, then write C from the accumulators, only
//    inside n x p.

}  // namespace

Launch TcLaunchers::wgmma_bf16(int n, int m, int p, const bf16* A, const bf16* B, float* C) {
    // TODO(student): stage 6c. Build the two tile maps, raise the kernel's
    // dynamic shared memory limit (cudaFuncSetAttribute), launch, then
    // HPCLAB_CUDA_CHECK_LAUNCH(), and return what you launched.
    (void)n;
    (void)m;
    (void)p;
    (void)A;
    (void)B;
    (void)C;
    throw hpclab::NotImplemented("TcLaunchers::wgmma_bf16");
}

}  // namespace lab05
