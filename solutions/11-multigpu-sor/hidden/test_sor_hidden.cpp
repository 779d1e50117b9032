// Lab 11 hidden tests: odd sizes, uneven and one-row strips, more sweeps,
// stopping limits, fits with bad input, and GPU paths on awkward shapes.
//
// Every call into student code is a judged call (hpclab/judged.hpp; the
// lab's types and reference functions come from tests/sor_test_util.hpp):
// recorded in the submission's build, replayed in the starter's, where these
// assertions run. The serial grids the MPI and GPU results are compared with
// are the reference sweeps' (harness code), each on a start of its own; the
// ranks' grids are gathered on world rank 0 by the test itself.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "hpclab/check.hpp"
#include "hpclab/data.hpp"
#include "hpclab/gtest_gpu.hpp"
#include "hpclab/judged.hpp"
#include "hpclab/mpi.hpp"
#include "sor.hpp"
#include "sor_gpu.hpp"
#include "sor_peer.hpp"
#include "tests/peer_expectation.hpp"
#include "tests/sor_gpu_test_util.hpp"
#include "tests/sor_test_util.hpp"

using namespace lab11;
using lab11_test::gathered_blocks_equal;
using lab11_test::gathered_strips_equal;
using lab11_test::gpu_sweeps;
using lab11_test::pick_gpu;
using lab11_test::reference_method_solve;
using lab11_test::reference_solve;
using lab11_test::reference_sweeps;
using lab11_test::same_size_on_every_rank;
using lab11_test::strip_rank;

namespace {

// The visible tests' random start, with other seeds and values in [-2, 2).
Strip random_start(ProblemKind kind, int n, int first = 1, int rows = -1, std::uint64_t seed = 77) {
    return lab11_test::random_start(kind, n, first, rows, seed, -2.0, 2.0);
}

::testing::AssertionResult same_bits(const std::vector<double>& a, const std::vector<double>& b) {
    const auto rep = hpclab::compare_arrays(a, b, hpclab::Tolerance::exact());
    if (rep.ok()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << rep.describe("u");
}

}  // namespace

TEST(Hidden, OddSizesAndUnevenStripsStayBitwiseEqual) {
    const int p = hpclab::mpi::size();
    for (int n : {p, p + 1, 2 * p + 1, 23, 40}) {
        const StripComm sc = HPCLAB_VALUE(make_strip_comm(n, MPI_COMM_WORLD));
        Strip serial = random_start(ProblemKind::PoissonSine, n);
        Strip mine = random_start(ProblemKind::PoissonSine, n, sc.range().first, sc.range().rows);
        reference_sweeps(serial, 1.93, 13);
        const std::size_t size = mine.u.size();
        lab11_test::judged_strip_sweeps(sc, mine, 1.93, 13);
        ASSERT_TRUE(same_size_on_every_rank(mine.u.size(), size));
        EXPECT_TRUE(gathered_strips_equal(mine, serial)) << "n = " << n << " on " << p << " ranks";
    }
}

TEST(Hidden, BlocksOnOddSizesStayBitwiseEqual) {
    for (int n : {7, 9, 31}) {
        const BlockComm bc = HPCLAB_VALUE(make_block_comm(n, MPI_COMM_WORLD));
        Strip serial = random_start(ProblemKind::LaplaceHarmonic, n);
        Block b = cut_block(serial, bc.rows(), bc.cols());
        reference_sweeps(serial, 1.6, 15);
        ASSERT_TRUE(lab11_test::judged_block_sweeps(bc, b, 1.6, 15));
        EXPECT_TRUE(gathered_blocks_equal(b, serial)) << "n = " << n;
    }
}

TEST(Hidden, MpiSolveConvergesOnPoisson) {
    const int n = 31;
    const StripComm sc = HPCLAB_VALUE(make_strip_comm(n, MPI_COMM_WORLD));
    const double w = HPCLAB_VALUE(omega_opt(n));
    Strip mine = make_problem(ProblemKind::PoissonSine, n, sc.range().first, sc.range().rows);
    const std::size_t size = mine.u.size();
    const SolveResult r = HPCLAB_CALL([&] { return mpi_solve(sc, mine, w, 1e-12, 3, 100000); }, mine.u);
    ASSERT_TRUE(same_size_on_every_rank(mine.u.size(), size));
    EXPECT_TRUE(r.converged);
    EXPECT_EQ(r.iterations % 3, 0);
    // The count is the solver's account: the grid must be the reference's
    // after the reference's count, bit for bit.
    Strip serial = make_problem(ProblemKind::PoissonSine, n);
    const SolveResult want = reference_solve(serial, w, 1e-12, 3, 100000);
    EXPECT_EQ(r.iterations, want.iterations);
    EXPECT_TRUE(gathered_strips_equal(mine, serial));
    // Discretisation error of the 5-point stencil: about pi^2 h^2 / 12.
    const double h = 1.0 / 32;
    const double err = max_error(ProblemKind::PoissonSine, mine);
    const double worst = hpclab::mpi::max_over_ranks(err);
    EXPECT_LT(worst, 1.2 * 3.14159265358979 * 3.14159265358979 * h * h / 12);
    EXPECT_GT(worst, 0.5 * 3.14159265358979 * 3.14159265358979 * h * h / 12);
}

// The counts below are the solvers' accounts of their runs: each grid must
// be the reference's after the reference's count, bit for bit, so that the
// judge confirms every count from a grid.
TEST(Hidden, SolveStopsAtMaxIterations) {
    const double w = 2.0 / (1.0 + std::sin(3.14159265358979323846 / 41));  // omega_opt(40)
    Strip s = make_problem(ProblemKind::LaplaceHarmonic, 40);
    const SolveResult r = HPCLAB_CALL([&] { return solve(s, Method::Sor, w, 1e-14, 4, 10); }, s.u);
    Strip want = make_problem(ProblemKind::LaplaceHarmonic, 40);
    reference_method_solve(want, Method::Sor, w, 1e-14, 4, 10);
    EXPECT_TRUE(lab11_test::same_bits(s.u, want.u, want.width())) << "not the grid of 10 SOR sweeps";
    EXPECT_FALSE(r.converged);
    EXPECT_EQ(r.iterations, 10);
    EXPECT_LT(r.residual, r.residual0);
    Strip t = make_problem(ProblemKind::LaplaceHarmonic, 40);
    const SolveResult none = HPCLAB_CALL([&] { return solve(t, Method::RedBlackSor, w, 1e-14, 4, 0); }, t.u);
    EXPECT_TRUE(lab11_test::same_bits(t.u, make_problem(ProblemKind::LaplaceHarmonic, 40).u, t.width()))
        << "no sweep allowed, yet the grid changed";
    EXPECT_EQ(none.iterations, 0);
    EXPECT_FALSE(none.converged);
}

TEST(Hidden, OmegaOptBeatsTheThesisCap) {
    // Serial, and long (four solves at n = 255, two of them the reference's):
    // rank 0 alone, so that oversubscribed ranks do not share the cores.
    if (hpclab::mpi::rank() != 0) return;
    const int n = 255;
    const double w = 2.0 / (1.0 + std::sin(3.14159265358979323846 / (n + 1)));  // omega_opt(n)
    Strip a = make_problem(ProblemKind::LaplaceHarmonic, n), b = a;
    const auto [capped, best] = HPCLAB_CALL(
        [&] {
            return std::make_pair(solve(a, Method::RedBlackSor, 1.9, 1e-8, 1, 100000),
                                  solve(b, Method::RedBlackSor, w, 1e-8, 1, 100000));
        },
        a.u, b.u);
    ASSERT_TRUE(capped.converged && best.converged);
    Strip want_a = make_problem(ProblemKind::LaplaceHarmonic, n), want_b = want_a;
    EXPECT_EQ(capped.iterations, reference_solve(want_a, 1.9, 1e-8, 1, 100000).iterations);
    EXPECT_EQ(best.iterations, reference_solve(want_b, w, 1e-8, 1, 100000).iterations);
    EXPECT_TRUE(lab11_test::same_bits(a.u, want_a.u, want_a.width())) << "omega 1.9";
    EXPECT_TRUE(lab11_test::same_bits(b.u, want_b.u, want_b.width())) << "omega_opt";
    EXPECT_LT(1.3 * best.iterations, capped.iterations);
}

TEST(Hidden, TinyGridsAndOneRowStrips) {
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(omega_opt(2)), 2.0 / (1.0 + std::sin(3.14159265358979323846 / 3)));
    Strip s = random_start(ProblemKind::PoissonSine, 1);
    const std::size_t size = s.u.size();
    HPCLAB_CALL([&] { red_black_sweep(s, 1.0); }, s.u);
    ASSERT_EQ(s.u.size(), size);
    EXPECT_DOUBLE_EQ(s.at(1, 1), (s.at(1, 0) + s.at(1, 2) + s.at(0, 1) + s.at(2, 1) + s.b(1, 1)) / 4);
    const int p = hpclab::mpi::size();
    const StripComm sc = HPCLAB_VALUE(make_strip_comm(p, MPI_COMM_WORLD));
    EXPECT_EQ(sc.range().rows, 1);
    EXPECT_EQ(sc.range().first, strip_rank(sc) + 1);
}

TEST(Hidden, FitsOnNoisyAndBadInput) {
    std::vector<double> x = {1e3, 1e4, 1e5, 1e6}, y;
    for (double v : x) y.push_back(2e-6 + v * 1e-10);
    y[1] *= 1.01;
    const LinearFit f = HPCLAB_VALUE(fit_latency_bandwidth(x, y));
    EXPECT_NEAR(f.per_byte_s, 1e-10, 1e-12);
    EXPECT_THROW(HPCLAB_VALUE(fit_power_law({1, 2}, {1, -1})), std::invalid_argument);
    EXPECT_THROW(HPCLAB_VALUE(fit_power_law({3}, {1})), std::invalid_argument);
}

TEST(Hidden, GpuAwkwardSizesMatchCpu) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    for (int n : {1, 2, 3, 64, 255})
        for (Layout l : {Layout::Natural, Layout::Separated}) {
            // A start of its own for each layout.
            const Strip s = random_start(ProblemKind::PoissonSine, n, 1, n, 77 + static_cast<int>(l));
            Strip want = s;
            reference_sweeps(want, 1.3, 4);
            const std::vector<double> got = gpu_sweeps(s, l, Loads::Plain, 1.3, 4);
            EXPECT_TRUE(same_bits(got, want.u)) << layout_name(l) << " n = " << n;
        }
}

namespace {

// 5 sweeps of a seeded start on one GPU per rank with exchange `e` (one
// judged call, through sweep_strips), gathered and compared bit for bit with
// the serial sweeps.
void expect_gpu_strips_match(Exchange e, Layout l, int n, std::uint64_t seed) {
    const StripComm sc = HPCLAB_VALUE(make_strip_comm(n, MPI_COMM_WORLD));
    Strip serial = random_start(ProblemKind::PoissonSine, n, 1, n, seed);
    Strip mine = random_start(ProblemKind::PoissonSine, n, sc.range().first, sc.range().rows, seed);
    reference_sweeps(serial, 1.5, 5);
    const std::size_t size = mine.u.size();
    HPCLAB_CALL(
        [&] {
            DeviceStrip d = upload(mine, l);
            sweep_strips(sc, d, 1.5, 5, e);
            download(d, mine);
        },
        mine.u);
    ASSERT_TRUE(same_size_on_every_rank(mine.u.size(), size));
    EXPECT_TRUE(gathered_strips_equal(mine, serial)) << exchange_name(e) << ", " << layout_name(l) << ", n = " << n;
}

}  // namespace

TEST(Hidden, GpuStripsWithOneOrTwoRowsPerRank) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    const int p = hpclab::mpi::size();
    for (int n : {p, 2 * p, 2 * p + 1})
        for (Exchange e : {Exchange::Staged, Exchange::Overlapped})
            expect_gpu_strips_match(e, Layout::Separated, n, 77 + static_cast<std::uint64_t>(e));
}

TEST(Hidden, GpuPeerStripsWithOneOrTwoRowsPerRank) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    const int p = hpclab::mpi::size();
    std::string why;
    if (!lab11_test::peer_exchange_expected(&why)) {
        // Where the GPUs cannot reach each other, refusing is right.
        const StripComm sc = HPCLAB_VALUE(make_strip_comm(2 * p, MPI_COMM_WORLD));
        const Strip mine = random_start(ProblemKind::PoissonSine, 2 * p, sc.range().first, sc.range().rows);
        EXPECT_THROW(HPCLAB_CALL([&] {
                         DeviceStrip d = upload(mine, Layout::Separated);
                         sweep_strips(sc, d, 1.5, 5, Exchange::Peer);
                     }),
                     std::runtime_error)
            << "no GPU-to-GPU exchange on this host (" << why << "): it must refuse";
        return;
    }
    // One or two rows per rank: no interior for the overlapped variant, the
    // same row sent up and down; odd widths leave an unused slot per row.
    for (int n : {p, 2 * p, 2 * p + 1})
        for (Layout l : {Layout::Natural, Layout::Separated})
            for (Exchange e : {Exchange::Peer, Exchange::PeerOverlapped})
                expect_gpu_strips_match(e, l, n,
                                        91 + 2 * static_cast<std::uint64_t>(e) + static_cast<std::uint64_t>(l));
}

TEST(Hidden, WideHalosAtTheDepthLimitAndOnLaplace) {
    // Strips exactly as thin as the ghost depth, odd sizes, and a sweep count
    // that leaves a short last block.
    const int p = hpclab::mpi::size();
    for (int bs : {1, 2})
        for (int extra : {0, 1}) {
            const int n = 2 * bs * p + extra;
            for (ProblemKind kind : {ProblemKind::LaplaceHarmonic, ProblemKind::PoissonSine}) {
                const StripComm sc = HPCLAB_VALUE(make_strip_comm(n, MPI_COMM_WORLD));
                Strip serial = random_start(kind, n);
                reference_sweeps(serial, 1.9, 2 * bs + 1);
                const RowRange wr = HPCLAB_VALUE(wide_rows(sc, wide_halo_depth(bs)));
                Strip wide = random_start(kind, n, wr.first, wr.rows);
                const std::size_t size = wide.u.size();
                HPCLAB_CALL([&] { mpi_red_black_sweeps_wide(sc, wide, 1.9, 2 * bs + 1, bs); }, wide.u);
                ASSERT_TRUE(same_size_on_every_rank(wide.u.size(), size));
                EXPECT_TRUE(gathered_strips_equal(owned_part(sc, wide), serial)) << "n = " << n << ", bs = " << bs;
            }
        }
}

TEST(Hidden, GpuWideHalosAndBlocksOnAwkwardSizes) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    const int p = hpclab::mpi::size();
    {
        const int n = 4 * p + 3, bs = 2;
        const StripComm sc = HPCLAB_VALUE(make_strip_comm(n, MPI_COMM_WORLD));
        Strip serial = random_start(ProblemKind::PoissonSine, n);
        reference_sweeps(serial, 1.6, 5);
        const RowRange wr = HPCLAB_VALUE(wide_rows(sc, wide_halo_depth(bs)));
        Strip wide = random_start(ProblemKind::PoissonSine, n, wr.first, wr.rows);
        const std::size_t size = wide.u.size();
        HPCLAB_CALL(
            [&] {
                DeviceStrip d = upload(wide, Layout::Separated);
                set_loads(d, Loads::ReadOnly);
                gpu_mpi_sweeps_wide(sc, d, 1.6, 5, bs);
                download(d, wide);
            },
            wide.u);
        ASSERT_TRUE(same_size_on_every_rank(wide.u.size(), size));
        EXPECT_TRUE(gathered_strips_equal(owned_part(sc, wide), serial)) << "wide halos, n = " << n;
    }
    for (int n : {p, 19}) {  // n = p: blocks of one or two points per side
        const BlockComm bc = HPCLAB_VALUE(make_block_comm(n, MPI_COMM_WORLD));
        Strip serial = random_start(ProblemKind::PoissonSine, n);
        Block b = cut_block(serial, bc.rows(), bc.cols());
        reference_sweeps(serial, 1.4, 4);
        const std::size_t size = b.u.size();
        HPCLAB_CALL(
            [&] {
                DeviceStrip d = upload(b, Layout::Separated);
                set_loads(d, Loads::Texture);
                gpu_mpi_block_sweeps(bc, d, 1.4, 4);
                download(d, b);
            },
            b.u);
        ASSERT_TRUE(same_size_on_every_rank(b.u.size(), size));
        EXPECT_TRUE(gathered_blocks_equal(b, serial)) << "blocks, n = " << n;
    }
}
