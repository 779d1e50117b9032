// Lab 05 stage 6d: the final kernel's FMAs on the CUDA cores, fed the Hopper
// way (final_tma in matmul.hpp): TMA copies into a ring of shared-memory
// stages, mbarriers instead of __syncthreads, a producer warpgroup, and
// consumer warps that only load from shared memory and multiply. Hopper
// only; the tests skip it on other GPUs.
// Every TODO(student) below throws "not implemented" until you replace it.
#include "hopper.cuh"
#include "hpclab/cuda.hpp"
#include "hpclab/not_implemented.hpp"
#include "matmul.hpp"

namespace lab05 {
namespace {

// Write your __global__ kernel here, with the wrappers of hopper.cuh. One
// plan (the handout, stage 6d, explains each step):
//  - a block of 384 threads (__launch_bounds__(384, 1)) computes a
//    kFinalTmaBM x kFinalTmaBN = 128 x 256 tile of C; warps 0-7 multiply
//    (64 x 64 each, 8 x 16 outputs per thread), warps 8-11 give their
//    registers back (setmaxnreg_dec) and one of their threads copies;
//  - per k step of 32: a 128 x 32 box of A (hopper::f32_tile_map with the
//    128-byte swizzle: read chunk c of a row r at chunk c ^ (r % 8)) and a
//    32 x 256 box of B (no swizzle) land in one of 4 stages of dynamic shared
//    memory, each stage on a 1024-byte boundary;
//  - mbarriers full[s] (the producer's arrive_expect_tx plus the bytes) and
//    empty[s] (one arrival per consumer warp once it has read the stage);
//  - keep the shared-memory pointers derived from the extern __shared__
//    array, so that the compiler emits shared (not generic) loads;
//  - write C only inside n x p.

}  // namespace

Launch final_tma(int n, int m, int p, const float* A, const float* B, float* C) {
    // TODO(student): stage 6d. For m or p not a multiple of 4, or arrays not
    // 16-byte aligned, return Launchers<float>::final(...). Otherwise build
    // the two tile maps, raise the kernel's dynamic shared memory limit
    // (cudaFuncSetAttribute), launch, HPCLAB_CUDA_CHECK_LAUNCH(), and return
    // what you launched.
    (void)n;
    (void)m;
    (void)p;
    (void)A;
    (void)B;
    (void)C;
    throw hpclab::NotImplemented("final_tma");
}

}  // namespace lab05
