// Lab 05 kernels: from the lecture's one thread per block to a register-blocked,
// double-buffered kernel; each launcher returns what it launched.
// Every TODO(student) below throws "not implemented" until you replace it.
#include <cstdint>
#include <stdexcept>

#include "hpclab/cuda.hpp"
#include "hpclab/not_implemented.hpp"
#include "matmul.hpp"

namespace lab05 {
namespace {

[[maybe_unused]] int blocks_for(long long count, int per_block) { return static_cast<int>((count + per_block - 1) / per_block); }

// Each launcher: write its __global__ kernel above it, launch it, check the
// launch with HPCLAB_CUDA_CHECK_LAUNCH(), and return what was launched:
//     Launch l{reinterpret_cast<const void*>(&my_kernel<T>), grid, block, 0};
// Kernels index with int: validate_shape guarantees that n*m, m*p and n*p fit.

template <class T>
Launch launch_one_thread_per_block(int n, int m, int p, const T* A, const T* B, T* C) {
    // TODO(student): stage 2a, the lecture's matmatmul1 kernel, launched
    // <<<n*p, 1>>>: block i computes C[i] with the pointer walk of the slides,
    // accumulating in C[i] itself. Add the check i < n*p.
    (void)n; (void)m; (void)p; (void)A; (void)B; (void)C;
    throw hpclab::NotImplemented("launch_one_thread_per_block");
}

template <class T>
Launch launch_naive_1d(int n, int m, int p, const T* A, const T* B, T* C) {
    // TODO(student): stage 2b, one thread per element of C in 1-D blocks of
    // 256 threads (blocks_for(n*p, 256) of them), the sum kept in a register,
    // a bounds check so n*p need not be a multiple of 256.
    (void)n; (void)m; (void)p; (void)A; (void)B; (void)C;
    throw hpclab::NotImplemented("launch_naive_1d");
}

template <class T>
Launch launch_naive_2d_row_x(int n, int m, int p, const T* A, const T* B, T* C) {
    // TODO(student): stage 2c, 2-D blocks of 32 x 8 with threadIdx.x running
    // along the ROWS of C (row = blockIdx.x*blockDim.x + threadIdx.x). Measure it.
    (void)n; (void)m; (void)p; (void)A; (void)B; (void)C;
    throw hpclab::NotImplemented("launch_naive_2d_row_x");
}

template <class T>
Launch launch_naive_2d(int n, int m, int p, const T* A, const T* B, T* C) {
    // TODO(student): stage 2d, the same with threadIdx.x along the COLUMNS of C.
    (void)n; (void)m; (void)p; (void)A; (void)B; (void)C;
    throw hpclab::NotImplemented("launch_naive_2d");
}

template <class T, int TILE>
Launch launch_tiled(int n, int m, int p, const T* A, const T* B, T* C) {
    // TODO(student): stage 3, a kernel template<class T, int TILE> with
    // TILE x TILE blocks and two __shared__ tiles; zeros for entries outside
    // the matrices; a __syncthreads() after loading AND one after using the
    // tiles; C written once, after the loop over tiles.
    (void)n; (void)m; (void)p; (void)A; (void)B; (void)C;
    throw hpclab::NotImplemented("launch_tiled");
}

template <class T>
Launch launch_final(int n, int m, int p, const T* A, const T* B, T* C) {
    // TODO(student): stage 4, the register-blocked kernel: blocks of 256
    // threads computing kFinalBM x kFinalBN of C, kFinalTM x kFinalTN per
    // thread (see the handout for the layout, the transposed A slice, vector
    // loads when m % 4 == 0 and p % 4 == 0, and double buffering).
    (void)n; (void)m; (void)p; (void)A; (void)B; (void)C;
    throw hpclab::NotImplemented("launch_final");
}

}  // namespace

template <class T>
Launch gpu_matmul(Kernel k, int n, int m, int p, const T* A, const T* B, T* C) {
    switch (k) {
        case Kernel::OneThreadPerBlock: return launch_one_thread_per_block(n, m, p, A, B, C);
        case Kernel::Naive1D: return launch_naive_1d(n, m, p, A, B, C);
        case Kernel::Naive2DRowX: return launch_naive_2d_row_x(n, m, p, A, B, C);
        case Kernel::Naive2D: return launch_naive_2d(n, m, p, A, B, C);
        case Kernel::Tiled16: return launch_tiled<T, 16>(n, m, p, A, B, C);
        case Kernel::Tiled32: return launch_tiled<T, 32>(n, m, p, A, B, C);
        case Kernel::Final: return launch_final(n, m, p, A, B, C);
    }
    throw std::invalid_argument("gpu_matmul: unknown kernel");
}

template Launch gpu_matmul<float>(Kernel, int, int, int, const float*, const float*, float*);
template Launch gpu_matmul<double>(Kernel, int, int, int, const double*, const double*, double*);

}  // namespace lab05
