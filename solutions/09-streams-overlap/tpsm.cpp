// Lab 09, stage 4b: Luo's TPSM, the formulas of chapter 4.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "overlap.hpp"

namespace lab09 {

Classification classify(double t_send, double t_kernel, double t_recv) {
    for (double t : {t_send, t_kernel, t_recv}) {
        if (!std::isfinite(t) || t < 0) throw std::invalid_argument("classify: times must be finite and >= 0");
    }
    if (t_send + t_kernel + t_recv == 0) throw std::invalid_argument("classify: every time is zero");
    Classification c;
    const double transfer = t_send + t_recv;
    c.bound = t_kernel >= transfer ? Bound::kernel : Bound::transfer;
    if (transfer > 0 && t_recv < kLightShare * transfer) {
        c.heavy = Heavy::send;
    } else if (transfer > 0 && t_send < kLightShare * transfer) {
        c.heavy = Heavy::receive;
    } else {
        c.heavy = Heavy::general;
    }
    return c;
}

double both_ways_time(double x_s, double x_r, const Rates& r) {
    const double ts = x_s / r.send_both, tr = x_r / r.recv_both;
    if (ts <= tr) {
        // Sending ends first; the rest of the receive runs alone.
        return ts + (x_r - ts * r.recv_both) / r.recv_only;
    }
    return tr + (x_s - tr * r.send_both) / r.send_only;
}

double geometric_ratio(const Task& t, const Rates& r) { return r.send_only * t.kernel_seconds / t.send_bytes; }

double equal_chunk_count(const Task& t, const Rates& r, double t_str) {
    if (!(t_str > 0)) throw std::invalid_argument("equal_chunk_count: t_str must be positive");
    const double saved =
        t.send_bytes / r.send_only + t.recv_bytes / r.recv_only - both_ways_time(t.send_bytes, t.recv_bytes, r);
    return std::sqrt(2 * saved / t_str);
}

double two_state_time(const State& p, const State& q, double x_s, double x_r) {
    // t_p p.send + t_q q.send = x_s and t_p p.recv + t_q q.recv = x_r, by Cramer's rule.
    const double det = p.send * q.recv - q.send * p.recv;
    if (det == 0) throw std::invalid_argument("two_state_time: the two states are parallel");
    const double tp = (x_s * q.recv - q.send * x_r) / det;
    const double tq = (p.send * x_r - x_s * p.recv) / det;
    if (tp < 0 || tq < 0) throw std::invalid_argument("two_state_time: these states cannot serve this mix");
    return tp + tq;
}

double three_point_search(const std::function<double(double)>& W, double b, int steps) {
    if (steps < 0) throw std::invalid_argument("three_point_search: steps must not be negative");
    if (!std::isfinite(b) || !(b > 0)) throw std::invalid_argument("three_point_search: b must be positive");
    double lo = std::max(1.0, b / 2);
    double hi = std::max(2 * b, lo + 1);
    double mid = (lo + hi) / 2;
    for (int s = 0; s < steps; ++s) {
        const double wl = W(lo), wm = W(mid), wh = W(hi);
        if (wl < wm && wl < wh) {
            hi = mid;
        } else if (wh < wm && wh < wl) {
            lo = mid;
        } else {
            lo = (lo + mid) / 2;
            hi = (mid + hi) / 2;
        }
        mid = (lo + hi) / 2;
    }
    return mid;
}

}  // namespace lab09
