// Wall-clock timing for host code. std::chrono::steady_clock, never clock():
// clock() sums CPU time over all threads, so it overstates threaded code.
#pragma once

#include <chrono>
#include <utility>

namespace hpclab {

class WallTimer {
public:
    WallTimer() : start_(Clock::now()) {}
    void restart() { start_ = Clock::now(); }
    // Seconds since construction or the last restart().
    double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

private:
    using Clock = std::chrono::steady_clock;
    Clock::time_point start_;
};

// Time one call of f in seconds.
template <class F>
double time_seconds(F&& f) {
    WallTimer timer;
    std::forward<F>(f)();
    return timer.seconds();
}

}  // namespace hpclab
