#!/usr/bin/env bash
# On a GPU host: build every lab for that GPU, run all tests (solutions and
# the hidden tests), then the headline benchmarks, logging to OUT_DIR.
#   usage: [LABS=11-multigpu-sor,...] tools/gpu-host-check.sh [BUILD_DIR] [OUT_DIR] [GPU_ARCH]
set -uo pipefail
build=${1:-build-gpu}
out=${2:-gpu-check-logs}
arch=${3:-90}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -d "$build" ] || meson setup "$build" -Dgpu_arch="$arch" -Dhidden_tests=true -Dgrader_tests=false \
  ${LABS:+-Dlabs="$LABS"} > "$out/setup.log"
SECONDS=0
ninja -C "$build" > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
echo "built in $SECONDS s"
meson test -C "$build" --num-processes 2 --print-errorlogs > "$out/tests.log" 2>&1
tail -9 "$out/tests.log"
for hidden in "$build"/labs/*-solution-hidden; do
  case $hidden in
    *02-bucket-sort*|*11-multigpu-sor*) mpirun -np 3 --oversubscribe "$hidden" ;;
    *) "$hidden" ;;
  esac > "$out/hidden-$(basename "$hidden").log" 2>&1
  echo "hidden $(basename "$hidden"): exit $? ($(grep -c '^\[       OK \]' "$out/hidden-$(basename "$hidden").log") OK)"
done
