// Platform-independent seeded generators (SplitMix64 + xoshiro256**).
#include "hpclab/data.hpp"

#include <cstdlib>
#include <stdexcept>

namespace hpclab {

namespace {

std::uint64_t splitmix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

std::uint64_t grade_seed() {
    static const std::uint64_t seed = [] {
        const char* text = std::getenv("HPCLAB_SEED");
        return text ? std::strtoull(text, nullptr, 0) : 0ull;
    }();
    return seed;
}

Rng::Rng(std::uint64_t seed) {
    std::uint64_t state = seed ^ grade_seed();
    for (auto& word : s_) word = splitmix64(state);
}

Rng Rng::from_state(std::uint64_t s0, std::uint64_t s1, std::uint64_t s2, std::uint64_t s3) {
    if ((s0 | s1 | s2 | s3) == 0) throw std::invalid_argument("Rng::from_state: the all-zero state is invalid");
    Rng r;
    r.s_[0] = s0;
    r.s_[1] = s1;
    r.s_[2] = s2;
    r.s_[3] = s3;
    return r;
}

std::uint64_t Rng::next_u64() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
}

double Rng::uniform01() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

double Rng::uniform(double lo, double hi) { return lo + (hi - lo) * uniform01(); }

std::int64_t Rng::uniform_int(std::int64_t lo, std::int64_t hi) {
    if (hi < lo) throw std::invalid_argument("Rng::uniform_int: empty range");
    const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
    if (span == ~std::uint64_t(0)) return static_cast<std::int64_t>(next_u64());
    const std::uint64_t range = span + 1;
    // Rejection sampling: drop the top partial copy of [0, range) so every
    // value is equally likely.
    const std::uint64_t limit = ~std::uint64_t(0) - (~std::uint64_t(0) % range + 1) % range;
    std::uint64_t x;
    do {
        x = next_u64();
    } while (x > limit);
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + x % range);
}

std::vector<double> uniform_doubles(std::size_t n, std::uint64_t seed, double lo, double hi) {
    Rng rng(seed);
    std::vector<double> v(n);
    for (auto& x : v) x = rng.uniform(lo, hi);
    return v;
}

std::vector<float> uniform_floats(std::size_t n, std::uint64_t seed, float lo, float hi) {
    Rng rng(seed);
    std::vector<float> v(n);
    // 24 random bits: every float in [0, 1) of that spacing, exactly.
    for (auto& x : v) x = lo + (hi - lo) * (static_cast<float>(rng.next_u64() >> 40) * 0x1.0p-24f);
    return v;
}

std::vector<std::int64_t> uniform_ints(std::size_t n, std::uint64_t seed, std::int64_t lo, std::int64_t hi) {
    if (lo > hi) throw std::invalid_argument("uniform_ints: lo must not exceed hi");
    Rng rng(seed);
    std::vector<std::int64_t> v(n);
    for (auto& x : v) x = rng.uniform_int(lo, hi);
    return v;
}

std::vector<double> few_distinct_doubles(std::size_t n, std::size_t distinct, std::uint64_t seed) {
    if (distinct == 0) throw std::invalid_argument("few_distinct_doubles: distinct must be > 0");
    Rng rng(seed);
    std::vector<double> v(n);
    for (auto& x : v) x = static_cast<double>(rng.uniform_int(0, static_cast<std::int64_t>(distinct) - 1));
    return v;
}

std::vector<double> ascending_doubles(std::size_t n) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<double>(i);
    return v;
}

std::vector<double> descending_doubles(std::size_t n) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<double>(n - 1 - i);
    return v;
}

}  // namespace hpclab
