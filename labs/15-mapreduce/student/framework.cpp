// Lab 15, stages 1-3: splitting the input, the shuffle, sort and reduce, and
// one MapReduce round. Every TODO(student) below throws "not implemented"
// until you replace it. The contracts are in mapreduce.hpp.
#include <algorithm>
#include <climits>
#include <cstring>
#include <string>
#include <unordered_map>

#include "hpclab/mpi.hpp"
#include "hpclab/not_implemented.hpp"
#include "mapreduce.hpp"

namespace lab15 {

Split split_of(std::string_view text, int rank, int p) {
    // TODO(student): reject p < 1 and rank outside [0, p) (std::invalid_argument).
    // The nominal block is [rank*n/p, (rank+1)*n/p): compute it so that
    // rank*n cannot overflow. begin: the first word start at or after the
    // block's start (a word starts where a non-separator follows a separator
    // or the text's start; if the block starts inside a word, that word is
    // the previous rank's). If no word starts before the block's end, the
    // split is empty. end: the end of the last word that starts in the block.
    (void)text;
    (void)rank;
    (void)p;
    throw hpclab::NotImplemented("split_of");
}

std::vector<KV> shuffle(const std::vector<KV>& pairs, MPI_Comm comm, JobReport* report) {
    // TODO(student): pack each pair in the wire format (mapreduce.hpp) into one
    // send buffer grouped by destination owner_of(key, p): two passes (bytes per
    // destination, then place) need no per-destination vectors. MPI_Alltoall the
    // byte counts; receive displacements are their running sum; MPI_Alltoallv
    // the bytes (MPI_BYTE); unpack. MPI counts are int: if any rank would send
    // more than INT_MAX bytes to one rank, every rank must throw (agree first).
    // Time it into report->shuffle_seconds; add pairs_shuffled, bytes_shuffled.
    (void)pairs;
    (void)comm;
    (void)report;
    throw hpclab::NotImplemented("shuffle");
}

std::vector<KV> sort_and_reduce(std::vector<KV> pairs, const Reduce& reduce, JobReport* report) {
    // TODO(student): sort by key, then value (operator< of KV); call reduce once
    // per run of equal keys with their values; collect what it emits. Time the
    // sort and the reduce into the report.
    (void)pairs;
    (void)reduce;
    (void)report;
    throw hpclab::NotImplemented("sort_and_reduce");
}

std::vector<KV> map_reduce(const MapAll& map, const Combine& combine, const Reduce& reduce, MPI_Comm comm,
                           JobReport* report) {
    // TODO(student): run map with an Emit that keeps its pairs (with a
    // combiner: fold equal keys as they come, e.g. in a hash map, so each key
    // leaves this rank once); count pairs_emitted. If map threw on any rank,
    // every rank must throw JobFailed(lowest such rank, ...) before the
    // shuffle (MPI_Allreduce a flag), or the others wait in it forever. Then
    // shuffle, sort_and_reduce (reduce failures agreed the same way), and
    // return the output sorted by key, then value.
    (void)map;
    (void)combine;
    (void)reduce;
    (void)comm;
    (void)report;
    throw hpclab::NotImplemented("map_reduce");
}

}  // namespace lab15
