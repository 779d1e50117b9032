// Lab 02, stages 1-3: buckets, root-distributes bucket sort, fan-out bucket sort.
#include "bucket_sort.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "hpclab/mpi.hpp"
#include "phase_clock.hpp"

namespace lab02 {

int bucket_of(double x, int p) {
    if (p < 1) throw std::invalid_argument("bucket_of: p = " + std::to_string(p) + " buckets; need p >= 1");
    // Written so that NaN fails too: every comparison with NaN is false.
    if (!(x >= 0.0 && x <= 1.0)) throw std::invalid_argument("bucket_of: " + std::to_string(x) + " is outside [0, 1]");
    // x = 1.0 gives p exactly: it belongs to the last bucket. (For doubles
    // x < 1, x * p stays below p under round-to-nearest; the common variant
    // x / (1.0 / p) does not: p = 3, x = 1 - 2^-53 gives 3.0. The clamp
    // guards both.)
    const int b = static_cast<int>(x * p);
    return std::min(b, p - 1);
}

Buckets split_into_buckets(const double* x, std::size_t n, int p) {
    if (n > static_cast<std::size_t>(std::numeric_limits<int>::max()))
        throw std::length_error("split_into_buckets: MPI counts are int; n must be < 2^31");
    Buckets b;
    b.counts.assign(static_cast<std::size_t>(p > 0 ? p : 0), 0);
    std::vector<int> bucket(n);
    // Pass 1: which bucket, and how many in each (a counting sort by bucket).
    for (std::size_t i = 0; i < n; ++i) {
        bucket[i] = bucket_of(x[i], p);
        ++b.counts[static_cast<std::size_t>(bucket[i])];
    }
    b.displs.assign(b.counts.size(), 0);
    for (std::size_t i = 1; i < b.counts.size(); ++i) b.displs[i] = b.displs[i - 1] + b.counts[i - 1];
    // Pass 2: copy each value to the next free slot of its bucket.
    b.values.resize(n);
    std::vector<int> next = b.displs;
    for (std::size_t i = 0; i < n; ++i)
        b.values[static_cast<std::size_t>(next[static_cast<std::size_t>(bucket[i])]++)] = x[i];
    return b;
}

std::vector<double> sort_root_distributes(const std::vector<double>& all_on_root, MPI_Comm comm, SortReport* report) {
    if (report) *report = SortReport{};
    const int p = hpclab::mpi::size(comm), rank = hpclab::mpi::rank(comm);
    Buckets buckets;
    std::string error;
    if (rank == 0) {
        PhaseClock clock(field(report, &SortReport::compute_seconds));
        try {
            buckets = split_into_buckets(all_on_root.data(), all_on_root.size(), p);
        } catch (const std::exception& e) {
            // Tell every rank through the counts (-1), so nobody waits for a
            // bucket that will never come.
            error = e.what();
            buckets.counts.assign(static_cast<std::size_t>(p), -1);
            buckets.displs.assign(static_cast<std::size_t>(p), 0);
        }
    }
    int my_count = 0;
    std::vector<double> mine;
    {
        PhaseClock clock(field(report, &SortReport::communicate_seconds));
        HPCLAB_MPI_CHECK(MPI_Scatter(buckets.counts.data(), 1, MPI_INT, &my_count, 1, MPI_INT, 0, comm));
        if (my_count < 0) {
            throw BadInput(0, rank == 0 ? error : "rank 0 found a value outside [0, 1]");
        }
        mine.resize(static_cast<std::size_t>(my_count));
        HPCLAB_MPI_CHECK(MPI_Scatterv(buckets.values.data(), buckets.counts.data(), buckets.displs.data(), MPI_DOUBLE,
                                      mine.data(), my_count, MPI_DOUBLE, 0, comm));
    }
    {
        PhaseClock clock(field(report, &SortReport::compute_seconds));
        std::sort(mine.begin(), mine.end());
    }
    if (report) report->my_bucket = my_count;
    std::vector<double> result;
    {
        PhaseClock clock(field(report, &SortReport::communicate_seconds));
        if (rank == 0) result.resize(all_on_root.size());
        // The root knows every count already: it made the buckets.
        HPCLAB_MPI_CHECK(MPI_Gatherv(mine.data(), my_count, MPI_DOUBLE, result.data(), buckets.counts.data(),
                                     buckets.displs.data(), MPI_DOUBLE, 0, comm));
    }
    return result;
}

std::vector<double> sort_fan_out(const std::vector<double>& local, MPI_Comm comm, SortReport* report) {
    if (report) *report = SortReport{};
    const int p = hpclab::mpi::size(comm), rank = hpclab::mpi::rank(comm);
    const std::size_t np = static_cast<std::size_t>(p);
    Buckets out;
    std::string error;
    {
        PhaseClock clock(field(report, &SortReport::compute_seconds));
        try {
            out = split_into_buckets(local.data(), local.size(), p);
        } catch (const std::exception& e) {
            error = e.what();
            out.counts.assign(np, -1);  // the error travels with the counts
            out.displs.assign(np, 0);
        }
    }
    std::vector<int> in_counts(np), in_displs(np, 0);
    std::vector<double> mine;
    {
        PhaseClock clock(field(report, &SortReport::communicate_seconds));
        HPCLAB_MPI_CHECK(MPI_Alltoall(out.counts.data(), 1, MPI_INT, in_counts.data(), 1, MPI_INT, comm));
        // Every rank sees every rank's counts, so all agree on who failed.
        for (int r = 0; r < p; ++r) {
            if (in_counts[static_cast<std::size_t>(r)] < 0) {
                throw BadInput(r, r == rank ? error : "rank " + std::to_string(r) + " found a value outside [0, 1]");
            }
        }
        long long total = 0;
        for (std::size_t r = 0; r < np; ++r) {
            in_displs[r] = static_cast<int>(total);
            total += in_counts[r];
        }
        if (total > std::numeric_limits<int>::max())
            throw std::length_error("sort_fan_out: a bucket of more than 2^31 - 1 numbers");
        mine.resize(static_cast<std::size_t>(total));
        HPCLAB_MPI_CHECK(MPI_Alltoallv(out.values.data(), out.counts.data(), out.displs.data(), MPI_DOUBLE, mine.data(),
                                       in_counts.data(), in_displs.data(), MPI_DOUBLE, comm));
    }
    {
        PhaseClock clock(field(report, &SortReport::compute_seconds));
        std::sort(mine.begin(), mine.end());
    }
    if (report) report->my_bucket = static_cast<long long>(mine.size());
    return mine;
}

}  // namespace lab02
