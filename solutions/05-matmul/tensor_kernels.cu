// Lab 05 stage 6: the product on the tensor cores (TcLaunchers in tensor.hpp).
// First nvcuda::wmma fragments (BF16 and TF32), then inline-PTX mma.sync with
// ldmatrix from padded shared tiles and cp.async multi-buffered copies (BF16).
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
// A block of 8 warps computes a 128 x 128 tile of C; the warps form 2 x 4, each
// 64 x 32 = 4 x 4 mma tiles of 16 x 8 (64 FP32 accumulators per thread).
// Per step of 32 along k the block needs a 128 x 32 slice of A and a 32 x 128
// slice of B; kMmaStages slices are in flight (cp.async, global -> shared
// without passing through registers), so the copy of step k + 2 overlaps the
// mma of step k.
//
// Shared layout: rows padded by 8 BF16 (16 bytes). ldmatrix reads 8 rows of
// 16 bytes per 8x8 matrix; with A's row stride of 80 bytes (20 banks) or B's
// of 272 bytes (68 = 4 mod 32 banks) the 8 rows start 4 banks apart modulo 32,
// so the eight 16-byte reads cover all 32 banks once: no conflict.
constexpr int kMmaBM = 128, kMmaBN = 128, kMmaBK = 32, kMmaStages = 3;
constexpr int kMmaWarpsM = 2, kMmaWarpsN = 4, kMmaThreads = 32 * kMmaWarpsM * kMmaWarpsN;
constexpr int kMmaWM = kMmaBM / kMmaWarpsM, kMmaWN = kMmaBN / kMmaWarpsN;  // a warp's tile: 64 x 32
constexpr int kMmaMI = kMmaWM / 16, kMmaNJ = kMmaWN / 8;                   // its mma tiles: 4 x 4
constexpr int kMmaLDA = kMmaBK + 8, kMmaLDB = kMmaBN + 8;
// Blocks run in groups of kMmaGroupM rows of tiles, column by column within a
// group: the blocks resident at one time share A's and B's slices in L2,
// instead of sweeping all of B for every row of tiles.
constexpr int kMmaGroupM = 8;
static_assert(kMmaNJ % 2 == 0 && (kMmaBM * kMmaBK / 8) % kMmaThreads == 0 && (kMmaBK * kMmaBN / 8) % kMmaThreads == 0,
              "whole ldmatrix.x4 pairs for B; whole 16-byte chunks per thread");
constexpr int kMmaStageElems = kMmaBM * kMmaLDA + kMmaBK * kMmaLDB;
constexpr std::size_t kMmaShared = sizeof(bf16) * kMmaStageElems * kMmaStages;

__device__ __forceinline__ unsigned smem_addr(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// 16 bytes global -> shared (a 32-bit shared address); `inside` false copies
// nothing and writes zeros.
__device__ __forceinline__ void cp_async16(unsigned dst, const void* src, bool inside) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(inside ? 16 : 0)
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

// The fragments of one step of 16 along k: A's via ldmatrix, B's via ldmatrix.trans,
// two n8 tiles per x4. Addresses in bytes: the stage, plus this lane's row, plus kk.
struct MmaFragments {
    unsigned a[kMmaMI][4], b[kMmaNJ][2];
    __device__ __forceinline__ void load(unsigned a_addr, unsigned b_addr) {
#pragma unroll
        for (int i = 0; i < kMmaMI; ++i) ldmatrix_x4(a[i], a_addr + i * 16 * kMmaLDA * 2);
#pragma unroll
        for (int j = 0; j < kMmaNJ / 2; ++j) {
            unsigned r[4];
            ldmatrix_x4_trans(r, b_addr + j * 16 * 2);
            b[2 * j][0] = r[0];
            b[2 * j][1] = r[1];
            b[2 * j + 1][0] = r[2];
            b[2 * j + 1][1] = r[3];
        }
    }
};

__global__ void __launch_bounds__(kMmaThreads)
    mma_kernel(int n, int m, int p, const bf16* __restrict__ A, const bf16* __restrict__ B, float* __restrict__ C) {
    extern __shared__ __align__(128) unsigned char smem_raw[];
    // Shared addresses as 32-bit byte offsets, computed once: the inner loop
    // then adds only compile-time constants (ldmatrix [reg + imm]).
    constexpr unsigned kStageBytes = kMmaStageElems * 2, kBBytes = kMmaBM * kMmaLDA * 2;
    const unsigned smem = smem_addr(smem_raw);

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm = warp / kMmaWarpsN, wn = warp % kMmaWarpsN;  // this warp's tile within the block's
    const int tiles_m = gridDim.y, tiles_n = gridDim.x;
    const int bid = blockIdx.y * tiles_n + blockIdx.x;
    const int first_m = bid / (kMmaGroupM * tiles_n) * kMmaGroupM;
    const int group_m = min(tiles_m - first_m, kMmaGroupM);
    const int in_group = bid % (kMmaGroupM * tiles_n);
    const int row0 = (first_m + in_group % group_m) * kMmaBM, col0 = in_group / group_m * kMmaBN;

    // Global -> shared: this thread's 16-byte chunks q = tid + l * threads of
    // each slice, numbered row by row (a warp copies whole rows: coalesced).
    constexpr int kAChunks = kMmaBM * kMmaBK / 8 / kMmaThreads, kBChunks = kMmaBK * kMmaBN / 8 / kMmaThreads;
    unsigned a_dst[kAChunks], b_dst[kBChunks];
    const bf16* a_src[kAChunks];
    const bf16* b_src[kBChunks];
    bool a_row_in[kAChunks], b_col_in[kBChunks];
    int a_col[kAChunks], b_row[kBChunks];
#pragma unroll
    for (int l = 0; l < kAChunks; ++l) {
        const int q = tid + l * kMmaThreads, r = q / (kMmaBK / 8), c = (q % (kMmaBK / 8)) * 8;
        a_dst[l] = (r * kMmaLDA + c) * 2;
        a_row_in[l] = row0 + r < n;
        a_col[l] = c;
        a_src[l] = A + static_cast<long long>(a_row_in[l] ? row0 + r : 0) * m + c;
    }
#pragma unroll
    for (int l = 0; l < kBChunks; ++l) {
        const int q = tid + l * kMmaThreads, r = q / (kMmaBN / 8), c = (q % (kMmaBN / 8)) * 8;
        b_dst[l] = kBBytes + (r * kMmaLDB + c) * 2;
        b_col_in[l] = col0 + c < p;
        b_row[l] = r;
        b_src[l] = B + static_cast<long long>(r) * p + (b_col_in[l] ? col0 + c : 0);
    }
    auto load_stage = [&](int s, int k0) {
        const unsigned base = smem + s * kStageBytes;
#pragma unroll
        for (int l = 0; l < kAChunks; ++l) {
            const bool in = a_row_in[l] && k0 + a_col[l] < m;
            cp_async16(base + a_dst[l], in ? a_src[l] + k0 : A, in);
        }
#pragma unroll
        for (int l = 0; l < kBChunks; ++l) {
            const bool in = b_col_in[l] && k0 + b_row[l] < m;
            cp_async16(base + b_dst[l], in ? b_src[l] + static_cast<long long>(k0) * p : B, in);
        }
    };

    // This lane's ldmatrix rows within a stage (see MmaFragments).
    const unsigned a_lane = ((wm * kMmaWM + lane % 16) * kMmaLDA + (lane / 16) * 8) * 2;
    const unsigned b_lane = kBBytes + ((lane % 16) * kMmaLDB + wn * kMmaWN + (lane / 16) * 8) * 2;

    float acc[kMmaMI][kMmaNJ][4] = {};
    const int ktiles = (m + kMmaBK - 1) / kMmaBK;
#pragma unroll
    for (int s = 0; s < kMmaStages - 1; ++s) {
        if (s < ktiles) load_stage(s, s * kMmaBK);
        cp_async_commit();  // empty groups too: the count below stays simple
    }
    int read = 0, write = kMmaStages - 1;  // stages of slice kt and of slice kt + kMmaStages - 1
    for (int kt = 0; kt < ktiles; ++kt) {
        cp_async_wait<kMmaStages - 2>();  // the group of slice kt has landed (this thread's part)...
        __syncthreads();                  // ...and everyone's; everyone is also done with slice kt - 1
        if (kt + kMmaStages - 1 < ktiles) load_stage(write, (kt + kMmaStages - 1) * kMmaBK);  // kt - 1's stage
        cp_async_commit();

        // Fragments double-buffered in registers: step kk + 16's are read
        // from shared memory while step kk's mma run.
        const unsigned st = smem + read * kStageBytes;
        MmaFragments f[2];
        f[0].load(st + a_lane, st + b_lane);
#pragma unroll
        for (int kk = 0; kk < kMmaBK; kk += 16) {
            const int cur = (kk / 16) % 2;
            if (kk + 16 < kMmaBK) f[cur ^ 1].load(st + a_lane + (kk + 16) * 2, st + b_lane + (kk + 16) * kMmaLDB * 2);
#pragma unroll
            for (int i = 0; i < kMmaMI; ++i)
#pragma unroll
                for (int j = 0; j < kMmaNJ; ++j) mma_bf16_16816(acc[i][j], f[cur].a[i], f[cur].b[j][0], f[cur].b[j][1]);
        }
        read = read + 1 == kMmaStages ? 0 : read + 1;
        write = write + 1 == kMmaStages ? 0 : write + 1;
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
                if (r < n) *reinterpret_cast<float2*>(&C[r * p + c]) = make_float2(acc[i][j][0], acc[i][j][1]);
                if (r + 8 < n)
                    *reinterpret_cast<float2*>(&C[(r + 8) * p + c]) = make_float2(acc[i][j][2], acc[i][j][3]);
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
