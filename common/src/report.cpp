// The drivers' reporter (see hpclab/report.hpp).
#include "hpclab/report.hpp"

#include <cstdarg>
#include <cstdio>

namespace hpclab {

std::string format(const char* pattern, ...) {
    va_list args;
    va_start(args, pattern);
    va_list again;
    va_copy(again, args);
    const int size = std::vsnprintf(nullptr, 0, pattern, args);
    va_end(args);
    std::string line(size > 0 ? static_cast<std::size_t>(size) : 0, '\0');
    if (size > 0) std::vsnprintf(line.data(), line.size() + 1, pattern, again);
    va_end(again);
    return line;
}

void Reporter::stamp(Measurement& m) const {
    if (m.lab.empty()) m.lab = lab_;
}

void Reporter::emit(Measurement m, const std::string& human) {
    if (!active_) return;
    stamp(m);
    out_ << (json_ ? json_line(m) : human) << "\n";
    out_.flush();
}

void Reporter::row(Measurement m) {
    if (!active_) return;
    stamp(m);
    emit(m, table_row(m));
}

void Reporter::header() {
    if (active_ && !json_) out_ << table_header() << "\n";
}

void Reporter::note(const std::string& line) {
    if (active_ && !json_) out_ << line << "\n";
}

}  // namespace hpclab
