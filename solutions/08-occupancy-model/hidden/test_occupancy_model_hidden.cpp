// Lab 08 hidden tests (compiled only by the grader): the calculator on
// random devices and kernels against an independent count written here,
// the P100's two register partitions, more model cases, and, on a GPU, the
// calculator against the runtime for random configurations of the probe
// kernels. Every call into student code is judged (hpclab/judged.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "hpclab/cuda.hpp"
#include "hpclab/data.hpp"
#include "hpclab/gtest_gpu.hpp"
#include "hpclab/judged.hpp"
#include "occupancy.hpp"
#include "probe_kernels.hpp"
#include "tests/occupancy_api.hpp"
#include "time_model.hpp"

namespace {

using lab08::KernelResources;

std::int64_t up(std::int64_t x, std::int64_t u) { return (x + u - 1) / u * u; }

// The blocks per SM, counted the long way: add blocks one at a time while
// every resource still holds them (a second derivation of the rules).
int reference_blocks(const lab08::DeviceDescription& d, const KernelResources& k) {
    if (k.threads_per_block > d.max_threads_per_block) return 0;
    const int warps = (k.threads_per_block + d.warp_size - 1) / d.warp_size;
    const std::int64_t warp_regs = up(std::int64_t(k.registers_per_thread) * d.warp_size, d.register_allocation_unit);
    if (k.registers_per_thread > d.max_registers_per_thread) return 0;
    if (warp_regs * up(warps, d.register_partitions) > d.registers_per_block) return 0;
    const std::int64_t smem =
        up(k.static_shared + k.dynamic_shared + d.shared_reserved_per_block, d.shared_allocation_unit);
    if (smem > d.shared_per_block + d.shared_reserved_per_block) return 0;
    std::vector<std::int64_t> partition(d.register_partitions, 0);
    int blocks = 0;
    for (;;) {
        if ((blocks + 1) * warps > d.max_warps_per_sm || blocks + 1 > d.max_blocks_per_sm) break;
        if ((blocks + 1) * smem > d.shared_per_sm) break;
        // place the block's warps one by one in the emptiest partition
        std::vector<std::int64_t> trial = partition;
        bool fits = true;
        for (int w = 0; w < warps && fits; ++w) {
            auto it = std::min_element(trial.begin(), trial.end());
            if (*it + warp_regs > d.registers_per_sm / d.register_partitions) fits = false;
            *it += warp_regs;
        }
        if (!fits) break;
        partition = trial;
        ++blocks;
    }
    return blocks;
}

lab08::DeviceDescription random_device(hpclab::Rng& rng) {
    lab08::DeviceDescription d;
    lab08::set_name(d, "random");
    d.cc_major = 9;
    d.sm_count = int(rng.uniform_int(1, 200));
    d.warp_size = 32;
    d.max_threads_per_block = 1024;
    d.max_warps_per_sm = int(rng.uniform_int(2, 4)) * 16;
    d.max_threads_per_sm = 32 * d.max_warps_per_sm;
    d.max_blocks_per_sm = int(rng.uniform_int(8, 32));
    d.registers_per_sm = 65536;
    d.registers_per_block = 65536;
    d.max_registers_per_thread = 255;
    d.register_allocation_unit = rng.uniform_int(0, 1) ? 256 : 128;
    d.register_partitions = rng.uniform_int(0, 1) ? 4 : 2;
    d.shared_per_sm = 1024 * rng.uniform_int(64, 228);
    d.shared_per_block = 49152;
    d.shared_per_block_optin = 49152;
    d.shared_allocation_unit = rng.uniform_int(0, 1) ? 128 : 256;
    d.shared_reserved_per_block = rng.uniform_int(0, 1) ? 1024 : 0;
    return d;
}

TEST(HiddenOccupancy, RandomDevicesAndKernels) {
    hpclab::Rng rng(808);
    std::vector<lab08::DeviceDescription> devices;
    std::vector<KernelResources> kernels;
    for (int i = 0; i < 400; ++i) {
        devices.push_back(random_device(rng));
        KernelResources k;
        k.threads_per_block = int(rng.uniform_int(1, 1024));
        k.registers_per_thread = int(rng.uniform_int(1, 255));
        k.static_shared = rng.uniform_int(0, 3) == 0 ? 0 : rng.uniform_int(0, 24000);
        k.dynamic_shared = rng.uniform_int(0, 2) == 0 ? 0 : rng.uniform_int(0, 24000);
        kernels.push_back(k);
    }
    const auto got = HPCLAB_CALL([&] {
        std::vector<int> blocks;
        for (std::size_t i = 0; i < kernels.size(); ++i)
            blocks.push_back(lab08::occupancy(devices[i], kernels[i]).blocks_per_sm);
        return blocks;
    });
    ASSERT_EQ(got.size(), kernels.size());
    for (std::size_t i = 0; i < kernels.size(); ++i)
        EXPECT_EQ(got[i], reference_blocks(devices[i], kernels[i]))
            << "case " << i << ": " << kernels[i].threads_per_block << " threads, " << kernels[i].registers_per_thread
            << " registers, " << kernels[i].static_shared + kernels[i].dynamic_shared << " shared bytes";
}

TEST(HiddenOccupancy, P100TwoPartitionsAndSharedLimit) {
    const auto p100 = HPCLAB_VALUE(lab08::lecture_device("P100"));
    KernelResources k;
    k.threads_per_block = 64;
    k.registers_per_thread = 40;  // 1,280 a warp; half the file holds 25 warps: 50 in all, 25 blocks
    EXPECT_EQ(HPCLAB_VALUE(lab08::occupancy(p100, k)).blocks_per_sm, 25);
    k.registers_per_thread = 16;
    k.static_shared = 20000;  // 20,224 bytes (unit 256): 3 blocks in 64 KiB
    const auto o = HPCLAB_VALUE(lab08::occupancy(p100, k));
    EXPECT_EQ(o.blocks_per_sm, 3);
    EXPECT_EQ(o.limiter, lab08::Limiter::shared);
    k.static_shared = 49153;
    EXPECT_EQ(HPCLAB_VALUE(lab08::occupancy(p100, k)).blocks_per_sm, 0);
}

TEST(HiddenOccupancy, C2050CliffAtEveryBlockShape) {
    const auto c2050 = HPCLAB_VALUE(lab08::lecture_device("c2050"));
    // 192 threads (6 warps): 8 blocks by the slots up to 21 registers
    // (21 x 32 x 48 = 32,256), then fewer.
    for (int regs = 18; regs <= 26; ++regs) {
        KernelResources k;
        k.threads_per_block = 192;
        k.registers_per_thread = regs;
        const int want = std::min(8, (32768 / (regs * 32)) / 6);
        EXPECT_EQ(HPCLAB_VALUE(lab08::occupancy(c2050, k)).blocks_per_sm, want) << regs << " registers";
    }
}

TEST(HiddenModel, RandomPeriodsAgainstTheEquations) {
    hpclab::Rng rng(909);
    for (int i = 0; i < 50; ++i) {
        const lab08::Period prev{double(rng.uniform_int(0, 300)), double(rng.uniform_int(0, 600)), 1};
        const lab08::Period cur{double(rng.uniform_int(1, 300)), double(rng.uniform_int(0, 600)), 1};
        const int n = int(rng.uniform_int(1, 64));
        const double mpd = double(rng.uniform_int(1, n)), cpd = 1 + rng.uniform01() * (n - 1);
        const double got = HPCLAB_VALUE(lab08::period_cycles(prev, cur, n, mpd, cpd));
        double want = std::ceil(n * cur.compute / cpd), tp = 0;
        if (prev.compute < prev.memory) {
            tp = std::max(prev.memory * (std::floor(n / mpd) - 1) - (n - 1) * cur.compute, 0.0);
            want += tp;
        }
        if (cur.compute < cur.memory) want += std::max(cur.memory - ((n - 1) * cur.compute + tp), 0.0);
        EXPECT_NEAR(got, want, 1e-9 * std::max(1.0, want)) << "case " << i;
    }
}

TEST(HiddenModel, PartialWaveOnlyAndBadLaunches) {
    lab08::MemoryParameters m;
    m.device_bytes_per_cycle = 1000;
    lab08::CpdParameters c;
    c.max_warps = 64;
    lab08::Launch launch;
    launch.blocks = 3, launch.warps_per_block = 4, launch.blocks_per_sm = 8, launch.sm_count = 10;
    launch.clock_ghz = 2.0;
    // 3 blocks on 3 SMs, one each: N_act = 4, P = 1, CPD = 4: ceil(4 * 50 / 4) = 50 cycles = 25 ns
    const auto r = HPCLAB_VALUE(lab08::predict({{50, 0, 1}}, m, c, launch));
    EXPECT_EQ(r.full_waves, 0);
    EXPECT_EQ(r.active_warps, 4);
    EXPECT_DOUBLE_EQ(r.cycles, 50.0);
    EXPECT_NEAR(r.seconds, 25e-9, 1e-18);
    launch.blocks = 0;
    EXPECT_THROW(HPCLAB_VALUE(lab08::predict({{50, 0, 1}}, m, c, launch)), std::invalid_argument);
    EXPECT_THROW(HPCLAB_VALUE(lab08::mpd(m, 0)), std::invalid_argument);
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab08::computation_proportion({})), 0.0);
}

TEST(HiddenGpu, RandomProbeConfigurations) {
    HPCLAB_REQUIRE_GPU();
    const auto d = HPCLAB_VALUE(lab08::describe_device(0));
    hpclab::Rng rng(707);
    const auto probes = lab08::probe_kernels();
    std::vector<KernelResources> cases;
    std::vector<int> expected;
    for (int i = 0; i < 300; ++i) {
        const auto& p = probes[rng.uniform_int(0, std::int64_t(probes.size()) - 1)];
        cudaFuncAttributes attr;
        HPCLAB_CUDA_CHECK(cudaFuncGetAttributes(&attr, p.function));
        KernelResources k;
        k.threads_per_block = int(rng.uniform_int(1, 1024));
        k.registers_per_thread = attr.numRegs;
        k.static_shared = std::int64_t(attr.sharedSizeBytes);
        k.dynamic_shared = rng.uniform_int(0, 48 * 1024 - k.static_shared);
        k.max_dynamic_shared = attr.maxDynamicSharedSizeBytes;
        cases.push_back(k);
        expected.push_back(
            lab08_test::runtime_blocks_per_sm(p.function, k.threads_per_block, std::size_t(k.dynamic_shared)));
    }
    const auto got = lab08_test::judged_blocks_per_sm(d, cases);
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        EXPECT_EQ(got[i], expected[i]) << cases[i].threads_per_block << " threads, " << cases[i].registers_per_thread
                                       << " registers, " << cases[i].dynamic_shared << " dynamic bytes";
}

}  // namespace
