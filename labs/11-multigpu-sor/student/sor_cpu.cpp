// Lab 11, stage 1: CPU references (Jacobi, Gauss-Seidel, SOR, red-black SOR),
// the residual norm and the stopping test.
// Every TODO(student) below throws "not implemented" until you replace it.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "hpclab/not_implemented.hpp"
#include "sor.hpp"

namespace lab11 {

double omega_opt(int n) {
    // TODO(student): 2 / (1 + sin(pi h)) with h = 1/(n+1); no cap at 1.9.
    // Reject n < 1 with std::invalid_argument.
    (void)n;
    throw hpclab::NotImplemented("omega_opt");
}

void jacobi_sweep(const Strip& in, Strip& out) {
    // TODO(student): every interior point of out from the OLD values in `in`
    // (sor_update with omega = 1); OpenMP over rows, for large grids only.
    (void)in;
    (void)out;
    throw hpclab::NotImplemented("jacobi_sweep");
}

void sor_sweep(Strip& s, double omega) {
    // TODO(student): row by row, left to right, in place, with sor_update.
    (void)s;
    (void)omega;
    throw hpclab::NotImplemented("sor_sweep");
}

void red_black_colour_rows(Strip& s, int colour, double omega, int row_begin, int row_end) {
    // TODO(student): the points with (global row + j) % 2 == colour in local
    // rows [row_begin, row_end), columns 1..n; use s.global_row(). Rows outside
    // [1, rows + 1): std::invalid_argument. OpenMP over rows (an if clause: a
    // parallel region per colour costs more than a tiny grid).
    (void)s;
    (void)colour;
    (void)omega;
    (void)row_begin;
    (void)row_end;
    throw hpclab::NotImplemented("red_black_colour_rows");
}

void red_black_colour(Strip& s, int colour, double omega) {
    // TODO(student): red_black_colour_rows over all owned rows.
    (void)s;
    (void)colour;
    (void)omega;
    throw hpclab::NotImplemented("red_black_colour");
}

void red_black_sweep(Strip& s, double omega) {
    // TODO(student): all red points, then all black points.
    (void)s;
    (void)omega;
    throw hpclab::NotImplemented("red_black_sweep");
}

std::vector<double> residual_row_sums(const Strip& s) {
    // TODO(student): one sum of residual_at(...)^2 per owned row, each summed
    // left to right.
    (void)s;
    throw hpclab::NotImplemented("residual_row_sums");
}

double residual_norm(const Strip& s) {
    // TODO(student): sqrt of the row sums added in row order.
    (void)s;
    throw hpclab::NotImplemented("residual_norm");
}

SolveResult iterate_to_tolerance(const std::function<void(long)>& sweeps, const std::function<double()>& residual,
                                 double tol, int check_every, long max_iters) {
    // TODO(student): see sor.hpp. Check the arguments first; the residual is
    // computed only every check_every sweeps. solve, mpi_solve and gpu_solve
    // all stop by this rule: write it once, here.
    (void)sweeps;
    (void)residual;
    (void)tol;
    (void)check_every;
    (void)max_iters;
    throw hpclab::NotImplemented("iterate_to_tolerance");
}

SolveResult solve(Strip& s, Method method, double omega, double tol, int check_every, long max_iters) {
    // TODO(student): iterate_to_tolerance with `method`'s sweeps and
    // residual_norm. Jacobi needs a second strip (swap the u vectors after
    // each sweep).
    (void)s;
    (void)method;
    (void)omega;
    (void)tol;
    (void)check_every;
    (void)max_iters;
    throw hpclab::NotImplemented("solve");
}

}  // namespace lab11
