// Host memory availability (Linux /proc/meminfo, POSIX sysconf fallback).
#include "hpclab/memory.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>

namespace hpclab {

std::size_t available_host_memory() {
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    std::size_t kib = 0;
    std::string unit;
    while (meminfo >> key >> kib >> unit) {
        if (key == "MemAvailable:") return kib * 1024;
    }
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page)
                                 : std::numeric_limits<std::size_t>::max();
}

std::size_t checked_bytes(std::size_t count, std::size_t size) {
    if (size != 0 && count > std::numeric_limits<std::size_t>::max() / size)
        throw std::overflow_error(std::to_string(count) + " elements of " + std::to_string(size) +
                                  " bytes overflow the address space");
    return count * size;
}

void require_host_memory(std::size_t bytes, const std::string& what) {
    const std::size_t available = available_host_memory();
    if (bytes > available) {
        char buf[256];
        std::snprintf(buf, sizeof buf, "%s needs %.2f GiB of memory; %.2f GiB are available", what.c_str(),
                      bytes / 1073741824.0, available / 1073741824.0);
        throw std::runtime_error(buf);
    }
}

}  // namespace hpclab
