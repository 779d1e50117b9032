// Lab 10 contraction test: the arithmetic gives the same bits whether or not the compiler may
// fuse a*b + c into an FMA (nvcc --fmad, g++ -ffp-contract), on the device and on the host,
// and the device matches the host. Links contraction_variant.cu built twice (fmad_on, fmad_off).
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "hpclab/data.hpp"
#include "hpclab/gtest_gpu.hpp"
#include "qd_reference.hpp"

namespace lab10 {
#define DECLARE_VARIANT(ns)                                            \
    namespace ns {                                                     \
    void host_results(const double* in, double* out, std::size_t n);   \
    void device_results(const double* in, double* out, std::size_t n); \
    double host_naive_mad(const double* in);                           \
    double device_naive_mad(const double* in);                         \
    }
DECLARE_VARIANT(fmad_on)
DECLARE_VARIANT(fmad_off)
}  // namespace lab10

namespace {

using namespace lab10;

constexpr int kOut = 30;
const char* kOutName[] = {"dd_add", "dd_sub", "dd_mul", "dd_div", "dd_sqrt",
                          "qd_add", "qd_sub", "qd_mul", "qd_div", "qd_sqrt"};

std::vector<double> inputs(std::size_t n) {
    hpclab::Rng rng(31);
    std::vector<double> in(8 * n);
    for (std::size_t i = 0; i < n; ++i) {
        const QuadDouble a = random_qd(rng), b = random_qd(rng);
        const double w[8] = {a.v.x, a.v.y, a.v.z, a.v.w, b.v.x, b.v.y, b.v.z, b.v.w};
        for (int k = 0; k < 8; ++k) in[8 * i + k] = w[k];
    }
    return in;
}

// Index of the first output that differs in bits, with the operation's name; "" if none.
std::string first_difference(const std::vector<double>& x, const std::vector<double>& y) {
    for (std::size_t j = 0; j < x.size(); ++j) {
        if (!same_bits(x[j], y[j])) {
            const int k = static_cast<int>(j % kOut);
            const int op = k < 10 ? k / 2 : 5 + (k - 10) / 4;
            return std::string(kOutName[op]) + " of case " + std::to_string(j / kOut);
        }
    }
    return "";
}

bool host_has_fma() {
#if defined(__GNUC__) && defined(__x86_64__)
    return __builtin_cpu_supports("fma");
#else
    return true;
#endif
}

// The control: 1 + 2^-52 times 1 - 2^-52 is 1 - 2^-104; minus 1 that is -2^-104 when fused,
// 0 when the product is rounded first.
const double kMad[3] = {1.0 + 0x1p-52, 1.0 - 0x1p-52, -1.0};

TEST(Contraction, HostBitsDoNotDependOnFpContract) {
    if (!host_has_fma()) GTEST_SKIP() << "this CPU has no FMA instructions: -mfma code cannot run";
    EXPECT_EQ(fmad_on::host_naive_mad(kMad), -0x1p-104) << "the 'on' build did not contract: the test proves nothing";
    EXPECT_EQ(fmad_off::host_naive_mad(kMad), 0.0);
    const std::size_t n = 20000;
    const auto in = inputs(n);
    std::vector<double> on(kOut * n), off(kOut * n);
    fmad_on::host_results(in.data(), on.data(), n);
    fmad_off::host_results(in.data(), off.data(), n);
    EXPECT_EQ(first_difference(on, off), "") << "host results depend on -ffp-contract";
}

TEST(Contraction, DeviceBitsDoNotDependOnFmad) {
    HPCLAB_REQUIRE_GPU();
    EXPECT_EQ(fmad_on::device_naive_mad(kMad), -0x1p-104) << "-fmad=true did not contract: the test proves nothing";
    EXPECT_EQ(fmad_off::device_naive_mad(kMad), 0.0);
    const std::size_t n = 20000;
    const auto in = inputs(n);
    std::vector<double> on(kOut * n), off(kOut * n), host(kOut * n);
    fmad_on::device_results(in.data(), on.data(), n);
    fmad_off::device_results(in.data(), off.data(), n);
    fmad_off::host_results(in.data(), host.data(), n);
    EXPECT_EQ(first_difference(on, off), "") << "device results depend on --fmad";
    EXPECT_EQ(first_difference(on, host), "") << "device (-fmad=true) and host results differ";
}

}  // namespace
