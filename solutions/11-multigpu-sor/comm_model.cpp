// Lab 11, stage 5: least-squares fits of the communication model: a startup
// time plus a time per byte, and the thesis's power law T(n) = a n^b.
#include <cmath>
#include <stdexcept>
#include <vector>

#include "sor.hpp"

namespace lab11 {

namespace {

// Weighted least squares for y = c0 + c1 x, weights w (all > 0); throws on
// degenerate input.
void least_squares(const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& w, double* c0,
                   double* c1) {
    if (x.size() != y.size() || x.size() < 2)
        throw std::invalid_argument("a fit needs at least 2 points and as many times as sizes");
    double sw = 0, mx = 0, my = 0;
    for (std::size_t k = 0; k < x.size(); ++k) {
        sw += w[k];
        mx += w[k] * x[k];
        my += w[k] * y[k];
    }
    mx /= sw;
    my /= sw;
    // Centred sums: far better conditioned than sum x^2 - m mx^2 when the
    // sizes span many orders of magnitude.
    double sxx = 0, sxy = 0;
    for (std::size_t k = 0; k < x.size(); ++k) {
        sxx += w[k] * (x[k] - mx) * (x[k] - mx);
        sxy += w[k] * (x[k] - mx) * (y[k] - my);
    }
    if (!(sxx > 0)) throw std::invalid_argument("a fit needs at least two different sizes");
    *c1 = sxy / sxx;
    *c0 = my - *c1 * mx;
}

}  // namespace

LinearFit fit_latency_bandwidth(const std::vector<double>& bytes, const std::vector<double>& seconds) {
    if (bytes.size() != seconds.size() || bytes.size() < 2)
        throw std::invalid_argument("a fit needs at least 2 points and as many times as sizes");
    // Weight 1/T^2: minimise the RELATIVE error of every point. Sizes span
    // six decades; unweighted, the largest messages decide everything and the
    // startup time can come out negative.
    std::vector<double> w;
    for (double t : seconds) {
        if (!(t > 0)) throw std::invalid_argument("a latency-bandwidth fit needs positive times");
        w.push_back(1.0 / (t * t));
    }
    LinearFit f;
    least_squares(bytes, seconds, w, &f.startup_s, &f.per_byte_s);
    return f;
}

PowerFit fit_power_law(const std::vector<double>& n, const std::vector<double>& seconds) {
    if (n.size() != seconds.size() || n.size() < 2)
        throw std::invalid_argument("a fit needs at least 2 points and as many times as sizes");
    std::vector<double> ln_n, ln_t;
    for (std::size_t k = 0; k < n.size(); ++k) {
        if (!(n[k] > 0) || !(seconds[k] > 0))
            throw std::invalid_argument("a power-law fit needs positive sizes and times");
        ln_n.push_back(std::log(n[k]));
        ln_t.push_back(std::log(seconds[k]));
    }
    double ln_a = 0, b = 0;
    least_squares(ln_n, ln_t, std::vector<double>(n.size(), 1.0), &ln_a, &b);  // ln T = ln a + b ln n (eq. 6.3)
    return PowerFit{std::exp(ln_a), b};
}

}  // namespace lab11
