// Lab 08 visible tests: the occupancy calculator on the lecture's examples
// and on hand-computed cases of every rule (register units and partitions,
// the shared-memory unit, reservation, opt-in and carveout), the
// architecture table, Luo's model on hand-computed cases of each of its four
// period types, and, on a GPU, the calculator against the CUDA runtime's
// occupancy API, the micro-benchmarks' repeatability, the pointer chase's
// plateaus and the tiled products.
//
// Every call into student code goes through HPCLAB_CALL / HPCLAB_VALUE
// (hpclab/judged.hpp): the grader records it in the submission's build and
// judges the recorded results in the starter's.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "hpclab/check.hpp"
#include "hpclab/cuda.hpp"
#include "hpclab/data.hpp"
#include "hpclab/gtest_gpu.hpp"
#include "hpclab/judged.hpp"
#include "hpclab/judged_cuda.hpp"
#include "microbench.hpp"
#include "occupancy.hpp"
#include "occupancy_api.hpp"
#include "probe_kernels.hpp"
#include "throughput_floors.hpp"
#include "time_model.hpp"

namespace {

using lab08::KernelResources;
using lab08::Limiter;
using lab08::Period;

KernelResources kernel(int threads, int registers, std::int64_t static_shared = 0, std::int64_t dynamic_shared = 0) {
    KernelResources k;
    k.threads_per_block = threads;
    k.registers_per_thread = registers;
    k.static_shared = static_shared;
    k.dynamic_shared = dynamic_shared;
    return k;
}

// An H100-like SM written out by hand (not read from a GPU): the numbers of
// compute capability 9.0.
lab08::DeviceDescription h100_like() {
    lab08::DeviceDescription d;
    lab08::set_name(d, "H100-like (by hand)");
    d.cc_major = 9, d.cc_minor = 0, d.sm_count = 132, d.warp_size = 32;
    d.max_threads_per_block = 1024, d.max_threads_per_sm = 2048, d.max_warps_per_sm = 64, d.max_blocks_per_sm = 32;
    d.registers_per_sm = 65536, d.registers_per_block = 65536, d.max_registers_per_thread = 255;
    d.register_allocation_unit = 256, d.register_partitions = 4;
    d.shared_per_sm = 233472, d.shared_per_block = 49152, d.shared_per_block_optin = 232448;
    d.shared_allocation_unit = 128, d.shared_reserved_per_block = 1024;
    const int kib[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
    d.carveout_count = 10;
    for (int i = 0; i < 10; ++i) d.carveout_sizes[i] = kib[i] * 1024;
    return d;
}

// ---- the lecture's examples ---------------------------------------------------

TEST(Occupancy, LectureC2050PerformanceCliff) {
    const auto c2050 = HPCLAB_VALUE(lab08::lecture_device("C2050"));
    // 16 x 16 blocks, 21 registers: 5,376 registers a block, 6 blocks, 1,536 threads.
    const auto o21 = HPCLAB_VALUE(lab08::occupancy(c2050, kernel(256, 21)));
    EXPECT_EQ(o21.blocks_per_sm, 6);
    EXPECT_EQ(o21.active_warps * 32, 1536);
    EXPECT_EQ(o21.limit_registers, 6);
    EXPECT_EQ(o21.registers_per_block, 5376);
    EXPECT_DOUBLE_EQ(o21.occupancy, 1.0);
    // One more register: 5,632 a block, 5 blocks, 1,280 threads.
    const auto o22 = HPCLAB_VALUE(lab08::occupancy(c2050, kernel(256, 22)));
    EXPECT_EQ(o22.blocks_per_sm, 5);
    EXPECT_EQ(o22.active_warps * 32, 1280);
    EXPECT_EQ(o22.limiter, Limiter::registers);
    EXPECT_EQ(o22.registers_per_block, 5632);
}

TEST(Occupancy, LectureK20cCalculatorSheet) {
    const auto k20c = HPCLAB_VALUE(lab08::lecture_device("k20c"));
    const auto o = HPCLAB_VALUE(lab08::occupancy(k20c, kernel(256, 32, 4096)));
    EXPECT_EQ(o.blocks_per_sm, 8);
    EXPECT_EQ(o.active_warps, 64);
    EXPECT_DOUBLE_EQ(o.occupancy, 1.0);
    EXPECT_EQ(o.limit_warps, 8);
    EXPECT_EQ(o.limit_registers, 8);
    EXPECT_EQ(o.limit_shared, 12);
    EXPECT_EQ(o.limit_blocks, 16);
    EXPECT_EQ(o.limiter, Limiter::warps);  // a tie with registers goes to warps
}

TEST(Occupancy, LectureMatrixMulProfile) {
    // computeprof's matrixMul on the C2050: 32 x 32 blocks, 25 registers,
    // 8192 bytes of shared memory: one block, occupancy 32 / 48, limited by
    // the block size (its warps).
    const auto c2050 = HPCLAB_VALUE(lab08::lecture_device("C2050"));
    const auto o = HPCLAB_VALUE(lab08::occupancy(c2050, kernel(1024, 25, 8192)));
    EXPECT_EQ(o.blocks_per_sm, 1);
    EXPECT_NEAR(o.occupancy, 32.0 / 48.0, 1e-12);
    EXPECT_EQ(o.limiter, Limiter::warps);
    EXPECT_EQ(o.limit_shared, 6);
}

TEST(Occupancy, LectureDevicesAndUnknownNames) {
    const auto p100 = HPCLAB_VALUE(lab08::lecture_device("P100"));
    EXPECT_EQ(p100.max_threads_per_sm, 2048);
    EXPECT_EQ(p100.max_blocks_per_sm, 32);
    // 64 threads a block fill both the block and the thread slots (lecture 36).
    const auto o = HPCLAB_VALUE(lab08::occupancy(p100, kernel(64, 16)));
    EXPECT_EQ(o.blocks_per_sm, 32);
    EXPECT_DOUBLE_EQ(o.occupancy, 1.0);
    EXPECT_THROW(HPCLAB_VALUE(lab08::lecture_device("GTX 260")), std::invalid_argument);
}

// ---- the rules, on hand-computed cases ----------------------------------------

TEST(Occupancy, RegisterUnitsAndPartitions) {
    const auto d = h100_like();
    // 40 registers: 1,280 a warp; a quarter of the file holds 12 warps, so 48
    // in all (not 51): 24 blocks of 2 warps.
    const auto a = HPCLAB_VALUE(lab08::occupancy(d, kernel(64, 40)));
    EXPECT_EQ(a.limit_registers, 24);
    EXPECT_EQ(a.blocks_per_sm, 24);
    EXPECT_EQ(a.limiter, Limiter::registers);
    // 33 registers round up to 1,280 a warp as well.
    EXPECT_EQ(HPCLAB_VALUE(lab08::occupancy(d, kernel(64, 33))).limit_registers, 24);
    // 32 registers: 1,024 a warp, 64 warps.
    EXPECT_EQ(HPCLAB_VALUE(lab08::occupancy(d, kernel(64, 32))).limit_registers, 32);
    // 255 registers: 8,192 a warp; 8 warps fit.
    const auto b = HPCLAB_VALUE(lab08::occupancy(d, kernel(256, 255)));
    EXPECT_EQ(b.blocks_per_sm, 1);
    // 9 warps are counted as 12 against the 65,536 registers of a block.
    const auto c = HPCLAB_VALUE(lab08::occupancy(d, kernel(288, 255)));
    EXPECT_EQ(c.blocks_per_sm, 0);
    EXPECT_EQ(c.limiter, Limiter::registers);
    // No registers: no register limit.
    EXPECT_EQ(HPCLAB_VALUE(lab08::occupancy(d, kernel(32, 0))).limit_registers, lab08::kUnlimited);
}

TEST(Occupancy, SharedUnitReservationAndOptIn) {
    const auto d = h100_like();
    // 10,000 bytes + 1,024 reserved = 11,024, rounded to 11,136: 20 blocks.
    const auto a = HPCLAB_VALUE(lab08::occupancy(d, kernel(64, 0, 0, 10000)));
    EXPECT_EQ(a.shared_per_block, 11136);
    EXPECT_EQ(a.limit_shared, 20);
    EXPECT_EQ(a.blocks_per_sm, 20);
    EXPECT_EQ(a.limiter, Limiter::shared);
    // Static and dynamic count alike.
    EXPECT_EQ(HPCLAB_VALUE(lab08::occupancy(d, kernel(64, 0, 4000, 6000))).limit_shared, 20);
    // 60,000 bytes without opting in: refused.
    const auto b = HPCLAB_VALUE(lab08::occupancy(d, kernel(64, 0, 0, 60000)));
    EXPECT_EQ(b.blocks_per_sm, 0);
    EXPECT_EQ(b.limiter, Limiter::shared);
    // Opted in: 61,056 bytes a block, 3 blocks.
    auto k = kernel(64, 0, 0, 60000);
    k.max_dynamic_shared = 100000;
    const auto c = HPCLAB_VALUE(lab08::occupancy(d, k));
    EXPECT_EQ(c.blocks_per_sm, 3);
    // More than the kernel's own maximum: refused.
    k.dynamic_shared = 100001;
    EXPECT_EQ(HPCLAB_VALUE(lab08::occupancy(d, k)).blocks_per_sm, 0);
    // The whole opt-in limit fits once; one allocation unit more does not.
    k.max_dynamic_shared = 232448;
    k.dynamic_shared = 232448;
    EXPECT_EQ(HPCLAB_VALUE(lab08::occupancy(d, k)).blocks_per_sm, 1);
    k.dynamic_shared = 232448 + 1;
    k.max_dynamic_shared = 232448 + 1;
    EXPECT_EQ(HPCLAB_VALUE(lab08::occupancy(d, k)).blocks_per_sm, 0);
}

TEST(Occupancy, Carveout) {
    const auto d = h100_like();
    auto k = kernel(64, 0, 0, 10000);  // 11,136 bytes a block
    k.carveout_percent = 50;           // 116,736 bytes, rounded up to 132 KiB
    auto a = HPCLAB_VALUE(lab08::occupancy(d, k));
    EXPECT_EQ(a.shared_per_sm, 132 * 1024);
    EXPECT_EQ(a.limit_shared, 12);
    k.carveout_percent = 0;  // too small for one block: the smallest size that holds one
    a = HPCLAB_VALUE(lab08::occupancy(d, k));
    EXPECT_EQ(a.shared_per_sm, 16 * 1024);
    EXPECT_EQ(a.limit_shared, 1);
    k.carveout_percent = 101;
    EXPECT_THROW(HPCLAB_VALUE(lab08::occupancy(d, k)), std::invalid_argument);
}

TEST(Occupancy, BlockSizeLimitsAndBadInput) {
    const auto d = h100_like();
    const auto a = HPCLAB_VALUE(lab08::occupancy(d, kernel(1025, 16)));
    EXPECT_EQ(a.blocks_per_sm, 0);
    EXPECT_EQ(a.limiter, Limiter::block_size);
    // 1,024 threads: 32 warps, 2 blocks; 33 threads take 2 warps' slots.
    EXPECT_EQ(HPCLAB_VALUE(lab08::occupancy(d, kernel(1024, 16))).blocks_per_sm, 2);
    const auto b = HPCLAB_VALUE(lab08::occupancy(d, kernel(33, 16)));
    EXPECT_EQ(b.warps_per_block, 2);
    EXPECT_EQ(b.blocks_per_sm, 32);
    EXPECT_EQ(b.limiter, Limiter::warps);  // 64 / 2 = 32 ties the 32 block slots
    EXPECT_EQ(HPCLAB_VALUE(lab08::occupancy(d, kernel(32, 16))).limiter, Limiter::blocks);
    EXPECT_THROW(HPCLAB_VALUE(lab08::occupancy(d, kernel(0, 16))), std::invalid_argument);
    EXPECT_THROW(HPCLAB_VALUE(lab08::occupancy(d, kernel(32, -1))), std::invalid_argument);
}

TEST(Occupancy, ArchitectureTable) {
    const auto h = HPCLAB_VALUE(lab08::architecture_constants(9, 0));
    EXPECT_EQ(h.register_allocation_unit, 256);
    EXPECT_EQ(h.register_partitions, 4);
    EXPECT_EQ(h.shared_allocation_unit, 128);
    ASSERT_EQ(h.carveout_count, 10);
    EXPECT_EQ(h.carveout_sizes[9], 228 * 1024);
    const auto v = HPCLAB_VALUE(lab08::architecture_constants(7, 0));
    EXPECT_EQ(v.shared_allocation_unit, 256);
    ASSERT_EQ(v.carveout_count, 6);
    EXPECT_EQ(v.carveout_sizes[5], 96 * 1024);
    EXPECT_THROW(HPCLAB_VALUE(lab08::architecture_constants(6, 1)), std::invalid_argument);
}

// ---- Luo's model, by hand -------------------------------------------------------

TEST(Model, ClassifiesTheFourPeriodTypes) {
    EXPECT_EQ(HPCLAB_VALUE(lab08::classify({10, 5}, {20, 10})), lab08::PeriodType::compute_bound);
    EXPECT_EQ(HPCLAB_VALUE(lab08::classify({10, 5}, {10, 100})), lab08::PeriodType::memory_now);
    EXPECT_EQ(HPCLAB_VALUE(lab08::classify({10, 200}, {30, 10})), lab08::PeriodType::memory_before);
    EXPECT_EQ(HPCLAB_VALUE(lab08::classify({10, 200}, {5, 700})), lab08::PeriodType::memory_both);
    EXPECT_EQ(HPCLAB_VALUE(lab08::classify({10, 10}, {10, 10})), lab08::PeriodType::compute_bound);  // equal: no wait
}

TEST(Model, PeriodType1ComputeOnly) {
    // ceil(8 * 20 / 4) = 40
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab08::period_cycles({10, 5}, {20, 10}, 8, 2, 4)), 40.0);
    // ceil(3 * 7 / 2) = ceil(10.5) = 11
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab08::period_cycles({10, 5}, {7, 1}, 3, 1, 2)), 11.0);
}

TEST(Model, PeriodType2WaitsForItsOwnMemory) {
    // ceil(4 * 10 / 2) + max(100 - 3 * 10, 0) = 20 + 70
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab08::period_cycles({10, 5}, {10, 100}, 4, 2, 2)), 90.0);
    // enough warps to cover the memory: 16 warps, 15 * 10 > 100
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab08::period_cycles({10, 5}, {10, 100}, 16, 2, 2)), 80.0);
}

TEST(Model, PeriodType3WaitsForThePreviousMemory) {
    // ceil(8 * 30 / 4) + max(200 (floor(8 / 2) - 1) - 7 * 30, 0) = 60 + 390
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab08::period_cycles({10, 200}, {30, 10}, 8, 2, 4)), 450.0);
    // MPD = N_act: every warp's access at once, no wait
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab08::period_cycles({10, 200}, {30, 10}, 8, 8, 4)), 60.0);
}

TEST(Model, PeriodType4WaitsForBoth) {
    // compute ceil(8 * 5 / 4) = 10; T_p = 200 * 3 - 7 * 5 = 565;
    // T_c = 700 - (35 + 565) = 100
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab08::period_cycles({10, 200}, {5, 700}, 8, 2, 4)), 675.0);
    // T_c clipped at 0: 10 + 565 + 0
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab08::period_cycles({10, 200}, {5, 300}, 8, 2, 4)), 575.0);
}

TEST(Model, MpdAndCpd) {
    lab08::MemoryParameters m;
    m.bytes_per_thread = 4, m.transactions = 1, m.latency_cycles = 500, m.device_bytes_per_cycle = 100;
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab08::warp_bandwidth(m)), 0.256);
    m.active_sms = 4;  // floor(100 / (4 * 0.256)) = 97
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab08::mpd(m, 64)), 64.0);
    m.active_sms = 16;  // floor(100 / 4.096) = 24
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab08::mpd(m, 64)), 24.0);
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab08::mpd(m, 8)), 8.0);
    m.active_sms = 1000;  // less than one warp's worth: still 1
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab08::mpd(m, 8)), 1.0);

    lab08::CpdParameters p;  // GTX 260: a 3, b 11, c 0.5, d 80; m = 32
    p.max_warps = 32;
    // P = 0.25, N = 21: CPD1 = 0.25 * 10 + 3 = 5.5, CPD2 = 5 / 31 sqrt(961 - 121) + 3 = 7.67
    EXPECT_NEAR(HPCLAB_VALUE(lab08::cpd(p, 0.25, 21)), 5.5, 1e-12);
    // N = 32: CPD1 = 8.25, CPD2 = 5 + 3
    EXPECT_NEAR(HPCLAB_VALUE(lab08::cpd(p, 0.25, 32)), 8.0, 1e-12);
    // P = 0.9 >= c: CPD2 alone, 12.8 + 3
    EXPECT_NEAR(HPCLAB_VALUE(lab08::cpd(p, 0.9, 32)), 15.8, 1e-12);
    // P = 0.9, N = 20: 12.8 / 31 sqrt(961 - 144) + 3
    EXPECT_NEAR(HPCLAB_VALUE(lab08::cpd(p, 0.9, 20)), 12.8 / 31 * std::sqrt(817.0) + 3, 1e-12);
    // N = 1: CPD1 = 0.5, clamped to 1
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab08::cpd(p, 0.25, 1)), 1.0);
    // N = 2, P = 0.9: CPD2 = 3.7 + ..., clamped to N
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab08::cpd(p, 0.9, 2)), 2.0);
    EXPECT_THROW(HPCLAB_VALUE(lab08::cpd(p, 0.5, 33)), std::invalid_argument);
}

TEST(Model, KernelCyclesRepeatsAndPrediction) {
    const std::vector<Period> periods = {{20, 10, 1}, {10, 100, 3}};
    EXPECT_NEAR(HPCLAB_VALUE(lab08::computation_proportion(periods)), 50.0 / 360.0, 1e-15);
    // 40 (type 1) + 90 (type 2) + 2 x 90 (type 4: 20 + 70 + 0)
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab08::kernel_cycles(periods, 4, 2, 2)), 310.0);

    // 10 blocks of 2 warps, 2 a SM, 2 SMs: two full waves of N_act = 4, then
    // 2 blocks, one on each SM (N_act = 2). Compute only (P = 1): CPD = N.
    lab08::MemoryParameters m;
    m.device_bytes_per_cycle = 1000;
    lab08::CpdParameters c;
    c.max_warps = 4;
    lab08::Launch launch;
    launch.blocks = 10, launch.warps_per_block = 2, launch.blocks_per_sm = 2, launch.sm_count = 2;
    launch.clock_ghz = 1.0;
    const auto r = HPCLAB_VALUE(lab08::predict({{100, 0, 1}}, m, c, launch));
    EXPECT_EQ(r.full_waves, 2);
    EXPECT_EQ(r.active_warps, 4);
    EXPECT_DOUBLE_EQ(r.cycles, 2 * 100.0 + 100.0);
    EXPECT_NEAR(r.seconds, 300e-9, 1e-18);
    EXPECT_DOUBLE_EQ(r.proportion, 1.0);
}

TEST(Model, Accuracy) {
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab08::p_acc(2.0, 4.0)), 0.5);
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab08::p_acc(4.0, 2.0)), 0.5);
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab08::p_acc(3.0, 3.0)), 1.0);
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(lab08::p_acc(0.0, 1.0)), 0.0);
}

// ---- the harness's throughput floors and overlap law (worth 0 points: given code) ----

TEST(Floors, OverlapLawHandComputed) {
    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_DOUBLE_EQ(lab08::overlap({3, 4}, 1), 7.0);  // no overlap: the sum
    EXPECT_DOUBLE_EQ(lab08::overlap({3, 4}, 2), 5.0);
    EXPECT_DOUBLE_EQ(lab08::overlap({3, 4}, inf), 4.0);  // full overlap: the max
    EXPECT_NEAR(lab08::overlap({2, 2}, 3), 2 * std::cbrt(2.0), 1e-12);
    EXPECT_NEAR(lab08::overlap({1e-3, 0, 1e-3}, 4), 1e-3 * std::pow(2.0, 0.25), 1e-15);
    EXPECT_DOUBLE_EQ(lab08::overlap({5, 1e-9}, 400), 5.0);  // no overflow for a large p
    EXPECT_EQ(lab08::overlap({}, 2), 0.0);
    EXPECT_EQ(lab08::overlap({0, 0}, 3), 0.0);
    EXPECT_THROW(lab08::overlap({1, 2}, 0.5), std::invalid_argument);
    EXPECT_THROW(lab08::overlap({1, -2}, 2), std::invalid_argument);
}

TEST(Floors, FitOverlapExponentRecoversTheLaw) {
    std::vector<lab08::OverlapSample> law3, max_law, sum_law;
    for (double c : {0.5, 1.0, 2.0, 4.0}) {
        law3.push_back({c, 1.0, std::cbrt(c * c * c + 1.0)});
        max_law.push_back({c, 1.0, std::max(c, 1.0)});
        sum_law.push_back({c, 1.0, c + 1.0});
    }
    EXPECT_NEAR(lab08::fit_overlap_exponent(law3), 3.0, 1e-3);
    EXPECT_NEAR(lab08::fit_overlap_exponent(max_law), 16.0, 1e-9);  // the top of the range
    EXPECT_NEAR(lab08::fit_overlap_exponent(sum_law), 1.0, 1e-9);
    // One sample: the root of 2.2^p = 1 + 2^p, p = 2.1423 (bisection by hand).
    EXPECT_NEAR(lab08::fit_overlap_exponent({{1.0, 2.0, 2.2}}), 2.1423, 1e-3);
    EXPECT_THROW(lab08::fit_overlap_exponent({}), std::invalid_argument);
    EXPECT_THROW(lab08::fit_overlap_exponent({{1.0, 0.0, 1.0}}), std::invalid_argument);
}

TEST(Floors, HongKimCasesHandComputed) {
    lab08::HongKimInputs in;
    in.instructions = 40, in.memory_instructions = 2, in.issue_cycles = 1;
    in.latency_cycles = 400, in.departure_cycles = 4, in.bytes_per_access = 128;
    in.bytes_per_cycle = 3.2;  // BW_per_warp = 128 / 400 = 0.32: MWP_peak_BW = 10
    in.active_warps = 16;
    // Mem_cycles 800, Comp_cycles 40: CWP_full = 21, CWP = 16 >= MWP = 10: memory-bound,
    // 40 / 2 x (10 - 1) = 180 cycles not overlapped.
    auto r = lab08::hong_kim(in);
    EXPECT_DOUBLE_EQ(r.mwp, 10.0);
    EXPECT_DOUBLE_EQ(r.cwp, 16.0);
    EXPECT_EQ(r.kind, 2);
    EXPECT_DOUBLE_EQ(r.nonoverlap_cycles, 180.0);
    // Four warps: MWP = CWP = N = 4, not enough warps: 20 x 3 = 60.
    in.active_warps = 4;
    r = lab08::hong_kim(in);
    EXPECT_EQ(r.kind, 1);
    EXPECT_DOUBLE_EQ(r.nonoverlap_cycles, 60.0);
    // 800 instructions: CWP_full = 1600 / 800 = 2 < MWP = 10: computation-bound, nothing added.
    in.active_warps = 16, in.instructions = 800;
    r = lab08::hong_kim(in);
    EXPECT_DOUBLE_EQ(r.cwp, 2.0);
    EXPECT_EQ(r.kind, 3);
    EXPECT_EQ(r.nonoverlap_cycles, 0.0);
    // A departure delay of 100 cycles: MWP_Without_BW = 4 bounds MWP.
    in.instructions = 40, in.departure_cycles = 100;
    EXPECT_DOUBLE_EQ(lab08::hong_kim(in).mwp, 4.0);
    in.active_warps = 0;
    EXPECT_THROW(lab08::hong_kim(in), std::invalid_argument);
}

TEST(Floors, RefineHandComputed) {
    lab08::MachineRates r;
    r.sm_count = 1, r.clock_ghz = 1, r.issue_per_sm = 4, r.lsu_per_sm = 1, r.sfu_per_sm = 0.5;
    r.l2_gbps = 1, r.dram_gbps = 1, r.sector_gbps = 0.5, r.launch_seconds = 0.5, r.blocks_per_second = 1e9;
    lab08::KernelWork w;
    w.warp_instructions = 4e9;                 // 1 s at 4 a cycle, 1 GHz, one SM
    w.dram_bytes = 1e9;                        // 1 s at 1 GB/s
    w.scattered_dram_bytes = 1e9;              // 2 s at 0.5 GB/s
    auto max_law = lab08::refine(0.25, w, r);  // the default law: the max
    EXPECT_DOUBLE_EQ(max_law.issue, 1.0);
    EXPECT_DOUBLE_EQ(max_law.dram, 3.0);
    EXPECT_DOUBLE_EQ(max_law.seconds, 0.5 + 3.0);
    EXPECT_EQ(max_law.bound, "dram");
    r.overlap_p = 2;
    const auto p2 = lab08::refine(0.25, w, r);
    EXPECT_NEAR(p2.seconds, 0.5 + std::sqrt(0.25 * 0.25 + 1 + 9), 1e-12);
    EXPECT_EQ(p2.bound, "dram");
    r.overlap_p = 0.5;
    EXPECT_THROW(lab08::refine(0.25, w, r), std::invalid_argument);
    r.overlap_p = 2, r.sector_gbps = 0;
    EXPECT_THROW(lab08::refine(0.25, w, r), std::invalid_argument);  // scattered bytes, no sector rate
    w.scattered_dram_bytes = 0;
    EXPECT_DOUBLE_EQ(lab08::refine(0.25, w, r).dram, 1.0);
    w.nonoverlap_seconds = 0.5;  // Hong and Kim's term lengthens the DRAM floor
    EXPECT_DOUBLE_EQ(lab08::refine(0.25, w, r).dram, 1.5);
    w.lsu_lines = 1e9, w.shared_lines = 1e9;  // one pipe: 1 s at 1 line a cycle + 2 s at 0.5 wavefronts
    r.shared_per_sm = 0.5;
    EXPECT_DOUBLE_EQ(lab08::refine(0.25, w, r).lsu, 3.0);
    w.l2_bytes = 256e9;  // 256 s at 1 GB/s; no fills charged by default
    EXPECT_DOUBLE_EQ(lab08::refine(0.25, w, r).lsu, 3.0);
    r.fill_line_bytes = 128;  // 2e9 lines filled: 2 s more on the one pipe
    const auto fills = lab08::refine(0.25, w, r);
    EXPECT_DOUBLE_EQ(fills.lsu_fill, 2.0);
    EXPECT_DOUBLE_EQ(fills.lsu, 5.0);
    EXPECT_DOUBLE_EQ(fills.l2, 256.0);
    r.fill_line_bytes = -1;
    EXPECT_THROW(lab08::refine(0.25, w, r), std::invalid_argument);
}

TEST(Floors, LatencyLawCombinesLuoAndIssueFirst) {
    lab08::MachineRates r;
    r.sm_count = 1, r.clock_ghz = 1, r.l2_gbps = 1, r.dram_gbps = 1, r.blocks_per_second = 1e9;
    lab08::KernelWork w;
    w.warp_instructions = 16e9;  // 4 s at 4 a cycle
    w.lsu_lines = 4.5e9;         // 4.5 s at 1 line a cycle
    r.overlap_p = std::numeric_limits<double>::infinity();
    // latency_p 0: one law for all, here the max: 4.5 s.
    auto one = lab08::refine(3.0, w, r);
    EXPECT_DOUBLE_EQ(one.latency_issue, 4.0);
    EXPECT_DOUBLE_EQ(one.seconds, 4.5);
    EXPECT_EQ(one.bound, "lsu");
    // Luo (3 s) and issue (4 s) by p = 2 first: 5 s, which the max then keeps.
    r.latency_p = 2;
    auto two = lab08::refine(3.0, w, r);
    EXPECT_DOUBLE_EQ(two.latency_issue, 5.0);
    EXPECT_DOUBLE_EQ(two.seconds, 5.0);
    EXPECT_EQ(two.bound, "lsu");  // the largest single term, as before
    // With overlap_p = 2 as well, the norms nest: sqrt(9 + 16 + 4.5^2).
    r.overlap_p = 2;
    EXPECT_NEAR(lab08::refine(3.0, w, r).seconds, std::sqrt(9 + 16 + 20.25), 1e-12);
    r.latency_p = 0;
    EXPECT_NEAR(lab08::refine(3.0, w, r).seconds, std::sqrt(9 + 16 + 20.25), 1e-12);
    r.latency_p = 0.5;
    EXPECT_THROW(lab08::refine(3.0, w, r), std::invalid_argument);
}

// ---- on a GPU --------------------------------------------------------------------

int attribute(cudaDeviceAttr a) {
    int v = 0;
    HPCLAB_CUDA_CHECK(cudaDeviceGetAttribute(&v, a, 0));
    return v;
}

TEST(Gpu, DescribeDeviceReadsTheAttributes) {
    HPCLAB_REQUIRE_GPU();
    const auto d = HPCLAB_VALUE(lab08::describe_device(0));
    EXPECT_EQ(d.cc_major, attribute(cudaDevAttrComputeCapabilityMajor));
    EXPECT_EQ(d.sm_count, attribute(cudaDevAttrMultiProcessorCount));
    EXPECT_EQ(d.max_threads_per_sm, attribute(cudaDevAttrMaxThreadsPerMultiProcessor));
    EXPECT_EQ(d.max_blocks_per_sm, attribute(cudaDevAttrMaxBlocksPerMultiprocessor));
    EXPECT_EQ(d.registers_per_sm, attribute(cudaDevAttrMaxRegistersPerMultiprocessor));
    EXPECT_EQ(d.shared_per_sm, attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor));
    EXPECT_EQ(d.shared_per_block_optin, attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin));
    EXPECT_EQ(d.shared_reserved_per_block, attribute(cudaDevAttrReservedSharedMemoryPerBlock));
}

// Every probe kernel, every block size 32..1024 step 32, dynamic shared
// memory from 0 to the kernel's limit in 8 steps (plus one byte past it):
// the calculator's blocks per SM must equal the runtime's in every case.
TEST(Gpu, CalculatorEqualsTheOccupancyApi) {
    HPCLAB_REQUIRE_GPU();
    const auto d = HPCLAB_VALUE(lab08::describe_device(0));
    int compared = 0;
    for (const auto& probe : lab08::probe_kernels()) {
        cudaFuncAttributes attr;
        HPCLAB_CUDA_CHECK(cudaFuncGetAttributes(&attr, probe.function));
        const int max_dynamic = attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin) - int(attr.sharedSizeBytes);
        HPCLAB_CUDA_CHECK(
            cudaFuncSetAttribute(probe.function, cudaFuncAttributeMaxDynamicSharedMemorySize, max_dynamic));
        std::vector<KernelResources> cases;
        std::vector<int> expected;
        for (int threads = 32; threads <= 1024; threads += 32) {
            for (int step = 0; step <= 9; ++step) {
                const int dynamic = step <= 8 ? max_dynamic / 8 * step : max_dynamic + 1;
                KernelResources k = kernel(threads, attr.numRegs, std::int64_t(attr.sharedSizeBytes), dynamic);
                k.max_dynamic_shared = max_dynamic;
                cases.push_back(k);
                expected.push_back(lab08_test::runtime_blocks_per_sm(probe.function, threads, dynamic));
            }
        }
        const auto got = lab08_test::judged_blocks_per_sm(d, cases);
        ASSERT_EQ(got.size(), expected.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
            EXPECT_EQ(got[i], expected[i]) << probe.name << " (" << attr.numRegs << " registers, "
                                           << attr.sharedSizeBytes << " static bytes): " << cases[i].threads_per_block
                                           << " threads, " << cases[i].dynamic_shared << " dynamic bytes";
            ++compared;
        }
    }
    EXPECT_GE(compared, 6 * 32 * 9);
}

TEST(Gpu, CarveoutEqualsTheOccupancyApi) {
    HPCLAB_REQUIRE_GPU();
    const auto d = HPCLAB_VALUE(lab08::describe_device(0));
    const auto probe = lab08::probe_kernels()[7];  // 20,000 bytes of static shared memory
    cudaFuncAttributes attr;
    HPCLAB_CUDA_CHECK(cudaFuncGetAttributes(&attr, probe.function));
    std::vector<KernelResources> cases;
    std::vector<int> expected;
    for (int percent : {0, 10, 25, 50, 75, 100}) {
        HPCLAB_CUDA_CHECK(
            cudaFuncSetAttribute(probe.function, cudaFuncAttributePreferredSharedMemoryCarveout, percent));
        for (int threads : {64, 256, 1024}) {
            KernelResources k = kernel(threads, attr.numRegs, std::int64_t(attr.sharedSizeBytes), 0);
            k.max_dynamic_shared = attr.maxDynamicSharedSizeBytes;
            k.carveout_percent = percent;
            int blocks = 0;
            HPCLAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, probe.function, threads, 0));
            cases.push_back(k);
            expected.push_back(blocks);
        }
    }
    HPCLAB_CUDA_CHECK(cudaFuncSetAttribute(probe.function, cudaFuncAttributePreferredSharedMemoryCarveout, -1));
    const auto got = HPCLAB_CALL([&] {
        std::vector<int> blocks;
        for (const auto& k : cases) blocks.push_back(lab08::occupancy(d, k).blocks_per_sm);
        return blocks;
    });
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        EXPECT_EQ(got[i], expected[i]) << "carveout " << cases[i].carveout_percent << "%, "
                                       << cases[i].threads_per_block << " threads";
}

// Latency of `op` in cycles: (kernel B - kernel A) / iterations, the smaller
// of three runs of each kernel.
double latency(lab08::Op op, int seed) {
    constexpr int kIterations = 4096;
    hpclab::cuda::DeviceBuffer<long long> cycles(1);
    hpclab::cuda::DeviceBuffer<double> sink(1);
    long long best[2] = {0, 0};
    for (int body = 0; body < 2; ++body) {
        for (int run = 0; run < 3; ++run) {
            HPCLAB_CALL([&] { lab08::launch_chain(op, body == 1, kIterations, seed, cycles.get(), sink.get()); },
                        cycles);
            long long c = 0;
            cycles.copy_to_host(&c, 1);
            if (run == 0 || c < best[body]) best[body] = c;
        }
    }
    return double(best[1] - best[0]) / kIterations;
}

// Worth no points in the grader (lab.json): the cycles are counted by the
// submission's own kernels (clock64) and written to memory in its process;
// no value the judge sees could confirm them. Kept as a check for students.
TEST(Gpu, LatencyRepeatsAgreeWithinFivePercent) {
    HPCLAB_REQUIRE_GPU();
    hpclab::Rng rng(81);
    for (lab08::Op op : lab08::kAllOps) {
        const int seed = int(rng.uniform_int(1, 1000));
        const double first = latency(op, seed), second = latency(op, seed + 1);
        EXPECT_GE(first, 1.0) << lab08::op_name(op);
        EXPECT_LE(first, 200.0) << lab08::op_name(op);
        EXPECT_NEAR(second, first, 0.05 * first) << lab08::op_name(op);
    }
}

// Cycles per step of a chase through `bytes` of 128-byte lines in a random
// cyclic order; fails the test when the chase did not end where next[] leads
// (a value the judge checks).
double chase_cycles_per_step(std::size_t bytes, std::uint64_t seed) {
    const std::size_t words = bytes / 4, lines = bytes / 128;
    std::vector<std::uint32_t> next(words, 0), order(lines);
    std::iota(order.begin(), order.end(), 0u);
    hpclab::Rng rng(seed);
    for (std::size_t i = lines - 1; i > 0; --i) std::swap(order[i], order[rng.uniform_int(0, std::int64_t(i))]);
    for (std::size_t i = 0; i < lines; ++i) next[order[i] * 32] = order[(i + 1) % lines] * 32;
    // Start from line 0: the cycle passes through every line.
    hpclab::cuda::DeviceBuffer<std::uint32_t> d_next(words), d_end(1);
    hpclab::cuda::DeviceBuffer<long long> d_cycles(1);
    d_next.copy_from_host(next.data(), words);
    constexpr long long kSteps = 4096;
    HPCLAB_CALL([&] { lab08::launch_chase(d_next.get(), kSteps, d_cycles.get(), d_end.get()); }, d_cycles, d_end);
    long long cycles = 0;
    std::uint32_t end = 0;
    d_cycles.copy_to_host(&cycles, 1);
    d_end.copy_to_host(&end, 1);
    // After 2 x kSteps steps from line 0 the chase is at a known line.
    std::size_t at = 0;
    for (std::size_t i = 0; i < lines; ++i)
        if (order[i] == 0) at = i;
    EXPECT_EQ(end, order[(at + 2 * kSteps) % lines] * 32) << bytes << " bytes: the chase did not follow next[]";
    return double(cycles) / kSteps;
}

TEST(Gpu, PointerChaseEndsWhereNextLeads) {
    HPCLAB_REQUIRE_GPU();
    for (std::size_t bytes : {std::size_t(16) << 10, std::size_t(8) << 20, std::size_t(512) << 20})
        chase_cycles_per_step(bytes, 94 + bytes % 7);
}

// Worth no points in the grader (lab.json): the cycles per step are
// counted by the submission's kernel (as in LatencyRepeatsAgreeWithinFivePercent).
// The chase itself earns its points in PointerChaseEndsWhereNextLeads.
TEST(Gpu, PointerChasePlateausAreOrdered) {
    HPCLAB_REQUIRE_GPU();
    const double l1 = chase_cycles_per_step(16 << 10, 91);
    const double l2 = chase_cycles_per_step(8 << 20, 92);
    const double hbm = chase_cycles_per_step(std::size_t(512) << 20, 93);
    EXPECT_LT(l1, l2) << "16 KiB should sit in L1, 8 MiB in L2";
    EXPECT_LT(l2, hbm) << "512 MiB should come from device memory";
    EXPECT_GT(l1, 1.0);
}

TEST(Gpu, TiledMatmulWithAndWithoutPrefetch) {
    HPCLAB_REQUIRE_GPU();
    std::uint64_t seed = 100;
    for (int n : {1, 17, 100, 256}) {
        for (bool prefetch : {false, true}) {
            const std::size_t nn = std::size_t(n) * n;
            const auto a = hpclab::uniform_floats(nn, seed++, -1.0f, 1.0f);
            const auto b = hpclab::uniform_floats(nn, seed++, -1.0f, 1.0f);
            hpclab::cuda::DeviceBuffer<float> da(nn), db(nn), dc(nn);
            da.copy_from_host(a.data(), nn);
            db.copy_from_host(b.data(), nn);
            dc.zero();
            HPCLAB_CALL(
                [&] {
                    lab08::launch_matmul_tiled(da.get(), db.get(), dc.get(), n, prefetch);
                    HPCLAB_CUDA_CHECK(cudaDeviceSynchronize());
                },
                dc);
            std::vector<float> c(nn), want(nn);
            dc.copy_to_host(c.data(), nn);
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j) {
                    double s = 0;
                    for (int k = 0; k < n; ++k) s += double(a[std::size_t(i) * n + k]) * b[std::size_t(k) * n + j];
                    want[std::size_t(i) * n + j] = float(s);
                }
            hpclab::Tolerance tol;
            tol.abs = 1e-4 * n;
            const auto cmp = hpclab::compare_arrays(c, want, tol);
            EXPECT_TRUE(cmp.ok()) << "n = " << n << (prefetch ? ", prefetch: " : ": ") << cmp.describe("C");
        }
    }
}

}  // namespace
