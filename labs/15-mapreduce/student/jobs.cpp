// Lab 15, stage 4: word count and the inverted index as jobs on the
// framework. Every TODO(student) below throws "not implemented" until you
// replace it. The contracts are in mapreduce.hpp.
#include <string>

#include "hpclab/not_implemented.hpp"
#include "mapreduce.hpp"

namespace lab15 {

TextJob word_count_job(bool with_combiner) {
    // TODO(student): map emits (word, 1) for every word in
    // [input.begin, input.end) of input.all (words: runs of non-separators,
    // is_separator); reduce emits (word, sum); the combiner, when asked, adds.
    (void)with_combiner;
    throw hpclab::NotImplemented("word_count_job");
}

TextJob inverted_index_job() {
    // TODO(student): map emits (word, offset of its line's first byte). The
    // split's first line may have started on an earlier rank's split: find its
    // start in input.all. reduce emits each distinct offset of a word once.
    throw hpclab::NotImplemented("inverted_index_job");
}

}  // namespace lab15
