// The GPU's own clock, for kernels that wait on another block or another
// GPU and must give up after a deadline instead of hanging.
#pragma once

#include <cstdint>

namespace hpclab {
namespace cuda {

// Nanoseconds of the GPU's global timer (PTX %globaltimer): one clock for
// every SM of the GPU, so a wait can tell how long it has waited wherever
// it runs. Its resolution is about a microsecond: fine for deadlines, not
// for timing work.
__device__ __forceinline__ std::uint64_t global_nanoseconds() {
    std::uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

}  // namespace cuda
}  // namespace hpclab
