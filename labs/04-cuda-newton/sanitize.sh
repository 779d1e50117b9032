#!/usr/bin/env bash
# Run this lab's GPU tests on small sizes under compute-sanitizer memcheck and racecheck.
# usage: labs/NN-name/sanitize.sh [BUILD_DIR] [solution|student]
# The tools and the GoogleTest filter come from the "sanitizer" entry of lab.json,
# so the grader and this script run the same tests. Exit status 0: every tool clean.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=$(basename "$here")
build=${1:-build}
variant=${2:-solution}
case "$variant" in
    solution) bin="$build/labs/$lab-solution-tests" ;;
    student) bin="$build/labs/$lab-tests" ;;
    *) echo "sanitize.sh: the variant must be 'solution' or 'student', not '$variant'" >&2; exit 2 ;;
esac
[ -x "$bin" ] || { echo "sanitize.sh: no test binary $bin (build the lab first)" >&2; exit 2; }
sanitizer=$(command -v compute-sanitizer || echo "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer")
[ -x "$sanitizer" ] || { echo "sanitize.sh: compute-sanitizer not found (it ships with the CUDA toolkit)" >&2; exit 2; }
read -r filter tools < <(python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["sanitizer"]
print(s["gtest_filter"], " ".join(s["tools"]))' "$here/lab.json")
status=0
for tool in $tools; do
    extra=()
    [ "$tool" = memcheck ] && extra=(--leak-check full)
    echo "== $lab: compute-sanitizer --tool $tool on $bin --gtest_filter=$filter"
    if "$sanitizer" --tool "$tool" "${extra[@]}" --error-exitcode 99 "$bin" --gtest_filter="$filter" --gtest_brief=1; then
        echo "== $lab: $tool clean"
    else
        echo "== $lab: $tool FAILED (exit $?)"
        status=1
    fi
done
exit $status
