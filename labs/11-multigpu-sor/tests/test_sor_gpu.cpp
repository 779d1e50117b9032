// Lab 11 visible tests, GPU parts: both layouts bitwise equal to the CPU
// red-black sweep, the device residual, a device solve, and the GPU + MPI
// strips (staged, overlapped, CUDA-aware, GPU to GPU) bitwise equal to
// serial. Every test skips with a reason when there is no GPU.
//
// Each piece of GPU work (upload, the student's kernels, download) is one
// judged call that returns the grid as a vector (hpclab/judged.hpp); the CPU
// results it is compared with come from the reference sweeps, residual and
// solve of sor_test_util.hpp (harness code), each on a start of its own; the
// ranks' grids are gathered on world rank 0 by the test itself.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "hpclab/gtest_gpu.hpp"
#include "hpclab/judged.hpp"
#include "hpclab/mpi.hpp"
#include "peer_expectation.hpp"
#include "sor.hpp"
#include "sor_gpu.hpp"
#include "sor_gpu_test_util.hpp"
#include "sor_peer.hpp"
#include "sor_test_util.hpp"

using namespace lab11;
using lab11_test::gathered_blocks_equal;
using lab11_test::gathered_strips_equal;
using lab11_test::gpu_sweeps;
using lab11_test::peer_exchange_expected;
using lab11_test::pick_gpu;
using lab11_test::random_start;
using lab11_test::reference_colour;
using lab11_test::reference_residual_norm;
using lab11_test::reference_solve;
using lab11_test::reference_sweeps;
using lab11_test::same_bits;
using lab11_test::same_size_on_every_rank;

namespace {

void expect_layout_matches_cpu(Layout layout, int n, int sweeps, std::uint64_t seed) {
    const Strip s = random_start(ProblemKind::PoissonSine, n, 1, n, seed);
    Strip want = s;
    reference_sweeps(want, 1.75, sweeps);
    const std::vector<double> got = gpu_sweeps(s, layout, Loads::Plain, 1.75, sweeps);
    EXPECT_TRUE(same_bits(got, want.u, s.width())) << layout_name(layout) << " layout, n = " << n;
}

}  // namespace

TEST(Gpu, NaturalLayoutMatchesCpuBitwise) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    expect_layout_matches_cpu(Layout::Natural, 37, 5, 11);
    expect_layout_matches_cpu(Layout::Natural, 300, 3, 11);
}

TEST(Gpu, SeparatedLayoutMatchesCpuBitwise) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    expect_layout_matches_cpu(Layout::Separated, 37, 5, 11);  // n + 2 odd: one slot per row unused
    expect_layout_matches_cpu(Layout::Separated, 38, 5, 11);
    expect_layout_matches_cpu(Layout::Separated, 300, 3, 11);
}

TEST(Gpu, ResidualMatchesCpu) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    for (Layout l : {Layout::Natural, Layout::Separated}) {
        const Strip s = random_start(ProblemKind::PoissonSine, 129, 1, 129, 11 + static_cast<int>(l));
        // Twice on the same device grid: the device sum must be deterministic.
        const auto got = HPCLAB_CALL([&] {
            const DeviceStrip d = upload(s, l);
            const double first = gpu_residual_norm(d);
            return std::make_pair(first, gpu_residual_norm(d));
        });
        const double want = reference_residual_norm(s);
        EXPECT_NEAR(got.first, want, 1e-12 * want) << layout_name(l);
        EXPECT_EQ(got.first, got.second) << "the device sum must be deterministic";
    }
}

TEST(Gpu, SolveReachesTheExactHarmonicSolution) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    const int n = 63;
    const double w = HPCLAB_VALUE(omega_opt(n));
    Strip s = make_problem(ProblemKind::LaplaceHarmonic, n);
    Strip cpu = s;
    const SolveResult want = reference_solve(cpu, w, 1e-12, 10, 100000);
    const auto got = HPCLAB_CALL([&] {
        DeviceStrip d = upload(s, Layout::Separated);
        const SolveResult r = gpu_solve(d, w, 1e-12, 10, 100000);
        Strip back = s;
        download(d, back);
        return std::make_pair(r, back.u);
    });
    EXPECT_TRUE(got.first.converged);
    EXPECT_EQ(got.first.iterations % 10, 0);
    ASSERT_LE(std::labs(got.first.iterations - want.iterations), 10);
    ASSERT_EQ(got.second.size(), s.u.size());
    // The count is the solver's account of its run: the grid must be the
    // start after exactly that many reference sweeps (GPU sweeps give the
    // CPU's bits), so the judge confirms the count from the grid.
    Strip swept = s;
    reference_sweeps(swept, w, got.first.iterations);
    EXPECT_TRUE(same_bits(got.second, swept.u, s.width())) << "not the grid of " << got.first.iterations << " sweeps";
    s.u = got.second;
    EXPECT_LT(max_error(ProblemKind::LaplaceHarmonic, s), 1e-10);
}

TEST(Gpu, LoadPathsGiveTheSameBits) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    std::uint64_t seed = 45;
    for (Layout l : {Layout::Natural, Layout::Separated})
        for (Loads loads : {Loads::Plain, Loads::ReadOnly, Loads::Texture}) {
            // A start of its own for each path.
            const Strip start = random_start(ProblemKind::PoissonSine, 45, 1, 45, ++seed);
            Strip want = start;
            reference_sweeps(want, 1.75, 3);
            const std::vector<double> got = gpu_sweeps(start, l, loads, 1.75, 3);
            EXPECT_TRUE(same_bits(got, want.u, start.width())) << layout_name(l) << " layout, " << loads_name(loads);
        }
}

TEST(Gpu, BlocksMatchCpuBitwise) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    // Blocks whose first row and column are odd or even: the colour comes from
    // the global position, not the local one.
    const RowRange shapes[][2] = {{{1, 16}, {1, 31}}, {{8, 11}, {13, 9}}, {{9, 23}, {2, 30}}, {{17, 15}, {16, 16}}};
    for (Layout l : {Layout::Natural, Layout::Separated}) {
        const Strip full = random_start(ProblemKind::PoissonSine, 31, 1, 31, 11 + static_cast<int>(l));
        for (const auto& shape : shapes) {
            const Block start = cut_block(full, shape[0], shape[1]);
            Block want = start;
            for (int k = 0; k < 2; ++k)
                for (int colour = 0; colour < 2; ++colour) reference_colour(want, colour, 1.7);
            const std::vector<double> got = HPCLAB_CALL([&] {
                DeviceStrip d = upload(start, l);
                for (int k = 0; k < 2; ++k)
                    for (int colour = 0; colour < 2; ++colour) gpu_red_black_colour(d, colour, 1.7, 1, d.rows + 1);
                Block back = start;
                download(d, back);
                return back.u;
            });
            EXPECT_TRUE(same_bits(got, want.u, want.width()))
                << layout_name(l) << ", rows from " << shape[0].first << ", columns from " << shape[1].first;
        }
    }
}

TEST(Gpu, RejectsRowsOutsideTheStrip) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    const Strip s = make_problem(ProblemKind::PoissonSine, 10);
    auto colour_rows = [&](int row_begin, int row_end) {
        DeviceStrip d = upload(s, Layout::Natural);
        gpu_red_black_colour(d, 0, 1.5, row_begin, row_end);
    };
    EXPECT_THROW(HPCLAB_CALL([&] { colour_rows(0, 5); }), std::invalid_argument);   // row 0 is boundary
    EXPECT_THROW(HPCLAB_CALL([&] { colour_rows(1, 12); }), std::invalid_argument);  // past the last row
}

namespace {

void expect_strips_match_serial(const StripComm& sc, Exchange mode, Layout layout, int n, int sweeps,
                                std::uint64_t seed) {
    Strip serial = random_start(ProblemKind::PoissonSine, n, 1, n, seed);
    Strip mine = random_start(ProblemKind::PoissonSine, n, sc.range().first, sc.range().rows, seed);
    reference_sweeps(serial, 1.8, sweeps);
    const std::size_t size = mine.u.size();
    HPCLAB_CALL(
        [&] {
            DeviceStrip d = upload(mine, layout);
            sweep_strips(sc, d, 1.8, sweeps, mode);
            download(d, mine);
        },
        mine.u);
    ASSERT_TRUE(same_size_on_every_rank(mine.u.size(), size));
    EXPECT_TRUE(gathered_strips_equal(mine, serial))
        << exchange_name(mode) << ", " << layout_name(layout) << ", n = " << n;
}

void expect_gpu_strips_match_serial(Exchange mode, Layout layout, int n, int sweeps, std::uint64_t seed) {
    const StripComm sc = HPCLAB_VALUE(make_strip_comm(n, MPI_COMM_WORLD));
    expect_strips_match_serial(sc, mode, layout, n, sweeps, seed);
}

}  // namespace

TEST(GpuMpi, StagedExchangeMatchesSerialBitwise) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    for (Layout l : {Layout::Natural, Layout::Separated})
        expect_gpu_strips_match_serial(Exchange::Staged, l, 29, 6, 11 + static_cast<int>(l));
}

TEST(GpuMpi, OverlappedExchangeMatchesSerialBitwise) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    for (Layout l : {Layout::Natural, Layout::Separated}) {
        expect_gpu_strips_match_serial(Exchange::Overlapped, l, 29, 6, 11 + static_cast<int>(l));
        expect_gpu_strips_match_serial(Exchange::Overlapped, l, 64, 4, 11 + static_cast<int>(l));
    }
}

TEST(GpuMpi, CudaAwareExchangeMatchesSerialOrSkips) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    std::string why;
    const bool aware = HPCLAB_CALL([&] { return cuda_aware_mpi(&why); }, why);
    if (!aware) {
        // Detected, not assumed: the call must refuse rather than pass device
        // pointers to an MPI that would read them as host memory.
        const StripComm sc = HPCLAB_VALUE(make_strip_comm(8, MPI_COMM_WORLD));
        const Strip mine = make_problem(ProblemKind::PoissonSine, 8, sc.range().first, sc.range().rows);
        EXPECT_THROW(HPCLAB_CALL([&] {
                         DeviceStrip dm = upload(mine, Layout::Natural);
                         gpu_mpi_sweeps(sc, dm, 1.5, 1, Exchange::CudaAware);
                     }),
                     std::runtime_error);
        GTEST_SKIP() << "MPI is not CUDA-aware: " << why;
    }
    expect_gpu_strips_match_serial(Exchange::CudaAware, Layout::Separated, 29, 6, 11);
}

TEST(GpuMpi, WideHalosMatchSerialBitwise) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    const int n = 29;  // 4 ranks: strips of 7 or 8 rows, enough for bs = 3
    for (Layout l : {Layout::Natural, Layout::Separated})
        for (int bs : {1, 3}) {
            const std::uint64_t seed = 200 + 10 * static_cast<std::uint64_t>(l) + static_cast<std::uint64_t>(bs);
            const StripComm sc = HPCLAB_VALUE(make_strip_comm(n, MPI_COMM_WORLD));
            Strip serial = random_start(ProblemKind::PoissonSine, n, 1, n, seed);
            reference_sweeps(serial, 1.8, 7);
            const RowRange wr = HPCLAB_VALUE(wide_rows(sc, wide_halo_depth(bs)));
            Strip wide = random_start(ProblemKind::PoissonSine, n, wr.first, wr.rows, seed);
            const std::size_t size = wide.u.size();
            HPCLAB_CALL(
                [&] {
                    DeviceStrip d = upload(wide, l);
                    gpu_mpi_sweeps_wide(sc, d, 1.8, 7, bs);
                    download(d, wide);
                },
                wide.u);
            ASSERT_TRUE(same_size_on_every_rank(wide.u.size(), size));
            EXPECT_TRUE(gathered_strips_equal(owned_part(sc, wide), serial)) << layout_name(l) << ", bs = " << bs;
        }
}

TEST(GpuMpi, BlocksMatchSerialBitwise) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    for (Layout l : {Layout::Natural, Layout::Separated})
        for (int n : {21, 32}) {
            const BlockComm bc = HPCLAB_VALUE(make_block_comm(n, MPI_COMM_WORLD));
            Strip serial = random_start(ProblemKind::PoissonSine, n, 1, n, 11 + static_cast<int>(l));
            Block b = cut_block(serial, bc.rows(), bc.cols());
            reference_sweeps(serial, 1.85, 6);
            const std::size_t size = b.u.size();
            HPCLAB_CALL(
                [&] {
                    DeviceStrip d = upload(b, l);
                    gpu_mpi_block_sweeps(bc, d, 1.85, 6);
                    download(d, b);
                },
                b.u);
            ASSERT_TRUE(same_size_on_every_rank(b.u.size(), size));
            EXPECT_TRUE(gathered_blocks_equal(b, serial))
                << layout_name(l) << ", n = " << n << ", blocks " << bc.dim(0) << " x " << bc.dim(1);
        }
}

// ---- stage 4d: GPU to GPU ---------------------------------------------------------

TEST(GpuMpi, PeerLinksPointAtTheNeighboursGhostRows) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    std::string expected_why;
    const bool expected = peer_exchange_expected(&expected_why);
    const int n = 24;
    const StripComm sc = HPCLAB_VALUE(make_strip_comm(n, MPI_COMM_WORLD));
    const Strip want = random_start(ProblemKind::PoissonSine, n, sc.range().first, sc.range().rows, 31);
    // Ghost rows poisoned: only the neighbours' writes through the links can
    // put the right values there.
    Strip poisoned = want;
    const bool has_up = want.first_row > 1, has_down = want.first_row + want.rows <= n;
    for (int j = 0; j < want.width(); ++j) {
        if (has_up) poisoned.at(0, j) = -777.0;
        if (has_down) poisoned.at(want.rows + 1, j) = -777.0;
    }
    const auto got = HPCLAB_CALL([&] {
        DeviceStrip d = upload(poisoned, Layout::Separated);
        const PeerLinks links = open_peer_links(sc, d);
        if (links.usable) {
            // Whole rows (colour 2) into the neighbours' ghost rows.
            if (links.up.ghost) push_row(d, 1, 2, links.up.ghost, nullptr);
            if (links.down.ghost) push_row(d, d.rows, 2, links.down.ghost, nullptr);
            HPCLAB_CUDA_CHECK(cudaDeviceSynchronize());
            HPCLAB_MPI_CHECK(MPI_Barrier(sc.comm()));
        }
        Strip back = poisoned;
        download(d, back);
        return std::make_tuple(links.usable, links.why, links.up.ghost != nullptr, links.down.ghost != nullptr, back.u);
    });
    if (!expected) {
        EXPECT_FALSE(std::get<0>(got)) << "the GPUs cannot reach each other here (" << expected_why << ")";
        EXPECT_FALSE(std::get<1>(got).empty()) << "a refusal must say why";
        return;
    }
    ASSERT_TRUE(std::get<0>(got)) << "every GPU here can reach the others, but: " << std::get<1>(got);
    EXPECT_EQ(std::get<2>(got), has_up) << "a link up exactly when there is a neighbour above";
    EXPECT_EQ(std::get<3>(got), has_down) << "a link down exactly when there is a neighbour below";
    EXPECT_TRUE(same_bits(std::get<4>(got), want.u, want.width())) << "ghost rows after the neighbours' writes";
}

namespace {

// Peer modes where the host can do them; elsewhere they must refuse.
void expect_peer_strips_match_serial(Exchange mode, Layout layout, int n, int sweeps, std::uint64_t seed) {
    std::string why;
    if (peer_exchange_expected(&why)) return expect_gpu_strips_match_serial(mode, layout, n, sweeps, seed);
    const StripComm sc = HPCLAB_VALUE(make_strip_comm(n, MPI_COMM_WORLD));
    const Strip mine = random_start(ProblemKind::PoissonSine, n, sc.range().first, sc.range().rows, seed);
    EXPECT_THROW(HPCLAB_CALL([&] {
                     DeviceStrip d = upload(mine, layout);
                     sweep_strips(sc, d, 1.8, sweeps, mode);
                 }),
                 std::runtime_error)
        << "the GPUs cannot reach each other here (" << why << "): " << exchange_name(mode) << " must refuse";
}

}  // namespace

TEST(GpuMpi, PeerExchangeMatchesSerialBitwise) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    for (Layout l : {Layout::Natural, Layout::Separated}) {
        expect_peer_strips_match_serial(Exchange::Peer, l, 29, 6, 51 + static_cast<int>(l));
        expect_peer_strips_match_serial(Exchange::Peer, l, 64, 4, 53 + static_cast<int>(l));
    }
}

TEST(GpuMpi, PeerOverlappedExchangeMatchesSerialBitwise) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    for (Layout l : {Layout::Natural, Layout::Separated}) {
        expect_peer_strips_match_serial(Exchange::PeerOverlapped, l, 29, 6, 61 + static_cast<int>(l));
        expect_peer_strips_match_serial(Exchange::PeerOverlapped, l, 64, 4, 63 + static_cast<int>(l));
    }
}

TEST(GpuMpi, PeerOverlappedMatchesSerialOnLargeStrips) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    // Strips of thousands of rows: a launch (tens of microseconds) runs long
    // after its boundary rows have signalled, so the neighbour's next launch
    // overlaps it and writes into this grid meanwhile; a boundary row that
    // signals before it has stored, or reads a ghost value through a stale
    // cache line, shows here. Small grids finish before anyone looks.
    expect_peer_strips_match_serial(Exchange::PeerOverlapped, Layout::Separated, 4096, 6, 81);
}

namespace {

// Strips of very different heights, made here (not by make_strip_comm):
// every rank but the last holds `thin` rows, the last holds the rest.
StripComm uneven_strips(int n, int thin) {
    const int size = hpclab::mpi::size();
    int dims[1] = {size}, periods[1] = {0};
    MPI_Comm cart = MPI_COMM_NULL;
    HPCLAB_MPI_CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
    MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
    int up = MPI_PROC_NULL, down = MPI_PROC_NULL;
    HPCLAB_MPI_CHECK(MPI_Cart_shift(cart, 0, 1, &up, &down));
    const int rank = hpclab::mpi::rank(cart);
    const RowRange range{1 + rank * thin, rank < size - 1 ? thin : n - rank * thin};
    return StripComm(cart, n, range, up, down);
}

}  // namespace

TEST(GpuMpi, PeerWaitsForASlowerNeighbour) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    std::string why;
    if (!peer_exchange_expected(&why)) GTEST_SKIP() << "no GPU-to-GPU exchange here: " << why;
    // The last rank sweeps a hundred times the rows of the others, so they
    // are always a step ahead and wait for it: each boundary row reads its
    // ghost row as soon as the slow neighbour says it may. A neighbour that
    // says so before its stores have landed, or a rank that does not wait
    // for the word, reads old values here, whatever the timing.
    const int n = 2048, thin = 16;
    for (Exchange e : {Exchange::Peer, Exchange::PeerOverlapped}) {
        const StripComm sc = uneven_strips(n, thin);
        expect_strips_match_serial(sc, e, Layout::Separated, n, 40, 91 + static_cast<int>(e));
    }
}

TEST(GpuMpi, PeerExchangeStaysInOrderOverManySweeps) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    // Hundreds of colour steps on small strips: the hosts run far ahead of the
    // GPUs, so a missing or misplaced wait shows as a stale ghost row.
    for (Exchange e : {Exchange::Peer, Exchange::PeerOverlapped})
        expect_peer_strips_match_serial(e, Layout::Separated, 48, 300, 71 + static_cast<int>(e));
}
