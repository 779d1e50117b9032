#!/usr/bin/env bash
# The GPU labs' figures, on a GPU host (an H100 for the handouts): builds the
# reference drivers of the GPU labs, runs each as its lab.json lists
# ("figure_runs": "sample", the arguments its declared "figures" need; runs
# of one rank a GPU only up to the GPUs present), and writes
#   OUT_DIR/NN-name.jsonl    the driver's --json lines (the lab's recorded
#                            sample: copy it to labs/NN-name/figures/sample.jsonl)
#   OUT_DIR/NN-name.err      what the driver said on stderr
#   OUT_DIR/NN-name/*.png    the figures, drawn by tools/plot
# Meant to take under 6 minutes on an H100 host (16 cores), the build included.
#   usage: [LABS="05-matmul 06-reduction"] tools/figures-gpu-host.sh OUT_DIR [BUILD_DIR] [GPU_ARCH]
#          [LABS=...] [GPUS=N] tools/figures-gpu-host.sh --list [BUILD_DIR]   the runs, nothing else
# To refresh a handout: tools/figures-gpu-host.sh /tmp/figs, then
#   cp /tmp/figs/NN-name.jsonl labs/NN-name/figures/sample.jsonl
#   tools/plot NN-name labs/NN-name/figures/sample.jsonl     # PNGs into labs/NN-name/figures/
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tools/figure_runs.sh
source "$root/tools/figure_runs.sh"
manifest=$root/labs/lab_manifest
out=${1:?usage: tools/figures-gpu-host.sh OUT_DIR [BUILD_DIR] [GPU_ARCH]}
build=${2:-/tmp/fig}
arch=${3:-90}
gpus=${GPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}
# The runs, one a line: the lab, the run's name and its command (lab.json).
# shellcheck disable=SC2086  # LABS is a list of words
runs=$(python3 "$manifest" figure-runs sample --gpu --gpus "$gpus" --driver-dir "$build/labs" ${LABS:-}) || exit 1
[ "$out" = --list ] && { printf '%s\n' "$runs"; exit 0; }
labs=$(printf '%s\n' "$runs" | cut -f1 | uniq)
mkdir -p "$out"
out=$(cd "$out" && pwd)
# Open MPI refuses to run as root (GPU hosts often run commands as root).
eval "$(python3 "$manifest" mpi-env --shell)"

SECONDS=0
# Only the reference drivers: the tests are not needed for figures and would
# double the build. Warnings are CI's to hold, not a GPU host's.
[ -d "$build" ] || meson setup "$build" "$root" -Dgpu_arch="$arch" -Dgrader_tests=false -Dproject_werror=disabled \
  -Dlabs="$(echo $labs | tr ' ' ',')" > "$out/setup.log" 2>&1 || { tail -20 "$out/setup.log"; exit 1; }
targets=$(for lab in $labs; do printf 'labs/%s-solution ' "$lab"; done)
# shellcheck disable=SC2086  # one target per word
ninja -C "$build" $targets > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
echo "built in $SECONDS s"

status=0
# A run that fails or hangs (3 minutes) is reported and the rest go on.
run_figure_runs "$out" "$build" 180 "$runs" || status=1
echo "measured in $SECONDS s"

# The figures; /usr/bin/python3 is Debian's, which has python3-matplotlib.
for lab in $labs; do
  [ -s "$out/$lab.jsonl" ] || continue
  /usr/bin/python3 "$root/tools/plot" "$lab" "$out/$lab.jsonl" --out "$out/$lab" || status=1
done
echo "done in $SECONDS s: JSON lines and figures in $out"
exit $status
