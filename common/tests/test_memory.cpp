// Host memory guard: overflow and impossible sizes are refused up front.
#include <gtest/gtest.h>

#include <limits>

#include "hpclab/memory.hpp"

TEST(Memory, AvailableIsPositive) { EXPECT_GT(hpclab::available_host_memory(), std::size_t(1) << 20); }

TEST(Memory, CheckedBytesOverflows) {
    EXPECT_EQ(hpclab::checked_bytes(10, 8), 80u);
    EXPECT_THROW(hpclab::checked_bytes(std::numeric_limits<std::size_t>::max() / 4, 8), std::overflow_error);
}

TEST(Memory, RequireRefusesTheImpossible) {
    EXPECT_NO_THROW(hpclab::require_host_memory(1024, "a kilobyte"));
    try {
        hpclab::require_host_memory(std::size_t(1) << 60, "an exabyte");
        FAIL();
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("an exabyte needs"), std::string::npos);
    }
}
