// Lab 14, stage 2: per-destination buckets that spill to files under a
// memory budget and stream back in the order they were filled (Roomy's
// delayed updates). The class and its members are declared in pancake.hpp.
// Every TODO(student) below throws "not implemented" until you replace it.
#include <string>

#include "hpclab/not_implemented.hpp"
#include "pancake.hpp"

namespace lab14 {

Outbox::Outbox(int destinations, std::size_t budget_bytes, std::string spill_prefix)
    : destinations_(destinations), budget_items_(budget_bytes / sizeof(std::uint64_t)), prefix_(spill_prefix) {
    // TODO(student): size memory_, files_ (null), in_file_ and taken_ for
    // every destination; reject destinations < 1.
    throw hpclab::NotImplemented("Outbox");
}

Outbox::~Outbox() {
    // TODO(student): close and delete the spill files (clear() does it; a
    // destructor must not throw).
}

std::string Outbox::path(int destination) const { return prefix_ + std::to_string(destination) + ".spill"; }

void Outbox::add(int destination, std::uint64_t index) {
    // TODO(student): check destination (std::out_of_range) and that no take()
    // has happened since the last clear() (std::logic_error); when one more
    // item would pass the budget (budget_items_ > 0), spill() first; then
    // append to memory_[destination].
    (void)destination;
    (void)index;
    throw hpclab::NotImplemented("Outbox::add");
}

void Outbox::spill() {
    // TODO(student): append every non-empty bucket to its file (open it with
    // "w+b" on its first spill: path(d)), count what was written in in_file_
    // and spilled_bytes_, and empty the buckets. A failed open or fwrite:
    // std::runtime_error naming the file.
    throw hpclab::NotImplemented("Outbox::spill");
}

std::uint64_t Outbox::pending(int destination) const {
    // TODO(student): items added for destination and not taken yet.
    (void)destination;
    throw hpclab::NotImplemented("Outbox::pending");
}

std::size_t Outbox::take(int destination, std::uint64_t* out, std::size_t max_items) {
    // TODO(student): on the first take after adding, flush every file and go
    // back to its start; then copy the oldest items not taken yet, first from
    // the file (fread), then from memory.
    (void)destination;
    (void)out;
    (void)max_items;
    throw hpclab::NotImplemented("Outbox::take");
}

void Outbox::clear() {
    // TODO(student): close and remove every file, empty every bucket, reset
    // the counts (not spilled_bytes_), and allow add() again.
    throw hpclab::NotImplemented("Outbox::clear");
}

}  // namespace lab14
