// Lab 11, stage 3: red-black SOR on one GPU (natural and separated layouts)
// and the residual norm reduced on the device.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "hpclab/cuda.hpp"
#include "sor_gpu.hpp"

namespace lab11 {

namespace {

constexpr int kThreads = 256;

// A neighbour (a point of the other colour, which nobody writes during the
// launch) read the way d.loads says. Texture: doubles come as int2 halves.
template <Loads L>
__device__ __forceinline__ double load(const double* __restrict__ u, cudaTextureObject_t tex, std::size_t i) {
    if constexpr (L == Loads::ReadOnly) {
        return __ldg(u + i);
    } else if constexpr (L == Loads::Texture) {
        const int2 v = tex1Dfetch<int2>(tex, static_cast<int>(i));
        return __hiloint2double(v.y, v.x);
    } else {
        return u[i];
    }
}

// Stage 4d: a new value of a mirrored row goes to the neighbour's ghost row
// too, at the same slot (same layout and pitch there). These stores cross
// NVLink; the stream's next event covers them like the launch's own stores.
__device__ __forceinline__ void mirror(const RowMirrors& m, int li, int slot, double v) {
    if (li == m.row[0]) m.to[0][slot] = v;
    if (li == m.row[1]) m.to[1][slot] = v;
}

// Natural layout: thread k of a row takes the k-th point of `colour` in it.
// Neighbours are at +-1 (the other colour, interleaved) and +-pitch. The
// colour of local point (li, lj) is (parity + li + lj) % 2.
template <Loads L>
__global__ void colour_natural(double* __restrict__ u, cudaTextureObject_t tex, const double* __restrict__ rhs,
                               int cols, int pitch, int parity, int colour, double omega, int row_begin, int row_end,
                               RowMirrors mirrors) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    for (int li = row_begin + blockIdx.y; li < row_end; li += gridDim.y) {
        const int j = 1 + ((parity + li + 1 + colour) & 1) + 2 * k;  // (parity + li + j) % 2 == colour
        if (j > cols) continue;
        const std::size_t c = static_cast<std::size_t>(li) * pitch + j;
        const double v = sor_update(u[c], load<L>(u, tex, c - 1), load<L>(u, tex, c + 1), load<L>(u, tex, c - pitch),
                                    load<L>(u, tex, c + pitch), rhs ? rhs[c] : 0.0, omega);
        u[c] = v;
        mirror(mirrors, li, j, v);
    }
}

// Separated layout: thread k takes slot k of the colour's half-row, so a warp
// reads and writes 32 consecutive doubles. Point j = 2k + p with p chosen so
// the point has `colour`; its left and right neighbours (j -+ 1, the other
// colour) are at slots (j-1)/2 and (j+1)/2 of the other half, and its up and
// down neighbours at slot k of the other half in rows li -+ 1.
template <Loads L>
__global__ void colour_separated(double* __restrict__ u, cudaTextureObject_t tex, const double* __restrict__ rhs,
                                 int cols, int pitch, int parity, int colour, double omega, int row_begin, int row_end,
                                 RowMirrors mirrors) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    const int half = pitch / 2;
    for (int li = row_begin + blockIdx.y; li < row_end; li += gridDim.y) {
        const int j = 2 * k + ((parity + li + colour) & 1);
        if (j < 1 || j > cols) continue;
        const std::size_t row = static_cast<std::size_t>(li) * pitch;
        const std::size_t me = row + colour * half + k;
        const std::size_t other = row + (1 - colour) * half;
        const double l = load<L>(u, tex, other + ((j - 1) >> 1));
        const double r = load<L>(u, tex, other + ((j + 1) >> 1));
        const double up = load<L>(u, tex, other - pitch + k);
        const double dn = load<L>(u, tex, other + pitch + k);
        const double v = sor_update(u[me], l, r, up, dn, rhs ? rhs[me] : 0.0, omega);
        u[me] = v;
        mirror(mirrors, li, colour * half + k, v);
    }
}

template <Loads L>
void launch_colour(DeviceStrip& d, int colour, double omega, int row_begin, int row_end, cudaStream_t stream,
                   const RowMirrors& mirrors) {
    // Points of one colour per row: at most ceil(cols / 2); slots: pitch / 2.
    const int per_row = d.layout == Layout::Natural ? (d.cols + 1) / 2 : d.pitch / 2;
    const int rows = row_end - row_begin;
    const dim3 grid((per_row + kThreads - 1) / kThreads, rows < 65535 ? rows : 65535);
    auto kernel = d.layout == Layout::Natural ? colour_natural<L> : colour_separated<L>;
    kernel<<<grid, kThreads, 0, stream>>>(d.u.get(), d.tex.get(), d.rhs.get(), d.cols, d.pitch, d.parity(), colour,
                                          omega, row_begin, row_end, mirrors);
    HPCLAB_CUDA_CHECK_LAUNCH();
}

// Residual: each thread sums r^2 over a fixed set of points (grid-stride
// over the owned interior), then a tree in shared memory; one partial per
// block. The launch shape is fixed, so the summation order is too.
constexpr int kResidualBlocks = 1024;

__global__ void residual_partials(const double* __restrict__ u, const double* __restrict__ rhs, int cols, int rows,
                                  int pitch, int parity, Layout layout, double* __restrict__ partial) {
    __shared__ double cache[kThreads];
    double sum = 0;
    const long long total = static_cast<long long>(rows) * cols;
    for (long long p = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; p < total;
         p += static_cast<long long>(gridDim.x) * blockDim.x) {
        const int li = 1 + static_cast<int>(p / cols);
        const int lj = 1 + static_cast<int>(p % cols);
        auto slot = [&](int di, int dj) {
            return static_cast<std::size_t>(li + di) * pitch +
                   layout_slot(layout, (parity + li + di + lj + dj) & 1, lj + dj, pitch);
        };
        auto at = [&](int di, int dj) { return u[slot(di, dj)]; };
        const double b = rhs ? rhs[slot(0, 0)] : 0.0;
        const double r = residual_at(at(0, 0), at(0, -1), at(0, 1), at(-1, 0), at(1, 0), b);
        sum = __fma_rn(r, r, sum);
    }
    cache[threadIdx.x] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) cache[threadIdx.x] += cache[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = cache[0];
}

__global__ void sum_partials(const double* __restrict__ partial, int count, double* __restrict__ out) {
    __shared__ double cache[kThreads];
    double sum = 0;
    for (int k = threadIdx.x; k < count; k += blockDim.x) sum += partial[k];
    cache[threadIdx.x] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) cache[threadIdx.x] += cache[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) *out = cache[0];
}

}  // namespace

void gpu_red_black_colour(DeviceStrip& d, int colour, double omega, int row_begin, int row_end, cudaStream_t stream,
                          const RowMirrors& mirrors) {
    if (row_begin < 1 || row_end > d.rows + 1 || colour < 0 || colour > 1)
        throw std::invalid_argument("gpu_red_black_colour: rows [" + std::to_string(row_begin) + ", " +
                                    std::to_string(row_end) + ") outside [1, " + std::to_string(d.rows + 1) + ")");
    for (int i = 0; i < 2; ++i)
        if (mirrors.row[i] != -1 && (mirrors.row[i] < 1 || mirrors.row[i] > d.rows || !mirrors.to[i]))
            throw std::invalid_argument(
                "gpu_red_black_colour: mirror of row " + std::to_string(mirrors.row[i]) +
                (mirrors.to[i] ? " outside [1, " + std::to_string(d.rows) + "]" : " to nowhere"));
    if (row_end <= row_begin) return;
    if (d.loads == Loads::Texture && !d.tex.get())
        throw std::invalid_argument("gpu_red_black_colour: texture loads without a texture (use set_loads)");
    switch (d.loads) {
        case Loads::Plain: launch_colour<Loads::Plain>(d, colour, omega, row_begin, row_end, stream, mirrors); break;
        case Loads::ReadOnly:
            launch_colour<Loads::ReadOnly>(d, colour, omega, row_begin, row_end, stream, mirrors);
            break;
        case Loads::Texture:
            launch_colour<Loads::Texture>(d, colour, omega, row_begin, row_end, stream, mirrors);
            break;
    }
}

double gpu_residual_norm(const DeviceStrip& d, cudaStream_t stream) {
    hpclab::cuda::DeviceBuffer<double> partial(kResidualBlocks), total(1);
    residual_partials<<<kResidualBlocks, kThreads, 0, stream>>>(d.u.get(), d.rhs.get(), d.cols, d.rows, d.pitch,
                                                                d.parity(), d.layout, partial.get());
    HPCLAB_CUDA_CHECK_LAUNCH();
    sum_partials<<<1, kThreads, 0, stream>>>(partial.get(), kResidualBlocks, total.get());
    HPCLAB_CUDA_CHECK_LAUNCH();
    double result = 0;
    HPCLAB_CUDA_CHECK(cudaMemcpyAsync(&result, total.get(), sizeof(double), cudaMemcpyDeviceToHost, stream));
    HPCLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
    return std::sqrt(result);
}

SolveResult gpu_solve(DeviceStrip& d, double omega, double tol, int check_every, long max_iters) {
    return iterate_to_tolerance(
        [&](long sweeps) {
            // Launches only: the host does not wait until the residual is needed.
            for (long k = 0; k < sweeps; ++k) gpu_red_black_sweep(d, omega);
        },
        [&] { return gpu_residual_norm(d); }, tol, check_every, max_iters);
}

}  // namespace lab11
