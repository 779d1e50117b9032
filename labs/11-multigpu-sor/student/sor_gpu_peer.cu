// Lab 11, stages 4d and 4e: halo rows written from GPU to GPU through CUDA
// IPC, no host in the data path; interprocess events order the writes (4d),
// or flags that the kernels themselves write and wait for (4e, overlap).
// Every TODO(student) below throws "not implemented" until you replace it.
#include <mpi.h>

#include <stdexcept>
#include <string>

#include "hpclab/cuda.hpp"
#include "hpclab/mpi.hpp"
#include "hpclab/not_implemented.hpp"
#include "sor_peer.hpp"

namespace lab11 {

PeerLinks open_peer_links(const StripComm& sc, const DeviceStrip& d) {
    // TODO(student): see sor_peer.hpp. Create links.written[0] and [1]
    // (IpcEvent::create), make this rank's card (make_peer_card), swap cards
    // with the up and down neighbours (two MPI_Sendrecv of sizeof(PeerCard)
    // MPI_BYTEs), check each neighbour with can_reach, and agree on every rank
    // (all_ranks_agree); if not, return with usable = false and the reason.
    // Then open each neighbour's grid (IpcGrid), events (IpcEvent::open) and
    // flags (IpcFlags, stage 4e),
    // and point ghost at the row this rank writes: the up neighbour's row
    // rows + 1, the down neighbour's row 0 (the card says its rows and pitch).
    // Opening can fail too: agree once more.
    (void)sc;
    (void)d;
    throw hpclab::NotImplemented("open_peer_links");
}

SweepTimes gpu_peer_sweeps(const StripComm& sc, DeviceStrip& d, double omega, long sweeps, bool overlap) {
    // TODO(student): see sor_peer.hpp. open_peer_links, or throw
    // std::runtime_error with its `why`. Synchronise the device, barrier,
    // start the clock. Step -1: push whole rows (push_row, colour 2). Then
    // for each colour step s: update the colour with the boundary rows
    // mirrored into the neighbours' ghost rows (gpu_red_black_colour with
    // links.mirrors(d)), record links.written[s & 1], swap a
    // token with both neighbours (MPI_Sendrecv: "I recorded step s"), then
    // make the stream wait (cudaStreamWaitEvent) on the neighbours'
    // written[s & 1]. Why two events, and why the token before the wait?
    // Stage 4e, with overlap: no events and no tokens inside the loop; each
    // colour step s is one launch with links.signalled_mirrors(d, s + 1),
    // whose boundary rows wait on the GPU for the neighbours' step s and
    // signal s + 1 (your kernels call row_mirrors.cuh). At the end:
    // synchronise, barrier (the neighbours' writes into you are done), stop
    // the clock.
    (void)sc;
    (void)d;
    (void)omega;
    (void)sweeps;
    (void)overlap;
    throw hpclab::NotImplemented("gpu_peer_sweeps");
}

}  // namespace lab11
