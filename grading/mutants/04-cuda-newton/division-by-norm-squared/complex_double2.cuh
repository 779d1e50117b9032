// Lab 04, stage 2: complex arithmetic on CUDA's double2 (x = real, y = imaginary part),
// usable in host and device code.
#pragma once

#include <cuda_runtime.h>

#include <cmath>

#include "hpclab/not_implemented.hpp"

__host__ __device__ inline double2 operator+(double2 a, double2 b) { return make_double2(a.x + b.x, a.y + b.y); }

__host__ __device__ inline double2 operator-(double2 a, double2 b) { return make_double2(a.x - b.x, a.y - b.y); }

__host__ __device__ inline double2 operator*(double2 a, double2 b) {
    return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// Smith's algorithm (1962): divide through by the larger component of b, so
// no intermediate is |b|^2, which would overflow above 1e154 and underflow
// below 1e-154 although the quotient is representable.
__host__ __device__ inline double2 operator/(double2 a, double2 b) {
    const double d = b.x * b.x + b.y * b.y;
    return make_double2((a.x * b.x + a.y * b.y) / d, (a.y * b.x - a.x * b.y) / d);
}

// |a| without overflow or underflow in the squares.
__host__ __device__ inline double complex_abs(double2 a) { return hypot(a.x, a.y); }
