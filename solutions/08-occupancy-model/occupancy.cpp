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
namespace {

std::int64_t round_up(std::int64_t x, std::int64_t unit) { return unit <= 1 ? x : (x + unit - 1) / unit * unit; }

void set_carveouts(std::int64_t* sizes, int* count, std::initializer_list<int> kib) {
    *count = 0;
    for (int k : kib) sizes[(*count)++] = std::int64_t(k) * 1024;
}

// The shared memory the SM is configured with for a block of `allocated`
// bytes: the preferred carveout rounded up to a size the SM supports, or,
// when that is too small for one block, the smallest size that holds it.
std::int64_t configured_shared(const DeviceDescription& d, int carveout_percent, std::int64_t allocated) {
    if (d.carveout_count == 0) return d.shared_per_sm;
    auto size_at_least = [&](std::int64_t want) {
        if (want <= 0) return std::int64_t(0);
        for (int i = 0; i < d.carveout_count; ++i)
            if (d.carveout_sizes[i] >= want) return d.carveout_sizes[i];
        return d.carveout_sizes[d.carveout_count - 1];
    };
    const std::int64_t preferred =
        carveout_percent < 0 ? d.shared_per_sm : size_at_least(carveout_percent * d.shared_per_sm / 100);
    return preferred >= allocated ? preferred : size_at_least(allocated);
}

}  // namespace

Occupancy occupancy(const DeviceDescription& d, const KernelResources& k) {
    if (d.warp_size < 1 || d.max_threads_per_block < 1 || d.max_warps_per_sm < 1 || d.max_blocks_per_sm < 1 ||
        d.registers_per_sm < 1 || d.registers_per_block < 1 || d.register_allocation_unit < 1 ||
        d.register_partitions < 1 || d.shared_allocation_unit < 1)
        throw std::invalid_argument("occupancy: the device description has a zero limit");
    if (k.threads_per_block < 1) throw std::invalid_argument("occupancy: threads_per_block must be >= 1");
    if (k.registers_per_thread < 0 || k.static_shared < 0 || k.dynamic_shared < 0)
        throw std::invalid_argument("occupancy: registers and shared memory sizes must be >= 0");
    if (k.carveout_percent < -1 || k.carveout_percent > 100)
        throw std::invalid_argument("occupancy: carveout_percent must be -1 (not set) or 0..100");

    Occupancy o;
    const int warps = (k.threads_per_block + d.warp_size - 1) / d.warp_size;
    o.warps_per_block = warps;
    if (k.threads_per_block > d.max_threads_per_block) {
        o.limiter = Limiter::block_size;
        return o;
    }

    // Warp and block slots.
    o.limit_warps = d.max_warps_per_sm / warps;
    o.limit_blocks = d.max_blocks_per_sm;

    // Registers: per warp (rounded to the unit) or per block; each partition
    // of the register file holds whole warps; the block must fit the
    // per-block limit even when its warps are spread over every partition.
    if (k.registers_per_thread == 0) {
        o.limit_registers = kUnlimited;
    } else if (k.registers_per_thread > d.max_registers_per_thread) {
        o.limit_registers = 0;
    } else if (d.register_granularity == RegisterGranularity::block) {
        o.registers_per_block =
            round_up(std::int64_t(k.registers_per_thread) * d.warp_size * warps, d.register_allocation_unit);
        o.limit_registers =
            o.registers_per_block > d.registers_per_block ? 0 : int(d.registers_per_sm / o.registers_per_block);
    } else {
        const std::int64_t per_warp =
            round_up(std::int64_t(k.registers_per_thread) * d.warp_size, d.register_allocation_unit);
        o.registers_per_block = per_warp * warps;
        const std::int64_t spread = per_warp * round_up(warps, d.register_partitions);
        if (o.registers_per_block > d.registers_per_block || spread > d.registers_per_block) {
            o.limit_registers = 0;
        } else {
            const std::int64_t warps_per_partition = (d.registers_per_sm / d.register_partitions) / per_warp;
            o.limit_registers = int(warps_per_partition * d.register_partitions / warps);
        }
    }

    // Shared memory: static + dynamic + the reservation, rounded up; a block
    // may use shared_per_block unless the kernel opted in to more.
    const std::int64_t used = k.static_shared + k.dynamic_shared;
    const bool set = k.max_dynamic_shared != kDefaultDynamicLimit;
    const std::int64_t per_block_limit = (set && k.static_shared + k.max_dynamic_shared > d.shared_per_block)
                                             ? d.shared_per_block_optin
                                             : d.shared_per_block;
    o.shared_per_block = round_up(used + d.shared_reserved_per_block, d.shared_allocation_unit);
    o.shared_per_sm = configured_shared(d, k.carveout_percent, o.shared_per_block);
    if ((set && k.dynamic_shared > k.max_dynamic_shared) ||
        o.shared_per_block > per_block_limit + d.shared_reserved_per_block) {
        o.limit_shared = 0;
    } else if (o.shared_per_block == 0) {
        o.limit_shared = kUnlimited;
    } else {
        o.limit_shared = int(o.shared_per_sm / o.shared_per_block);
    }

    const int limits[] = {o.limit_warps, o.limit_blocks, o.limit_registers, o.limit_shared};
    int best = 0;
    for (int i = 1; i < 4; ++i)
        if (limits[i] < limits[best]) best = i;
    o.limiter = static_cast<Limiter>(best);
    o.blocks_per_sm = limits[best];
    o.active_warps = o.blocks_per_sm * warps;
    o.occupancy = double(o.active_warps) / d.max_warps_per_sm;
    return o;
}

DeviceDescription lecture_device(const std::string& name) {
    std::string key;
    for (char c : name) key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    DeviceDescription d;
    d.warp_size = 32;
    d.max_threads_per_block = 1024;
    d.register_granularity = RegisterGranularity::warp;
    if (key == "c2050") {
        // Lecture 36: 1,536 thread slots, 48 warps, at most 8 blocks, 32 K
        // registers, 48 KB of shared memory. The lecture divides the register
        // file by threads x registers, with no allocation unit: unit 1, one
        // partition. (The real Fermi rounds each warp's registers up to 64.)
        set_name(d, "Tesla C2050 (lecture 36)");
        d.cc_major = 2, d.cc_minor = 0, d.sm_count = 14;
        d.max_threads_per_sm = 1536, d.max_warps_per_sm = 48, d.max_blocks_per_sm = 8;
        d.registers_per_sm = 32 * 1024, d.registers_per_block = 32 * 1024, d.max_registers_per_thread = 63;
        d.register_allocation_unit = 1, d.register_partitions = 1;
        d.shared_per_sm = d.shared_per_block = d.shared_per_block_optin = 48 * 1024;
        d.shared_allocation_unit = 128;
    } else if (key == "k20c") {
        // Lecture 36 and its occupancy-calculator sheet for 3.5: 2,048
        // threads, 64 warps, 16 blocks, 64 K registers allocated per warp in
        // units of 256 (warps in groups of 4), 48 KB shared (the sheet's
        // configuration) in units of 256 bytes.
        set_name(d, "Tesla K20c (lecture 36)");
        d.cc_major = 3, d.cc_minor = 5, d.sm_count = 13;
        d.max_threads_per_sm = 2048, d.max_warps_per_sm = 64, d.max_blocks_per_sm = 16;
        d.registers_per_sm = 64 * 1024, d.registers_per_block = 64 * 1024, d.max_registers_per_thread = 255;
        d.register_allocation_unit = 256, d.register_partitions = 4;
        d.shared_per_sm = d.shared_per_block = d.shared_per_block_optin = 48 * 1024;
        d.shared_allocation_unit = 256;
    } else if (key == "p100") {
        // Lecture 36: 2,048 threads, 64 warps, 32 blocks; 64 K registers and
        // 64 KB of shared memory per SM, at most 48 KB per block (CUDA C
        // Programming Guide, compute capability 6.0); two register partitions.
        set_name(d, "Tesla P100 (lecture 36)");
        d.cc_major = 6, d.cc_minor = 0, d.sm_count = 56;
        d.max_threads_per_sm = 2048, d.max_warps_per_sm = 64, d.max_blocks_per_sm = 32;
        d.registers_per_sm = 64 * 1024, d.registers_per_block = 64 * 1024, d.max_registers_per_thread = 255;
        d.register_allocation_unit = 256, d.register_partitions = 2;
        d.shared_per_sm = 64 * 1024, d.shared_per_block = d.shared_per_block_optin = 48 * 1024;
        d.shared_allocation_unit = 256;
    } else {
        throw std::invalid_argument("lecture_device: unknown GPU '" + name + "' (C2050, K20c or P100)");
    }
    return d;
}

ArchitectureConstants architecture_constants(int major, int minor) {
    ArchitectureConstants a;
    if (major < 7 || major > 12) throw std::invalid_argument("architecture_constants: unknown compute capability");
    a.register_allocation_unit = 256;
    a.register_partitions = 4;
    a.max_registers_per_thread = 255;
    a.shared_allocation_unit = major >= 8 ? 128 : 256;
    if (major == 7 && minor == 5) {
        set_carveouts(a.carveout_sizes, &a.carveout_count, {32, 64});
    } else if (major == 7) {
        set_carveouts(a.carveout_sizes, &a.carveout_count, {0, 8, 16, 32, 64, 96});
    } else if (major == 8 && (minor == 0 || minor == 7)) {
        set_carveouts(a.carveout_sizes, &a.carveout_count, {0, 8, 16, 32, 64, 100, 132, 164});
    } else if (major == 8) {
        set_carveouts(a.carveout_sizes, &a.carveout_count, {0, 8, 16, 32, 64, 100});
    } else if (major == 9 || major == 10 || major == 11) {
        set_carveouts(a.carveout_sizes, &a.carveout_count, {0, 8, 16, 32, 64, 100, 132, 164, 196, 228});
    } else {
        set_carveouts(a.carveout_sizes, &a.carveout_count, {0, 8, 16, 32, 64, 100});
    }
    return a;
}

DeviceDescription describe_device(int device) {
    // The limits every lab reads (lab 04's device query) come from common/;
    // the calculator needs three more, which only it reads.
    const hpclab::cuda::DeviceInfo info = hpclab::cuda::device_info(device);
    DeviceDescription d;
    set_name(d, info.name);
    d.cc_major = info.cc_major;
    d.cc_minor = info.cc_minor;
    d.sm_count = info.sm_count;
    d.warp_size = info.warp_size;
    d.max_threads_per_block = info.max_threads_per_block;
    d.max_threads_per_sm = info.max_threads_per_sm;
    d.max_warps_per_sm = d.max_threads_per_sm / d.warp_size;
    d.registers_per_sm = info.registers_per_sm;
    d.registers_per_block = info.registers_per_block;
    d.shared_per_sm = static_cast<std::int64_t>(info.shared_per_sm);
    d.shared_per_block = static_cast<std::int64_t>(info.shared_per_block);
    int blocks = 0, optin = 0, reserved = 0;
    HPCLAB_CUDA_CHECK(cudaDeviceGetAttribute(&blocks, cudaDevAttrMaxBlocksPerMultiprocessor, device));
    HPCLAB_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    HPCLAB_CUDA_CHECK(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device));
    d.max_blocks_per_sm = blocks;
    d.shared_per_block_optin = optin;
    d.shared_reserved_per_block = reserved;
    const ArchitectureConstants a = architecture_constants(d.cc_major, d.cc_minor);
    d.register_allocation_unit = a.register_allocation_unit;
    d.register_granularity = RegisterGranularity::warp;
    d.register_partitions = a.register_partitions;
    d.max_registers_per_thread = a.max_registers_per_thread;
    d.shared_allocation_unit = a.shared_allocation_unit;
    d.carveout_count = a.carveout_count;
    std::copy(a.carveout_sizes, a.carveout_sizes + kMaxCarveouts, d.carveout_sizes);
    return d;
}

}  // namespace lab08
