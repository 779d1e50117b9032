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
using lab11_test::interior_of;
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

TEST(Gpu, LoadPathsGiveTheSameBits) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    Strip start = random_start(ProblemKind::PoissonSine, 45);
    Strip want = start;
    for (int k = 0; k < 3; ++k) red_black_sweep(want, 1.75);
    for (Layout l : {Layout::Natural, Layout::Separated})
        for (Loads loads : {Loads::Plain, Loads::ReadOnly, Loads::Texture}) {
            DeviceStrip d = upload(start, l);
            set_loads(d, loads);
            for (int k = 0; k < 3; ++k) gpu_red_black_sweep(d, 1.75);
            Strip got = start;
            download(d, got);
            EXPECT_TRUE(same_bits(got.u, want.u, got.width())) << layout_name(l) << " layout, " << loads_name(loads);
        }
}

TEST(Gpu, BlocksMatchCpuBitwise) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    const Strip full = random_start(ProblemKind::PoissonSine, 31);
    // Blocks whose first row and column are odd or even: the colour comes from
    // the global position, not the local one.
    const RowRange shapes[][2] = {{{1, 16}, {1, 31}}, {{8, 11}, {13, 9}}, {{9, 23}, {2, 30}}, {{17, 15}, {16, 16}}};
    for (const auto& shape : shapes)
        for (Layout l : {Layout::Natural, Layout::Separated}) {
            Block want = cut_block(full, shape[0], shape[1]);
            DeviceStrip d = upload(want, l);
            for (int k = 0; k < 2; ++k)
                for (int colour = 0; colour < 2; ++colour) {
                    block_red_black_colour(want, colour, 1.7);
                    gpu_red_black_colour(d, colour, 1.7, 1, d.rows + 1);
                }
            Block got = cut_block(full, shape[0], shape[1]);
            download(d, got);
            EXPECT_TRUE(same_bits(got.u, want.u, got.width()))
                << layout_name(l) << ", rows from " << shape[0].first << ", columns from " << shape[1].first;
        }
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

TEST(GpuMpi, WideHalosMatchSerialBitwise) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    const int n = 29;  // 4 ranks: strips of 7 or 8 rows, enough for bs = 3
    for (Layout l : {Layout::Natural, Layout::Separated})
        for (int bs : {1, 3}) {
            const StripComm sc = make_strip_comm(n, MPI_COMM_WORLD);
            Strip serial = random_start(ProblemKind::PoissonSine, n);
            for (int k = 0; k < 7; ++k) red_black_sweep(serial, 1.8);
            const RowRange wr = wide_rows(sc, wide_halo_depth(bs));
            Strip wide = random_start(ProblemKind::PoissonSine, n, wr.first, wr.rows);
            DeviceStrip d = upload(wide, l);
            gpu_mpi_sweeps_wide(sc, d, 1.8, 7, bs);
            download(d, wide);
            const std::vector<double> grid = gather_grid(sc, owned_part(sc, wide));
            if (sc.rank() == 0) {
                EXPECT_TRUE(same_bits(grid, serial.u, serial.width())) << layout_name(l) << ", bs = " << bs;
            }
        }
}

TEST(GpuMpi, BlocksMatchSerialBitwise) {
    HPCLAB_REQUIRE_GPU();
    pick_gpu();
    for (Layout l : {Layout::Natural, Layout::Separated})
        for (int n : {21, 32}) {
            const BlockComm bc = make_block_comm(n, MPI_COMM_WORLD);
            Strip serial = random_start(ProblemKind::PoissonSine, n);
            Block b = cut_block(serial, bc.rows(), bc.cols());
            for (int k = 0; k < 6; ++k) red_black_sweep(serial, 1.85);
            DeviceStrip d = upload(b, l);
            gpu_mpi_block_sweeps(bc, d, 1.85, 6);
            download(d, b);
            const std::vector<double> interior = gather_block_interior(bc, b);
            if (hpclab::mpi::rank(bc.comm()) == 0) {
                EXPECT_TRUE(same_bits(interior, interior_of(serial), n))
                    << layout_name(l) << ", n = " << n << ", blocks " << bc.dim(0) << " x " << bc.dim(1);
            }
        }
}
