// The settle step's child scan (judged_settle.cpp), against the race that let
// a detached sleeper pass for "no work left": the call returns while its
// child, which has just started a grandchild, is exiting. The scan reads the
// list of children while the child still lives and the child's state once it
// is a zombie; the grandchild, handed to this process (the subreaper) in
// between, is in neither. Before the fix, about 1 try in 40 was judged quiet.
#include "judged_settle.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

namespace settle = hpclab::judged::settle;

namespace {

// Starts a child that starts a grandchild in a new session and exits at
// once, and returns as soon as the grandchild exists, so that the child's
// exit overlaps the caller's scan. The grandchild lives until the caller
// closes its end of the pipe `hold`.
void leave_a_grandchild(const int hold[2]) {
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        setsid();
        const pid_t grandchild = fork();
        if (grandchild == 0) {
            close(hold[1]);
            char c;
            while (read(hold[0], &c, 1) > 0) {
            }
            _exit(0);
        }
        const char c = grandchild > 0 ? 1 : 0;
        (void)!write(ready[1], &c, 1);
        _exit(0);
    }
    char c = 0;
    ASSERT_EQ(read(ready[0], &c, 1), 1);
    ASSERT_EQ(c, 1) << "the child could not fork";
    close(ready[0]);
    close(ready[1]);
}

void reap_all() {
    while (waitpid(-1, nullptr, 0) > 0) {
    }
}

}  // namespace

TEST(Settle, AGrandchildHandedOverDuringTheScanIsStillSeen) {
    settle::adopt_orphans();
    constexpr int kTries = 2000;
    int judged_quiet = 0;
    for (int i = 0; i < kTries; ++i) {
        int hold[2];
        ASSERT_EQ(pipe(hold), 0);
        leave_a_grandchild(hold);
        if (settle::quiet()) ++judged_quiet;
        close(hold[0]);
        close(hold[1]);  // the grandchild exits
        reap_all();
    }
    EXPECT_EQ(judged_quiet, 0) << "of " << kTries << " tries, each with a grandchild alive";
    // And with every child gone the scan says so: it is not simply always busy.
    EXPECT_TRUE(settle::quiet());
}
