// Lab 03, stages 2-6: two halves with OpenMP sections and with std::thread,
// a recursive OpenMP task quicksort, oneTBB (parallel_sort and a quicksort
// of your own with parallel_invoke or task_group), and the task quicksort
// under top levels split by your parallel partition.
// Every TODO(student) below throws "not implemented" until you replace it.
#include "parallel_quicksort.hpp"

#include <omp.h>
#include <tbb/parallel_invoke.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>

#include "hpclab/not_implemented.hpp"
#include "parallel_partition.hpp"
#include "quicksort.hpp"

namespace lab03 {

std::size_t split_in_two(double* v, std::size_t n) {
    // TODO(student): swap the median of v[0], v[n/2], v[n-1] into v[0], then
    // return partition_lecture(v, 0, n - 1, std::less<double>()).
    (void)v;
    (void)n;
    throw hpclab::NotImplemented("split_in_two");
}

std::size_t sort_two_halves_sections(double* v, std::size_t n, const RangeSorter& sort_half) {
    // TODO(student): split_in_two, then `#pragma omp parallel sections
    // num_threads(2)` with one `#pragma omp section` per half. Not the
    // lecture's region (see the handout): there both threads sort both halves.
    (void)v;
    (void)n;
    (void)sort_half;
    throw hpclab::NotImplemented("sort_two_halves_sections");
}

std::size_t sort_two_halves_threads(double* v, std::size_t n, const RangeSorter& sort_half) {
    // TODO(student): a std::thread sorts the first half, this thread the
    // second; join. Carry an exception out of the thread with
    // std::exception_ptr, and join before any exception leaves this function.
    (void)v;
    (void)n;
    (void)sort_half;
    throw hpclab::NotImplemented("sort_two_halves_threads");
}

void quicksort_omp_tasks(double* v, std::size_t n, int threads, std::size_t cutoff) {
    // TODO(student): reject threads < 1; `#pragma omp parallel num_threads(threads)`
    // then `#pragma omp single` around a recursive helper that partitions
    // (median of three, partition3), makes one part a `#pragma omp task` and
    // does the other itself; at most `cutoff` elements: quicksort_doubles.
    (void)v;
    (void)n;
    (void)threads;
    (void)cutoff;
    throw hpclab::NotImplemented("quicksort_omp_tasks");
}

void quicksort_parallel_partition(double* v, std::size_t n, int threads, std::size_t cutoff) {
    // TODO(student): reject threads < 1. Split the top ceil(log2(threads))
    // levels with parallel_partition on all threads (pivot: median of three;
    // is_left: x < pivot; when that leaves nothing on the left, the pivot is
    // the smallest key: split off its copies with x <= pivot instead), one
    // range after another; then one parallel region in which each range
    // left at the bottom becomes a task of your task quicksort.
    (void)v;
    (void)n;
    (void)threads;
    (void)cutoff;
    throw hpclab::NotImplemented("quicksort_parallel_partition");
}

void tbb_parallel_sort(double* v, std::size_t n, int threads) {
    // TODO(student): reject threads < 1; tbb::task_arena arena(threads);
    // arena.execute(...) around tbb::parallel_sort.
    (void)v;
    (void)n;
    (void)threads;
    throw hpclab::NotImplemented("tbb_parallel_sort");
}

void quicksort_tbb(double* v, std::size_t n, int threads, std::size_t cutoff) {
    // TODO(student): as the tasks version, with tbb::parallel_invoke (or a
    // tbb::task_group) inside a task_arena of `threads` threads.
    (void)v;
    (void)n;
    (void)threads;
    (void)cutoff;
    throw hpclab::NotImplemented("quicksort_tbb");
}

}  // namespace lab03
