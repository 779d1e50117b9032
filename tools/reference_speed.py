#!/usr/bin/env python3
"""The reference solution's time against its lab's anchor, for lab.json.

  tools/reference_speed.py BUILD LAB [LAB ...] [--runs N]

runs BUILD/labs/LAB-solution with the benchmark's arguments and --json (under
mpirun with the benchmark's rank count where it has one), N times (default
3), and prints, per lab, the median time of the benchmark's measured row over
its anchor's row, or the driver's own ratio where the anchor has no row
(grading/hpcgrade/speed.py reads them the same way), with the spread of the
runs. The figure goes into lab.json as

  benchmark.reference_vs_anchor = {"ratio": r, "host": "where it was measured",
                                   "kind": "time" or "driver", as printed}

which the self-grade of a student release and the handout's grading section
show next to the student's own ratio.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "labs"))
sys.path.insert(0, os.path.join(ROOT, "grading"))

import lab_manifest  # noqa: E402
from hpcgrade import judging, speed  # noqa: E402


def measure(build, lab, runs):
    m = lab_manifest.load(ROOT, lab)
    bench = m.get("benchmark")
    if not bench:
        raise SystemExit("reference_speed.py: error: %s has no benchmark in its lab.json" % lab)
    binary = os.path.join(build, lab_manifest.build_target(lab, "-solution"))
    if not os.path.isfile(binary):
        raise SystemExit("reference_speed.py: error: %s not found (build %s with its solution first)" % (binary, lab))
    ranks = str(bench["mpi_ranks"]) if bench.get("mpi_ranks") else None
    argv = judging.Run(ranks).prefix(shutil.which("mpirun") or "mpirun") + [binary] + bench["args"] + ["--json"]
    env = dict(os.environ, **lab_manifest.MPI_AS_ROOT_ENV)
    ratios = []
    for _ in range(runs):
        try:
            p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, timeout=900)
        except subprocess.TimeoutExpired:
            raise SystemExit("reference_speed.py: error: %s ran longer than 900 s" % lab) from None
        found = speed.time_ratio(p.stdout.decode("utf-8", "replace"), bench["measure"])
        if p.returncode != 0 or found is None:
            raise SystemExit("%s: no ratio (exit %d):\n%s" % (lab, p.returncode, p.stdout.decode()[-2000:]))
        ratios.append(found[0])
    def sig(x):  # three significant digits: a GPU's ratio to a CPU can be 0.00213
        return float("%.3g" % x)

    return {"lab": lab, "measure": bench["measure"], "anchor": found[1], "kind": found[2],
            "ratio": sig(statistics.median(ratios)), "min": sig(min(ratios)), "max": sig(max(ratios)), "runs": runs}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    p.add_argument("build")
    p.add_argument("labs", nargs="+")
    p.add_argument("--runs", type=int, default=3)
    a = p.parse_args(argv)
    if a.runs < 1:
        p.error("--runs must be at least 1")
    try:
        labs = [lab_manifest.resolve_lab(ROOT, lab) for lab in a.labs]
    except lab_manifest.ManifestError as e:
        p.error(str(e))
    for lab in labs:
        print(json.dumps(measure(a.build, lab, a.runs)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
