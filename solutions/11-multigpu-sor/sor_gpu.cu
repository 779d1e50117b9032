// Lab 11, stage 3: red-black SOR on one GPU (natural and separated layouts)
// and the residual norm reduced on the device.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "hpclab/cuda.hpp"
#include "row_mirrors.cuh"
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

// What every colour launch needs, passed by value.
struct ColourArgs {
    double* __restrict__ u;
    cudaTextureObject_t tex;
    const double* __restrict__ rhs;
    int cols, pitch, parity, colour;
    double omega;
};

// Point k of `colour` in row li, updated with sor_update() and mirrored.
// With `Ghosts`, a ghost row that a neighbour writes during the launch
// (stage 4e) is read past the caches.
//
// Natural layout: thread k of a row takes the k-th point of the colour in
// it. Neighbours are at +-1 (the other colour, interleaved) and +-pitch. The
// colour of local point (li, lj) is (parity + li + lj) % 2.
//
// Separated layout: thread k takes slot k of the colour's half-row, so a
// warp reads and writes 32 consecutive doubles. Point j = 2k + p with p
// chosen so the point has the colour; its left and right neighbours (j -+ 1,
// the other colour) are at slots (j-1)/2 and (j+1)/2 of the other half, and
// its up and down neighbours at slot k of the other half in rows li -+ 1.
template <Layout Y, Loads L, bool Ghosts>
__device__ __forceinline__ void update_point(const ColourArgs& a, int li, int k, const RowMirrors& m) {
    double* const u = a.u;
    // The up (side 0) and down (side 1) neighbours may be ghost values.
    auto vertical = [&](std::size_t i, bool ghost) {
        return Ghosts && ghost ? load_ghost(u + i) : load<L>(u, a.tex, i);
    };
    const bool ghost_up = Ghosts && faces_signalling(m, li, 0), ghost_down = Ghosts && faces_signalling(m, li, 1);
    if constexpr (Y == Layout::Natural) {
        const int j = 1 + ((a.parity + li + 1 + a.colour) & 1) + 2 * k;  // (parity + li + j) % 2 == colour
        if (j > a.cols) return;
        const std::size_t c = static_cast<std::size_t>(li) * a.pitch + j;
        const double v =
            sor_update(u[c], load<L>(u, a.tex, c - 1), load<L>(u, a.tex, c + 1), vertical(c - a.pitch, ghost_up),
                       vertical(c + a.pitch, ghost_down), a.rhs ? a.rhs[c] : 0.0, a.omega);
        u[c] = v;
        mirror(m, li, j, v);
    } else {
        const int j = 2 * k + ((a.parity + li + a.colour) & 1);
        if (j < 1 || j > a.cols) return;
        const int half = a.pitch / 2;
        const std::size_t row = static_cast<std::size_t>(li) * a.pitch;
        const std::size_t me = row + a.colour * half + k;
        const std::size_t other = row + (1 - a.colour) * half;
        const double l = load<L>(u, a.tex, other + ((j - 1) >> 1));
        const double r = load<L>(u, a.tex, other + ((j + 1) >> 1));
        const double up = vertical(other - a.pitch + k, ghost_up);
        const double dn = vertical(other + a.pitch + k, ghost_down);
        const double v = sor_update(u[me], l, r, up, dn, a.rhs ? a.rhs[me] : 0.0, a.omega);
        u[me] = v;
        mirror(m, li, a.colour * half + k, v);
    }
}

// Separated layout, the bulk of a launch: a thread takes slot k of up to
// kRowsPerThread consecutive rows from li0. In a column of slots k, the
// other colour's value of row r is the down neighbour of row r - 1, the up
// neighbour of row r + 1 and a side neighbour in row r: one load serves
// three points. So the thread loads that column (rows li0 - 1 to
// li0 + kRowsPerThread, those a point needs), then each row's own value,
// other side neighbour and rhs, all before the first store, and updates the
// rows in order with the same sor_update as every other path (same bits).
// Loading the whole column cuts the loads per point from 6 to 3.25 (no
// rhs): the handout's "What to expect" has what that did on an H200.
// Rows a signalled launch leaves to its front blocks are skipped, and so
// are the ghost rows only they read. With `Mirrored`, a new value of a row
// that has a mirror goes there too (stage 4d).
constexpr int kRowsPerThread = 8;

template <Loads L, bool Signalled, bool Mirrored>
__device__ __forceinline__ void update_rows(const ColourArgs& a, int li0, int row_end, int k, const RowMirrors& m) {
    constexpr int R = kRowsPerThread;
    const int half = a.pitch / 2;
    // Does this thread update row li0 + r (inside the group, the launch and
    // not a signalled front row)?
    auto updates = [&](int r) {
        const int li = li0 + r;
        return r >= 0 && r < R && li < row_end && !(Signalled && (li == m.row[0] || li == m.row[1]));
    };
    const std::size_t row0 = static_cast<std::size_t>(li0) * a.pitch;
    const std::size_t mine = row0 + a.colour * half + k;         // own slot k in row li0
    const std::size_t other = row0 + (1 - a.colour) * half + k;  // the other colour's slot k
    double* const u = a.u;
    // column[c] is row li0 - 1 + c.
    double column[R + 2], centre[R], side[R], rhs[R];
#pragma unroll
    for (int c = 0; c < R + 2; ++c) {
        const bool needed = updates(c - 2) || updates(c - 1) || updates(c);
        column[c] = needed ? load<L>(u, a.tex, other - a.pitch + static_cast<std::size_t>(c) * a.pitch) : 0.0;
    }
    // Point j = 2k + p of row li0 + r; the side neighbour that is not in
    // the column is at slot k - 1 (p = 0) or k + 1 (p = 1).
    const int p0 = (a.parity + li0 + a.colour) & 1;
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const int p = (p0 + r) & 1, j = 2 * k + p;
        if (!updates(r) || j < 1 || j > a.cols) continue;
        const std::size_t at = static_cast<std::size_t>(r) * a.pitch;
        centre[r] = u[mine + at];
        side[r] = load<L>(u, a.tex, p ? other + at + 1 : other + at - 1);
        rhs[r] = a.rhs ? a.rhs[mine + at] : 0.0;
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const int p = (p0 + r) & 1, j = 2 * k + p;
        if (!updates(r) || j < 1 || j > a.cols) continue;
        const double left = p ? column[r + 1] : side[r], right = p ? side[r] : column[r + 1];
        const double v = sor_update(centre[r], left, right, column[r], column[r + 2], rhs[r], a.omega);
        u[mine + static_cast<std::size_t>(r) * a.pitch] = v;
        if constexpr (Mirrored) mirror(m, li0 + r, a.colour * half + k, v);
    }
}

// One block row per local row (natural layout) or per kRowsPerThread rows
// (separated); gridDim.y strides when there are more. A signalled launch
// (stage 4e) has two more block rows in front, which take the mirrored
// rows: wait for the neighbours, update, tell them. They are dispatched
// first, and their barriers and uncached loads stay out of the loop that
// the other rows run (inside it, they slowed every row by 15-30% on an
// H200).
// At most 128 registers, so two blocks share an SM: left alone, nvcc gives
// the separated bulk 130 and one block fits, which cost a third of the
// speed (the handout has the figures).
template <Layout Y, Loads L, bool Signalled>
__global__ void __launch_bounds__(kThreads, 2) colour_rows(ColourArgs a, int row_begin, int row_end, RowMirrors m) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    constexpr int front = Signalled ? 2 : 0;
    if (Signalled && blockIdx.y < 2) {
        const int li = blockIdx.y == 0 ? m.row[0] : m.row[1];  // no m.row[y]: see row_mirrors.cuh
        // No neighbour on that side, or one row that faces both (done by y = 0).
        if (li == -1 || (blockIdx.y == 1 && li == m.row[0])) return;
        mirror_row_wait(m, li);
        update_point<Y, L, true>(a, li, k, m);
        mirror_row_signal(m, li);
    } else if constexpr (Y == Layout::Separated) {
        if (k >= a.pitch / 2) return;
        constexpr int R = kRowsPerThread;
        for (int li0 = row_begin + (blockIdx.y - front) * R; li0 < row_end; li0 += (gridDim.y - front) * R) {
            // Only a group that holds a mirrored row pays for the checks.
            auto holds = [&](int li) { return li >= li0 && li < li0 + R; };
            if (!Signalled && (holds(m.row[0]) || holds(m.row[1])))
                update_rows<L, Signalled, true>(a, li0, row_end, k, m);
            else
                update_rows<L, Signalled, false>(a, li0, row_end, k, m);
        }
    } else {
        for (int li = row_begin + blockIdx.y - front; li < row_end; li += gridDim.y - front)
            if (!Signalled || (li != m.row[0] && li != m.row[1]))
                update_point<Y, L, false>(a, li, k, m);  // else in front
    }
}

template <Loads L>
void launch_colour(DeviceStrip& d, int colour, double omega, int row_begin, int row_end, cudaStream_t stream,
                   const RowMirrors& mirrors) {
    const bool natural = d.layout == Layout::Natural;
    // Points of one colour per row: at most ceil(cols / 2); slots: pitch / 2.
    const int per_row = natural ? (d.cols + 1) / 2 : d.pitch / 2;
    const int rows_each = natural ? 1 : kRowsPerThread;
    const int groups = (row_end - row_begin + rows_each - 1) / rows_each;
    const bool signalled = mirrors.flags != nullptr;
    const int most = signalled ? 65533 : 65535;  // a grid has at most 65535 block rows
    const int block_rows = (groups < most ? groups : most) + (signalled ? 2 : 0);
    const dim3 grid((per_row + kThreads - 1) / kThreads, block_rows);
    auto kernel =
        natural ? (signalled ? colour_rows<Layout::Natural, L, true> : colour_rows<Layout::Natural, L, false>)
                : (signalled ? colour_rows<Layout::Separated, L, true> : colour_rows<Layout::Separated, L, false>);
    const ColourArgs args{d.u.get(), d.tex.get(), d.rhs.get(), d.cols, d.pitch, d.parity(), colour, omega};
    kernel<<<grid, kThreads, 0, stream>>>(args, row_begin, row_end, mirrors);
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
    if (mirrors.flags)
        for (int i = 0; i < 2; ++i)
            if (mirrors.row[i] != -1 &&
                (mirrors.row[i] < row_begin || mirrors.row[i] >= row_end || !mirrors.peer_flags[i] || mirrors.step < 1))
                throw std::invalid_argument("gpu_red_black_colour: signalled mirror of row " +
                                            std::to_string(mirrors.row[i]) +
                                            " needs it in the launch, the "
                                            "neighbour's flags and a step >= 1");
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
