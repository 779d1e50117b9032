#!/usr/bin/env bash
# Runs this lab's visible GPU tests on small sizes under compute-sanitizer
# memcheck (out-of-bounds and misaligned accesses) and racecheck (shared-memory
# hazards: a missing __syncthreads or __syncwarp). The test filter is the
# "sanitizer" entry of lab.json, the same one the grader uses.
# Usage: sanitize.sh [BUILD_DIR] [solution|student]   (defaults: build solution)
# Exit: 0 clean, 1 a tool reported errors, 77 no compute-sanitizer or no GPU.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=$(basename "$here")
build=${1:-build}
variant=${2:-solution}
suffix=""
[ "$variant" = solution ] && suffix="-solution"
bin="$build/labs/$lab$suffix-tests"
[ -x "$bin" ] || { echo "sanitize.sh: $bin not found (build the lab first)" >&2; exit 1; }
filter=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["sanitizer"]["gtest_filter"])' "$here/lab.json")
sanitizer=$(command -v compute-sanitizer || true)
[ -n "$sanitizer" ] || [ ! -x /usr/local/cuda/bin/compute-sanitizer ] || sanitizer=/usr/local/cuda/bin/compute-sanitizer
[ -n "$sanitizer" ] || { echo "sanitize.sh: compute-sanitizer not found: skipped" >&2; exit 77; }
command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1 || { echo "sanitize.sh: no GPU: skipped" >&2; exit 77; }
status=0
for tool in memcheck racecheck; do
    echo "== compute-sanitizer --tool $tool $bin --gtest_filter=$filter"
    if "$sanitizer" --tool "$tool" --error-exitcode 3 "$bin" --gtest_filter="$filter" --gtest_brief=1; then
        echo "== $tool: clean"
    else
        echo "== $tool: FAILED"
        status=1
    fi
done
exit $status
