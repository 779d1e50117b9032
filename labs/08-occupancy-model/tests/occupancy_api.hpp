// Lab 08 test helpers (visible and hidden tests): blocks per SM as the CUDA
// runtime's occupancy API counts them, and as the student's calculator does.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "hpclab/judged.hpp"
#include "occupancy.hpp"

namespace lab08_test {

// The runtime's blocks per SM for `function` at this launch configuration;
// a configuration the runtime refuses runs no block (0).
inline int runtime_blocks_per_sm(const void* function, int threads, std::size_t dynamic_shared) {
    int blocks = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, function, threads, dynamic_shared) != cudaSuccess) {
        (void)cudaGetLastError();  // the runtime refuses the configuration: no block runs
        blocks = 0;
    }
    return blocks;
}

// lab08::occupancy's blocks per SM for every case, as one judged call.
inline std::vector<int> judged_blocks_per_sm(const lab08::DeviceDescription& d,
                                             const std::vector<lab08::KernelResources>& cases) {
    return HPCLAB_CALL([&] {
        std::vector<int> blocks;
        for (const auto& k : cases) blocks.push_back(lab08::occupancy(d, k).blocks_per_sm);
        return blocks;
    });
}

}  // namespace lab08_test
