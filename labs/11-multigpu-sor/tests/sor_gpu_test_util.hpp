// Lab 11 test helpers, GPU parts (visible and hidden tests): the GPU each
// rank uses, and GPU sweeps of a grid as one judged call.
#pragma once

#include <mpi.h>

#include <vector>

#include "hpclab/judged.hpp"
#include "sor.hpp"
#include "sor_gpu.hpp"

namespace lab11_test {

// Each rank on its node-local GPU (several ranks may share one). Asked in
// every test: the judge runs all tests in one process and must replay the
// same calls as each test's own recording process made.
inline void pick_gpu() { HPCLAB_VALUE(lab11::select_local_gpu(MPI_COMM_WORLD)); }

// Upload `start` in `layout` with `loads`, `sweeps` GPU sweeps, download:
// the grid, from one judged call.
inline std::vector<double> gpu_sweeps(const lab11::Strip& start, lab11::Layout layout, lab11::Loads loads, double omega,
                                      int sweeps) {
    return HPCLAB_CALL([&] {
        lab11::DeviceStrip d = lab11::upload(start, layout);
        lab11::set_loads(d, loads);
        for (int k = 0; k < sweeps; ++k) lab11::gpu_red_black_sweep(d, omega);
        lab11::Strip got = start;
        lab11::download(d, got);
        return got.u;
    });
}

}  // namespace lab11_test
