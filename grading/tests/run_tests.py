#!/usr/bin/env python3
"""The grader's own tests (meson test --suite grader, or run directly).

Runs every grading/tests/test_*.py with unittest and exits non-zero on any
failure. Tests that grade fixtures build real labs; they share a ccache under
~/.cache/hpc-labs-grader (or $XDG_CACHE_HOME), so only the first build is slow.
Arguments name parts to run (test_units, test_tools.MiniTree, ...; Meson runs
them as separate tests, each with its own time limit); none runs everything.
Environment: HPCGRADE_TESTS=unit runs only the fast tests that build nothing;
HPCGRADE_SELFCHECK_LABS=all (or a comma list such as 01-sorting,02-bucket-sort)
chooses the labs of the self-check, which by default covers the labs that need
no GPU (run grading/selfcheck on a GPU host for the others).
"""
import os
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # grading/, for hpcgrade


def main():
    t0 = time.monotonic()
    loader = unittest.defaultTestLoader
    sys.path.insert(0, HERE)
    if sys.argv[1:]:
        suite = loader.loadTestsFromNames(sys.argv[1:])
    else:
        pattern = "test_units.py" if os.environ.get("HPCGRADE_TESTS") == "unit" else "test_*.py"
        suite = loader.discover(HERE, pattern=pattern, top_level_dir=HERE)
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    print("grader tests: %d run, %d failures, %d errors, %d skipped in %.0f s"
          % (result.testsRun, len(result.failures), len(result.errors), len(result.skipped),
             time.monotonic() - t0))
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
