// Lab 05 kernels: from the lecture's one thread per block to a register-blocked,
// double-buffered kernel, and the launchers (Launchers in matmul.hpp), each
// returning what it launched.
#include <cstdint>
#include <stdexcept>

#include "hpclab/cuda.hpp"
#include "hpclab/not_implemented.hpp"
#include "matmul.hpp"

namespace lab05 {
namespace {

// ---- Stage 2: one thread per element ---------------------------------------------

// The lecture's matmatmul1, launched <<<n*p, 1>>>: block i computes C[i].
// It accumulates in global memory, C[i] += ..., as the slides do: three
// global accesses (A, B, C[i]) per two flops, a CGMA of 2/3. With one thread
// per block, 31 of every warp's 32 lanes idle.
template <class T>
__global__ void one_thread_per_block_kernel(int n, int m, int p, const T* A, const T* B, T* C) {
    const int i = blockIdx.x;
    if (i >= n * p) return;
    const int row = i / p, col = i % p;
    const T* pA = &A[row * m];
    C[i] = 0;
    for (int k = 0; k < m; ++k) C[i] += (*(pA++)) * B[col + k * p];
}

// One thread per element with 1-D blocks; the bounds check lets n*p be any
// size. Consecutive threads take consecutive columns of one row: their B and
// C accesses are consecutive (coalesced), their A access is one broadcast.
template <class T>
__global__ void naive_1d_kernel(int n, int m, int p, const T* A, const T* B, T* C) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n * p) return;
    const int row = i / p, col = i % p;
    T sum = 0;
    for (int k = 0; k < m; ++k) sum += A[row * m + k] * B[k * p + col];
    C[i] = sum;
}

// 2-D blocks, threadIdx.x along the rows of C: a warp's 32 threads read 32
// different rows of A (stride m) and write a column of C (stride p): every
// access is a separate transaction. This is the DTU report's gpu3 puzzle.
template <class T>
__global__ void naive_2d_row_x_kernel(int n, int m, int p, const T* A, const T* B, T* C) {
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    const int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= n || col >= p) return;
    T sum = 0;
    for (int k = 0; k < m; ++k) sum += A[row * m + k] * B[k * p + col];
    C[row * p + col] = sum;
}

// 2-D blocks, threadIdx.x along the columns of C: coalesced B and C.
template <class T>
__global__ void naive_2d_kernel(int n, int m, int p, const T* A, const T* B, T* C) {
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= n || col >= p) return;
    T sum = 0;
    for (int k = 0; k < m; ++k) sum += A[row * m + k] * B[k * p + col];
    C[row * p + col] = sum;
}

// ---- Stage 3: shared-memory tiles ------------------------------------------------
// Each block loads TILE x TILE tiles of A and B into shared memory, one
// element per thread, and every element loaded is used TILE times. Entries
// outside the matrices load as 0, so no size needs to be a multiple of TILE.
template <class T, int TILE>
__global__ void tiled_kernel(int n, int m, int p, const T* A, const T* B, T* C) {
    __shared__ T As[TILE][TILE];
    __shared__ T Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int col = blockIdx.x * TILE + tx;
    const int row = blockIdx.y * TILE + ty;
    T sum = 0;
    for (int k0 = 0; k0 < m; k0 += TILE) {
        // B's row stride is p (the lecture wrote m: right only for square matrices).
        As[ty][tx] = (row < n && k0 + tx < m) ? A[row * m + k0 + tx] : T(0);
        Bs[ty][tx] = (k0 + ty < m && col < p) ? B[(k0 + ty) * p + col] : T(0);
        __syncthreads();  // the tiles are complete before anyone reads them
        for (int k = 0; k < TILE; ++k) sum += As[ty][k] * Bs[k][tx];
        __syncthreads();  // everyone is done reading before the next load overwrites
    }
    if (row < n && col < p) C[row * p + col] = sum;  // once, after the k loop
}

// ---- Stage 4: register blocking -----------------------------------------------------
// A block of 256 threads computes a BM x BN = 128 x 128 tile of C; each thread
// a TM x TN = 8 x 8 block held in registers. Per step of BK along k the block
// stages a BM x BK slice of A (transposed, so a thread reads its 8 A values as
// two vector loads) and a BK x BN slice of B in shared memory; then each
// thread does 64 FMAs per 16 shared loads. Loads of step k+1 go to registers
// while step k computes (double buffering), one __syncthreads per step.
// A thread's rows are ty*4 + {0..3} and 64 + ty*4 + {0..3} (likewise columns
// with tx), so a quarter warp's vector reads of B cover 128 consecutive bytes:
// no bank conflicts.
constexpr int kThreads = 256;

template <class T>
struct Quad {
    T v[4];
};

template <class T>
__device__ __forceinline__ Quad<T> load_quad(const T* p);
template <>
__device__ __forceinline__ Quad<float> load_quad<float>(const float* p) {
    const float4 q = *reinterpret_cast<const float4*>(p);
    return {{q.x, q.y, q.z, q.w}};
}
template <>
__device__ __forceinline__ Quad<double> load_quad<double>(const double* p) {
    const double2 a = reinterpret_cast<const double2*>(p)[0];
    const double2 b = reinterpret_cast<const double2*>(p)[1];
    return {{a.x, a.y, b.x, b.y}};
}
template <class T>
__device__ __forceinline__ void store_quad(T* p, const Quad<T>& q);
template <>
__device__ __forceinline__ void store_quad<float>(float* p, const Quad<float>& q) {
    *reinterpret_cast<float4*>(p) = make_float4(q.v[0], q.v[1], q.v[2], q.v[3]);
}
template <>
__device__ __forceinline__ void store_quad<double>(double* p, const Quad<double>& q) {
    reinterpret_cast<double2*>(p)[0] = make_double2(q.v[0], q.v[1]);
    reinterpret_cast<double2*>(p)[1] = make_double2(q.v[2], q.v[3]);
}

// kVec: m and p are multiples of 4 and the arrays 16-byte aligned, so every
// group of 4 consecutive elements along a row is wholly inside or outside
// the matrix and can move as one vector. Otherwise element by element.
// kWarp4x8: a warp's 32 threads cover 4 x 8 thread positions (rows x
// columns) instead of 2 x 16, so per k a warp reads 4 distinct quads of A and
// 8 of B (one shared-memory wavefront each) instead of 2 and 16.
template <class T, int BK, int kMinBlocks, bool kWarp4x8, bool kVec>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    final_kernel(int n, int m, int p, const T* __restrict__ A, const T* __restrict__ B, T* __restrict__ C) {
    constexpr int BM = kFinalBM, BN = kFinalBN, TM = kFinalTM, TN = kFinalTN;
    static_assert(BM * BK == 4 * kThreads * (BK / 8) && BN * BK == 4 * kThreads * (BK / 8),
                  "each thread moves BK/8 quads of A and of B per step");
    static_assert(TM == 8 && TN == 8 && BM == 128 && BN == 128, "the thread layout below assumes 8x8 of 128x128");
    constexpr int kLoads = BK / 8;  // quads of A (and of B) per thread per step
    constexpr int kPad = 4;         // As rows padded: transposed stores hit distinct banks
    __shared__ __align__(16) T As[2][BK][BM + kPad];
    __shared__ __align__(16) T Bs[2][BK][BN];

    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int tx = kWarp4x8 ? (warp % 2) * 8 + lane % 8 : tid % 16;
    const int ty = kWarp4x8 ? (warp / 2) * 4 + lane / 8 : tid / 16;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

    // Global -> shared mapping: this thread moves quads q = tid + l * 256 of each
    // slice, numbered row by row, so a warp reads whole rows of B (coalesced).
    Quad<T> ra[kLoads], rb[kLoads];
    auto load_global = [&](int k0) {
#pragma unroll
        for (int l = 0; l < kLoads; ++l) {
            const int q = tid + l * kThreads;
            // A: BK/4 quads per row of the slice.
            const int ar = q / (BK / 4), ac = (q % (BK / 4)) * 4;
            const int gr = row0 + ar, gc = k0 + ac;
            if constexpr (kVec) {
                ra[l] = (gr < n && gc < m) ? load_quad(&A[gr * m + gc]) : Quad<T>{{0, 0, 0, 0}};
            } else {
#pragma unroll
                for (int j = 0; j < 4; ++j) ra[l].v[j] = (gr < n && gc + j < m) ? A[gr * m + gc + j] : T(0);
            }
            // B: BN/4 = 32 quads per row of the slice.
            const int br = q / (BN / 4), bc = (q % (BN / 4)) * 4;
            const int hr = k0 + br, hc = col0 + bc;
            if constexpr (kVec) {
                rb[l] = (hr < m && hc < p) ? load_quad(&B[hr * p + hc]) : Quad<T>{{0, 0, 0, 0}};
            } else {
#pragma unroll
                for (int j = 0; j < 4; ++j) rb[l].v[j] = (hr < m && hc + j < p) ? B[hr * p + hc + j] : T(0);
            }
        }
    };
    auto store_shared = [&](int buf) {
#pragma unroll
        for (int l = 0; l < kLoads; ++l) {
            const int q = tid + l * kThreads;
            const int ar = q / (BK / 4), ac = (q % (BK / 4)) * 4;
#pragma unroll
            for (int j = 0; j < 4; ++j) As[buf][ac + j][ar] = ra[l].v[j];  // transposed
            const int br = q / (BN / 4), bc = (q % (BN / 4)) * 4;
            store_quad(&Bs[buf][br][bc], rb[l]);
        }
    };

    T acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0;

    load_global(0);
    store_shared(0);
    __syncthreads();
    int buf = 0;
    for (int k0 = 0; k0 < m; k0 += BK) {
        const bool more = k0 + BK < m;
        if (more) load_global(k0 + BK);  // in flight while we compute
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const Quad<T> a0 = load_quad(&As[buf][k][ty * 4]);
            const Quad<T> a1 = load_quad(&As[buf][k][64 + ty * 4]);
            const Quad<T> b0 = load_quad(&Bs[buf][k][tx * 4]);
            const Quad<T> b1 = load_quad(&Bs[buf][k][64 + tx * 4]);
            T a[8] = {a0.v[0], a0.v[1], a0.v[2], a0.v[3], a1.v[0], a1.v[1], a1.v[2], a1.v[3]};
            T b[8] = {b0.v[0], b0.v[1], b0.v[2], b0.v[3], b1.v[0], b1.v[1], b1.v[2], b1.v[3]};
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
        }
        if (more) store_shared(buf ^ 1);  // the other buffer: nobody reads it now
        __syncthreads();                  // new slice visible; old one free
        buf ^= 1;
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int r = row0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + (i - 4));
        if (r >= n) continue;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int c = col0 + h * 64 + tx * 4;
            Quad<T> out{{acc[i][h * 4], acc[i][h * 4 + 1], acc[i][h * 4 + 2], acc[i][h * 4 + 3]}};
            if constexpr (kVec) {
                if (c < p) store_quad(&C[r * p + c], out);
            } else {
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    if (c + j < p) C[r * p + c + j] = out.v[j];
            }
        }
    }
}

// Tuned on the H100: BK = 8; float keeps 2 blocks per SM within 128 registers,
// double needs more registers for its 64 accumulators and takes 1.
template <class T>
struct FinalConfig {
    static constexpr int kBK = 8;
    static constexpr int kMinBlocks = sizeof(T) == 4 ? 2 : 1;
    static constexpr bool kWarp4x8 = true;
};

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

template <class T, int TILE>
Launch launch_tiled(int n, int m, int p, const T* A, const T* B, T* C) {
    Launch l{reinterpret_cast<const void*>(&tiled_kernel<T, TILE>), dim3(blocks_for(p, TILE), blocks_for(n, TILE)),
             dim3(TILE, TILE), 0};
    tiled_kernel<T, TILE><<<l.grid, l.block>>>(n, m, p, A, B, C);
    HPCLAB_CUDA_CHECK_LAUNCH();
    return l;
}

}  // namespace

template <class T>
Launch Launchers<T>::final(int n, int m, int p, const T* A, const T* B, T* C) {
    constexpr int BK = FinalConfig<T>::kBK, MB = FinalConfig<T>::kMinBlocks;
    constexpr bool W = FinalConfig<T>::kWarp4x8;
    Launch l;
    l.grid = dim3(blocks_for(p, kFinalBN), blocks_for(n, kFinalBM));
    l.block = dim3(kThreads);
    const bool vec = m % 4 == 0 && p % 4 == 0 && aligned16(A) && aligned16(B) && aligned16(C);
    if (vec) {
        l.kernel = reinterpret_cast<const void*>(&final_kernel<T, BK, MB, W, true>);
        final_kernel<T, BK, MB, W, true><<<l.grid, l.block>>>(n, m, p, A, B, C);
    } else {
        l.kernel = reinterpret_cast<const void*>(&final_kernel<T, BK, MB, W, false>);
        final_kernel<T, BK, MB, W, false><<<l.grid, l.block>>>(n, m, p, A, B, C);
    }
    HPCLAB_CUDA_CHECK_LAUNCH();
    return l;
}

template <class T>
Launch Launchers<T>::one_thread_per_block(int n, int m, int p, const T* A, const T* B, T* C) {
    Launch l{reinterpret_cast<const void*>(&one_thread_per_block_kernel<T>), dim3(n * p), dim3(1), 0};
    one_thread_per_block_kernel<T><<<l.grid, l.block>>>(n, m, p, A, B, C);
    HPCLAB_CUDA_CHECK_LAUNCH();
    return l;
}

template <class T>
Launch Launchers<T>::naive_1d(int n, int m, int p, const T* A, const T* B, T* C) {
    Launch l{reinterpret_cast<const void*>(&naive_1d_kernel<T>), dim3(blocks_for(1LL * n * p, 256)), dim3(256), 0};
    naive_1d_kernel<T><<<l.grid, l.block>>>(n, m, p, A, B, C);
    HPCLAB_CUDA_CHECK_LAUNCH();
    return l;
}

template <class T>
Launch Launchers<T>::naive_2d_row_x(int n, int m, int p, const T* A, const T* B, T* C) {
    const dim3 block(32, 8);
    Launch l{reinterpret_cast<const void*>(&naive_2d_row_x_kernel<T>),
             dim3(blocks_for(n, block.x), blocks_for(p, block.y)), block, 0};
    naive_2d_row_x_kernel<T><<<l.grid, l.block>>>(n, m, p, A, B, C);
    HPCLAB_CUDA_CHECK_LAUNCH();
    return l;
}

template <class T>
Launch Launchers<T>::naive_2d(int n, int m, int p, const T* A, const T* B, T* C) {
    const dim3 block(32, 8);
    Launch l{reinterpret_cast<const void*>(&naive_2d_kernel<T>), dim3(blocks_for(p, block.x), blocks_for(n, block.y)),
             block, 0};
    naive_2d_kernel<T><<<l.grid, l.block>>>(n, m, p, A, B, C);
    HPCLAB_CUDA_CHECK_LAUNCH();
    return l;
}

template <class T>
Launch Launchers<T>::tiled16(int n, int m, int p, const T* A, const T* B, T* C) {
    return launch_tiled<T, 16>(n, m, p, A, B, C);
}

template <class T>
Launch Launchers<T>::tiled32(int n, int m, int p, const T* A, const T* B, T* C) {
    return launch_tiled<T, 32>(n, m, p, A, B, C);
}

// gpu_matmul (gpu_matmul.cpp, given) calls the launchers for float and double.
template struct Launchers<float>;
template struct Launchers<double>;

}  // namespace lab05
