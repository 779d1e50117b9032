"""grading/gradescope/build and the package's run_autograder, run in a
temporary directory laid out like Gradescope's /autograder: the solution,
the starter and a hostile submission that looks for the reference solutions
at run time, the latter without bubblewrap (as on Gradescope, where it
usually cannot start) -- solutions/ must then be unreadable to it.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile

import helpers

from hpcgrade import manifest, selfcheck

ROOT = helpers.ROOT
LAB = "01-sorting"
BUILD = os.path.join(ROOT, "grading", "gradescope", "build")


class Package(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="hpcgrade-gradescope-")
        cls.zip = os.path.join(cls.tmp, "autograder.zip")
        p = subprocess.run([sys.executable, BUILD, "01", cls.zip, "--no-perf"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
        cls.build_output = p.stdout.decode()
        assert p.returncode == 0, cls.build_output

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def autograder(self, submission_from, env_extra=None, nest=""):
        """Unpack the zip as Gradescope does, put the submission in, run
        run_autograder; its results.json."""
        ag = tempfile.mkdtemp(dir=self.tmp)
        with zipfile.ZipFile(self.zip) as z:
            z.extractall(os.path.join(ag, "source"))
        shutil.copy2(os.path.join(ag, "source", "run_autograder"), os.path.join(ag, "run_autograder"))
        os.chmod(os.path.join(ag, "run_autograder"), 0o755)  # zipfile drops the mode; Gradescope keeps it
        submission_from(os.path.join(ag, "submission", nest) if nest else os.path.join(ag, "submission"),
                        os.path.join(ag, "source", "hpc-labs"))
        env = dict(os.environ, HPCGRADE_AUTOGRADER_ROOT=ag, **(env_extra or {}))
        p = subprocess.run([os.path.join(ag, "run_autograder")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           env=env, timeout=900)
        out = p.stdout.decode("utf-8", "replace")
        self.assertEqual(p.returncode, 0, out)
        with open(os.path.join(ag, "results", "results.json")) as f:
            return json.load(f), out

    def test_the_zip_has_what_gradescope_runs(self):
        with zipfile.ZipFile(self.zip) as z:
            names = set(z.namelist())
            modes = {i.filename: i.external_attr >> 16 for i in z.infolist()}
        for name in ("setup.sh", "run_autograder", "gradescope.json", "hpc-labs/grading/grade",
                     "hpc-labs/labs/01-sorting/lab.json", "hpc-labs/solutions/01-sorting/sorting.cpp",
                     "hpc-labs/.ci/packages.txt", "hpc-labs/tools/install-packages"):
            self.assertIn(name, names)
        self.assertTrue(modes["run_autograder"] & 0o100)
        mutants = "hpc-labs/" + manifest.lab_paths("", LAB).mutants_dir
        self.assertTrue([n for n in names if n.startswith("hpc-labs/" + manifest.lab_paths("", LAB).hidden_dir)])
        self.assertFalse([n for n in names if n.startswith(("hpc-labs/labs/02", "hpc-labs/solutions/02", mutants))])

    def test_solution_full_marks_in_a_repository_layout(self):
        def repo(dest, tree):  # a whole clone: labs/LAB/student/
            selfcheck.patched_submission(ROOT, LAB, None, manifest.lab_paths(dest, LAB).student_dir)
        data, out = self.autograder(repo)
        self.assertEqual(data["score"], data["extra_data"]["max_score"] - 5, out)  # 5: performance, not timed
        self.assertGreater(data["score"], 40)

    def test_starter_scores_zero(self):
        data, out = self.autograder(lambda dest, tree: selfcheck.patched_submission(ROOT, LAB, None, dest,
                                                                                   base="labs"), nest="upload")
        self.assertEqual(data["score"], 0, out)
        self.assertGreater(len(data["tests"]), 20)

    def test_a_submission_that_reads_the_solutions_finds_nothing_without_bubblewrap(self):
        if os.geteuid() != 0:
            self.skipTest("the package hides solutions/ by uid: run_autograder runs as root on Gradescope")

        def hostile(dest, tree):
            tmp = tempfile.mkdtemp()
            src = helpers.fixture_copy(LAB, "read_solutions", tmp)
            for f in os.listdir(src):
                with open(os.path.join(src, f), encoding="utf-8") as fh:
                    text = fh.read()
                # The attacker knows where the package lives.
                with open(os.path.join(src, f), "w", encoding="utf-8") as fh:
                    fh.write(text.replace(ROOT, tree))
            shutil.copytree(src, dest)
            shutil.rmtree(tmp)

        data, out = self.autograder(hostile, {"HPCGRADE_NO_BWRAP": "1"})
        self.assertIn("resource limits only", data["output"])
        by_name = helpers.by_name(data)
        self.assertEqual(by_name["Analysis.SecondsPerNLogN"]["score"], by_name["Analysis.SecondsPerNLogN"]["max_score"],
                         by_name["Analysis.SecondsPerNLogN"]["output"])
        self.assertEqual(data["score"], data["extra_data"]["max_score"] - 5, out)


if __name__ == "__main__":
    unittest.main()
