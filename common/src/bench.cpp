// Benchmark statistics and the two output formats (table row, JSON line).
#include "hpclab/bench.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <numeric>

namespace hpclab {

Stats summarize(std::vector<double> seconds) {
    Stats s;
    s.count = seconds.size();
    if (seconds.empty()) return s;
    std::sort(seconds.begin(), seconds.end());
    s.min = seconds.front();
    s.max = seconds.back();
    const std::size_t mid = seconds.size() / 2;
    s.median = seconds.size() % 2 ? seconds[mid] : 0.5 * (seconds[mid - 1] + seconds[mid]);
    s.mean = std::accumulate(seconds.begin(), seconds.end(), 0.0) / static_cast<double>(seconds.size());
    return s;
}

Stats repeat(const std::function<double()>& timed, int warmup, int reps) {
    for (int i = 0; i < warmup; ++i) timed();
    std::vector<double> t;
    t.reserve(reps > 0 ? static_cast<std::size_t>(reps) : 0);
    for (int i = 0; i < reps; ++i) t.push_back(timed());
    return summarize(std::move(t));
}

double Measurement::gbps() const { return seconds.median > 0 ? gb_per_s(bytes, seconds.median) : 0; }
double Measurement::gflops() const { return seconds.median > 0 ? gflop_per_s(flops, seconds.median) : 0; }
double Measurement::items_per_s() const { return seconds.median > 0 ? per_second(items, seconds.median) : 0; }

std::string table_header() {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%-24s %12s %11s %11s %11s %18s %8s", "name", "n", "median s", "min s", "max s",
                  "throughput", "ratio");
    return buf;
}

// The one throughput that fits the measurement: GFLOP/s for compute, GB/s
// for memory traffic, items per second otherwise; empty when none is set.
static std::string throughput(const Measurement& m) {
    char buf[64];
    if (m.flops > 0)
        std::snprintf(buf, sizeof buf, "%.2f GFLOP/s", m.gflops());
    else if (m.bytes > 0)
        std::snprintf(buf, sizeof buf, "%.2f GB/s", m.gbps());
    else if (m.items > 0)
        std::snprintf(buf, sizeof buf, "%.3g items/s", m.items_per_s());
    else
        buf[0] = '\0';
    return buf;
}

std::string table_row(const Measurement& m) {
    char buf[512];
    std::snprintf(buf, sizeof buf, "%-24s %12zu %11.6f %11.6f %11.6f %18s %8.3f", m.name.c_str(), m.n, m.seconds.median,
                  m.seconds.min, m.seconds.max, throughput(m).c_str(), m.ratio);
    std::string row(buf);
    for (const auto& kv : m.extra) {
        std::snprintf(buf, sizeof buf, "  %s=%.4g", kv.first.c_str(), kv.second);
        row += buf;
    }
    return row;
}

std::string json_line(const Measurement& m) {
    nlohmann::json j;
    j["lab"] = m.lab;
    j["name"] = m.name;
    j["n"] = m.n;
    j["seconds"] = {{"median", m.seconds.median},
                    {"min", m.seconds.min},
                    {"max", m.seconds.max},
                    {"mean", m.seconds.mean},
                    {"reps", m.seconds.count}};
    if (m.bytes > 0) j["gb_per_s"] = m.gbps();
    if (m.flops > 0) j["gflop_per_s"] = m.gflops();
    if (m.items > 0) j["items_per_s"] = m.items_per_s();
    if (!m.anchor.empty()) {
        j["anchor"] = m.anchor;
        j["ratio"] = m.ratio;
    }
    for (const auto& kv : m.extra) j[kv.first] = kv.second;
    return j.dump();
}

}  // namespace hpclab
