// Device-side pieces of the timing protocol (hpclab/timed.hpp) for GPU
// drivers: fresh input made on the GPU from a repetition's seed, and output
// summaries computed there, so that neither a copy to the host nor a host
// loop sits in the timed window. Values depend on the seed and the index
// only, never on the launch geometry.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hpclab {
namespace timed {
namespace cuda {

// n values uniform in [lo, hi) (hi itself may occur in float, by rounding).
void fill_uniform(float* d, std::size_t n, std::uint64_t seed, float lo, float hi, cudaStream_t stream = nullptr);
void fill_uniform(double* d, std::size_t n, std::uint64_t seed, double lo, double hi, cudaStream_t stream = nullptr);

// An exact, order-sensitive digest of `bytes` bytes of device memory (as
// timed::exact_digest: two doubles of 32 bits each; not the same numbers).
// `d` must be 8-byte aligned. Waits for all work on the device first.
std::vector<double> exact_digest(const void* d, std::size_t bytes);

// timed::signed_sums on the device, with the same weights (accumulated in
// double by many threads,
// so the last bits vary from run to run: compare within a tolerance).
// Waits for all work on the device first.
std::vector<double> signed_sums(const float* d, std::size_t n, std::uint64_t seed, int patterns = 2);
std::vector<double> signed_sums(const double* d, std::size_t n, std::uint64_t seed, int patterns = 2);

}  // namespace cuda
}  // namespace timed
}  // namespace hpclab
