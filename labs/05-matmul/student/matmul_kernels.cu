// Lab 05 kernels: from the lecture's one thread per block to a register-blocked,
// double-buffered kernel, and the launchers (Launchers in matmul.hpp), each
// returning what it launched.
// Every TODO(student) below throws "not implemented" until you replace it.
#include <cstdint>
#include <stdexcept>

#include "hpclab/cuda.hpp"
#include "hpclab/not_implemented.hpp"
#include "matmul.hpp"

namespace lab05 {
namespace {

// Write your __global__ kernels here, each above the launcher that launches it.

}  // namespace

// Each launcher (Launchers in matmul.hpp): launch its kernel, check the
// launch with HPCLAB_CUDA_CHECK_LAUNCH(), and return what was launched:
//     Launch l{reinterpret_cast<const void*>(&my_kernel<T>), grid, block, 0};
// Kernels index with int: validate_shape guarantees that n*m, m*p and n*p fit.

template <class T>
Launch Launchers<T>::one_thread_per_block(int n, int m, int p, const T* A, const T* B, T* C) {
    // TODO(student): stage 2a, the lecture's matmatmul1 kernel, launched
    // <<<n*p, 1>>>: block i computes C[i] with the pointer walk of the slides,
    // accumulating in C[i] itself. Add the check i < n*p.
    (void)n;
    (void)m;
    (void)p;
    (void)A;
    (void)B;
    (void)C;
    throw hpclab::NotImplemented("Launchers<T>::one_thread_per_block");
}

template <class T>
Launch Launchers<T>::naive_1d(int n, int m, int p, const T* A, const T* B, T* C) {
    // TODO(student): stage 2b, one thread per element of C in 1-D blocks of
    // 256 threads (blocks_for(n*p, 256) of them), the sum kept in a register,
    // a bounds check so n*p need not be a multiple of 256.
    (void)n;
    (void)m;
    (void)p;
    (void)A;
    (void)B;
    (void)C;
    throw hpclab::NotImplemented("Launchers<T>::naive_1d");
}

template <class T>
Launch Launchers<T>::naive_2d_row_x(int n, int m, int p, const T* A, const T* B, T* C) {
    // TODO(student): stage 2c, 2-D blocks of 32 x 8 with threadIdx.x running
    // along the ROWS of C (row = blockIdx.x*blockDim.x + threadIdx.x). Measure it.
    (void)n;
    (void)m;
    (void)p;
    (void)A;
    (void)B;
    (void)C;
    throw hpclab::NotImplemented("Launchers<T>::naive_2d_row_x");
}

template <class T>
Launch Launchers<T>::naive_2d(int n, int m, int p, const T* A, const T* B, T* C) {
    // TODO(student): stage 2d, the same with threadIdx.x along the COLUMNS of C.
    (void)n;
    (void)m;
    (void)p;
    (void)A;
    (void)B;
    (void)C;
    throw hpclab::NotImplemented("Launchers<T>::naive_2d");
}

template <class T>
Launch Launchers<T>::tiled16(int n, int m, int p, const T* A, const T* B, T* C) {
    // TODO(student): stage 3, a kernel template<class T, int TILE> with
    // TILE x TILE blocks and two __shared__ tiles; zeros for entries outside
    // the matrices; a __syncthreads() after loading AND one after using the
    // tiles; C written once, after the loop over tiles. Launch it with TILE = 16.
    (void)n;
    (void)m;
    (void)p;
    (void)A;
    (void)B;
    (void)C;
    throw hpclab::NotImplemented("Launchers<T>::tiled16");
}

template <class T>
Launch Launchers<T>::tiled32(int n, int m, int p, const T* A, const T* B, T* C) {
    // TODO(student): stage 3, the same kernel template with TILE = 32.
    (void)n;
    (void)m;
    (void)p;
    (void)A;
    (void)B;
    (void)C;
    throw hpclab::NotImplemented("Launchers<T>::tiled32");
}

template <class T>
Launch Launchers<T>::final(int n, int m, int p, const T* A, const T* B, T* C) {
    // TODO(student): stage 4, the register-blocked kernel: blocks of 256
    // threads computing kFinalBM x kFinalBN of C, kFinalTM x kFinalTN per
    // thread (see the handout for the layout, the transposed A slice, vector
    // loads when m % 4 == 0 and p % 4 == 0, and double buffering).
    (void)n;
    (void)m;
    (void)p;
    (void)A;
    (void)B;
    (void)C;
    throw hpclab::NotImplemented("Launchers<T>::final");
}

// gpu_matmul (gpu_matmul.cpp, given) calls the launchers for float and double.
template struct Launchers<float>;
template struct Launchers<double>;

}  // namespace lab05
