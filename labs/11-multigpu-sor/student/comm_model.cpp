// Lab 11, stage 5: least-squares fits of the communication model: a startup
// time plus a time per byte, and the thesis's power law T(n) = a n^b.
// Every TODO(student) below throws "not implemented" until you replace it.
#include <cmath>
#include <stdexcept>
#include <vector>

#include "hpclab/not_implemented.hpp"
#include "sor.hpp"

namespace lab11 {

LinearFit fit_latency_bandwidth(const std::vector<double>& bytes, const std::vector<double>& seconds) {
    // TODO(student): least squares for seconds = startup + per_byte * bytes,
    // weighted by 1/seconds^2 (relative error); reject bad input as sor.hpp says.
    (void)bytes;
    (void)seconds;
    throw hpclab::NotImplemented("fit_latency_bandwidth");
}

PowerFit fit_power_law(const std::vector<double>& n, const std::vector<double>& seconds) {
    // TODO(student): least squares on ln T = ln a + b ln n (thesis eq. 6.3).
    (void)n;
    (void)seconds;
    throw hpclab::NotImplemented("fit_power_law");
}

}  // namespace lab11
