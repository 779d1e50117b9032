// CUDA helpers: the cores-per-SM table against known devices, error
// formatting, and (on a GPU) device info, buffers and event timing.
#include <gtest/gtest.h>

#include "hpclab/cli_core.hpp"
#include "hpclab/cuda.hpp"
#include "hpclab/gtest_gpu.hpp"

using namespace hpclab::cuda;

TEST(CoresPerSm, KnownDevices) {
    // H100 SXM: 132 SMs x 128 FP32 lanes = 16896 CUDA cores; 64 FP64 lanes.
    EXPECT_EQ(132 * fp32_cores_per_sm(9, 0), 16896);
    EXPECT_EQ(fp64_cores_per_sm(9, 0), 64);
    // A100: 108 SMs x 64 = 6912 cores; FP64 9.7 TFLOP/s = 108 x 32 x 2 x 1.41 GHz.
    EXPECT_EQ(108 * fp32_cores_per_sm(8, 0), 6912);
    EXPECT_EQ(fp64_cores_per_sm(8, 0), 32);
    // RTX 4090 (8.9): 128 SMs x 128 = 16384; T4 (7.5): 40 x 64 = 2560.
    EXPECT_EQ(128 * fp32_cores_per_sm(8, 9), 16384);
    EXPECT_EQ(40 * fp32_cores_per_sm(7, 5), 2560);
    EXPECT_EQ(fp32_cores_per_sm(12, 0), 128);
    EXPECT_EQ(fp32_cores_per_sm(3, 5), 0);  // below 7.5: unknown to CUDA 13
}

TEST(PeakNumbers, FromAttributes) {
    DeviceInfo d;
    d.sm_count = 132;
    d.cores_per_sm = 128;
    d.fp64_per_sm = 64;
    d.clock_ghz = 1.98;
    d.memory_clock_ghz = 2.619;
    d.memory_bus_bits = 5120;
    EXPECT_NEAR(d.peak_fp32_gflops(), 66908.2, 1);  // H100 SXM: 67 TFLOP/s FP32
    EXPECT_NEAR(d.peak_fp64_gflops(), 33454.1, 1);
    EXPECT_NEAR(d.peak_bandwidth_gbps(), 3352.3, 1);  // 3.35 TB/s HBM3
}

TEST(CudaError, MessageNamesCallFileAndLine) {
    try {
        HPCLAB_CUDA_CHECK(cudaErrorInvalidValue);
        FAIL() << "no throw";
    } catch (const CudaError& e) {
        const std::string w = e.what();
        EXPECT_NE(w.find("cudaErrorInvalidValue"), std::string::npos) << w;
        EXPECT_NE(w.find("test_cuda.cpp"), std::string::npos) << w;
        EXPECT_EQ(e.code(), cudaErrorInvalidValue);
    }
}

TEST(Gpu, DeviceInfoIsPlausible) {
    HPCLAB_REQUIRE_GPU();
    const DeviceInfo d = device_info(0);
    EXPECT_GT(d.sm_count, 0);
    EXPECT_GT(d.clock_ghz, 0.3);
    EXPECT_GT(d.total_memory, std::size_t(1) << 30);
    EXPECT_EQ(d.warp_size, 32);
    EXPECT_GT(d.peak_bandwidth_gbps(), 100);
}

TEST(Gpu, BufferRoundTripAndTimer) {
    HPCLAB_REQUIRE_GPU();
    std::vector<int> host = {1, 2, 3, 4}, back(4, 0);
    DeviceBuffer<int> d(4);
    d.copy_from_host(host.data(), 4);
    EventTimer t;
    t.start();
    d.copy_to_host(back.data(), 4);
    EXPECT_GE(t.stop(), 0.0);
    EXPECT_EQ(back, host);
    EXPECT_THROW(d.copy_from_host(host.data(), 5), std::length_error);
    DeviceBuffer<int> moved(std::move(d));
    EXPECT_EQ(moved.size(), 4u);
    EXPECT_EQ(d.get(), nullptr);
}

TEST(Gpu, ImpossibleAllocationIsACleanError) {
    HPCLAB_REQUIRE_GPU();
    EXPECT_THROW(require_device_memory(std::size_t(1) << 50, "a petabyte"), std::runtime_error);
}

TEST(Gpu, RequireGpuAgreesWithAvailability) {
    std::string reason;
    if (gpu_available(&reason)) {
        EXPECT_NO_THROW(require_gpu());
    } else {
        EXPECT_THROW(require_gpu(), hpclab::cli::Unavailable);
    }
}

TEST(Gpu, CopyAnchorIsPlausible) {
    HPCLAB_REQUIRE_GPU();
    const double gbps = measure_copy_gbps(std::size_t(256) << 20, 5);
    EXPECT_GT(gbps, 50.0);
    EXPECT_LT(gbps, 1.2 * device_info(0).peak_bandwidth_gbps());
}

// ---- the timing protocol's device-side pieces (hpclab/timed_cuda.hpp) ----

#include <vector>

#include "hpclab/timed.hpp"
#include "hpclab/timed_cuda.hpp"

TEST(TimedCuda, FillIsDeterministicAndInRange) {
    HPCLAB_REQUIRE_GPU();
    const std::size_t n = 1000003;
    DeviceBuffer<float> a(n), b(n);
    hpclab::timed::cuda::fill_uniform(a.get(), n, 7, -1.0f, 2.0f);
    hpclab::timed::cuda::fill_uniform(b.get(), n, 7, -1.0f, 2.0f);
    std::vector<float> ha(n), hb(n);
    a.copy_to_host(ha.data(), n);
    b.copy_to_host(hb.data(), n);
    EXPECT_EQ(ha, hb);
    double mean = 0;
    for (float x : ha) {
        ASSERT_GE(x, -1.0f);
        ASSERT_LE(x, 2.0f);
        mean += x / n;
    }
    EXPECT_NEAR(mean, 0.5, 0.01);
    hpclab::timed::cuda::fill_uniform(b.get(), n, 8, -1.0f, 2.0f);
    b.copy_to_host(hb.data(), n);
    EXPECT_NE(ha, hb);
}

TEST(TimedCuda, DigestAndSignedSumsAgreeWithTheData) {
    HPCLAB_REQUIRE_GPU();
    const std::size_t n = 100001;
    std::vector<double> h(n);
    for (std::size_t i = 0; i < n; ++i) h[i] = static_cast<double>(i % 13) - 6.0;
    DeviceBuffer<double> d(n);
    d.copy_from_host(h.data(), n);
    const auto digest = hpclab::timed::cuda::exact_digest(d.get(), n * sizeof(double));
    EXPECT_EQ(digest, hpclab::timed::cuda::exact_digest(d.get(), n * sizeof(double)));
    std::swap(h[5], h[6]);
    d.copy_from_host(h.data(), n);
    EXPECT_NE(digest, hpclab::timed::cuda::exact_digest(d.get(), n * sizeof(double)));
    // Small integers: every partial sum is exact, so device and host agree bitwise.
    const auto host = hpclab::timed::signed_sums(h.data(), n, 99, 2);
    EXPECT_EQ(hpclab::timed::cuda::signed_sums(d.get(), n, 99, 2), host);
}
