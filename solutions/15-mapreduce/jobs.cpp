// Lab 15, stage 4: word count and the inverted index as jobs on the
// framework. Reference solution.
#include <string>

#include "mapreduce.hpp"

namespace lab15 {

namespace {

// Calls visit(word, first byte) for each word in [begin, end) of text.
template <class Visit>
void for_each_word(std::string_view text, std::size_t begin, std::size_t end, Visit&& visit) {
    std::size_t i = begin;
    while (i < end) {
        while (i < end && is_separator(text[i])) ++i;
        const std::size_t start = i;
        while (i < end && !is_separator(text[i])) ++i;
        if (i > start) visit(text.substr(start, i - start), start);
    }
}

}  // namespace

TextJob word_count_job(bool with_combiner) {
    TextJob job;
    job.name = "wordcount";
    job.map = [](const TextInput& in, const Emit& emit) {
        for_each_word(in.all, in.begin, in.end, [&](std::string_view word, std::size_t) { emit(word, 1); });
    };
    if (with_combiner) job.combine = [](std::int64_t a, std::int64_t b) { return a + b; };
    job.reduce = [](const std::string& key, const std::vector<std::int64_t>& values, const Emit& emit) {
        std::int64_t sum = 0;
        for (std::int64_t v : values) sum += v;
        emit(key, sum);
    };
    return job;
}

TextJob inverted_index_job() {
    TextJob job;
    job.name = "index";
    job.map = [](const TextInput& in, const Emit& emit) {
        // The line of the split's first word may have begun on an earlier
        // rank's split: look back for its '\n' (Hadoop's record reader does
        // the same at a block boundary).
        const std::size_t nl = in.begin == 0 ? std::string_view::npos : in.all.rfind('\n', in.begin - 1);
        std::size_t line = nl == std::string_view::npos ? 0 : nl + 1;
        std::size_t scanned = in.begin;
        for_each_word(in.all, in.begin, in.end, [&](std::string_view word, std::size_t at) {
            for (; scanned < at; ++scanned)
                if (in.all[scanned] == '\n') line = scanned + 1;
            emit(word, static_cast<std::int64_t>(line));
        });
    };
    job.reduce = [](const std::string& key, const std::vector<std::int64_t>& values, const Emit& emit) {
        for (std::size_t i = 0; i < values.size(); ++i)
            if (i == 0 || values[i] != values[i - 1]) emit(key, values[i]);
    };
    return job;
}

}  // namespace lab15
