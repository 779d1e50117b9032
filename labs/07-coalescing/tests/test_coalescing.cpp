// Lab 07 visible tests: copies with offsets and strides element for element,
// transposes exact on index-encoded matrices of square, rectangular and odd
// sizes, tile copies, powers against the host for x in [0.9, 1.1], and the
// host models of sectors and bank conflicts.
//
// Every call into student code goes through HPCLAB_CALL / HPCLAB_VALUE
// (hpclab/judged.hpp): the grader records it in the submission's build and
// judges the recorded results in the starter's. A kernel's output buffer is
// recorded as it stands when the call returns (hpclab/judged_cuda.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "coalescing.hpp"
#include "hpclab/check.hpp"
#include "hpclab/cuda.hpp"
#include "hpclab/data.hpp"
#include "hpclab/gtest_gpu.hpp"
#include "hpclab/judged.hpp"
#include "hpclab/judged_cuda.hpp"
#include "launch_shapes.hpp"
#include "tile_layout.hpp"

namespace {

using hpclab::cuda::DeviceBuffer;
constexpr float kSentinel = -7.0f;

std::vector<float> index_encoded(std::size_t n) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i);  // exact below 2^24
    return v;
}

// ---- stage 1 ------------------------------------------------------------------

TEST(Copy, SmallOffsetsAreExact) {
    HPCLAB_REQUIRE_GPU();
    const std::size_t n = 20011;
    const auto in = index_encoded(n);
    DeviceBuffer<float> d_in(n), d_out(n);
    d_in.copy_from_host(in.data(), n);
    for (std::size_t offset : {0u, 1u, 2u, 7u, 31u, 32u, 33u, 20010u, 20011u}) {
        const std::vector<float> sentinel(n, kSentinel);
        d_out.copy_from_host(sentinel.data(), n);
        HPCLAB_CALL([&] { lab07::copy_with_offset(d_in.get(), d_out.get(), n, offset); }, d_out);
        std::vector<float> out(n);
        d_out.copy_to_host(out.data(), n);
        for (std::size_t i = 0; i < n; ++i) {
            const float want = i < offset ? kSentinel : in[i];
            ASSERT_EQ(out[i], want) << "offset " << offset << ": out[" << i << "]";
        }
    }
}

TEST(Copy, LargeOffsetCopyIsExact) {
    HPCLAB_REQUIRE_GPU();
    const std::size_t n = (1u << 22) + 3;
    const auto in = hpclab::uniform_floats(n, 5);
    DeviceBuffer<float> d_in(n), d_out(n);
    d_in.copy_from_host(in.data(), n);
    d_out.zero();
    HPCLAB_CALL([&] { lab07::copy_with_offset(d_in.get(), d_out.get(), n, 2); }, d_out);
    std::vector<float> out(n);
    d_out.copy_to_host(out.data(), n);
    EXPECT_EQ(out[0], 0.0f);
    EXPECT_EQ(out[1], 0.0f);
    const auto cmp = hpclab::compare_arrays(out.data() + 2, n - 2, in.data() + 2, n - 2, hpclab::Tolerance::exact());
    EXPECT_TRUE(cmp.ok()) << cmp.describe("out");
}

TEST(Copy, SmallStridesAreExact) {
    HPCLAB_REQUIRE_GPU();
    const std::size_t n = 10007;
    const auto in = index_encoded(n);
    DeviceBuffer<float> d_in(n), d_out(n);
    d_in.copy_from_host(in.data(), n);
    for (std::size_t stride : {1u, 2u, 3u, 32u, 33u, 10006u, 10007u, 20000u}) {
        const std::vector<float> sentinel(n, kSentinel);
        d_out.copy_from_host(sentinel.data(), n);
        HPCLAB_CALL([&] { lab07::copy_with_stride(d_in.get(), d_out.get(), n, stride); }, d_out);
        std::vector<float> out(n);
        d_out.copy_to_host(out.data(), n);
        for (std::size_t i = 0; i < n; ++i) {
            const float want = i % stride == 0 ? in[i] : kSentinel;
            ASSERT_EQ(out[i], want) << "stride " << stride << ": out[" << i << "]";
        }
    }
}

TEST(Model, SectorsPerWarp) {
    EXPECT_EQ(HPCLAB_VALUE(lab07::sectors_per_warp(0, 1, 4)), 4);  // 128 aligned bytes
    EXPECT_EQ(HPCLAB_VALUE(lab07::sectors_per_warp(1, 1, 4)), 5);  // one sector more when misaligned
    EXPECT_EQ(HPCLAB_VALUE(lab07::sectors_per_warp(2, 1, 4)), 5);
    EXPECT_EQ(HPCLAB_VALUE(lab07::sectors_per_warp(8, 1, 4)), 4);  // 32-byte aligned again
    EXPECT_EQ(HPCLAB_VALUE(lab07::sectors_per_warp(32, 1, 4)), 4);
    EXPECT_EQ(HPCLAB_VALUE(lab07::sectors_per_warp(0, 2, 4)), 8);
    EXPECT_EQ(HPCLAB_VALUE(lab07::sectors_per_warp(0, 8, 4)), 32);  // one sector per thread
    EXPECT_EQ(HPCLAB_VALUE(lab07::sectors_per_warp(0, 32, 4)), 32);
    EXPECT_EQ(HPCLAB_VALUE(lab07::sectors_per_warp(0, 1, 8)), 8);  // doubles
    EXPECT_EQ(HPCLAB_VALUE(lab07::sectors_per_warp(0, 0, 4)), 1);  // all threads on one element
    EXPECT_THROW(HPCLAB_VALUE(lab07::sectors_per_warp(0, 1, 0)), std::invalid_argument);
}

// ---- stage 2 ------------------------------------------------------------------

void expect_transpose_exact(lab07::Transpose kind, std::size_t rows, std::size_t cols) {
    const std::size_t n = rows * cols;
    const auto in = index_encoded(n);
    DeviceBuffer<float> d_in(n), d_out(n);
    d_in.copy_from_host(in.data(), n);
    const std::vector<float> sentinel(n, kSentinel);
    d_out.copy_from_host(sentinel.data(), n);
    HPCLAB_CALL([&] { lab07::transpose(kind, d_in.get(), d_out.get(), rows, cols); }, d_out);
    std::vector<float> out(n);
    d_out.copy_to_host(out.data(), n);
    for (std::size_t c = 0; c < cols; ++c) {
        for (std::size_t r = 0; r < rows; ++r) {
            ASSERT_EQ(out[c * rows + r], in[r * cols + c])
                << lab07::transpose_name(kind) << " " << rows << " x " << cols << ": out[" << c << "][" << r << "]";
        }
    }
}

class EveryTranspose : public ::testing::TestWithParam<lab07::Transpose> {};

TEST_P(EveryTranspose, SmallSquare) {
    HPCLAB_REQUIRE_GPU();
    for (std::size_t s : {1u, 2u, 31u, 32u, 33u, 64u, 100u}) expect_transpose_exact(GetParam(), s, s);
}

TEST_P(EveryTranspose, SmallRectangular) {
    HPCLAB_REQUIRE_GPU();
    for (auto rc : std::vector<std::pair<std::size_t, std::size_t>>{
             {1, 1000}, {1000, 1}, {32, 64}, {64, 32}, {31, 33}, {33, 31}, {7, 200}, {129, 65}}) {
        expect_transpose_exact(GetParam(), rc.first, rc.second);
    }
}

TEST_P(EveryTranspose, LargeOddSizes) {
    HPCLAB_REQUIRE_GPU();
    expect_transpose_exact(GetParam(), 1023, 2049);
    expect_transpose_exact(GetParam(), 2048, 1536);
}

TEST_P(EveryTranspose, EmptyMatrixDoesNothing) {
    HPCLAB_REQUIRE_GPU();
    // An empty matrix never reaches your launch: the given transpose()
    // returns first, so these calls run here for real, not judged. A small
    // transpose first, so that a kernel still to write earns nothing here.
    expect_transpose_exact(GetParam(), 2, 3);
    DeviceBuffer<float> d(4);
    const std::vector<float> sentinel(4, kSentinel);
    d.copy_from_host(sentinel.data(), 4);
    lab07::transpose(GetParam(), d.get(), d.get(), 0, 4);
    lab07::transpose(GetParam(), d.get(), d.get(), 4, 0);
    std::vector<float> out(4);
    d.copy_to_host(out.data(), 4);
    EXPECT_EQ(out, sentinel);
}

INSTANTIATE_TEST_SUITE_P(Lab07, EveryTranspose, ::testing::ValuesIn(lab07::kAllTransposes),
                         [](const ::testing::TestParamInfo<lab07::Transpose>& info) {
                             return std::string(lab07::transpose_name(info.param));
                         });

// Trusted bank count for the layout test (the student's model is tested apart).
int ways(const std::vector<std::uint32_t>& words) {
    std::map<std::uint32_t, std::set<std::uint32_t>> banks;
    for (auto w : words) banks[w % 32].insert(w);
    std::size_t most = 0;
    for (const auto& b : banks) most = std::max(most, b.second.size());
    return static_cast<int>(most);
}

TEST(Layout, PaddedTileColumnsAreConflictFree) {
    // The padded transpose reads tile[tx][ty + j]: for a warp, tx = 0..31 at
    // fixed column, i.e. words tx * stride + column. The stride comes from
    // the student's tile_layout.hpp: a judged value, as the judge's build has
    // the starter's; kTile is given (launch_shapes.hpp).
    const int tile = lab07::kTile;
    const int stride = HPCLAB_VALUE(lab07::kPaddedTileStride);
    for (std::uint32_t column = 0; column < static_cast<std::uint32_t>(tile); ++column) {
        std::vector<std::uint32_t> words;
        for (std::uint32_t tx = 0; tx < 32; ++tx) words.push_back(tx * stride + column);
        ASSERT_EQ(ways(words), 1) << "column " << column << " of a tile with row stride " << stride << " is a "
                                  << ways(words) << "-way bank conflict";
    }
    EXPECT_LE(stride, tile + 1) << "one column of padding is enough";
}

TEST(Model, BankConflictWays) {
    std::vector<std::uint32_t> consecutive, stride32, stride33, same, stride2;
    for (std::uint32_t t = 0; t < 32; ++t) {
        consecutive.push_back(t);
        stride32.push_back(32 * t);
        stride33.push_back(33 * t);
        same.push_back(5);
        stride2.push_back(2 * t);
    }
    EXPECT_EQ(HPCLAB_VALUE(lab07::bank_conflict_ways(consecutive)), 1);
    EXPECT_EQ(HPCLAB_VALUE(lab07::bank_conflict_ways(stride32)), 32);  // thread-major powers, unpadded tile column
    EXPECT_EQ(HPCLAB_VALUE(lab07::bank_conflict_ways(stride33)), 1);   // padded tile column
    EXPECT_EQ(HPCLAB_VALUE(lab07::bank_conflict_ways(same)), 1);       // a broadcast is not a conflict
    EXPECT_EQ(HPCLAB_VALUE(lab07::bank_conflict_ways(stride2)), 2);
    EXPECT_EQ(HPCLAB_VALUE(lab07::bank_conflict_ways({})), 0);
    EXPECT_EQ(HPCLAB_VALUE(lab07::bank_conflict_ways({0, 32, 32, 64, 1})), 3);
}

// ---- stage 3 ------------------------------------------------------------------

TEST(TileCopy, BothMappingsCopyExactly) {
    HPCLAB_REQUIRE_GPU();
    for (auto mapping : {lab07::TileMapping::row_wise, lab07::TileMapping::column_wise}) {
        for (std::size_t n : {1u, 31u, 32u, 33u, 100u, 1000u}) {
            const auto in = index_encoded(n * n);
            DeviceBuffer<float> d_in(n * n), d_out(n * n);
            d_in.copy_from_host(in.data(), n * n);
            d_out.zero();
            HPCLAB_CALL([&] { lab07::tile_copy(mapping, d_in.get(), d_out.get(), n); }, d_out);
            std::vector<float> out(n * n);
            d_out.copy_to_host(out.data(), n * n);
            const auto cmp = hpclab::compare_arrays(out, in, hpclab::Tolerance::exact());
            ASSERT_TRUE(cmp.ok()) << (mapping == lab07::TileMapping::row_wise ? "row_wise" : "column_wise")
                                  << " n = " << n << ": " << cmp.describe("out");
        }
    }
}

// ---- stage 4 ------------------------------------------------------------------

// `salt` changes the inputs, so that two layouts in one test do not get the
// same values (one could otherwise hand back the other's table, rearranged).
void expect_powers(lab07::PowersLayout layout, std::size_t n, int rounds, std::uint64_t salt = 0) {
    const auto x = hpclab::uniform_floats(n, 17 + n + salt, 0.9f, 1.1f);
    const std::size_t outputs = (n + 31) / 32 * 32 * lab07::kPowers;
    DeviceBuffer<float> d_x(n), d_out(outputs);
    d_x.copy_from_host(x.data(), n);
    const std::vector<float> sentinel(outputs, kSentinel);
    d_out.copy_from_host(sentinel.data(), outputs);
    HPCLAB_CALL([&] { lab07::powers(layout, d_x.get(), n, d_out.get(), rounds); }, d_out);
    std::vector<float> out(outputs);
    d_out.copy_to_host(out.data(), outputs);
    std::vector<bool> written(outputs, false);
    for (std::size_t i = 0; i < n; ++i) {
        for (int p = 2; p <= 33; ++p) {
            const std::size_t at = lab07::powers_index(layout, i, p);
            written[at] = true;
            const double want = std::pow(static_cast<double>(x[i]), p);
            // 32 float multiplications: at most about 32 roundings of 2^-24.
            ASSERT_NEAR(out[at], want, 64 * 0x1p-24 * want) << "x_" << i << "^" << p << " (x = " << x[i] << ")";
        }
    }
    for (std::size_t k = 0; k < outputs; ++k) {
        if (!written[k]) {
            ASSERT_EQ(out[k], kSentinel) << "slot " << k << " belongs to no input, yet was written";
        }
    }
}

TEST(Powers, SmallThreadMajor) {
    HPCLAB_REQUIRE_GPU();
    for (std::size_t n : {1u, 31u, 32u, 33u, 256u, 1000u}) expect_powers(lab07::PowersLayout::thread_major, n, 1);
}

TEST(Powers, SmallPowerMajor) {
    HPCLAB_REQUIRE_GPU();
    for (std::size_t n : {1u, 31u, 32u, 33u, 256u, 1000u}) expect_powers(lab07::PowersLayout::power_major, n, 1);
}

TEST(Powers, ManyWarpsAndRounds) {
    HPCLAB_REQUIRE_GPU();
    for (auto layout : {lab07::PowersLayout::thread_major, lab07::PowersLayout::power_major}) {
        const std::uint64_t salt = layout == lab07::PowersLayout::power_major ? 1000000 : 0;
        expect_powers(layout, 100003, 1, salt);
        expect_powers(layout, 4099, 3, salt);
    }
}

}  // namespace
