// Lab 11 visible tests, GPU parts: both layouts bitwise equal to the CPU
// red-black sweep, the device residual, a device solve, and the GPU + MPI
// strips (staged, overlapped, CUDA-aware) bitwise equal to serial. Every
// test skips with a reason when there is no GPU.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "hpclab/gtest_gpu.hpp"
#include "hpclab/mpi.hpp"
#include "sor.hpp"
#include "sor_gpu.hpp"
#include "sor_test_util.hpp"

using namespace lab11;
using lab11_test::random_start;
using lab11_test::same_bits;

namespace {

// Each rank on its node-local GPU (several ranks may share one).
void pick_gpu() {
    static bool done = false;
    if (!done) select_local_gpu(MPI_COMM_WORLD);
    done = true;
}

void expect_layout_matches_cpu(Layout layout, int n, int sweeps) {
    Strip s = random_start(ProblemKind::PoissonSine, n);
    Strip want = s;
    for (int k = 0; k < sweeps; ++k) red_black_sweep(want, 1.75);
    DeviceStrip d = upload(s, layout);
    for (int k = 0; k < sweeps; ++k) gpu_red_black_sweep(d, 1.75);
    download(d, s);
    EXPECT_TRUE(same_bits(s.u, want.u, s.width())) << layout_name(layout) << " layout, n = " << n;
}

}  // namespace

TEST(Gpu, NaturalLayoutMatchesCpuBitwise) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    expect_layout_matches_cpu(Layout::Natural, 37, 5);
    expect_layout_matches_cpu(Layout::Natural, 300, 3);
}

TEST(Gpu, SeparatedLayoutMatchesCpuBitwise) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    expect_layout_matches_cpu(Layout::Separated, 37, 5);  // n + 2 odd: one slot per row unused
    expect_layout_matches_cpu(Layout::Separated, 38, 5);
    expect_layout_matches_cpu(Layout::Separated, 300, 3);
}

TEST(Gpu, ResidualMatchesCpu) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    for (Layout l : {Layout::Natural, Layout::Separated}) {
        const Strip s = random_start(ProblemKind::PoissonSine, 129);
        const DeviceStrip d = upload(s, l);
        const double want = residual_norm(s);
        EXPECT_NEAR(gpu_residual_norm(d), want, 1e-12 * want) << layout_name(l);
        EXPECT_EQ(gpu_residual_norm(d), gpu_residual_norm(d)) << "the device sum must be deterministic";
    }
}

TEST(Gpu, SolveReachesTheExactHarmonicSolution) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    const int n = 63;
    Strip s = make_problem(ProblemKind::LaplaceHarmonic, n);
    Strip cpu = s;
    const SolveResult want = solve(cpu, Method::RedBlackSor, omega_opt(n), 1e-12, 10, 100000);
    DeviceStrip d = upload(s, Layout::Separated);
    const SolveResult got = gpu_solve(d, omega_opt(n), 1e-12, 10, 100000);
    EXPECT_TRUE(got.converged);
    EXPECT_EQ(got.iterations % 10, 0);
    EXPECT_LE(std::labs(got.iterations - want.iterations), 10);
    download(d, s);
    EXPECT_LT(max_error(ProblemKind::LaplaceHarmonic, s), 1e-10);
}

TEST(Gpu, RejectsRowsOutsideTheStrip) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    DeviceStrip d = upload(make_problem(ProblemKind::PoissonSine, 10), Layout::Natural);
    EXPECT_THROW(gpu_red_black_colour(d, 0, 1.5, 0, 5), std::invalid_argument);   // row 0 is boundary
    EXPECT_THROW(gpu_red_black_colour(d, 0, 1.5, 1, 12), std::invalid_argument);  // past the last row
}

namespace {

void expect_gpu_strips_match_serial(Exchange mode, Layout layout, int n, int sweeps) {
    const StripComm sc = make_strip_comm(n, MPI_COMM_WORLD);
    Strip serial = random_start(ProblemKind::PoissonSine, n);
    Strip mine = random_start(ProblemKind::PoissonSine, n, sc.range().first, sc.range().rows);
    for (int k = 0; k < sweeps; ++k) red_black_sweep(serial, 1.8);
    DeviceStrip d = upload(mine, layout);
    gpu_mpi_sweeps(sc, d, 1.8, sweeps, mode);
    download(d, mine);
    const std::vector<double> grid = gather_grid(sc, mine);
    if (sc.rank() == 0) {
        EXPECT_TRUE(same_bits(grid, serial.u, serial.width()))
            << exchange_name(mode) << ", " << layout_name(layout) << ", n = " << n;
    }
}

}  // namespace

TEST(GpuMpi, StagedExchangeMatchesSerialBitwise) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    for (Layout l : {Layout::Natural, Layout::Separated}) expect_gpu_strips_match_serial(Exchange::Staged, l, 29, 6);
}

TEST(GpuMpi, OverlappedExchangeMatchesSerialBitwise) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    for (Layout l : {Layout::Natural, Layout::Separated}) {
        expect_gpu_strips_match_serial(Exchange::Overlapped, l, 29, 6);
        expect_gpu_strips_match_serial(Exchange::Overlapped, l, 64, 4);
    }
}

TEST(GpuMpi, CudaAwareExchangeMatchesSerialOrSkips) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    std::string why;
    if (!cuda_aware_mpi(&why)) {
        // Detected, not assumed: the call must refuse rather than pass device
        // pointers to an MPI that would read them as host memory.
        const StripComm sc = make_strip_comm(8, MPI_COMM_WORLD);
        Strip mine = make_problem(ProblemKind::PoissonSine, 8, sc.range().first, sc.range().rows);
        DeviceStrip dm = upload(mine, Layout::Natural);
        EXPECT_THROW(gpu_mpi_sweeps(sc, dm, 1.5, 1, Exchange::CudaAware), std::runtime_error);
        GTEST_SKIP() << "MPI is not CUDA-aware: " << why;
    }
    expect_gpu_strips_match_serial(Exchange::CudaAware, Layout::Separated, 29, 6);
}
