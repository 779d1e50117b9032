// Lab 13, stage 5: k-space in chunks of constant memory, one __constant__
// array per field (kx, ky, kz, rMu, iMu), one launch per chunk.
#include "fhd.hpp"
#include "fhd_math.cuh"
#include "hpclab/cuda.hpp"
#include "hpclab/not_implemented.hpp"

namespace lab13 {

void fhd_constant(const DeviceKSpace& k, const DeviceGrid& g, float* rFHd, float* iFHd, std::size_t chunk) {
    // TODO(student): stage 5. Declare five __constant__ float arrays of
    // kChunkCapacity at namespace scope in this file (their total must fit
    // in the module's 64 KiB). For each chunk of `chunk` samples (the last
    // one partial: every sample counts once), copy the chunk in with
    // cudaMemcpyToSymbol(..., cudaMemcpyDeviceToDevice), then launch a
    // thread per voxel that continues the sums the previous launch stored
    // (the first chunk starts them at zero). k.m == 0 gives zeros.
    (void)k, (void)g, (void)rFHd, (void)iFHd, (void)chunk;
    throw hpclab::NotImplemented("fhd_constant");
}

}  // namespace lab13
