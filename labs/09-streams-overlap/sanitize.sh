#!/usr/bin/env bash
# compute-sanitizer (memcheck, racecheck) on this lab's GPU tests; see tools/sanitize.sh.
# usage: labs/NN-name/sanitize.sh [BUILD_DIR] [solution|student]
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../../tools/sanitize.sh" "$(basename "$here")" "$@"
