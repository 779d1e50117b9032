// Lab 11, stage 4: one GPU per rank; halo rows exchanged through pinned host
// buffers, overlapped with the interior update, or on device pointers when
// the MPI is CUDA-aware.
#include <mpi.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "hpclab/cli_core.hpp"
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

// `count` rows from local row send_top go up and from send_bottom go down;
// the neighbours' rows arrive in recv_top and recv_bottom onwards. Device ->
// pinned host -> MPI_Sendrecv -> pinned host -> device, all on `stream`;
// returns when the rows are on the device. A side without a neighbour copies
// nothing (its ring row is the global boundary). The pinned buffers hold
// 2 * count rows each.
void staged_rows(const StripComm& sc, DeviceStrip& d, int send_top, int send_bottom, int recv_top, int recv_bottom,
                 int count, double* send, double* recv, cudaStream_t stream) {
    const std::size_t doubles = static_cast<std::size_t>(count) * d.pitch, bytes = doubles * sizeof(double);
    const bool has_up = sc.up() != MPI_PROC_NULL, has_down = sc.down() != MPI_PROC_NULL;
    if (has_up) HPCLAB_CUDA_CHECK(cudaMemcpyAsync(send, d.row(send_top), bytes, cudaMemcpyDeviceToHost, stream));
    if (has_down)
        HPCLAB_CUDA_CHECK(cudaMemcpyAsync(send + doubles, d.row(send_bottom), bytes, cudaMemcpyDeviceToHost, stream));
    HPCLAB_CUDA_CHECK(cudaStreamSynchronize(stream));  // MPI reads the pinned buffers next
    exchange_rows(sc, send, send + doubles, recv, recv + doubles, static_cast<int>(doubles));
    if (has_up) HPCLAB_CUDA_CHECK(cudaMemcpyAsync(d.row(recv_top), recv, bytes, cudaMemcpyHostToDevice, stream));
    if (has_down)
        HPCLAB_CUDA_CHECK(cudaMemcpyAsync(d.row(recv_bottom), recv + doubles, bytes, cudaMemcpyHostToDevice, stream));
    HPCLAB_CUDA_CHECK(cudaStreamSynchronize(stream));  // the pinned buffers are reused next time
}

// The one-row halo exchange: rows 1 and `rows` out, rows 0 and rows+1 in.
void staged_exchange(const StripComm& sc, DeviceStrip& d, double* send, double* recv, cudaStream_t stream) {
    staged_rows(sc, d, 1, d.rows, 0, d.rows + 1, 1, send, recv, stream);
}

}  // namespace

SweepTimes gpu_mpi_sweeps(const StripComm& sc, DeviceStrip& d, double omega, long sweeps, Exchange mode) {
    if (mode == Exchange::CudaAware) {
        std::string why;
        if (!cuda_aware_mpi(&why)) throw std::runtime_error("CUDA-aware exchange unavailable: " + why);
    }
    PinnedBuffer<double> send(2 * static_cast<std::size_t>(d.pitch)), recv(2 * static_cast<std::size_t>(d.pitch));
    // The boundary rows are tiny and the exchange waits for them: on a
    // high-priority stream their blocks go before the interior's waiting ones,
    // instead of after the interior has drained the SMs.
    Stream compute, halo = Stream::with_priority(Stream::highest_priority());
    Event compute_done(cudaEventDisableTiming), halo_done(cudaEventDisableTiming);
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

SweepTimes gpu_mpi_sweeps_wide(const StripComm& sc, DeviceStrip& d, double omega, long sweeps,
                               int sweeps_per_exchange) {
    if (sweeps_per_exchange < 1 || sweeps < 0)
        throw std::invalid_argument("wide halos: need sweeps >= 0 and sweeps per exchange >= 1, got " +
                                    std::to_string(sweeps) + " and " + std::to_string(sweeps_per_exchange));
    const int depth = wide_halo_depth(sweeps_per_exchange);
    const RowRange wide = wide_rows(sc, depth);
    if (d.n != sc.n() || d.first_row != wide.first || d.rows != wide.rows || d.cols != d.n)
        throw std::invalid_argument("gpu_mpi_sweeps_wide: the device strip does not hold the rows of wide_rows()");
    const bool above = sc.up() != MPI_PROC_NULL, below = sc.down() != MPI_PROC_NULL;
    const int owned_first = 1 + (above ? depth : 0);
    const int owned_last = owned_first + sc.range().rows - 1;
    const std::size_t buffer = 2 * static_cast<std::size_t>(depth) * d.pitch;
    PinnedBuffer<double> send(buffer), recv(buffer);
    Stream stream;
    SweepTimes t;
    HPCLAB_CUDA_CHECK(cudaDeviceSynchronize());
    HPCLAB_MPI_CHECK(MPI_Barrier(sc.comm()));
    const double start = MPI_Wtime();
    for (long done = 0; done < sweeps;) {
        const long block = std::min<long>(sweeps_per_exchange, sweeps - done);
        HPCLAB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));  // time the exchange alone
        const double t0 = MPI_Wtime();
        // One message of `depth` rows per neighbour: the first and last
        // `depth` owned rows out, the ghost rows in.
        staged_rows(sc, d, owned_first, owned_last - depth + 1, 1, owned_last + 1, depth, send.get(), recv.get(),
                    stream.get());
        t.exchange_seconds += MPI_Wtime() - t0;
        // Colour step k leaves the outermost k + 1 ghost rows of each side alone.
        for (int step = 0; step < 2 * block; ++step) {
            const int skip_top = above ? step + 1 : 0, skip_bottom = below ? step + 1 : 0;
            gpu_red_black_colour(d, step % 2, omega, 1 + skip_top, d.rows + 1 - skip_bottom, stream.get());
        }
        done += block;
    }
    HPCLAB_CUDA_CHECK(cudaDeviceSynchronize());
    t.seconds = MPI_Wtime() - start;
    return t;
}

namespace {

// Local columns `first` and `second`, rows 1..rows, into out[0..rows) and
// out[rows..2 rows): the strided column halos made contiguous for one copy.
__global__ void pack_columns(const double* __restrict__ u, int rows, int pitch, int parity, Layout layout, int first,
                             int second, double* __restrict__ out) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= 2 * rows) return;
    const int li = 1 + k % rows, lj = k < rows ? first : second;
    out[k] = u[static_cast<std::size_t>(li) * pitch + layout_slot(layout, (parity + li + lj) & 1, lj, pitch)];
}

// The reverse, writing only the sides that have a neighbour.
__global__ void unpack_columns(double* __restrict__ u, int rows, int pitch, int parity, Layout layout, int first,
                               int second, bool write_first, bool write_second, const double* __restrict__ in) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= 2 * rows) return;
    const bool is_first = k < rows;
    if (is_first ? !write_first : !write_second) return;
    const int li = 1 + k % rows, lj = is_first ? first : second;
    u[static_cast<std::size_t>(li) * pitch + layout_slot(layout, (parity + li + lj) & 1, lj, pitch)] = in[k];
}

constexpr int kPackThreads = 256;

// Before a colour: rows (whole device rows, contiguous in both layouts) up
// and down, packed columns left and right; halos land in the ring.
void staged_block_exchange(const BlockComm& bc, DeviceStrip& d, double* send, double* recv, double* packed_send,
                           double* packed_recv, cudaStream_t stream) {
    const int rows = d.rows, pitch = d.pitch;
    const bool up = bc.up() != MPI_PROC_NULL, down = bc.down() != MPI_PROC_NULL;
    const bool left = bc.left() != MPI_PROC_NULL, right = bc.right() != MPI_PROC_NULL;
    const std::size_t row_bytes = d.row_bytes(), column_bytes = 2 * static_cast<std::size_t>(rows) * sizeof(double);
    double *send_top = send, *send_bottom = send + pitch, *send_columns = send + 2 * pitch;
    double *recv_top = recv, *recv_bottom = recv + pitch, *recv_columns = recv + 2 * pitch;
    const int blocks = (2 * rows + kPackThreads - 1) / kPackThreads;
    if (left || right) {
        pack_columns<<<blocks, kPackThreads, 0, stream>>>(d.u.get(), rows, pitch, d.parity(), d.layout, 1, d.cols,
                                                          packed_send);
        HPCLAB_CUDA_CHECK_LAUNCH();
        HPCLAB_CUDA_CHECK(cudaMemcpyAsync(send_columns, packed_send, column_bytes, cudaMemcpyDeviceToHost, stream));
    }
    if (up) HPCLAB_CUDA_CHECK(cudaMemcpyAsync(send_top, d.row(1), row_bytes, cudaMemcpyDeviceToHost, stream));
    if (down) HPCLAB_CUDA_CHECK(cudaMemcpyAsync(send_bottom, d.row(rows), row_bytes, cudaMemcpyDeviceToHost, stream));
    HPCLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
    MPI_Comm comm = bc.comm();
    HPCLAB_MPI_CHECK(MPI_Sendrecv(send_top, pitch, MPI_DOUBLE, bc.up(), 0, recv_bottom, pitch, MPI_DOUBLE, bc.down(), 0,
                                  comm, MPI_STATUS_IGNORE));
    HPCLAB_MPI_CHECK(MPI_Sendrecv(send_bottom, pitch, MPI_DOUBLE, bc.down(), 1, recv_top, pitch, MPI_DOUBLE, bc.up(), 1,
                                  comm, MPI_STATUS_IGNORE));
    // Column 1 goes left and arrives as the right neighbour's column cols+1.
    HPCLAB_MPI_CHECK(MPI_Sendrecv(send_columns, rows, MPI_DOUBLE, bc.left(), 2, recv_columns + rows, rows, MPI_DOUBLE,
                                  bc.right(), 2, comm, MPI_STATUS_IGNORE));
    HPCLAB_MPI_CHECK(MPI_Sendrecv(send_columns + rows, rows, MPI_DOUBLE, bc.right(), 3, recv_columns, rows, MPI_DOUBLE,
                                  bc.left(), 3, comm, MPI_STATUS_IGNORE));
    if (up) HPCLAB_CUDA_CHECK(cudaMemcpyAsync(d.row(0), recv_top, row_bytes, cudaMemcpyHostToDevice, stream));
    if (down)
        HPCLAB_CUDA_CHECK(cudaMemcpyAsync(d.row(rows + 1), recv_bottom, row_bytes, cudaMemcpyHostToDevice, stream));
    if (left || right) {
        HPCLAB_CUDA_CHECK(cudaMemcpyAsync(packed_recv, recv_columns, column_bytes, cudaMemcpyHostToDevice, stream));
        unpack_columns<<<blocks, kPackThreads, 0, stream>>>(d.u.get(), rows, pitch, d.parity(), d.layout, 0, d.cols + 1,
                                                            left, right, packed_recv);
        HPCLAB_CUDA_CHECK_LAUNCH();
    }
    HPCLAB_CUDA_CHECK(cudaStreamSynchronize(stream));  // the pinned buffers are reused next time
}

}  // namespace

SweepTimes gpu_mpi_block_sweeps(const BlockComm& bc, DeviceStrip& d, double omega, long sweeps) {
    if (d.n != bc.n() || d.first_row != bc.rows().first || d.rows != bc.rows().rows || d.first_col != bc.cols().first ||
        d.cols != bc.cols().rows)
        throw std::invalid_argument("gpu_mpi_block_sweeps: the device grid is not this rank's block");
    const std::size_t host = 2 * static_cast<std::size_t>(d.pitch) + 2 * static_cast<std::size_t>(d.rows);
    PinnedBuffer<double> send(host), recv(host);
    hpclab::cuda::DeviceBuffer<double> packed_send(2 * static_cast<std::size_t>(d.rows)),
        packed_recv(2 * static_cast<std::size_t>(d.rows));
    Stream stream;
    SweepTimes t;
    HPCLAB_CUDA_CHECK(cudaDeviceSynchronize());
    HPCLAB_MPI_CHECK(MPI_Barrier(bc.comm()));
    const double start = MPI_Wtime();
    for (long k = 0; k < sweeps; ++k) {
        for (int colour = 0; colour < 2; ++colour) {
            HPCLAB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));  // time the exchange alone
            const double t0 = MPI_Wtime();
            staged_block_exchange(bc, d, send.get(), recv.get(), packed_send.get(), packed_recv.get(), stream.get());
            t.exchange_seconds += MPI_Wtime() - t0;
            gpu_red_black_colour(d, colour, omega, 1, d.rows + 1, stream.get());
        }
    }
    HPCLAB_CUDA_CHECK(cudaDeviceSynchronize());
    t.seconds = MPI_Wtime() - start;
    return t;
}

}  // namespace lab11
