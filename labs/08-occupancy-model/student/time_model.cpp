// Lab 08, part 2: Luo's MPD/CPD kernel-time model (Luo 2013, section 3.3
// and 3.4), as pure functions.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "hpclab/not_implemented.hpp"
#include "time_model.hpp"

namespace lab08 {

PeriodType classify(const Period& previous, const Period& current) {
    // TODO(student): part 2. A memory task outlasts its period's computation
    // when memory > compute (strictly).
    (void)previous;
    (void)current;
    throw hpclab::NotImplemented("classify");
}

double warp_bandwidth(const MemoryParameters& m) {
    // TODO(student): part 2, eq. 3.1.
    (void)m;
    throw hpclab::NotImplemented("warp_bandwidth");
}

double mpd(const MemoryParameters& m, int active_warps) {
    // TODO(student): part 2, eq. 3.2 as corrected in the handout.
    (void)m;
    (void)active_warps;
    throw hpclab::NotImplemented("mpd");
}

double computation_proportion(const std::vector<Period>& periods) {
    // TODO(student): part 2, eq. 3.3 (each period `repeat` times).
    (void)periods;
    throw hpclab::NotImplemented("computation_proportion");
}

double cpd(const CpdParameters& p, double proportion, int active_warps) {
    // TODO(student): part 2, eq. 3.4-3.6 and the reading of time_model.hpp.
    (void)p;
    (void)proportion;
    (void)active_warps;
    throw hpclab::NotImplemented("cpd");
}

double period_cycles(const Period& previous, const Period& current, int active_warps, double mpd_value,
                     double cpd_value) {
    // TODO(student): part 2, eq. 3.7-3.14, by classify(previous, current).
    (void)previous;
    (void)current;
    (void)active_warps;
    (void)mpd_value;
    (void)cpd_value;
    throw hpclab::NotImplemented("period_cycles");
}

double kernel_cycles(const std::vector<Period>& periods, int active_warps, double mpd_value, double cpd_value) {
    // TODO(student): part 2. The first period follows Period{}; the repeats
    // of a period follow the period itself.
    (void)periods;
    (void)active_warps;
    (void)mpd_value;
    (void)cpd_value;
    throw hpclab::NotImplemented("kernel_cycles");
}

Prediction predict(const std::vector<Period>& periods, const MemoryParameters& memory, const CpdParameters& cpd_p,
                   const Launch& launch) {
    // TODO(student): part 2. Full waves, then the partial one (see time_model.hpp).
    (void)periods;
    (void)memory;
    (void)cpd_p;
    (void)launch;
    throw hpclab::NotImplemented("predict");
}

double p_acc(double measured, double predicted) {
    // TODO(student): part 2, eq. 3.15.
    (void)measured;
    (void)predicted;
    throw hpclab::NotImplemented("p_acc");
}

}  // namespace lab08
