// Tolerances in absolute, relative and ULP terms, and the mismatch report.
#include "hpclab/check.hpp"

#include <cstdio>
#include <cstring>

namespace hpclab {

namespace {

// Map the bits of a float type onto a monotone unsigned line: negative
// values are mirrored below the positive ones, so -0 and +0 coincide and the
// distance between neighbours is 1.
template <class Bits, class F>
Bits ordered(F x) {
    Bits b;
    std::memcpy(&b, &x, sizeof b);
    const Bits sign = Bits(1) << (sizeof(Bits) * 8 - 1);
    return (b & sign) ? Bits(~b + 1) : Bits(b | sign);  // -x -> sign - |x|, +x -> sign + |x|
}

template <class Bits, class F>
std::uint64_t ulps_between(F a, F b) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<std::uint64_t>::max();
    if (std::isinf(a) || std::isinf(b)) return a == b ? 0 : std::numeric_limits<std::uint64_t>::max();
    const Bits x = ordered<Bits>(a), y = ordered<Bits>(b);
    return x > y ? std::uint64_t(x - y) : std::uint64_t(y - x);
}

template <class F>
bool matches_impl(F got, F ref, const Tolerance& tol) {
    if (std::isnan(got) || std::isnan(ref)) return std::isnan(got) && std::isnan(ref);
    if (std::isinf(got) || std::isinf(ref)) return got == ref;
    if (got == ref) return true;
    const double err = std::fabs(static_cast<double>(got) - static_cast<double>(ref));
    if (tol.abs > 0 && err <= tol.abs) return true;
    if (tol.rel > 0 && err <= tol.rel * std::fabs(static_cast<double>(ref))) return true;
    if (tol.ulps > 0 && ulp_distance(got, ref) <= tol.ulps) return true;
    return false;
}

}  // namespace

std::uint64_t ulp_distance(double a, double b) { return ulps_between<std::uint64_t>(a, b); }
std::uint64_t ulp_distance(float a, float b) { return ulps_between<std::uint32_t>(a, b); }

bool matches(double got, double ref, const Tolerance& tol) { return matches_impl(got, ref, tol); }
bool matches(float got, float ref, const Tolerance& tol) { return matches_impl(got, ref, tol); }

std::string CompareReport::describe(const std::string& name) const {
    char buf[256];
    std::string s;
    if (size_mismatch) {
        s += "sizes differ; ";
    }
    std::snprintf(buf, sizeof buf, "%zu of %zu elements differ; worst |err| = %.3g at %s[%zu], worst rel err = %.3g",
                  mismatches, count, worst_abs, name.c_str(), worst_index, worst_rel);
    s += buf;
    for (const Mismatch& m : first) {
        std::snprintf(buf, sizeof buf, "\n  %s[%zu] = %.17g, expected %.17g (|err| = %.3g)", name.c_str(), m.index,
                      m.got, m.expected, m.abs_error);
        s += buf;
    }
    return s;
}

}  // namespace hpclab
