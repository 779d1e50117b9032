// Lab 05 stage 6c: the product on Hopper's asynchronous tensor-core path
// (TcLaunchers::wgmma_bf16 in tensor.hpp): TMA copies into a ring of swizzled
// shared-memory stages, wgmma reading them directly, one producer warpgroup
// and two consumer warpgroups, a persistent grid.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "hopper.cuh"
#include "hpclab/cuda.hpp"
#include "tensor.hpp"

namespace lab05 {
namespace {

namespace hw = hopper;

// A block owns a 128 x 256 tile of C at a time. Each k step of 64 brings a
// 128 x 64 box of A (16 KB) and four 64 x 64 boxes of B (32 KB) into one of
// kStages stages. Warpgroup 0 copies; warpgroups 1 and 2 each multiply 64
// rows of the tile by all 256 columns (one m64n256k16 wgmma per 16 of k,
// 128 FP32 accumulators per thread).
constexpr int kBM = 128, kBN = 256, kBK = 64, kStages = 4, kConsumers = 2;
constexpr int kThreads = 128 * (kConsumers + 1);
constexpr int kBBoxes = kBN / hw::kBoxCols;
constexpr std::uint32_t kABytes = kBM * kBK * 2, kBBoxBytes = hw::kBoxCols * kBK * 2;
constexpr std::uint32_t kStageBytes = kABytes + kBBoxes * kBBoxBytes;
// The 128-byte swizzle repeats every 8 rows of 128 bytes: a box must start on
// a 1024-byte boundary, and the kernel rounds its dynamic shared memory up to
// one, hence the extra 1024 bytes.
constexpr std::size_t kShared = kStages * kStageBytes + 1024;
// Tiles are taken in groups of kGroupM rows of tiles, column by column, so
// that the tiles in flight at one time share their rows of A and columns of B in L2.
constexpr int kGroupM = 16;
static_assert(kABytes % 1024 == 0 && kStageBytes % 1024 == 0, "every box on a 1024-byte boundary");
static_assert(kBK * 2 == 128, "a k step is one 128-byte swizzled row");

// Register budgets after setmaxnreg: the producer needs few, the consumers
// their 128 accumulators and more. 40 * 128 + 232 * 256 = 64512 <= 65536,
// the register file, for the one block per SM.
constexpr std::uint32_t kProducerRegs = 40, kConsumerRegs = 232;

// Tile t of the grouped order (see kGroupM): its row and column of tiles.
__device__ __forceinline__ void tile_of(int t, int tiles_m, int tiles_n, int& tm, int& tn) {
    const int per_group = kGroupM * tiles_n;
    const int first = t / per_group * kGroupM;
    const int rows = min(tiles_m - first, kGroupM);
    const int r = t % per_group;
    tm = first + r % rows;
    tn = r / rows;
}

// Shared-memory descriptors for the 128-byte swizzle (PTX ISA, "Matrix
// Descriptor Format", canonical layouts):
//  A, K-major: a box row is one row of A (64 k, 128 bytes); the swizzle atom
//  is 8 such rows (1024 bytes), and the next 8 rows follow 1024 bytes on:
//  stride offset 1024. The leading offset is unused for a swizzled K-major
//  operand. A step of 16 along k moves 32 bytes inside the row.
//  B, MN-major (n contiguous, the wgmma's trans-b): a box row is 64 n of one
//  k; 8 rows of k form the 1024-byte atom (stride offset 1024), and the next
//  64 n are in the next box, 8192 bytes on (leading offset). A step of 16
//  along k is 16 rows: 2048 bytes.
__device__ __forceinline__ std::uint64_t desc_a(std::uint32_t addr) { return hw::smem_desc_sw128(addr, 16, 1024); }
__device__ __forceinline__ std::uint64_t desc_b(std::uint32_t addr) {
    return hw::smem_desc_sw128(addr, kBBoxBytes, 1024);
}

// One consumer's 64 x 256 slab of C from its accumulators (layout in
// hopper.cuh). p is a multiple of 8 and the column even, so a pair of
// columns is wholly inside or outside.
__device__ __forceinline__ void store_slab(const float (&d)[128], float* __restrict__ C, int row0, int col0, int n,
                                           int p, int tid) {
    const int warp = tid / 32, lane = tid % 32;
    const int r0 = row0 + warp * 16 + lane / 4, r1 = r0 + 8;
    const int c0 = col0 + 2 * (lane % 4);
#pragma unroll
    for (int j = 0; j < kBN / 8; ++j) {
        const int c = c0 + 8 * j;
        if (c >= p) continue;
        if (r0 < n)
            __stcs(reinterpret_cast<float2*>(C + static_cast<std::size_t>(r0) * p + c),
                   make_float2(d[4 * j], d[4 * j + 1]));
        if (r1 < n)
            __stcs(reinterpret_cast<float2*>(C + static_cast<std::size_t>(r1) * p + c),
                   make_float2(d[4 * j + 2], d[4 * j + 3]));
    }
}

__global__ void __launch_bounds__(kThreads, 1)
    wgmma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                 float* __restrict__ C, int n, int m, int p) {
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    // full[s]: stage s holds its copies (one arrival from the producer plus
    // the bytes). empty[s]: both consumers are done reading it (one arrival
    // per consumer warp).
    __shared__ __align__(8) std::uint64_t full[kStages], empty[kStages];
    const std::uint32_t base = (hw::smem_u32(smem_raw) + 1023u) & ~1023u;

    const int tiles_m = (n + kBM - 1) / kBM, tiles_n = (p + kBN - 1) / kBN, tiles = tiles_m * tiles_n;
    const int k_steps = (m + kBK - 1) / kBK;
    const int warpgroup = threadIdx.x / 128, tid = threadIdx.x % 128;

    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) {
            hw::mbar_init(hw::smem_u32(&full[s]), 1);
            hw::mbar_init(hw::smem_u32(&empty[s]), kConsumers * 4);
        }
        hw::mbar_init_fence();
    }
    __syncthreads();

    if (warpgroup == 0) {
        // The producer: one thread issues every copy.
        hw::setmaxnreg_dec<kProducerRegs>();
        if (tid != 0) return;
        int stage = 0;
        std::uint32_t phase = 0;
        for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
            int tm, tn;
            tile_of(t, tiles_m, tiles_n, tm, tn);
            // Boxes of B that start right of column p feed only columns that
            // are never stored: not copied, not counted.
            const int boxes = min(kBBoxes, (p - tn * kBN + hw::kBoxCols - 1) / hw::kBoxCols);
            const std::uint32_t bytes = kABytes + boxes * kBBoxBytes;
            for (int kt = 0; kt < k_steps; ++kt) {
                // Wait until the consumers have released this stage (the first
                // round waits on parity 1 of a fresh barrier: at once).
                hw::mbar_wait(hw::smem_u32(&empty[stage]), phase ^ 1u);
                const std::uint32_t bar = hw::smem_u32(&full[stage]);
                hw::mbar_arrive_expect_tx(bar, bytes);
                const std::uint32_t a = base + stage * kStageBytes;
                hw::tma_load(a, &map_a, bar, kt * kBK, tm * kBM);
                for (int j = 0; j < boxes; ++j)
                    hw::tma_load(a + kABytes + j * kBBoxBytes, &map_b, bar, tn * kBN + j * hw::kBoxCols, kt * kBK);
                if (++stage == kStages) {
                    stage = 0;
                    phase ^= 1u;
                }
            }
        }
        return;
    }

    // The consumers.
    hw::setmaxnreg_inc<kConsumerRegs>();
    const int consumer = warpgroup - 1, lane = tid % 32;
    float acc[128];
    int stage = 0;
    std::uint32_t phase = 0;
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        int tm, tn;
        tile_of(t, tiles_m, tiles_n, tm, tn);
#pragma unroll
        for (int i = 0; i < 128; ++i) acc[i] = 0.0f;
        hw::fence_accumulators(acc);
        int previous = -1;
        for (int kt = 0; kt < k_steps; ++kt) {
            hw::mbar_wait(hw::smem_u32(&full[stage]), phase);
            const std::uint32_t a = base + stage * kStageBytes + consumer * 64 * 128;  // its 64 rows of A
            const std::uint32_t b = base + stage * kStageBytes + kABytes;
            hw::wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < kBK / 16; ++kk)
                hw::wgmma_m64n256k16_bf16(acc, desc_a(a + kk * 32), desc_b(b + kk * 2048));
            hw::wgmma_commit();
            // One group stays in flight: once the previous step's group is
            // done, its stage goes back to the producer.
            if (previous >= 0) {
                hw::wgmma_wait<1>();
                if (lane == 0) hw::mbar_arrive(hw::smem_u32(&empty[previous]));
            }
            previous = stage;
            if (++stage == kStages) {
                stage = 0;
                phase ^= 1u;
            }
        }
        hw::wgmma_wait<0>();
        hw::fence_accumulators(acc);
        if (lane == 0 && previous >= 0) hw::mbar_arrive(hw::smem_u32(&empty[previous]));
        store_slab(acc, C, tm * kBM + consumer * 64, tn * kBN, n, p, tid);
    }
}

int multiprocessors() {
    int device = 0, sms = 0;
    HPCLAB_CUDA_CHECK(cudaGetDevice(&device));
    HPCLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return sms;
}

}  // namespace

Launch TcLaunchers::wgmma_bf16(int n, int m, int p, const bf16* A, const bf16* B, float* C) {
    // The maps check the shapes and the alignment TMA needs.
    const CUtensorMap map_a = hopper::bf16_tile_map(A, n, m, kBM);  // boxes of 64 k x 128 rows
    const CUtensorMap map_b = hopper::bf16_tile_map(B, m, p, kBK);  // boxes of 64 n x 64 k
    HPCLAB_CUDA_CHECK(
        cudaFuncSetAttribute(wgmma_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kShared)));
    const int tiles = ((n + kBM - 1) / kBM) * ((p + kBN - 1) / kBN);
    Launch l{reinterpret_cast<const void*>(&wgmma_kernel), dim3(std::min(tiles, multiprocessors())), dim3(kThreads),
             kShared};
    wgmma_kernel<<<l.grid, l.block, l.dynamic_shared>>>(map_a, map_b, C, n, m, p);
    HPCLAB_CUDA_CHECK_LAUNCH();
    return l;
}

}  // namespace lab05
