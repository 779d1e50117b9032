// Lab 02, stage 4: the lecture's cost model of parallel bucket sort.
// Every TODO(student) below throws "not implemented" until you replace it.
#include <cmath>
#include <stdexcept>
#include <string>

#include "bucket_sort.hpp"
#include "hpclab/not_implemented.hpp"

namespace lab02 {

// The formulas are in bucket_sort.hpp. Reject p < 1 or n < p with
// std::invalid_argument in every function.

double speedup_over_bucket_sort(double n, double p) {
    // TODO(student): p(1 + L)/(p + L), L = log2(n/p)/log2(p). What is L for p = 1?
    (void)n;
    (void)p;
    throw hpclab::NotImplemented("speedup_over_bucket_sort");
}

double speedup_over_quicksort(double n, double p) {
    // TODO(student): mind the slide's misplaced parentheses (see the handout).
    (void)n;
    (void)p;
    throw hpclab::NotImplemented("speedup_over_quicksort");
}

double root_compute_seconds(double n, double p, const MachineConstants& c) {
    // TODO(student)
    (void)n;
    (void)p;
    (void)c;
    throw hpclab::NotImplemented("root_compute_seconds");
}

double root_communicate_seconds(double n, double p, const MachineConstants& c) {
    // TODO(student)
    (void)n;
    (void)p;
    (void)c;
    throw hpclab::NotImplemented("root_communicate_seconds");
}

double fan_out_compute_seconds(double n, double p, const MachineConstants& c) {
    // TODO(student)
    (void)n;
    (void)p;
    (void)c;
    throw hpclab::NotImplemented("fan_out_compute_seconds");
}

double fan_out_communicate_seconds(double n, double p, const MachineConstants& c) {
    // TODO(student)
    (void)n;
    (void)p;
    (void)c;
    throw hpclab::NotImplemented("fan_out_communicate_seconds");
}

}  // namespace lab02
