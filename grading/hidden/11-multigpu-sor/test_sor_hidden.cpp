// Lab 11 hidden tests: odd sizes, uneven and one-row strips, more sweeps,
// stopping limits, fits with bad input, and GPU paths on awkward shapes.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "hpclab/check.hpp"
#include "hpclab/data.hpp"
#include "hpclab/gtest_gpu.hpp"
#include "hpclab/mpi.hpp"
#include "sor.hpp"
#include "sor_gpu.hpp"

using namespace lab11;

namespace {

Strip random_start(ProblemKind kind, int n, int first = 1, int rows = -1, std::uint64_t seed = 77) {
    if (rows < 0) rows = n;
    Strip s = make_problem(kind, n, first, rows);
    const std::vector<double> v = hpclab::uniform_doubles(static_cast<std::size_t>(n) * n, seed, -2.0, 2.0);
    for (int li = 0; li < rows + 2; ++li) {
        const int i = s.global_row(li);
        if (i < 1 || i > n) continue;
        for (int j = 1; j <= n; ++j) s.at(li, j) = v[static_cast<std::size_t>(i - 1) * n + (j - 1)];
    }
    return s;
}

std::vector<double> interior_of(const Strip& s) {
    std::vector<double> out;
    for (int i = 1; i <= s.n; ++i)
        for (int j = 1; j <= s.n; ++j) out.push_back(s.at(i, j));
    return out;
}

::testing::AssertionResult same_bits(const std::vector<double>& a, const std::vector<double>& b) {
    const auto rep = hpclab::compare_arrays(a, b, hpclab::Tolerance::exact());
    if (rep.ok()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << rep.describe("u");
}

void pick_gpu() {
    static bool done = false;
    if (!done) select_local_gpu(MPI_COMM_WORLD);
    done = true;
}

}  // namespace

TEST(Hidden, OddSizesAndUnevenStripsStayBitwiseEqual) {
    const int p = hpclab::mpi::size();
    for (int n : {p, p + 1, 2 * p + 1, 23, 40}) {
        const StripComm sc = make_strip_comm(n, MPI_COMM_WORLD);
        Strip serial = random_start(ProblemKind::PoissonSine, n);
        Strip mine = random_start(ProblemKind::PoissonSine, n, sc.range().first, sc.range().rows);
        for (int k = 0; k < 13; ++k) {
            red_black_sweep(serial, 1.93);
            mpi_red_black_sweep(sc, mine, 1.93);
        }
        const std::vector<double> grid = gather_grid(sc, mine);
        if (sc.rank() == 0) { EXPECT_TRUE(same_bits(grid, serial.u)) << "n = " << n << " on " << p << " ranks"; }
    }
}

TEST(Hidden, BlocksOnOddSizesStayBitwiseEqual) {
    for (int n : {7, 9, 31}) {
        const BlockComm bc = make_block_comm(n, MPI_COMM_WORLD);
        Strip serial = random_start(ProblemKind::LaplaceHarmonic, n);
        Block b = cut_block(serial, bc.rows(), bc.cols());
        for (int k = 0; k < 15; ++k) {
            red_black_sweep(serial, 1.6);
            mpi_block_red_black_sweep(bc, b, 1.6);
        }
        const std::vector<double> interior = gather_block_interior(bc, b);
        if (hpclab::mpi::rank(bc.comm()) == 0) {
            EXPECT_TRUE(same_bits(interior, interior_of(serial))) << "n = " << n;
        }
    }
}

TEST(Hidden, MpiSolveConvergesOnPoisson) {
    const int n = 31;
    const StripComm sc = make_strip_comm(n, MPI_COMM_WORLD);
    Strip mine = make_problem(ProblemKind::PoissonSine, n, sc.range().first, sc.range().rows);
    const SolveResult r = mpi_solve(sc, mine, omega_opt(n), 1e-12, 3, 100000);
    EXPECT_TRUE(r.converged);
    EXPECT_EQ(r.iterations % 3, 0);
    // Discretisation error of the 5-point stencil: about pi^2 h^2 / 12.
    const double h = 1.0 / 32;
    const double err = max_error(ProblemKind::PoissonSine, mine);
    const double worst = hpclab::mpi::max_over_ranks(err);
    EXPECT_LT(worst, 1.2 * 3.14159265358979 * 3.14159265358979 * h * h / 12);
    EXPECT_GT(worst, 0.5 * 3.14159265358979 * 3.14159265358979 * h * h / 12);
}

TEST(Hidden, SolveStopsAtMaxIterations) {
    Strip s = make_problem(ProblemKind::LaplaceHarmonic, 40);
    const SolveResult r = solve(s, Method::Sor, omega_opt(40), 1e-14, 4, 10);
    EXPECT_FALSE(r.converged);
    EXPECT_EQ(r.iterations, 10);
    EXPECT_LT(r.residual, r.residual0);
    Strip t = make_problem(ProblemKind::LaplaceHarmonic, 40);
    const SolveResult none = solve(t, Method::RedBlackSor, omega_opt(40), 1e-14, 4, 0);
    EXPECT_EQ(none.iterations, 0);
    EXPECT_FALSE(none.converged);
}

TEST(Hidden, OmegaOptBeatsTheThesisCap) {
    const int n = 255;
    Strip a = make_problem(ProblemKind::LaplaceHarmonic, n), b = a;
    const SolveResult capped = solve(a, Method::RedBlackSor, 1.9, 1e-8, 1, 100000);
    const SolveResult best = solve(b, Method::RedBlackSor, omega_opt(n), 1e-8, 1, 100000);
    ASSERT_TRUE(capped.converged && best.converged);
    EXPECT_LT(1.3 * best.iterations, capped.iterations);
}

TEST(Hidden, TinyGridsAndOneRowStrips) {
    EXPECT_DOUBLE_EQ(omega_opt(2), 2.0 / (1.0 + std::sin(3.14159265358979323846 / 3)));
    Strip s = random_start(ProblemKind::PoissonSine, 1);
    red_black_sweep(s, 1.0);
    EXPECT_DOUBLE_EQ(s.at(1, 1), (s.at(1, 0) + s.at(1, 2) + s.at(0, 1) + s.at(2, 1) + s.b(1, 1)) / 4);
    const int p = hpclab::mpi::size();
    const StripComm sc = make_strip_comm(p, MPI_COMM_WORLD);
    EXPECT_EQ(sc.range().rows, 1);
    EXPECT_EQ(sc.range().first, sc.rank() + 1);
}

TEST(Hidden, FitsOnNoisyAndBadInput) {
    std::vector<double> x = {1e3, 1e4, 1e5, 1e6}, y;
    for (double v : x) y.push_back(2e-6 + v * 1e-10);
    y[1] *= 1.01;
    const LinearFit f = fit_latency_bandwidth(x, y);
    EXPECT_NEAR(f.per_byte_s, 1e-10, 1e-12);
    EXPECT_THROW(fit_power_law({1, 2}, {1, -1}), std::invalid_argument);
    EXPECT_THROW(fit_power_law({3}, {1}), std::invalid_argument);
}

TEST(Hidden, GpuAwkwardSizesMatchCpu) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    for (int n : {1, 2, 3, 64, 255})
        for (Layout l : {Layout::Natural, Layout::Separated}) {
            Strip s = random_start(ProblemKind::PoissonSine, n);
            Strip want = s;
            for (int k = 0; k < 4; ++k) red_black_sweep(want, 1.3);
            DeviceStrip d = upload(s, l);
            for (int k = 0; k < 4; ++k) gpu_red_black_sweep(d, 1.3);
            download(d, s);
            EXPECT_TRUE(same_bits(s.u, want.u)) << layout_name(l) << " n = " << n;
        }
}

TEST(Hidden, GpuStripsWithOneOrTwoRowsPerRank) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    const int p = hpclab::mpi::size();
    for (int n : {p, 2 * p, 2 * p + 1})
        for (Exchange e : {Exchange::Staged, Exchange::Overlapped}) {
            const StripComm sc = make_strip_comm(n, MPI_COMM_WORLD);
            Strip serial = random_start(ProblemKind::PoissonSine, n);
            Strip mine = random_start(ProblemKind::PoissonSine, n, sc.range().first, sc.range().rows);
            for (int k = 0; k < 5; ++k) red_black_sweep(serial, 1.5);
            DeviceStrip d = upload(mine, Layout::Separated);
            gpu_mpi_sweeps(sc, d, 1.5, 5, e);
            download(d, mine);
            const std::vector<double> grid = gather_grid(sc, mine);
            if (sc.rank() == 0) { EXPECT_TRUE(same_bits(grid, serial.u)) << exchange_name(e) << " n = " << n; }
        }
}

TEST(Hidden, WideHalosAtTheDepthLimitAndOnLaplace) {
    // Strips exactly as thin as the ghost depth, odd sizes, and a sweep count
    // that leaves a short last block.
    const int p = hpclab::mpi::size();
    for (int bs : {1, 2})
        for (int extra : {0, 1}) {
            const int n = 2 * bs * p + extra;
            for (ProblemKind kind : {ProblemKind::LaplaceHarmonic, ProblemKind::PoissonSine}) {
                const StripComm sc = make_strip_comm(n, MPI_COMM_WORLD);
                Strip serial = random_start(kind, n);
                for (int k = 0; k < 2 * bs + 1; ++k) red_black_sweep(serial, 1.9);
                const RowRange wr = wide_rows(sc, wide_halo_depth(bs));
                Strip wide = random_start(kind, n, wr.first, wr.rows);
                mpi_red_black_sweeps_wide(sc, wide, 1.9, 2 * bs + 1, bs);
                const std::vector<double> grid = gather_grid(sc, owned_part(sc, wide));
                if (sc.rank() == 0) { EXPECT_TRUE(same_bits(grid, serial.u)) << "n = " << n << ", bs = " << bs; }
            }
        }
}

TEST(Hidden, GpuWideHalosAndBlocksOnAwkwardSizes) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    const int p = hpclab::mpi::size();
    {
        const int n = 4 * p + 3, bs = 2;
        const StripComm sc = make_strip_comm(n, MPI_COMM_WORLD);
        Strip serial = random_start(ProblemKind::PoissonSine, n);
        for (int k = 0; k < 5; ++k) red_black_sweep(serial, 1.6);
        const RowRange wr = wide_rows(sc, wide_halo_depth(bs));
        Strip wide = random_start(ProblemKind::PoissonSine, n, wr.first, wr.rows);
        DeviceStrip d = upload(wide, Layout::Separated);
        set_loads(d, Loads::ReadOnly);
        gpu_mpi_sweeps_wide(sc, d, 1.6, 5, bs);
        download(d, wide);
        const std::vector<double> grid = gather_grid(sc, owned_part(sc, wide));
        if (sc.rank() == 0) { EXPECT_TRUE(same_bits(grid, serial.u)) << "wide halos, n = " << n; }
    }
    for (int n : {p, 19}) {  // n = p: blocks of one or two points per side
        const BlockComm bc = make_block_comm(n, MPI_COMM_WORLD);
        Strip serial = random_start(ProblemKind::PoissonSine, n);
        Block b = cut_block(serial, bc.rows(), bc.cols());
        for (int k = 0; k < 4; ++k) red_black_sweep(serial, 1.4);
        DeviceStrip d = upload(b, Layout::Separated);
        set_loads(d, Loads::Texture);
        gpu_mpi_block_sweeps(bc, d, 1.4, 4);
        download(d, b);
        const std::vector<double> interior = gather_block_interior(bc, b);
        if (hpclab::mpi::rank(bc.comm()) == 0) {
            EXPECT_TRUE(same_bits(interior, interior_of(serial))) << "blocks, n = " << n;
        }
    }
}
