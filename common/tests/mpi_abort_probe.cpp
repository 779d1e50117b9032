// Probe for the abort path: rank 1 hits an error while the others wait in a
// barrier; the job must end (non-zero) with one message, not hang.
#include <algorithm>

#include "hpclab/mpi.hpp"

int main(int argc, char** argv) {
    hpclab::mpi::Environment env(&argc, &argv);
    if (hpclab::mpi::rank() == std::min(1, hpclab::mpi::size() - 1))
        hpclab::mpi::abort_job("probe: deliberate failure");
    MPI_Barrier(MPI_COMM_WORLD);
    return 0;
}
