// Lab 08, part 1: the occupancy calculator, the lecture's GPUs, and the GPU
// of this machine read from cudaDeviceGetAttribute.
#include <cuda_runtime.h>

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "hpclab/cuda.hpp"
#include "hpclab/not_implemented.hpp"
#include "occupancy.hpp"

namespace lab08 {

Occupancy occupancy(const DeviceDescription& device, const KernelResources& kernel) {
    // TODO(student): part 1. Check the input (see occupancy.hpp), then the
    // blocks per SM that each resource allows:
    //   warps:     max_warps_per_sm / warps per block (a partial warp takes a whole slot);
    //   blocks:    max_blocks_per_sm;
    //   registers: each warp's registers rounded up to the allocation unit;
    //              each of the register_partitions parts of the file holds
    //              whole warps; the block must also fit registers_per_block
    //              with its warps rounded up to a multiple of the partitions;
    //   shared:    static + dynamic + the reservation, rounded up to the
    //              unit, against the SM's configured shared memory (the
    //              carveout), after the per-block limit (opt-in or not).
    // The smallest limit wins; fill in every field of Occupancy.
    (void)device;
    (void)kernel;
    throw hpclab::NotImplemented("occupancy");
}

DeviceDescription lecture_device(const std::string& name) {
    // TODO(student): part 1. Fill a DeviceDescription for "C2050", "K20c"
    // and "P100" (any case) from lecture 36's tables and its occupancy
    // calculator sheet (set_name for the name); std::invalid_argument for
    // any other name. The lecture counts the C2050's registers with no
    // allocation unit.
    (void)name;
    throw hpclab::NotImplemented("lecture_device");
}

ArchitectureConstants architecture_constants(int cc_major, int cc_minor) {
    // TODO(student): part 1. The allocation units, register partitions,
    // register limit per thread and carveout sizes of compute capabilities
    // 7.0 to 12.x (see the handout); std::invalid_argument otherwise.
    (void)cc_major;
    (void)cc_minor;
    throw hpclab::NotImplemented("architecture_constants");
}

DeviceDescription describe_device(int device) {
    // TODO(student): part 1. The name and the limits lab 04's device query
    // shows from hpclab::cuda::device_info (common/); with
    // cudaDeviceGetAttribute (HPCLAB_CUDA_CHECK each call) the three the
    // calculator needs beyond them: block slots, opt-in and reserved shared
    // memory per block; the rest from architecture_constants.
    (void)device;
    throw hpclab::NotImplemented("describe_device");
}

}  // namespace lab08
