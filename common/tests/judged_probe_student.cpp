// The "student code" of the judged-call probe: right, wrong (PROBE_WRONG=1)
// or a trap that must never run (PROBE_TRAP=1, set for the replaying run).
#include "judged_probe.hpp"

#include <cstdlib>
#include <stdexcept>

#include "hpclab/not_implemented.hpp"

namespace probe {

namespace {
bool wrong() { return std::getenv("PROBE_WRONG") != nullptr; }
void trap() {
    if (std::getenv("PROBE_TRAP")) std::abort();
}
}  // namespace

int twice(int x) {
    trap();
    return wrong() ? 2 * x + 1 : 2 * x;
}

void fill_squares(std::vector<double>& v) {
    trap();
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = wrong() ? 0.0 : static_cast<double>(i * i);
}

void negate(double* p, std::size_t n) {
    trap();
    for (std::size_t i = 0; i < n; ++i) p[i] = -p[i];
}

double must_be_positive(double x) {
    trap();
    if (x <= 0) throw std::invalid_argument("must be positive");
    return x;
}

Summary summarize(const std::vector<double>& v) {
    trap();
    Summary s;
    s.count = v.size();
    for (double x : v) s.total += x;
    s.name = wrong() ? "wrong" : "summary";
    return s;
}

void fail_with_probe_error() {
    trap();
    throw ProbeError("probe error");
}

void todo() {
    trap();
    throw hpclab::NotImplemented("todo");
}

}  // namespace probe
