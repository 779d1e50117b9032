// Host memory checks: refuse a size that cannot fit before allocating it,
// so that a too-large --n is a clear message, not an OOM kill or bad_alloc.
#pragma once

#include <cstddef>
#include <string>

namespace hpclab {

// Bytes the kernel reports as available (MemAvailable in /proc/meminfo;
// physical memory where that is unreadable).
std::size_t available_host_memory();

// Throws std::runtime_error("<what> needs X GiB of memory; Y GiB are available")
// when bytes exceed what is available. Callers compute bytes with
// checked_bytes() so that the multiplication itself cannot overflow.
void require_host_memory(std::size_t bytes, const std::string& what);

// count * size in bytes, or throws std::overflow_error if that overflows.
std::size_t checked_bytes(std::size_t count, std::size_t size);

}  // namespace hpclab
