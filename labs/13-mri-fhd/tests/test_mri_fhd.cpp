// Lab 13 visible tests: mu and the double reference on the CPU; every GPU
// stage against long-double sums within the error bound the handout
// derives (tests/fhd_reference.hpp), at odd sizes, with chunks that do not
// divide the sample count, a single sample, a single voxel, no samples, and
// phases of hundreds of radians; chunk sizes must not change the answer.
//
// Every call into student code goes through HPCLAB_CALL / HPCLAB_VALUE
// (hpclab/judged.hpp). Outputs are poisoned with NaN before each GPU call.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "device_data.hpp"
#include "fhd.hpp"
#include "fhd_expect.hpp"
#include "fhd_judged.hpp"
#include "fhd_reference.hpp"
#include "hpclab/data.hpp"
#include "hpclab/gtest_gpu.hpp"
#include "hpclab/judged.hpp"
#include "scan_data.hpp"

namespace {

using lab13::Grid;
using lab13::KSpace;
using lab13::Variant;
using lab13::testing::Arithmetic;

// A k-space from the radial scan, with mu = conj(phi) d computed here (the
// test's own arithmetic, in std::complex<double>).
KSpace scan_kspace(std::size_t m, std::size_t side, std::uint64_t seed) {
    const lab13::Scan s = lab13::make_scan(m, side, seed);
    KSpace k{s.kx, s.ky, s.kz, {}, {}};
    for (std::size_t j = 0; j < m; ++j) {
        const std::complex<double> mu =
            std::conj(std::complex<double>(s.rPhi[j], s.iPhi[j])) * std::complex<double>(s.rD[j], s.iD[j]);
        k.rMu.push_back(static_cast<float>(mu.real()));
        k.iMu.push_back(static_cast<float>(mu.imag()));
    }
    return k;
}

using lab13::testing::gpu_fhd;

using lab13::testing::expect_within_bound;

// ---- stage 1: mu and the CPU reference -----------------------------------------

// One judged call of compute_mu; its five arrays laid end to end.
KSpace judged_mu(const lab13::Scan& s) {
    const std::vector<float> flat = HPCLAB_CALL([&] {
        const KSpace k = lab13::compute_mu(s);
        std::vector<float> out;
        for (const auto* v : {&k.kx, &k.ky, &k.kz, &k.rMu, &k.iMu}) out.insert(out.end(), v->begin(), v->end());
        return out;
    });
    KSpace k;
    const std::size_t m = flat.size() / 5;
    std::vector<float>* fields[] = {&k.kx, &k.ky, &k.kz, &k.rMu, &k.iMu};
    if (flat.size() % 5 != 0) return k;  // every field stays empty: the test's size checks fail
    for (std::size_t f = 0; f < 5; ++f) fields[f]->assign(flat.begin() + f * m, flat.begin() + (f + 1) * m);
    return k;
}

TEST(Mu, ConjugateOfPhiTimesD) {
    const lab13::Scan s = lab13::make_scan(777, 24, 1301);
    const KSpace k = judged_mu(s);
    ASSERT_EQ(k.rMu.size(), s.size());
    ASSERT_EQ(k.iMu.size(), s.size());
    EXPECT_EQ(k.kx, s.kx);
    EXPECT_EQ(k.ky, s.ky);
    EXPECT_EQ(k.kz, s.kz);
    for (std::size_t j = 0; j < s.size(); ++j) {
        const double rp = s.rPhi[j], ip = s.iPhi[j], rd = s.rD[j], id = s.iD[j];
        // Products of floats are exact in double; one float rounding remains.
        const double r = rp * rd + ip * id, i = rp * id - ip * rd;
        EXPECT_NEAR(k.rMu[j], r, 0x1p-24 * (std::fabs(rp * rd) + std::fabs(ip * id))) << "sample " << j;
        EXPECT_NEAR(k.iMu[j], i, 0x1p-24 * (std::fabs(rp * id) + std::fabs(ip * rd))) << "sample " << j;
    }
}

TEST(Mu, RaggedScanIsRefused) {
    lab13::Scan s = lab13::make_scan(10, 8, 1302);
    s.iD.pop_back();
    EXPECT_THROW(HPCLAB_VALUE(lab13::compute_mu(s).size()), std::invalid_argument);
}

std::vector<double> cpu_fhd(const KSpace& k, const Grid& g) {
    return HPCLAB_CALL([&] {
        std::vector<double> r, i;
        lab13::fhd_cpu(k, g, r, i);
        r.insert(r.end(), i.begin(), i.end());
        return r;
    });
}

void expect_cpu_within_bound(const std::vector<double>& out, const KSpace& k, const Grid& g) {
    const std::size_t n = g.size();
    ASSERT_EQ(out.size(), 2 * n);
    for (std::size_t v = 0; v < n; ++v) {
        const auto e = lab13::testing::expected_at(k, g, v, Arithmetic::dbl);
        EXPECT_NEAR(out[v], e.r, e.bound) << "voxel " << v;
        EXPECT_NEAR(out[n + v], e.i, e.bound) << "voxel " << v;
    }
}

TEST(CpuReference, MatchesLongDoubleAtOddSizes) {
    const KSpace k = scan_kspace(301, 20, 1303);
    const Grid g = lab13::make_grid(9, 7, 5);
    expect_cpu_within_bound(cpu_fhd(k, g), k, g);
}

TEST(CpuReference, SingleVoxelSingleSampleAndNone) {
    const KSpace one = scan_kspace(1, 16, 1304);
    const Grid g = lab13::make_grid(4, 3, 2);
    expect_cpu_within_bound(cpu_fhd(one, g), one, g);
    const KSpace k = scan_kspace(50, 16, 1305);
    const Grid voxel = lab13::make_grid(1, 1, 1);
    expect_cpu_within_bound(cpu_fhd(k, voxel), k, voxel);
    const std::vector<double> zeros = cpu_fhd(KSpace{}, g);
    EXPECT_EQ(zeros, std::vector<double>(2 * g.size(), 0.0));
}

// The given data generator: the phantom is real, so its transform is
// Hermitian, and at k = 0 it is the phantom's integral. (Harness: no points.)
TEST(Data, PhantomTransformIsHermitianWithTheRightIntegral) {
    double re, im, re2, im2;
    lab13::phantom_transform(0, 0, 0, &re, &im);
    const double integral = 0.8 * 0.86 * 0.76 - 0.8 * 0.72 * 0.78 * 0.68 - 2 * 0.15 * 0.12 * 0.30 * 0.20 +
                            0.3 * 0.06 * 0.05 * 0.07 + 0.1 * 0.10 * 0.04 * 0.04;
    EXPECT_NEAR(re, integral, 1e-12);
    EXPECT_NEAR(im, 0, 1e-15);
    lab13::phantom_transform(3.5, -1.25, 7, &re, &im);
    lab13::phantom_transform(-3.5, 1.25, -7, &re2, &im2);
    EXPECT_NEAR(re, re2, 1e-15);
    EXPECT_NEAR(im, -im2, 1e-15);
}

// ---- the GPU ladder ---------------------------------------------------------------

class EveryStage : public ::testing::TestWithParam<Variant> {};

TEST_P(EveryStage, OddGridAndMoreSamplesThanAChunk) {
    HPCLAB_REQUIRE_GPU();
    const Variant v = GetParam();
    // 315 voxels (not a multiple of a block, nor of the tiles stage's 1024
    // voxels a block); 5003 samples (more than a chunk of 3276, and not a
    // multiple of one, nor of a tile of 1024).
    const KSpace k = scan_kspace(5003, 16, 1310);
    const Grid g = lab13::make_grid(9, 7, 5);
    expect_within_bound(gpu_fhd(v, k, g), k, g, lab13::testing::arithmetic_of(v), lab13::variant_name(v));
}

TEST_P(EveryStage, SmallChunksThatDoNotDivideTheSamples) {
    HPCLAB_REQUIRE_GPU();
    const Variant v = GetParam();
    // Ten samples: with few terms the bound is tight enough that one sample
    // missed or added twice fails.
    const KSpace k = scan_kspace(10, 12, 1311);
    const Grid g = lab13::make_grid(5, 3, 2);
    for (std::size_t chunk : {1, 3, 4, 10}) {
        expect_within_bound(gpu_fhd(v, k, g, lab13::chunk_capacity(v) ? chunk : 0), k, g,
                            lab13::testing::arithmetic_of(v),
                            std::string(lab13::variant_name(v)) + ", chunk " + std::to_string(chunk));
    }
}

TEST_P(EveryStage, SingleSampleSingleVoxelAndNoSamples) {
    HPCLAB_REQUIRE_GPU();
    const Variant v = GetParam();
    const auto a = lab13::testing::arithmetic_of(v);
    const KSpace one = scan_kspace(1, 16, 1312);
    const Grid g = lab13::make_grid(17, 9, 2);  // 306 voxels: a block and a bit
    expect_within_bound(gpu_fhd(v, one, g), one, g, a, "one sample");
    const KSpace k = scan_kspace(7, 16, 1313);
    const Grid voxel = lab13::make_grid(1, 1, 1);
    expect_within_bound(gpu_fhd(v, k, voxel), k, voxel, a, "one voxel");
    EXPECT_EQ(gpu_fhd(v, KSpace{}, g), std::vector<float>(2 * g.size(), 0.0f)) << "no samples: all zeros";
}

TEST_P(EveryStage, PhasesOfHundredsOfRadians) {
    HPCLAB_REQUIRE_GPU();
    const Variant v = GetParam();
    // Resolution 256: k up to 128 cycles, phases up to about 700 radians,
    // where __sinf on the raw phase loses bits that the reduction keeps.
    const KSpace k = scan_kspace(600, 256, 1314);
    const Grid g = lab13::make_grid(7, 6, 5);
    expect_within_bound(gpu_fhd(v, k, g), k, g, lab13::testing::arithmetic_of(v), lab13::variant_name(v));
}

INSTANTIATE_TEST_SUITE_P(Lab13, EveryStage, ::testing::ValuesIn(lab13::kAllVariants),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                             return std::string(lab13::variant_name(info.param));
                         });

class TurnsStage : public ::testing::TestWithParam<Variant> {};

// Integer frequencies (up to 2000 cycles) and make_grid's voxel centres of an
// 8 x 8 x 4 grid, odd multiples of 1/16 and 1/8: every phase kx x + ky y +
// kz z, up to about 2,600 turns, is exact in float. A stage that takes the
// phase modulo one turn before the sine then errs by __sincosf's 2^-21.19 a
// term, and the bound says so; one that hands the sine the raw phase loses
// u 2 pi |t| radians first, about 10^-4 at 300 turns, and exceeds it. Few
// samples, so that the bound's share for the sums' rounding, (3M + 3) u sum
// |mu|, stays small: with 4, a float model of the raw-phase stage (exact
// sines) misses it at 251 of the 256 voxels, by up to 144 times.
TEST_P(TurnsStage, ExactPhasesOfHundredsOfTurnsLoseNothingBeforeTheSine) {
    HPCLAB_REQUIRE_GPU();
    const Variant v = GetParam();
    const std::size_t m = 4;
    KSpace k;
    const auto f = hpclab::uniform_ints(3 * m, 1330, -2000, 2000);
    for (std::size_t j = 0; j < m; ++j) {
        k.kx.push_back(static_cast<float>(f[3 * j]));
        k.ky.push_back(static_cast<float>(f[3 * j + 1]));
        k.kz.push_back(static_cast<float>(f[3 * j + 2]));
    }
    k.rMu = hpclab::uniform_floats(m, 1331, -1.0f, 1.0f);
    k.iMu = hpclab::uniform_floats(m, 1332, -1.0f, 1.0f);
    const Grid g = lab13::make_grid(8, 8, 4);
    expect_within_bound(gpu_fhd(v, k, g), k, g, Arithmetic::turns_exact_phase, lab13::variant_name(v));
}

INSTANTIATE_TEST_SUITE_P(Lab13, TurnsStage, ::testing::Values(Variant::turns, Variant::overlap, Variant::tiles),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                             return std::string(lab13::variant_name(info.param));
                         });

class ChunkedStage : public ::testing::TestWithParam<Variant> {};

// The chunk size changes which launch adds a term, not the terms: the
// answers for chunks of 1, 97 and the capacity agree within the rounding
// of the sums alone, (3M + 3) u sum |mu| (the phase and trigonometric
// errors are the same in all three).
TEST_P(ChunkedStage, ChunkSizeDoesNotChangeTheAnswer) {
    HPCLAB_REQUIRE_GPU();
    const Variant v = GetParam();
    const KSpace k = scan_kspace(400, 32, 1320);
    const Grid g = lab13::make_grid(11, 5, 3);
    double weight = 0;
    for (std::size_t j = 0; j < k.size(); ++j) weight += std::fabs(k.rMu[j]) + std::fabs(k.iMu[j]);
    const double tolerance = 2 * (3.0 * k.size() + 3) * 0x1p-24 * weight;
    const std::vector<float> whole = gpu_fhd(v, k, g, lab13::chunk_capacity(v));
    for (std::size_t chunk : {1, 97}) {
        const std::vector<float> split = gpu_fhd(v, k, g, chunk);
        ASSERT_EQ(split.size(), whole.size());
        for (std::size_t e = 0; e < whole.size(); ++e) {
            ASSERT_NEAR(split[e], whole[e], tolerance)
                << lab13::variant_name(v) << ", chunk " << chunk << ", value " << e;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Lab13, ChunkedStage,
                         ::testing::Values(Variant::constant, Variant::structs, Variant::fast_trig, Variant::turns,
                                           Variant::overlap),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                             return std::string(lab13::variant_name(info.param));
                         });

}  // namespace
