// Lab 11, stage 2: 1-D strip decomposition with MPI_Cart_create, halo rows
// by MPI_Sendrecv, red-black SOR across ranks, a decomposition-independent
// residual, and gathering the grid.
// Every TODO(student) below throws "not implemented" until you replace it;
// the StripComm class, gather_grid and gather_block_interior are given.
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

StripComm::StripComm(MPI_Comm cart, int n, RowRange range, int up, int down)
    : cart_(cart), n_(n), range_(range), up_(up), down_(down) {}

StripComm::~StripComm() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (cart_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&cart_);
}

StripComm::StripComm(StripComm&& o) noexcept
    : cart_(o.cart_), n_(o.n_), range_(o.range_), up_(o.up_), down_(o.down_) {
    o.cart_ = MPI_COMM_NULL;
}

StripComm& StripComm::operator=(StripComm&& o) noexcept {
    if (this != &o) {
        if (cart_ != MPI_COMM_NULL) MPI_Comm_free(&cart_);
        cart_ = o.cart_; n_ = o.n_; range_ = o.range_; up_ = o.up_; down_ = o.down_;
        o.cart_ = MPI_COMM_NULL;
    }
    return *this;
}

int StripComm::rank() const { return hpclab::mpi::rank(cart_); }
int StripComm::size() const { return hpclab::mpi::size(cart_); }

StripComm make_strip_comm(int n, MPI_Comm comm) {
    // TODO(student): refuse n < size on every rank (std::invalid_argument), then
    // MPI_Cart_create (1-D, not periodic), MPI_Cart_shift for up/down, and
    // this rank's rows from strip_rows.
    (void)n;
    (void)comm;
    throw hpclab::NotImplemented("make_strip_comm");
}

void exchange_rows(const StripComm& sc, const double* send_top, const double* send_bottom,
                   double* recv_top, double* recv_bottom, int count) {
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

std::vector<double> gather_grid(const StripComm& sc, const Strip& s) {
    const int size = sc.size(), w = s.width(), n = sc.n();
    // Rank 0 also sends global row 0 (its top halo is the boundary), the
    // last rank also row n+1; everyone else only its owned rows.
    auto first_row_sent = [&](int r) { return r == 0 ? 0 : strip_rows(n, size, r).first; };
    auto rows_sent = [&](int r) {
        return strip_rows(n, size, r).rows + (r == 0 ? 1 : 0) + (r == size - 1 ? 1 : 0);
    };
    std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) {
        counts[static_cast<std::size_t>(r)] = rows_sent(r) * w;
        displs[static_cast<std::size_t>(r)] = first_row_sent(r) * w;
    }
    const int me = sc.rank();
    const double* send = &s.u[s.index(me == 0 ? 0 : 1, 0)];
    std::vector<double> grid(me == 0 ? static_cast<std::size_t>(n + 2) * static_cast<std::size_t>(w) : 0);
    HPCLAB_MPI_CHECK(MPI_Gatherv(send, counts[static_cast<std::size_t>(me)], MPI_DOUBLE, grid.data(),
                                 counts.data(), displs.data(), MPI_DOUBLE, 0, sc.comm()));
    return grid;
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

std::vector<double> gather_block_interior(const BlockComm& bc, const Block& b) {
    // Each rank packs its owned points; rank 0 receives every block and puts
    // it where the block's coordinates say.
    std::vector<double> mine(static_cast<std::size_t>(b.rows) * static_cast<std::size_t>(b.cols));
    for (int li = 1; li <= b.rows; ++li)
        for (int lj = 1; lj <= b.cols; ++lj)
            mine[static_cast<std::size_t>(li - 1) * b.cols + (lj - 1)] = b.at(li, lj);
    const int size = hpclab::mpi::size(bc.comm()), me = hpclab::mpi::rank(bc.comm());
    if (me != 0) {
        HPCLAB_MPI_CHECK(MPI_Send(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, 0, 9, bc.comm()));
        return {};
    }
    const int n = bc.n();
    std::vector<double> grid(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), 0.0);
    for (int r = 0; r < size; ++r) {
        int coords[2];
        HPCLAB_MPI_CHECK(MPI_Cart_coords(bc.comm(), r, 2, coords));
        const RowRange rows = strip_rows(n, bc.dim(0), coords[0]), cols = strip_rows(n, bc.dim(1), coords[1]);
        std::vector<double> part(static_cast<std::size_t>(rows.rows) * static_cast<std::size_t>(cols.rows));
        if (r == 0) part = mine;
        else HPCLAB_MPI_CHECK(MPI_Recv(part.data(), static_cast<int>(part.size()), MPI_DOUBLE, r, 9, bc.comm(),
                                       MPI_STATUS_IGNORE));
        for (int a = 0; a < rows.rows; ++a)
            for (int c = 0; c < cols.rows; ++c)
                grid[static_cast<std::size_t>(rows.first - 1 + a) * n + (cols.first - 1 + c)] =
                    part[static_cast<std::size_t>(a) * cols.rows + c];
    }
    return grid;
}

}  // namespace lab11
