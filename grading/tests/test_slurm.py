"""The Slurm path, against real daemons (meson test --suite grader, part
grader-slurm): tools/slurm-localhost starts munged, slurmctld and slurmd on
this machine; grading/slurm/grade-class-slurm grades a roster of lab 01 (the
solution, the starter, one mutant) as a job array and waits for the collect
job; its gradebook must equal grade-class's on the same roster, student by
student, total and every test. The daemons are stopped however the test ends.

As root (CI) the cluster must start: a daemon that cannot is a failure that
prints its log lines, never a skip. Not as root, slurmd cannot run jobs as
their users, and the test is skipped with that reason.
"""
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import unittest

from helpers import GRADING, ROOT

from hpcgrade import gradebook as hpcgrade_gradebook
from hpcgrade import manifest, pipeline, selfcheck, slurm

LAB = "01-sorting"
MUTANT = "merge-off-by-one"
LOCALHOST = os.path.join(ROOT, "tools", "slurm-localhost")
# Not the port of a cluster an instructor may be trying out on this machine.
PORT = "26817"


def run(cmd, env, timeout):
    p = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=timeout, cwd=ROOT)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def gradebook(path):
    return hpcgrade_gradebook.read_csv(path)[1]


class Requests(unittest.TestCase):
    """What an array task asks Slurm for, from lab.json (no cluster needed)."""

    def test_from_lab_json(self):
        sorting, bucket = manifest.load(ROOT, "01-sorting"), manifest.load(ROOT, "02-bucket-sort")
        self.assertEqual(slurm.task_request(sorting, 4, 1800, 1),
                         {"cpus": 2, "mem_mb": 6 * 1024, "gpus": 0, "minutes": 30 + slurm.MARGIN_MINUTES})
        # MPI: a CPU for each rank of the largest rank count the tests use.
        self.assertEqual(slurm.task_request(bucket, 4, 600, 3)["cpus"], 4)
        self.assertEqual(slurm.task_request(bucket, 4, 600, 3)["minutes"], 30 + slurm.MARGIN_MINUTES)
        gpu_labs = [lab for lab in manifest.list_labs(ROOT) if manifest.load(ROOT, lab)["needs_gpu"]]
        self.assertTrue(gpu_labs)
        for lab in gpu_labs:
            data = manifest.load(ROOT, lab)
            # One GPU, or a node's for a lab whose tests use every GPU.
            self.assertEqual(slurm.task_request(data, 4, 60, 1, node_gpus=4)["gpus"], 4 if data["every_gpu"] else 1,
                             lab)
        self.assertEqual({lab for lab in gpu_labs if manifest.load(ROOT, lab)["every_gpu"]},
                         {"09-streams-overlap", "11-multigpu-sor"})
        self.assertEqual(slurm.task_request(sorting, 4, 60, 1, node_gpus=4)["gpus"], 0)

    def test_sinfo_and_fit(self):
        largest = slurm.parse_sinfo("2 7800 (null)\n64+ 512000 gpu:h100:4(S:0-1)\n")
        self.assertEqual(largest, {"cpus": 64, "mem_mb": 512000, "gpus": 4})
        small = slurm.parse_sinfo("2 3000 (null)\n")
        fitted, notes = slurm.fit({"cpus": 4, "mem_mb": 8192, "gpus": 0, "minutes": 40}, small)
        self.assertEqual(fitted, {"cpus": 2, "mem_mb": 3000, "gpus": 0, "minutes": 40})
        self.assertEqual(len(notes), 2)
        self.assertEqual(slurm.fit(fitted, small), (fitted, []))

    def test_usage_errors_are_one_line(self):
        tmp = tempfile.mkdtemp(prefix="hpcgrade-slurm-usage-")
        self.addCleanup(shutil.rmtree, tmp)
        empty = os.path.join(tmp, "empty")
        os.mkdir(empty)
        front = [sys.executable, os.path.join(GRADING, "slurm", "grade-class-slurm")]
        for args, why in ((["99", empty], "unknown lab"), (["01", os.path.join(tmp, "none")], "roster directory not"),
                          (["01", empty], "no student sub-directories")):
            code, out = run(front + args + ["--out", os.path.join(tmp, "out")], dict(os.environ), 60)
            self.assertEqual(code, 2, out)
            self.assertEqual(len(out.strip().splitlines()), 1, out)
            self.assertIn(why, out)
        code, out = run(front + ["01", empty, "--out", tmp, "--batch", "0"], dict(os.environ), 60)
        self.assertEqual(code, 2, out)
        self.assertIn("must be at least 1", out)


class SlurmArray(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("tools/slurm-localhost needs root (slurmd runs jobs as their users); "
                                    "CI runs this test as root")
        cls.tmp = tempfile.mkdtemp(prefix="hpcgrade-slurm-")
        # One seed for both runs (sbatch passes the environment on): a
        # mutant's score may depend on the test data.
        cls.env = dict(os.environ, SLURM_LOCALHOST_DIR=os.path.join(cls.tmp, "cluster"), SLURM_LOCALHOST_PORT=PORT,
                       SLURM_CONF=os.path.join(cls.tmp, "cluster", "slurm.conf"),
                       **{pipeline.SEED_VARIABLE: str(secrets.randbits(62) | 1)})
        cls.addClassCleanup(shutil.rmtree, cls.tmp, ignore_errors=True)
        # Registered before the start: a half-started cluster is stopped too.
        cls.addClassCleanup(run, [LOCALHOST, "stop"], cls.env, 120)
        code, out = run([LOCALHOST, "start"], cls.env, 120)
        print(out)
        if code != 0:
            raise AssertionError("the Slurm cluster did not start (exit %d):\n%s" % (code, out))

    def roster(self):
        roster = os.path.join(self.tmp, "roster")
        selfcheck.patched_submission(ROOT, LAB, None, os.path.join(roster, "solution"))
        selfcheck.patched_submission(ROOT, LAB, None, os.path.join(roster, "starter"), base="labs")
        selfcheck.patched_submission(ROOT, LAB, os.path.join(manifest.lab_paths(ROOT, LAB).mutants_dir, MUTANT,
                                                           "mutant.patch"),
                                     os.path.join(roster, MUTANT))
        return roster

    def test_array_gradebook_equals_local_gradebook(self):
        roster = self.roster()
        local, on_slurm = os.path.join(self.tmp, "local"), os.path.join(self.tmp, "slurm")
        code, out = run([sys.executable, os.path.join(GRADING, "grade-class"), LAB, roster, "--out", local,
                         "--no-perf"], self.env, 600)
        self.assertEqual(code, 0, out)
        code, out = run([sys.executable, os.path.join(GRADING, "slurm", "grade-class-slurm"), LAB, roster,
                         "--out", on_slurm, "--no-perf", "--wait"], self.env, 600)
        print(out)
        self.assertEqual(code, 0, out)
        # The accounting lines: the array and the collect job completed.
        self.assertRegex(out, r"grade-01-sorting +COMPLETED +0:0")
        self.assertRegex(out, r"collect-01-sorting +COMPLETED +0:0")
        for name in ("solution", "starter", MUTANT):
            self.assertTrue(os.path.isfile(os.path.join(on_slurm, "students", name, "results.json")), name)
        mine, theirs = gradebook(os.path.join(on_slurm, "gradebook.csv")), gradebook(os.path.join(local, "gradebook.csv"))
        self.assertEqual(sorted(mine), ["merge-off-by-one", "solution", "starter"])
        self.assertEqual(sorted(mine), sorted(theirs))
        for name in mine:
            self.assertEqual(mine[name], theirs[name], "%s: the Slurm gradebook's row differs from the local one" % name)
        # Not three equal rows: the roster tells good from bad.
        self.assertEqual(float(mine["starter"]["total"]), 0)
        self.assertLess(float(mine[MUTANT]["total"]), float(mine["solution"]["total"]))
        # The solution: full marks but for the timing, which --no-perf leaves out.
        untimed = manifest.load(ROOT, LAB)["benchmark"]["points"]
        self.assertEqual(float(mine["solution"]["total"]), float(mine["solution"]["max"]) - untimed)


if __name__ == "__main__":
    unittest.main()
