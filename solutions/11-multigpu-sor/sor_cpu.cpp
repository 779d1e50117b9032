// Lab 11, stage 1: CPU references (Jacobi, Gauss-Seidel, SOR, red-black SOR),
// the residual norm and the stopping test.
#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

#include "sor.hpp"

namespace lab11 {

namespace {
// Below this many points a parallel region costs more than it saves (and on
// a busy machine much more: the threads must all be scheduled each sweep).
constexpr long kParallelPoints = 1L << 16;
}  // namespace

double omega_opt(int n) {
    if (n < 1) throw std::invalid_argument("omega_opt: n must be >= 1, got " + std::to_string(n));
    const double pi = 3.14159265358979323846;
    // h = 1/(n+1) for n interior points; no cap: omega -> 2 as n grows.
    return 2.0 / (1.0 + std::sin(pi / (n + 1)));
}

void jacobi_sweep(const Strip& in, Strip& out) {
    if (in.n != out.n || in.rows != out.rows || in.u.size() != out.u.size() || in.rhs.size() != out.rhs.size())
        throw std::invalid_argument("jacobi_sweep: strips of different shapes");
        // omega = 1: the plain average of the old neighbours (plus b / 4).
#pragma omp parallel for schedule(static) if (static_cast <long>(in.rows) * in.n >= kParallelPoints)
    for (int li = 1; li <= in.rows; ++li)
        for (int j = 1; j <= in.n; ++j)
            out.at(li, j) = sor_update(in.at(li, j), in.at(li, j - 1), in.at(li, j + 1), in.at(li - 1, j),
                                       in.at(li + 1, j), in.b(li, j), 1.0);
}

void sor_sweep(Strip& s, double omega) {
    // Lexicographic: left and up neighbours are already new (a sequential sweep).
    for (int li = 1; li <= s.rows; ++li)
        for (int j = 1; j <= s.n; ++j)
            s.at(li, j) = sor_update(s.at(li, j), s.at(li, j - 1), s.at(li, j + 1), s.at(li - 1, j), s.at(li + 1, j),
                                     s.b(li, j), omega);
}

void red_black_colour_rows(Strip& s, int colour, double omega, int row_begin, int row_end) {
    if (row_begin < 1 || row_end > s.rows + 1)
        throw std::invalid_argument("red_black_colour_rows: rows [" + std::to_string(row_begin) + ", " +
                                    std::to_string(row_end) + ") outside [1, " + std::to_string(s.rows + 1) + ")");
        // Points of one colour only read points of the other colour, so all the
        // updates of a colour are independent and their order does not matter.
#pragma omp parallel for schedule(static) if (static_cast <long>(row_end - row_begin) * s.n >= kParallelPoints)
    for (int li = row_begin; li < row_end; ++li) {
        const int i = s.global_row(li);
        // First column j >= 1 with (i + j) % 2 == colour.
        const int j0 = 1 + ((i + 1 + colour) & 1);
        for (int j = j0; j <= s.n; j += 2)
            s.at(li, j) = sor_update(s.at(li, j), s.at(li, j - 1), s.at(li, j + 1), s.at(li - 1, j), s.at(li + 1, j),
                                     s.b(li, j), omega);
    }
}

void red_black_colour(Strip& s, int colour, double omega) { red_black_colour_rows(s, colour, omega, 1, s.rows + 1); }

void red_black_sweep(Strip& s, double omega) {
    red_black_colour(s, 0, omega);
    red_black_colour(s, 1, omega);
}

std::vector<double> residual_row_sums(const Strip& s) {
    std::vector<double> sums(static_cast<std::size_t>(s.rows), 0.0);
#pragma omp parallel for schedule(static) if (static_cast <long>(s.rows) * s.n >= kParallelPoints)
    for (int li = 1; li <= s.rows; ++li) {
        double sum = 0;
        for (int j = 1; j <= s.n; ++j) {
            const double r = residual_at(s.at(li, j), s.at(li, j - 1), s.at(li, j + 1), s.at(li - 1, j),
                                         s.at(li + 1, j), s.b(li, j));
            sum += r * r;
        }
        sums[static_cast<std::size_t>(li - 1)] = sum;
    }
    return sums;
}

double residual_norm(const Strip& s) {
    double total = 0;
    for (double row : residual_row_sums(s)) total += row;  // row order: fixed
    return std::sqrt(total);
}

SolveResult iterate_to_tolerance(const std::function<void(long)>& sweeps, const std::function<double()>& residual,
                                 double tol, int check_every, long max_iters) {
    if (check_every < 1 || max_iters < 0 || !(tol >= 0))
        throw std::invalid_argument("solve: need check_every >= 1, max_iters >= 0 and tol >= 0, got " +
                                    std::to_string(check_every) + ", " + std::to_string(max_iters) + " and " +
                                    std::to_string(tol));
    SolveResult result;
    result.residual0 = residual();
    result.residual = result.residual0;
    if (result.residual0 == 0) {
        result.converged = true;
        return result;
    }
    while (result.iterations < max_iters) {
        const long block = std::min<long>(check_every, max_iters - result.iterations);
        sweeps(block);
        result.iterations += block;
        result.residual = residual();
        if (result.residual <= tol * result.residual0) {
            result.converged = true;
            break;
        }
    }
    return result;
}

SolveResult solve(Strip& s, Method method, double omega, double tol, int check_every, long max_iters) {
    Strip other;
    if (method == Method::Jacobi) other = s;  // the second buffer, boundary included
    auto sweeps = [&](long count) {
        for (long k = 0; k < count; ++k) {
            switch (method) {
                case Method::Jacobi:
                    jacobi_sweep(s, other);
                    std::swap(s.u, other.u);
                    break;
                case Method::GaussSeidel: sor_sweep(s, 1.0); break;
                case Method::Sor: sor_sweep(s, omega); break;
                case Method::RedBlackSor: red_black_sweep(s, omega); break;
            }
        }
    };
    return iterate_to_tolerance(
        sweeps, [&] { return residual_norm(s); }, tol, check_every, max_iters);
}

}  // namespace lab11
