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

// Natural layout: thread k of a row takes the k-th point of `colour` in it.
// Neighbours are at +-1 (the other colour, interleaved) and +-pitch.
__global__ void colour_natural(double* __restrict__ u, const double* __restrict__ rhs, int n, int pitch,
                               int first_row, int colour, double omega, int row_begin, int row_end) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    for (int li = row_begin + blockIdx.y; li < row_end; li += gridDim.y) {
        const int i = first_row - 1 + li;
        const int j = 1 + ((i + 1 + colour) & 1) + 2 * k;  // (i + j) % 2 == colour
        if (j > n) continue;
        const std::size_t c = static_cast<std::size_t>(li) * pitch + j;
        u[c] = sor_update(u[c], u[c - 1], u[c + 1], u[c - pitch], u[c + pitch], rhs ? rhs[c] : 0.0, omega);
    }
}

// Separated layout: thread k takes slot k of the colour's half-row, so a warp
// reads and writes 32 consecutive doubles. Point j = 2k + p with p chosen so
// (i + j) % 2 == colour; its left and right neighbours (j -+ 1, the other
// colour) are at slots (j-1)/2 and (j+1)/2 of the other half, and its up and
// down neighbours at slot k of the other half in rows li -+ 1.
__global__ void colour_separated(double* __restrict__ u, const double* __restrict__ rhs, int n, int pitch,
                                 int first_row, int colour, double omega, int row_begin, int row_end) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    const int half = pitch / 2;
    for (int li = row_begin + blockIdx.y; li < row_end; li += gridDim.y) {
        const int i = first_row - 1 + li;
        const int j = 2 * k + ((i + colour) & 1);
        if (j < 1 || j > n) continue;
        const std::size_t row = static_cast<std::size_t>(li) * pitch;
        const std::size_t me = row + colour * half + k;
        const std::size_t other = row + (1 - colour) * half;
        const double l = u[other + ((j - 1) >> 1)];
        const double r = u[other + ((j + 1) >> 1)];
        const double up = u[other - pitch + k];
        const double dn = u[other + pitch + k];
        u[me] = sor_update(u[me], l, r, up, dn, rhs ? rhs[me] : 0.0, omega);
    }
}

// Residual: each thread sums r^2 over a fixed set of points (grid-stride
// over the owned interior), then a tree in shared memory; one partial per
// block. The launch shape is fixed, so the summation order is too.
constexpr int kResidualBlocks = 1024;

__global__ void residual_partials(const double* __restrict__ u, const double* __restrict__ rhs, int n, int rows,
                                  int pitch, int first_row, Layout layout, double* __restrict__ partial) {
    __shared__ double cache[kThreads];
    double sum = 0;
    const long long total = static_cast<long long>(rows) * n;
    for (long long p = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; p < total;
         p += static_cast<long long>(gridDim.x) * blockDim.x) {
        const int li = 1 + static_cast<int>(p / n);
        const int j = 1 + static_cast<int>(p % n);
        const int i = first_row - 1 + li;
        auto at = [&](int di, int dj) {
            return u[static_cast<std::size_t>(li + di) * pitch + layout_slot(layout, i + di, j + dj, pitch)];
        };
        const double b = rhs ? rhs[static_cast<std::size_t>(li) * pitch + layout_slot(layout, i, j, pitch)] : 0.0;
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

void gpu_red_black_colour(DeviceStrip& d, int colour, double omega, int row_begin, int row_end,
                          cudaStream_t stream) {
    if (row_begin < 1 || row_end > d.rows + 1 || colour < 0 || colour > 1)
        throw std::invalid_argument("gpu_red_black_colour: rows [" + std::to_string(row_begin) + ", " +
                                    std::to_string(row_end) + ") outside [1, " + std::to_string(d.rows + 1) + ")");
    if (row_end <= row_begin) return;
    // Points of one colour per row: at most ceil(n / 2); slots: pitch / 2.
    const int per_row = d.layout == Layout::Natural ? (d.n + 1) / 2 : d.pitch / 2;
    const int rows = row_end - row_begin;
    dim3 grid((per_row + kThreads - 1) / kThreads, rows < 65535 ? rows : 65535);
    if (d.layout == Layout::Natural)
        colour_natural<<<grid, kThreads, 0, stream>>>(d.u.get(), d.rhs.get(), d.n, d.pitch, d.first_row, colour,
                                                      omega, row_begin, row_end);
    else
        colour_separated<<<grid, kThreads, 0, stream>>>(d.u.get(), d.rhs.get(), d.n, d.pitch, d.first_row, colour,
                                                        omega, row_begin, row_end);
    HPCLAB_CUDA_CHECK_LAUNCH();
}

void gpu_red_black_sweep(DeviceStrip& d, double omega, cudaStream_t stream) {
    // Same stream: the black launch starts after every red point is written.
    gpu_red_black_colour(d, 0, omega, 1, d.rows + 1, stream);
    gpu_red_black_colour(d, 1, omega, 1, d.rows + 1, stream);
}

double gpu_residual_norm(const DeviceStrip& d, cudaStream_t stream) {
    hpclab::cuda::DeviceBuffer<double> partial(kResidualBlocks), total(1);
    residual_partials<<<kResidualBlocks, kThreads, 0, stream>>>(d.u.get(), d.rhs.get(), d.n, d.rows, d.pitch,
                                                                d.first_row, d.layout, partial.get());
    HPCLAB_CUDA_CHECK_LAUNCH();
    sum_partials<<<1, kThreads, 0, stream>>>(partial.get(), kResidualBlocks, total.get());
    HPCLAB_CUDA_CHECK_LAUNCH();
    double result = 0;
    HPCLAB_CUDA_CHECK(cudaMemcpyAsync(&result, total.get(), sizeof(double), cudaMemcpyDeviceToHost, stream));
    HPCLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
    return std::sqrt(result);
}

SolveResult gpu_solve(DeviceStrip& d, double omega, double tol, int check_every, long max_iters) {
    if (check_every < 1 || max_iters < 0 || !(tol >= 0))
        throw std::invalid_argument("gpu_solve: need check_every >= 1, max_iters >= 0 and tol >= 0");
    SolveResult result;
    result.residual0 = gpu_residual_norm(d);
    result.residual = result.residual0;
    if (result.residual0 == 0) {
        result.converged = true;
        return result;
    }
    while (result.iterations < max_iters) {
        const long block = std::min<long>(check_every, max_iters - result.iterations);
        // Launches only: the host does not wait until the residual is needed.
        for (long k = 0; k < block; ++k) gpu_red_black_sweep(d, omega);
        result.iterations += block;
        result.residual = gpu_residual_norm(d);
        if (result.residual <= tol * result.residual0) {
            result.converged = true;
            break;
        }
    }
    return result;
}

}  // namespace lab11
