// Lab 03, stages 2-6: two halves with OpenMP sections and with std::thread,
// a recursive OpenMP task quicksort, oneTBB (parallel_sort and a quicksort
// of our own with parallel_invoke), and the task quicksort under top levels
// split by the parallel partition.
#include "parallel_quicksort.hpp"

#include <omp.h>
#include <tbb/parallel_invoke.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "parallel_partition.hpp"
#include "quicksort.hpp"

namespace lab03 {

namespace {
void require_threads(int threads, const char* who) {
    if (threads < 1)
        throw std::invalid_argument(std::string(who) + ": threads = " + std::to_string(threads) + "; need >= 1");
}
}  // namespace

std::size_t split_in_two(double* v, std::size_t n) {
    // The lecture's partition takes v[0] as the pivot: on sorted input that
    // leaves one half empty and nothing to run in parallel. Put the median of
    // three there first.
    const std::size_t mid = n / 2, last = n - 1;
    const double m = median_of_three(v[0], v[mid], v[last], std::less<double>());
    const std::size_t k = (v[mid] == m) ? mid : (v[last] == m ? last : 0);
    std::swap(v[0], v[k]);
    return partition_lecture(v, 0, last, std::less<double>());
}

std::size_t sort_two_halves_sections(double* v, std::size_t n, const RangeSorter& sort_half) {
    if (n < 2) return 0;
    const std::size_t k = split_in_two(v, n);
    // One section per half: each half is sorted once, by one thread. (The
    // lecture's region had no sections, so both threads sorted both halves.)
#pragma omp parallel sections num_threads(2)
    {
#pragma omp section
        sort_half(v, k);
#pragma omp section
        sort_half(v + k + 1, n - k - 1);
    }
    return k;
}

std::size_t sort_two_halves_threads(double* v, std::size_t n, const RangeSorter& sort_half) {
    if (n < 2) return 0;
    const std::size_t k = split_in_two(v, n);
    std::exception_ptr first_error;
    std::thread first([&] {
        try {
            sort_half(v, k);
        } catch (...) {
            first_error = std::current_exception();  // rethrown after the join
        }
    });
    try {
        sort_half(v + k + 1, n - k - 1);
    } catch (...) {
        first.join();  // never leave a joinable std::thread behind (std::terminate)
        throw;
    }
    first.join();
    if (first_error) std::rethrow_exception(first_error);
    return k;
}

namespace {

void omp_task_quicksort(double* v, std::size_t n, std::size_t cutoff) {
    if (n <= cutoff) {
        quicksort_doubles(v, n);
        return;
    }
    std::uint64_t state = 0x9E3779B97F4A7C15ULL ^ n;
    const double pivot = detail::random_pivot(v, n, state, std::less<double>());
    const auto [lt, gt] = partition3(v, n, pivot, std::less<double>());
    // One half becomes a task any thread may take; this thread goes on with
    // the other. The two ranges do not overlap, so no synchronisation is
    // needed between them; the end of the parallel region waits for all tasks.
    const std::size_t left = lt;
#pragma omp task firstprivate(v, left, cutoff)
    omp_task_quicksort(v, left, cutoff);
    omp_task_quicksort(v + gt, n - gt, cutoff);
}

void tbb_quicksort_rec(double* v, std::size_t n, std::size_t cutoff) {
    if (n <= cutoff) {
        quicksort_doubles(v, n);
        return;
    }
    std::uint64_t state = 0x9E3779B97F4A7C15ULL ^ n;
    const double pivot = detail::random_pivot(v, n, state, std::less<double>());
    const auto [lt, gt] = partition3(v, n, pivot, std::less<double>());
    const std::size_t left = lt;
    tbb::parallel_invoke([=] { tbb_quicksort_rec(v, left, cutoff); },
                         [=] { tbb_quicksort_rec(v + gt, n - gt, cutoff); });
}

struct Part {
    double* v;
    std::size_t n;
};

// The top `levels` levels of the recursion: each range is split by the
// parallel partition on all threads, one range after another, and what is
// left at the bottom goes to `parts`. Two-way split (< pivot | >= pivot);
// when nothing is below the pivot, it is the smallest key, and its copies are
// split off instead (<= pivot), already in place: equal keys cannot stall a
// level.
void split_top_levels(double* v, std::size_t n, int threads, int levels, std::size_t cutoff, std::vector<Part>& parts) {
    if (levels == 0 || n <= cutoff) {
        parts.push_back({v, n});
        return;
    }
    std::uint64_t state = 0x9E3779B97F4A7C15ULL ^ n;
    const double pivot = detail::random_pivot(v, n, state, std::less<double>());
    std::size_t k = parallel_partition(
        v, n, [pivot](double x) { return x < pivot; }, threads);
    if (k == 0) {
        k = parallel_partition(
            v, n, [pivot](double x) { return !(pivot < x); }, threads);
        split_top_levels(v + k, n - k, threads, levels - 1, cutoff, parts);
        return;
    }
    split_top_levels(v, k, threads, levels - 1, cutoff, parts);
    split_top_levels(v + k, n - k, threads, levels - 1, cutoff, parts);
}

}  // namespace

void quicksort_parallel_partition(double* v, std::size_t n, int threads, std::size_t cutoff) {
    require_threads(threads, "quicksort_parallel_partition");
    cutoff = std::max<std::size_t>(cutoff, 1);
    // The task quicksort has 2^L tasks at level L: while that is fewer than
    // the threads, a serial partition would leave threads idle (Amdahl), so
    // those levels use the parallel partition instead.
    int levels = 0;
    while ((1 << levels) < threads) ++levels;
    std::vector<Part> parts;
    split_top_levels(v, n, threads, levels, cutoff, parts);
#pragma omp parallel num_threads(threads)
#pragma omp single
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const Part p = parts[i];
#pragma omp task firstprivate(p, cutoff)
        omp_task_quicksort(p.v, p.n, cutoff);
    }
}

void quicksort_omp_tasks(double* v, std::size_t n, int threads, std::size_t cutoff) {
    require_threads(threads, "quicksort_omp_tasks");
    cutoff = std::max<std::size_t>(cutoff, 1);
    // One thread starts the recursion (single); the team runs the tasks.
#pragma omp parallel num_threads(threads)
#pragma omp single
    omp_task_quicksort(v, n, cutoff);
}

void tbb_parallel_sort(double* v, std::size_t n, int threads) {
    require_threads(threads, "tbb_parallel_sort");
    // An arena limits how many threads TBB uses for the work run inside it.
    tbb::task_arena arena(threads);
    arena.execute([&] { tbb::parallel_sort(v, v + n); });
}

void quicksort_tbb(double* v, std::size_t n, int threads, std::size_t cutoff) {
    require_threads(threads, "quicksort_tbb");
    cutoff = std::max<std::size_t>(cutoff, 1);
    tbb::task_arena arena(threads);
    arena.execute([&] { tbb_quicksort_rec(v, n, cutoff); });
}

}  // namespace lab03
