// Checking results: absolute, relative and ULP tolerances, array comparison
// that reports the worst error and the first mismatches, and a
// sorted-and-permutation check that leaves inputs intact. Every check here is
// total: NaN, infinities and signed zeros have a stated outcome, and no wrong
// answer passes because a comparison with NaN is false.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace hpclab {

// The larger of two errors, NaN when either is NaN. std::max(worst, err) and
// std::fmax(worst, err) both drop a NaN err, so "worst = max(worst, err)"
// followed by "worst <= bound" passes an output of NaNs; with nan_max the
// NaN stays and the bound fails.
inline double nan_max(double a, double b) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
    return a < b ? b : a;
}

// Distance in units in the last place between two finite values of the same
// sign or across zero (+0 and -0 are 0 apart). NaN against anything, or Inf
// against a finite value, is "infinitely" far: the maximum of uint64_t.
std::uint64_t ulp_distance(double a, double b);
std::uint64_t ulp_distance(float a, float b);

// A value matches its reference when any one of the bounds that is set holds:
// |got - ref| <= abs, |got - ref| <= rel * |ref|, ulp_distance <= ulps. A
// bound of 0, below 0 or NaN is not set. Tolerances compare numbers, so:
// - NaN matches only NaN, whatever the sign and payload of either (IEEE 754
//   leaves an operation's NaN payload open). NaN where a number is expected,
//   or a number where NaN is expected, never matches, however loose the
//   tolerance.
// - An infinity matches only the same infinity, never a finite value.
// - -0.0 and +0.0 are the same number and match, even under exact(). Where
//   the bits matter (a sort must keep every element as it was), use
//   check_sorted_permutation or multiset_difference, which compare bits.
// Integers (compare_arrays) match when equal or, with abs set, when
// |got - ref| <= abs, computed exactly (no rounding through double).
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
    double worst_abs = 0;         // largest |got - ref|; NaN when a NaN stands against a number
    double worst_rel = 0;         // largest |got - ref| / |ref| over ref != 0 (NaN pairs excluded)
    std::size_t worst_index = 0;  // where worst_abs occurs (the first NaN against a number)
    bool size_mismatch = false;
    std::vector<Mismatch> first;  // the first few mismatches, in index order

    bool ok() const { return !size_mismatch && mismatches == 0; }
    // "3 of 1000 elements differ; worst |err| = ... at [17]; first: x[17] = got, expected ref (|err| = e) ..."
    std::string describe(const std::string& array_name = "x") const;
};

namespace detail {

// |a - b| for integers, exactly: the distance of two 64-bit values fits in
// 64 unsigned bits.
template <class T>
std::uint64_t integer_distance(T a, T b) {
    if constexpr (std::is_signed<T>::value) {
        const auto x = static_cast<std::int64_t>(a), y = static_cast<std::int64_t>(b);
        return x >= y ? static_cast<std::uint64_t>(x) - static_cast<std::uint64_t>(y)
                      : static_cast<std::uint64_t>(y) - static_cast<std::uint64_t>(x);
    } else {
        const auto x = static_cast<std::uint64_t>(a), y = static_cast<std::uint64_t>(b);
        return x >= y ? x - y : y - x;
    }
}

inline bool within_integer_tolerance(std::uint64_t distance, double abs) {
    if (distance == 0) return true;
    if (!(abs >= 1)) return false;                       // unset, or below the smallest nonzero distance
    if (abs >= 0x1p64) return true;                      // every distance
    return distance <= static_cast<std::uint64_t>(abs);  // exact: floor(abs) fits
}

}  // namespace detail

template <class T>
CompareReport compare_arrays(const T* got, std::size_t n_got, const T* ref, std::size_t n_ref, const Tolerance& tol,
                             std::size_t keep_first = 5) {
    static_assert(std::is_floating_point<T>::value || std::is_integral<T>::value, "compare_arrays compares numbers");
    CompareReport r;
    r.size_mismatch = n_got != n_ref;
    r.count = std::min(n_got, n_ref);
    bool nan_seen = false;
    for (std::size_t i = 0; i < r.count; ++i) {
        const double g = static_cast<double>(got[i]);
        const double e = static_cast<double>(ref[i]);
        bool ok;
        double err;
        if constexpr (std::is_floating_point<T>::value) {
            ok = matches(got[i], ref[i], tol);
            err = std::fabs(g - e);
        } else {
            const std::uint64_t d = detail::integer_distance(got[i], ref[i]);
            ok = detail::within_integer_tolerance(d, tol.abs);
            err = static_cast<double>(d);
        }
        if (std::isnan(err)) {
            // NaN against a number (a NaN pair, or equal infinities, matched).
            if (!ok && !nan_seen) {
                nan_seen = true;
                r.worst_abs = err;
                r.worst_index = i;
            }
        } else {
            if (!nan_seen && err > r.worst_abs) {
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

// ---- Sorted permutations ----------------------------------------------------------
//
// For integers and floating point of 1, 2, 4 or 8 bytes:
// - A permutation keeps every element's bits: the multisets of bit patterns
//   of the output and the input are equal. So -0.0 and +0.0 are different
//   elements (a sort that turns -0.0 into 0.0 lost one), and so are NaNs of
//   different sign or payload.
// - Sorted means in the order of the caller's `less` (std::less,
//   std::greater, or any strict weak order on the numbers present): no
//   element `less` than the one before it. -0.0 and +0.0 are equal keys
//   under < and >, so they may come in either order; infinities are keys like
//   any other (-inf first under <, last under >).
// - NaN has no place in the order of < or >: every comparison with it is
//   false, so "no element less than the one before" would hold wherever it
//   stands, and {0.1, NaN, 0.3} would pass as sorted. Here NaNs come last,
//   one block after every number, whatever the order asked for (as
//   numpy.sort puts them); a NaN followed by a number is "not sorted".

namespace detail {

// The unsigned integer of BYTES bytes (1, 2, 4 or 8): an element's bits.
template <std::size_t Bytes>
using UnsignedOf = std::conditional_t<
    Bytes == 1, std::uint8_t,
    std::conditional_t<Bytes == 2, std::uint16_t, std::conditional_t<Bytes == 4, std::uint32_t, std::uint64_t>>>;

template <class T>
constexpr bool bit_comparable() {
    return std::is_arithmetic<T>::value && (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);
}

template <class T>
UnsignedOf<sizeof(T)> bits_of(T x) {
    static_assert(bit_comparable<T>(), "bits_of: an element of 1, 2, 4 or 8 bytes");
    UnsignedOf<sizeof(T)> b;
    std::memcpy(&b, &x, sizeof b);
    return b;
}

template <class T>
bool is_nan(T x) {
    if constexpr (std::is_floating_point<T>::value) {
        return std::isnan(x);
    } else {
        return false;
    }
}

// "0.5", "-0", "inf", "NaN (bits 0x7ff8000000000000)", "42".
template <class T>
std::string show(T x) {
    char buf[64];
    if constexpr (std::is_floating_point<T>::value) {
        if (std::isnan(x)) {
            std::snprintf(buf, sizeof buf, "NaN (bits 0x%llx)", static_cast<unsigned long long>(bits_of(x)));
        } else {
            std::snprintf(buf, sizeof buf, "%.17g", static_cast<double>(x));
        }
    } else if constexpr (std::is_signed<T>::value) {
        std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(x));
    } else {
        std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(x));
    }
    return buf;
}

template <class T>
std::vector<UnsignedOf<sizeof(T)>> sorted_bits(const T* p, std::size_t n) {
    std::vector<UnsignedOf<sizeof(T)>> b(n);
    for (std::size_t i = 0; i < n; ++i) b[i] = bits_of(p[i]);
    std::sort(b.begin(), b.end());
    return b;
}

}  // namespace detail

// Do `got` and `want` hold the same elements, bit for bit, each as often?
// "" when they do; else what differs: the sizes, or the first few bit
// patterns (in the order of bit patterns) that occur a different number of
// times, each as "x occurs 2 time(s) in the output, 1 in the input".
template <class T>
std::string multiset_difference(const T* got, std::size_t n_got, const T* want, std::size_t n_want,
                                int keep_first = 3) {
    static_assert(detail::bit_comparable<T>(), "multiset_difference compares numbers of 1, 2, 4 or 8 bytes");
    if (n_got != n_want) return std::to_string(n_got) + " elements out, " + std::to_string(n_want) + " in";
    const auto a = detail::sorted_bits(got, n_got), b = detail::sorted_bits(want, n_want);
    std::string out;
    int shown = 0;
    std::size_t i = 0, j = 0;
    while ((i < a.size() || j < b.size()) && shown < keep_first) {
        const auto x = j == b.size() || (i < a.size() && a[i] <= b[j]) ? a[i] : b[j];
        std::size_t ca = 0, cb = 0;
        while (i < a.size() && a[i] == x) ++i, ++ca;
        while (j < b.size() && b[j] == x) ++j, ++cb;
        if (ca != cb) {
            T value;
            std::memcpy(&value, &x, sizeof value);
            out += (shown++ ? "; " : "") + detail::show(value) + " occurs " + std::to_string(ca) +
                   " time(s) in the output, " + std::to_string(cb) + " in the input";
        }
    }
    return out;
}

template <class T>
std::string multiset_difference(const std::vector<T>& got, const std::vector<T>& want, int keep_first = 3) {
    return multiset_difference(got.data(), got.size(), want.data(), want.size(), keep_first);
}

// The first i at which out[i], out[i + 1] break the order `less` asks for
// (see above: `less` for numbers, NaNs last), or n when none does.
template <class T, class Less = std::less<T>>
std::size_t first_unsorted_pair(const T* out, std::size_t n, Less less = Less()) {
    for (std::size_t i = 0; i + 1 < n; ++i) {
        const bool nan_here = detail::is_nan(out[i]), nan_next = detail::is_nan(out[i + 1]);
        if (nan_here ? !nan_next : (!nan_next && less(out[i + 1], out[i]))) return i;
    }
    return n;
}

struct SortReport {
    bool sorted = true;
    bool permutation = true;
    std::size_t first_unsorted = 0;  // i where out[i], out[i+1] break the order, when !sorted
    std::string message;             // empty when ok
    bool ok() const { return sorted && permutation; }
};

// Is `out` sorted by `less` and a permutation of `in`, bit for bit (see
// above for NaN, -0.0 and infinities)? Neither is modified (the permutation
// test sorts copies of the bit patterns, so a NaN cannot upset it).
template <class T, class Less = std::less<T>>
SortReport check_sorted_permutation(const std::vector<T>& out, const std::vector<T>& in, Less less = Less()) {
    static_assert(detail::bit_comparable<T>(), "check_sorted_permutation checks numbers of 1, 2, 4 or 8 bytes");
    SortReport r;
    const std::size_t at = first_unsorted_pair(out.data(), out.size(), less);
    if (at < out.size()) {
        r.sorted = false;
        r.first_unsorted = at;
        const std::string a = std::to_string(at), b = std::to_string(at + 1);
        r.message = detail::is_nan(out[at]) ? "not sorted: element " + a + " is NaN and element " + b + " (" +
                                                  detail::show(out[at + 1]) + ") is not; NaNs go last"
                                            : "not sorted: element " + b + " (" + detail::show(out[at + 1]) +
                                                  ") belongs before element " + a + " (" + detail::show(out[at]) + ")";
    }
    const std::string difference = multiset_difference(out, in);
    if (!difference.empty()) {
        r.permutation = false;
        r.message +=
            (r.message.empty() ? "" : "; ") + std::string("not a permutation of the input, bit for bit: ") + difference;
    }
    return r;
}

}  // namespace hpclab
