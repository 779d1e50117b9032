// Lab 11 visible tests, CPU and MPI parts (run under mpirun -np 1..4):
// converged grids against exact answers, the sweeps against their
// definitions, iteration counts, strips bitwise equal to serial for any rank
// count, and the communication-model fits.
//
// Every call into student code is a judged call (hpclab/judged.hpp): the
// grader records it in the submission's build and replays it in the
// starter's, where these assertions run. The serial grids, residuals and
// solves that the MPI results are compared with come from the reference
// functions of sor_test_util.hpp (harness code), not from the student's
// serial functions; the ranks' grids are gathered on world rank 0 by the
// test itself (gathered_strips_equal, gathered_blocks_equal).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include "hpclab/check.hpp"
#include "hpclab/data.hpp"
#include "hpclab/judged.hpp"
#include "hpclab/mpi.hpp"
#include "sor.hpp"
#include "sor_test_util.hpp"

using namespace lab11;
using lab11_test::cart_map;
using lab11_test::gathered_blocks_equal;
using lab11_test::gathered_strips_equal;
using lab11_test::random_start;
using lab11_test::reference_method_solve;
using lab11_test::reference_residual_norm;
using lab11_test::reference_solve;
using lab11_test::reference_sweeps;
using lab11_test::same_bits;
using lab11_test::same_size_on_every_rank;
using lab11_test::strip_rank;
using lab11_test::strip_size;

namespace {
const double kPi = 3.14159265358979323846;

// Distinct exact scale factors (powers of two, 1 <= |c| <= 2) for k problems,
// in a seeded order: scaling a problem's boundary values and right-hand side
// by c scales every iterate, residual and error by exactly c, so each solver
// of a test gets a problem of its own while the tolerances keep their meaning.
std::vector<double> distinct_scales(std::size_t k, std::uint64_t seed) {
    std::vector<double> c = {1.0, -1.0, 2.0, -2.0};
    hpclab::Rng rng(seed);
    for (std::size_t i = c.size() - 1; i > 0; --i)
        std::swap(c[i], c[static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(i)))]);
    c.resize(k);
    return c;
}

// Problem `kind` on the whole n x n grid with its boundary values and
// right-hand side times c: its exact solution is c times the problem's.
Strip scaled_problem(ProblemKind kind, int n, double c) {
    Strip s = make_problem(kind, n);
    for (double& x : s.u) x *= c;
    for (double& x : s.rhs) x *= c;
    return s;
}

// max_error for the problem scaled by c.
double scaled_error(ProblemKind kind, const Strip& s, double c) {
    double worst = 0;
    const double h = s.h();
    for (int li = 1; li <= s.rows; ++li)
        for (int j = 1; j <= s.n; ++j)
            worst =
                hpclab::nan_max(worst, std::fabs(s.at(li, j) - c * exact_solution(kind, j * h, s.global_row(li) * h)));
    return worst;
}
}  // namespace

// ---- stage 1: CPU --------------------------------------------------------------

TEST(Omega, OptimalValueIsNotCapped) {
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(omega_opt(1)), 1.0);  // h = 1/2: sin(pi/2) = 1
    EXPECT_DOUBLE_EQ(HPCLAB_VALUE(omega_opt(99)), 2.0 / (1.0 + std::sin(kPi / 100)));
    // The thesis capped omega at 1.9; the optimum passes it near n = 59.
    const double big = HPCLAB_VALUE(omega_opt(1000));
    EXPECT_GT(big, 1.99);
    EXPECT_LT(big, 2.0);
    EXPECT_THROW(HPCLAB_VALUE(omega_opt(0)), std::invalid_argument);
}

TEST(Cpu, JacobiSweepReadsOnlyOldValues) {
    const Strip in = random_start(ProblemKind::PoissonSine, 9);
    Strip out = in;
    HPCLAB_CALL([&] { jacobi_sweep(in, out); }, out.u);
    ASSERT_EQ(out.u.size(), in.u.size());
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
    HPCLAB_CALL([&] { sor_sweep(s, 1.7); }, s.u);
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
        // The red pass gets a start of its own (not the sweep's).
        const Strip red_start = random_start(ProblemKind::PoissonSine, n, 1, n, 12);
        Strip red_only = red_start;
        HPCLAB_CALL([&] { red_black_colour(red_only, 0, 1.6); }, red_only.u);
        ASSERT_EQ(red_only.u.size(), red_start.u.size());
        for (int i = 1; i <= n; ++i)
            for (int j = 1; j <= n; ++j)
                if ((i + j) % 2 == 1) {
                    ASSERT_EQ(red_only.at(i, j), red_start.at(i, j)) << "black point changed by the red pass";
                }
        HPCLAB_CALL([&] { red_black_sweep(s, 1.6); }, s.u);
        EXPECT_TRUE(same_bits(s.u, want.u, s.width())) << "n = " << n;
    }
}

TEST(Cpu, ResidualNormMatchesItsDefinition) {
    const Strip s = random_start(ProblemKind::PoissonSine, 6);
    double sum = 0;
    for (int i = 1; i <= 6; ++i) {
        double row = 0;
        for (int j = 1; j <= 6; ++j) {
            const double r =
                residual_at(s.at(i, j), s.at(i, j - 1), s.at(i, j + 1), s.at(i - 1, j), s.at(i + 1, j), s.b(i, j));
            row += r * r;
        }
        sum += row;
    }
    // The row sums get a grid of their own (not the norm's).
    const Strip other = random_start(ProblemKind::PoissonSine, 6, 1, 6, 12);
    const std::vector<double> rows = HPCLAB_VALUE(residual_row_sums(other));
    ASSERT_EQ(rows.size(), 6u);
    EXPECT_EQ(HPCLAB_VALUE(residual_norm(s)), std::sqrt(sum));
    // The exact harmonic grid satisfies the discrete equation up to rounding.
    Strip exact = make_problem(ProblemKind::LaplaceHarmonic, 20);
    for (int i = 1; i <= 20; ++i)
        for (int j = 1; j <= 20; ++j)
            exact.at(i, j) = exact_solution(ProblemKind::LaplaceHarmonic, j * exact.h(), i * exact.h());
    EXPECT_LT(HPCLAB_VALUE(residual_norm(exact)), 1e-13);
}

TEST(Cpu, LaplaceHarmonicConvergesToTheExactSolution) {
    const double w = HPCLAB_VALUE(omega_opt(31));
    const std::vector<double> scale = distinct_scales(2, 31);
    const Method methods[] = {Method::Sor, Method::RedBlackSor};
    for (int k = 0; k < 2; ++k) {
        // Each method solves its own problem: the harmonic one times +-1 or +-2.
        Strip s = scaled_problem(ProblemKind::LaplaceHarmonic, 31, scale[k]);
        const SolveResult r = HPCLAB_CALL([&] { return solve(s, methods[k], w, 1e-13, 5, 100000); }, s.u);
        ASSERT_EQ(s.u.size(), make_problem(ProblemKind::LaplaceHarmonic, 31).u.size());
        EXPECT_TRUE(r.converged);
        // The 5-point stencil is exact for x^2 - y^2: only rounding remains.
        EXPECT_LT(scaled_error(ProblemKind::LaplaceHarmonic, s, scale[k]), 1e-11) << "scale " << scale[k];
    }
}

TEST(Cpu, PoissonErrorFallsFourfoldWhenHHalves) {
    std::vector<double> err;
    for (int n : {15, 31, 63}) {
        Strip s = make_problem(ProblemKind::PoissonSine, n);
        const double w = HPCLAB_VALUE(omega_opt(n));
        const SolveResult r = HPCLAB_CALL([&] { return solve(s, Method::RedBlackSor, w, 1e-12, 10, 100000); }, s.u);
        ASSERT_TRUE(r.converged);
        ASSERT_EQ(s.u.size(), make_problem(ProblemKind::PoissonSine, n).u.size());
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
    const double w = HPCLAB_VALUE(omega_opt(n));
    const Method methods[] = {Method::Jacobi, Method::GaussSeidel, Method::Sor};
    // Each method solves its own problem (Poisson times +-1 or +-2), and the
    // red-black solution it is compared with is the reference's.
    const std::vector<double> scale = distinct_scales(3, 20);
    for (int k = 0; k < 3; ++k) {
        const Method m = methods[k];
        Strip ref = scaled_problem(ProblemKind::PoissonSine, n, scale[k]);
        ASSERT_TRUE(reference_solve(ref, w, 1e-13, 1, 100000).converged);
        Strip s = scaled_problem(ProblemKind::PoissonSine, n, scale[k]);
        const SolveResult r = HPCLAB_CALL([&] { return solve(s, m, w, 1e-11, 10, 1000000); }, s.u);
        ASSERT_TRUE(r.converged) << "method " << static_cast<int>(m);
        ASSERT_EQ(s.u.size(), ref.u.size());
        double worst = 0;
        for (std::size_t i = 0; i < s.u.size(); ++i) worst = hpclab::nan_max(worst, std::fabs(s.u[i] - ref.u[i]));
        EXPECT_LT(worst, 1e-10) << "method " << static_cast<int>(m) << ", scale " << scale[k];
    }
}

TEST(Cpu, IterationCountsGrowLinearlyForSorAndQuadraticallyForJacobi) {
    // Theory: Jacobi needs O(n^2) sweeps, SOR with omega_opt O(n). A count is
    // the solver's own account of its run, so each must leave the grid the
    // method's reference leaves after exactly that many sweeps, bit for bit,
    // and be the reference's count: the judge confirms it from the grid.
    auto sweeps = [](Method m, int n) {
        Strip s = make_problem(ProblemKind::LaplaceHarmonic, n);
        const double w = 2.0 / (1.0 + std::sin(kPi / (n + 1)));  // omega_opt(n), tested above
        const SolveResult r = HPCLAB_CALL([&] { return solve(s, m, w, 1e-8, 1, 1000000); }, s.u);
        Strip want = make_problem(ProblemKind::LaplaceHarmonic, n);
        const SolveResult ref = reference_method_solve(want, m, w, 1e-8, 1, 1000000);
        EXPECT_TRUE(r.converged);
        EXPECT_EQ(r.iterations, ref.iterations) << "method " << static_cast<int>(m) << ", n = " << n;
        EXPECT_TRUE(same_bits(s.u, want.u, want.width()))
            << "method " << static_cast<int>(m) << ", n = " << n << ": not the grid of " << ref.iterations << " sweeps";
        return static_cast<double>(r.iterations);
    };
    const double jacobi16 = sweeps(Method::Jacobi, 16), jacobi32 = sweeps(Method::Jacobi, 32);
    const double sor32 = sweeps(Method::RedBlackSor, 32), sor64 = sweeps(Method::RedBlackSor, 64);
    const double jacobi = jacobi32 / jacobi16;
    const double sor = sor64 / sor32;
    EXPECT_GT(jacobi, 3.2) << "Jacobi: doubling n should about quadruple the sweeps";
    EXPECT_LT(jacobi, 4.8);
    EXPECT_GT(sor, 1.5) << "SOR(omega_opt): doubling n should about double the sweeps";
    EXPECT_LT(sor, 2.6);
    EXPECT_GT(jacobi32, 10 * sor32);
}

TEST(Cpu, StoppingRuleRunsBlocksOfCheckEverySweeps) {
    // A residual that halves with every sweep: r = 2^-done. The callbacks run
    // where the call runs: what they see (the blocks asked for, the sweeps
    // done) is an output of the judged call, recorded with its result.
    long done = 0;
    std::vector<long> blocks;
    auto sweeps = [&](long k) {
        blocks.push_back(k);
        done += k;
    };
    auto residual = [&] { return std::ldexp(1.0, static_cast<int>(-done)); };
    // tol 0: never converges
    SolveResult r = HPCLAB_CALL([&] { return iterate_to_tolerance(sweeps, residual, 0.0, 3, 10); }, blocks, done);
    EXPECT_EQ(blocks, (std::vector<long>{3, 3, 3, 1}));
    EXPECT_EQ(r.iterations, 10);
    EXPECT_FALSE(r.converged);
    EXPECT_EQ(r.residual0, 1.0);
    EXPECT_EQ(r.residual, std::ldexp(1.0, -10));
    done = 0;
    blocks.clear();
    // 2^-6 <= 2^-5 after 6 sweeps
    r = HPCLAB_CALL([&] { return iterate_to_tolerance(sweeps, residual, std::ldexp(1.0, -5), 2, 100); }, blocks, done);
    EXPECT_TRUE(r.converged);
    EXPECT_EQ(r.iterations, 6);
    EXPECT_EQ(blocks, (std::vector<long>{2, 2, 2}));
    blocks.clear();
    r = HPCLAB_CALL(
        [&] {
            return iterate_to_tolerance(
                sweeps, [] { return 0.0; }, 1e-9, 2, 100);
        },
        blocks, done);
    EXPECT_TRUE(r.converged);
    EXPECT_EQ(r.iterations, 0);
    EXPECT_TRUE(blocks.empty());
    EXPECT_THROW(HPCLAB_VALUE(iterate_to_tolerance(sweeps, residual, 1e-9, 0, 10)), std::invalid_argument);
    EXPECT_THROW(HPCLAB_VALUE(iterate_to_tolerance(sweeps, residual, 1e-9, 1, -1)), std::invalid_argument);
    EXPECT_THROW(HPCLAB_VALUE(iterate_to_tolerance(sweeps, residual, std::nan(""), 1, 10)), std::invalid_argument);
}

TEST(Cpu, StoppingTestIsCheckedEveryMSweeps) {
    const double w = 2.0 / (1.0 + std::sin(kPi / 25));  // omega_opt(24)
    Strip s = make_problem(ProblemKind::PoissonSine, 24);
    const SolveResult r = HPCLAB_CALL([&] { return solve(s, Method::RedBlackSor, w, 1e-9, 7, 100000); }, s.u);
    ASSERT_TRUE(r.converged);
    ASSERT_EQ(s.u.size(), make_problem(ProblemKind::PoissonSine, 24).u.size());
    // The counts are the solver's account: each grid must be the reference's
    // after exactly the reference's count (the judge's own, from the grid).
    Strip want = make_problem(ProblemKind::PoissonSine, 24);
    const SolveResult ref = reference_solve(want, w, 1e-9, 7, 100000);
    EXPECT_EQ(r.iterations, ref.iterations);
    EXPECT_TRUE(same_bits(s.u, want.u, want.width())) << "not the grid of " << ref.iterations << " sweeps";
    EXPECT_EQ(r.iterations % 7, 0);
    EXPECT_LE(r.residual, 1e-9 * r.residual0);
    EXPECT_DOUBLE_EQ(r.residual, reference_residual_norm(s));
    // One check earlier it had not converged yet.
    Strip t = make_problem(ProblemKind::PoissonSine, 24);
    const SolveResult shorter =
        HPCLAB_CALL([&] { return solve(t, Method::RedBlackSor, w, 1e-9, 7, ref.iterations - 7); }, t.u);
    Strip want_t = make_problem(ProblemKind::PoissonSine, 24);
    reference_solve(want_t, w, 1e-9, 7, ref.iterations - 7);
    EXPECT_TRUE(same_bits(t.u, want_t.u, want_t.width())) << "not the grid of " << ref.iterations - 7 << " sweeps";
    EXPECT_FALSE(shorter.converged);
    EXPECT_EQ(shorter.iterations, ref.iterations - 7);
    EXPECT_THROW(HPCLAB_VALUE(solve(t, Method::Sor, 1.5, 1e-9, 0, 10)), std::invalid_argument);
    EXPECT_THROW(HPCLAB_VALUE(solve(t, Method::Sor, 1.5, -1.0, 1, 10)), std::invalid_argument);
}

// ---- stage 2: MPI strips -----------------------------------------------------------

TEST(Mpi, StripRowsCoverTheGridEvenly) {
    for (int n = 1; n <= 30; ++n)
        for (int p = 1; p <= std::min(n, 7); ++p) {
            // One judged call for the p parts of n rows.
            const std::vector<RowRange> parts = HPCLAB_CALL([&] {
                std::vector<RowRange> out;
                for (int r = 0; r < p; ++r) out.push_back(strip_rows(n, p, r));
                return out;
            });
            ASSERT_EQ(parts.size(), static_cast<std::size_t>(p));
            int next = 1, smallest = n, largest = 0;
            for (int r = 0; r < p; ++r) {
                const RowRange rr = parts[static_cast<std::size_t>(r)];
                ASSERT_EQ(rr.first, next) << "n " << n << " p " << p << " r " << r;
                next += rr.rows;
                smallest = std::min(smallest, rr.rows);
                largest = std::max(largest, rr.rows);
            }
            EXPECT_EQ(next, n + 1);
            EXPECT_LE(largest - smallest, 1);
            EXPECT_GE(smallest, 1);
        }
    EXPECT_THROW(HPCLAB_VALUE(strip_rows(3, 4, 0)), std::invalid_argument);
    EXPECT_THROW(HPCLAB_VALUE(strip_rows(10, 2, 2)), std::invalid_argument);
}

TEST(Mpi, CartesianNeighboursEndAtTheBoundary) {
    const StripComm sc = HPCLAB_VALUE(make_strip_comm(40, MPI_COMM_WORLD));
    const int r = strip_rank(sc), p = strip_size(sc);
    EXPECT_EQ(p, hpclab::mpi::size());
    EXPECT_EQ(sc.up(), r == 0 ? MPI_PROC_NULL : r - 1);
    EXPECT_EQ(sc.down(), r == p - 1 ? MPI_PROC_NULL : r + 1);
    const RowRange want = HPCLAB_VALUE(strip_rows(40, p, r));
    EXPECT_EQ(sc.range().first, want.first);
    EXPECT_EQ(sc.range().rows, want.rows);
}

TEST(Mpi, RefusesAGridSmallerThanTheRankCount) {
    const int p = hpclab::mpi::size();
    EXPECT_THROW(HPCLAB_VALUE(make_strip_comm(p - 1, MPI_COMM_WORLD)), std::invalid_argument);
    EXPECT_NO_THROW(HPCLAB_VALUE(make_strip_comm(p, MPI_COMM_WORLD)));  // one row each is fine
}

TEST(Mpi, HaloRowsComeFromTheNeighbours) {
    const int n = 13;
    const StripComm sc = HPCLAB_VALUE(make_strip_comm(n, MPI_COMM_WORLD));
    Strip s = random_start(ProblemKind::PoissonSine, n, sc.range().first, sc.range().rows, 5);
    const Strip full = random_start(ProblemKind::PoissonSine, n, 1, n, 5);
    // Spoil the halos (not the global boundary) so that only an exchange repairs them.
    for (int j = 0; j < s.width(); ++j) {
        if (sc.up() != MPI_PROC_NULL) s.at(0, j) = -99;
        if (sc.down() != MPI_PROC_NULL) s.at(s.rows + 1, j) = -99;
    }
    const std::size_t size = s.u.size();
    HPCLAB_CALL([&] { exchange_halos(sc, s); }, s.u);
    ASSERT_EQ(s.u.size(), size);
    for (int li : {0, s.rows + 1}) {
        const int i = s.global_row(li);
        for (int j = 0; j < s.width(); ++j)
            ASSERT_EQ(s.at(li, j), full.at(i, j))
                << "rank " << hpclab::mpi::rank() << ", global row " << i << ", column " << j;
    }
}

TEST(Mpi, StripsAreBitwiseEqualToSerial) {
    for (ProblemKind kind : {ProblemKind::PoissonSine, ProblemKind::LaplaceHarmonic})
        for (int n : {17, 20}) {
            const StripComm sc = HPCLAB_VALUE(make_strip_comm(n, MPI_COMM_WORLD));
            Strip serial = random_start(kind, n);
            Strip mine = random_start(kind, n, sc.range().first, sc.range().rows);
            reference_sweeps(serial, 1.8, 9);
            lab11_test::judged_strip_sweeps(sc, mine, 1.8, 9);
            EXPECT_TRUE(gathered_strips_equal(mine, serial)) << "n = " << n;
        }
}

TEST(Mpi, ResidualDoesNotDependOnTheRankCount) {
    const int n = 23;
    const StripComm sc = HPCLAB_VALUE(make_strip_comm(n, MPI_COMM_WORLD));
    const Strip serial = random_start(ProblemKind::PoissonSine, n);
    Strip mine = random_start(ProblemKind::PoissonSine, n, sc.range().first, sc.range().rows);
    HPCLAB_CALL([&] { exchange_halos(sc, mine); }, mine.u);
    EXPECT_EQ(HPCLAB_VALUE(mpi_residual_norm(sc, mine)), reference_residual_norm(serial));  // the same bits
}

TEST(Mpi, SolveMatchesSerialSolve) {
    const int n = 26;
    const StripComm sc = HPCLAB_VALUE(make_strip_comm(n, MPI_COMM_WORLD));
    const double w = HPCLAB_VALUE(omega_opt(n));
    Strip serial = make_problem(ProblemKind::LaplaceHarmonic, n);
    Strip mine = make_problem(ProblemKind::LaplaceHarmonic, n, sc.range().first, sc.range().rows);
    const SolveResult want = reference_solve(serial, w, 1e-12, 4, 100000);
    const std::size_t size = mine.u.size();
    const SolveResult got = HPCLAB_CALL([&] { return mpi_solve(sc, mine, w, 1e-12, 4, 100000); }, mine.u);
    ASSERT_TRUE(same_size_on_every_rank(mine.u.size(), size));
    EXPECT_TRUE(got.converged);
    EXPECT_EQ(got.iterations, want.iterations);
    EXPECT_EQ(got.residual, want.residual);
    EXPECT_LT(max_error(ProblemKind::LaplaceHarmonic, mine), 1e-11);
    EXPECT_TRUE(gathered_strips_equal(mine, serial));
}

// ---- stage 2c: wide halos ---------------------------------------------------------

TEST(Wide, GhostRowsComeFromTheNeighbours) {
    const int n = 23, depth = 4;
    const StripComm sc = HPCLAB_VALUE(make_strip_comm(n, MPI_COMM_WORLD));
    // wide_rows is given, but asks the communicator's size, which only the
    // recording process has: judged.
    const RowRange wr = HPCLAB_VALUE(wide_rows(sc, depth));
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
    const std::size_t size = wide.u.size();
    HPCLAB_CALL([&] { exchange_wide_halos(sc, wide, depth); }, wide.u);
    ASSERT_EQ(wide.u.size(), size);
    for (int li = 0; li < wide.rows + 2; ++li) {
        const int i = wide.global_row(li);
        if (li == 0 && i > 0) continue;                  // unused ring row above the ghosts
        if (li == wide.rows + 1 && i < n + 1) continue;  // and below
        for (int j = 0; j < wide.width(); ++j)
            ASSERT_EQ(wide.at(li, j), full.at(i, j))
                << "rank " << hpclab::mpi::rank() << ", global row " << i << ", column " << j;
    }
}

TEST(Wide, BitwiseEqualToSerialForEverySweepsPerExchange) {
    const int n = 27;  // 4 ranks: strips of 6 or 7 rows, enough for bs = 3 (6 ghost rows)
    for (int bs : {1, 2, 3})
        for (long sweeps : {1L, 7L}) {
            // A start of its own for each case: the same sweeps with another bs
            // must not find their answer already made.
            const std::uint64_t seed = 100 + 10 * static_cast<std::uint64_t>(bs) + static_cast<std::uint64_t>(sweeps);
            const StripComm sc = HPCLAB_VALUE(make_strip_comm(n, MPI_COMM_WORLD));
            Strip serial = random_start(ProblemKind::PoissonSine, n, 1, n, seed);
            const RowRange wr = HPCLAB_VALUE(wide_rows(sc, wide_halo_depth(bs)));
            Strip wide = random_start(ProblemKind::PoissonSine, n, wr.first, wr.rows, seed);
            reference_sweeps(serial, 1.8, sweeps);
            const std::size_t size = wide.u.size();
            HPCLAB_CALL([&] { mpi_red_black_sweeps_wide(sc, wide, 1.8, sweeps, bs); }, wide.u);
            ASSERT_TRUE(same_size_on_every_rank(wide.u.size(), size));
            EXPECT_TRUE(gathered_strips_equal(owned_part(sc, wide), serial))
                << "bs = " << bs << ", sweeps = " << sweeps;
        }
}

TEST(Wide, RefusesHalosDeeperThanTheThinnestStrip) {
    const StripComm sc = HPCLAB_VALUE(make_strip_comm(9, MPI_COMM_WORLD));
    const int size = strip_size(sc);
    const int thinnest = 9 / size;
    EXPECT_NO_THROW(HPCLAB_VALUE(wide_rows(sc, thinnest)));
    EXPECT_THROW(HPCLAB_VALUE(wide_rows(sc, thinnest + 1)), std::invalid_argument);
    EXPECT_THROW(HPCLAB_VALUE(wide_rows(sc, 0)), std::invalid_argument);
    const RowRange wr = HPCLAB_VALUE(wide_rows(sc, 2));
    Strip wide = make_problem(ProblemKind::LaplaceHarmonic, 9, wr.first, wr.rows);
    EXPECT_THROW(HPCLAB_CALL([&] { mpi_red_black_sweeps_wide(sc, wide, 1.5, 3, 0); }), std::invalid_argument);
    // Depth 2 is bs = 1; with a neighbour, a strip built for depth 2 is the
    // wrong shape for bs = 2 (depth 4), and a plain strip for any depth.
    if (size > 1) {
        if (thinnest >= 4) {
            EXPECT_THROW(HPCLAB_CALL([&] { mpi_red_black_sweeps_wide(sc, wide, 1.5, 3, 2); }), std::invalid_argument);
        }
        Strip narrow = make_problem(ProblemKind::LaplaceHarmonic, 9, sc.range().first, sc.range().rows);
        EXPECT_THROW(HPCLAB_CALL([&] { exchange_wide_halos(sc, narrow, 2); }), std::invalid_argument);
    }
}

// ---- stage 2b: 2-D blocks ---------------------------------------------------------

TEST(Blocks, ProcessGridAndNeighbours) {
    const int p = hpclab::mpi::size();
    const BlockComm bc = HPCLAB_VALUE(make_block_comm(30, MPI_COMM_WORLD));
    EXPECT_EQ(bc.dim(0) * bc.dim(1), p);
    EXPECT_GE(bc.dim(0), bc.dim(1));  // MPI_Dims_create: non-increasing
    ASSERT_GE(bc.dim(0), 1);
    ASSERT_GE(bc.dim(1), 1);
    // The Cartesian map, as MPI gave it to the recording process: every
    // point of the dims(0) x dims(1) grid held by exactly one rank.
    const auto map = cart_map(bc, p);
    const int me = map.first;
    const std::vector<int>& at = map.second;
    ASSERT_EQ(at.size(), 2 * static_cast<std::size_t>(p));
    ASSERT_TRUE(me >= 0 && me < p) << "rank " << me << " in the block communicator";
    std::vector<int> holders(static_cast<std::size_t>(p), 0);
    for (int r = 0; r < p; ++r) {
        const int a = at[2 * static_cast<std::size_t>(r)], c = at[2 * static_cast<std::size_t>(r) + 1];
        ASSERT_TRUE(a >= 0 && a < bc.dim(0) && c >= 0 && c < bc.dim(1))
            << "rank " << r << " at (" << a << ", " << c << ") in a " << bc.dim(0) << " x " << bc.dim(1) << " grid";
        ++holders[static_cast<std::size_t>(a * bc.dim(1) + c)];
    }
    for (int h : holders) ASSERT_EQ(h, 1) << "a point of the process grid is not held by exactly one rank";
    const int coords[2] = {at[2 * static_cast<std::size_t>(me)], at[2 * static_cast<std::size_t>(me) + 1]};
    auto rank_at = [&](int a, int c) {
        if (a < 0 || c < 0 || a >= bc.dim(0) || c >= bc.dim(1)) return static_cast<int>(MPI_PROC_NULL);
        for (int r = 0; r < p; ++r)
            if (at[2 * static_cast<std::size_t>(r)] == a && at[2 * static_cast<std::size_t>(r) + 1] == c) return r;
        return -1;
    };
    EXPECT_EQ(bc.up(), rank_at(coords[0] - 1, coords[1]));
    EXPECT_EQ(bc.down(), rank_at(coords[0] + 1, coords[1]));
    EXPECT_EQ(bc.left(), rank_at(coords[0], coords[1] - 1));
    EXPECT_EQ(bc.right(), rank_at(coords[0], coords[1] + 1));
    EXPECT_EQ(bc.rows().first, HPCLAB_VALUE(strip_rows(30, bc.dim(0), coords[0])).first);
    EXPECT_EQ(bc.cols().rows, HPCLAB_VALUE(strip_rows(30, bc.dim(1), coords[1])).rows);
    const int biggest = std::max(bc.dim(0), bc.dim(1));
    EXPECT_THROW(HPCLAB_VALUE(make_block_comm(biggest - 1, MPI_COMM_WORLD)), std::invalid_argument);
}

TEST(Blocks, RowAndColumnHalosComeFromTheNeighbours) {
    const int n = 11;
    const BlockComm bc = HPCLAB_VALUE(make_block_comm(n, MPI_COMM_WORLD));
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
    const std::size_t size = b.u.size();
    HPCLAB_CALL([&] { exchange_block_halos(bc, b); }, b.u);
    ASSERT_EQ(b.u.size(), size);
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
        const BlockComm bc = HPCLAB_VALUE(make_block_comm(n, MPI_COMM_WORLD));
        Strip serial = random_start(ProblemKind::PoissonSine, n);
        Block b = cut_block(serial, bc.rows(), bc.cols());
        reference_sweeps(serial, 1.85, 9);
        ASSERT_TRUE(lab11_test::judged_block_sweeps(bc, b, 1.85, 9));
        EXPECT_TRUE(gathered_blocks_equal(b, serial)) << "n = " << n << ", blocks " << bc.dim(0) << " x " << bc.dim(1);
    }
}

// ---- stage 5: communication model ------------------------------------------

TEST(Model, LatencyBandwidthFitRecoversALine) {
    std::vector<double> bytes, t;
    for (double b = 8; b <= 8e6; b *= 4) {
        bytes.push_back(b);
        t.push_back(3.3e-6 + b / 20e9);
    }
    const LinearFit f = HPCLAB_VALUE(fit_latency_bandwidth(bytes, t));
    EXPECT_NEAR(f.startup_s, 3.3e-6, 1e-12);
    EXPECT_NEAR(f.per_byte_s, 1 / 20e9, 1e-18);
    EXPECT_NEAR(f.predict(1e6), 3.3e-6 + 1e6 / 20e9, 1e-12);
    // Relative weighting: 10% noise on the largest message must not move the
    // startup time by more than a few percent (unweighted it swings by ~1e-5 s).
    std::vector<double> noisy = t;
    noisy.back() *= 1.1;
    EXPECT_NEAR(HPCLAB_VALUE(fit_latency_bandwidth(bytes, noisy)).startup_s, 3.3e-6, 0.2e-6);
    EXPECT_THROW(HPCLAB_VALUE(fit_latency_bandwidth({8, 16}, {1e-6, 0.0})), std::invalid_argument);
    EXPECT_THROW(HPCLAB_VALUE(fit_latency_bandwidth({8}, {1e-6})), std::invalid_argument);
    EXPECT_THROW(HPCLAB_VALUE(fit_latency_bandwidth({8, 8}, {1e-6, 2e-6})), std::invalid_argument);
    EXPECT_THROW(HPCLAB_VALUE(fit_latency_bandwidth({8, 16}, {1e-6})), std::invalid_argument);
}

TEST(Model, PowerLawFitRecoversExponent) {
    std::vector<double> n, t;
    for (double x = 1e3; x <= 1e9; x *= 10) {
        n.push_back(x);
        t.push_back(2.5e-10 * std::pow(x, 0.99));
    }
    const PowerFit f = HPCLAB_VALUE(fit_power_law(n, t));
    EXPECT_NEAR(f.b, 0.99, 1e-9);
    EXPECT_NEAR(f.a, 2.5e-10, 1e-15);
    EXPECT_NEAR(f.predict(1e6) / (2.5e-10 * std::pow(1e6, 0.99)), 1.0, 1e-9);
    EXPECT_THROW(HPCLAB_VALUE(fit_power_law({1, 0}, {1, 1})), std::invalid_argument);
}
