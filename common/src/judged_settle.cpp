// Settling a judged call in record mode (see judged_settle.hpp).
//
// Why: the submission's code runs in the recording process. A call can return
// while a thread, a child process sharing its memory or a GPU kernel that it
// started still writes the outputs, so a record taken the moment the call
// returns may hold values the outputs do not keep. judged.cpp therefore reads
// the outputs when the call returns, waits here until nothing the call started
// can run any more, reads them again, and refuses the call if they changed or
// if its work is still running at the deadline.
//
// Nothing can run any more when:
//  - every child process is gone (a zombie is gone). The recording process is
//    a child subreaper, so a grandchild that detached itself (setsid, a double
//    fork) becomes its child and is waited for too;
//  - every other thread is gone or parked: blocked in the kernel on something
//    only another thread or process can give it (a futex, a file descriptor,
//    a signal) with no timeout, or one of at least kHorizonMs, which no
//    recording run outlives under the grader's default limit (20 s). Runtime
//    pools park so: libgomp and oneTBB in futex waits with no timeout, Open
//    MPI's progress threads in poll and epoll_wait with timeouts of an hour
//    and of 120 s, the CUDA driver's thread of each context in poll with none.
//    A parked thread cannot wake by itself, and no one is left to wake it but
//    the caller, which writes the record next. Timers, which could wake it or
//    run a signal handler later, are refused in recording runs (profile
//    "record" of grading/hpcgrade/seccomp.py). A timeout held in memory
//    (futex, nanosleep, ppoll...) is never read: another thread could have
//    rewritten it after the kernel took its copy. Such a wait counts as work;
//  - the GPU has finished what was launched: a kernel on a non-blocking
//    stream outlives the call, and the copy of a device output does not wait
//    for it.
// One exception: the CUDA driver's event thread ("cuda-EvtHandlr", one per
// context) polls its descriptors every 100 ms for as long as the process
// lives. It is left alone while it polls, but only if test_starts saw the
// driver start it, before any code of the test ran, so that no thread of the
// submission can pass for it.
//
// Threads are read from /proc/self/task/TID/{stat,syscall,schedstat}. One scan
// is no atomic snapshot (a thread read as parked may be woken by one read
// later), so two scans in a row must agree: the same parked threads, none of
// which ran in between (the run time in schedstat unchanged).
#include "judged_settle.hpp"

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <utility>
#include <vector>

namespace hpclab {
namespace judged {
namespace settle {

namespace {

// A wait at least this long counts as one without a timeout (see the top).
constexpr long long kHorizonMs = 60 * 1000;

// x86-64 system call numbers (asm/unistd_64.h) of the waits a thread may be in.
enum : long {
    kRead = 0,
    kPoll = 7,
    kSelect = 23,
    kPause = 34,
    kNanosleep = 35,
    kWait4 = 61,
    kRtSigtimedwait = 128,
    kRtSigsuspend = 130,
    kFutex = 202,
    kClockNanosleep = 230,
    kEpollWait = 232,
    kWaitid = 247,
    kPselect6 = 270,
    kPpoll = 271,
    kEpollPwait = 281,
    kEpollPwait2 = 441,
    kFutexWaitv = 449,
    kRestartSyscall = 219,  // a timed wait (poll, nanosleep...) resumed after a signal
};

// Reads a small /proc file (relative to `dir`, or absolute) into buf,
// NUL-terminated. Returns its length, or -1 when it cannot be opened.
int read_small(int dir, const char* path, char* buf, int cap) {
    const int fd = openat(dir, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    int n = 0;
    while (n < cap - 1) {
        const ssize_t r = read(fd, buf + n, static_cast<std::size_t>(cap - 1 - n));
        if (r <= 0) break;
        n += static_cast<int>(r);
    }
    close(fd);
    buf[n] = '\0';
    return n;
}

int my_tid() { return static_cast<int>(syscall(SYS_gettid)); }

// The thread ids in /proc/self/task, read from `task_dir` (an fd of it).
std::vector<int> read_tids(int task_dir) {
    std::vector<int> tids;
    alignas(8) char buf[4096];
    for (;;) {
        const long n = syscall(SYS_getdents64, task_dir, buf, sizeof buf);
        if (n <= 0) break;
        for (long off = 0; off < n;) {
            const auto* e = reinterpret_cast<const dirent64*>(buf + off);
            if (e->d_name[0] != '.') tids.push_back(std::atoi(e->d_name));
            off += e->d_reclen;
        }
    }
    return tids;
}

int open_task_dir() { return open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC); }

// The CUDA driver's threads, started by test_starts before any call.
std::set<int>& cuda_threads() {
    static std::set<int> tids;
    return tids;
}

// One thread, as /proc shows it.
struct Task {
    char state = '?';  // R running, S sleeping, D disk, Z zombie...
    std::string comm;
    bool in_syscall = false;
    long nr = -1;
    std::uint64_t arg[6] = {0, 0, 0, 0, 0, 0};
};

bool read_task(int task_dir, int tid, Task& t) {
    char path[64], buf[512];
    std::snprintf(path, sizeof path, "%d/stat", tid);
    if (read_small(task_dir, path, buf, sizeof buf) < 0) return false;  // gone
    const char* open = std::strchr(buf, '(');
    const char* close = std::strrchr(buf, ')');
    if (!open || !close || close[1] == '\0') return false;
    t.comm.assign(open + 1, close);
    t.state = close[2];
    std::snprintf(path, sizeof path, "%d/syscall", tid);
    if (read_small(task_dir, path, buf, sizeof buf) <= 0) return true;  // unknown: not parked (see parked())
    if (std::strncmp(buf, "running", 7) == 0) return true;
    char* p = buf;
    t.nr = std::strtol(p, &p, 10);
    t.in_syscall = t.nr >= 0;
    for (auto& a : t.arg) a = std::strtoull(p, &p, 0);
    return true;
}

unsigned long long run_time_ns(int task_dir, int tid) {
    char path[64], buf[128];
    std::snprintf(path, sizeof path, "%d/schedstat", tid);
    if (read_small(task_dir, path, buf, sizeof buf) <= 0) return ~0ULL;  // unknown: never equal twice
    return std::strtoull(buf, nullptr, 10);
}

bool int_timeout_beyond_horizon(std::uint64_t arg) {
    const int ms = static_cast<int>(static_cast<std::uint32_t>(arg));
    return ms < 0 || ms >= kHorizonMs;
}

// True when the thread waits for ever, or beyond the horizon (see the top).
bool parked(const Task& t) {
#if defined(__x86_64__)
    if (t.state != 'S' || !t.in_syscall) return false;
    const std::uint64_t* a = t.arg;
    switch (t.nr) {
        case kFutex: {
            const std::uint64_t cmd = a[1] & ~std::uint64_t(128 | 256);  // FUTEX_PRIVATE_FLAG, FUTEX_CLOCK_REALTIME
            const bool waits = cmd == 0 || cmd == 9 || cmd == 6 || cmd == 13 || cmd == 11;  // WAIT, WAIT_BITSET,
            return waits && a[3] == 0;  // LOCK_PI, LOCK_PI2, WAIT_REQUEUE_PI; a[3] is the timeout
        }
        case kFutexWaitv: return a[3] == 0;
        case kPoll: return int_timeout_beyond_horizon(a[2]);
        case kEpollWait:
        case kEpollPwait: return int_timeout_beyond_horizon(a[3]);
        case kPpoll: return a[2] == 0;
        case kSelect:
        case kPselect6: return a[4] == 0;
        case kEpollPwait2: return a[3] == 0;
        case kPause:
        case kRtSigsuspend: return true;
        case kRtSigtimedwait: return a[2] == 0;
        default: return false;
    }
#else
    // Elsewhere the system call numbers differ: a sleeping thread counts as
    // parked (the timers are not refused there either: seccomp.py is x86-64).
    return t.state == 'S';
#endif
}

// The CUDA driver's event thread, started by test_starts, while it polls
// (its poll, interrupted by a signal, goes on as restart_syscall).
bool cuda_event_thread(int tid, const Task& t) {
    if (t.comm.compare(0, 4, "cuda") != 0 || !cuda_threads().count(tid) || t.state != 'S') return false;
    return t.nr == kPoll || t.nr == kPpoll || t.nr == kEpollWait || t.nr == kEpollPwait || t.nr == kEpollPwait2 ||
           t.nr == kRestartSyscall;
}

std::string doing(const Task& t) {
    if (t.state == 'R' || !t.in_syscall) return "a thread was still running";
    switch (t.nr) {
        case kNanosleep:
        case kClockNanosleep: return "a thread was still sleeping (nanosleep)";
        case kFutex:
        case kFutexWaitv: return "a thread was still in a wait with a timeout (futex)";
        case kPoll:
        case kEpollWait:
        case kEpollPwait:
        case kPpoll:
        case kEpollPwait2:
        case kSelect:
        case kPselect6: return "a thread was still in a wait with a timeout (poll, epoll or select)";
        case kRead: return "a thread was still reading a file descriptor";
        case kWait4:
        case kWaitid: return "a thread was still waiting for a child process";
        case kRestartSyscall: return "a thread was still in a wait with a timeout";
        default: return "a thread was still in system call " + std::to_string(t.nr);
    }
}

// The children of the threads `tids` (sorted), from /proc/self/task/TID/children.
// False when this kernel has no such file (CONFIG_PROC_CHILDREN).
bool read_children(int task_dir, const std::vector<int>& tids, std::vector<long>& pids) {
    pids.clear();
    char path[64], buf[4096];
    for (int tid : tids) {
        std::snprintf(path, sizeof path, "%d/children", tid);
        if (read_small(task_dir, path, buf, sizeof buf) < 0) {
            if (tid == my_tid()) return false;
            continue;  // the thread is gone
        }
        char* p = buf;
        for (;;) {
            const long pid = std::strtol(p, &p, 10);
            if (pid <= 0) break;
            pids.push_back(pid);
        }
    }
    std::sort(pids.begin(), pids.end());
    return true;
}

// Whether a process is neither a zombie nor gone.
bool alive(long pid) {
    char stat[512], path[64];
    std::snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    if (read_small(AT_FDCWD, path, stat, sizeof stat) < 0) return false;  // reaped
    const char* close = std::strrchr(stat, ')');
    const char state = close && close[1] ? close[2] : '?';
    return state != 'Z' && state != 'X';
}

// Live child processes of any thread: the first one's description, or "".
//
// The list of children and the state of each are read at different times.
// A child that was alive when the list was read may have exited before its
// state was read; before it became a zombie the kernel handed its own
// children (a detached sleeper, say) to this process, the subreaper, too
// late for the list already read. So a verdict of "none alive" stands only
// when the list, read again after every state, has not changed: a child seen
// dead had handed over its children before, and they would be in it.
std::string live_child(int task_dir, const std::vector<int>& tids) {
    siginfo_t none;
    std::memset(&none, 0, sizeof none);
    if (waitid(P_ALL, 0, &none, WEXITED | WNOHANG | WNOWAIT) != 0 && errno == ECHILD) return "";  // no child at all
    // There is a child. Without a children file (CONFIG_PROC_CHILDREN) waitid,
    // which does not reap, is all there is: a zombie hides the others, so any
    // child counts as alive.
    std::vector<long> pids, again;
    if (!read_children(task_dir, tids, pids)) return "a child process was still running";
    for (int round = 0; round < 64; ++round) {
        for (long pid : pids)
            if (alive(pid)) return "a child process (pid " + std::to_string(pid) + ") was still running";
        if (!read_children(task_dir, tids, again)) return "a child process was still running";
        if (again == pids) return "";
        pids.swap(again);
    }
    return "its child processes kept changing";
}

struct Scan {
    std::vector<std::pair<int, unsigned long long>> parked;  // tid, run time
    std::string busy;                                        // what still runs; "" when quiet
    bool quiet() const { return busy.empty(); }
    bool same(const Scan& o) const { return parked == o.parked; }
};

Scan scan() {
    Scan s;
    const int task_dir = open_task_dir();
    if (task_dir < 0) {
        s.busy = "the recorder could not read /proc/self/task";
        return s;
    }
    const std::vector<int> tids = read_tids(task_dir);
    const int self = my_tid();
    for (int tid : tids) {
        if (tid == self) continue;
        Task t;
        if (!read_task(task_dir, tid, t) || t.state == 'Z' || t.state == 'X') continue;  // gone
        if (cuda_event_thread(tid, t)) continue;
        if (!parked(t)) {
            s.busy = doing(t);
            break;
        }
        s.parked.emplace_back(tid, run_time_ns(task_dir, tid));
    }
    if (s.busy.empty()) s.busy = live_child(task_dir, tids);
    close(task_dir);
    return s;
}

// ---- the CUDA driver, through libcuda (judged.cpp links no CUDA) ----------

struct CudaDriver {
    int (*init)(unsigned) = nullptr;
    int (*device_count)(int*) = nullptr;
    int (*device_get)(int*, int) = nullptr;
    int (*primary_state)(int, unsigned*, int*) = nullptr;
    int (*primary_retain)(void**, int) = nullptr;
    int (*primary_release)(int) = nullptr;
    int (*push)(void*) = nullptr;
    int (*pop)(void**) = nullptr;
    int (*synchronize)() = nullptr;
};

template <class F>
bool find(void* lib, F& f, const char* name, const char* fallback = nullptr) {
    void* p = dlsym(lib, name);
    if (!p && fallback) p = dlsym(lib, fallback);
    f = reinterpret_cast<F>(p);
    return p != nullptr;
}

// Whether the process has loaded libcuda, from the loader's own list (no
// file is opened: this runs after every call of a process with threads).
bool libcuda_loaded() {
    return dl_iterate_phdr(
               [](dl_phdr_info* info, std::size_t, void*) {
                   const char* path = info->dlpi_name ? info->dlpi_name : "";
                   const char* slash = std::strrchr(path, '/');
                   return std::strncmp(slash ? slash + 1 : path, "libcuda.so", 10) == 0 ? 1 : 0;
               },
               nullptr) != 0;
}

// The driver once the process has loaded libcuda (`load`: load it now), or
// null. The CUDA runtime loads it on first use: before that, no GPU work can
// be pending.
const CudaDriver* cuda_driver(bool load) {
    static CudaDriver d;
    static bool ready = false;
    if (ready) return &d;
    if (!load && !libcuda_loaded()) return nullptr;
    void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL | (load ? 0 : RTLD_NOLOAD));
    if (!lib) return nullptr;
    ready = find(lib, d.init, "cuInit") && find(lib, d.device_count, "cuDeviceGetCount") &&
            find(lib, d.device_get, "cuDeviceGet") && find(lib, d.primary_state, "cuDevicePrimaryCtxGetState") &&
            find(lib, d.primary_retain, "cuDevicePrimaryCtxRetain") &&
            find(lib, d.primary_release, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease") &&
            find(lib, d.push, "cuCtxPushCurrent_v2", "cuCtxPushCurrent") &&
            find(lib, d.pop, "cuCtxPopCurrent_v2", "cuCtxPopCurrent") && find(lib, d.synchronize, "cuCtxSynchronize");
    return ready ? &d : nullptr;
}

// Waits for all work on every device whose primary context (the one the
// runtime uses) is active. Errors are the call's to report, not ours.
void synchronize_gpus(const CudaDriver& c) {
    int count = 0;
    if (c.device_count(&count) != 0) return;
    for (int i = 0; i < count; ++i) {
        int dev = 0, active = 0;
        unsigned flags = 0;
        void* ctx = nullptr;
        if (c.device_get(&dev, i) != 0 || c.primary_state(dev, &flags, &active) != 0 || !active) continue;
        if (c.primary_retain(&ctx, dev) != 0) continue;
        if (c.push(ctx) == 0) {
            c.synchronize();
            void* popped = nullptr;
            c.pop(&popped);
        }
        c.primary_release(dev);
    }
}

void pause_us(long us) {
    timespec ts{us / 1000000, (us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

// Scans until two scans in a row agree that all is quiet, or the deadline.
std::string settle_threads(std::chrono::steady_clock::time_point deadline) {
    Scan prev;
    bool have_prev = false;
    long pause = 20;
    for (;;) {
        Scan cur = scan();
        if (cur.quiet() && have_prev && prev.quiet() && cur.same(prev)) return "";
        if (std::chrono::steady_clock::now() >= deadline) return cur.quiet() ? "its threads kept waking up" : cur.busy;
        if (!cur.quiet()) {
            pause_us(pause);
            pause = std::min(pause * 2, 2000L);  // poll every 2 ms at most
        }
        prev = std::move(cur);
        have_prev = true;
    }
}

}  // namespace

void adopt_orphans() { prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

void test_starts() {
    const char* want = std::getenv("HPCLAB_JUDGE_CUDA");
    if (!want || std::strcmp(want, "1") != 0) return;
    const int task_dir = open_task_dir();
    if (task_dir < 0) return;
    const std::vector<int> before = read_tids(task_dir);
    close(task_dir);
    // The driver and every visible device's primary context (the one the
    // runtime uses, kept for the process's life as the runtime keeps it):
    // the driver starts an event thread per context, so a test that uses a
    // second GPU would otherwise start one that no scan could tell from the
    // submission's. The grader shows a lab that uses one GPU only one.
    const CudaDriver* c = cuda_driver(true);
    int count = 0;
    if (!c || c->init(0) != 0 || c->device_count(&count) != 0) return;
    for (int i = 0; i < count; ++i) {
        int dev = 0;
        void* ctx = nullptr;
        if (c->device_get(&dev, i) == 0) c->primary_retain(&ctx, dev);
    }
    const int again = open_task_dir();
    if (again < 0) return;
    for (int tid : read_tids(again))
        if (std::find(before.begin(), before.end(), tid) == before.end()) cuda_threads().insert(tid);
    close(again);
}

bool quiet() {
    const int task_dir = open_task_dir();
    if (task_dir < 0) return false;
    const std::vector<int> tids = read_tids(task_dir);
    if (tids.size() == 1) {  // the caller alone: the common case, a few system calls
        const bool none = live_child(task_dir, tids).empty();
        close(task_dir);
        return none;
    }
    close(task_dir);
    if (cuda_driver(false)) return false;  // kernels may still run: wait() synchronizes
    const Scan a = scan();
    if (!a.quiet()) return false;
    const Scan b = scan();
    return b.quiet() && a.same(b);
}

std::string wait(double seconds) {
    const auto deadline =
        std::chrono::steady_clock::now() +
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
    std::string why = settle_threads(deadline);
    if (!why.empty()) return why;
    if (const CudaDriver* c = cuda_driver(false)) {
        synchronize_gpus(*c);
        // What finished on the GPU may have woken a host thread (a host
        // function, a thread spinning on mapped memory).
        why = settle_threads(deadline);
    }
    return why;
}

}  // namespace settle
}  // namespace judged
}  // namespace hpclab
