// Lab 13: the arithmetic of one voxel-sample pair, shared by your stages:
//   r += rMu cos(2 pi k . x) - iMu sin(2 pi k . x)
//   i += iMu cos(2 pi k . x) + rMu sin(2 pi k . x)
// Device functions cannot throw: until written they make the sums NaN.
#pragma once

#include <cmath>

#include "fhd.hpp"

namespace lab13 {

constexpr float kTwoPiF = 6.28318530717958647692f;

// The phase in radians; sincosf (accurate to 2 ulp).
__device__ __forceinline__ void accumulate_accurate(float kx, float ky, float kz, float rMu, float iMu, float x,
                                                    float y, float z, float& r, float& i) {
    // TODO(student): stage 2.
    (void)kx, (void)ky, (void)kz, (void)rMu, (void)iMu, (void)x, (void)y, (void)z;
    r = i = NAN;
}

// The phase in radians; __sinf and __cosf (the special function units).
__device__ __forceinline__ void accumulate_fast(float kx, float ky, float kz, float rMu, float iMu, float x, float y,
                                                float z, float& r, float& i) {
    // TODO(student): stage 7.
    (void)kx, (void)ky, (void)kz, (void)rMu, (void)iMu, (void)x, (void)y, (void)z;
    r = i = NAN;
}

// The phase in turns t = k . x, reduced to [-1/2, 1/2] (t - rintf(t) is
// exact: why?), then __sincosf of 2 pi times that.
__device__ __forceinline__ void accumulate_turns(float kx, float ky, float kz, float rMu, float iMu, float x, float y,
                                                 float z, float& r, float& i) {
    // TODO(student): stage 8.
    (void)kx, (void)ky, (void)kz, (void)rMu, (void)iMu, (void)x, (void)y, (void)z;
    r = i = NAN;
}

}  // namespace lab13
