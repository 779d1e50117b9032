// Lab 11, stage 4: one GPU per rank; halo rows exchanged through pinned host
// buffers, overlapped with the interior update, or on device pointers when
// the MPI is CUDA-aware.
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support
#endif
#endif

#include <stdexcept>
#include <string>

#include "hpclab/cli.hpp"
#include "hpclab/cuda.hpp"
#include "hpclab/mpi.hpp"
#include "sor_gpu.hpp"

namespace lab11 {

int select_local_gpu(MPI_Comm comm) {
    std::string reason;
    if (!hpclab::cuda::gpu_available(&reason)) throw hpclab::cli::Unavailable("needs a GPU: " + reason);
    // Ranks on the same node share memory: their rank in that communicator
    // is the node-local rank, whatever the launcher's placement.
    MPI_Comm node = MPI_COMM_NULL;
    HPCLAB_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    const int local = hpclab::mpi::rank(node);
    MPI_Comm_free(&node);
    int count = 0;
    HPCLAB_CUDA_CHECK(cudaGetDeviceCount(&count));
    const int device = local % count;  // more ranks than GPUs: they share
    HPCLAB_CUDA_CHECK(cudaSetDevice(device));
    return device;
}

bool cuda_aware_mpi(std::string* why) {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    if (MPIX_Query_cuda_support() == 1) return true;
    if (why) *why = "this MPI was built CUDA-aware, but MPIX_Query_cuda_support() says it is off at run time";
    return false;
#else
    if (why) *why = "this MPI was not built CUDA-aware (no MPIX_CUDA_AWARE_SUPPORT in mpi-ext.h)";
    return false;
#endif
}

namespace {

// Device rows 1 and `rows` -> pinned -> neighbours -> pinned -> halo rows 0
// and rows+1, all on `stream`; returns when the halos are on the device.
// A side without a neighbour keeps its row: it is the global boundary.
[[maybe_unused]] void staged_exchange(const StripComm& sc, DeviceStrip& d, double* send, double* recv, cudaStream_t stream) {
    const std::size_t bytes = d.row_bytes();
    double* send_top = send;
    double* send_bottom = send + d.pitch;
    double* recv_top = recv;
    double* recv_bottom = recv + d.pitch;
    // Copy only the sides that have a neighbour: the outer strips move one
    // row each way instead of two (MPI ignores the buffer for MPI_PROC_NULL).
    const bool has_up = sc.up() != MPI_PROC_NULL, has_down = sc.down() != MPI_PROC_NULL;
    if (has_up) HPCLAB_CUDA_CHECK(cudaMemcpyAsync(send_top, d.row(1), bytes, cudaMemcpyDeviceToHost, stream));
    if (has_down)
        HPCLAB_CUDA_CHECK(cudaMemcpyAsync(send_bottom, d.row(d.rows), bytes, cudaMemcpyDeviceToHost, stream));
    HPCLAB_CUDA_CHECK(cudaStreamSynchronize(stream));  // MPI reads the pinned buffers next
    exchange_rows(sc, send_top, send_bottom, recv_top, recv_bottom, d.pitch);
    if (has_up) HPCLAB_CUDA_CHECK(cudaMemcpyAsync(d.row(0), recv_top, bytes, cudaMemcpyHostToDevice, stream));
    if (has_down)
        HPCLAB_CUDA_CHECK(cudaMemcpyAsync(d.row(d.rows + 1), recv_bottom, bytes, cudaMemcpyHostToDevice, stream));
    HPCLAB_CUDA_CHECK(cudaStreamSynchronize(stream));  // the pinned buffers are reused next time
}

}  // namespace

SweepTimes gpu_mpi_sweeps(const StripComm& sc, DeviceStrip& d, double omega, long sweeps, Exchange mode) {
    if (mode == Exchange::CudaAware) {
        std::string why;
        if (!cuda_aware_mpi(&why)) throw std::runtime_error("CUDA-aware exchange unavailable: " + why);
    }
    PinnedBuffer<double> send(2 * static_cast<std::size_t>(d.pitch)), recv(2 * static_cast<std::size_t>(d.pitch));
    Stream compute, halo;
    Event compute_done, halo_done;
    SweepTimes t;
    HPCLAB_CUDA_CHECK(cudaDeviceSynchronize());
    HPCLAB_MPI_CHECK(MPI_Barrier(sc.comm()));
    const double start = MPI_Wtime();

    if (mode == Exchange::Staged || mode == Exchange::CudaAware) {
        for (long k = 0; k < sweeps; ++k) {
            for (int colour = 0; colour < 2; ++colour) {
                // Before a colour: the halo rows must hold the neighbours'
                // latest values of the other colour. Wait for the previous
                // colour first, so the time below is the exchange alone.
                HPCLAB_CUDA_CHECK(cudaStreamSynchronize(compute.get()));
                const double t0 = MPI_Wtime();
                if (mode == Exchange::Staged) {
                    staged_exchange(sc, d, send.get(), recv.get(), compute.get());
                } else {
                    exchange_rows(sc, d.row(1), d.row(d.rows), d.row(0), d.row(d.rows + 1), d.pitch);
                }
                t.exchange_seconds += MPI_Wtime() - t0;
                gpu_red_black_colour(d, colour, omega, 1, d.rows + 1, compute.get());
            }
        }
    } else {
        // Overlapped: halos are exchanged AFTER each colour. The boundary rows
        // (1 and rows) are updated first on the halo stream and sent while
        // the interior rows update on the compute stream; the interior reads
        // only owned rows, so it never waits for the network.
        double t0 = MPI_Wtime();
        staged_exchange(sc, d, send.get(), recv.get(), halo.get());
        t.exchange_seconds += MPI_Wtime() - t0;
        for (long k = 0; k < sweeps; ++k) {
            for (int colour = 0; colour < 2; ++colour) {
                gpu_red_black_colour(d, colour, omega, 1, 2, halo.get());
                if (d.rows > 1) gpu_red_black_colour(d, colour, omega, d.rows, d.rows + 1, halo.get());
                if (d.rows > 2) gpu_red_black_colour(d, colour, omega, 2, d.rows, compute.get());
                t0 = MPI_Wtime();
                staged_exchange(sc, d, send.get(), recv.get(), halo.get());
                t.exchange_seconds += MPI_Wtime() - t0;
                // The next colour reads this colour everywhere: join the streams.
                HPCLAB_CUDA_CHECK(cudaEventRecord(compute_done.get(), compute.get()));
                HPCLAB_CUDA_CHECK(cudaEventRecord(halo_done.get(), halo.get()));
                HPCLAB_CUDA_CHECK(cudaStreamWaitEvent(halo.get(), compute_done.get(), 0));
                HPCLAB_CUDA_CHECK(cudaStreamWaitEvent(compute.get(), halo_done.get(), 0));
            }
        }
    }
    HPCLAB_CUDA_CHECK(cudaDeviceSynchronize());
    t.seconds = MPI_Wtime() - start;
    return t;
}

}  // namespace lab11
