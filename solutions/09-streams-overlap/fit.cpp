// Lab 09, stage 1b: latency and bandwidth of a copy, by least squares.
#include <cmath>
#include <stdexcept>

#include "overlap.hpp"

namespace lab09 {

LinkFit fit_latency_bandwidth(const std::vector<double>& bytes, const std::vector<double>& seconds) {
    if (bytes.size() != seconds.size()) throw std::invalid_argument("fit: sizes and times differ in length");
    if (bytes.size() < 2) throw std::invalid_argument("fit: at least two points are needed");
    const double n = static_cast<double>(bytes.size());
    double mx = 0, my = 0;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        mx += bytes[i];
        my += seconds[i];
    }
    mx /= n;
    my /= n;
    // Centred sums: sizes from 4 KiB to 1 GiB squared lose nothing that matters.
    double sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        sxx += (bytes[i] - mx) * (bytes[i] - mx);
        sxy += (bytes[i] - mx) * (seconds[i] - my);
    }
    if (sxx == 0) throw std::invalid_argument("fit: every size is the same");
    const double slope = sxy / sxx;
    if (!(slope > 0)) throw std::domain_error("fit: time does not grow with size; no bandwidth can be read");
    return {my - slope * mx, 1 / slope};
}

}  // namespace lab09
