// Lab 11, stage 4: one GPU per rank; halo rows exchanged through pinned host
// buffers, overlapped with the interior update, or on device pointers when
// the MPI is CUDA-aware.
// Every TODO(student) below throws "not implemented" until you replace it.
#include <mpi.h>

#include <stdexcept>
#include <string>

#include "hpclab/cli_core.hpp"
#include "hpclab/cuda.hpp"
#include "hpclab/mpi.hpp"
#include "hpclab/not_implemented.hpp"
#include "sor_gpu.hpp"

namespace lab11 {

int select_local_gpu(MPI_Comm comm) {
    // TODO(student): no GPU: throw hpclab::cli::Unavailable. Otherwise the node-local
    // rank from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), cudaSetDevice(local %
    // device count), free the communicator, return the device.
    (void)comm;
    throw hpclab::NotImplemented("select_local_gpu");
}

bool cuda_aware_mpi(std::string* why) {
    // TODO(student): compile time: MPIX_CUDA_AWARE_SUPPORT (from mpi-ext.h,
    // which sor_gpu.hpp includes when Open MPI has it); run time:
    // MPIX_Query_cuda_support().
    // When either says no, put the reason in *why (if why is not null).
    (void)why;
    throw hpclab::NotImplemented("cuda_aware_mpi");
}

namespace {

// Device rows 1 and `rows` -> pinned -> neighbours -> pinned -> halo rows 0
// and rows+1, all on `stream`; returns when the halos are on the device.
// A side without a neighbour keeps its row: it is the global boundary.
[[maybe_unused]] void staged_exchange(const StripComm& sc, DeviceStrip& d, double* send, double* recv,
                                      cudaStream_t stream) {
    // TODO(student): rows 1 and d.rows to the pinned `send` (cudaMemcpyAsync, then
    // synchronise), exchange_rows on the pinned buffers, and back into rows 0
    // and d.rows+1 -- but only from a side that has a neighbour.
    (void)sc;
    (void)d;
    (void)send;
    (void)recv;
    (void)stream;
    throw hpclab::NotImplemented("staged_exchange");
}

}  // namespace

SweepTimes gpu_mpi_sweeps(const StripComm& sc, DeviceStrip& d, double omega, long sweeps, Exchange mode) {
    // TODO(student): see sor_gpu.hpp. Staged: exchange before each colour, then
    // the colour kernel. Overlapped: the boundary rows' colour on one stream,
    // send them while the interior runs on another (give the boundary stream
    // Stream::with_priority(Stream::highest_priority()), or its blocks queue
    // behind the interior's);
    // join the streams with events before the next colour. CudaAware:
    // exchange_rows on device rows.
    (void)sc;
    (void)d;
    (void)omega;
    (void)sweeps;
    (void)mode;
    throw hpclab::NotImplemented("gpu_mpi_sweeps");
}

SweepTimes gpu_mpi_sweeps_wide(const StripComm& sc, DeviceStrip& d, double omega, long sweeps,
                               int sweeps_per_exchange) {
    // TODO(student): mpi_red_black_sweeps_wide on the device. Every bs sweeps:
    // the first and last `depth` owned rows through pinned buffers (one copy
    // and one message per side), then 2 bs colour launches over a row range
    // that shrinks by one row per step on each side with a neighbour.
    (void)sc;
    (void)d;
    (void)omega;
    (void)sweeps;
    (void)sweeps_per_exchange;
    throw hpclab::NotImplemented("gpu_mpi_sweeps_wide");
}

SweepTimes gpu_mpi_block_sweeps(const BlockComm& bc, DeviceStrip& d, double omega, long sweeps) {
    // TODO(student): before each colour: a kernel packs local columns 1 and
    // d.cols (rows 1..rows, slots from layout_slot) into a device buffer; rows
    // 1 and d.rows and the packed columns go to pinned memory; MPI_Sendrecv up,
    // down, left, right; back to rows 0 and d.rows+1, and a kernel unpacks
    // columns 0 and d.cols+1 -- only on the sides that have a neighbour.
    (void)bc;
    (void)d;
    (void)omega;
    (void)sweeps;
    throw hpclab::NotImplemented("gpu_mpi_block_sweeps");
}

}  // namespace lab11
