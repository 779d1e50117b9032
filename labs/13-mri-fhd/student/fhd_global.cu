// Lab 13, stages 2-4: k-space in global memory. A thread per sample with
// atomics, the interchanged loops with a thread per voxel, and the voxel's
// position and sums kept in registers. Each function overwrites rFHd and
// iFHd (g.n floats) and must handle any g.n and k.m, 0 included.
#include "fhd.hpp"
#include "fhd_math.cuh"
#include "hpclab/cuda.hpp"
#include "hpclab/not_implemented.hpp"

namespace lab13 {

void fhd_atomic(const DeviceKSpace& k, const DeviceGrid& g, float* rFHd, float* iFHd) {
    // TODO(student): stage 2, the lecture's first kernel corrected: zero the
    // outputs, then a thread per sample m that walks every voxel n and
    // atomicAdds its term (accumulate_accurate from 0) to rFHd[n], iFHd[n].
    (void)k, (void)g, (void)rFHd, (void)iFHd;
    throw hpclab::NotImplemented("fhd_atomic");
}

void fhd_interchange(const DeviceKSpace& k, const DeviceGrid& g, float* rFHd, float* iFHd) {
    // TODO(student): stage 3. A thread per voxel (grid rounded up, the last
    // block partial); the sums read from and written back to rFHd[n] and
    // iFHd[n] at every sample, as the lecture's kernel does.
    (void)k, (void)g, (void)rFHd, (void)iFHd;
    throw hpclab::NotImplemented("fhd_interchange");
}

void fhd_registers(const DeviceKSpace& k, const DeviceGrid& g, float* rFHd, float* iFHd) {
    // TODO(student): stage 4. As stage 3, with x_n and the two sums in
    // registers: one read of the position, one write of each sum.
    (void)k, (void)g, (void)rFHd, (void)iFHd;
    throw hpclab::NotImplemented("fhd_registers");
}

}  // namespace lab13
