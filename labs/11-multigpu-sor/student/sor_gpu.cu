// Lab 11, stage 3: red-black SOR on one GPU (natural and separated layouts)
// and the residual norm reduced on the device.
// Every TODO(student) below throws "not implemented" until you replace it.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "hpclab/cuda.hpp"
#include "hpclab/not_implemented.hpp"
#include "row_mirrors.cuh"
#include "sor_gpu.hpp"

namespace lab11 {

namespace {

// Your kernels go here (gpu_red_black_colour below launches them): two
// __global__ kernels, one per layout, each updating the
// points of one colour in local rows [row_begin, row_end) with sor_update():
//  - natural: thread k of a row takes the k-th point of the colour in it;
//    neighbours at +-1 and +-pitch;
//  - separated: thread k takes slot k of the colour's half-row (see
//    layout_slot in sor_gpu.hpp), so a warp touches consecutive doubles.
//    Faster (the handout's "What to expect"): thread k takes slot k of
//    several rows, and the other colour's values in that column serve
//    three points each.
// The same kernels serve strips and blocks: the colour of local point
// (li, lj) is (d.parity() + li + lj) % 2, the columns are 1..d.cols. A null
// rhs means b = 0.
// Loads (d.loads): read the four neighbours with plain loads, with __ldg, or
// with tex1Dfetch<int2>(d.tex.get(), index) and __hiloint2double(v.y, v.x).
// A template parameter for the load path keeps one kernel body per layout.
//
// And for gpu_residual_norm: a kernel that reduces r^2 on the device in a fixed
// order (e.g. a fixed number of blocks, a tree in shared memory per block,
// then one block over the partial sums).

}  // namespace

void gpu_red_black_colour(DeviceStrip& d, int colour, double omega, int row_begin, int row_end, cudaStream_t stream,
                          const RowMirrors& mirrors) {
    // TODO(student): check the row range (std::invalid_argument), launch the
    // kernel of d.layout and d.loads on `stream`, then HPCLAB_CUDA_CHECK_LAUNCH().
    // Stage 4d: pass `mirrors` (by value) to the kernels; a new value of row
    // mirrors.row[i] is also stored to mirrors.to[i] at its slot in the row.
    // Stage 4e (row_mirrors.cuh, included above): in each row, every thread of the
    // block calls mirror_row_wait(mirrors, li) before reading and
    // mirror_row_signal(mirrors, li) after storing, with no thread leaving
    // the row early; a row that faces_signalling() a side reads its ghost
    // neighbour on that side with load_ghost(). Visiting the last row and the
    // first row before the others lets the neighbours go on sooner.
    (void)mirrors;
    (void)d;
    (void)colour;
    (void)omega;
    (void)row_begin;
    (void)row_end;
    (void)stream;
    throw hpclab::NotImplemented("gpu_red_black_colour");
}

double gpu_residual_norm(const DeviceStrip& d, cudaStream_t stream) {
    // TODO(student): launch your residual reduction; copy one double back.
    (void)d;
    (void)stream;
    throw hpclab::NotImplemented("gpu_residual_norm");
}

SolveResult gpu_solve(DeviceStrip& d, double omega, double tol, int check_every, long max_iters) {
    // TODO(student): iterate_to_tolerance with gpu_red_black_sweep (launches
    // only: the host waits for nothing until the residual) and gpu_residual_norm.
    (void)d;
    (void)omega;
    (void)tol;
    (void)check_every;
    (void)max_iters;
    throw hpclab::NotImplemented("gpu_solve");
}

}  // namespace lab11
