#!/usr/bin/env bash
# Run a CUDA lab's visible GPU tests under compute-sanitizer: memcheck
# (out-of-bounds, misaligned accesses, leaks) and racecheck (shared-memory
# hazards, e.g. a missing __syncthreads). The tools and the GoogleTest filter
# (small sizes) come from the lab's lab.json "sanitizer" entry, the same one
# the grader uses.
# usage: tools/sanitize.sh LAB [BUILD_DIR] [solution|student]   (defaults: build solution)
# exit: 0 every tool clean, 1 a tool reported errors, 2 usage, 77 no sanitizer or no GPU.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
lab=${1:?usage: tools/sanitize.sh LAB [BUILD_DIR] [solution|student]}
build=${2:-build}
variant=${3:-solution}
manifest="$root/labs/$lab/lab.json"
[ -f "$manifest" ] || { echo "sanitize.sh: no lab '$lab' (expected $manifest)" >&2; exit 2; }
case "$variant" in
    solution) bin="$build/labs/$lab-solution-tests" ;;
    student) bin="$build/labs/$lab-tests" ;;
    *) echo "sanitize.sh: the variant must be 'solution' or 'student', not '$variant'" >&2; exit 2 ;;
esac
[ -x "$bin" ] || { echo "sanitize.sh: no test binary $bin (build the lab first)" >&2; exit 2; }
read -r filter tools < <(python3 -c '
import json, sys
s = json.load(open(sys.argv[1])).get("sanitizer")
if not s:
    sys.exit("sanitize.sh: lab.json has no \"sanitizer\" entry")
print(s.get("gtest_filter", "*"), " ".join(s.get("tools", ["memcheck"])))' "$manifest") || exit 2
sanitizer=$(command -v compute-sanitizer || echo "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer")
[ -x "$sanitizer" ] || { echo "sanitize.sh: compute-sanitizer not found (it ships with the CUDA toolkit): skipped" >&2; exit 77; }
nvidia-smi -L > /dev/null 2>&1 || { echo "sanitize.sh: no GPU: skipped" >&2; exit 77; }
status=0
for tool in $tools; do
    extra=()
    [ "$tool" = memcheck ] && extra=(--leak-check full)
    echo "== $lab: compute-sanitizer --tool $tool $bin --gtest_filter=$filter"
    if "$sanitizer" --tool "$tool" "${extra[@]}" --error-exitcode 99 "$bin" --gtest_filter="$filter" --gtest_brief=1; then
        echo "== $lab: $tool clean"
    else
        echo "== $lab: $tool FAILED"
        status=1
    fi
done
exit $status
