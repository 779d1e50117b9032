#!/usr/bin/env bash
# The lab 11 figures quoted in its handout and in the closing notes, on a
# host with one GPU per rank (two H200s: the device tool's nvidia-h200-x2):
# one GPU (layouts, plain / __ldg / texture loads), the decompositions on 2
# GPUs and on 4 ranks sharing them (strips, 2 x 2 blocks, wide halos, the
# exchange model), and strong and weak scaling. Run after a build:
#   tools/lab11-figures.sh [BUILD_DIR] [OUT_DIR]
set -uo pipefail
only=${ONLY:-}  # e.g. ONLY="scaling strips": just the runs whose names contain a word
build=${1:-build-gpu}
out=${2:-lab11-figures}
mkdir -p "$out"
eval "$(python3 "$(dirname "$0")/../labs/lab_manifest.py" mpi-env --shell)"  # Open MPI as root
sor=$build/labs/11-multigpu-sor-solution
run() {  # name, command...
  local name=$1
  shift
  if [ -n "$only" ]; then
    local word hit=
    for word in $only; do case $name in *"$word"*) hit=1 ;; esac; done
    [ -n "$hit" ] || return 0
  fi
  echo "== $name: $*"
  SECONDS=0
  "$@" > "$out/$name.log" 2> "$out/$name.err"
  echo "   exit $? after $SECONDS s"
  cat "$out/$name.log"
}
# Every halo path the host allows (staged, overlapped, GPU to GPU plain and
# overlapped), each with its exchange share: the handout's "Two GPUs" table.
run scaling-2gpu-4096 mpirun -np 2 "$sor" --mode scaling --n 4096 --sweeps 20 --reps 5
run scaling-2gpu-8192 mpirun -np 2 "$sor" --mode scaling --n 8192 --sweeps 20 --reps 5
run scaling-2gpu-16384 mpirun -np 2 "$sor" --mode scaling --n 16384 --sweeps 20 --reps 5 --weak
run scaling-2gpu-32768 mpirun -np 2 "$sor" --mode scaling --n 32768 --sweeps 10 --reps 5
# 16000: the thesis's largest grid, and within the 1-D texture limit (2^28 texels).
run loads-1gpu "$sor" --mode gpu --n 16000 --sweeps 20 --reps 5 --loads all
run strips-2gpu-16384 mpirun -np 2 "$sor" --mode strips --device gpu --n 16384 --sweeps 20 --reps 5 \
  --layout separated --bs 1,2,4,8,16
run strips-2gpu-4096 mpirun -np 2 "$sor" --mode strips --device gpu --n 4096 --sweeps 50 --reps 5 \
  --layout separated --bs 1,2,4,8,16
run blocks-4ranks-2gpu-8192 mpirun -np 4 --oversubscribe "$sor" --mode strips --device gpu --n 8192 --sweeps 20 \
  --reps 5 --layout separated --exchange staged --bs 1,4
# One core per rank: OpenMP inside 16 ranks would put 16 x cores threads on the cores.
run cpu-strips-16ranks mpirun -np 16 --oversubscribe -x OMP_NUM_THREADS=1 "$sor" --mode strips --n 4096 --sweeps 20 --reps 5 --bs 1,2,4,8
