#!/usr/bin/env bash
# Run a CUDA lab's visible GPU tests under compute-sanitizer: memcheck
# (out-of-bounds, misaligned accesses, leaks), racecheck (shared-memory
# hazards, e.g. a missing __syncthreads) and whatever else the lab asks for.
# The one script for every CUDA lab: what differs between labs (the tools,
# the GoogleTest filter of small sizes) is the lab.json "sanitizer" entry,
# the same one the grader uses.
# usage: tools/sanitize.sh LAB [BUILD_DIR] [solution|student]   (defaults: build solution)
#   LAB as grading/grade takes it: 06, 6, 06-reduction or reduction.
# exit: 0 every tool clean, 1 a tool reported errors, 2 usage, 77 no sanitizer or no GPU.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: tools/sanitize.sh LAB [BUILD_DIR] [solution|student]"
if [ $# -lt 1 ] || [ $# -gt 3 ]; then echo "$usage" >&2; exit 2; fi
build=${2:-build}
variant=${3:-solution}
# The lab's name, tools and filter, through the manifest's own reader (one
# way to name a lab, one validation of lab.json).
read -r lab filter tools < <(python3 - "$root/labs" "$1" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import lab_manifest
root = lab_manifest.repo_root()
try:
    lab = lab_manifest.resolve_lab(root, sys.argv[2])
    s = lab_manifest.load(root, lab).get("sanitizer")
except lab_manifest.ManifestError as e:
    sys.exit("sanitize.sh: %s" % e)
if not s:
    sys.exit("sanitize.sh: labs/%s/lab.json has no \"sanitizer\" entry (not a CUDA lab?)" % lab)
print(lab, s.get("gtest_filter", "*"), " ".join(s.get("tools", ["memcheck"])))
PY
) && [ -n "${lab:-}" ] || exit 2
case "$variant" in
    solution) bin="$build/labs/$lab-solution-tests" ;;
    student) bin="$build/labs/$lab-tests" ;;
    *) echo "sanitize.sh: the variant must be 'solution' or 'student', not '$variant'" >&2; exit 2 ;;
esac
[ -x "$bin" ] || { echo "sanitize.sh: no test binary $bin (build the lab first)" >&2; exit 2; }
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
