// Lab 11, stages 2, 2b and 2c: 1-D strip decomposition with MPI_Cart_create,
// halo rows by MPI_Sendrecv, red-black SOR across ranks, a
// decomposition-independent residual, wide halos, and 2-D blocks.
// Every TODO(student) below throws "not implemented" until you replace it;
// StripComm, BlockComm, gather_grid and gather_block_interior are given
// (communicators.cpp).
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "hpclab/mpi.hpp"
#include "hpclab/not_implemented.hpp"
#include "sor.hpp"

namespace lab11 {

RowRange strip_rows(int n, int parts, int index) {
    // TODO(student): split n rows into `parts` contiguous parts as evenly as possible
    // (the first n % parts get one more); reject bad input as sor.hpp says.
    (void)n;
    (void)parts;
    (void)index;
    throw hpclab::NotImplemented("strip_rows");
}

StripComm make_strip_comm(int n, MPI_Comm comm) {
    // TODO(student): refuse n < size on every rank (std::invalid_argument), then
    // MPI_Cart_create (1-D, not periodic), MPI_Cart_shift for up/down, and
    // this rank's rows from strip_rows.
    (void)n;
    (void)comm;
    throw hpclab::NotImplemented("make_strip_comm");
}

void exchange_rows(const StripComm& sc, const double* send_top, const double* send_bottom, double* recv_top,
                   double* recv_bottom, int count) {
    // TODO(student): two MPI_Sendrecv calls: send up / receive from below, then
    // send down / receive from above.
    (void)sc;
    (void)send_top;
    (void)send_bottom;
    (void)recv_top;
    (void)recv_bottom;
    (void)count;
    throw hpclab::NotImplemented("exchange_rows");
}

void exchange_halos(const StripComm& sc, Strip& s) {
    // TODO(student): exchange_rows with owned rows 1 and rows, halo rows 0 and rows+1.
    (void)sc;
    (void)s;
    throw hpclab::NotImplemented("exchange_halos");
}

void mpi_red_black_sweep(const StripComm& sc, Strip& s, double omega) {
    // TODO(student): which halo values does each colour read? Refresh them first.
    (void)sc;
    (void)s;
    (void)omega;
    throw hpclab::NotImplemented("mpi_red_black_sweep");
}

double mpi_residual_norm(const StripComm& sc, const Strip& s) {
    // TODO(student): residual_row_sums here, MPI_Gatherv to rank 0 in row order,
    // add them there in that order, MPI_Bcast the total, sqrt.
    (void)sc;
    (void)s;
    throw hpclab::NotImplemented("mpi_residual_norm");
}

SolveResult mpi_solve(const StripComm& sc, Strip& s, double omega, double tol, int check_every, long max_iters) {
    // TODO(student): iterate_to_tolerance with mpi_red_black_sweep and
    // mpi_residual_norm; the residual reads halo rows, so exchange first.
    (void)sc;
    (void)s;
    (void)omega;
    (void)tol;
    (void)check_every;
    (void)max_iters;
    throw hpclab::NotImplemented("mpi_solve");
}

void exchange_wide_halos(const StripComm& sc, Strip& wide, int depth) {
    // TODO(student): `wide` holds the rows of wide_rows(sc, depth) (check it:
    // std::invalid_argument otherwise). Send the first `depth` OWNED rows up and
    // the last `depth` down, receive into the ghost rows: exchange_rows with
    // count depth * width() does it, the rows being contiguous.
    (void)sc;
    (void)wide;
    (void)depth;
    throw hpclab::NotImplemented("exchange_wide_halos");
}

void mpi_red_black_sweeps_wide(const StripComm& sc, Strip& wide, double omega, long sweeps, int sweeps_per_exchange) {
    // TODO(student): depth = wide_halo_depth(bs). Every bs sweeps: exchange,
    // then 2 bs colour steps (red, black, red, ...) with red_black_colour_rows;
    // step t leaves the outermost t + 1 ghost rows of each side that has a
    // neighbour alone (they would read rows nobody refreshed).
    (void)sc;
    (void)wide;
    (void)omega;
    (void)sweeps;
    (void)sweeps_per_exchange;
    throw hpclab::NotImplemented("mpi_red_black_sweeps_wide");
}

BlockComm make_block_comm(int n, MPI_Comm comm) {
    // TODO(student): MPI_Dims_create(size, 2, dims); refuse n < dims[0] or
    // n < dims[1] on every rank; MPI_Cart_create (2-D, not periodic);
    // MPI_Cart_shift in dimension 0 (up/down) and 1 (left/right);
    // MPI_Cart_coords for this rank's block; rows and columns by strip_rows.
    (void)n;
    (void)comm;
    throw hpclab::NotImplemented("make_block_comm");
}

void exchange_block_halos(const BlockComm& bc, Block& b) {
    // TODO(student): rows as in exchange_rows (only the owned columns 1..cols);
    // columns with an MPI_Type_vector(rows, 1, width) (or pack them).
    (void)bc;
    (void)b;
    throw hpclab::NotImplemented("exchange_block_halos");
}

void block_red_black_colour(Block& b, int colour, double omega) {
    // TODO(student): red_black_colour, with the GLOBAL column b.global_col(lj)
    // in the colour test.
    (void)b;
    (void)colour;
    (void)omega;
    throw hpclab::NotImplemented("block_red_black_colour");
}

void mpi_block_red_black_sweep(const BlockComm& bc, Block& b, double omega) {
    // TODO(student): as mpi_red_black_sweep, for blocks.
    (void)bc;
    (void)b;
    (void)omega;
    throw hpclab::NotImplemented("mpi_block_red_black_sweep");
}

}  // namespace lab11
