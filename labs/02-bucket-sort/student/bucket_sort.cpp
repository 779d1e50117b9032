// Lab 02, stages 1-3: buckets, root-distributes bucket sort, fan-out bucket sort.
// Every TODO(student) below throws "not implemented" until you replace it.
#include "bucket_sort.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "hpclab/mpi.hpp"
#include "hpclab/not_implemented.hpp"
#include "phase_clock.hpp"

namespace lab02 {

int bucket_of(double x, int p) {
    // TODO(student): reject p < 1 and x outside [0, 1] with std::invalid_argument
    // (write the test so that NaN is rejected too); otherwise return the
    // bucket i with i/p <= x < (i+1)/p, and p - 1 for x = 1.0. Careful with
    // rounding near 1: for p = 3 and x = 1 - 2^-53, x / (1.0 / p) is 3.0.
    (void)x;
    (void)p;
    throw hpclab::NotImplemented("bucket_of");
}

Buckets split_into_buckets(const double* x, std::size_t n, int p) {
    // TODO(student): counts[i] = how many x fall in bucket i; displs = the
    // running sum of counts (displs[0] = 0); values = x grouped by bucket.
    // Two passes over x (count, then place) avoid p growing vectors.
    (void)x;
    (void)n;
    (void)p;
    throw hpclab::NotImplemented("split_into_buckets");
}

std::vector<double> sort_root_distributes(const std::vector<double>& all_on_root, MPI_Comm comm, SortReport* report) {
    // TODO(student): see bucket_sort.hpp. Outline:
    //   rank 0: split_into_buckets(all_on_root, p); if that throws, set every
    //           count to -1 (the others must learn of the error, or they wait
    //           forever in the next collective);
    //   all:    MPI_Scatter the counts; a count of -1 means throw BadInput(0, ...);
    //           MPI_Scatterv the buckets; std::sort your bucket;
    //           MPI_Gatherv the sorted buckets to rank 0 (counts and displs as
    //           for the scatter).
    // Fill *report (when not null): my_bucket, compute and communicate seconds
    // (time each phase with the given PhaseClock, phase_clock.hpp).
    (void)all_on_root;
    (void)comm;
    (void)report;
    throw hpclab::NotImplemented("sort_root_distributes");
}

std::vector<double> sort_fan_out(const std::vector<double>& local, MPI_Comm comm, SortReport* report) {
    // TODO(student): see bucket_sort.hpp. Outline:
    //   split your share into p buckets (bucket r goes to rank r); on an error
    //   send counts of -1; MPI_Alltoall the counts; if any rank sent -1, throw
    //   BadInput(lowest such rank, ...) on every rank; receive displacements =
    //   running sum of the received counts; MPI_Alltoallv the values; sort.
    (void)local;
    (void)comm;
    (void)report;
    throw hpclab::NotImplemented("sort_fan_out");
}

}  // namespace lab02
