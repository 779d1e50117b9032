// Lab 13, stage 10: the turns arithmetic with k-space in shared-memory
// tiles loaded from global memory (k.samples), and several voxels a thread.
#include "fhd.hpp"
#include "fhd_math.cuh"
#include "hpclab/cuda.hpp"
#include "hpclab/not_implemented.hpp"

namespace lab13 {

void fhd_tiles(const DeviceKSpace& k, const DeviceGrid& g, float* rFHd, float* iFHd) {
    // TODO(student): stage 10. Blocks of 512 threads, each thread 4 voxels
    // (v = first + q * blockDim.x), positions and sums in registers. Walk
    // k-space in tiles of 1024 samples: __syncthreads(), the block copies
    // a tile from k.samples into __shared__ arrays (a float4 of kx, ky, kz,
    // rMu and a float of iMu: one 16-byte load for four of the five),
    // __syncthreads(), every thread adds each sample's term to its 4
    // voxels: the turns arithmetic, each sum grown with two fmaf (see the
    // handout, stage 10). Dead voxels (past g.n) still help load the tiles.
    (void)k, (void)g, (void)rFHd, (void)iFHd;
    throw hpclab::NotImplemented("fhd_tiles");
}

}  // namespace lab13
