"""How a build of the instructor's tree names its tests: a single-lab build's
`meson test --suite LAB` judges the solution (the skeleton fails by design and
runs under --suite student), exactly as a full build's plain `meson test`.
Configures only; nothing is compiled."""
import os
import shutil
import subprocess
import tempfile
import unittest

import helpers

ROOT = helpers.ROOT
LAB = "01-sorting"


def listed(build, suite):
    p = subprocess.run(["meson", "test", "-C", build, "--list", "--no-rebuild", "--suite", suite],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
    text = p.stdout.decode("utf-8", "replace")
    if p.returncode != 0:
        raise AssertionError("meson test --list failed:\n" + text)
    return [line for line in text.splitlines() if " / " in line]


@unittest.skipUnless(shutil.which("meson") and os.path.isdir(os.path.join(ROOT, "solutions")),
                     "needs meson and the instructor's tree")
class SingleLabSuites(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="hpcgrade-layout-")
        cls.build = os.path.join(cls.tmp, "build")
        p = subprocess.run(["meson", "setup", cls.build, "-Dlabs=" + LAB, "-Dgrader_tests=false"], cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
        if p.returncode != 0:
            raise AssertionError(p.stdout.decode("utf-8", "replace"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_the_lab_suite_runs_the_solution_not_the_skeleton(self):
        tests = listed(self.build, LAB)
        self.assertTrue(any("+solution / " in t for t in tests), tests)
        self.assertFalse([t for t in tests if "+student / " in t], "the skeleton is in the lab's suite")

    def test_the_student_suite_still_runs_the_skeleton(self):
        tests = listed(self.build, "student")
        self.assertTrue(any(t.endswith(" / %s-tests" % LAB) for t in tests), tests)
        self.assertFalse([t for t in tests if "+solution / " in t], tests)
