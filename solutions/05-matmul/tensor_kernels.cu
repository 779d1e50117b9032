// Lab 05 stage 6: the product on the tensor cores (TcLaunchers in tensor.hpp).
// First nvcuda::wmma fragments (BF16 and TF32), then inline-PTX mma.sync with
// ldmatrix from swizzled shared tiles and cp.async multi-buffered copies (BF16).
#include <mma.h>

#include <cstdint>

#include "hpclab/cuda.hpp"
#include "hpclab/not_implemented.hpp"
#include "tensor.hpp"

namespace lab05 {
namespace {

// ---- 6a: wmma -------------------------------------------------------------------
// A block of 4 warps computes a 64 x 64 tile of C, each warp 32 x 32 as 2 x 2
// accumulator fragments of 16 x 16. Per step of kWmmaBK along k the block
// stages a 64 x 32 slice of A and a 32 x 64 slice of B in shared memory, in
// 16-byte chunks (n, m, p are multiples of 8: a chunk is wholly inside or
// outside, and outside chunks are zeros). Rows are padded by 8 elements so
// that the fragment loads of consecutive rows start in different banks.
constexpr int kWmmaBM = 64, kWmmaBN = 64, kWmmaBK = 32, kWmmaThreads = 128, kWmmaPad = 8;

// BF16 goes to shared memory as it is; FP32 is rounded to TF32 (round to
// nearest) on the way: the tensor cores would otherwise drop its low 13 bits.
template <class E>
struct WmmaTraits;
template <>
struct WmmaTraits<bf16> {
    using Precision = bf16;
    static constexpr int kK = 16;  // fragment shape 16 x 16 x 16
    __device__ static bf16 stage(bf16 x) { return x; }
};
template <>
struct WmmaTraits<float> {
    using Precision = nvcuda::wmma::precision::tf32;
    static constexpr int kK = 8;  // fragment shape 16 x 16 x 8
    __device__ static float stage(float x) { return nvcuda::wmma::__float_to_tf32(x); }
};

// One 16-byte chunk: 8 BF16 or 4 FP32 values.
template <class E>
struct Chunk {
    static constexpr int kElems = 16 / sizeof(E);
    E v[kElems];
};

template <class E>
__global__ void __launch_bounds__(kWmmaThreads)
    wmma_kernel(int n, int m, int p, const E* __restrict__ A, const E* __restrict__ B, float* __restrict__ C) {
    namespace wmma = nvcuda::wmma;
    using Tr = WmmaTraits<E>;
    constexpr int KF = Tr::kK, CH = Chunk<E>::kElems;
    constexpr int LDA = kWmmaBK + kWmmaPad, LDB = kWmmaBN + kWmmaPad, LDS = 16 + 4;
    __shared__ __align__(32) E As[kWmmaBM][LDA];
    __shared__ __align__(32) E Bs[kWmmaBK][LDB];
    __shared__ __align__(32) float stage[kWmmaThreads / 32][16][LDS];  // a warp's fragment on its way to C

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wy = warp / 2, wx = warp % 2;  // this warp's 32 x 32 within the block's 64 x 64
    const int row0 = blockIdx.y * kWmmaBM, col0 = blockIdx.x * kWmmaBN;

    wmma::fragment<wmma::accumulator, 16, 16, KF, float> acc[2][2];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < m; k0 += kWmmaBK) {
        // A slice: kWmmaBM rows of kWmmaBK / CH chunks; B slice: kWmmaBK rows of kWmmaBN / CH.
        for (int q = tid; q < kWmmaBM * (kWmmaBK / CH); q += kWmmaThreads) {
            const int r = q / (kWmmaBK / CH), c = (q % (kWmmaBK / CH)) * CH;
            Chunk<E> v{};
            if (row0 + r < n && k0 + c < m) v = *reinterpret_cast<const Chunk<E>*>(&A[(row0 + r) * m + k0 + c]);
#pragma unroll
            for (int e = 0; e < CH; ++e) As[r][c + e] = Tr::stage(v.v[e]);
        }
        for (int q = tid; q < kWmmaBK * (kWmmaBN / CH); q += kWmmaThreads) {
            const int r = q / (kWmmaBN / CH), c = (q % (kWmmaBN / CH)) * CH;
            Chunk<E> v{};
            if (k0 + r < m && col0 + c < p) v = *reinterpret_cast<const Chunk<E>*>(&B[(k0 + r) * p + col0 + c]);
#pragma unroll
            for (int e = 0; e < CH; ++e) Bs[r][c + e] = Tr::stage(v.v[e]);
        }
        __syncthreads();  // the slices are complete
#pragma unroll
        for (int kk = 0; kk < kWmmaBK; kk += KF) {
            wmma::fragment<wmma::matrix_a, 16, 16, KF, typename Tr::Precision, wmma::row_major> a[2];
            wmma::fragment<wmma::matrix_b, 16, 16, KF, typename Tr::Precision, wmma::row_major> b[2];
#pragma unroll
            for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(a[i], &As[wy * 32 + i * 16][kk], LDA);
#pragma unroll
            for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(b[j], &Bs[kk][wx * 32 + j * 16], LDB);
#pragma unroll
            for (int i = 0; i < 2; ++i)
#pragma unroll
                for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();  // everyone is done with the slices before the next overwrite
    }

    // C: a fragment's layout in registers is unspecified, so each goes through
    // shared memory and the warp writes the part inside C.
#pragma unroll
    for (int i = 0; i < 2; ++i) {
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            wmma::store_matrix_sync(&stage[warp][0][0], acc[i][j], LDS, wmma::mem_row_major);
            __syncwarp();
            const int r0 = row0 + wy * 32 + i * 16, c0 = col0 + wx * 32 + j * 16;
            for (int e = lane; e < 256; e += 32) {
                const int r = e / 16, c = e % 16;
                if (r0 + r < n && c0 + c < p) C[(r0 + r) * p + c0 + c] = stage[warp][r][c];
            }
            __syncwarp();  // read before the next fragment overwrites
        }
    }
}

template <class E>
Launch launch_wmma(int n, int m, int p, const E* A, const E* B, float* C) {
    Launch l{reinterpret_cast<const void*>(&wmma_kernel<E>), dim3(blocks_for(p, kWmmaBN), blocks_for(n, kWmmaBM)),
             dim3(kWmmaThreads), 0};
    wmma_kernel<E><<<l.grid, l.block>>>(n, m, p, A, B, C);
    HPCLAB_CUDA_CHECK_LAUNCH();
    return l;
}

// ---- 6b: mma.sync ------------------------------------------------------------------
// A block of 8 warps computes a 128 x 256 tile of C; the warps form 2 x 4, each
// 64 x 64 = 4 x 8 mma tiles of 16 x 8 (128 FP32 accumulators per thread). Per
// step of 64 along k the block needs a 128 x 64 slice of A and a 64 x 256 slice
// of B; kMmaStages slices are in flight (cp.async, global -> shared without
// passing through registers), 48 KB each, one block per SM.
//
// Why this shape: every mma.sync needs its operands read from shared memory by
// ldmatrix, and shared memory delivers 128 bytes per clock per SM. Per step of
// 16 along k a 64 x 64 warp tile reads 2 KB of A and 2 KB of B for 32 mma,
// 128 bytes each, where a 64 x 32 tile reads 3 KB for 16 (192 bytes each);
// a slice of 64 along k halves the barriers per mma against 32. (On an H200 at
// 8192^3 in the lab's driver: 128 x 128 x 32 with 64 x 32 warps and padded
// rows 0.46 of cuBLAS, this kernel 0.64-0.65.)
//
// Shared layout: rows are not padded but XOR-swizzled. A row of A's slice is
// 128 bytes (8 chunks of 16 bytes), a row of B's 512 bytes (32 chunks); chunk c
// of row r is stored at chunk c ^ (r % 8). ldmatrix reads 8 rows of one logical
// chunk per 8 x 8 matrix: after the XOR they sit in 8 different 16-byte bank
// groups, so all 32 banks are read once; cp.async's writes stay whole rows.
constexpr int kMmaBM = 128, kMmaBN = 256, kMmaBK = 64, kMmaStages = 3;
constexpr int kMmaWarpsM = 2, kMmaWarpsN = 4, kMmaThreads = 32 * kMmaWarpsM * kMmaWarpsN;
constexpr int kMmaWM = kMmaBM / kMmaWarpsM, kMmaWN = kMmaBN / kMmaWarpsN;  // a warp's tile: 64 x 64
constexpr int kMmaMI = kMmaWM / 16, kMmaNJ = kMmaWN / 8, kMmaKSteps = kMmaBK / 16;
constexpr int kChunksA = kMmaBK / 8, kChunksB = kMmaBN / 8;  // 16-byte chunks per row of a slice
constexpr int kABytes = kMmaBM * kMmaBK * 2, kStageBytes = kABytes + kMmaBK * kMmaBN * 2;
// This thread's chunks of a slice: kPerThreadA of A (rows kRowStepA apart), kPerThreadB of B.
constexpr int kPerThreadA = kMmaBM * kChunksA / kMmaThreads, kPerThreadB = kMmaBK * kChunksB / kMmaThreads;
constexpr int kRowStepA = kMmaThreads / kChunksA, kRowStepB = kMmaThreads / kChunksB;
constexpr int kChunksPerThread = kPerThreadA + kPerThreadB;
// Blocks run in groups of kMmaGroupM rows of tiles, column by column within a
// group: the blocks resident at one time share A's and B's slices in L2.
constexpr int kMmaGroupM = 8;
// + 128: the stages start at the first 128-byte boundary of dynamic shared memory.
constexpr std::size_t kMmaShared = std::size_t(kStageBytes) * kMmaStages + 128;
static_assert(kChunksA == 8 && kChunksB % 8 == 0, "rows of 128 bytes or more: the swizzle takes row % 8");
static_assert(kRowStepA % 8 == 0 && kRowStepB % 8 == 0, "a thread's chunks share their swizzle");
static_assert(kMmaNJ % 2 == 0 && kMmaKSteps >= 2 && kMmaStages >= 3, "x4 pairs for B; the loop order below");

// Byte offset of chunk `chunk` of row `row` in a swizzled slice with `per_row` chunks a row.
__host__ __device__ constexpr int swizzled(int row, int chunk, int per_row) {
    return row * per_row * 16 + ((chunk ^ (row % 8)) << 4);
}

__device__ __forceinline__ unsigned smem_addr(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// 16 bytes global -> shared (a 32-bit shared address); `inside` false copies
// nothing and writes zeros. The hint asks L2 to fetch the whole 128-byte line.
__device__ __forceinline__ void cp_async16(unsigned dst, const void* src, bool inside) {
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(inside ? 16 : 0)
                 : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

// Four 8x8 matrices of 16-bit values; lane l gives the address of a row of
// matrix l / 8, and receives, per matrix, the two values the mma wants there.
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
// The same, transposed: for B, stored k-major, which the mma wants n-major.
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

// c (16 x 8, FP32) += a (16 x 16, BF16, row-major) b (16 x 8, BF16, column-major).
__device__ __forceinline__ void mma_bf16_16816(float (&c)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// The fragments of one step of 16 along k. a_base and b_base are this lane's
// ldmatrix rows of step 0 in a stage (lane l reads row l % 16 of a 16-row
// group, logical chunk l / 16). Step s is logical chunk 2s + l / 16 of A's row,
// that is chunk (l / 16) ^ 2s, and the swizzle only XORs row % 8 into the
// chunk: the address of step s is the step-0 address XOR (s << 5). For B,
// step s is 16 rows further (a multiple of 8: the same swizzle), and pair j is
// two chunks on, likewise the address XOR (j << 5). The stage bases are
// 128-byte aligned, so these XORs touch only the chunk bits.
struct MmaFragments {
    unsigned a[kMmaMI][4], b[kMmaNJ][2];
    __device__ __forceinline__ void load(unsigned a_base, unsigned b_base, int s) {
        const unsigned a_addr = a_base ^ (s << 5);
#pragma unroll
        for (int i = 0; i < kMmaMI; ++i) ldmatrix_x4(a[i], a_addr + i * 16 * kChunksA * 16);
#pragma unroll
        for (int j = 0; j < kMmaNJ / 2; ++j) {
            unsigned r[4];
            ldmatrix_x4_trans(r, (b_base ^ (j << 5)) + s * 16 * kChunksB * 16);
            b[2 * j][0] = r[0];
            b[2 * j][1] = r[1];
            b[2 * j + 1][0] = r[2];
            b[2 * j + 1][1] = r[3];
        }
    }
};

// This block's tile of C in the grouped order (see kMmaGroupM).
__device__ __forceinline__ void mma_block_origin(int& row0, int& col0) {
    const int tiles_m = gridDim.y, tiles_n = gridDim.x;
    const int bid = blockIdx.y * tiles_n + blockIdx.x;
    const int first_m = bid / (kMmaGroupM * tiles_n) * kMmaGroupM;
    const int group_m = min(tiles_m - first_m, kMmaGroupM);
    const int in_group = bid % (kMmaGroupM * tiles_n);
    row0 = (first_m + in_group % group_m) * kMmaBM;
    col0 = in_group / group_m * kMmaBN;
}

__global__ void __launch_bounds__(kMmaThreads, 1)
    mma_kernel(int n, int m, int p, const bf16* __restrict__ A, const bf16* __restrict__ B, float* __restrict__ C) {
    extern __shared__ __align__(128) unsigned char smem_raw[];
    // Shared addresses as 32-bit byte offsets on a 128-byte boundary: the XOR
    // steps above need the stage bases' low 7 bits to be zero.
    const unsigned smem = (smem_addr(smem_raw) + 127u) & ~127u;
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm = warp / kMmaWarpsN, wn = warp % kMmaWarpsN;  // this warp's tile within the block's
    int row0, col0;
    mma_block_origin(row0, col0);

    // Global -> shared: thread tid copies chunk tid % per_row of rows tid / per_row
    // + l * step (a warp copies whole rows: coalesced), as 32-bit element offsets
    // advanced by one slice per slice issued (the matrices hold < 2^32 elements).
    const int ar = tid / kChunksA, ac = tid % kChunksA * 8, br = tid / kChunksB, bc = tid % kChunksB * 8;
    unsigned a_rows_in = 0;  // bit l: row ar + l * kRowStepA is inside A
#pragma unroll
    for (int l = 0; l < kPerThreadA; ++l)
        if (row0 + ar + l * kRowStepA < n) a_rows_in |= 1u << l;
    const bool b_col_in = col0 + bc < p;
    unsigned a_next = static_cast<unsigned>(min(row0 + ar, n - 1)) * m + ac;
    unsigned b_next = static_cast<unsigned>(br) * p + (b_col_in ? col0 + bc : 0);
    // Chunk u of the slice starting at k0 (A's chunks first, then B's) into the stage at `stage`.
    auto copy_chunk = [&](int u, unsigned stage, int k0) {
        if (u < kPerThreadA) {
            const bool in = ((a_rows_in >> u) & 1u) && k0 + ac < m;
            cp_async16(stage + swizzled(ar, tid % kChunksA, kChunksA) + u * kRowStepA * kChunksA * 16,
                       A + (in ? a_next + u * kRowStepA * m : 0u), in);
        } else {
            const int l = u - kPerThreadA;
            const bool in = b_col_in && k0 + br + l * kRowStepB < m;
            cp_async16(stage + kABytes + swizzled(br, tid % kChunksB, kChunksB) + l * kRowStepB * kChunksB * 16,
                       B + (in ? b_next + l * kRowStepB * p : 0u), in);
        }
    };
    auto next_slice = [&] {
        a_next += kMmaBK;
        b_next += kMmaBK * p;
    };
    // The copies of a slice are spread over the first kMmaKSteps - 1 steps of
    // the slice before it, between the mma: chunk u goes at step chunk_step(u).
    auto chunk_step = [](int u) { return u * (kMmaKSteps - 1) / kChunksPerThread; };

    // This lane's ldmatrix rows of step 0 within a stage (see MmaFragments).
    const unsigned a_lane = swizzled(wm * kMmaWM + lane % 16, lane / 16, kChunksA);
    const unsigned b_lane = kABytes + swizzled(lane % 16, wn * kMmaWN / 8 + lane / 16, kChunksB);

    float acc[kMmaMI][kMmaNJ][4] = {};
    const int slices = (m + kMmaBK - 1) / kMmaBK;
#pragma unroll
    for (int s = 0; s < kMmaStages - 1; ++s) {
        if (s < slices) {
#pragma unroll
            for (int u = 0; u < kChunksPerThread; ++u) copy_chunk(u, smem + s * kStageBytes, s * kMmaBK);
            next_slice();
        }
        cp_async_commit();  // empty groups too: the count below stays simple
    }
    cp_async_wait<kMmaStages - 2>();
    __syncthreads();

    // Slice kt is read from stage `read`; slice kt + kMmaStages - 1 is written
    // to `write`, the stage of slice kt - 1, which everyone finished reading
    // before the last barrier.
    int read_stage = 0;
    unsigned read = smem, write = smem + (kMmaStages - 1) * kStageBytes;
    MmaFragments f[2];  // double-buffered: step s + 1's are read while step s's mma run
    f[0].load(read + a_lane, read + b_lane, 0);
    for (int kt = 0; kt < slices; ++kt) {
        const bool more = kt + kMmaStages - 1 < slices;
#pragma unroll
        for (int s = 0; s < kMmaKSteps; ++s) {
            if (more) {
#pragma unroll
                for (int u = 0; u < kChunksPerThread; ++u)
                    if (chunk_step(u) == s) copy_chunk(u, write, (kt + kMmaStages - 1) * kMmaBK);
                if (s == kMmaKSteps - 2) next_slice();
            }
            // The next step's fragments; after the last step, the next slice's
            // first (read has moved on at the barrier below).
            f[(s + 1) % 2].load(read + a_lane, read + b_lane, (s + 1) % kMmaKSteps);
#pragma unroll
            for (int i = 0; i < kMmaMI; ++i)
#pragma unroll
                for (int jj = 0; jj < kMmaNJ; ++jj) {
                    const int j = i % 2 ? kMmaNJ - 1 - jj : jj;  // serpentine: B's registers reused
                    mma_bf16_16816(acc[i][j], f[s % 2].a[i], f[s % 2].b[j][0], f[s % 2].b[j][1]);
                }
            if (s == kMmaKSteps - 2) {
                // Met before the last step: its fragments are already in registers.
                cp_async_commit();
                cp_async_wait<kMmaStages - 2>();  // slice kt + 1 has landed (this thread's part)...
                __syncthreads();                  // ...and everyone's; slice kt - 1's stage is free
                const unsigned freed = read;
                read_stage = read_stage + 1 == kMmaStages ? 0 : read_stage + 1;
                read = smem + read_stage * kStageBytes;
                write = freed;
            }
        }
    }
    cp_async_wait<0>();  // no copy may outlive the block

    // Accumulator layout of m16n8: c0, c1 at row lane / 4, columns 2 (lane % 4)
    // and + 1; c2, c3 eight rows below. p is even, so a pair is in or out.
#pragma unroll
    for (int i = 0; i < kMmaMI; ++i) {
#pragma unroll
        for (int j = 0; j < kMmaNJ; ++j) {
            const int r = row0 + wm * kMmaWM + i * 16 + lane / 4;
            const int c = col0 + wn * kMmaWN + j * 8 + (lane % 4) * 2;
            if (c < p) {
                if (r < n)
                    *reinterpret_cast<float2*>(&C[static_cast<long long>(r) * p + c]) =
                        make_float2(acc[i][j][0], acc[i][j][1]);
                if (r + 8 < n)
                    *reinterpret_cast<float2*>(&C[static_cast<long long>(r + 8) * p + c]) =
                        make_float2(acc[i][j][2], acc[i][j][3]);
            }
        }
    }
}

}  // namespace

Launch TcLaunchers::wmma_bf16(int n, int m, int p, const bf16* A, const bf16* B, float* C) {
    return launch_wmma<bf16>(n, m, p, A, B, C);
}

Launch TcLaunchers::wmma_tf32(int n, int m, int p, const float* A, const float* B, float* C) {
    return launch_wmma<float>(n, m, p, A, B, C);
}

Launch TcLaunchers::mma_bf16(int n, int m, int p, const bf16* A, const bf16* B, float* C) {
    // More than the default 48 KiB of dynamic shared memory must be asked for.
    HPCLAB_CUDA_CHECK(
        cudaFuncSetAttribute(mma_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kMmaShared)));
    Launch l{reinterpret_cast<const void*>(&mma_kernel), dim3(blocks_for(p, kMmaBN), blocks_for(n, kMmaBM)),
             dim3(kMmaThreads), kMmaShared};
    mma_kernel<<<l.grid, l.block, l.dynamic_shared>>>(n, m, p, A, B, C);
    HPCLAB_CUDA_CHECK_LAUNCH();
    return l;
}

}  // namespace lab05
