// Interface of the judged-call probe (see judged_probe_student.cpp).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "hpclab/judged.hpp"

namespace probe {

int twice(int x);
void fill_squares(std::vector<double>& v);
void negate(double* p, std::size_t n);
double must_be_positive(double x);
void todo();
// fill_squares, then (PROBE_LATE=mode) work left running after the return:
// a thread or child process that rewrites v later, sleeps, waits... (see
// judged_probe_student.cpp).
void fill_squares_leaving_work(std::vector<double>& v);

struct Summary {
    std::size_t count = 0;
    double total = 0;
    std::string name;
};
Summary summarize(const std::vector<double>& v);

// An exception class the judged library does not know (as CudaError is
// not known to it): registered as an extra kind by the tests.
struct ProbeError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
void fail_with_probe_error();

}  // namespace probe

template <>
struct hpclab::judged::Codec<probe::Summary> {
    static void encode(Writer& w, const probe::Summary& s) { put(w, s.count, s.total, s.name); }
    static probe::Summary decode(Reader& r) {
        probe::Summary s;
        get(r, s.count, s.total, s.name);
        return s;
    }
};
