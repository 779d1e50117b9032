// Lab LABNUM hidden tests (compiled only by the grader): the launch
// geometry for block sizes and counts the visible tests do not try.
#include <gtest/gtest.h>

#include <cstddef>

#include "hpclab/judged.hpp"
#include "saxpy.hpp"

namespace {

TEST(Hidden, GridForOtherBlockSizes) {
    for (unsigned block : {1u, 64u, 512u, 1024u}) {
        for (std::size_t n : {std::size_t{1}, std::size_t{1023}, std::size_t{1025}, std::size_t{1} << 31}) {
            const std::size_t b = HPCLAB_VALUE(LABNS::blocks_for(n, block));
            ASSERT_GE(b * block, n) << "n " << n << ", block " << block;
            ASSERT_LT((b - 1) * block, n) << "n " << n << ", block " << block;
        }
    }
}

}  // namespace
