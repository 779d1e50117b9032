// Lab 13: the arithmetic of one voxel-sample pair, shared by the stages.
// Reference solution.
#pragma once

#include "fhd.hpp"
#include "hpclab/cuda.hpp"

namespace lab13 {

constexpr float kTwoPiF = 6.28318530717958647692f;

// No voxels: nothing to do. No samples: every sum is zero. Either way the
// caller returns at once (true).
inline bool nothing_to_sum(const DeviceKSpace& k, const DeviceGrid& g, float* rFHd, float* iFHd) {
    if (g.n > 0 && k.m == 0) {
        HPCLAB_CUDA_CHECK(cudaMemset(rFHd, 0, g.n * sizeof(float)));
        HPCLAB_CUDA_CHECK(cudaMemset(iFHd, 0, g.n * sizeof(float)));
    }
    return g.n == 0 || k.m == 0;
}

// The phase 2 pi k . x in radians, accurate sine and cosine (2 ulp).
__device__ __forceinline__ void accumulate_accurate(float kx, float ky, float kz, float rMu, float iMu, float x,
                                                    float y, float z, float& r, float& i) {
    const float arg = kTwoPiF * (kx * x + ky * y + kz * z);
    float s, c;
    sincosf(arg, &s, &c);
    r += rMu * c - iMu * s;
    i += iMu * c + rMu * s;
}

// The same phase through the special function units: fast, but their error
// grows with |arg| beyond [-pi, pi].
__device__ __forceinline__ void accumulate_fast(float kx, float ky, float kz, float rMu, float iMu, float x, float y,
                                                float z, float& r, float& i) {
    const float arg = kTwoPiF * (kx * x + ky * y + kz * z);
    const float s = __sinf(arg), c = __cosf(arg);
    r += rMu * c - iMu * s;
    i += iMu * c + rMu * s;
}

// The phase in turns, reduced to [-1/2, 1/2] exactly (t - rint(t) rounds
// nothing), so the special function units see [-pi, pi] where their error
// is documented and small. rint by the magic number 1.5 * 2^23: adding it
// leaves no fraction bits, so the sum rounds t to an integer, and
// subtracting it is exact (for |t| < 2^22). Two FADDs on the FMA pipes,
// where rintf's FRND would compete with the SFUs' own issue slots.
__device__ __forceinline__ float nearest_integer(float t) {
    const float magic = 12582912.0f;  // 1.5 * 2^23
    return __fsub_rn(__fadd_rn(t, magic), magic);
}

// sin and cos of 2 pi t for a phase t in turns, reduced first.
__device__ __forceinline__ void sincos_turns(float t, float& s, float& c) {
    const float reduced = t - nearest_integer(t);
    __sincosf(kTwoPiF * reduced, &s, &c);
}

__device__ __forceinline__ void accumulate_turns(float kx, float ky, float kz, float rMu, float iMu, float x, float y,
                                                 float z, float& r, float& i) {
    float s, c;
    sincos_turns(kx * x + ky * y + kz * z, s, c);
    r += rMu * c - iMu * s;
    i += iMu * c + rMu * s;
}

// The same, each sum grown by two FMAs. Written as above, nvcc makes
// r += rMu c - iMu s an FMUL, an FFMA and an FADD: three instructions
// where two do, and the tiles stage is bound by issue slots as much as by
// the SFUs. The price: the sum is rounded twice a sample instead of once
// (the handout's "What to expect" gives both the speed and the error).
__device__ __forceinline__ void accumulate_turns_fused(float kx, float ky, float kz, float rMu, float iMu, float x,
                                                       float y, float z, float& r, float& i) {
    float s, c;
    sincos_turns(kx * x + ky * y + kz * z, s, c);
    r = fmaf(rMu, c, fmaf(-iMu, s, r));
    i = fmaf(iMu, c, fmaf(rMu, s, i));
}

}  // namespace lab13
