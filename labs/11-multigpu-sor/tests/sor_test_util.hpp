// Helpers shared by the lab 11 tests: random starting grids that every rank
// can build its part of, bitwise grid comparison with a readable report,
// gathering the ranks' grids on world rank 0, reference sweeps, residuals and
// solves written from their definitions, and what the judged calls
// (hpclab/judged.hpp) need for the lab's own types.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "hpclab/check.hpp"
#include "hpclab/data.hpp"
#include "hpclab/judged.hpp"
#include "hpclab/mpi.hpp"
#include "sor.hpp"

// ---- judged communicators ---------------------------------------------------
// make_strip_comm and make_block_comm are student code, so a test calls them
// through HPCLAB_VALUE. What a test reads of their result (size, rows,
// neighbours) is recorded; in replay the object is rebuilt from those fields
// without a communicator (MPI_COMM_NULL): the judge never talks MPI on it,
// only replayed calls receive it. What needs the communicator itself (its
// rank and size, its Cartesian map) is asked in the recording process
// through a judged call (strip_rank, strip_size, cart_map below). The grids
// the ranks computed are compared on world rank 0 after a gather over
// MPI_COMM_WORLD that the test does itself (gathered_strips_equal,
// gathered_blocks_equal), so no rank number a submission reports decides
// where, or whether, the comparison happens.
template <>
struct hpclab::judged::Codec<lab11::StripComm> {
    static void encode(Writer& w, const lab11::StripComm& sc) { put(w, sc.n(), sc.range(), sc.up(), sc.down()); }
    static lab11::StripComm decode(Reader& r) {
        int n = 0, up = 0, down = 0;
        lab11::RowRange range;
        get(r, n, range, up, down);
        return lab11::StripComm(MPI_COMM_NULL, n, range, up, down);
    }
};

template <>
struct hpclab::judged::Codec<lab11::BlockComm> {
    static void encode(Writer& w, const lab11::BlockComm& bc) {
        put(w, bc.n(), bc.dim(0), bc.dim(1), bc.rows(), bc.cols(), bc.up(), bc.down(), bc.left(), bc.right());
    }
    static lab11::BlockComm decode(Reader& r) {
        int n = 0, dims[2] = {1, 1}, up = 0, down = 0, left = 0, right = 0;
        lab11::RowRange rows, cols;
        get(r, n, dims[0], dims[1], rows, cols, up, down, left, right);
        return lab11::BlockComm(MPI_COMM_NULL, n, dims, rows, cols, up, down, left, right);
    }
};

namespace lab11_test {

// This rank in the strip communicator, and its size, as the communicator the
// submission made says them in the recording process.
inline int strip_rank(const lab11::StripComm& sc) { return HPCLAB_VALUE(sc.rank()); }
inline int strip_size(const lab11::StripComm& sc) { return HPCLAB_VALUE(sc.size()); }

// The Cartesian map of a block communicator of p ranks, asked in the
// recording process: this rank, and the coordinates of every rank r at
// [2r, 2r + 1] (-1 where MPI refused the question).
inline std::pair<int, std::vector<int>> cart_map(const lab11::BlockComm& bc, int p) {
    return HPCLAB_CALL([&] {
        std::vector<int> coords(2 * static_cast<std::size_t>(p), -1);
        for (int r = 0; r < p; ++r) {
            int c[2] = {-1, -1};
            if (MPI_Cart_coords(bc.comm(), r, 2, c) == MPI_SUCCESS) {
                coords[2 * static_cast<std::size_t>(r)] = c[0];
                coords[2 * static_cast<std::size_t>(r) + 1] = c[1];
            }
        }
        return std::make_pair(hpclab::mpi::rank(bc.comm()), coords);
    });
}

// ---- grids ------------------------------------------------------------------

// Problem `kind` with the interior filled by seeded uniform values in
// [lo, hi) (boundary exact), restricted to rows [first, first + rows). The
// values depend on the global position only, so every rank's strip agrees.
inline lab11::Strip random_start(lab11::ProblemKind kind, int n, int first = 1, int rows = -1, std::uint64_t seed = 11,
                                 double lo = -1.0, double hi = 1.0) {
    if (rows < 0) rows = n;
    lab11::Strip s = lab11::make_problem(kind, n, first, rows);
    const std::vector<double> values = hpclab::uniform_doubles(static_cast<std::size_t>(n) * n, seed, lo, hi);
    for (int li = 0; li < rows + 2; ++li) {
        const int i = s.global_row(li);
        if (i < 1 || i > n) continue;
        for (int j = 1; j <= n; ++j) s.at(li, j) = values[static_cast<std::size_t>(i - 1) * n + (j - 1)];
    }
    return s;
}

// Bitwise comparison of two grids (same length); names the first differences.
inline ::testing::AssertionResult same_bits(const std::vector<double>& got, const std::vector<double>& want,
                                            int width) {
    const auto rep = hpclab::compare_arrays(got, want, hpclab::Tolerance::exact());
    if (rep.ok()) return ::testing::AssertionSuccess();
    auto out = ::testing::AssertionFailure() << rep.describe("u");
    if (!rep.first.empty() && width > 0)
        out << " (first at row " << rep.first[0].index / width << ", column " << rep.first[0].index % width << ")";
    return out;
}

// ---- gathering on world rank 0 (harness code, real MPI) -------------------------
// The grids the ranks hold after a judged call (recorded, or replayed in the
// judge) are gathered over MPI_COMM_WORLD by the test itself, in the judge as
// in the recording process, and compared on world rank 0: a submission's
// communicator, and the rank numbers it reports, play no part. Every point
// must come from exactly one rank.

// Collective over MPI_COMM_WORLD: has the grid kept its size on every rank?
// Assert on this, not on the local size alone, before a gather: a rank that
// left the test early would leave the others waiting in the collective.
inline ::testing::AssertionResult same_size_on_every_rank(std::size_t got, std::size_t want) {
    int here = got == want ? 1 : 0, everywhere = 0;
    HPCLAB_MPI_CHECK(MPI_Allreduce(&here, &everywhere, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    if (everywhere) return ::testing::AssertionSuccess();
    if (!here) return ::testing::AssertionFailure() << "the grid has " << got << " values instead of " << want;
    return ::testing::AssertionFailure() << "the grid of another rank changed size";
}

// `sweeps` MPI red-black sweeps of this rank's strip, as one judged call
// (its output: mine.u).
inline void judged_strip_sweeps(const lab11::StripComm& sc, lab11::Strip& mine, double omega, int sweeps) {
    HPCLAB_CALL(
        [&] {
            for (int k = 0; k < sweeps; ++k) lab11::mpi_red_black_sweep(sc, mine, omega);
        },
        mine.u);
}

// `sweeps` MPI red-black sweeps of this rank's block, as one judged call (its
// output: b.u); then, collectively, whether every rank's block kept its size.
inline ::testing::AssertionResult judged_block_sweeps(const lab11::BlockComm& bc, lab11::Block& b, double omega,
                                                      int sweeps) {
    const std::size_t size = b.u.size();
    HPCLAB_CALL(
        [&] {
            for (int k = 0; k < sweeps; ++k) lab11::mpi_block_red_black_sweep(bc, b, omega);
        },
        b.u);
    return same_size_on_every_rank(b.u.size(), size);
}

// A rank's part of the (n+2) x (n+2) grid: global rows [row, row + rows) x
// columns [col, col + cols), row-major; ok = 0 when the rank's grid does not
// have the shape the test built it with (then it sends no values).
struct Piece {
    int ok = 0, row = 0, rows = 0, col = 0, cols = 0;
};

// Collective over MPI_COMM_WORLD: every rank's piece to rank 0, placed in an
// (n+2) x (n+2) grid, where every point of rows and columns [lo, hi) must be
// held by exactly one rank and equal the whole serial grid `want` bit for
// bit. Success on the other ranks (the MPI test main fails a test on every
// rank when it failed on one).
inline ::testing::AssertionResult gather_and_compare(Piece piece, const std::vector<double>& values,
                                                     const lab11::Strip& want, int lo, int hi) {
    static_assert(sizeof(Piece) == 5 * sizeof(int), "a Piece travels as 5 ints");
    const int w = want.n + 2;
    piece.ok = piece.ok && piece.row >= 0 && piece.rows >= 0 && piece.row + piece.rows <= w && piece.col >= 0 &&
               piece.cols >= 0 && piece.col + piece.cols <= w &&
               values.size() == static_cast<std::size_t>(piece.rows) * static_cast<std::size_t>(piece.cols);
    const int p = hpclab::mpi::size(), me = hpclab::mpi::rank();
    std::vector<Piece> pieces(me == 0 ? static_cast<std::size_t>(p) : 0);
    HPCLAB_MPI_CHECK(MPI_Gather(&piece, 5, MPI_INT, pieces.data(), 5, MPI_INT, 0, MPI_COMM_WORLD));
    std::vector<int> counts(pieces.size()), displs(pieces.size());
    int total = 0;
    for (std::size_t r = 0; r < pieces.size(); ++r) {
        counts[r] = pieces[r].ok ? pieces[r].rows * pieces[r].cols : 0;
        displs[r] = total;
        total += counts[r];
    }
    std::vector<double> all(static_cast<std::size_t>(total));
    HPCLAB_MPI_CHECK(MPI_Gatherv(values.data(), piece.ok ? static_cast<int>(values.size()) : 0, MPI_DOUBLE, all.data(),
                                 counts.data(), displs.data(), MPI_DOUBLE, 0, MPI_COMM_WORLD));
    if (!piece.ok) return ::testing::AssertionFailure() << "this rank's grid does not have the shape it was given";
    if (me != 0) return ::testing::AssertionSuccess();
    const std::size_t width = static_cast<std::size_t>(w);
    std::vector<double> grid(width * width, 0.0);
    std::vector<int> held(width * width, 0);
    for (std::size_t r = 0; r < pieces.size(); ++r) {
        const Piece& q = pieces[r];
        if (!q.ok) return ::testing::AssertionFailure() << "world rank " << r << " sent no grid (a wrong shape)";
        for (int a = 0; a < q.rows; ++a)
            for (int c = 0; c < q.cols; ++c) {
                const std::size_t at =
                    static_cast<std::size_t>(q.row + a) * width + static_cast<std::size_t>(q.col + c);
                grid[at] = all[static_cast<std::size_t>(displs[r]) + static_cast<std::size_t>(a * q.cols + c)];
                ++held[at];
            }
    }
    std::vector<double> got, expected;
    for (int i = lo; i < hi; ++i)
        for (int j = lo; j < hi; ++j) {
            const std::size_t at = static_cast<std::size_t>(i) * width + static_cast<std::size_t>(j);
            if (held[at] != 1)
                return ::testing::AssertionFailure()
                       << "global point (" << i << ", " << j << ") is held by " << held[at] << " ranks, not one";
            got.push_back(grid[at]);
            expected.push_back(want.u[at]);
        }
    return same_bits(got, expected, hi - lo);
}

// The whole (n+2) x (n+2) grid of the ranks' strips (owned rows, and the
// global boundary row 0 or n+1 from the strip next to it), compared on world
// rank 0 with the whole serial grid `want`, bit for bit.
inline ::testing::AssertionResult gathered_strips_equal(const lab11::Strip& mine, const lab11::Strip& want) {
    const int n = want.n;
    Piece piece;
    std::vector<double> values;
    if (mine.n == n && mine.rows >= 1 && mine.first_row >= 1 && mine.first_row + mine.rows <= n + 1 &&
        mine.u.size() == mine.index(mine.rows + 2, 0)) {
        // Local rows [top, end): the owned ones, and the boundary row where the strip reaches it.
        const int top = mine.first_row == 1 ? 0 : 1;
        const int end = mine.first_row + mine.rows == n + 1 ? mine.rows + 2 : mine.rows + 1;
        piece = Piece{1, mine.global_row(top), end - top, 0, n + 2};
        values.assign(mine.u.begin() + static_cast<std::ptrdiff_t>(mine.index(top, 0)),
                      mine.u.begin() + static_cast<std::ptrdiff_t>(mine.index(end, 0)));
    }
    return gather_and_compare(piece, values, want, 0, n + 2);
}

// The n x n interior of the ranks' blocks (owned points), compared on world
// rank 0 with the interior of the whole serial grid `want`, bit for bit.
inline ::testing::AssertionResult gathered_blocks_equal(const lab11::Block& mine, const lab11::Strip& want) {
    const int n = want.n;
    Piece piece;
    std::vector<double> values;
    if (mine.n == n && mine.rows >= 1 && mine.cols >= 1 && mine.first_row >= 1 && mine.first_col >= 1 &&
        mine.first_row + mine.rows <= n + 1 && mine.first_col + mine.cols <= n + 1 &&
        mine.u.size() == mine.index(mine.rows + 2, 0)) {
        piece = Piece{1, mine.first_row, mine.rows, mine.first_col, mine.cols};
        for (int li = 1; li <= mine.rows; ++li)
            for (int lj = 1; lj <= mine.cols; ++lj) values.push_back(mine.at(li, lj));
    }
    return gather_and_compare(piece, values, want, 1, n + 1);
}

// ---- references (harness code) ----------------------------------------------
// The expected grids, residuals and iteration counts of the bitwise
// comparisons come from these, written from the definitions in sor.hpp, not
// from the student's serial functions: the judge computes them itself, and
// no student call is handed an input whose answer another student call of
// the same test has already produced.

// Every point of `colour` (global (i + j) % 2) of a strip or a block, with
// sor_update; the order within a colour does not change the bits.
template <class Grid>
void reference_colour(Grid& g, int colour, double omega) {
    const int cols = g.width() - 2;
    for (int li = 1; li <= g.rows; ++li)
        for (int lj = 1; lj <= cols; ++lj)
            if (((g.global_row(li) + g.global_col(lj)) & 1) == colour)
                g.at(li, lj) = lab11::sor_update(g.at(li, lj), g.at(li, lj - 1), g.at(li, lj + 1), g.at(li - 1, lj),
                                                 g.at(li + 1, lj), g.b(li, lj), omega);
}

// `sweeps` red-black sweeps: red, then black.
template <class Grid>
void reference_sweeps(Grid& g, double omega, long sweeps) {
    for (long k = 0; k < sweeps; ++k) {
        reference_colour(g, 0, omega);
        reference_colour(g, 1, omega);
    }
}

// sqrt of the row sums of r^2 (each left to right) added in row order.
inline double reference_residual_norm(const lab11::Strip& s) {
    double total = 0;
    for (int li = 1; li <= s.rows; ++li) {
        double row = 0;
        for (int j = 1; j <= s.n; ++j) {
            const double r = lab11::residual_at(s.at(li, j), s.at(li, j - 1), s.at(li, j + 1), s.at(li - 1, j),
                                                s.at(li + 1, j), s.b(li, j));
            row += r * r;
        }
        total += row;
    }
    return std::sqrt(total);
}

// One sweep of `method` over a whole grid (a strip of every row), as
// sor.hpp defines it: Jacobi from the old values only, Gauss-Seidel and SOR
// in lexicographic order (Gauss-Seidel with omega 1), red-black by colour.
inline void reference_method_sweep(lab11::Strip& s, lab11::Method method, double omega) {
    if (method == lab11::Method::RedBlackSor) return reference_sweeps(s, omega, 1);
    const lab11::Strip old = s;
    const bool jacobi = method == lab11::Method::Jacobi;
    const double w = method == lab11::Method::Sor ? omega : 1.0;
    const lab11::Strip& from = jacobi ? old : s;
    for (int i = 1; i <= s.rows; ++i)
        for (int j = 1; j <= s.n; ++j)
            s.at(i, j) = lab11::sor_update(from.at(i, j), from.at(i, j - 1), from.at(i, j + 1), from.at(i - 1, j),
                                           from.at(i + 1, j), s.b(i, j), w);
}

// solve(s, method, ...) by the stopping rule of iterate_to_tolerance: the
// count a solver reports is only as good as the grid it leaves, which the
// tests compare bit for bit with this one's.
inline lab11::SolveResult reference_method_solve(lab11::Strip& s, lab11::Method method, double omega, double tol,
                                                 int check_every, long max_iters) {
    lab11::SolveResult r;
    r.residual0 = reference_residual_norm(s);
    r.residual = r.residual0;
    if (r.residual0 == 0) {
        r.converged = true;
        return r;
    }
    while (r.iterations < max_iters) {
        const long block = std::min<long>(check_every, max_iters - r.iterations);
        for (long k = 0; k < block; ++k) reference_method_sweep(s, method, omega);
        r.iterations += block;
        r.residual = reference_residual_norm(s);
        if (r.residual <= tol * r.residual0) {
            r.converged = true;
            break;
        }
    }
    return r;
}

// solve(s, RedBlackSor, ...) by the stopping rule of iterate_to_tolerance.
inline lab11::SolveResult reference_solve(lab11::Strip& s, double omega, double tol, int check_every, long max_iters) {
    return reference_method_solve(s, lab11::Method::RedBlackSor, omega, tol, check_every, max_iters);
}

}  // namespace lab11_test
