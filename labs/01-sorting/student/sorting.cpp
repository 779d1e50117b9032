// Lab 01, stages 1, 2 and 4: qsort, std::sort, and the n log n analysis.
// Every TODO(student) below throws "not implemented" until you replace it.
#include "sorting.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "hpclab/not_implemented.hpp"

namespace lab01 {

int compare_doubles(const void* a, const void* b) {
    // TODO(student): return -1, 0 or +1. Do not return *a - *b: it is a
    // double, and converting it to int turns 0.5 into 0.
    (void)a;
    (void)b;
    throw hpclab::NotImplemented("compare_doubles");
}

void qsort_doubles(double* data, std::size_t n) {
    // TODO(student): sort with std::qsort and compare_doubles.
    (void)data;
    (void)n;
    throw hpclab::NotImplemented("qsort_doubles");
}

bool AscendingDoubles::operator()(double a, double b) const {
    // TODO(student): a strict weak ordering: true when a comes before b.
    (void)a;
    (void)b;
    throw hpclab::NotImplemented("AscendingDoubles");
}

void std_sort_functor(double* data, std::size_t n) {
    // TODO(student): std::sort with an AscendingDoubles object.
    (void)data;
    (void)n;
    throw hpclab::NotImplemented("std_sort_functor");
}

void std_sort_lambda(double* data, std::size_t n) {
    // TODO(student): std::sort with a lambda as the comparison.
    (void)data;
    (void)n;
    throw hpclab::NotImplemented("std_sort_lambda");
}

std::vector<double> seconds_per_n_log2_n(const std::vector<std::size_t>& n, const std::vector<double>& seconds) {
    // TODO(student): seconds[i] / (n[i] * log2(n[i])); reject bad input
    // with std::invalid_argument as the header says.
    (void)n;
    (void)seconds;
    throw hpclab::NotImplemented("seconds_per_n_log2_n");
}

}  // namespace lab01
