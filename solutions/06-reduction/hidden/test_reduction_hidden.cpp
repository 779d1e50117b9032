// Lab 06 hidden tests (compiled only by the grader): misaligned input
// pointers, sizes around every power of two, cancellation, a reducer reused
// across sizes, hard cases for the compensated sum, pi at large n.
// Every call into student code is judged (hpclab/judged.hpp); a reducer is
// built, used and read back inside one judged call. GPU results are compared
// with references computed here, never with the student's host functions on
// the same data (one could hand back the other's result).
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "hpclab/cuda.hpp"
#include "hpclab/data.hpp"
#include "hpclab/gtest_gpu.hpp"
#include "hpclab/judged.hpp"
#include "reduction.hpp"
#include "tests/trapezoid_terms.hpp"

namespace {

using lab06::Method;

template <class T>
double device_sum_at(Method m, const std::vector<T>& x, std::size_t offset, std::size_t n, int block = 256) {
    return HPCLAB_CALL([&] {
        hpclab::cuda::DeviceBuffer<T> d(x.size());
        d.copy_from_host(x.data(), x.size());
        lab06::DeviceReducer<T> reducer(m, n, block);
        return static_cast<double>(reducer.sum_to_host(d.get() + offset, n));
    });
}

// One judged call: one reducer sized for all of `x` sums its first n
// elements for each n of `sizes` in turn (a reducer reused across sizes).
template <class T>
std::vector<T> judged_prefix_sums(Method m, const std::vector<T>& x, const std::vector<std::size_t>& sizes, int block) {
    return HPCLAB_CALL([&] {
        hpclab::cuda::DeviceBuffer<T> d(x.size());
        d.copy_from_host(x.data(), x.size());
        lab06::DeviceReducer<T> reducer(m, x.size(), block);
        std::vector<T> sums;
        for (std::size_t n : sizes) sums.push_back(reducer.sum_to_host(d.get(), n));
        return sums;
    });
}

// Neumaier's compensated sum: the trusted reference (the student's
// compensated_sum is tested apart, in HiddenHost).
double reference_sum(const double* x, std::size_t n) {
    double s = 0, c = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double t = s + x[i];
        c += std::fabs(s) >= std::fabs(x[i]) ? (s - t) + x[i] : (x[i] - t) + s;
        s = t;
    }
    return s + c;
}

// The trapezoid rule for pi, summed with compensation (the student's
// trapezoid_pi_host is tested apart, in HiddenHost).
double host_trapezoid_pi(std::size_t intervals) {
    const std::vector<double> f = lab06_test::trapezoid_pi_terms(intervals);
    return 4.0 * reference_sum(f.data(), f.size()) / static_cast<double>(intervals);
}

class Hidden : public ::testing::TestWithParam<Method> {};

TEST_P(Hidden, MisalignedInputPointers) {
    HPCLAB_REQUIRE_GPU();
    // The interface promises only alignment to sizeof(T): 16-byte vector
    // loads must not assume more.
    std::vector<float> f(100013);
    std::vector<double> d(100013);
    for (std::size_t i = 0; i < f.size(); ++i) {
        f[i] = static_cast<float>(i % 5);
        d[i] = static_cast<double>(i);
    }
    for (std::size_t offset : {1u, 2u, 3u}) {
        for (std::size_t n : {1u, 3u, 5u, 100000u}) {
            double want_f = 0, want_d = 0;
            for (std::size_t i = offset; i < offset + n; ++i) {
                want_f += f[i];
                want_d += d[i];
            }
            EXPECT_EQ(device_sum_at(GetParam(), f, offset, n), want_f) << "float, offset " << offset << ", n " << n;
            EXPECT_EQ(device_sum_at(GetParam(), d, offset, n), want_d) << "double, offset " << offset << ", n " << n;
        }
    }
}

TEST_P(Hidden, AroundEveryPowerOfTwo) {
    HPCLAB_REQUIRE_GPU();
    std::vector<float> x((1u << 22) + 1);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7) % 3);
    std::vector<std::size_t> sizes;
    for (int k = 0; k <= 22; ++k) {
        for (long delta : {-1L, 0L, 1L}) {
            const long n = (1L << k) + delta;
            if (n >= 0) sizes.push_back(static_cast<std::size_t>(n));
        }
    }
    // One judged call: one reducer sums every prefix.
    const std::vector<float> got = judged_prefix_sums(GetParam(), x, sizes, 128);
    ASSERT_EQ(got.size(), sizes.size());
    for (std::size_t j = 0; j < sizes.size(); ++j) {
        const std::size_t n = sizes[j];
        double want = 0;
        for (std::size_t i = 0; i < n; ++i) want += x[i];
        EXPECT_EQ(static_cast<double>(got[j]), want) << "n = " << n;
    }
}

TEST_P(Hidden, CancellationWithinTolerance) {
    HPCLAB_REQUIRE_GPU();
    // Large terms of both signs that nearly cancel, and small ones between.
    const std::size_t n = 2000003;
    auto x = hpclab::uniform_doubles(n, 99, -1.0, 1.0);
    std::vector<double> mags(n);
    for (std::size_t i = 0; i < n; ++i) {
        if (i % 2 == 0) x[i] += (i % 4 == 0 ? 1e8 : -1e8);
        mags[i] = std::fabs(x[i]);
    }
    const double ref = reference_sum(x.data(), n);
    const double tol = lab06::sum_tolerance(n, reference_sum(mags.data(), n), lab06::unit_roundoff<double>());
    EXPECT_LE(std::fabs(device_sum_at(GetParam(), x, 0, n) - ref), tol);
}

TEST_P(Hidden, ReducerReusedAcrossSizes) {
    HPCLAB_REQUIRE_GPU();
    std::vector<double> x(1000000);
    std::iota(x.begin(), x.end(), 1.0);
    const std::vector<std::size_t> sizes = {1000000u, 17u, 0u, 999999u, 1u, 1000000u};
    // One judged call: one reducer, every size in turn.
    const std::vector<double> got = judged_prefix_sums(GetParam(), x, sizes, 512);
    ASSERT_EQ(got.size(), sizes.size());
    for (std::size_t j = 0; j < sizes.size(); ++j) {
        const std::size_t n = sizes[j];
        EXPECT_EQ(got[j], 0.5 * double(n) * double(n + 1)) << "n = " << n;
    }
}

INSTANTIATE_TEST_SUITE_P(Lab06, Hidden, ::testing::ValuesIn(lab06::kAllMethods),
                         [](const ::testing::TestParamInfo<Method>& info) {
                             return std::string(lab06::method_name(info.param));
                         });

TEST(HiddenHost, CompensatedSumHardCases) {
    const std::vector<double> a = {1e100, 1.0, -1e100};
    EXPECT_EQ(HPCLAB_VALUE(lab06::compensated_sum(a.data(), a.size())), 1.0);
    const std::vector<double> b = {1.0, 1e-16, 1e-16, 1e-16, 1e-16, -1.0};
    EXPECT_NEAR(HPCLAB_VALUE(lab06::compensated_sum(b.data(), b.size())), 4e-16, 1e-30);
    std::vector<float> c(1 << 20, 0.1f);
    EXPECT_NEAR(HPCLAB_VALUE(lab06::compensated_sum(c.data(), c.size())), (1 << 20) * static_cast<double>(0.1f), 1e-8);
}

TEST(HiddenHost, BlocksForLargeN) {
    const std::size_t n = std::size_t(1) << 33;
    EXPECT_EQ(HPCLAB_VALUE(lab06::blocks_for(Method::first_add, n, 1024, 528)), std::size_t(1) << 22);
    EXPECT_EQ(HPCLAB_VALUE(lab06::blocks_for(Method::interleaved, n + 1, 1024, 528)), (std::size_t(1) << 23) + 1);
    EXPECT_EQ(HPCLAB_VALUE(lab06::blocks_for(Method::grid_stride, n, 1024, 528)), 528u);
    EXPECT_EQ(HPCLAB_VALUE(lab06::blocks_for(Method::grid_stride, 5, 1024, 528)), 1u);
}

TEST(HiddenHost, TrapezoidSmallN) {
    // n = 2: nodes 0, 1/2, 1: 4/2 * (1/2 + sqrt(3)/2 + 0) = 1 + sqrt(3).
    EXPECT_NEAR(HPCLAB_VALUE(lab06::trapezoid_pi_host(2)), 1.0 + std::sqrt(3.0), 1e-15);
    const double err = M_PI - HPCLAB_VALUE(lab06::trapezoid_pi_host(1000000));
    EXPECT_NEAR(err * 1e9, 1.17598, 1e-4);
}

TEST(HiddenDevice, PiAtLargeN) {
    HPCLAB_REQUIRE_GPU();
    const double dev = HPCLAB_VALUE(lab06::trapezoid_pi_device(100000000));
    EXPECT_NEAR((M_PI - dev) * 1e12, 1.17598, 2e-2);  // 2e-14 absolute: rounding of 1e8 terms
    // Against this file's host rule, not the student's (see host_trapezoid_pi).
    EXPECT_NEAR(HPCLAB_VALUE(lab06::trapezoid_pi_device(3, 64)), host_trapezoid_pi(3), 1e-15);
}

}  // namespace
