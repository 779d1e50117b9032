// Lab 05 stage 6: the product on the tensor cores (TcLaunchers in tensor.hpp).
// First nvcuda::wmma fragments (BF16 and TF32), then inline-PTX mma.sync with
// ldmatrix from swizzled shared tiles and cp.async multi-buffered copies (BF16).
// Every TODO(student) below throws "not implemented" until you replace it.
#include <mma.h>

#include <cstdint>

#include "hpclab/cuda.hpp"
#include "hpclab/not_implemented.hpp"
#include "tensor.hpp"

namespace lab05 {
namespace {

// Write your __global__ kernels here, each above the launcher that launches it.

}  // namespace

Launch TcLaunchers::wmma_bf16(int n, int m, int p, const bf16* A, const bf16* B, float* C) {
    // TODO(student): stage 6a, a wmma kernel: blocks of 4 warps computing 64 x 64
    // of C, each warp 2 x 2 accumulator fragments of 16 x 16 x 16; slices of A
    // (64 x 32) and B (32 x 64) staged in shared memory with zeros outside the
    // matrices; C written through shared memory, only where it lies inside.
    (void)n;
    (void)m;
    (void)p;
    (void)A;
    (void)B;
    (void)C;
    throw hpclab::NotImplemented("TcLaunchers::wmma_bf16");
}

Launch TcLaunchers::wmma_tf32(int n, int m, int p, const float* A, const float* B, float* C) {
    // TODO(student): stage 6a, the same kernel (a template on the element type)
    // with fragments of 16 x 16 x 8 in wmma::precision::tf32. Round every value
    // with wmma::__float_to_tf32 as you stage it: the tests expect round to nearest.
    (void)n;
    (void)m;
    (void)p;
    (void)A;
    (void)B;
    (void)C;
    throw hpclab::NotImplemented("TcLaunchers::wmma_tf32");
}

Launch TcLaunchers::mma_bf16(int n, int m, int p, const bf16* A, const bf16* B, float* C) {
    // TODO(student): stage 6b, mma.sync.aligned.m16n8k16 in inline PTX: blocks of
    // 8 warps computing 128 x 256 of C (a warp 64 x 64); slices of 64 along k
    // copied with cp.async (zero-filled outside) into 3 stages of XOR-swizzled
    // shared tiles; fragments read with ldmatrix (.trans for B). 144 KiB of
    // dynamic shared memory needs cudaFuncSetAttribute first. See the handout.
    (void)n;
    (void)m;
    (void)p;
    (void)A;
    (void)B;
    (void)C;
    throw hpclab::NotImplemented("TcLaunchers::mma_bf16");
}

}  // namespace lab05
