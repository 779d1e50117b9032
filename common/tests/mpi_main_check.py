#!/usr/bin/env python3
"""Runs mpi_main_probe under mpirun and checks hpclab::mpi::run_main's ladder:
each error gives its exit code and exactly one message, and an error on one
rank stops the job instead of leaving the others in a barrier.

Usage: mpi_main_check.py MPIRUN PROBE
"""
import re
import subprocess
import sys

# (ranks, probe arguments, exit code (None: any non-zero), the one stderr line:
# a regular expression, since CLI11 words the parse errors)
CASES = [
    (3, [], 0, None),
    (3, ["--bogus"], 2, r"probe: error: .*--bogus \(see --help\)"),
    (3, ["--throw", "same"], 1, "probe: error: same"),
    (3, ["--throw", "usage"], 2, r"probe: error: usage \(see --help\)"),
    (3, ["--throw", "own"], 3, "probe: own: own"),
    (3, ["--throw", "here", "--on", "1"], None, "error on rank 1: here"),
    (3, ["--throw", "oom", "--on", "2"], None, r"error on rank 2: out of memory \(probe\)"),
    (3, ["--throw", "other", "--on", "0"], None, "error on rank 0: unknown exception"),
    (1, ["--throw", "here"], 1, "probe: error: here"),
]


def main():
    mpirun, probe = sys.argv[1:3]
    failures = 0
    for ranks, args, want_code, want_line in CASES:
        cmd = [mpirun, "-np", str(ranks), "--oversubscribe", probe] + args
        run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
        lines = [l for l in run.stderr.splitlines() if l.startswith("probe:") or l.startswith("error on rank")]
        code_ok = run.returncode != 0 if want_code is None else run.returncode == want_code
        lines_ok = len(lines) == 1 and re.fullmatch(want_line, lines[0]) if want_line else not lines
        if not (code_ok and lines_ok):
            failures += 1
            print("FAIL np %d %s: exit %d, messages %r; want exit %s, %r\n%s" %
                  (ranks, " ".join(args), run.returncode, lines, want_code or "non-zero", want_line, run.stderr))
        else:
            print("ok   np %d %s" % (ranks, " ".join(args)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
