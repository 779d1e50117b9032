// Lab 09, stage 1b: latency and bandwidth of a copy, by least squares.
#include <stdexcept>

#include "hpclab/not_implemented.hpp"
#include "overlap.hpp"

namespace lab09 {

LinkFit fit_latency_bandwidth(const std::vector<double>& bytes, const std::vector<double>& seconds) {
    // TODO(student): the least-squares line seconds = latency + bytes /
    // bandwidth (intercept and slope; centre the sums), with the errors
    // overlap.hpp lists.
    (void)bytes, (void)seconds;
    throw hpclab::NotImplemented("fit_latency_bandwidth");
}

}  // namespace lab09
