// Lab 13, stage 1: mu = conj(phi) d and the double-precision reference of
// F^H d on all cores. Reference solution.
#include <cmath>
#include <stdexcept>

#include "fhd.hpp"

namespace lab13 {

KSpace compute_mu(const Scan& scan) {
    const std::size_t m = scan.size();
    for (const auto* v : {&scan.ky, &scan.kz, &scan.rPhi, &scan.iPhi, &scan.rD, &scan.iD}) {
        if (v->size() != m) throw std::invalid_argument("compute_mu: the scan's arrays differ in length");
    }
    KSpace k;
    k.kx = scan.kx;
    k.ky = scan.ky;
    k.kz = scan.kz;
    k.rMu.resize(m);
    k.iMu.resize(m);
    for (std::size_t j = 0; j < m; ++j) {
        const double rp = scan.rPhi[j], ip = scan.iPhi[j], rd = scan.rD[j], id = scan.iD[j];
        // (rp - i ip)(rd + i id): the conjugate of phi times d.
        k.rMu[j] = static_cast<float>(rp * rd + ip * id);
        k.iMu[j] = static_cast<float>(rp * id - ip * rd);
    }
    return k;
}

void fhd_cpu(const KSpace& k, const Grid& g, std::vector<double>& rFHd, std::vector<double>& iFHd) {
    const long n = static_cast<long>(g.size());
    const std::size_t m = k.size();
    rFHd.assign(g.size(), 0.0);
    iFHd.assign(g.size(), 0.0);
    const double two_pi = 2 * 3.14159265358979323846;
    // A voxel per iteration (the interchanged loops): no two threads write
    // the same sum, so no atomics; the k-space arrays stream through cache.
#pragma omp parallel for schedule(static)
    for (long v = 0; v < n; ++v) {
        const double x = g.x[v], y = g.y[v], z = g.z[v];
        double r = 0, i = 0;
        for (std::size_t j = 0; j < m; ++j) {
            const double phase = two_pi * (double(k.kx[j]) * x + double(k.ky[j]) * y + double(k.kz[j]) * z);
            const double c = std::cos(phase), s = std::sin(phase);
            r += k.rMu[j] * c - k.iMu[j] * s;
            i += k.iMu[j] * c + k.rMu[j] * s;
        }
        rFHd[v] = r;
        iFHd[v] = i;
    }
}

}  // namespace lab13
