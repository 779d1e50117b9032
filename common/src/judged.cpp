// Judged calls (see judged.hpp): the record file's format, writing it in the
// student's process, and reading it back strictly in the judge's.
//
// File DIR/<test>.r<rank>, all integers little-endian as the machine writes
// them (recorder and judge run on the same host):
//   "HPCLABR1"  u32 name length, name (the test's full name)
//   per call:   'C' u32 label length, label  u8 outcome (0 returned, 1 threw,
//               2 refused: it left work running, see Recording::finish)
//               [threw: u8 exception kind, u32 message length, message]
//               [refused: u32 message length, message (why, for the judge)]
//               u32 item count (0 when refused), per item: u64 length, bytes
//   at the end: 'E' u32 threads when the test started, u32 threads at its end
// Nothing may follow 'E'. A file without 'E' comes from a run that ended
// before its test finished.
#include "hpclab/judged.hpp"

#include <dirent.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <new>
#include <sstream>
#include <stdexcept>

#include "hpclab/cli_core.hpp"
#include "hpclab/not_implemented.hpp"
#include "judged_settle.hpp"

namespace hpclab {
namespace judged {

namespace {

constexpr char kMagic[8] = {'H', 'P', 'C', 'L', 'A', 'B', 'R', '1'};
// Far above any test's outputs; below it, the grader's own file-size limit
// decides. Bounds what a forged file can make the judge read.
constexpr std::size_t kMaxFileBytes = std::size_t(1) << 30;
constexpr std::size_t kMaxLabelBytes = 4096;
constexpr std::size_t kMaxMessageBytes = 1 << 16;
constexpr std::size_t kMaxItems = 1 << 10;
// How long a call's work may go on after it returned (threads parking, a
// kernel finishing) before the call is refused; far above what a runtime's
// pool takes to park (tens of microseconds to a few milliseconds).
constexpr double kSettleSeconds = 2.0;
// The recording process's exit status after a refused call (never read for
// a score: the judge reads the refusal from the record).
constexpr int kRefusedExit = 3;

const char* env(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? v : nullptr;
}

Mode read_mode() {
    if (env("HPCLAB_JUDGE_REPLAY")) return Mode::replay;
    if (env("HPCLAB_JUDGE_RECORD")) return Mode::record;
    return Mode::direct;
}

// The MPI rank from the launcher's environment (no MPI dependency here).
int rank() {
    for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
        if (const char* v = env(name)) return std::atoi(v);
    }
    return 0;
}

// Test names hold '/' (parameterised tests): percent-encode everything but
// letters, digits, '.', '_' and '-' to get one file name.
std::string file_name(const std::string& test) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : test) {
        if (std::isalnum(c) || c == '.' || c == '_' || c == '-') {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out + ".r" + std::to_string(rank());
}

std::string current_test_name() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    if (!info) return "";
    return std::string(info->test_suite_name()) + "." + info->name();
}

int thread_count() {
    int n = 0;
    if (DIR* d = opendir("/proc/self/task")) {
        while (const dirent* e = readdir(d)) n += e->d_name[0] != '.';
        closedir(d);
    }
    return n;
}

template <class T>
void put_pod(std::string& out, const T& v) {
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// ---- record ---------------------------------------------------------------

struct RecordState {
    std::FILE* file = nullptr;
    int threads_at_start = 0;
};
RecordState& recording() {
    static RecordState state;
    return state;
}

// ---- replay ---------------------------------------------------------------

struct CallRecord {
    std::string label;
    std::uint8_t outcome = 0;
    ExceptionKind kind = ExceptionKind::unknown;
    std::string message;
    std::vector<std::pair<std::size_t, std::size_t>> items;  // offset, length in `bytes`
};

struct ReplayState {
    std::string test;
    std::string bytes;
    std::vector<CallRecord> calls;
    std::string status = "missing";  // ok, missing, malformed: ..., incomplete, other test: ...
    std::size_t replayed = 0;
    bool failed = false;  // a replay error: later calls of the test fail too
    int threads_at_start = 0, threads_at_end = 0;
};
ReplayState& replaying() {
    static ReplayState state;
    return state;
}

// Parses the whole file up front, so a malformed tail fails the first call
// instead of passing the calls before it.
class Parser {
public:
    explicit Parser(const std::string& bytes) : s_(bytes) {}

    void parse(ReplayState& st) {
        if (s_.size() < sizeof kMagic || s_.compare(0, sizeof kMagic, kMagic, sizeof kMagic) != 0)
            throw Malformed{"not a record file (bad header)"};
        p_ = sizeof kMagic;
        const std::string name = text(kMaxLabelBytes);
        if (name != st.test) throw Malformed{"it was recorded for another test (" + name.substr(0, 200) + ")"};
        while (p_ < s_.size()) {
            const char tag = s_[p_++];
            if (tag == 'E') {
                st.threads_at_start = static_cast<int>(u32());
                st.threads_at_end = static_cast<int>(u32());
                if (p_ != s_.size()) throw Malformed{"data after the end of the test"};
                st.status = "ok";
                return;
            }
            if (tag != 'C') throw Malformed{"an unknown record"};
            CallRecord c;
            c.label = text(kMaxLabelBytes);
            c.outcome = u8();
            if (c.outcome > 2) throw Malformed{"an unknown call outcome"};
            if (c.outcome == 2) c.message = text(kMaxMessageBytes);
            if (c.outcome == 1) {
                const auto k = u8();
                if (k > static_cast<std::uint8_t>(ExceptionKind::cuda_error))
                    throw Malformed{"an unknown exception kind"};
                c.kind = static_cast<ExceptionKind>(k);
                c.message = text(kMaxMessageBytes);
            }
            const std::uint32_t n = u32();
            if (n > kMaxItems) throw Malformed{"too many outputs in one call"};
            if (c.outcome == 2 && n != 0) throw Malformed{"a refused call with outputs"};
            for (std::uint32_t i = 0; i < n; ++i) {
                const std::uint64_t len = u64();
                if (len > s_.size() - p_) throw Malformed{"an output is cut short"};
                c.items.emplace_back(p_, static_cast<std::size_t>(len));
                p_ += static_cast<std::size_t>(len);
            }
            st.calls.push_back(std::move(c));
        }
        st.status = "incomplete";
    }

private:
    void need(std::size_t n) {
        if (s_.size() - p_ < n) throw Malformed{"the file is cut short"};
    }
    std::uint8_t u8() {
        need(1);
        return static_cast<std::uint8_t>(s_[p_++]);
    }
    std::uint32_t u32() {
        need(4);
        std::uint32_t v;
        std::memcpy(&v, s_.data() + p_, 4);
        p_ += 4;
        return v;
    }
    std::uint64_t u64() {
        need(8);
        std::uint64_t v;
        std::memcpy(&v, s_.data() + p_, 8);
        p_ += 8;
        return v;
    }
    std::string text(std::size_t max) {
        const std::uint32_t n = u32();
        if (n > max) throw Malformed{"a text field is too long"};
        need(n);
        std::string t = s_.substr(p_, n);
        p_ += n;
        return t;
    }

    const std::string& s_;
    std::size_t p_ = 0;
};

void load_replay(ReplayState& st, const std::string& dir) {
    const std::string path = dir + "/" + file_name(st.test);
    std::ifstream in(path, std::ios::binary);
    if (!in) return;  // status stays "missing"
    in.seekg(0, std::ios::end);
    const auto size = static_cast<std::size_t>(in.tellg());
    if (size > kMaxFileBytes) {
        st.status = "malformed: the file is larger than the judge accepts";
        return;
    }
    in.seekg(0);
    st.bytes.resize(size);
    in.read(&st.bytes[0], static_cast<std::streamsize>(size));
    try {
        Parser(st.bytes).parse(st);
    } catch (const Malformed& m) {
        st.status = "malformed: " + m.why;
        st.calls.clear();
    }
}

std::string json_escape(const std::string& s) {
    std::string out;
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

// One JSON line per test to HPCLAB_JUDGE_NOTES.r<rank>: what the judge made
// of the record. The grader requires "record": "ok" as well as a passed test,
// since a test that makes no call could otherwise pass on a missing record.
void (*replay_failure_handler)(const std::string&) = nullptr;

void write_note(const ReplayState& st) {
    const char* notes = env("HPCLAB_JUDGE_NOTES");
    if (!notes) return;
    const std::string path = std::string(notes) + ".r" + std::to_string(rank());
    std::ofstream out(path, std::ios::app);
    out << "{\"test\": \"" << json_escape(st.test) << "\", \"record\": \"" << json_escape(st.status)
        << "\", \"calls_recorded\": " << st.calls.size() << ", \"calls_replayed\": " << st.replayed
        << ", \"threads_at_start\": " << st.threads_at_start << ", \"threads_at_end\": " << st.threads_at_end << "}\n";
}

// Opens and closes each test's record (record mode) or loads it (replay).
class Listener : public ::testing::EmptyTestEventListener {
    void OnTestStart(const ::testing::TestInfo& info) override {
        const std::string name = std::string(info.test_suite_name()) + "." + info.name();
        if (mode() == Mode::record) {
            auto& st = recording();
            const std::string path = std::string(env("HPCLAB_JUDGE_RECORD")) + "/" + file_name(name);
            st.file = std::fopen(path.c_str(), "wb");
            if (!st.file) {
                std::fprintf(stderr, "hpclab::judged: cannot write %s\n", path.c_str());
                return;
            }
            st.threads_at_start = thread_count();
            settle::test_starts();
            std::string header(kMagic, sizeof kMagic);
            put_pod(header, static_cast<std::uint32_t>(name.size()));
            header += name;
            std::fwrite(header.data(), 1, header.size(), st.file);
            std::fflush(st.file);
        } else if (mode() == Mode::replay) {
            auto& st = replaying();
            st = ReplayState{};
            st.test = name;
            load_replay(st, env("HPCLAB_JUDGE_REPLAY"));
        }
    }

    void OnTestEnd(const ::testing::TestInfo&) override {
        if (mode() == Mode::record) {
            auto& st = recording();
            if (!st.file) return;
            std::string end = "E";
            put_pod(end, static_cast<std::uint32_t>(st.threads_at_start));
            put_pod(end, static_cast<std::uint32_t>(thread_count()));
            std::fwrite(end.data(), 1, end.size(), st.file);
            std::fclose(st.file);
            st.file = nullptr;
        } else if (mode() == Mode::replay) {
            write_note(replaying());
        }
    }
};

std::vector<ExtraKind>& extra_kinds() {
    static std::vector<ExtraKind> kinds;
    return kinds;
}

[[noreturn]] void throw_recorded(ExceptionKind kind, const std::string& message);

struct RecordedStdException : std::exception {
    explicit RecordedStdException(std::string m) : message(std::move(m)) {}
    const char* what() const noexcept override { return message.c_str(); }
    std::string message;
};

void throw_recorded(ExceptionKind kind, const std::string& m) {
    for (const auto& extra : extra_kinds())
        if (extra.kind == kind) extra.rethrow(m);
    switch (kind) {
        case ExceptionKind::not_implemented: throw NotImplemented::with_message(m);
        case ExceptionKind::unavailable: throw cli::Unavailable(m);
        case ExceptionKind::invalid_argument: throw std::invalid_argument(m);
        case ExceptionKind::domain_error: throw std::domain_error(m);
        case ExceptionKind::length_error: throw std::length_error(m);
        case ExceptionKind::out_of_range: throw std::out_of_range(m);
        case ExceptionKind::logic_error: throw std::logic_error(m);
        case ExceptionKind::range_error: throw std::range_error(m);
        case ExceptionKind::overflow_error: throw std::overflow_error(m);
        case ExceptionKind::underflow_error: throw std::underflow_error(m);
        case ExceptionKind::runtime_error: throw std::runtime_error(m);
        case ExceptionKind::bad_alloc: throw std::bad_alloc();
        case ExceptionKind::exception: throw RecordedStdException(m);
        case ExceptionKind::cuda_error: throw std::runtime_error(m);  // not registered in this binary
        case ExceptionKind::unknown: break;
    }
    throw UnknownRecordedException{m};
}

std::mutex& call_mutex() {
    static std::mutex m;
    return m;
}

}  // namespace

Mode mode() {
    static const Mode m = read_mode();
    return m;
}

bool register_kind(const ExtraKind& extra) {
    for (const auto& k : extra_kinds())
        if (k.kind == extra.kind) return true;
    extra_kinds().push_back(extra);
    return true;
}

void on_replay_failure(void (*handler)(const std::string&)) { replay_failure_handler = handler; }

void install_listener() {
    static bool installed = false;
    if (installed) return;
    installed = true;
    if (mode() == Mode::record) settle::adopt_orphans();
    ::testing::UnitTest::GetInstance()->listeners().Append(new Listener);
}

namespace detail {

std::string label(Site site) {
    std::string file = site.file ? site.file : "?";
    const auto slash = file.find_last_of('/');
    if (slash != std::string::npos) file = file.substr(slash + 1);
    return file + ":" + std::to_string(site.line);
}

Recording::Recording(Site site) : site_(label(site)) {}

const char* const Recording::kChangedAfterReturn =
    "the call's outputs changed after it returned: work it left running (a thread, a child process or a GPU "
    "kernel) still wrote them";

bool Recording::quiet() { return settle::quiet(); }

void Recording::settle() {
    const std::string why = settle::wait(kSettleSeconds);
    if (!why.empty()) {
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%g s", kSettleSeconds);
        refuse(std::string("the call left work running after it returned: ") + seconds + " later, " + why);
    }
}

void Recording::refuse(const std::string& why) {
    {
        std::lock_guard<std::mutex> lock(call_mutex());
        auto& st = recording();
        if (st.file) {
            std::string rec = "C";
            put_pod(rec, static_cast<std::uint32_t>(site_.size()));
            rec += site_;
            put_pod(rec, std::uint8_t{2});
            const std::string message = why.substr(0, kMaxMessageBytes);
            put_pod(rec, static_cast<std::uint32_t>(message.size()));
            rec += message;
            put_pod(rec, std::uint32_t{0});
            std::fwrite(rec.data(), 1, rec.size(), st.file);
            std::fflush(st.file);
        }
    }
    std::fprintf(stderr,
                 "hpclab::judged: call at %s refused: %s. A call must finish its work, and join or stop the threads, "
                 "processes and kernels it starts, before it returns. The test ends here.\n",
                 site_.c_str(), why.c_str());
    std::fflush(stderr);
    // The work it left may still run: end the whole process now, before it
    // can do anything more (no exit handlers, no destructors).
    std::_Exit(kRefusedExit);
}

void Recording::threw(std::exception_ptr e) {
    outcome_ = 1;
    try {
        std::rethrow_exception(e);
    } catch (const std::exception& x) {
        for (const auto& extra : extra_kinds()) {
            if (extra.matches(x)) {
                kind_ = extra.kind;
                message_ = x.what();
                return;
            }
        }
    } catch (...) {
    }
    try {
        std::rethrow_exception(e);
    } catch (const NotImplemented& x) {
        kind_ = ExceptionKind::not_implemented, message_ = x.what();
    } catch (const cli::Unavailable& x) {
        kind_ = ExceptionKind::unavailable, message_ = x.what();
    } catch (const std::invalid_argument& x) {
        kind_ = ExceptionKind::invalid_argument, message_ = x.what();
    } catch (const std::domain_error& x) {
        kind_ = ExceptionKind::domain_error, message_ = x.what();
    } catch (const std::length_error& x) {
        kind_ = ExceptionKind::length_error, message_ = x.what();
    } catch (const std::out_of_range& x) {
        kind_ = ExceptionKind::out_of_range, message_ = x.what();
    } catch (const std::logic_error& x) {
        kind_ = ExceptionKind::logic_error, message_ = x.what();
    } catch (const std::range_error& x) {
        kind_ = ExceptionKind::range_error, message_ = x.what();
    } catch (const std::overflow_error& x) {
        kind_ = ExceptionKind::overflow_error, message_ = x.what();
    } catch (const std::underflow_error& x) {
        kind_ = ExceptionKind::underflow_error, message_ = x.what();
    } catch (const std::runtime_error& x) {
        kind_ = ExceptionKind::runtime_error, message_ = x.what();
    } catch (const std::bad_alloc&) {
        kind_ = ExceptionKind::bad_alloc;
    } catch (const std::exception& x) {
        kind_ = ExceptionKind::exception, message_ = x.what();
    } catch (...) {
        kind_ = ExceptionKind::unknown;
    }
    if (message_.size() > kMaxMessageBytes) message_.resize(kMaxMessageBytes);
}

void Recording::commit() {
    std::lock_guard<std::mutex> lock(call_mutex());
    auto& st = recording();
    if (!st.file) {
        std::fprintf(stderr, "hpclab::judged: a call at %s outside a test is not recorded\n", site_.c_str());
        return;
    }
    std::string rec = "C";
    put_pod(rec, static_cast<std::uint32_t>(site_.size()));
    rec += site_;
    put_pod(rec, outcome_);
    if (outcome_ == 1) {
        put_pod(rec, static_cast<std::uint8_t>(kind_));
        put_pod(rec, static_cast<std::uint32_t>(message_.size()));
        rec += message_;
    }
    put_pod(rec, static_cast<std::uint32_t>(items_.size()));
    for (const auto& item : items_) {
        put_pod(rec, static_cast<std::uint64_t>(item.size()));
        rec += item;
    }
    std::fwrite(rec.data(), 1, rec.size(), st.file);
    std::fflush(st.file);
}

Replay::Replay(Site site, std::size_t returned_items, std::size_t thrown_items) : site_(label(site)) {
    std::lock_guard<std::mutex> lock(call_mutex());
    auto& st = replaying();
    if (st.test.empty() || st.test != current_test_name()) fail("a judged call outside a test cannot be replayed");
    if (st.failed) fail("not replayed: an earlier call of this test could not be replayed");
    if (st.status == "missing") fail("no recorded outputs: the recording run did not reach this test");
    if (st.status.compare(0, 9, "malformed") == 0) fail("the recorded outputs are " + st.status);
    if (st.replayed >= st.calls.size()) {
        fail(st.status == "incomplete"
                 ? "the recording run ended before this call returned (it crashed, exited or timed out)"
                 : "the recording made fewer calls than the test makes: it did not run this test as written");
    }
    record_ = st.replayed++;
    const CallRecord& c = st.calls[record_];
    if (c.label != site_) {
        fail("the recording is out of step with the test: call " + std::to_string(record_ + 1) + " was made at " +
             c.label.substr(0, 200));
    }
    if (c.outcome == 2) fail(c.message.substr(0, 1000));
    const std::size_t want = c.outcome == 1 ? thrown_items : returned_items;
    if (c.items.size() != want)
        fail("the recorded outputs are malformed: the call recorded the wrong number of values");
}

bool Replay::threw() const { return replaying().calls[record_].outcome == 1; }

Reader Replay::next_item() {
    const auto& st = replaying();
    const CallRecord& c = st.calls[record_];
    if (next_ >= c.items.size()) fail("the recorded outputs are malformed: a value is missing");
    const auto [offset, length] = c.items[next_++];
    const char* base = st.bytes.data() + offset;
    return Reader(base, base + length);
}

void Replay::rethrow() {
    const CallRecord& c = replaying().calls[record_];
    throw_recorded(c.kind, c.message);
}

void Replay::fail(const std::string& why) {
    auto& st = replaying();
    st.failed = true;
    if (replay_failure_handler) {
        // The handler does not come back: say why in the notes first, as
        // OnTestEnd would have.
        if (st.status == "ok") st.status = "replay failed";
        st.status += ": judged call at " + site_ + ": " + why;
        write_note(st);
        replay_failure_handler("judged call at " + site_ + ": " + why);
    }
    ADD_FAILURE() << "judged call at " << site_ << ": " << why;
    throw ReplayAbort{};
}

}  // namespace detail
}  // namespace judged
}  // namespace hpclab
