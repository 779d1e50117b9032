#!/usr/bin/env bash
# The lab 11 figures quoted in its handout and in the closing notes, on a
# host with one GPU per rank (two H200s: the device tool's nvidia-h200-x2):
# one GPU (layouts, plain / __ldg / texture loads), the decompositions on 2
# GPUs and on 4 ranks sharing them (strips, 2 x 2 blocks, wide halos, the
# exchange model), and strong and weak scaling: the runs its lab.json lists
# ("figure_runs": "quoted"; OUT_DIR/NAME.log each). Run after a build:
#   tools/lab11-figures.sh [BUILD_DIR] [OUT_DIR]
#   tools/lab11-figures.sh --list [BUILD_DIR]     the runs, nothing else
set -uo pipefail
only=${ONLY:-}  # e.g. ONLY="scaling strips": just the runs whose names contain a word
list=
[ "${1:-}" = --list ] && { list=1; shift; }
build=${1:-build-gpu}
out=${2:-lab11-figures}
manifest=$(dirname "$0")/../labs/lab_manifest
# The runs, one a line: the lab, the run's name and its command (lab.json).
runs=$(python3 "$manifest" figure-runs quoted --driver-dir "$build/labs") || exit 1
[ -n "$list" ] && { printf '%s\n' "$runs"; exit 0; }
mkdir -p "$out"
eval "$(python3 "$manifest" mpi-env --shell)"  # Open MPI as root
while IFS=$'\t' read -r _ name command; do
  if [ -n "$only" ]; then
    hit=
    for word in $only; do case $name in *"$word"*) hit=1 ;; esac; done
    [ -n "$hit" ] || continue
  fi
  echo "== $name: $command"
  SECONDS=0
  # The command is lab_manifest's, shell-quoted.
  eval "$command" > "$out/$name.log" 2> "$out/$name.err" < /dev/null
  echo "   exit $? after $SECONDS s"
  cat "$out/$name.log"
done <<< "$runs"
