// Lab 09, stage 4b: Luo's TPSM, the formulas of chapter 4.
#include <stdexcept>

#include "hpclab/not_implemented.hpp"
#include "overlap.hpp"

namespace lab09 {

Classification classify(double t_send, double t_kernel, double t_recv) {
    // TODO(student): Table 4.1's two questions (see overlap.hpp).
    (void)t_send, (void)t_kernel, (void)t_recv;
    throw hpclab::NotImplemented("classify");
}

double both_ways_time(double x_s, double x_r, const Rates& r) {
    // TODO(student): eq. 4.35: both directions at once until the shorter
    // one ends, then the rest alone.
    (void)x_s, (void)x_r, (void)r;
    throw hpclab::NotImplemented("both_ways_time");
}

double geometric_ratio(const Task& t, const Rates& r) {
    // TODO(student): eq. 4.4.
    (void)t, (void)r;
    throw hpclab::NotImplemented("geometric_ratio");
}

double equal_chunk_count(const Task& t, const Rates& r, double t_str) {
    // TODO(student): eq. 4.53 (refuse t_str <= 0).
    (void)t, (void)r, (void)t_str;
    throw hpclab::NotImplemented("equal_chunk_count");
}

double two_state_time(const State& p, const State& q, double x_s, double x_r) {
    // TODO(student): eq. 4.68: solve for the time spent in each state.
    (void)p, (void)q, (void)x_s, (void)x_r;
    throw hpclab::NotImplemented("two_state_time");
}

double three_point_search(const std::function<double(double)>& W, double b, int steps) {
    // TODO(student): Algorithm 1 as corrected in overlap.hpp.
    (void)W, (void)b, (void)steps;
    throw hpclab::NotImplemented("three_point_search");
}

}  // namespace lab09
