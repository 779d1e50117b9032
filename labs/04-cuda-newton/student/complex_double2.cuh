// Lab 04, stage 2: complex arithmetic on CUDA's double2 (x = real, y = imaginary part),
// usable in host and device code. Every TODO(student) below throws "not implemented"
// on the host (and gives NaN on the device) until you replace it.
#pragma once

#include <cuda_runtime.h>

#include <cmath>

#include "todo_marker.cuh"  // LAB04_TODO: replace each use with your code

__host__ __device__ inline double2 operator+(double2 a, double2 b) {
    // TODO(student): (a.x + b.x) + i (a.y + b.y)
    (void)a;
    (void)b;
    LAB04_TODO("operator+");
}

__host__ __device__ inline double2 operator-(double2 a, double2 b) {
    // TODO(student): the difference
    (void)a;
    (void)b;
    LAB04_TODO("operator-");
}

__host__ __device__ inline double2 operator*(double2 a, double2 b) {
    // TODO(student): (a.x b.x - a.y b.y) + i (a.x b.y + a.y b.x)
    (void)a;
    (void)b;
    LAB04_TODO("operator*");
}

__host__ __device__ inline double2 operator/(double2 a, double2 b) {
    // TODO(student): a / b. Dividing by |b|^2 = b.x^2 + b.y^2 overflows for
    // |b| > 1e154 and underflows for |b| < 1e-154: use Smith's algorithm
    // (scale by the larger of |b.x| and |b.y|, see the handout).
    (void)a;
    (void)b;
    LAB04_TODO("operator/");
}

// |a| without overflow or underflow in the squares (hypot does that).
__host__ __device__ inline double complex_abs(double2 a) {
    // TODO(student): the modulus of a.
    (void)a;
    LAB04_TODO_REAL("complex_abs");
}
