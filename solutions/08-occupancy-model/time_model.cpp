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
    const bool wait_before = previous.compute < previous.memory;
    const bool wait_now = current.compute < current.memory;
    if (!wait_before) return wait_now ? PeriodType::memory_now : PeriodType::compute_bound;
    return wait_now ? PeriodType::memory_both : PeriodType::memory_before;
}

double warp_bandwidth(const MemoryParameters& m) {
    if (m.bytes_per_thread <= 0 || m.transactions <= 0 || m.latency_cycles <= 0)
        throw std::invalid_argument("warp_bandwidth: parameters must be > 0");
    return 32.0 * m.bytes_per_thread / (m.transactions * m.latency_cycles);
}

double mpd(const MemoryParameters& m, int active_warps) {
    if (active_warps < 1) throw std::invalid_argument("mpd: active_warps must be >= 1");
    if (m.device_bytes_per_cycle <= 0 || m.active_sms < 1)
        throw std::invalid_argument("mpd: device bandwidth and active SMs must be > 0");
    const double fit = std::floor(m.device_bytes_per_cycle / (m.active_sms * warp_bandwidth(m)));
    return std::max(1.0, std::min(double(active_warps), fit));
}

double computation_proportion(const std::vector<Period>& periods) {
    double c = 0, m = 0;
    for (const Period& p : periods) {
        c += p.repeat * p.compute;
        m += p.repeat * p.memory;
    }
    return c + m > 0 ? c / (c + m) : 0.0;
}

double cpd(const CpdParameters& p, double proportion, int active_warps) {
    if (p.max_warps < 2 || active_warps < 1 || active_warps > p.max_warps)
        throw std::invalid_argument("cpd: need 1 <= active_warps <= max_warps and max_warps >= 2");
    const double n_act = active_warps, m = p.max_warps;
    const double cpd1 = (p.c - proportion) * (n_act - p.b) + p.a;
    const double n = p.d * (proportion - p.c) * (proportion - p.c);
    const double cpd2 = n / (m - 1) * std::sqrt((m - 1) * (m - 1) - (n_act - m) * (n_act - m)) + p.a;
    const double value = proportion < p.c ? std::min(cpd1, cpd2) : cpd2;
    return std::min(n_act, std::max(1.0, value));
}

double period_cycles(const Period& previous, const Period& current, int active_warps, double mpd_value,
                     double cpd_value) {
    if (active_warps < 1 || mpd_value < 1 || cpd_value <= 0)
        throw std::invalid_argument("period_cycles: active_warps and mpd must be >= 1, cpd > 0");
    const double n = active_warps, c = current.compute, m = current.memory;
    const double compute = std::ceil(n * c / cpd_value);
    const PeriodType type = classify(previous, current);
    double t_p = 0, t_c = 0;
    if (type == PeriodType::memory_before || type == PeriodType::memory_both)
        t_p = std::max(previous.memory * (std::floor(n / mpd_value) - 1) - (n - 1) * c, 0.0);
    if (type == PeriodType::memory_now) t_c = std::max(m - (n - 1) * c, 0.0);
    if (type == PeriodType::memory_both) t_c = std::max(m - ((n - 1) * c + t_p), 0.0);
    return compute + t_p + t_c;
}

double kernel_cycles(const std::vector<Period>& periods, int active_warps, double mpd_value, double cpd_value) {
    double total = 0;
    Period previous;
    for (const Period& p : periods) {
        if (p.repeat < 0) throw std::invalid_argument("kernel_cycles: repeat must be >= 0");
        if (p.repeat == 0) continue;
        total += period_cycles(previous, p, active_warps, mpd_value, cpd_value);
        if (p.repeat > 1) total += (p.repeat - 1) * period_cycles(p, p, active_warps, mpd_value, cpd_value);
        previous = p;
    }
    return total;
}

Prediction predict(const std::vector<Period>& periods, const MemoryParameters& memory, const CpdParameters& cpd_p,
                   const Launch& launch) {
    if (launch.blocks < 1 || launch.warps_per_block < 1 || launch.blocks_per_sm < 1 || launch.sm_count < 1 ||
        launch.clock_ghz <= 0)
        throw std::invalid_argument("predict: every count of the launch must be >= 1 and the clock > 0");
    Prediction r;
    r.proportion = computation_proportion(periods);
    const long long per_wave = static_cast<long long>(launch.blocks_per_sm) * launch.sm_count;
    r.full_waves = launch.blocks / per_wave;
    const long long rest = launch.blocks % per_wave;
    auto wave = [&](int blocks_on_sm, int sms, bool record) {
        MemoryParameters m = memory;
        m.active_sms = sms;
        const int n_act = blocks_on_sm * launch.warps_per_block;
        const double mpd_value = mpd(m, n_act);
        const double cpd_value = cpd(cpd_p, r.proportion, n_act);
        if (record) {
            r.active_warps = n_act;
            r.mpd = mpd_value;
            r.cpd = cpd_value;
        }
        return kernel_cycles(periods, n_act, mpd_value, cpd_value);
    };
    if (r.full_waves > 0) r.cycles += r.full_waves * wave(launch.blocks_per_sm, launch.sm_count, true);
    if (rest > 0) {
        const int on_sm = static_cast<int>((rest + launch.sm_count - 1) / launch.sm_count);
        const int sms = static_cast<int>(std::min<long long>(launch.sm_count, rest));
        r.cycles += wave(on_sm, sms, r.full_waves == 0);
    }
    r.seconds = r.cycles / (launch.clock_ghz * 1e9);
    return r;
}

double p_acc(double measured, double predicted) {
    if (!(measured > 0) || !(predicted > 0)) return 0.0;
    return std::min(measured, predicted) / std::max(measured, predicted);
}

}  // namespace lab08
