// WallTimer measures wall time, including time spent sleeping.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "hpclab/timing.hpp"

TEST(WallTimer, MeasuresSleepAsWallTime) {
    const double s = hpclab::time_seconds([] { std::this_thread::sleep_for(std::chrono::milliseconds(20)); });
    EXPECT_GE(s, 0.019);
    EXPECT_LT(s, 2.0);
}

TEST(WallTimer, RestartResetsOrigin) {
    hpclab::WallTimer t;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    t.restart();
    EXPECT_LT(t.seconds(), 0.019);
}
