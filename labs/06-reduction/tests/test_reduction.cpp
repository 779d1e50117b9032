// Lab 06 visible tests: every kernel on exact sums (1..n in double, small
// integers in float) at the sizes that break reductions (1, 31, 32, 33,
// 2^20 + 7, not powers of two, empty), random data against the compensated
// host sum within a tolerance that grows with n, the launch geometry, and
// pi by the trapezoid rule on host and device.
//
// Every call into student code goes through HPCLAB_CALL / HPCLAB_VALUE
// (hpclab/judged.hpp): the grader records it in the submission's build and
// judges the recorded results in the starter's. A reducer is built, used and
// read back inside one judged call. The GPU tests compare with sums computed
// here (reference_sum, host_trapezoid_pi), not with the student's host
// functions: given the same data, one student function could hand back the
// other's result.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "hpclab/cuda.hpp"
#include "hpclab/data.hpp"
#include "hpclab/gtest_gpu.hpp"
#include "hpclab/judged.hpp"
#include "reduction.hpp"
#include "trapezoid_terms.hpp"

namespace {

using lab06::Method;

// One judged call: upload, a reducer of the student's, its sum.
template <class T>
T gpu_sum(Method m, const std::vector<T>& x, int block = 256) {
    return HPCLAB_CALL([&] {
        hpclab::cuda::DeviceBuffer<T> d(x.size());
        d.copy_from_host(x.data(), x.size());
        lab06::DeviceReducer<T> reducer(m, x.size(), block);
        return reducer.sum_to_host(d.get(), x.size());
    });
}

// The trusted references of the GPU tests (the student's compensated_sum
// and trapezoid_pi_host are tested apart, below): a plain sum in x86's
// 64-bit-mantissa long double, 11 bits beyond double, and the trapezoid
// rule summed with it. It shares no algorithm with the student's
// compensated sum, so the two cannot share a blind spot (nor does this
// visible file hand out the answer).
template <class T>
double reference_sum(const T* x, std::size_t n) {
    long double sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += static_cast<long double>(x[i]);
    return static_cast<double>(sum);
}

double host_trapezoid_pi(std::size_t intervals) {
    const std::vector<double> f = lab06_test::trapezoid_pi_terms(intervals);
    return 4.0 * reference_sum(f.data(), f.size()) / static_cast<double>(intervals);
}

std::vector<double> one_to_n(std::size_t n) {
    std::vector<double> x(n);
    std::iota(x.begin(), x.end(), 1.0);
    return x;
}

// Integers 0..3 as floats: every partial sum below 2^24 is exact in float,
// so any summation order gives the exact answer, and a dropped or doubled
// element shows.
std::vector<float> small_integers(std::size_t n, std::uint64_t seed, double* exact) {
    hpclab::Rng rng(seed);
    std::vector<float> x(n);
    double s = 0;
    for (auto& v : x) {
        v = static_cast<float>(rng.uniform_int(0, 3));
        s += v;
    }
    *exact = s;
    return x;
}

class EveryKernel : public ::testing::TestWithParam<Method> {};

TEST_P(EveryKernel, SmallSumsOfOneToNAreExactInDouble) {
    HPCLAB_REQUIRE_GPU();
    for (std::size_t n : {1, 2, 31, 32, 33, 63, 255, 256, 257, 511, 512, 513, 1000, 4097, 65537}) {
        const double want = 0.5 * static_cast<double>(n) * static_cast<double>(n + 1);
        EXPECT_EQ(gpu_sum(GetParam(), one_to_n(n)), want) << "sum of 1.." << n;
    }
}

TEST_P(EveryKernel, SumOfOneToNIsExactInDoubleLarge) {
    HPCLAB_REQUIRE_GPU();
    for (std::size_t n : {(1u << 20) + 7, 3u * (1u << 19) + 1, 5000011u}) {
        const double want = 0.5 * static_cast<double>(n) * static_cast<double>(n + 1);
        EXPECT_EQ(gpu_sum(GetParam(), one_to_n(n)), want) << "sum of 1.." << n;
    }
}

TEST_P(EveryKernel, SmallIntegerSumsAreExactInFloat) {
    HPCLAB_REQUIRE_GPU();
    for (std::size_t n : {1, 31, 32, 33, 100, 1023, 1024, 1025, 2049, 65537}) {
        double exact = 0;
        const auto x = small_integers(n, 100 + n, &exact);
        EXPECT_EQ(static_cast<double>(gpu_sum(GetParam(), x)), exact) << "n = " << n;
    }
}

TEST_P(EveryKernel, IntegerSumsAreExactInFloatLarge) {
    HPCLAB_REQUIRE_GPU();
    for (std::size_t n : {(1u << 20) + 7, 3000017u}) {
        double exact = 0;
        const auto x = small_integers(n, 7 + n, &exact);
        EXPECT_EQ(static_cast<double>(gpu_sum(GetParam(), x)), exact) << "n = " << n;
    }
}

template <class T>
void expect_random_within_tolerance(Method m, std::size_t n, std::uint64_t seed) {
    std::vector<T> x(n), magnitudes(n);
    if constexpr (sizeof(T) == 4)
        x = hpclab::uniform_floats(n, seed, -1.0f, 2.0f);
    else
        x = hpclab::uniform_doubles(n, seed, -1.0, 2.0);
    for (std::size_t i = 0; i < n; ++i) magnitudes[i] = std::fabs(x[i]);
    const double ref = reference_sum(x.data(), n);
    const double tol = lab06::sum_tolerance(n, reference_sum(magnitudes.data(), n), lab06::unit_roundoff<T>());
    const double got = static_cast<double>(gpu_sum(m, x));
    EXPECT_LE(std::fabs(got - ref), tol) << "n = " << n << ": got " << got << ", long double host sum " << ref;
}

TEST_P(EveryKernel, RandomFloatsWithinTolerance) {
    HPCLAB_REQUIRE_GPU();
    for (std::size_t n : {1000003u, (1u << 20) + 7}) expect_random_within_tolerance<float>(GetParam(), n, n);
}

TEST_P(EveryKernel, RandomDoublesWithinTolerance) {
    HPCLAB_REQUIRE_GPU();
    for (std::size_t n : {1000003u, (1u << 20) + 7}) expect_random_within_tolerance<double>(GetParam(), n, n);
}

TEST_P(EveryKernel, SmallEmptyInputGivesZero) {
    HPCLAB_REQUIRE_GPU();
    // Sum something first, so a stale result cannot pass for the empty sum.
    // One judged call: the reducer lives through all three sums.
    const auto [hundred, zero, empty_sum] = HPCLAB_CALL([&] {
        hpclab::cuda::DeviceBuffer<float> d(100);
        const std::vector<float> ones(100, 1.0f);
        d.copy_from_host(ones.data(), ones.size());
        lab06::DeviceReducer<float> reducer(GetParam(), 100);
        const float first = reducer.sum_to_host(d.get(), 100);
        const float second = reducer.sum_to_host(d.get(), 0);
        lab06::DeviceReducer<double> empty(GetParam(), 0);
        return std::make_tuple(first, second, empty.sum_to_host(nullptr, 0));
    });
    EXPECT_EQ(hundred, 100.0f);
    EXPECT_EQ(zero, 0.0f);
    EXPECT_EQ(empty_sum, 0.0);
}

TEST_P(EveryKernel, SmallOtherBlockSizes) {
    HPCLAB_REQUIRE_GPU();
    // Each block size gets its own data, so no sum can be the previous one's.
    for (int block : {32, 64, 128, 512, 1024}) {
        double exact = 0;
        const auto x = small_integers(70001, 3 + static_cast<std::uint64_t>(block), &exact);
        EXPECT_EQ(static_cast<double>(gpu_sum(GetParam(), x, block)), exact) << "block " << block;
        auto shifted = one_to_n(33);  // block + 1, ..., block + 33
        for (double& v : shifted) v += block;
        EXPECT_EQ(gpu_sum(GetParam(), shifted, block), 561.0 + 33.0 * block) << "block " << block;
    }
}

INSTANTIATE_TEST_SUITE_P(Lab06, EveryKernel, ::testing::ValuesIn(lab06::kAllMethods),
                         [](const ::testing::TestParamInfo<Method>& info) {
                             return std::string(lab06::method_name(info.param));
                         });

// ---- host parts: these run in CI, without a GPU ----------------------------

TEST(HostSums, CompensatedSumRecoversLostBits) {
    // 1 + 1e100 + 1 - 1e100: plain summation gives 0, Kahan's original 0,
    // Neumaier's variant the exact 2.
    const std::vector<double> hard = {1.0, 1e100, 1.0, -1e100};
    EXPECT_EQ(HPCLAB_VALUE(lab06::compensated_sum(hard.data(), hard.size())), 2.0);
    // 1 followed by a million 1e-16: each is below half an ulp of 1.
    std::vector<double> tiny(1000001, 1e-16);
    tiny[0] = 1.0;
    EXPECT_NEAR(HPCLAB_VALUE(lab06::compensated_sum(tiny.data(), tiny.size())), 1.0 + 1e-10, 1e-15);
    const std::vector<float> f = {16777216.0f, 1.0f, 1.0f, 1.0f};  // 2^24 + 3 is not a float
    EXPECT_EQ(HPCLAB_VALUE(lab06::compensated_sum(f.data(), f.size())), 16777219.0);
    EXPECT_EQ(HPCLAB_VALUE(lab06::compensated_sum(f.data(), 0)), 0.0);
}

TEST(HostSums, ToleranceCoversATwoLevelFloatSum) {
    // The tolerance claims any reduction at most as deep as a two-level one
    // is within it: check that on a float two-level sum, against the
    // compensated sum, for growing n; and that it grows with n.
    double previous = 0;
    for (std::size_t n : {1000u, 100000u, 4000000u}) {
        const auto x = hpclab::uniform_floats(n, n, 0.0f, 1.0f);
        const std::size_t chunk = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(n))));
        float total = 0;
        for (std::size_t start = 0; start < n; start += chunk) {
            float part = 0;
            for (std::size_t i = start; i < n && i < start + chunk; ++i) part += x[i];
            total += part;
        }
        const double ref = HPCLAB_VALUE(lab06::compensated_sum(x.data(), n));  // |x| = x here
        const double tol = lab06::sum_tolerance(n, ref, lab06::unit_roundoff<float>());
        EXPECT_LE(std::fabs(total - ref), tol) << "n = " << n;
        EXPECT_GT(tol / ref, previous) << "the relative tolerance must grow with n";
        previous = tol / ref;
    }
}

TEST(IndexMath, BlocksForEachMethod) {
    using lab06::blocks_for;
    EXPECT_EQ(HPCLAB_VALUE(blocks_for(Method::interleaved, 1000, 256, 264)), 4u);
    EXPECT_EQ(HPCLAB_VALUE(blocks_for(Method::sequential, 1024, 256, 264)), 4u);
    EXPECT_EQ(HPCLAB_VALUE(blocks_for(Method::sequential, 1025, 256, 264)), 5u);
    EXPECT_EQ(HPCLAB_VALUE(blocks_for(Method::first_add, 1000, 256, 264)), 2u);
    EXPECT_EQ(HPCLAB_VALUE(blocks_for(Method::warp_shuffle, 1025, 256, 264)), 3u);
    EXPECT_EQ(HPCLAB_VALUE(blocks_for(Method::grid_stride, 1000, 256, 264)), 4u);
    EXPECT_EQ(HPCLAB_VALUE(blocks_for(Method::grid_stride, std::size_t(1) << 28, 256, 264)), 264u);
    for (Method m : lab06::kAllMethods) {
        EXPECT_EQ(HPCLAB_VALUE(blocks_for(m, 0, 256, 264)), 0u) << lab06::method_name(m);
        EXPECT_EQ(HPCLAB_VALUE(blocks_for(m, 1, 1024, 264)), 1u) << lab06::method_name(m);
    }
    EXPECT_THROW(HPCLAB_VALUE(blocks_for(Method::grid_stride, 10, 256, 0)), std::invalid_argument);
    EXPECT_THROW(HPCLAB_VALUE(blocks_for(Method::sequential, 10, 0, 10)), std::invalid_argument);
}

TEST(IndexMath, BlocksCoverEveryElementAndNoMore) {
    for (int block : {32, 256, 1024}) {
        for (std::size_t n = 1; n < 5000; n += 7) {
            for (Method m : {Method::interleaved, Method::sequential, Method::first_add, Method::warp_shuffle}) {
                const std::size_t per_block = (m == Method::first_add || m == Method::warp_shuffle) ? 2 * block : block;
                const std::size_t b = HPCLAB_VALUE(lab06::blocks_for(m, n, block, 100));
                ASSERT_GE(b * per_block, n) << lab06::method_name(m) << " drops the tail: n = " << n;
                ASSERT_LT((b - 1) * per_block, n) << lab06::method_name(m) << " launches an idle block: n = " << n;
            }
            const std::size_t g = HPCLAB_VALUE(lab06::blocks_for(Method::grid_stride, n, block, 3));
            ASSERT_GE(g, 1u);
            ASSERT_LE(g, 3u);
        }
    }
}

TEST(Trapezoid, HostErrorFallsLikeNToTheMinusThreeHalves) {
    EXPECT_EQ(HPCLAB_VALUE(lab06::trapezoid_pi_host(1)), 2.0);  // 4 * (f(0) + f(1)) / 2
    EXPECT_THROW(HPCLAB_VALUE(lab06::trapezoid_pi_host(0)), std::invalid_argument);
    // The integrand's square-root singularity at x = 1 makes the error
    // C n^-1.5 (C = 1.17598...), not the n^-2 of smooth integrands.
    for (std::size_t n : {1000u, 10000u, 100000u}) {
        const double err = M_PI - HPCLAB_VALUE(lab06::trapezoid_pi_host(n));
        EXPECT_NEAR(err * std::pow(static_cast<double>(n), 1.5), 1.17598, 2e-4) << "n = " << n;
    }
}

TEST(Trapezoid, DeviceMatchesHost) {
    HPCLAB_REQUIRE_GPU();
    // The host value is this file's (the student's host rule is tested apart:
    // a device function could otherwise return the student's host result).
    for (std::size_t n : {1u, 2u, 7u, 1000u, 1000001u}) {
        const double host = host_trapezoid_pi(n), device = HPCLAB_VALUE(lab06::trapezoid_pi_device(n));
        EXPECT_NEAR(device, host, 1e-13) << "n = " << n;
    }
    // Zero intervals are refused by the given trapezoid_pi_device before any
    // launch: it runs here for real, not judged.
    EXPECT_THROW(lab06::trapezoid_pi_device(0), std::invalid_argument);
}

}  // namespace
