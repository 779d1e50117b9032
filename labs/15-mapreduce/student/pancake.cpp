// Lab 15, stage 5: breadth-first search of the pancake graph as rounds of
// map and reduce (lecture 24's exercise). Every TODO(student) below throws
// "not implemented" until you replace it. The contracts are in mapreduce.hpp.
#include <algorithm>
#include <numeric>
#include <string>

#include "hpclab/mpi.hpp"
#include "hpclab/not_implemented.hpp"
#include "mapreduce.hpp"

namespace lab15 {

std::vector<std::string> pancake_neighbours(const std::string& stack) {
    // TODO(student): check that stack is a permutation of "12...n", 2 <= n <= 9;
    // return the stacks with the top k reversed, k = 2..n.
    (void)stack;
    throw hpclab::NotImplemented("pancake_neighbours");
}

std::vector<long long> pancake_levels(int n, MPI_Comm comm, bool combine_min, JobReport* total) {
    // TODO(student): check n (every rank has the same n, so every rank throws).
    // The sorted stack starts at distance 0 on its owner_of rank. Round
    // `level`: map emits every known (stack, distance), and for each stack at
    // distance == level its neighbours at level + 1; reduce keeps the smallest
    // distance (values arrive sorted); the combiner, when asked, is min. The
    // round's output is the next round's input. Stop when a round finds no
    // stack at level + 1 on any rank (MPI_Allreduce); then count per distance
    // and sum the counts over ranks.
    (void)n;
    (void)comm;
    (void)combine_min;
    (void)total;
    throw hpclab::NotImplemented("pancake_levels");
}

}  // namespace lab15
