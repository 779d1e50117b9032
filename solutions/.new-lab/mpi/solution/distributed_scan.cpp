// Lab LABNUM, stages 1 and 2: the reference solution.
#include "distributed_scan.hpp"

#include "hpclab/mpi.hpp"

namespace LABNS {

void distributed_scan(const std::int64_t* in, std::int64_t* out, std::size_t n, MPI_Comm comm) {
    std::int64_t local = 0;
    for (std::size_t i = 0; i < n; ++i) local += in[i];
    // The sum of the lower ranks' blocks; MPI leaves rank 0's undefined.
    std::int64_t offset = 0;
    HPCLAB_MPI_CHECK(MPI_Exscan(&local, &offset, 1, MPI_INT64_T, MPI_SUM, comm));
    if (hpclab::mpi::rank(comm) == 0) offset = 0;
    for (std::size_t i = 0; i < n; ++i) {
        offset += in[i];
        out[i] = offset;
    }
}

std::int64_t global_total(const std::int64_t* in, std::size_t n, MPI_Comm comm) {
    std::int64_t local = 0, total = 0;
    for (std::size_t i = 0; i < n; ++i) local += in[i];
    HPCLAB_MPI_CHECK(MPI_Allreduce(&local, &total, 1, MPI_INT64_T, MPI_SUM, comm));
    return total;
}

}  // namespace LABNS
