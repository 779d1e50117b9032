// Where a driver's measurements go: with --json one JSON object per line
// (machines, plots and scripts read these, never the human text), otherwise
// the human form the driver chooses. The lab's name comes from the build
// (HPCLAB_LAB, set for every target of a lab), so no driver spells it.
#pragma once

#include <iostream>
#include <string>

#include "hpclab/bench.hpp"

#ifdef HPCLAB_LAB
#define HPCLAB_LAB_NAME HPCLAB_LAB
#else
#define HPCLAB_LAB_NAME ""
#endif

namespace hpclab {

// printf into a std::string, for the human lines a driver emits. The
// compiler checks the arguments against a literal pattern (-Wformat).
std::string format(const char* pattern, ...) __attribute__((format(printf, 1, 2)));

class Reporter {
public:
    // `active`: false on the MPI ranks that must stay quiet (all but rank 0).
    // `lab`: defaults to the name the build gave the calling target.
    explicit Reporter(bool json, bool active = true, std::string lab = HPCLAB_LAB_NAME, std::ostream& out = std::cout)
        : json_(json), active_(active), lab_(std::move(lab)), out_(out) {}

    bool json() const { return json_; }

    // One measurement: its JSON line, or `human` as it is.
    void emit(Measurement m, const std::string& human);
    // One measurement: its JSON line, or the fixed-width table row.
    void row(Measurement m);
    // The table's header (human form only).
    void header();
    // A line for people only (nothing in --json form).
    void note(const std::string& line);

private:
    void stamp(Measurement& m) const;
    bool json_, active_;
    std::string lab_;
    std::ostream& out_;
};

}  // namespace hpclab
