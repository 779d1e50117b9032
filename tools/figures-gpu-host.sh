#!/usr/bin/env bash
# The GPU labs' figures, on a GPU host (an H100 for the handouts): builds the
# reference drivers of the GPU labs, runs each with the arguments its
# declared figures (labs/NN-name/lab.json, "figures") need, and writes
#   OUT_DIR/NN-name.jsonl    the driver's --json lines (the lab's recorded
#                            sample: copy it to labs/NN-name/figures/sample.jsonl)
#   OUT_DIR/NN-name.err      what the driver said on stderr
#   OUT_DIR/NN-name/*.png    the figures, drawn by tools/plot
# Meant to take under 6 minutes on an H100 host (16 cores), the build included.
#   usage: [LABS="05-matmul 06-reduction"] tools/figures-gpu-host.sh OUT_DIR [BUILD_DIR] [GPU_ARCH]
# To refresh a handout: tools/figures-gpu-host.sh /tmp/figs, then
#   cp /tmp/figs/NN-name.jsonl labs/NN-name/figures/sample.jsonl
#   tools/plot NN-name labs/NN-name/figures/sample.jsonl     # PNGs into labs/NN-name/figures/
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: tools/figures-gpu-host.sh OUT_DIR [BUILD_DIR] [GPU_ARCH]}
build=${2:-/tmp/fig}
arch=${3:-90}
all_labs="04-cuda-newton 05-matmul 06-reduction 07-coalescing 08-occupancy-model 09-streams-overlap
          10-quad-double 11-multigpu-sor 12-gpu-message-passing 13-mri-fhd"
labs=${LABS:-$all_labs}
mkdir -p "$out"
out=$(cd "$out" && pwd)
# Open MPI refuses to run as root (GPU hosts often run commands as root).
eval "$(python3 "$root/labs/lab_manifest.py" mpi-env --shell)"

SECONDS=0
# Only the reference drivers: the tests are not needed for figures and would
# double the build. Warnings are CI's to hold, not a GPU host's.
[ -d "$build" ] || meson setup "$build" "$root" -Dgpu_arch="$arch" -Dgrader_tests=false -Dproject_werror=disabled \
  -Dlabs="$(echo $labs | tr ' ' ',')" > "$out/setup.log" 2>&1 || { tail -20 "$out/setup.log"; exit 1; }
targets=$(for lab in $labs; do printf 'labs/%s-solution ' "$lab"; done)
# shellcheck disable=SC2086  # one target per word
ninja -C "$build" $targets > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
echo "built in $SECONDS s"

gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
status=0
# run LAB ARGS...: one run of LAB's reference driver, its --json lines added to
# OUT_DIR/LAB.jsonl. A run that fails or hangs (3 minutes) is reported and the
# rest go on. LAUNCH (e.g. "mpirun -np 2") goes before the driver.
run() {
  local lab=$1
  shift
  local start=$SECONDS
  # shellcheck disable=SC2086  # LAUNCH is a command line
  timeout 180 ${LAUNCH:-} "$build/labs/$lab-solution" "$@" --json >> "$out/$lab.jsonl" 2>> "$out/$lab.err"
  local rc=$?
  echo "  $lab $*: exit $rc after $((SECONDS - start)) s"
  [ $rc = 0 ] || status=1
}
wanted() { case " $labs " in *" $1 "*) rm -f "$out/$1.jsonl" "$out/$1.err"; return 0 ;; esac; return 1; }

# 04: time against threads per block, and GPU and CPU time against k fixed steps.
wanted 04-cuda-newton && run 04-cuda-newton --n 1e7 --sweep-blocks --sweep-k --no-study --degree 0 --reps 10
# 05: GFLOP/s of every kernel and of cuBLAS against the size of a square product.
wanted 05-matmul && run 05-matmul --sweep --sizes 512 1024 2048 4096 --type float --kernels all --no-pedantic --reps 5
# 06: GB/s of every kernel, CUB and the device copy against the size; pi's error against n.
if wanted 06-reduction; then
  for n in 2^18 2^20 2^22 2^24 2^26 2^28; do run 06-reduction --n "$n" --type float --reps 20; done
  run 06-reduction --pi --pi-max 1e9
fi
# 07: the copy with an offset and a stride (default 2^26 floats), the
# transposes against the matrix size, and the powers' two layouts.
if wanted 07-coalescing; then
  run 07-coalescing --stage copy --reps 10
  for size in 1024 2048 4096 8192 16384; do run 07-coalescing --stage transpose --size "$size" --reps 10; done
  run 07-coalescing --stage powers --reps 10
fi
# 08: as the handout (every stage, the chase to 1 GiB; the figures are from seed 2).
wanted 08-occupancy-model && run 08-occupancy-model --stage all --seed 2
# 09: every stage with the defaults, as the handout.
wanted 09-streams-overlap && run 09-streams-overlap --reps 3
# 10: every benchmark at the driver's moderate default sizes.
wanted 10-quad-double && run 10-quad-double
# 11: time per sweep against GPUs (1, 2, 4, ... up to the GPUs present; one
# rank per GPU), and one GPU's layouts and loads.
if wanted 11-multigpu-sor; then
  for p in 1 2 4 8; do
    [ "$p" = 1 ] || [ "$p" -le "$gpus" ] || break
    LAUNCH="mpirun -np $p" run 11-multigpu-sor --mode scaling --n 16384 --sweeps 20 --reps 5 --weak
  done
  LAUNCH="mpirun -np 1" run 11-multigpu-sor --mode gpu --n 8192 --sweeps 20 --reps 5 --loads all
fi
# 12: pi, ping-pong and the stairs, as the handout.
wanted 12-gpu-message-passing && run 12-gpu-message-passing --bench all
# 13: the whole ladder, as the handout.
wanted 13-mri-fhd && run 13-mri-fhd --size 128 --samples 2^18 --reps 3 --warmup 1
echo "measured in $SECONDS s"

# The figures; /usr/bin/python3 is Debian's, which has python3-matplotlib.
for lab in $labs; do
  [ -s "$out/$lab.jsonl" ] || continue
  /usr/bin/python3 "$root/tools/plot" "$lab" "$out/$lab.jsonl" --out "$out/$lab" || status=1
done
echo "done in $SECONDS s: JSON lines and figures in $out"
exit $status
