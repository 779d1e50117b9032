// Lab 05 stage 6d: the final kernel's FMAs on the CUDA cores, fed the Hopper
// way (final_tma in matmul.hpp): TMA copies into a ring of shared-memory
// stages, mbarriers instead of __syncthreads, one producer thread in its own
// warpgroup, and consumer warps that issue nothing but shared loads and FMAs.
#include <cstdint>

#include "hopper.cuh"
#include "hpclab/cuda.hpp"
#include "matmul.hpp"

namespace lab05 {
namespace {

namespace hw = hopper;

// A block owns a 128 x 256 tile of C. Per k step of 32 a 128 x 32 box of A
// (16 KB, one 128-byte row per row of A, swizzled) and a 32 x 256 box of B
// (32 KB, as it is) land in one of kStages stages. Warps 0-7 multiply: warp w
// takes rows 64 (w / 4) .. + 64 and columns 64 (w % 4) .. + 64; its lane is
// 8 rows x 4 columns of threads, and a thread owns 8 rows (ty, ty + 8, ...,
// ty + 56) by 16 columns (4 quads, 16 apart): 128 accumulators. Warps 8-11
// give their registers back; one of their threads issues the copies.
constexpr int kBM = kFinalTmaBM, kBN = kFinalTmaBN, kBK = 32, kStages = 4;
constexpr int kConsumerWarps = 8, kThreads = kConsumerWarps * 32 + 128;
constexpr int kTM = 8, kTN = 16;
constexpr int kAFloats = kBM * kBK, kBFloats = kBK * kBN;
constexpr std::uint32_t kStageBytes = (kAFloats + kBFloats) * sizeof(float);
// The 128-byte swizzle repeats every 8 rows of 128 bytes, so every A box
// starts on a 1024-byte boundary; the extra 1024 bytes let the kernel round
// its dynamic shared memory up to one.
constexpr std::size_t kShared = kStages * kStageBytes + 1024;
static_assert(kBK * sizeof(float) == 128, "a row of an A box is one swizzled 128-byte row");
static_assert(kAFloats * sizeof(float) % 1024 == 0 && kStageBytes % 1024 == 0, "A boxes on 1024-byte boundaries");
static_assert(kBM == 2 * 64 && kBN == 4 * 64 && kTM * 8 == 64 && kTN * 4 == 64, "8 warps of 64 x 64");
// Registers after setmaxnreg: 40 * 128 + 232 * 256 = 64512 <= 65536. The
// kernel is compiled for 384 threads, 168 registers each; without the
// consumers' raise ptxas spills their 128 accumulators and fragments, and
// the kernel ran at 0.65 of cuBLAS instead of 0.95 (H200, scratch bench).
constexpr std::uint32_t kProducerRegs = 40, kConsumerRegs = 232;

__device__ __forceinline__ float4 load4(const float* p) { return *reinterpret_cast<const float4*>(p); }
__device__ __forceinline__ float part(const float4& v, int i) {
    return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

__global__ void __launch_bounds__(kThreads, 1)
    final_tma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                     float* __restrict__ C, int n, int m, int p) {
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    // full[s]: stage s holds its copies (the producer's arrival plus the
    // bytes). empty[s]: every consumer warp is done reading it.
    __shared__ __align__(8) std::uint64_t full[kStages], empty[kStages];
    // Offset from the array itself, not through an integer address: the
    // compiler then still knows the pointers are shared memory and emits
    // shared loads. Rounded through an integer, the loads were generic and
    // the kernel ran at 0.82 of cuBLAS instead of 0.95 (H200, scratch bench).
    float* const stages = reinterpret_cast<float*>(smem_raw + ((1024 - (hw::smem_u32(smem_raw) & 1023u)) & 1023u));
    const int row0 = blockIdx.y * kBM, col0 = blockIdx.x * kBN;
    const int k_steps = (m + kBK - 1) / kBK;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) {
            hw::mbar_init(hw::smem_u32(&full[s]), 1);
            hw::mbar_init(hw::smem_u32(&empty[s]), kConsumerWarps);
        }
        hw::mbar_init_fence();
    }
    __syncthreads();

    if (warp >= kConsumerWarps) {
        hw::setmaxnreg_dec<kProducerRegs>();
        if (warp != kConsumerWarps || lane != 0) return;
        for (int kt = 0; kt < k_steps; ++kt) {
            const int s = kt % kStages;
            // Round r of a stage waits until the consumers have released round
            // r - 1 (the first round on parity 1 of a fresh barrier: at once).
            hw::mbar_wait(hw::smem_u32(&empty[s]), ((kt / kStages) & 1) ^ 1);
            const std::uint32_t bar = hw::smem_u32(&full[s]);
            const std::uint32_t a = hw::smem_u32(stages + s * (kAFloats + kBFloats));
            // Parts of a box outside the matrices arrive as zeros and count.
            hw::mbar_arrive_expect_tx(bar, kStageBytes);
            hw::tma_load(a, &map_a, bar, kt * kBK, row0);
            hw::tma_load(a + kAFloats * sizeof(float), &map_b, bar, col0, kt * kBK);
        }
        return;
    }

    hw::setmaxnreg_inc<kConsumerRegs>();
    const int ty = lane / 4, tx = lane % 4;
    const int wrow = (warp / 4) * 64, wcol = (warp % 4) * 64;
    float acc[kTM][kTN];
#pragma unroll
    for (int i = 0; i < kTM; ++i)
#pragma unroll
        for (int j = 0; j < kTN; ++j) acc[i][j] = 0.0f;

    for (int kt = 0; kt < k_steps; ++kt) {
        const int s = kt % kStages;
        hw::mbar_wait(hw::smem_u32(&full[s]), (kt / kStages) & 1);
        // This thread's rows of A are wrow + ty + 8 i: each is 8 rows after the
        // last, so row % 8 == ty, and chunk c of k sits at chunk c ^ ty. The 8
        // rows (ty) a warp reads at once then hit 8 different chunks: one
        // shared-memory wavefront.
        const float* As = stages + s * (kAFloats + kBFloats) + (wrow + ty) * kBK;
        const float* Bs = stages + s * (kAFloats + kBFloats) + kAFloats + wcol + tx * 4;
#pragma unroll
        for (int c = 0; c < kBK / 4; ++c) {
            float4 a[kTM];  // 4 k of each of the thread's rows
#pragma unroll
            for (int i = 0; i < kTM; ++i) a[i] = load4(As + i * 8 * kBK + ((c ^ ty) * 4));
#pragma unroll
            for (int kk = 0; kk < 4; ++kk) {
                float b[kTN];
#pragma unroll
                for (int q = 0; q < kTN / 4; ++q) {
                    const float4 v = load4(Bs + (c * 4 + kk) * kBN + q * 16);
                    b[4 * q] = v.x;
                    b[4 * q + 1] = v.y;
                    b[4 * q + 2] = v.z;
                    b[4 * q + 3] = v.w;
                }
#pragma unroll
                for (int i = 0; i < kTM; ++i) {
                    const float ai = part(a[i], kk);
#pragma unroll
                    for (int j = 0; j < kTN; ++j) acc[i][j] = fmaf(ai, b[j], acc[i][j]);
                }
            }
        }
        // Every lane's loads of this stage are done (their values are in
        // registers) before the warp lets the producer overwrite it.
        __syncwarp();
        if (lane == 0) hw::mbar_arrive(hw::smem_u32(&empty[s]));
    }

    // p is a multiple of 4 and every column quad starts at a multiple of 4:
    // a quad is wholly inside or outside the matrix.
#pragma unroll
    for (int i = 0; i < kTM; ++i) {
        const int r = row0 + wrow + ty + 8 * i;
        if (r >= n) continue;
#pragma unroll
        for (int q = 0; q < kTN / 4; ++q) {
            const int c = col0 + wcol + q * 16 + tx * 4;
            if (c < p)
                *reinterpret_cast<float4*>(C + static_cast<std::size_t>(r) * p + c) =
                    make_float4(acc[i][4 * q], acc[i][4 * q + 1], acc[i][4 * q + 2], acc[i][4 * q + 3]);
        }
    }
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

Launch final_tma(int n, int m, int p, const float* A, const float* B, float* C) {
    // TMA moves rows of a multiple of 16 bytes from 16-byte aligned bases.
    if (m % 4 != 0 || p % 4 != 0 || !aligned16(A) || !aligned16(B) || !aligned16(C))
        return Launchers<float>::final(n, m, p, A, B, C);
    const CUtensorMap map_a = hopper::f32_tile_map(A, n, m, kBK, kBM, true);   // boxes of 32 k x 128 rows
    const CUtensorMap map_b = hopper::f32_tile_map(B, m, p, kBN, kBK, false);  // boxes of 256 columns x 32 k
    HPCLAB_CUDA_CHECK(
        cudaFuncSetAttribute(final_tma_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kShared)));
    Launch l{reinterpret_cast<const void*>(&final_tma_kernel), dim3(blocks_for(p, kBN), blocks_for(n, kBM)),
             dim3(kThreads), kShared};
    final_tma_kernel<<<l.grid, l.block, l.dynamic_shared>>>(map_a, map_b, C, n, m, p);
    HPCLAB_CUDA_CHECK_LAUNCH();
    return l;
}

}  // namespace lab05
