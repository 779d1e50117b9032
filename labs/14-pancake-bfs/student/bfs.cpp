// Lab 14, stage 3: level-synchronous BFS of the pancake graph over MPI ranks.
// Every TODO(student) below throws "not implemented" until you replace it.
#include <string>

#include "hpclab/mpi.hpp"
#include "hpclab/not_implemented.hpp"
#include "pancake.hpp"

namespace lab14 {

BfsResult pancake_bfs(const BfsOptions& o, MPI_Comm comm) {
    // TODO(student): see pancake.hpp and the handout. Outline:
    //   check n, the budget (min_budget_bytes) and the start stack, alike on
    //   every rank, before any communication;
    //   keep bits for the states you own, [block_first, +block_size): which
    //   bits, and why they are enough, is question 1 of answers.md;
    //   per level: expand every frontier stack you own (unrank, n - 1 flips,
    //   rank each, add it to an Outbox under its owner_of rank) while adding
    //   stack_fingerprint of every expanded stack; then deliver in rounds:
    //   take up to exchange_chunk_items(budget, p) per destination,
    //   MPI_Alltoall the counts, MPI_Alltoallv the indices, mark the unseen
    //   ones; repeat until no rank has anything pending; clear the outbox;
    //   sum the new states over ranks; stop at a level with none.
    //   A spill error on one rank must reach every rank (agree with an
    //   MPI_Allreduce) before anyone throws.
    (void)o;
    (void)comm;
    throw hpclab::NotImplemented("pancake_bfs");
}

}  // namespace lab14
