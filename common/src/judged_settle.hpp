// Settling a judged call in record mode (see judged_settle.cpp): the record of
// a call is written only once the work the call may have left running (a
// thread, a child process, a GPU kernel) has stopped. Private to judged.cpp.
#pragma once

#include <string>

namespace hpclab {
namespace judged {
namespace settle {

// Once per recording process, before any test: orphaned descendants of the
// process become its children, so that a child which detached itself (setsid,
// a double fork) is still waited for.
void adopt_orphans();

// When the test starts, with HPCLAB_JUDGE_CUDA=1 (the grader's recording
// runs of a CUDA lab): starts the CUDA driver and the first device's primary
// context before any student code of the test runs, so that the driver's own
// threads are known as its own.
void test_starts();

// Right after the call: true when nothing but the calling thread can run (no
// child process alive, every other thread parked, no GPU in use), so the
// outputs can be read once.
bool quiet();

// Otherwise: waits, up to `seconds`, until the process is quiet and the GPU
// idle. Returns "" when it is, or why not in plain words.
std::string wait(double seconds);

}  // namespace settle
}  // namespace judged
}  // namespace hpclab
