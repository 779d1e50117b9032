// Lab LABNUM, stages 1 and 2: a prefix sum and a total over MPI ranks.
// Every TODO(student) below throws "not implemented" until you replace it
// (on every rank alike, so no rank waits for another in a collective).
#include "distributed_scan.hpp"

#include "hpclab/not_implemented.hpp"

namespace LABNS {

void distributed_scan(const std::int64_t* in, std::int64_t* out, std::size_t n, MPI_Comm comm) {
    // TODO(student): scan the block locally, learn the sum of the lower
    // ranks' blocks (MPI_Exscan; rank 0's result is undefined), add it.
    (void)in;
    (void)out;
    (void)n;
    (void)comm;
    throw hpclab::NotImplemented("distributed_scan");
}

std::int64_t global_total(const std::int64_t* in, std::size_t n, MPI_Comm comm) {
    // TODO(student): a local sum, then MPI_Allreduce.
    (void)in;
    (void)n;
    (void)comm;
    throw hpclab::NotImplemented("global_total");
}

}  // namespace LABNS
