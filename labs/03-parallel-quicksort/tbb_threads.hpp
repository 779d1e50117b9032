// How many threads the tests ask a TBB sorter for. oneTBB never runs more
// workers than the machine has cores (less one, for the caller's thread) and
// says so on stderr when an arena asks for more: on a 2-core machine a
// 4-thread arena is a 2-thread arena plus a warning the student cannot act
// on. OpenMP runs as many threads as asked on any machine, and the tests ask
// it for more than there are cores on purpose.
#pragma once

#include <algorithm>
#include <thread>

namespace lab03 {

inline int tbb_threads(int wanted) {
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    return std::min(wanted, cores);
}

}  // namespace lab03
