// Lab 13 hidden tests: sizes, seeds and chunk boundaries the visible tests
// do not use: sample counts at and just past a chunk's capacity (and the
// overlap stage's three-buffer-use case), a grid one voxel past a block,
// random k-space and mu instead of the phantom, and the CPU reference on a
// long, thin grid. Same error bounds as the visible tests
// (tests/fhd_reference.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "device_data.hpp"
#include "fhd.hpp"
#include "hpclab/data.hpp"
#include "hpclab/gtest_gpu.hpp"
#include "hpclab/judged.hpp"
#include "scan_data.hpp"
#include "tests/fhd_expect.hpp"
#include "tests/fhd_judged.hpp"
#include "tests/fhd_reference.hpp"

namespace {

using lab13::Grid;
using lab13::KSpace;
using lab13::Variant;

// Random k-space: positions uniform up to kmax, mu uniform in [-1, 1).
KSpace random_kspace(std::size_t m, double kmax, std::uint64_t seed) {
    hpclab::Rng rng(seed);
    KSpace k;
    for (std::size_t j = 0; j < m; ++j) {
        k.kx.push_back(static_cast<float>(rng.uniform(-kmax, kmax)));
        k.ky.push_back(static_cast<float>(rng.uniform(-kmax, kmax)));
        k.kz.push_back(static_cast<float>(rng.uniform(-kmax, kmax)));
        k.rMu.push_back(static_cast<float>(rng.uniform(-1, 1)));
        k.iMu.push_back(static_cast<float>(rng.uniform(-1, 1)));
    }
    return k;
}

using lab13::testing::expect_within_bound;

TEST(HiddenCpu, LongThinGridAndRandomKSpace) {
    const KSpace k = random_kspace(123, 40, 91301);
    const Grid g = lab13::make_grid(37, 2, 1);
    const std::vector<double> out = HPCLAB_CALL([&] {
        std::vector<double> r, i;
        lab13::fhd_cpu(k, g, r, i);
        r.insert(r.end(), i.begin(), i.end());
        return r;
    });
    expect_within_bound(out, k, g, lab13::testing::Arithmetic::dbl, "fhd_cpu");
}

class HiddenStage : public ::testing::TestWithParam<Variant> {};

using lab13::testing::gpu_fhd;

TEST_P(HiddenStage, SampleCountsAtTheChunkEdges) {
    HPCLAB_REQUIRE_GPU();
    const Variant v = GetParam();
    const std::size_t cap = lab13::chunk_capacity(v) ? lab13::chunk_capacity(v) : lab13::kChunkCapacity;
    const Grid g = lab13::make_grid(257, 1, 1);  // one voxel past a block of 256
    for (std::size_t m : {cap, cap + 1, 2 * cap + 1}) {
        if (v == Variant::atomic && m > cap) continue;  // slow, and the atomic stage does not chunk
        const KSpace k = random_kspace(m, 20, 91310 + m);
        expect_within_bound(gpu_fhd(v, k, g, 0), k, g, lab13::testing::arithmetic_of(v),
                            std::string(lab13::variant_name(v)) + ", M = " + std::to_string(m));
    }
}

TEST_P(HiddenStage, ChunkOfTwoOverSevenSamples) {
    HPCLAB_REQUIRE_GPU();
    const Variant v = GetParam();
    const KSpace k = random_kspace(7, 6, 91320);
    const Grid g = lab13::make_grid(3, 3, 3);
    expect_within_bound(gpu_fhd(v, k, g, lab13::chunk_capacity(v) ? 2 : 0), k, g, lab13::testing::arithmetic_of(v),
                        lab13::variant_name(v));
}

INSTANTIATE_TEST_SUITE_P(Lab13Hidden, HiddenStage, ::testing::ValuesIn(lab13::kAllVariants),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                             return std::string(lab13::variant_name(info.param));
                         });

}  // namespace
