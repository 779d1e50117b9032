// The drivers' reporter (see hpclab/report.hpp).
#include "hpclab/report.hpp"

namespace hpclab {

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
