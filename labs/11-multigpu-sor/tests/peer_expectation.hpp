// Lab 11 tests, stage 4d: should the GPU-to-GPU exchange be possible on this
// host? Decided by the test itself (harness code, never a judged call), so a
// submission cannot pass them by claiming that it is not: every
// rank on one node, every visible GPU with interprocess events, and every
// pair of distinct visible GPUs with peer access (which GPU a rank takes is
// the submission's choice, so every pair must do).
#pragma once

#include <cuda_runtime.h>
#include <mpi.h>

#include <string>

#include "hpclab/mpi.hpp"

namespace lab11_test {

// Collective over MPI_COMM_WORLD; the same answer on every rank.
inline bool peer_exchange_expected(std::string* why) {
    MPI_Comm node = MPI_COMM_NULL;
    HPCLAB_MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int node_size = 0;
    MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    int here = node_size == hpclab::mpi::size() ? 1 : 0;
    std::string reason = here ? "" : "the ranks run on several nodes";
    int count = 0;
    if (here && cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        here = 0;
        reason = "no GPU";
    }
    for (int a = 0; here && a < count; ++a) {
        int events = 0;
        if (cudaDeviceGetAttribute(&events, cudaDevAttrIpcEventSupport, a) != cudaSuccess || !events) {
            cudaGetLastError();
            here = 0;
            reason = "GPU " + std::to_string(a) + " has no interprocess events";
        }
        for (int b = 0; here && b < count; ++b) {
            int peer = 0;
            if (a != b && (cudaDeviceCanAccessPeer(&peer, a, b) != cudaSuccess || !peer)) {
                cudaGetLastError();
                here = 0;
                reason = "GPU " + std::to_string(a) + " cannot access GPU " + std::to_string(b);
            }
        }
    }
    int everywhere = 0;
    HPCLAB_MPI_CHECK(MPI_Allreduce(&here, &everywhere, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    if (why) *why = everywhere ? "" : here ? "another rank's GPUs cannot reach each other" : reason;
    return everywhere != 0;
}

}  // namespace lab11_test
