#!/bin/sh
# Lab 10: build and run the contraction test by hand: contraction_variant.cu compiled twice
# (FMA contraction allowed / forbidden, on device and host) and linked into test_contraction.
# Usage: labs/10-quad-double/tests/contraction_probe.sh IMPL_DIR MESON_BUILD_DIR [ARCH]
#   IMPL_DIR: solutions/10-quad-double or labs/10-quad-double/student (whose multi_double.hpp to test)
#   MESON_BUILD_DIR: a configured and built tree (for libhpclab and libhpclab_cuda)
set -eu
if [ $# -lt 2 ]; then
    echo "usage: $0 IMPL_DIR MESON_BUILD_DIR [ARCH]" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
lab=$(dirname "$here")
root=$(dirname "$(dirname "$lab")")
if [ ! -f "$1/multi_double.hpp" ]; then
    echo "$0: $1 holds no multi_double.hpp: give labs/10-quad-double/student or solutions/10-quad-double" >&2
    exit 2
fi
impl=$(cd "$1" && pwd)
build=$(cd "$2" 2>/dev/null && pwd) || build=$2
arch=${3:-90}
for lib in libhpclab_cuda.a libhpclab.a; do
    if [ ! -f "$build/common/$lib" ]; then
        echo "$0: $2 is not a built tree of this repository (no common/$lib): give the directory" \
             "you ran meson compile in, e.g. build/10-quad-double" >&2
        exit 2
    fi
done
out=$build/lab10-contraction
mkdir -p "$out"
cuda_home=$(dirname "$(dirname "$(command -v nvcc)")")
inc="-I$impl -I$lab -I$root/common/include $(pkg-config --cflags qd gtest)"
gen="-gencode=arch=compute_$arch,code=sm_$arch"
nvcc -std=c++17 -O3 $gen $inc -fmad=true -DCONTRACTION_VARIANT=fmad_on \
    -Xcompiler=-mfma,-ffp-contract=fast -c "$here/contraction_variant.cu" -o "$out/fmad_on.o"
nvcc -std=c++17 -O3 $gen $inc -fmad=false -DCONTRACTION_VARIANT=fmad_off \
    -Xcompiler=-ffp-contract=off -c "$here/contraction_variant.cu" -o "$out/fmad_off.o"
g++ -std=c++17 -O2 $inc -I"$cuda_home/include" -c "$here/test_contraction.cpp" -o "$out/test.o"
g++ -o "$out/test_contraction" "$out/test.o" "$out/fmad_on.o" "$out/fmad_off.o" \
    "$build/common/libhpclab_cuda.a" "$build/common/libhpclab.a" \
    -L"$cuda_home/lib64" -lcudart $(pkg-config --libs qd gtest_main) -lpthread
"$out/test_contraction"
