#!/usr/bin/env bash
# On a GPU host: build every lab for that GPU and run all tests (solutions,
# hidden tests included), then the grader's self-check of the labs that need
# a GPU (solution full marks, starter 0, every mutant caught), logging to
# OUT_DIR. Which labs use MPI, and with how many ranks, comes from lab.json.
# Then every handout command, as written (tools/handout_commands.py --run
# here,gpu-host,slow: CI runs only the "here" ones; the GPU ones need this
# host, the slow ones its cores), of LABS' handouts when LABS is set, of every document
# otherwise; HANDOUTS=0 leaves them out.
# SELFCHECK_ARGS adds options to the self-check (a long one split with
# --cases, say: SELFCHECK_ARGS="--first-loss --cases peer-*"; words split
# on blanks, never globbed).
#   usage: [LABS=06-reduction,...] [SELFCHECK=0] [SELFCHECK_ARGS=...] [HANDOUTS=0] tools/gpu-host-check.sh [BUILD_DIR] [OUT_DIR] [GPU_ARCH]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build-gpu}
out=${2:-gpu-check-logs}
arch=${3:-90}
mkdir -p "$out"
# Open MPI refuses to run as root (GPU hosts often run commands as root).
eval "$(python3 "$root/labs/lab_manifest" mpi-env --shell)"
# Warnings are CI's to hold (-Dproject_werror): a GPU host's other compiler
# versions may warn where CI's do not, and that must not stop its tests.
[ -d "$build" ] || meson setup "$build" -Dgpu_arch="$arch" -Dhidden_tests=true -Dgrader_tests=false \
  -Dproject_werror=disabled ${LABS:+-Dlabs="$LABS"} > "$out/setup.log"
SECONDS=0
ninja -C "$build" > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
echo "built in $SECONDS s"
# The handout commands run below, with the GPU ones (HANDOUTS), not twice.
meson test -C "$build" --num-processes 4 --print-errorlogs --no-suite handout-commands > "$out/tests.log" 2>&1
tail -9 "$out/tests.log"
for hidden in "$build"/labs/*-solution-hidden; do
  [ -e "$hidden" ] || continue
  lab=$(basename "$hidden" -solution-hidden)
  ranks=$(python3 -c 'import json, sys; r = json.load(open(sys.argv[1])).get("mpi_ranks", []); print(r[-1] if r else "")' \
          "$root/labs/$lab/lab.json")
  log="$out/hidden-$lab.log"
  if [ -n "$ranks" ]; then mpirun -np "$ranks" --oversubscribe "$hidden"; else "$hidden"; fi > "$log" 2>&1
  echo "hidden $lab: exit $? ($(grep -c '\[       OK \]' "$log") OK)"
done
if [ "${SELFCHECK:-1}" != 0 ]; then
  gpu_labs=$(python3 -c '
import sys
sys.path.insert(0, sys.argv[1] + "/grading")
from hpcgrade import manifest
wanted = [w for w in sys.argv[2].split(",") if w]
print(" ".join(l for l in manifest.list_labs(sys.argv[1])
               if manifest.load(sys.argv[1], l)["needs_gpu"] and (not wanted or l in wanted)))' "$root" "${LABS:-}")
  read -ra extra <<< "${SELFCHECK_ARGS:-}"
  # shellcheck disable=SC2086  # one lab per word
  "$root/grading/selfcheck" $gpu_labs --jobs "$(nproc)" "${extra[@]}" > "$out/selfcheck.log" 2>&1
  echo "selfcheck: exit $?"
  sed -n '/^lab /,$p' "$out/selfcheck.log"
fi
if [ "${HANDOUTS:-1}" != 0 ]; then
  docs=()
  for lab in ${LABS:+${LABS//,/ }}; do docs+=("labs/$lab/README.md"); done
  python3 "$root/tools/handout_commands.py" --run here,gpu-host,slow ${docs[@]:+--docs "${docs[@]}"} \
    > "$out/handouts.log" 2>&1
  echo "handout commands (here, gpu-host, slow): exit $?"
  grep -E '^  (FAIL|TIME|skip) |^[0-9]+ commands in' "$out/handouts.log"
fi
