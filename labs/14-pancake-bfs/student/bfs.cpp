// Lab 14, stage 3: level-synchronous BFS of the pancake graph over MPI ranks.
// Every TODO(student) below throws "not implemented" until you replace it.
#include <string>

#include "bit_segments.hpp"
#include "hpclab/mpi.hpp"
#include "hpclab/not_implemented.hpp"
#include "pancake.hpp"

namespace lab14 {

BfsResult pancake_bfs(const BfsOptions& o, MPI_Comm comm) {
    // TODO(student): see pancake.hpp, bit_segments.hpp and the handout.
    // Outline:
    //   check n, the budget (min_budget_bytes(p, n!)) and the start stack,
    //   alike on every rank, before any communication;
    //   keep bits for the states you own, [block_first, +block_size), in a
    //   BitSegments of segment_states(budget) states per segment (which bits,
    //   and why they are enough, is question 1 of answers.md); a file that
    //   cannot be created on one rank must stop every rank;
    //   per level: expand every frontier stack you own, segment by segment
    //   (unrank, n - 1 flips, rank each, add it to the outbox under its
    //   owner_of rank) while adding stack_fingerprint of every expanded
    //   stack; then deliver in rounds: take up to exchange_chunk_items(budget,
    //   p) per destination, MPI_Alltoall the counts, MPI_Alltoallv the
    //   indices; mark the unseen ones at once when the bits are one segment,
    //   otherwise put them in an inbox (an Outbox with one bucket per
    //   segment) and, after the last round, load each segment once and mark
    //   its bucket; repeat until no rank has anything pending; clear both
    //   outboxes; sum the new states over ranks; stop at a level with none.
    //   The budget is shared in four: outbox, inbox, exchange buffers, bits.
    //   A file error on one rank must reach every rank (agree with an
    //   MPI_Allreduce) before anyone throws.
    (void)o;
    (void)comm;
    throw hpclab::NotImplemented("pancake_bfs");
}

}  // namespace lab14
