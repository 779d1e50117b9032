// Lab 05, stages 1 and 5: the CPU products in two loop orders, and the CGMA of each kernel.
// Every TODO(student) below throws "not implemented" until you replace it.
#include <stdexcept>

#include "hpclab/not_implemented.hpp"
#include "matmul.hpp"

namespace lab05 {

template <class T>
void cpu_matmul_ijk(int n, int m, int p, const T* A, const T* B, T* C) {
    // TODO(student): stage 1, C[i][j] = sum over k of A[i][k] B[k][j], loops i, j, k.
    (void)n;
    (void)m;
    (void)p;
    (void)A;
    (void)B;
    (void)C;
    throw hpclab::NotImplemented("cpu_matmul_ijk");
}

template <class T>
void cpu_matmul_ikj(int n, int m, int p, const T* A, const T* B, T* C) {
    // TODO(student): stage 1, the same product with the loops in order i, k, j
    // (zero row i of C first; the inner loop adds A[i][k] times row k of B).
    (void)n;
    (void)m;
    (void)p;
    (void)A;
    (void)B;
    (void)C;
    throw hpclab::NotImplemented("cpu_matmul_ikj");
}

template void cpu_matmul_ijk<float>(int, int, int, const float*, const float*, float*);
template void cpu_matmul_ijk<double>(int, int, int, const double*, const double*, double*);
template void cpu_matmul_ikj<float>(int, int, int, const float*, const float*, float*);
template void cpu_matmul_ikj<double>(int, int, int, const double*, const double*, double*);

double cgma(Kernel k) {
    // TODO(student): stage 5, flops per global-memory element access in the
    // inner loop of each kernel (the lecture's kernel: 2/3). For the final
    // kernel use kFinalBM and kFinalBN from matmul.hpp; for final_tma (stage
    // 6d) kFinalTmaBM and kFinalTmaBN.
    (void)k;
    throw hpclab::NotImplemented("cgma");
}

}  // namespace lab05
