// Judged calls: every call from a test into student code goes through
// HPCLAB_CALL, so that the grader can take the verdict out of the student's
// process.
//
// One test binary runs in one of three modes, chosen by the environment:
//   direct  (nothing set; `meson test`): the call runs and the test's own
//           assertions judge it, in one process. The fast path for students.
//   record  (HPCLAB_JUDGE_RECORD=DIR; the grader's run of the submission's
//           build): the call runs, and what it returned, the final contents
//           of its outputs, or the exception it threw, are written to
//           DIR/<test>.r<rank> once it has returned and all the work it
//           started has stopped (threads parked or gone, child processes
//           gone, GPU idle; judged_settle.cpp). A call whose outputs changed
//           after it returned, or whose work still runs 2 s later, is
//           recorded as refused, and the recording process ends there.
//   replay  (HPCLAB_JUDGE_REPLAY=DIR; the grader's run of the *starter's*
//           build, which holds no student code): the call does not run; its
//           recorded effects are read back, so the test's own assertions run
//           in a process the submission never touched.
// Test inputs come from hpclab::Rng, salted by the grade-time seed
// (HPCLAB_SEED, see data.hpp), so both runs see the same data and no
// submission can know it in advance.
//
// A recorded file is hostile input: replay parses it strictly and within
// bounds; anything malformed, missing or out of step with the test is a test
// failure with a plain reason, never a crash. See docs in grading/README.md.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace hpclab {
namespace judged {

enum class Mode { direct, record, replay };
Mode mode();

// Appends the listener that opens each test's record (record mode) or loads
// it (replay mode). The test mains in common/ call it; nothing else need.
void install_listener();

// What replay does when a record cannot be replayed, after writing the reason
// to the judge's notes: by default the test fails and goes on. The MPI test
// main ends the whole job instead (MPI_Abort), since a rank that leaves a
// test early would wait forever in the next collective for ranks still in it.
void on_replay_failure(void (*handler)(const std::string& reason));

// ---- encoding ------------------------------------------------------------

// Thrown by Reader when recorded bytes do not decode as the expected type.
struct Malformed {
    std::string why;
};

class Writer {
public:
    void raw(const void* data, std::size_t bytes) { bytes_.append(static_cast<const char*>(data), bytes); }
    template <class T>
    void pod(const T& value) {
        static_assert(std::is_trivially_copyable<T>::value, "pod() needs a trivially copyable type");
        raw(&value, sizeof(T));
    }
    void count(std::uint64_t n) { pod(n); }
    const std::string& bytes() const { return bytes_; }

private:
    std::string bytes_;
};

class Reader {
public:
    Reader(const char* begin, const char* end) : p_(begin), end_(end) {}
    void raw(void* out, std::size_t bytes) {
        if (static_cast<std::size_t>(end_ - p_) < bytes) throw Malformed{"a value is cut short"};
        if (bytes) std::memcpy(out, p_, bytes);
        p_ += bytes;
    }
    template <class T>
    T pod() {
        T value;
        raw(&value, sizeof(T));
        return value;
    }
    // A element count, checked against the bytes left (each element takes
    // at least `min_bytes_each`), so a forged count cannot make us allocate.
    std::size_t count(std::size_t min_bytes_each) {
        const auto n = pod<std::uint64_t>();
        const std::size_t left = static_cast<std::size_t>(end_ - p_);
        if (min_bytes_each > 0 && n > left / min_bytes_each) throw Malformed{"a length is larger than the data"};
        if (min_bytes_each == 0 && n > (std::uint64_t(1) << 32)) throw Malformed{"a length is implausibly large"};
        return static_cast<std::size_t>(n);
    }
    bool done() const { return p_ == end_; }

private:
    const char* p_;
    const char* end_;
};

// Codec<T>: how one value is written and read back. Defined for arithmetic
// types, enums, trivially copyable structs (byte for byte), bool, strings,
// vectors, arrays, pairs, tuples and complex numbers. A lab adds its own
// types with a specialisation (encode/decode), usually through put()/get().
template <class T, class Enable = void>
struct Codec {
    static_assert(std::is_trivially_copyable<T>::value,
                  "hpclab::judged: no Codec for this type; specialise hpclab::judged::Codec<T> "
                  "(encode/decode) or return a vector or struct of plain values from the call");
    static void encode(Writer& w, const T& v) { w.pod(v); }
    static T decode(Reader& r) { return r.pod<T>(); }
};

template <>
struct Codec<bool> {
    static void encode(Writer& w, bool v) { w.pod<std::uint8_t>(v ? 1 : 0); }
    static bool decode(Reader& r) {
        const auto b = r.pod<std::uint8_t>();
        if (b > 1) throw Malformed{"a bool is neither 0 nor 1"};
        return b == 1;
    }
};

template <>
struct Codec<std::string> {
    static void encode(Writer& w, const std::string& s) {
        w.count(s.size());
        w.raw(s.data(), s.size());
    }
    static std::string decode(Reader& r) {
        std::string s(r.count(1), '\0');
        r.raw(&s[0], s.size());
        return s;
    }
};

template <class T, class A>
struct Codec<std::vector<T, A>> {
    static void encode(Writer& w, const std::vector<T, A>& v) {
        w.count(v.size());
        if constexpr (std::is_trivially_copyable<T>::value && !std::is_same<T, bool>::value) {
            w.raw(v.data(), v.size() * sizeof(T));
        } else {
            for (const auto& x : v) Codec<T>::encode(w, x);
        }
    }
    static std::vector<T, A> decode(Reader& r) {
        if constexpr (std::is_trivially_copyable<T>::value && !std::is_same<T, bool>::value) {
            std::vector<T, A> v(r.count(sizeof(T)));
            r.raw(v.data(), v.size() * sizeof(T));
            return v;
        } else {
            const std::size_t n = r.count(1);
            std::vector<T, A> v;
            v.reserve(n);
            for (std::size_t i = 0; i < n; ++i) v.push_back(Codec<T>::decode(r));
            return v;
        }
    }
};

template <class T, std::size_t N>
struct Codec<std::array<T, N>, std::enable_if_t<!std::is_trivially_copyable<std::array<T, N>>::value>> {
    static void encode(Writer& w, const std::array<T, N>& a) {
        for (const auto& x : a) Codec<T>::encode(w, x);
    }
    static std::array<T, N> decode(Reader& r) {
        std::array<T, N> a;
        for (auto& x : a) x = Codec<T>::decode(r);
        return a;
    }
};

template <class A, class B>
struct Codec<std::pair<A, B>, std::enable_if_t<!std::is_trivially_copyable<std::pair<A, B>>::value>> {
    static void encode(Writer& w, const std::pair<A, B>& p) {
        Codec<A>::encode(w, p.first);
        Codec<B>::encode(w, p.second);
    }
    static std::pair<A, B> decode(Reader& r) {
        A a = Codec<A>::decode(r);
        B b = Codec<B>::decode(r);
        return {std::move(a), std::move(b)};
    }
};

template <class... Ts>
struct Codec<std::tuple<Ts...>, std::enable_if_t<!std::is_trivially_copyable<std::tuple<Ts...>>::value>> {
    static void encode(Writer& w, const std::tuple<Ts...>& t) {
        std::apply([&](const auto&... x) { (Codec<std::decay_t<decltype(x)>>::encode(w, x), ...); }, t);
    }
    static std::tuple<Ts...> decode(Reader& r) {
        // Braced initialisation evaluates left to right.
        return std::tuple<Ts...>{Codec<Ts>::decode(r)...};
    }
};

// Field-by-field helpers for a lab's own Codec specialisations:
//   static void encode(Writer& w, const Stats& s) { put(w, s.count, s.names); }
//   static Stats decode(Reader& r) { Stats s; get(r, s.count, s.names); return s; }
template <class... Ts>
void put(Writer& w, const Ts&... values) {
    (Codec<Ts>::encode(w, values), ...);
}
template <class... Ts>
void get(Reader& r, Ts&... values) {
    ((values = Codec<Ts>::decode(r)), ...);
}

// ---- outputs -------------------------------------------------------------

// An output the call writes through a pointer: n elements at p. Replay
// requires the recorded length to be exactly n.
template <class T>
struct Span {
    T* data;
    std::size_t size;
};
template <class T>
Span<T> span(T* data, std::size_t size) {
    return {data, size};
}

// How an output argument of HPCLAB_CALL is recorded and restored: a plain
// value (vector, struct...) is replaced as a whole; a Span keeps its length.
// (judged_cuda.hpp adds device memory.)
template <class T>
struct Output {
    static void save(Writer& w, const T& v) { Codec<T>::encode(w, v); }
    static void restore(Reader& r, T& v) { v = Codec<T>::decode(r); }
};
template <class T>
struct Output<Span<T>> {
    static_assert(std::is_trivially_copyable<T>::value, "span() outputs need trivially copyable elements");
    static void save(Writer& w, const Span<T>& s) {
        w.count(s.size);
        w.raw(s.data, s.size * sizeof(T));
    }
    static void restore(Reader& r, const Span<T>& s) {
        if (r.count(sizeof(T)) != s.size) throw Malformed{"an output array was recorded with another length"};
        r.raw(s.data, s.size * sizeof(T));
    }
};

// ---- the record/replay machinery (judged.cpp) -----------------------------

// Exceptions are recorded by kind and message and rethrown as that kind.
enum class ExceptionKind : std::uint8_t {
    unknown = 0,
    exception,
    logic_error,
    invalid_argument,
    domain_error,
    length_error,
    out_of_range,
    runtime_error,
    range_error,
    overflow_error,
    underflow_error,
    bad_alloc,
    not_implemented,
    unavailable,
    cuda_error,  // registered by judged_cuda.hpp
};

// An exception class of a library that the judged library does not link
// (hpclab::cuda::CudaError): how to recognise it and how to throw it again.
struct ExtraKind {
    ExceptionKind kind;
    bool (*matches)(const std::exception&);
    void (*rethrow)(const std::string& message);  // must throw
};
bool register_kind(const ExtraKind& extra);

// The thing thrown, in replay, when the recorded exception was not a
// standard one: only catch (...) and EXPECT_ANY_THROW accept it.
struct UnknownRecordedException {
    std::string what;
};

namespace detail {

// Where a call is written in a test: its file's base name and line, which
// are the same in the recording and the replaying build of that test.
struct Site {
    const char* file;
    int line;
};
std::string label(Site site);

// One call's record, while it is being written.
class Recording {
public:
    explicit Recording(Site site);
    void returned() { outcome_ = 0; }
    void threw(std::exception_ptr e);
    template <class T, class Save>
    void item(const T& v, Save save) {
        Writer w;
        save(w, v);
        items_.push_back(w.bytes());
    }
    // Reads the call's result and outputs (`save_all` adds them as items)
    // and commits the record, once the work the call started has stopped.
    // When other threads, children or the GPU could still be at work, the
    // items are read at once and again after settling: if they differ, or
    // the work does not stop, the call is refused (refuse()).
    template <class SaveAll>
    void finish(SaveAll save_all) {
        if (quiet()) {
            save_all();
            commit();
            return;
        }
        save_all();
        std::vector<std::string> at_return;
        at_return.swap(items_);
        settle();
        save_all();
        if (items_ != at_return) refuse(kChangedAfterReturn);
        commit();
    }
    void commit();  // appends the record to the file, flushed

private:
    static const char* const kChangedAfterReturn;
    bool quiet();
    void settle();                                     // refuses when the work does not stop
    [[noreturn]] void refuse(const std::string& why);  // records why and ends the process

    std::string site_;
    std::uint8_t outcome_ = 0;
    ExceptionKind kind_ = ExceptionKind::unknown;
    std::string message_;
    std::vector<std::string> items_;
};

// One call's record, while it is being read back. Every failure is an
// ADD_FAILURE naming the site, then a ReplayAbort thrown out of the test.
class Replay {
public:
    // Reads the next record of this test and checks that it was made at
    // this call site and holds `returned_items` items if the call returned,
    // `thrown_items` if it threw.
    Replay(Site site, std::size_t returned_items, std::size_t thrown_items);
    bool threw() const;
    // The next recorded item, which `read` must consume exactly.
    template <class F>
    void item(F&& read) {
        Reader r = next_item();
        try {
            read(r);
        } catch (const Malformed& m) {
            fail("the recorded outputs are malformed: " + m.why);
        }
        if (!r.done()) fail("the recorded outputs are malformed: a value has trailing bytes");
    }
    // Throws the exception the call threw, as its recorded kind.
    [[noreturn]] void rethrow();
    [[noreturn]] void fail(const std::string& why);

private:
    Reader next_item();
    std::size_t record_;  // index of this call's record in the test's file
    std::size_t next_ = 0;
    std::string site_;
};

// Not derived from std::exception, so that no EXPECT_THROW(..., std::...)
// can take it for the student's exception; the failure is already recorded.
struct ReplayAbort {};

}  // namespace detail

// Run, record or replay one call into student code (see the top of this
// file). `f` takes no arguments; its result (if not void) must have a Codec;
// `outputs` are objects the call writes (vectors, structs, span(p, n),
// device_span(p, n)): their contents after the call are recorded, and
// restored in replay.
template <class F, class... Outs>
auto call(detail::Site site, F&& f, Outs&&... outputs) {
    using R = std::decay_t<decltype(f())>;
    const Mode m = mode();
    if (m == Mode::direct) return f();
    if (m == Mode::record) {
        detail::Recording rec(site);
        auto save_outputs = [&] { (rec.item(outputs, &Output<std::decay_t<Outs>>::save), ...); };
        if constexpr (std::is_void<R>::value) {
            try {
                f();
            } catch (...) {
                rec.threw(std::current_exception());
                rec.finish(save_outputs);
                throw;
            }
            rec.returned();
            rec.finish(save_outputs);
            return;
        } else {
            std::optional<R> result;
            try {
                result.emplace(f());
            } catch (...) {
                rec.threw(std::current_exception());
                rec.finish(save_outputs);
                throw;
            }
            rec.returned();
            rec.finish([&] {
                rec.item(*result, &Codec<R>::encode);
                save_outputs();
            });
            return std::move(*result);
        }
    }
    constexpr std::size_t outs = sizeof...(Outs);
    detail::Replay rp(site, std::is_void<R>::value ? outs : outs + 1, outs);
    auto restore_outputs = [&] { (rp.item([&](Reader& r) { Output<std::decay_t<Outs>>::restore(r, outputs); }), ...); };
    if (rp.threw()) {
        restore_outputs();
        rp.rethrow();
    }
    if constexpr (std::is_void<R>::value) {
        restore_outputs();
        return;
    } else {
        std::optional<R> result;
        rp.item([&](Reader& r) { result.emplace(Codec<R>::decode(r)); });
        restore_outputs();
        return std::move(*result);
    }
}

}  // namespace judged
}  // namespace hpclab

// HPCLAB_CALL(callable, outputs...): a judged call (see hpclab::judged::call).
//   HPCLAB_CALL([&] { lab01::qsort_doubles(v.data(), v.size()); }, v);
// HPCLAB_VALUE(expression): a judged call whose result is the expression's.
//   EXPECT_EQ(HPCLAB_VALUE(lab01::compare_doubles(&a, &b)), -1);
#define HPCLAB_CALL(...) ::hpclab::judged::call({__FILE__, __LINE__}, __VA_ARGS__)
#define HPCLAB_VALUE(...) HPCLAB_CALL([&] { return __VA_ARGS__; })
