// Checking results: absolute, relative and ULP tolerances (NaN and Inf
// handled), array comparison that reports the worst error and the first
// mismatches, and a sorted-and-permutation check that leaves inputs intact.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace hpclab {

// Distance in units in the last place between two finite values of the same
// sign or across zero (+0 and -0 are 0 apart). NaN against anything, or Inf
// against a finite value, is "infinitely" far: the maximum of uint64_t.
std::uint64_t ulp_distance(double a, double b);
std::uint64_t ulp_distance(float a, float b);

// A value matches its reference when any one of the bounds that is set holds:
// |got - ref| <= abs, |got - ref| <= rel * |ref|, ulp_distance <= ulps.
// NaN matches only NaN; an infinity matches only the same infinity.
struct Tolerance {
    double abs = 0;
    double rel = 0;
    std::uint64_t ulps = 0;

    static Tolerance exact() { return {}; }
    static Tolerance absolute(double a) { return {a, 0, 0}; }
    static Tolerance relative(double r) { return {0, r, 0}; }
    static Tolerance in_ulps(std::uint64_t u) { return {0, 0, u}; }
};

bool matches(double got, double ref, const Tolerance& tol);
bool matches(float got, float ref, const Tolerance& tol);

struct Mismatch {
    std::size_t index;
    double got, expected, abs_error;
};

struct CompareReport {
    std::size_t count = 0;        // elements compared
    std::size_t mismatches = 0;   // elements outside the tolerance
    double worst_abs = 0;         // largest |got - ref| (NaN pairs excluded)
    double worst_rel = 0;         // largest |got - ref| / |ref| over ref != 0
    std::size_t worst_index = 0;  // where worst_abs occurs
    bool size_mismatch = false;
    std::vector<Mismatch> first;  // the first few mismatches, in index order

    bool ok() const { return !size_mismatch && mismatches == 0; }
    // "3 of 1000 elements differ; worst |err| = ... at [17]; first: x[17] = got, expected ref (|err| = e) ..."
    std::string describe(const std::string& array_name = "x") const;
};

template <class T>
CompareReport compare_arrays(const T* got, std::size_t n_got, const T* ref, std::size_t n_ref, const Tolerance& tol,
                             std::size_t keep_first = 5) {
    static_assert(std::is_floating_point<T>::value || std::is_integral<T>::value, "compare_arrays compares numbers");
    CompareReport r;
    r.size_mismatch = n_got != n_ref;
    r.count = std::min(n_got, n_ref);
    for (std::size_t i = 0; i < r.count; ++i) {
        const double g = static_cast<double>(got[i]);
        const double e = static_cast<double>(ref[i]);
        bool ok;
        if constexpr (std::is_floating_point<T>::value) {
            ok = matches(got[i], ref[i], tol);
        } else {
            ok = got[i] == ref[i] || std::fabs(g - e) <= tol.abs;
        }
        const double err = std::fabs(g - e);
        if (!std::isnan(err)) {
            if (err > r.worst_abs) {
                r.worst_abs = err;
                r.worst_index = i;
            }
            if (e != 0 && err / std::fabs(e) > r.worst_rel) r.worst_rel = err / std::fabs(e);
        }
        if (!ok) {
            ++r.mismatches;
            if (r.first.size() < keep_first) r.first.push_back({i, g, e, err});
        }
    }
    return r;
}

template <class T>
CompareReport compare_arrays(const std::vector<T>& got, const std::vector<T>& ref, const Tolerance& tol,
                             std::size_t keep_first = 5) {
    return compare_arrays(got.data(), got.size(), ref.data(), ref.size(), tol, keep_first);
}

struct SortReport {
    bool sorted = true;
    bool permutation = true;
    std::size_t first_unsorted = 0;  // i with out[i+1] < out[i], when !sorted
    std::string message;             // empty when ok
    bool ok() const { return sorted && permutation; }
};

// Is `out` sorted by `less` and a permutation of `in`? Neither is modified
// (the permutation test sorts copies). Keys are compared by `less` only, so
// -0.0 and +0.0 count as equal keys, as they do for std::sort.
template <class T, class Less = std::less<T>>
SortReport check_sorted_permutation(const std::vector<T>& out, const std::vector<T>& in, Less less = Less()) {
    SortReport r;
    for (std::size_t i = 0; i + 1 < out.size(); ++i) {
        if (less(out[i + 1], out[i])) {
            r.sorted = false;
            r.first_unsorted = i;
            r.message = "not sorted: element " + std::to_string(i + 1) + " is less than element " + std::to_string(i);
            break;
        }
    }
    if (out.size() != in.size()) {
        r.permutation = false;
        r.message += (r.message.empty() ? "" : "; ") + std::string("not a permutation: ") + std::to_string(out.size()) +
                     " elements out, " + std::to_string(in.size()) + " in";
        return r;
    }
    std::vector<T> a(out), b(in);
    std::sort(a.begin(), a.end(), less);
    std::sort(b.begin(), b.end(), less);
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (less(a[i], b[i]) || less(b[i], a[i])) {
            r.permutation = false;
            r.message += (r.message.empty() ? "" : "; ") +
                         std::string("not a permutation of the input: the multisets of keys differ");
            break;
        }
    }
    return r;
}

}  // namespace hpclab
