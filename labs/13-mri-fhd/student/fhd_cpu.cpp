// Lab 13, stage 1: mu = conj(phi) d and the double-precision reference of
// F^H d on all cores (see fhd.hpp for the formulas).
#include <cmath>
#include <stdexcept>

#include "fhd.hpp"
#include "hpclab/not_implemented.hpp"

namespace lab13 {

KSpace compute_mu(const Scan& scan) {
    // TODO(student): stage 1. Check that all seven arrays have the same
    // length (std::invalid_argument otherwise); copy kx, ky, kz; for every
    // sample, in double: rMu = rPhi rD + iPhi iD, iMu = rPhi iD - iPhi rD
    // (the conjugate of phi times d), rounded to float once.
    (void)scan;
    throw hpclab::NotImplemented("compute_mu");
}

void fhd_cpu(const KSpace& k, const Grid& g, std::vector<double>& rFHd, std::vector<double>& iFHd) {
    // TODO(student): stage 1. A voxel per iteration of an OpenMP loop (the
    // interchanged loops: why not a sample per iteration?); the phase
    // 2 pi (kx x + ky y + kz z) and its cosine and sine in double; the sums
    // in local variables, stored once.
    (void)k;
    (void)g;
    (void)rFHd;
    (void)iFHd;
    throw hpclab::NotImplemented("fhd_cpu");
}

}  // namespace lab13
