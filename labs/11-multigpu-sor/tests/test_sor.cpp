// Lab 11 visible tests, CPU and MPI parts (run under mpirun -np 1..4):
// converged grids against exact answers, the sweeps against their
// definitions, iteration counts, strips bitwise equal to serial for any rank
// count, and the communication-model fits.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "hpclab/mpi.hpp"
#include "sor.hpp"
#include "sor_test_util.hpp"

using namespace lab11;
using lab11_test::random_start;
using lab11_test::interior_of;
using lab11_test::same_bits;

namespace {
const double kPi = 3.14159265358979323846;
}

// ---- stage 1: CPU --------------------------------------------------------------

TEST(Omega, OptimalValueIsNotCapped) {
    EXPECT_DOUBLE_EQ(omega_opt(1), 1.0);  // h = 1/2: sin(pi/2) = 1
    EXPECT_DOUBLE_EQ(omega_opt(99), 2.0 / (1.0 + std::sin(kPi / 100)));
    // The thesis capped omega at 1.9; the optimum passes it near n = 59.
    EXPECT_GT(omega_opt(1000), 1.99);
    EXPECT_LT(omega_opt(1000), 2.0);
    EXPECT_THROW(omega_opt(0), std::invalid_argument);
}

TEST(Cpu, JacobiSweepReadsOnlyOldValues) {
    const Strip in = random_start(ProblemKind::PoissonSine, 9);
    Strip out = in;
    jacobi_sweep(in, out);
    for (int i = 1; i <= 9; ++i)
        for (int j = 1; j <= 9; ++j) {
            const double want = sor_update(in.at(i, j), in.at(i, j - 1), in.at(i, j + 1), in.at(i - 1, j),
                                           in.at(i + 1, j), in.b(i, j), 1.0);
            ASSERT_EQ(out.at(i, j), want) << "at (" << i << ", " << j << ")";
        }
    EXPECT_EQ(out.at(0, 3), in.at(0, 3));  // boundary untouched
}

TEST(Cpu, SorSweepIsLexicographic) {
    Strip s = random_start(ProblemKind::PoissonSine, 8);
    Strip want = s;
    for (int i = 1; i <= 8; ++i)
        for (int j = 1; j <= 8; ++j)
            want.at(i, j) = sor_update(want.at(i, j), want.at(i, j - 1), want.at(i, j + 1), want.at(i - 1, j),
                                       want.at(i + 1, j), want.b(i, j), 1.7);
    sor_sweep(s, 1.7);
    EXPECT_TRUE(same_bits(s.u, want.u, s.width()));
}

TEST(Cpu, RedBlackSweepUpdatesAllRedThenAllBlack) {
    for (int n : {7, 10}) {
        Strip s = random_start(ProblemKind::PoissonSine, n);
        Strip want = s;
        for (int colour = 0; colour < 2; ++colour)
            for (int i = 1; i <= n; ++i)
                for (int j = 1; j <= n; ++j)
                    if ((i + j) % 2 == colour)
                        want.at(i, j) = sor_update(want.at(i, j), want.at(i, j - 1), want.at(i, j + 1),
                                                   want.at(i - 1, j), want.at(i + 1, j), want.b(i, j), 1.6);
        Strip red_only = s;
        red_black_colour(red_only, 0, 1.6);
        for (int i = 1; i <= n; ++i)
            for (int j = 1; j <= n; ++j)
                if ((i + j) % 2 == 1) {
                    ASSERT_EQ(red_only.at(i, j), s.at(i, j)) << "black point changed by the red pass";
                }
        red_black_sweep(s, 1.6);
        EXPECT_TRUE(same_bits(s.u, want.u, s.width())) << "n = " << n;
    }
}

TEST(Cpu, ResidualNormMatchesItsDefinition) {
    const Strip s = random_start(ProblemKind::PoissonSine, 6);
    double sum = 0;
    for (int i = 1; i <= 6; ++i) {
        double row = 0;
        for (int j = 1; j <= 6; ++j) {
            const double r = residual_at(s.at(i, j), s.at(i, j - 1), s.at(i, j + 1), s.at(i - 1, j), s.at(i + 1, j),
                                         s.b(i, j));
            row += r * r;
        }
        sum += row;
    }
    const std::vector<double> rows = residual_row_sums(s);
    ASSERT_EQ(rows.size(), 6u);
    EXPECT_EQ(residual_norm(s), std::sqrt(sum));
    // The exact harmonic grid satisfies the discrete equation up to rounding.
    Strip exact = make_problem(ProblemKind::LaplaceHarmonic, 20);
    for (int i = 1; i <= 20; ++i)
        for (int j = 1; j <= 20; ++j) exact.at(i, j) = exact_solution(ProblemKind::LaplaceHarmonic, j * exact.h(), i * exact.h());
    EXPECT_LT(residual_norm(exact), 1e-13);
}

TEST(Cpu, LaplaceHarmonicConvergesToTheExactSolution) {
    for (Method m : {Method::Sor, Method::RedBlackSor}) {
        Strip s = make_problem(ProblemKind::LaplaceHarmonic, 31);
        const SolveResult r = solve(s, m, omega_opt(31), 1e-13, 5, 100000);
        EXPECT_TRUE(r.converged);
        // The 5-point stencil is exact for x^2 - y^2: only rounding remains.
        EXPECT_LT(max_error(ProblemKind::LaplaceHarmonic, s), 1e-11);
    }
}

TEST(Cpu, PoissonErrorFallsFourfoldWhenHHalves) {
    std::vector<double> err;
    for (int n : {15, 31, 63}) {
        Strip s = make_problem(ProblemKind::PoissonSine, n);
        ASSERT_TRUE(solve(s, Method::RedBlackSor, omega_opt(n), 1e-12, 10, 100000).converged);
        err.push_back(max_error(ProblemKind::PoissonSine, s));
    }
    for (std::size_t k = 0; k + 1 < err.size(); ++k) {
        const double ratio = err[k] / err[k + 1];
        EXPECT_GT(ratio, 3.7) << "O(h^2): halving h should divide the error by about 4";
        EXPECT_LT(ratio, 4.3);
    }
}

TEST(Cpu, AllMethodsReachTheSameSolution) {
    const int n = 20;
    Strip ref = make_problem(ProblemKind::PoissonSine, n);
    ASSERT_TRUE(solve(ref, Method::RedBlackSor, omega_opt(n), 1e-13, 1, 100000).converged);
    for (Method m : {Method::Jacobi, Method::GaussSeidel, Method::Sor}) {
        Strip s = make_problem(ProblemKind::PoissonSine, n);
        const SolveResult r = solve(s, m, omega_opt(n), 1e-11, 10, 1000000);
        ASSERT_TRUE(r.converged) << "method " << static_cast<int>(m);
        double worst = 0;
        for (std::size_t k = 0; k < s.u.size(); ++k) worst = std::fmax(worst, std::fabs(s.u[k] - ref.u[k]));
        EXPECT_LT(worst, 1e-10) << "method " << static_cast<int>(m);
    }
}

TEST(Cpu, IterationCountsGrowLinearlyForSorAndQuadraticallyForJacobi) {
    // Theory: Jacobi needs O(n^2) sweeps, SOR with omega_opt O(n).
    auto sweeps = [](Method m, int n) {
        Strip s = make_problem(ProblemKind::LaplaceHarmonic, n);
        const SolveResult r = solve(s, m, omega_opt(n), 1e-8, 1, 1000000);
        EXPECT_TRUE(r.converged);
        return static_cast<double>(r.iterations);
    };
    const double jacobi = sweeps(Method::Jacobi, 32) / sweeps(Method::Jacobi, 16);
    const double sor = sweeps(Method::RedBlackSor, 64) / sweeps(Method::RedBlackSor, 32);
    EXPECT_GT(jacobi, 3.2) << "Jacobi: doubling n should about quadruple the sweeps";
    EXPECT_LT(jacobi, 4.8);
    EXPECT_GT(sor, 1.5) << "SOR(omega_opt): doubling n should about double the sweeps";
    EXPECT_LT(sor, 2.6);
    EXPECT_GT(sweeps(Method::Jacobi, 32), 10 * sweeps(Method::RedBlackSor, 32));
}

TEST(Cpu, StoppingRuleRunsBlocksOfCheckEverySweeps) {
    // A residual that halves with every sweep: r = 2^-done.
    long done = 0;
    std::vector<long> blocks;
    auto sweeps = [&](long k) { blocks.push_back(k); done += k; };
    auto residual = [&] { return std::ldexp(1.0, static_cast<int>(-done)); };
    SolveResult r = iterate_to_tolerance(sweeps, residual, 0.0, 3, 10);  // tol 0: never converges
    EXPECT_EQ(blocks, (std::vector<long>{3, 3, 3, 1}));
    EXPECT_EQ(r.iterations, 10);
    EXPECT_FALSE(r.converged);
    EXPECT_EQ(r.residual0, 1.0);
    EXPECT_EQ(r.residual, std::ldexp(1.0, -10));
    done = 0;
    blocks.clear();
    r = iterate_to_tolerance(sweeps, residual, std::ldexp(1.0, -5), 2, 100);  // 2^-6 <= 2^-5 after 6 sweeps
    EXPECT_TRUE(r.converged);
    EXPECT_EQ(r.iterations, 6);
    EXPECT_EQ(blocks, (std::vector<long>{2, 2, 2}));
    blocks.clear();
    r = iterate_to_tolerance(sweeps, [] { return 0.0; }, 1e-9, 2, 100);
    EXPECT_TRUE(r.converged);
    EXPECT_EQ(r.iterations, 0);
    EXPECT_TRUE(blocks.empty());
    EXPECT_THROW(iterate_to_tolerance(sweeps, residual, 1e-9, 0, 10), std::invalid_argument);
    EXPECT_THROW(iterate_to_tolerance(sweeps, residual, 1e-9, 1, -1), std::invalid_argument);
    EXPECT_THROW(iterate_to_tolerance(sweeps, residual, std::nan(""), 1, 10), std::invalid_argument);
}

TEST(Cpu, StoppingTestIsCheckedEveryMSweeps) {
    Strip s = make_problem(ProblemKind::PoissonSine, 24);
    const SolveResult r = solve(s, Method::RedBlackSor, omega_opt(24), 1e-9, 7, 100000);
    ASSERT_TRUE(r.converged);
    EXPECT_EQ(r.iterations % 7, 0);
    EXPECT_LE(r.residual, 1e-9 * r.residual0);
    EXPECT_DOUBLE_EQ(r.residual, residual_norm(s));
    // One check earlier it had not converged yet.
    Strip t = make_problem(ProblemKind::PoissonSine, 24);
    const SolveResult shorter = solve(t, Method::RedBlackSor, omega_opt(24), 1e-9, 7, r.iterations - 7);
    EXPECT_FALSE(shorter.converged);
    EXPECT_EQ(shorter.iterations, r.iterations - 7);
    EXPECT_THROW(solve(t, Method::Sor, 1.5, 1e-9, 0, 10), std::invalid_argument);
    EXPECT_THROW(solve(t, Method::Sor, 1.5, -1.0, 1, 10), std::invalid_argument);
}

// ---- stage 2: MPI strips -----------------------------------------------------------

TEST(Mpi, StripRowsCoverTheGridEvenly) {
    for (int n = 1; n <= 30; ++n)
        for (int p = 1; p <= std::min(n, 7); ++p) {
            int next = 1, smallest = n, largest = 0;
            for (int r = 0; r < p; ++r) {
                const RowRange rr = strip_rows(n, p, r);
                ASSERT_EQ(rr.first, next) << "n " << n << " p " << p << " r " << r;
                next += rr.rows;
                smallest = std::min(smallest, rr.rows);
                largest = std::max(largest, rr.rows);
            }
            EXPECT_EQ(next, n + 1);
            EXPECT_LE(largest - smallest, 1);
            EXPECT_GE(smallest, 1);
        }
    EXPECT_THROW(strip_rows(3, 4, 0), std::invalid_argument);
    EXPECT_THROW(strip_rows(10, 2, 2), std::invalid_argument);
}

TEST(Mpi, CartesianNeighboursEndAtTheBoundary) {
    const StripComm sc = make_strip_comm(40, MPI_COMM_WORLD);
    const int r = sc.rank(), p = sc.size();
    EXPECT_EQ(p, hpclab::mpi::size());
    EXPECT_EQ(sc.up(), r == 0 ? MPI_PROC_NULL : r - 1);
    EXPECT_EQ(sc.down(), r == p - 1 ? MPI_PROC_NULL : r + 1);
    const RowRange want = strip_rows(40, p, r);
    EXPECT_EQ(sc.range().first, want.first);
    EXPECT_EQ(sc.range().rows, want.rows);
}

TEST(Mpi, RefusesAGridSmallerThanTheRankCount) {
    const int p = hpclab::mpi::size();
    EXPECT_THROW(make_strip_comm(p - 1, MPI_COMM_WORLD), std::invalid_argument);
    EXPECT_NO_THROW(make_strip_comm(p, MPI_COMM_WORLD));  // one row each is fine
}

TEST(Mpi, HaloRowsComeFromTheNeighbours) {
    const int n = 13;
    const StripComm sc = make_strip_comm(n, MPI_COMM_WORLD);
    Strip s = random_start(ProblemKind::PoissonSine, n, sc.range().first, sc.range().rows, 5);
    const Strip full = random_start(ProblemKind::PoissonSine, n, 1, n, 5);
    // Spoil the halos (not the global boundary) so that only an exchange repairs them.
    for (int j = 0; j < s.width(); ++j) {
        if (sc.up() != MPI_PROC_NULL) s.at(0, j) = -99;
        if (sc.down() != MPI_PROC_NULL) s.at(s.rows + 1, j) = -99;
    }
    exchange_halos(sc, s);
    for (int li : {0, s.rows + 1}) {
        const int i = s.global_row(li);
        for (int j = 0; j < s.width(); ++j)
            ASSERT_EQ(s.at(li, j), full.at(i, j)) << "rank " << sc.rank() << ", global row " << i << ", column " << j;
    }
}

TEST(Mpi, StripsAreBitwiseEqualToSerial) {
    for (ProblemKind kind : {ProblemKind::PoissonSine, ProblemKind::LaplaceHarmonic})
        for (int n : {17, 20}) {
            const StripComm sc = make_strip_comm(n, MPI_COMM_WORLD);
            Strip serial = random_start(kind, n);
            Strip mine = random_start(kind, n, sc.range().first, sc.range().rows);
            for (int k = 0; k < 9; ++k) {
                red_black_sweep(serial, 1.8);
                mpi_red_black_sweep(sc, mine, 1.8);
            }
            const std::vector<double> grid = gather_grid(sc, mine);
            if (sc.rank() == 0) {
                EXPECT_TRUE(same_bits(grid, serial.u, serial.width())) << "n = " << n;
            } else {
                EXPECT_TRUE(grid.empty());
            }
        }
}

TEST(Mpi, ResidualDoesNotDependOnTheRankCount) {
    const int n = 23;
    const StripComm sc = make_strip_comm(n, MPI_COMM_WORLD);
    const Strip serial = random_start(ProblemKind::PoissonSine, n);
    Strip mine = random_start(ProblemKind::PoissonSine, n, sc.range().first, sc.range().rows);
    exchange_halos(sc, mine);
    EXPECT_EQ(mpi_residual_norm(sc, mine), residual_norm(serial));  // the same bits
}

TEST(Mpi, SolveMatchesSerialSolve) {
    const int n = 26;
    const StripComm sc = make_strip_comm(n, MPI_COMM_WORLD);
    Strip serial = make_problem(ProblemKind::LaplaceHarmonic, n);
    Strip mine = make_problem(ProblemKind::LaplaceHarmonic, n, sc.range().first, sc.range().rows);
    const SolveResult want = solve(serial, Method::RedBlackSor, omega_opt(n), 1e-12, 4, 100000);
    const SolveResult got = mpi_solve(sc, mine, omega_opt(n), 1e-12, 4, 100000);
    EXPECT_TRUE(got.converged);
    EXPECT_EQ(got.iterations, want.iterations);
    EXPECT_EQ(got.residual, want.residual);
    EXPECT_LT(max_error(ProblemKind::LaplaceHarmonic, mine), 1e-11);
    const std::vector<double> grid = gather_grid(sc, mine);
    if (sc.rank() == 0) { EXPECT_TRUE(same_bits(grid, serial.u, serial.width())); }
}

// ---- stage 2c: wide halos ---------------------------------------------------------

TEST(Wide, GhostRowsComeFromTheNeighbours) {
    const int n = 23, depth = 4;
    const StripComm sc = make_strip_comm(n, MPI_COMM_WORLD);
    const RowRange wr = wide_rows(sc, depth);
    EXPECT_EQ(wr.first, sc.range().first - (sc.up() == MPI_PROC_NULL ? 0 : depth));
    EXPECT_EQ(wr.first + wr.rows, sc.range().first + sc.range().rows + (sc.down() == MPI_PROC_NULL ? 0 : depth));
    Strip wide = random_start(ProblemKind::PoissonSine, n, wr.first, wr.rows, 3);
    const Strip full = random_start(ProblemKind::PoissonSine, n, 1, n, 3);
    // Spoil every ghost row, so that only the exchange can repair them.
    for (int li = 1; li <= wide.rows; ++li) {
        const int i = wide.global_row(li);
        if (i < sc.range().first || i >= sc.range().first + sc.range().rows)
            for (int j = 0; j < wide.width(); ++j) wide.at(li, j) = -99;
    }
    exchange_wide_halos(sc, wide, depth);
    for (int li = 0; li < wide.rows + 2; ++li) {
        const int i = wide.global_row(li);
        if (li == 0 && i > 0) continue;                        // unused ring row above the ghosts
        if (li == wide.rows + 1 && i < n + 1) continue;        // and below
        for (int j = 0; j < wide.width(); ++j)
            ASSERT_EQ(wide.at(li, j), full.at(i, j)) << "rank " << sc.rank() << ", global row " << i << ", column " << j;
    }
}

TEST(Wide, BitwiseEqualToSerialForEverySweepsPerExchange) {
    const int n = 27;  // 4 ranks: strips of 6 or 7 rows, enough for bs = 3 (6 ghost rows)
    for (int bs : {1, 2, 3})
        for (long sweeps : {1L, 7L}) {
            const StripComm sc = make_strip_comm(n, MPI_COMM_WORLD);
            Strip serial = random_start(ProblemKind::PoissonSine, n);
            const RowRange wr = wide_rows(sc, wide_halo_depth(bs));
            Strip wide = random_start(ProblemKind::PoissonSine, n, wr.first, wr.rows);
            for (long k = 0; k < sweeps; ++k) red_black_sweep(serial, 1.8);
            mpi_red_black_sweeps_wide(sc, wide, 1.8, sweeps, bs);
            const std::vector<double> grid = gather_grid(sc, owned_part(sc, wide));
            if (sc.rank() == 0) {
                EXPECT_TRUE(same_bits(grid, serial.u, serial.width())) << "bs = " << bs << ", sweeps = " << sweeps;
            }
        }
}

TEST(Wide, RefusesHalosDeeperThanTheThinnestStrip) {
    const StripComm sc = make_strip_comm(9, MPI_COMM_WORLD);
    const int thinnest = 9 / sc.size();
    EXPECT_NO_THROW(wide_rows(sc, thinnest));
    EXPECT_THROW(wide_rows(sc, thinnest + 1), std::invalid_argument);
    EXPECT_THROW(wide_rows(sc, 0), std::invalid_argument);
    const RowRange wr = wide_rows(sc, 2);
    Strip wide = make_problem(ProblemKind::LaplaceHarmonic, 9, wr.first, wr.rows);
    EXPECT_THROW(mpi_red_black_sweeps_wide(sc, wide, 1.5, 3, 0), std::invalid_argument);
    // Depth 2 is bs = 1; with a neighbour, a strip built for depth 2 is the
    // wrong shape for bs = 2 (depth 4), and a plain strip for any depth.
    if (sc.size() > 1) {
        if (thinnest >= 4) {
            EXPECT_THROW(mpi_red_black_sweeps_wide(sc, wide, 1.5, 3, 2), std::invalid_argument);
        }
        Strip narrow = make_problem(ProblemKind::LaplaceHarmonic, 9, sc.range().first, sc.range().rows);
        EXPECT_THROW(exchange_wide_halos(sc, narrow, 2), std::invalid_argument);
    }
}

// ---- stage 2b: 2-D blocks ---------------------------------------------------------

TEST(Blocks, ProcessGridAndNeighbours) {
    const int p = hpclab::mpi::size();
    const BlockComm bc = make_block_comm(30, MPI_COMM_WORLD);
    EXPECT_EQ(bc.dim(0) * bc.dim(1), p);
    EXPECT_GE(bc.dim(0), bc.dim(1));  // MPI_Dims_create: non-increasing
    int coords[2];
    MPI_Cart_coords(bc.comm(), hpclab::mpi::rank(bc.comm()), 2, coords);
    auto rank_at = [&](int a, int c) {
        if (a < 0 || c < 0 || a >= bc.dim(0) || c >= bc.dim(1)) return static_cast<int>(MPI_PROC_NULL);
        int r = 0;
        const int at[2] = {a, c};
        MPI_Cart_rank(bc.comm(), at, &r);
        return r;
    };
    EXPECT_EQ(bc.up(), rank_at(coords[0] - 1, coords[1]));
    EXPECT_EQ(bc.down(), rank_at(coords[0] + 1, coords[1]));
    EXPECT_EQ(bc.left(), rank_at(coords[0], coords[1] - 1));
    EXPECT_EQ(bc.right(), rank_at(coords[0], coords[1] + 1));
    EXPECT_EQ(bc.rows().first, strip_rows(30, bc.dim(0), coords[0]).first);
    EXPECT_EQ(bc.cols().rows, strip_rows(30, bc.dim(1), coords[1]).rows);
    const int biggest = std::max(bc.dim(0), bc.dim(1));
    EXPECT_THROW(make_block_comm(biggest - 1, MPI_COMM_WORLD), std::invalid_argument);
}

TEST(Blocks, RowAndColumnHalosComeFromTheNeighbours) {
    const int n = 11;
    const BlockComm bc = make_block_comm(n, MPI_COMM_WORLD);
    const Strip full = random_start(ProblemKind::PoissonSine, n, 1, n, 9);
    Block b = cut_block(full, bc.rows(), bc.cols());
    // Spoil the halo ring where a neighbour exists; the exchange must repair it.
    for (int li = 1; li <= b.rows; ++li) {
        if (bc.left() != MPI_PROC_NULL) b.at(li, 0) = -99;
        if (bc.right() != MPI_PROC_NULL) b.at(li, b.cols + 1) = -99;
    }
    for (int lj = 1; lj <= b.cols; ++lj) {
        if (bc.up() != MPI_PROC_NULL) b.at(0, lj) = -99;
        if (bc.down() != MPI_PROC_NULL) b.at(b.rows + 1, lj) = -99;
    }
    exchange_block_halos(bc, b);
    for (int li = 0; li <= b.rows + 1; ++li)
        for (int lj = 0; lj <= b.cols + 1; ++lj) {
            const bool corner = (li == 0 || li == b.rows + 1) && (lj == 0 || lj == b.cols + 1);
            if (corner) continue;  // never read by the 5-point stencil
            ASSERT_EQ(b.at(li, lj), full.at(b.global_row(li), b.global_col(lj)))
                << "global (" << b.global_row(li) << ", " << b.global_col(lj) << ")";
        }
}

TEST(Blocks, BitwiseEqualToSerialAndToStrips) {
    for (int n : {13, 20}) {
        const BlockComm bc = make_block_comm(n, MPI_COMM_WORLD);
        Strip serial = random_start(ProblemKind::PoissonSine, n);
        Block b = cut_block(serial, bc.rows(), bc.cols());
        for (int k = 0; k < 9; ++k) {
            red_black_sweep(serial, 1.85);
            mpi_block_red_black_sweep(bc, b, 1.85);
        }
        const std::vector<double> interior = gather_block_interior(bc, b);
        if (hpclab::mpi::rank(bc.comm()) == 0) {
            EXPECT_TRUE(same_bits(interior, interior_of(serial), n)) << "n = " << n << ", blocks " << bc.dim(0) << " x " << bc.dim(1);
        }
    }
}

// ---- stage 5: communication model ------------------------------------------

TEST(Model, LatencyBandwidthFitRecoversALine) {
    std::vector<double> bytes, t;
    for (double b = 8; b <= 8e6; b *= 4) {
        bytes.push_back(b);
        t.push_back(3.3e-6 + b / 20e9);
    }
    const LinearFit f = fit_latency_bandwidth(bytes, t);
    EXPECT_NEAR(f.startup_s, 3.3e-6, 1e-12);
    EXPECT_NEAR(f.per_byte_s, 1 / 20e9, 1e-18);
    EXPECT_NEAR(f.predict(1e6), 3.3e-6 + 1e6 / 20e9, 1e-12);
    // Relative weighting: 10% noise on the largest message must not move the
    // startup time by more than a few percent (unweighted it swings by ~1e-5 s).
    std::vector<double> noisy = t;
    noisy.back() *= 1.1;
    EXPECT_NEAR(fit_latency_bandwidth(bytes, noisy).startup_s, 3.3e-6, 0.2e-6);
    EXPECT_THROW(fit_latency_bandwidth({8, 16}, {1e-6, 0.0}), std::invalid_argument);
    EXPECT_THROW(fit_latency_bandwidth({8}, {1e-6}), std::invalid_argument);
    EXPECT_THROW(fit_latency_bandwidth({8, 8}, {1e-6, 2e-6}), std::invalid_argument);
    EXPECT_THROW(fit_latency_bandwidth({8, 16}, {1e-6}), std::invalid_argument);
}

TEST(Model, PowerLawFitRecoversExponent) {
    std::vector<double> n, t;
    for (double x = 1e3; x <= 1e9; x *= 10) {
        n.push_back(x);
        t.push_back(2.5e-10 * std::pow(x, 0.99));
    }
    const PowerFit f = fit_power_law(n, t);
    EXPECT_NEAR(f.b, 0.99, 1e-9);
    EXPECT_NEAR(f.a, 2.5e-10, 1e-15);
    EXPECT_NEAR(f.predict(1e6) / (2.5e-10 * std::pow(1e6, 0.99)), 1.0, 1e-9);
    EXPECT_THROW(fit_power_law({1, 0}, {1, 1}), std::invalid_argument);
}
