// The worker side of the grader's timing protocol (see timed.hpp).
#include "hpclab/timed.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>

namespace hpclab {
namespace timed {

namespace {

constexpr std::size_t kMaxLine = 4096;

class Fifo {
public:
    Fifo(const std::string& path, int flags) : fd_(::open(path.c_str(), flags | O_CLOEXEC)) {
        if (fd_ < 0) throw std::runtime_error("--serve: cannot open " + path + ": " + std::strerror(errno));
    }
    ~Fifo() {
        if (fd_ >= 0) ::close(fd_);
    }
    Fifo(const Fifo&) = delete;
    Fifo& operator=(const Fifo&) = delete;

    // One line without its newline; "" at end of file.
    std::string read_line() {
        std::string line;
        char c;
        while (line.size() < kMaxLine) {
            const ssize_t got = ::read(fd_, &c, 1);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0 || c == '\n') return line;
            line += c;
        }
        throw std::runtime_error("--serve: a command line is too long");
    }
    void write_line(const std::string& line) {
        const std::string text = line + "\n";
        std::size_t off = 0;
        while (off < text.size()) {
            const ssize_t put = ::write(fd_, text.data() + off, text.size() - off);
            if (put < 0 && errno == EINTR) continue;
            if (put <= 0)
                throw std::runtime_error(std::string("--serve: cannot write a reply: ") + std::strerror(errno));
            off += static_cast<std::size_t>(put);
        }
    }

private:
    int fd_;
};

std::string hex_double(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%a", v);
    return buf;
}

std::string one_line(std::string text) {
    for (char& c : text)
        if (c == '\n' || c == '\r') c = ' ';
    return text.substr(0, 1000);
}

// Command words shared with the other ranks: kind, repetition, seed.
enum : std::uint64_t { kGo = 1, kEnd = 2 };

std::uint64_t mix64(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// The weight of element i: +-1 to +-16 from a keyed mix of i (integers, so
// sums of integer data stay exact; 32 values, so that two elements swapped
// change a sum unless their weights happen to be equal, 1 chance in 32).
double weight(std::uint64_t key, std::size_t i) {
    const std::uint64_t h = mix64(key ^ i);
    const double w = static_cast<double>(1 + (h >> 60));
    return (h >> 59) & 1 ? -w : w;
}

template <class T>
std::vector<double> signed_sums_of(const T* values, std::size_t n, std::uint64_t seed, int patterns) {
    std::vector<double> sums(static_cast<std::size_t>(patterns), 0.0);
    for (int p = 0; p < patterns; ++p) {
        const std::uint64_t key = mix64(seed + 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(p + 1));
        double s = 0;
        for (std::size_t i = 0; i < n; ++i) s += weight(key, i) * static_cast<double>(values[i]);
        sums[static_cast<std::size_t>(p)] = s;
    }
    return sums;
}

}  // namespace

int serve(const std::string& dir, const Benchmark& b, const Coordinator& coordinator) {
    Fifo* commands = nullptr;
    Fifo* replies = nullptr;
    // O_RDWR: opening never waits for the grader's end, whichever opens first.
    std::unique_ptr<Fifo> in, out;
    if (coordinator.is_root) {
        in = std::make_unique<Fifo>(dir + "/go", O_RDWR);
        out = std::make_unique<Fifo>(dir + "/done", O_RDWR);
        commands = in.get();
        replies = out.get();
        replies->write_line("ready");
    }
    for (;;) {
        std::uint64_t cmd[3] = {kEnd, 0, 0};
        if (coordinator.is_root) {
            const std::string line = commands->read_line();
            unsigned long long k = 0, seed = 0;
            char extra = 0;
            if (std::sscanf(line.c_str(), "go %llu %llx %c", &k, &seed, &extra) == 2) {
                cmd[0] = kGo, cmd[1] = k, cmd[2] = seed;
            } else if (line != "end" && !line.empty()) {
                throw std::runtime_error("--serve: unknown command '" + one_line(line) + "'");
            }
        }
        if (coordinator.broadcast) coordinator.broadcast(cmd, 3);
        if (cmd[0] != kGo) return 0;
        std::string reply;
        try {
            b.prepare(cmd[2]);
            b.work();
            const std::vector<double> values = b.summarize();
            reply = "done " + std::to_string(cmd[1]);
            for (double v : values) reply += " " + hex_double(v);
        } catch (const std::exception& e) {
            reply = "error " + std::to_string(cmd[1]) + " " + one_line(e.what());
            if (replies) replies->write_line(reply);
            throw;
        }
        if (replies) replies->write_line(reply);
    }
}

std::vector<double> exact_digest(const void* data, std::size_t bytes) {
    // 64-bit words through SplitMix's finaliser, chained; the tail padded
    // with zeros and the length folded in at the end.
    const auto* p = static_cast<const unsigned char*>(data);
    std::uint64_t h = 0x243F6A8885A308D3ull;
    std::size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
        std::uint64_t w;
        std::memcpy(&w, p + i, 8);
        h = mix64(h ^ w) + 0x9E3779B97F4A7C15ull;
    }
    std::uint64_t tail = 0;
    if (i < bytes) std::memcpy(&tail, p + i, bytes - i);
    h = mix64(h ^ tail ^ (static_cast<std::uint64_t>(bytes) << 1));
    return {static_cast<double>(h >> 32), static_cast<double>(h & 0xFFFFFFFFull)};
}

std::vector<double> signed_sums(const double* values, std::size_t n, std::uint64_t seed, int patterns) {
    return signed_sums_of(values, n, seed, patterns);
}
std::vector<double> signed_sums(const float* values, std::size_t n, std::uint64_t seed, int patterns) {
    return signed_sums_of(values, n, seed, patterns);
}

}  // namespace timed
}  // namespace hpclab
