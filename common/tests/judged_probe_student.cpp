// The "student code" of the judged-call probe: right, wrong (PROBE_WRONG=1)
// or a trap that must never run (PROBE_TRAP=1, set for the replaying run).
#include "judged_probe.hpp"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "hpclab/not_implemented.hpp"

namespace probe {

namespace {
bool wrong() { return std::getenv("PROBE_WRONG") != nullptr; }
void trap() {
    if (std::getenv("PROBE_TRAP")) std::abort();
}
}  // namespace

int twice(int x) {
    trap();
    return wrong() ? 2 * x + 1 : 2 * x;
}

void fill_squares(std::vector<double>& v) {
    trap();
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = wrong() ? 0.0 : static_cast<double>(i * i);
}

namespace {
void squares(double* p, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<double>(i * i);
}
void nap(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

// One thread that waits on a condition variable with no timeout (parked)
// until it is given a task: a pool that lives from call to call.
struct Pool {
    std::mutex m;
    std::condition_variable cv;
    std::function<void()> task;
    Pool() {
        std::thread([this] {
            std::unique_lock<std::mutex> lock(m);
            for (;;) {
                cv.wait(lock, [this] { return static_cast<bool>(task); });
                auto t = std::move(task);
                task = nullptr;
                lock.unlock();
                t();
                lock.lock();
            }
        }).detach();
    }
    void give(std::function<void()> t) {
        std::lock_guard<std::mutex> lock(m);
        task = std::move(t);
        cv.notify_one();
    }
};
}  // namespace

void fill_squares_leaving_work(std::vector<double>& v) {
    trap();
    double* p = v.data();
    const std::size_t n = v.size();
    squares(p, n);
    const std::string mode = std::getenv("PROBE_LATE") ? std::getenv("PROBE_LATE") : "";
    if (mode == "rewrite") {  // right at the return, wrong 100 ms later
        std::thread([p, n] {
            nap(100);
            for (std::size_t i = 0; i < n; ++i) p[i] = -1;
        }).detach();
    } else if (mode == "finish") {  // wrong at the return, right 50 ms later
        for (std::size_t i = 0; i < n; ++i) p[i] = 0;
        std::thread([p, n] {
            nap(50);
            squares(p, n);
        }).detach();
    } else if (mode == "sleeper") {
        std::thread([] { nap(30000); }).detach();
    } else if (mode == "timed_wait") {
        std::thread([] {
            std::mutex m;
            std::condition_variable cv;
            std::unique_lock<std::mutex> lock(m);
            cv.wait_for(lock, std::chrono::seconds(30), [] { return false; });
        }).detach();
    } else if (mode == "parked") {      // waits for ever: harmless
        static Pool& pool = *new Pool;  // never destroyed: its thread waits on it
        (void)pool;
    } else if (mode == "poll_forever") {  // as Open MPI's progress threads do: harmless
        std::thread([] { poll(nullptr, 0, -1); }).detach();
    } else if (mode == "pool_task") {  // the second call hands the parked thread a late rewrite
        static Pool& pool = *new Pool;
        static int calls = 0;
        if (++calls == 2) {
            pool.give([p, n] {
                nap(100);
                for (std::size_t i = 0; i < n; ++i) p[i] = -1;
            });
        }
    } else if (mode == "child") {
        if (fork() == 0) {
            nap(30000);
            _exit(0);
        }
    } else if (mode == "orphan") {  // a grandchild that left the process group
        const pid_t child = fork();
        if (child == 0) {
            setsid();
            if (fork() == 0) {
                nap(30000);
                _exit(0);
            }
            _exit(0);
        }
        waitpid(child, nullptr, 0);
    } else if (mode == "throw") {
        std::thread([] { nap(30000); }).detach();
        throw std::runtime_error("thrown with a thread left sleeping");
    }
}

void negate(double* p, std::size_t n) {
    trap();
    for (std::size_t i = 0; i < n; ++i) p[i] = -p[i];
}

double must_be_positive(double x) {
    trap();
    if (x <= 0) throw std::invalid_argument("must be positive");
    return x;
}

Summary summarize(const std::vector<double>& v) {
    trap();
    Summary s;
    s.count = v.size();
    for (double x : v) s.total += x;
    s.name = wrong() ? "wrong" : "summary";
    return s;
}

void fail_with_probe_error() {
    trap();
    throw ProbeError("probe error");
}

void todo() {
    trap();
    throw hpclab::NotImplemented("todo");
}

}  // namespace probe
