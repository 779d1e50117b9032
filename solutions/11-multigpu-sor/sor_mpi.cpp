// Lab 11, stages 2, 2b and 2c: 1-D strip decomposition with MPI_Cart_create,
// halo rows by MPI_Sendrecv, red-black SOR across ranks, a
// decomposition-independent residual, wide halos, and 2-D blocks.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "hpclab/mpi.hpp"
#include "sor.hpp"

namespace lab11 {

namespace {
// Below this many points an OpenMP region costs more than it saves.
constexpr long kParallelPoints = 1L << 16;
}  // namespace

RowRange strip_rows(int n, int parts, int index) {
    if (parts < 1 || index < 0 || index >= parts)
        throw std::invalid_argument("strip_rows: part " + std::to_string(index) + " of " + std::to_string(parts));
    if (n < parts)
        throw std::invalid_argument("a grid of " + std::to_string(n) + " rows cannot be split over " +
                                    std::to_string(parts) + " ranks (each needs at least one row)");
    const int base = n / parts, extra = n % parts;
    RowRange r;
    r.rows = base + (index < extra ? 1 : 0);
    r.first = 1 + index * base + std::min(index, extra);
    return r;
}

StripComm make_strip_comm(int n, MPI_Comm comm) {
    const int size = hpclab::mpi::size(comm);
    // Every rank sees the same n and size, so every rank throws together:
    // nobody is left waiting in MPI_Cart_create.
    if (n < size) strip_rows(n, size, 0);
    int dims[1] = {size};
    int periods[1] = {0};  // not periodic: the outer strips have no neighbour
    MPI_Comm cart = MPI_COMM_NULL;
    HPCLAB_MPI_CHECK(MPI_Cart_create(comm, 1, dims, periods, 0, &cart));
    MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
    int up = MPI_PROC_NULL, down = MPI_PROC_NULL;
    HPCLAB_MPI_CHECK(MPI_Cart_shift(cart, 0, 1, &up, &down));
    const int rank = hpclab::mpi::rank(cart);
    return StripComm(cart, n, strip_rows(n, size, rank), up, down);
}

void exchange_rows(const StripComm& sc, const double* send_top, const double* send_bottom, double* recv_top,
                   double* recv_bottom, int count) {
    // Two shifts: everyone sends up and receives from below, then the other
    // way. MPI_Sendrecv cannot deadlock, and MPI_PROC_NULL ends the chain.
    HPCLAB_MPI_CHECK(MPI_Sendrecv(send_top, count, MPI_DOUBLE, sc.up(), 0, recv_bottom, count, MPI_DOUBLE, sc.down(), 0,
                                  sc.comm(), MPI_STATUS_IGNORE));
    HPCLAB_MPI_CHECK(MPI_Sendrecv(send_bottom, count, MPI_DOUBLE, sc.down(), 1, recv_top, count, MPI_DOUBLE, sc.up(), 1,
                                  sc.comm(), MPI_STATUS_IGNORE));
}

void exchange_halos(const StripComm& sc, Strip& s) {
    const int w = s.width();
    exchange_rows(sc, &s.u[s.index(1, 0)], &s.u[s.index(s.rows, 0)], &s.u[s.index(0, 0)], &s.u[s.index(s.rows + 1, 0)],
                  w);
}

void mpi_red_black_sweep(const StripComm& sc, Strip& s, double omega) {
    // Red reads black halo values, black reads red ones: refresh the halos
    // before each colour, so every point sees exactly what it would see serially.
    exchange_halos(sc, s);
    red_black_colour(s, 0, omega);
    exchange_halos(sc, s);
    red_black_colour(s, 1, omega);
}

double mpi_residual_norm(const StripComm& sc, const Strip& s) {
    const std::vector<double> mine = residual_row_sums(s);
    const int size = sc.size();
    std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) {
        const RowRange rr = strip_rows(sc.n(), size, r);
        counts[static_cast<std::size_t>(r)] = rr.rows;
        displs[static_cast<std::size_t>(r)] = rr.first - 1;
    }
    std::vector<double> all(sc.rank() == 0 ? static_cast<std::size_t>(sc.n()) : 0);
    HPCLAB_MPI_CHECK(MPI_Gatherv(mine.data(), s.rows, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE,
                                 0, sc.comm()));
    double total = 0;
    if (sc.rank() == 0)
        for (double row : all) total += row;  // the serial order: row 1, 2, ..., n
    HPCLAB_MPI_CHECK(MPI_Bcast(&total, 1, MPI_DOUBLE, 0, sc.comm()));
    return std::sqrt(total);
}

SolveResult mpi_solve(const StripComm& sc, Strip& s, double omega, double tol, int check_every, long max_iters) {
    return iterate_to_tolerance(
        [&](long sweeps) {
            for (long k = 0; k < sweeps; ++k) mpi_red_black_sweep(sc, s, omega);
        },
        [&] {
            exchange_halos(sc, s);            // the residual reads the halo rows: bring them up to date
            return mpi_residual_norm(sc, s);  // the same value on every rank
        },
        tol, check_every, max_iters);
}

namespace {

// Ghost rows on each side of a wide strip: `depth` where there is a neighbour.
int ghosts_above(const StripComm& sc, int depth) { return sc.up() == MPI_PROC_NULL ? 0 : depth; }
int ghosts_below(const StripComm& sc, int depth) { return sc.down() == MPI_PROC_NULL ? 0 : depth; }

void require_wide_shape(const StripComm& sc, const Strip& wide, int depth) {
    const RowRange r = wide_rows(sc, depth);
    if (wide.n != sc.n() || wide.first_row != r.first || wide.rows != r.rows)
        throw std::invalid_argument("wide halos: the strip holds rows [" + std::to_string(wide.first_row) + ", " +
                                    std::to_string(wide.first_row + wide.rows) + "), wide_rows(depth " +
                                    std::to_string(depth) + ") says [" + std::to_string(r.first) + ", " +
                                    std::to_string(r.first + r.rows) + ")");
}

}  // namespace

void exchange_wide_halos(const StripComm& sc, Strip& wide, int depth) {
    require_wide_shape(sc, wide, depth);
    // Local rows: 1..above are ghosts, then the owned rows, then the ghosts
    // below. Both blocks of `depth` rows are contiguous: one message each way.
    const int owned_first = 1 + ghosts_above(sc, depth);
    const int owned_last = owned_first + sc.range().rows - 1;
    exchange_rows(sc, &wide.at(owned_first, 0), &wide.at(owned_last - depth + 1, 0), &wide.at(1, 0),
                  &wide.at(owned_last + 1, 0), depth * wide.width());
}

void mpi_red_black_sweeps_wide(const StripComm& sc, Strip& wide, double omega, long sweeps, int sweeps_per_exchange) {
    if (sweeps_per_exchange < 1 || sweeps < 0)
        throw std::invalid_argument("wide halos: need sweeps >= 0 and sweeps per exchange >= 1, got " +
                                    std::to_string(sweeps) + " and " + std::to_string(sweeps_per_exchange));
    const int depth = wide_halo_depth(sweeps_per_exchange);
    require_wide_shape(sc, wide, depth);
    const bool above = ghosts_above(sc, depth) > 0, below = ghosts_below(sc, depth) > 0;
    for (long done = 0; done < sweeps;) {
        const long block = std::min<long>(sweeps_per_exchange, sweeps - done);
        exchange_wide_halos(sc, wide, depth);
        // Right after the exchange every ghost row is exact. Colour step t may
        // update ghost rows up to distance depth - 1 - t from the owned rows:
        // the outermost t + 1 ghost rows of each side are left alone.
        for (int step = 0; step < 2 * block; ++step) {
            const int skip_top = above ? step + 1 : 0, skip_bottom = below ? step + 1 : 0;
            red_black_colour_rows(wide, step % 2, omega, 1 + skip_top, wide.rows + 1 - skip_bottom);
        }
        done += block;
    }
}

BlockComm make_block_comm(int n, MPI_Comm comm) {
    const int size = hpclab::mpi::size(comm);
    int dims[2] = {0, 0};
    HPCLAB_MPI_CHECK(MPI_Dims_create(size, 2, dims));
    // Same n and dims on every rank: all throw together, before any collective.
    strip_rows(n, dims[0], 0);
    strip_rows(n, dims[1], 0);
    int periods[2] = {0, 0};
    MPI_Comm cart = MPI_COMM_NULL;
    HPCLAB_MPI_CHECK(MPI_Cart_create(comm, 2, dims, periods, 0, &cart));
    MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
    int up, down, left, right, coords[2];
    HPCLAB_MPI_CHECK(MPI_Cart_shift(cart, 0, 1, &up, &down));
    HPCLAB_MPI_CHECK(MPI_Cart_shift(cart, 1, 1, &left, &right));
    HPCLAB_MPI_CHECK(MPI_Cart_coords(cart, hpclab::mpi::rank(cart), 2, coords));
    return BlockComm(cart, n, dims, strip_rows(n, dims[0], coords[0]), strip_rows(n, dims[1], coords[1]), up, down,
                     left, right);
}

void exchange_block_halos(const BlockComm& bc, Block& b) {
    const int w = b.width();
    // Rows: the owned part of row 1 up, of row `rows` down (corners not needed).
    HPCLAB_MPI_CHECK(MPI_Sendrecv(&b.u[b.index(1, 1)], b.cols, MPI_DOUBLE, bc.up(), 0, &b.u[b.index(b.rows + 1, 1)],
                                  b.cols, MPI_DOUBLE, bc.down(), 0, bc.comm(), MPI_STATUS_IGNORE));
    HPCLAB_MPI_CHECK(MPI_Sendrecv(&b.u[b.index(b.rows, 1)], b.cols, MPI_DOUBLE, bc.down(), 1, &b.u[b.index(0, 1)],
                                  b.cols, MPI_DOUBLE, bc.up(), 1, bc.comm(), MPI_STATUS_IGNORE));
    // Columns: `rows` doubles one row apart. A vector type lets MPI gather
    // them; each one is a separate 8-byte piece, which is why a column costs
    // far more per byte than a row (the thesis's Table 6.4).
    MPI_Datatype column;
    HPCLAB_MPI_CHECK(MPI_Type_vector(b.rows, 1, w, MPI_DOUBLE, &column));
    HPCLAB_MPI_CHECK(MPI_Type_commit(&column));
    HPCLAB_MPI_CHECK(MPI_Sendrecv(&b.u[b.index(1, 1)], 1, column, bc.left(), 2, &b.u[b.index(1, b.cols + 1)], 1, column,
                                  bc.right(), 2, bc.comm(), MPI_STATUS_IGNORE));
    HPCLAB_MPI_CHECK(MPI_Sendrecv(&b.u[b.index(1, b.cols)], 1, column, bc.right(), 3, &b.u[b.index(1, 0)], 1, column,
                                  bc.left(), 3, bc.comm(), MPI_STATUS_IGNORE));
    MPI_Type_free(&column);
}

void block_red_black_colour(Block& b, int colour, double omega) {
#pragma omp parallel for schedule(static) if (static_cast <long>(b.rows) * b.cols >= kParallelPoints)
    for (int li = 1; li <= b.rows; ++li) {
        const int i = b.global_row(li);
        // First local column whose GLOBAL column j has (i + j) % 2 == colour.
        const int lj0 = 1 + ((i + b.global_col(1) + colour) & 1);
        for (int lj = lj0; lj <= b.cols; lj += 2)
            b.at(li, lj) = sor_update(b.at(li, lj), b.at(li, lj - 1), b.at(li, lj + 1), b.at(li - 1, lj),
                                      b.at(li + 1, lj), b.b(li, lj), omega);
    }
}

void mpi_block_red_black_sweep(const BlockComm& bc, Block& b, double omega) {
    exchange_block_halos(bc, b);
    block_red_black_colour(b, 0, omega);
    exchange_block_halos(bc, b);
    block_red_black_colour(b, 1, omega);
}

}  // namespace lab11
