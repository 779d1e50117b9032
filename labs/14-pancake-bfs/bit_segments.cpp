// Lab 14, given: BitSegments (see bit_segments.hpp). The file holds segment
// s at offset s * 2 * words * 8: its visited words, then its frontier words;
// every segment has the same slot size, so the last one's tail is unused.
#include "bit_segments.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace lab14 {

namespace {

std::runtime_error io_error(const std::string& what, const std::string& path) {
    return std::runtime_error("cannot " + what + " bit-array file " + path + ": " + std::strerror(errno));
}

}  // namespace

BitSegments::BitSegments(std::uint64_t states, std::uint64_t segment_states, std::string path)
    : states_(states), path_(std::move(path)) {
    if (segment_states == 0) throw std::invalid_argument("a segment must hold at least one state");
    const std::uint64_t wanted = std::min(segment_states, states_);
    segment_states_ = std::max<std::uint64_t>(64, (wanted + 63) / 64 * 64);
    // No states: one empty segment, in memory.
    count_ = std::max<std::size_t>(1, static_cast<std::size_t>((states_ + segment_states_ - 1) / segment_states_));
    words_ = static_cast<std::size_t>(segment_states_ / 64);
    loaded_.visited.assign(words_, 0);
    loaded_.frontier.assign(words_, 0);
    if (count_ == 1) {
        loaded_.states = states_;
        loaded_valid_ = true;
        return;
    }
    file_ = std::fopen(path_.c_str(), "w+b");
    if (!file_) throw io_error("create", path_);
    // Every segment starts with no bit set: write them all zeroed, in order.
    for (std::size_t s = 0; s < count_; ++s) {
        for (const auto* bits : {&loaded_.visited, &loaded_.frontier})
            if (std::fwrite(bits->data(), sizeof(std::uint64_t), words_, file_) != words_)
                throw io_error("write", path_);
        bytes_written_ += 2 * words_ * sizeof(std::uint64_t);
    }
}

BitSegments::~BitSegments() {
    if (file_) {
        std::fclose(file_);
        std::remove(path_.c_str());
    }
}

long BitSegments::offset(std::size_t s) const { return static_cast<long>(s * 2 * words_ * sizeof(std::uint64_t)); }

void BitSegments::write_back() {
    if (!file_ || !loaded_valid_) return;
    if (std::fseek(file_, offset(loaded_index_), SEEK_SET) != 0) throw io_error("seek in", path_);
    for (const auto* bits : {&loaded_.visited, &loaded_.frontier})
        if (std::fwrite(bits->data(), sizeof(std::uint64_t), words_, file_) != words_) throw io_error("write", path_);
    bytes_written_ += 2 * words_ * sizeof(std::uint64_t);
}

BitSegments::Segment& BitSegments::load(std::size_t s) {
    if (s >= count_) throw std::out_of_range("segment " + std::to_string(s) + " of " + std::to_string(count_));
    if (loaded_valid_ && loaded_index_ == s) return loaded_;
    write_back();
    loaded_valid_ = false;  // until the read succeeds
    if (std::fseek(file_, offset(s), SEEK_SET) != 0) throw io_error("seek in", path_);
    for (auto* bits : {&loaded_.visited, &loaded_.frontier})
        if (std::fread(bits->data(), sizeof(std::uint64_t), words_, file_) != words_) throw io_error("read", path_);
    bytes_read_ += 2 * words_ * sizeof(std::uint64_t);
    loaded_index_ = s;
    loaded_valid_ = true;
    loaded_.first = static_cast<std::uint64_t>(s) * segment_states_;
    loaded_.states = std::min(segment_states_, states_ - loaded_.first);
    return loaded_;
}

}  // namespace lab14
