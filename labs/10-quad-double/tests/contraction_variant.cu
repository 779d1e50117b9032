// Lab 10 contraction probe: this one translation unit is compiled twice, once with FMA
// contraction allowed (nvcc -fmad=true; host -mfma -ffp-contract=fast) and once forbidden
// (-fmad=false; -ffp-contract=off), each copy in its own namespace (CONTRACTION_VARIANT), so one
// test program can compare the bits of every operation between the two builds.
#include <cstddef>

#include <multi_double.hpp>  // first -I: the implementation under test (see contraction_probe.sh)

#include "hpclab/cuda.hpp"

#ifndef CONTRACTION_VARIANT
#error "compile with -DCONTRACTION_VARIANT=<namespace name>"
#endif

// On the host, inline everything into this translation unit's copy: otherwise the linker could
// pick one out-of-line copy of an inline function for both variants and the test would compare
// a build with itself.
#if defined(__GNUC__)
#define PROBE_FLATTEN __attribute__((flatten, noinline))
#else
#define PROBE_FLATTEN
#endif

namespace lab10 {
namespace CONTRACTION_VARIANT {

// Per case: inputs a, b as quad doubles (8 doubles); outputs dd add, sub, mul, div, sqrt (2
// doubles each) and qd add, sub, mul, div, sqrt (4 each): 30 doubles.
constexpr int kOutPerCase = 30;

__host__ __device__ inline void all_ops(const double* in, double* out) {
    const QuadDouble a = make_qd(in[0], in[1], in[2], in[3]);
    const QuadDouble b = make_qd(in[4], in[5], in[6], in[7]);
    const DoubleDouble da = make_dd(a.v.x, a.v.y), db = make_dd(b.v.x, b.v.y);
    const DoubleDouble pa = make_dd(a.v.x < 0 ? -a.v.x : a.v.x, a.v.x < 0 ? -a.v.y : a.v.y);
    const QuadDouble qa = a.v.x < 0 ? qd_neg(a) : a;
    const DoubleDouble d[5] = {dd_add(da, db), dd_sub(da, db), dd_mul(da, db), dd_div(da, db), dd_sqrt(pa)};
    const QuadDouble q[5] = {qd_add(a, b), qd_sub(a, b), qd_mul(a, b), qd_div(a, b), qd_sqrt(qa)};
    for (int k = 0; k < 5; ++k) {
        out[2 * k] = d[k].v.x;
        out[2 * k + 1] = d[k].v.y;
        out[10 + 4 * k] = q[k].v.x;
        out[10 + 4 * k + 1] = q[k].v.y;
        out[10 + 4 * k + 2] = q[k].v.z;
        out[10 + 4 * k + 3] = q[k].v.w;
    }
}

__global__ void all_ops_kernel(const double* in, double* out, std::size_t n) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < n) all_ops(in + 8 * i, out + kOutPerCase * i);
}

// A plain a*b + c: contracted into one FMA when the flags allow it (the control that shows
// the flags took effect).
__global__ void naive_mad_kernel(const double* in, double* out) { out[0] = in[0] * in[1] + in[2]; }

PROBE_FLATTEN void host_results(const double* in, double* out, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) all_ops(in + 8 * i, out + kOutPerCase * i);
}

PROBE_FLATTEN double host_naive_mad(const double* in) { return in[0] * in[1] + in[2]; }

void device_results(const double* in, double* out, std::size_t n) {
    hpclab::cuda::DeviceBuffer<double> din(8 * n), dout(kOutPerCase * n);
    din.copy_from_host(in, 8 * n);
    all_ops_kernel<<<static_cast<unsigned>((n + 127) / 128), 128>>>(din.get(), dout.get(), n);
    HPCLAB_CUDA_CHECK_LAUNCH();
    dout.copy_to_host(out, kOutPerCase * n);
}

double device_naive_mad(const double* in) {
    hpclab::cuda::DeviceBuffer<double> din(3), dout(1);
    din.copy_from_host(in, 3);
    naive_mad_kernel<<<1, 1>>>(din.get(), dout.get());
    HPCLAB_CUDA_CHECK_LAUNCH();
    double r;
    dout.copy_to_host(&r, 1);
    return r;
}

}  // namespace CONTRACTION_VARIANT
}  // namespace lab10
