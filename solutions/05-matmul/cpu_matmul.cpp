// Lab 05, stages 1 and 5: the CPU products in two loop orders, and the CGMA of each kernel.
#include <stdexcept>

#include "hpclab/not_implemented.hpp"
#include "matmul.hpp"

namespace lab05 {

template <class T>
void cpu_matmul_ijk(int n, int m, int p, const T* A, const T* B, T* C) {
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < p; ++j) {
            T sum = 0;
            // B is walked down a column: stride p, a new cache line per k.
            for (int k = 0; k < m; ++k) sum += A[i * m + k] * B[k * p + j];
            C[i * p + j] = sum;
        }
    }
}

template <class T>
void cpu_matmul_ikj(int n, int m, int p, const T* A, const T* B, T* C) {
    for (int i = 0; i < n; ++i) {
        T* c = C + static_cast<long>(i) * p;
        for (int j = 0; j < p; ++j) c[j] = 0;
        for (int k = 0; k < m; ++k) {
            const T a = A[i * m + k];
            const T* b = B + static_cast<long>(k) * p;
            for (int j = 0; j < p; ++j) c[j] += a * b[j];  // stride 1 in B and C
        }
    }
}

template void cpu_matmul_ijk<float>(int, int, int, const float*, const float*, float*);
template void cpu_matmul_ijk<double>(int, int, int, const double*, const double*, double*);
template void cpu_matmul_ikj<float>(int, int, int, const float*, const float*, float*);
template void cpu_matmul_ikj<double>(int, int, int, const double*, const double*, double*);

double cgma(Kernel k) {
    switch (k) {
        // 2 flops per (load A, load B, read-modify-write C[i] in global memory).
        case Kernel::OneThreadPerBlock: return 2.0 / 3.0;
        // 2 flops per (load A, load B); the sum stays in a register.
        case Kernel::Naive1D:
        case Kernel::Naive2DRowX:
        case Kernel::Naive2D: return 1.0;
        // Per tile: each thread loads one element of A and one of B, and does
        // TILE multiply-adds = 2 TILE flops: CGMA = TILE.
        case Kernel::Tiled16: return 16.0;
        case Kernel::Tiled32: return 32.0;
        // Per step of one k: the block loads BM + BN elements and does
        // 2 BM BN flops: CGMA = 2 BM BN / (BM + BN) (128 for 128 x 128).
        case Kernel::Final: return 2.0 * kFinalBM * kFinalBN / (kFinalBM + kFinalBN);
        // The same count for its tile: the copy engine still reads each
        // element of A and B from global memory once per block.
        case Kernel::FinalTma: return 2.0 * kFinalTmaBM * kFinalTmaBN / (kFinalTmaBM + kFinalTmaBN);
    }
    throw std::invalid_argument("cgma: unknown kernel");
}

}  // namespace lab05
