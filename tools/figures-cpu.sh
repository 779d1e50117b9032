#!/usr/bin/env bash
# The CPU labs' figures (01, 02, 03, 14, 15), on any Linux machine with the
# packages of .ci/packages.txt: builds the labs' reference drivers, runs each
# with small sizes and the arguments its declared figures (lab.json,
# "figures") need, and writes
#   OUT_DIR/NN-name.jsonl    the driver's --json lines
#   OUT_DIR/NN-name.err      what the driver said on stderr
#   OUT_DIR/NN-name/*.png    the figures, drawn by tools/plot
# About 13 minutes on two shared cores. The labs' samples (and the figures
# of labs 01-03) came from
#   tools/figures-cpu.sh /tmp/figs --install
# where --install copies each OUT_DIR/NN-name.jsonl to labs/NN-name/figures/sample.jsonl
# and, for labs 01-03, its PNGs to labs/NN-name/figures/. The handouts of labs
# 14 and 15 show runs on 16 cores at sizes two cores cannot reach: their
# READMEs give those commands and the tools/plot line that drew them.
#   usage: [LABS="01-sorting"] tools/figures-cpu.sh OUT_DIR [--install] [BUILD_DIR]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: tools/figures-cpu.sh OUT_DIR [--install] [BUILD_DIR]}
install=
[ "${2:-}" = --install ] && { install=1; shift; }
build=${2:-/tmp/fig-cpu}
labs=${LABS:-01-sorting 02-bucket-sort 03-parallel-quicksort 14-pancake-bfs 15-mapreduce}
mkdir -p "$out"
out=$(cd "$out" && pwd)
# Open MPI refuses to run as root unless told, and oversubscription lets 4
# ranks run on 2 cores.
eval "$(python3 "$root/labs/lab_manifest.py" mpi-env --shell)"

SECONDS=0
[ -d "$build" ] || meson setup "$build" "$root" -Dcuda=disabled -Dgrader_tests=false \
  -Dlabs="$(echo $labs | tr ' ' ',')" > "$out/setup.log" 2>&1 || { tail -20 "$out/setup.log"; exit 1; }
targets=$(for lab in $labs; do printf 'labs/%s-solution ' "$lab"; done)
# shellcheck disable=SC2086  # one target per word
ninja -C "$build" $targets > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
echo "built in $SECONDS s"

status=0
# run LAB ARGS...: one run of LAB's reference driver, its --json lines added to
# OUT_DIR/LAB.jsonl; NP=P runs it under mpirun with P ranks.
run() {
  local lab=$1
  shift
  local start=$SECONDS launch=()
  [ -n "${NP:-}" ] && launch=(mpirun -np "$NP" --oversubscribe)
  timeout 300 "${launch[@]}" "$build/labs/$lab-solution" "$@" --json >> "$out/$lab.jsonl" 2>> "$out/$lab.err"
  local rc=$?
  echo "  ${NP:+np $NP: }$lab $*: exit $rc after $((SECONDS - start)) s"
  [ $rc = 0 ] || status=1
}
wanted() { case " $labs " in *" $1 "*) rm -f "$out/$1.jsonl" "$out/$1.err"; return 0 ;; esac; return 1; }

# 01: every algorithm against n, for seconds / (n log2 n).
wanted 01-sorting && run 01-sorting --sweep --sizes 1e4 3e4 1e5 3e5 1e6 3e6 --reps 3
# 02: both versions on 1 to 4 ranks, for the speed-up and the time split.
if wanted 02-bucket-sort; then
  for p in 1 2 3 4; do NP=$p run 02-bucket-sort --n 4e6 --algo both --reps 3; done
fi
# 03: every algorithm on 1 to 4 threads, for the speed-up.
wanted 03-parallel-quicksort && run 03-parallel-quicksort --n 4e6 --sweep --max-threads 4 --reps 3
# 14: the levels for n = 8 to 10; n = 10 on 1, 2 and 4 ranks in memory and
# spilling to files under a 64 KiB budget.
if wanted 14-pancake-bfs; then
  for n in 8 9; do NP=1 run 14-pancake-bfs --n "$n"; done
  for p in 1 2 4; do
    NP=$p run 14-pancake-bfs --n 10 --no-anchor --reps 3
    NP=$p run 14-pancake-bfs --n 10 --no-anchor --reps 3 --budget 65536 --spill-dir /tmp
  done
fi
# 15: word count on 1, 2 and 4 ranks with the combiner on and off, the
# inverted index, and the pancake search.
if wanted 15-mapreduce; then
  for p in 1 2 4; do
    for c in on off; do NP=$p run 15-mapreduce --generate 4e6 --combiner "$c"; done
  done
  NP=2 run 15-mapreduce --generate 1e6 --job index  # 4e6 took minutes on 2 cores
  NP=2 run 15-mapreduce --job pancake --n 8 --reps 1
fi
echo "measured in $SECONDS s"

for lab in $labs; do
  [ -s "$out/$lab.jsonl" ] || continue
  /usr/bin/python3 "$root/tools/plot" "$lab" "$out/$lab.jsonl" --out "$out/$lab" || status=1
  if [ -n "$install" ]; then
    mkdir -p "$root/labs/$lab/figures"
    cp "$out/$lab.jsonl" "$root/labs/$lab/figures/sample.jsonl"
    case $lab in 14-* | 15-*) ;; *) cp "$out/$lab"/*.png "$root/labs/$lab/figures/" ;; esac
  fi
done
echo "done in $SECONDS s: JSON lines and figures in $out"
exit $status
