// Benchmarking: warm-up, repetitions, min/median/max, throughput units,
// percent of a peak, and one result as a human table row or a JSON line.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace hpclab {

struct Stats {
    double min = 0, median = 0, max = 0, mean = 0;
    std::size_t count = 0;
};

// Summary of a list of timings (seconds); an empty list gives all zeros.
Stats summarize(std::vector<double> seconds);

// Run `timed` warmup times untimed, then reps times; each call returns the
// seconds of its own measured region (so a GPU call can use CUDA events and a
// CPU call can exclude its setup). Returns the summary of the reps.
Stats repeat(const std::function<double()>& timed, int warmup, int reps);

// Throughput helpers: quantity per second at the given time.
inline double gb_per_s(double bytes, double seconds) { return bytes / seconds / 1e9; }
inline double gflop_per_s(double flops, double seconds) { return flops / seconds / 1e9; }
inline double per_second(double items, double seconds) { return items / seconds; }
inline double percent_of(double value, double peak) { return peak > 0 ? 100.0 * value / peak : 0.0; }

// One measurement, as printed by every driver.
struct Measurement {
    std::string lab;                                    // "01-sorting"
    std::string name;                                   // "qsort", "tiled<32>", ...
    std::size_t n = 0;                                  // problem size
    Stats seconds;                                      // timing summary; the median is the headline
    double bytes = 0;                                   // bytes moved per run (0: not a memory-bound figure)
    double flops = 0;                                   // floating-point operations per run
    double items = 0;                                   // items processed per run (keys, roots, updates)
    double ratio = 0;                                   // ratio to the anchor measured in the same run (0: none)
    std::string anchor;                                 // what the ratio is against ("std::sort", "cuBLAS")
    std::vector<std::pair<std::string, double>> extra;  // further named figures

    // A measurement with its name and size, the rest to fill in.
    static Measurement named(std::string name, std::size_t n = 0) {
        Measurement m;
        m.name = std::move(name);
        m.n = n;
        return m;
    }

    double gbps() const;  // at the median
    double gflops() const;
    double items_per_s() const;
};

// Fixed-width header and row for a table of measurements.
std::string table_header();
std::string table_row(const Measurement& m);
// One JSON object on one line (for --json); machines read these, never the table.
std::string json_line(const Measurement& m);

}  // namespace hpclab
