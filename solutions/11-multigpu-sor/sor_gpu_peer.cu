// Lab 11, stages 4d and 4e: halo rows written from GPU to GPU through CUDA
// IPC, no host in the data path; interprocess events order the writes (4d),
// or flags that the kernels themselves write and wait for (4e, overlap).
#include <mpi.h>

#include <stdexcept>
#include <string>

#include "hpclab/cuda.hpp"
#include "hpclab/mpi.hpp"
#include "sor_peer.hpp"

namespace lab11 {

namespace {

// Opens the neighbour's grid, events and flags; ghost = its row `ghost_row`.
PeerNeighbour open_neighbour(const PeerCard& card, int ghost_row) {
    PeerNeighbour nb;
    nb.grid = IpcGrid(card.grid);
    nb.flags = IpcFlags(card.flags);
    nb.ghost = nb.grid.get() + static_cast<std::size_t>(ghost_row) * card.pitch;
    for (int k = 0; k < 2; ++k) nb.written[k] = IpcEvent::open(card.written[k]);
    return nb;
}

}  // namespace

PeerLinks open_peer_links(const StripComm& sc, const DeviceStrip& d) {
    PeerLinks links;
    for (IpcEvent& e : links.written) e = IpcEvent::create();
    const PeerCard mine = make_peer_card(sc, d, links);
    // A side without a neighbour (MPI_PROC_NULL) receives nothing: valid stays 0.
    PeerCard from_up, from_down;
    const int bytes = static_cast<int>(sizeof(PeerCard));
    HPCLAB_MPI_CHECK(MPI_Sendrecv(&mine, bytes, MPI_BYTE, sc.up(), 40, &from_down, bytes, MPI_BYTE, sc.down(), 40,
                                  sc.comm(), MPI_STATUS_IGNORE));
    HPCLAB_MPI_CHECK(MPI_Sendrecv(&mine, bytes, MPI_BYTE, sc.down(), 41, &from_up, bytes, MPI_BYTE, sc.up(), 41,
                                  sc.comm(), MPI_STATUS_IGNORE));
    const bool has_up = sc.up() != MPI_PROC_NULL, has_down = sc.down() != MPI_PROC_NULL;
    std::string why;
    bool ok = (!has_up || can_reach(mine, from_up, &why)) && (!has_down || can_reach(mine, from_down, &why));
    if (!all_ranks_agree(sc.comm(), ok, &why)) {
        links.why = why;
        return links;
    }
    // Every rank can reach its neighbours; opening can still fail (a container
    // that hides the other process, say): then nobody uses the links.
    try {
        if (has_up) links.up = open_neighbour(from_up, from_up.rows + 1);  // its ghost row below
        if (has_down) links.down = open_neighbour(from_down, 0);           // its ghost row above
    } catch (const std::exception& e) {
        ok = false;
        why = std::string("opening the neighbour's grid failed: ") + e.what();
    }
    if (!all_ranks_agree(sc.comm(), ok, &why)) {
        links.up = PeerNeighbour();
        links.down = PeerNeighbour();
        links.why = why;
        return links;
    }
    links.usable = true;
    return links;
}

namespace {

constexpr int kTokenTag = 42;

// Tell both neighbours that this rank recorded its event of `step`, and hear
// the same from them. Only the hosts meet here: the GPUs keep running.
void swap_tokens(const StripComm& sc, long step) {
    long from_up = step, from_down = step;
    HPCLAB_MPI_CHECK(MPI_Sendrecv(&step, 1, MPI_LONG, sc.up(), kTokenTag, &from_down, 1, MPI_LONG, sc.down(), kTokenTag,
                                  sc.comm(), MPI_STATUS_IGNORE));
    HPCLAB_MPI_CHECK(MPI_Sendrecv(&step, 1, MPI_LONG, sc.down(), kTokenTag + 1, &from_up, 1, MPI_LONG, sc.up(),
                                  kTokenTag + 1, sc.comm(), MPI_STATUS_IGNORE));
    if (from_up != step || from_down != step)
        throw std::runtime_error("peer exchange out of step: at step " + std::to_string(step) + " a neighbour says " +
                                 std::to_string(from_up != step ? from_up : from_down));
}

}  // namespace

SweepTimes gpu_peer_sweeps(const StripComm& sc, DeviceStrip& d, double omega, long sweeps, bool overlap) {
    if (sweeps < 0) throw std::invalid_argument("gpu_peer_sweeps: sweeps must be >= 0, got " + std::to_string(sweeps));
    PeerLinks links = open_peer_links(sc, d);
    if (!links.usable) throw std::runtime_error("GPU-to-GPU exchange unavailable: " + links.why);
    Stream stream;
    SweepTimes t;

    // Stage 4d: the colour kernels that update rows 1 and d.rows also store
    // them into the neighbours' ghost rows (mirrors): no copy kernel on the
    // way. Once a launch is done, record written[step & 1], and make the
    // stream wait until the neighbours' stores of this step have landed
    // here. The events alternate so that a neighbour's wait always names
    // this step's record: it is issued before this rank can record the same
    // event again (two steps on, after the next token from that neighbour).
    auto signal_and_wait = [&](long step) {
        const double t0 = MPI_Wtime();
        const int k = static_cast<int>(step & 1);
        HPCLAB_CUDA_CHECK(cudaEventRecord(links.written[k].get(), stream));
        swap_tokens(sc, step);
        if (links.up.ghost) HPCLAB_CUDA_CHECK(cudaStreamWaitEvent(stream, links.up.written[k].get(), 0));
        if (links.down.ghost) HPCLAB_CUDA_CHECK(cudaStreamWaitEvent(stream, links.down.written[k].get(), 0));
        t.exchange_seconds += MPI_Wtime() - t0;
    };

    HPCLAB_CUDA_CHECK(cudaDeviceSynchronize());
    HPCLAB_MPI_CHECK(MPI_Barrier(sc.comm()));  // every grid uploaded, nobody still reading one
    const double start = MPI_Wtime();
    // Whole rows first: the ghost rows hold nothing yet.
    if (links.up.ghost) push_row(d, 1, 2, links.up.ghost, stream);
    if (links.down.ghost) push_row(d, d.rows, 2, links.down.ghost, stream);
    signal_and_wait(-1);
    for (long step = 0; step < 2 * sweeps; ++step) {
        const int colour = static_cast<int>(step & 1);
        if (overlap) {
            // Stage 4e: one launch per colour; its boundary rows go first,
            // wait on the GPU for the neighbours' previous step and signal
            // this one, while the interior rows never wait. The host only
            // launches.
            gpu_red_black_colour(d, colour, omega, 1, d.rows + 1, stream, links.signalled_mirrors(d, step + 1));
            continue;
        }
        gpu_red_black_colour(d, colour, omega, 1, d.rows + 1, stream, links.mirrors(d));
        signal_and_wait(step);
    }
    HPCLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
    // The neighbours' writes into this grid are done once they are here too.
    HPCLAB_MPI_CHECK(MPI_Barrier(sc.comm()));
    t.seconds = MPI_Wtime() - start;
    return t;
}

}  // namespace lab11
