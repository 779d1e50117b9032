#!/usr/bin/env bash
# The CPU labs' figures, on any Linux machine with the packages of
# .ci/packages.txt: builds the reference drivers of the labs whose lab.json
# has CPU figure runs ("figure_runs": "sample"), runs each as listed there
# (small sizes, the arguments its declared figures need), and writes
#   OUT_DIR/NN-name.jsonl    the driver's --json lines
#   OUT_DIR/NN-name.err      what the driver said on stderr
#   OUT_DIR/NN-name/*.png    the figures, drawn by tools/plot
# About 13 minutes on two shared cores. The labs' samples (and the figures
# of labs 01-03) came from
#   tools/figures-cpu.sh /tmp/figs --install
# where --install copies each OUT_DIR/NN-name.jsonl to labs/NN-name/figures/sample.jsonl
# and its PNGs to labs/NN-name/figures/, but for labs whose handout shows runs
# on 16 cores at sizes two cores cannot reach ("sample_is_handout": false,
# labs 14 and 15): their READMEs give those commands and the tools/plot line
# that drew them. --list prints the runs and does nothing else.
#   usage: [LABS="01-sorting"] tools/figures-cpu.sh OUT_DIR [--install] [BUILD_DIR]
#          [LABS=...] tools/figures-cpu.sh --list [BUILD_DIR]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tools/figure_runs.sh
source "$root/tools/figure_runs.sh"
manifest=$root/labs/lab_manifest
out=${1:?usage: tools/figures-cpu.sh OUT_DIR [--install] [BUILD_DIR]}
install=
[ "${2:-}" = --install ] && { install=1; shift; }
build=${2:-/tmp/fig-cpu}
# The runs, one a line: the lab, the run's name and its command (lab.json).
# shellcheck disable=SC2086  # LABS is a list of words
runs=$(python3 "$manifest" figure-runs sample --cpu --driver-dir "$build/labs" ${LABS:-}) || exit 1
[ "$out" = --list ] && { printf '%s\n' "$runs"; exit 0; }
labs=$(printf '%s\n' "$runs" | cut -f1 | uniq)
mkdir -p "$out"
out=$(cd "$out" && pwd)
# Open MPI refuses to run as root unless told, and oversubscription lets 4
# ranks run on 2 cores.
eval "$(python3 "$manifest" mpi-env --shell)"

SECONDS=0
[ -d "$build" ] || meson setup "$build" "$root" -Dcuda=disabled -Dgrader_tests=false \
  -Dlabs="$(echo $labs | tr ' ' ',')" > "$out/setup.log" 2>&1 || { tail -20 "$out/setup.log"; exit 1; }
targets=$(for lab in $labs; do printf 'labs/%s-solution ' "$lab"; done)
# shellcheck disable=SC2086  # one target per word
ninja -C "$build" $targets > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
echo "built in $SECONDS s"

status=0
# A run that fails or hangs (5 minutes) is reported and the rest go on.
run_figure_runs "$out" "$build" 300 "$runs" || status=1
echo "measured in $SECONDS s"

for lab in $labs; do
  [ -s "$out/$lab.jsonl" ] || continue
  /usr/bin/python3 "$root/tools/plot" "$lab" "$out/$lab.jsonl" --out "$out/$lab" || status=1
  if [ -n "$install" ]; then
    mkdir -p "$root/labs/$lab/figures"
    cp "$out/$lab.jsonl" "$root/labs/$lab/figures/sample.jsonl"
    if python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import lab_manifest as m
sys.exit(0 if m.load(m.repo_root(), sys.argv[2])["figure_runs"]["sample_is_handout"] else 1)' "$root/labs" "$lab"; then
      cp "$out/$lab"/*.png "$root/labs/$lab/figures/"
    fi
  fi
done
echo "done in $SECONDS s: JSON lines and figures in $out"
exit $status
