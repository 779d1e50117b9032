// Lab 13, stages 6-8: k-space chunks as an array of KSample structs in
// constant memory (k.samples holds them in device memory); accurate sine
// and cosine, then __sinf/__cosf on the raw phase, then on the phase
// reduced in turns.
#include "fhd.hpp"
#include "fhd_math.cuh"
#include "hpclab/cuda.hpp"
#include "hpclab/not_implemented.hpp"

namespace lab13 {

void fhd_structs(const DeviceKSpace& k, const DeviceGrid& g, float* rFHd, float* iFHd, std::size_t chunk) {
    // TODO(student): stage 6. Stage 5 with one __constant__ KSample array
    // of kChunkCapacity and one copy per chunk; accumulate_accurate. Write
    // the chunk loop and the kernel once (a template on the arithmetic):
    // stages 7 and 8 differ only in it.
    (void)k, (void)g, (void)rFHd, (void)iFHd, (void)chunk;
    throw hpclab::NotImplemented("fhd_structs");
}

void fhd_fast_trig(const DeviceKSpace& k, const DeviceGrid& g, float* rFHd, float* iFHd, std::size_t chunk) {
    // TODO(student): stage 7. Stage 6 with accumulate_fast.
    (void)k, (void)g, (void)rFHd, (void)iFHd, (void)chunk;
    throw hpclab::NotImplemented("fhd_fast_trig");
}

void fhd_turns(const DeviceKSpace& k, const DeviceGrid& g, float* rFHd, float* iFHd, std::size_t chunk) {
    // TODO(student): stage 8. Stage 6 with accumulate_turns.
    (void)k, (void)g, (void)rFHd, (void)iFHd, (void)chunk;
    throw hpclab::NotImplemented("fhd_turns");
}

}  // namespace lab13
