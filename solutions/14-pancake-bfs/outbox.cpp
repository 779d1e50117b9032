// Lab 14, stage 2: per-destination buckets that spill to files under a
// memory budget and stream back in the order they were filled.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "pancake.hpp"

namespace lab14 {

Outbox::Outbox(int destinations, std::size_t budget_bytes, std::string spill_prefix)
    : destinations_(destinations),
      budget_items_(budget_bytes / sizeof(std::uint64_t)),
      prefix_(std::move(spill_prefix)),
      memory_(static_cast<std::size_t>(destinations)),
      files_(static_cast<std::size_t>(destinations), nullptr),
      in_file_(static_cast<std::size_t>(destinations), 0),
      taken_(static_cast<std::size_t>(destinations), 0) {
    if (destinations < 1) throw std::invalid_argument("an outbox needs at least one destination");
    // A budget below one item would never hold anything: keep one.
    if (budget_bytes > 0 && budget_items_ == 0) budget_items_ = 1;
}

Outbox::~Outbox() {
    try {
        clear();
    } catch (...) {
        // A destructor must not throw; the files are gone or unreachable.
    }
}

std::string Outbox::path(int destination) const { return prefix_ + std::to_string(destination) + ".spill"; }

void Outbox::add(int destination, std::uint64_t index) {
    if (destination < 0 || destination >= destinations_)
        throw std::out_of_range("outbox destination " + std::to_string(destination));
    if (taking_) throw std::logic_error("outbox: add after take (call clear first)");
    if (budget_items_ > 0 && in_memory_ + 1 > budget_items_) spill();
    memory_[static_cast<std::size_t>(destination)].push_back(index);
    ++in_memory_;
}

void Outbox::spill() {
    for (int d = 0; d < destinations_; ++d) {
        auto& bucket = memory_[static_cast<std::size_t>(d)];
        if (bucket.empty()) continue;
        std::FILE*& f = files_[static_cast<std::size_t>(d)];
        if (!f) {
            f = std::fopen(path(d).c_str(), "w+b");
            if (!f) throw std::runtime_error("cannot create spill file " + path(d) + ": " + std::strerror(errno));
        }
        if (std::fwrite(bucket.data(), sizeof(std::uint64_t), bucket.size(), f) != bucket.size())
            throw std::runtime_error("cannot write spill file " + path(d) + ": " + std::strerror(errno));
        in_file_[static_cast<std::size_t>(d)] += bucket.size();
        spilled_bytes_ += bucket.size() * sizeof(std::uint64_t);
        bucket.clear();
    }
    in_memory_ = 0;
}

std::uint64_t Outbox::pending(int destination) const {
    const std::size_t d = static_cast<std::size_t>(destination);
    return in_file_.at(d) + memory_[d].size() - taken_[d];
}

std::size_t Outbox::take(int destination, std::uint64_t* out, std::size_t max_items) {
    const std::size_t d = static_cast<std::size_t>(destination);
    if (destination < 0 || destination >= destinations_)
        throw std::out_of_range("outbox destination " + std::to_string(destination));
    if (!taking_) {
        taking_ = true;
        // Everything written so far must be readable from the start.
        for (int k = 0; k < destinations_; ++k) {
            std::FILE* f = files_[static_cast<std::size_t>(k)];
            if (f && (std::fflush(f) != 0 || std::fseek(f, 0, SEEK_SET) != 0))
                throw std::runtime_error("cannot rewind spill file " + path(k) + ": " + std::strerror(errno));
        }
    }
    std::size_t got = 0;
    // The file holds the oldest items; the file position follows taken_.
    while (got < max_items && taken_[d] < in_file_[d]) {
        const std::uint64_t left = in_file_[d] - taken_[d];
        const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(left, max_items - got));
        const std::size_t r = std::fread(out + got, sizeof(std::uint64_t), want, files_[d]);
        if (r != want) throw std::runtime_error("cannot read spill file " + path(destination) + ": short read");
        got += r;
        taken_[d] += r;
    }
    const auto& bucket = memory_[d];
    while (got < max_items && taken_[d] < in_file_[d] + bucket.size()) {
        out[got++] = bucket[static_cast<std::size_t>(taken_[d] - in_file_[d])];
        ++taken_[d];
    }
    return got;
}

void Outbox::clear() {
    for (int d = 0; d < destinations_; ++d) {
        const std::size_t k = static_cast<std::size_t>(d);
        if (files_[k]) {
            std::fclose(files_[k]);
            files_[k] = nullptr;
            std::remove(path(d).c_str());
        }
        memory_[k].clear();
        in_file_[k] = 0;
        taken_[k] = 0;
    }
    in_memory_ = 0;
    taking_ = false;
}

}  // namespace lab14
