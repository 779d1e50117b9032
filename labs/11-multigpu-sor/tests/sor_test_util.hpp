// Helpers shared by the lab 11 tests: random starting grids that every rank
// can build its part of, bitwise grid comparison with a readable report,
// reference sweeps, residuals and solves written from their definitions, and
// what the judged calls (hpclab/judged.hpp) need for the lab's own types.
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
// rank, its Cartesian map) is asked in the recording process through a
// judged call (strip_rank, cart_rank, cart_map below).
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

// This rank in the strip communicator (StripComm::rank is defined in a
// student file) and in a block communicator, recorded.
inline int strip_rank(const lab11::StripComm& sc) { return HPCLAB_VALUE(sc.rank()); }
inline int strip_size(const lab11::StripComm& sc) { return HPCLAB_VALUE(sc.size()); }
inline int cart_rank(const lab11::BlockComm& bc) { return HPCLAB_VALUE(hpclab::mpi::rank(bc.comm())); }

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

// Problem `kind` with the interior filled by seeded uniform values in [-1, 1)
// (boundary exact), restricted to rows [first, first + rows). The values
// depend on the global position only, so every rank's strip agrees.
inline lab11::Strip random_start(lab11::ProblemKind kind, int n, int first = 1, int rows = -1,
                                 std::uint64_t seed = 11) {
    if (rows < 0) rows = n;
    lab11::Strip s = lab11::make_problem(kind, n, first, rows);
    const std::vector<double> values = hpclab::uniform_doubles(static_cast<std::size_t>(n) * n, seed, -1.0, 1.0);
    for (int li = 0; li < rows + 2; ++li) {
        const int i = s.global_row(li);
        if (i < 1 || i > n) continue;
        for (int j = 1; j <= n; ++j) s.at(li, j) = values[static_cast<std::size_t>(i - 1) * n + (j - 1)];
    }
    return s;
}

// The n x n interior of a whole-grid strip, row-major (what
// gather_block_interior returns).
inline std::vector<double> interior_of(const lab11::Strip& s) {
    std::vector<double> out;
    for (int i = 1; i <= s.n; ++i)
        for (int j = 1; j <= s.n; ++j) out.push_back(s.at(i, j));
    return out;
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

// solve(s, RedBlackSor, ...) by the stopping rule of iterate_to_tolerance.
inline lab11::SolveResult reference_solve(lab11::Strip& s, double omega, double tol, int check_every,
                                          long max_iters) {
    lab11::SolveResult r;
    r.residual0 = reference_residual_norm(s);
    r.residual = r.residual0;
    if (r.residual0 == 0) {
        r.converged = true;
        return r;
    }
    while (r.iterations < max_iters) {
        const long block = std::min<long>(check_every, max_iters - r.iterations);
        reference_sweeps(s, omega, block);
        r.iterations += block;
        r.residual = reference_residual_norm(s);
        if (r.residual <= tol * r.residual0) {
            r.converged = true;
            break;
        }
    }
    return r;
}

}  // namespace lab11_test
