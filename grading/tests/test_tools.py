"""The command-line tools end to end: usage errors, --all, selfcheck, and the
student release. The release is exported from the whole repository, as an
instructor does; --all and the release's leak check run on a small copy of
the repo that holds lab 01 only (the grader finds its repo from its own
location), so their time does not grow with every lab added.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import helpers
from hpcgrade import manifest, speed

ROOT = helpers.ROOT
LAB = "01-sorting"


def mini_tree(dest):
    """A copy of the repo with lab 01 only (and the grader)."""
    os.makedirs(dest)
    for f in ("meson.build", "meson_options.txt"):
        shutil.copy2(os.path.join(ROOT, f), dest)
    def ignore(base, names):
        return [n for n in names if n == "__pycache__" or n.startswith("build") and os.path.isdir(os.path.join(base, n))]
    shutil.copytree(os.path.join(ROOT, "common"), os.path.join(dest, "common"), ignore=ignore)
    os.makedirs(os.path.join(dest, "labs"))
    shutil.copy2(os.path.join(ROOT, "labs", "meson.build"), os.path.join(dest, "labs"))
    shutil.copytree(os.path.join(ROOT, "labs", "lab_manifest"), os.path.join(dest, "labs", "lab_manifest"), ignore=ignore)
    paths = manifest.lab_paths("", LAB)
    for part in (paths.lab_dir, paths.solution_dir, paths.hidden_dir, paths.mutants_dir):
        src = os.path.join(ROOT, part)
        if os.path.isdir(src):
            shutil.copytree(src, os.path.join(dest, part), ignore=ignore, dirs_exist_ok=True)
    # The release README's first command installs from .ci/packages.txt.
    shutil.copytree(os.path.join(ROOT, "tools"), os.path.join(dest, "tools"), ignore=ignore)
    os.makedirs(os.path.join(dest, ".ci"))
    shutil.copy2(os.path.join(ROOT, ".ci", "packages.txt"), os.path.join(dest, ".ci"))
    g = os.path.join(dest, "grading")
    os.makedirs(g)
    for f in ("grade", "selfcheck", "export-release", "meson.build"):
        shutil.copy2(os.path.join(ROOT, "grading", f), g)
    shutil.copytree(os.path.join(ROOT, "grading", "hpcgrade"), os.path.join(g, "hpcgrade"), ignore=ignore)
    os.makedirs(os.path.join(g, "tests"))
    for f in ("run_tests.py", "helpers.py", "test_units.py", "test_fixtures.py", "test_tools.py"):
        shutil.copy2(os.path.join(ROOT, "grading", "tests", f), os.path.join(g, "tests"))
    shutil.copytree(os.path.join(ROOT, "grading", "tests", "fixtures", LAB),
                    os.path.join(g, "tests", "fixtures", LAB), ignore=ignore)
    return dest


def run(argv, cwd, timeout=1800, env_extra=None):
    p = subprocess.run([sys.executable] + argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=timeout, env=dict(os.environ, **(env_extra or {})))
    return p.returncode, p.stdout.decode("utf-8", "replace")


class UsageErrors(unittest.TestCase):
    def test_errors_are_one_clear_line_and_exit_2(self):
        grade = os.path.join(ROOT, "grading", "grade")
        tmp = tempfile.mkdtemp()
        try:
            for args, words in ((["99", "--solution"], "unknown lab '99'"),
                                (["01", "--submission", "/nonexistent/dir"], "submission directory not found"),
                                (["01", "--submission", os.path.join(ROOT, "README.md")],
                                 "the submission must be a directory"),
                                (["01"], "one of the arguments"),
                                (["--solution"], "give one LAB or --all"),
                                (["01", "--solution", "--out", tmp], "cannot write the results"),
                                (["01", "--solution", "--out", "/proc/no/results.json"],
                                 "cannot write the results"),
                                (["01", "--solution", "--test-timeout", "nan"], "must be a finite number above 0"),
                                (["01", "--solution", "--memory", "inf"], "must be a finite number above 0"),
                                (["01", "--solution", "--jobs", "0"], "must be at least 1"),
                                (["01", "--solution", "--rounds", "two"], "not an integer")):
                code, out = run([grade] + args, tmp)
                self.assertEqual(code, 2, out)
                self.assertIn(words, out)
                self.assertFalse(os.path.exists(os.path.join(tmp, "results.json")))
            for seed in ("twelve", "0", str(2 ** 63)):
                code, out = run([grade, "01", "--solution"], tmp, env_extra={"HPCGRADE_SEED": seed})
                self.assertEqual(code, 2, out)
                self.assertIn("HPCGRADE_SEED", out)
                self.assertEqual(len(out.strip().splitlines()), 1, out)
            # A bad CUDA place count stops every entry point before it grades.
            selfcheck = os.path.join(ROOT, "grading", "selfcheck")
            for places in ("none", "0", "-3", "1.5", "\u00b2"):
                for argv in ([grade, "01", "--solution"], [selfcheck, "01"]):
                    code, out = run(argv, tmp, env_extra={"HPCGRADE_CUDA_PROCESSES": places})
                    self.assertEqual(code, 2, out)
                    self.assertIn("HPCGRADE_CUDA_PROCESSES=%r: give a whole number above 0" % places, out)
                    self.assertEqual(len(out.strip().splitlines()), 1, out)
            code, out = run([grade, "--help"], tmp)
            self.assertEqual(code, 0)
            self.assertIn("results-01-sorting.json", out)
        finally:
            shutil.rmtree(tmp)


def cpu_labs():
    sys.path.insert(0, os.path.join(ROOT, "grading"))
    from hpcgrade import manifest
    return [lab for lab in manifest.list_labs(ROOT) if not manifest.load(ROOT, lab)["needs_gpu"]]


class SelfCheck(unittest.TestCase):
    def test_selfcheck(self):
        # By default the labs CI can judge fully: those that need no GPU.
        labs = os.environ.get("HPCGRADE_SELFCHECK_LABS", ",".join(cpu_labs()))
        args = [] if labs == "all" else labs.split(",")
        # --first-loss: a mutant is caught at its first lost point; CI needs no more.
        # --rounds 1: the solution is timed against itself only to show that
        # the timing path works (its ratio is reported, never judged).
        # --parallel 3 --jobs 1: three cases at a time fill the cores that one
        # case leaves idle (sandbox start-ups, serial recordings); each timed
        # phase still holds the host alone (lease.py).
        code, out = run([os.path.join(ROOT, "grading", "selfcheck")] + args
                        + ["--jobs", "1", "--parallel", "3", "--first-loss", "--rounds", "1"], ROOT, timeout=7200)
        print("\n" + "\n".join("  " + l for l in out.strip().splitlines()[-12:]))
        self.assertEqual(code, 0, out)
        self.assertIn("self-check passed", out)
        self.assertGreaterEqual(out.count("mutant "), 3)


class FullRelease(unittest.TestCase):
    """grading/export-release of the repository itself, every lab, as an
    instructor publishes it: it builds every lab and grades each in the
    release. After the self-check, whose builds fill the compiler cache."""

    def test_export_release(self):
        tmp = tempfile.mkdtemp(prefix="hpcgrade-release-")
        try:
            self.export_and_self_grade(tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def export_and_self_grade(self, tmp):
        dest = os.path.join(tmp, "release")
        code, out = run([os.path.join(ROOT, "grading", "export-release"), dest, "--jobs", "2"], tmp,
                        timeout=3600)
        print("\n" + "\n".join("  " + l for l in out.strip().splitlines()))
        self.assertEqual(code, 0, out)
        self.assertIn("release verified", out)
        paths = manifest.lab_paths("", LAB)
        for gone in (manifest.SECRET_DIR, os.path.dirname(paths.hidden_dir), os.path.dirname(paths.mutants_dir),
                     "grading/tests/fixtures",
                     "grading/tests/test_fixtures.py", "grading/tests/test_attacks_order.py",
                     "grading/tests/test_attacks_self_report.py"):
            self.assertFalse(os.path.exists(os.path.join(dest, gone)), gone)
        self.assertTrue(os.path.exists(os.path.join(dest, "grading", "grade")))
        self.assertIn("[ok] README command 2", out)
        for lab in cpu_labs():
            self.assertIn("%s: visible tests run on the skeleton and it scores 0" % lab, out)
        for made in ("build", "results.json"):
            self.assertFalse(os.path.exists(os.path.join(dest, made)), "the README's %s is not shipped" % made)
        self.assertIn("[ok] DIR holds the release and nothing else", out)
        # Every visible test passing self-grades as full marks on tests, and
        # the speed line says who scores speed and shows both ratios.
        work = os.path.join(tmp, "self-grade")
        os.makedirs(work)
        code, out = run([os.path.join(dest, "grading", "grade"), "01", "--submission",
                         manifest.lab_paths(ROOT, LAB).solution_dir, "--out", os.path.join(work, "r.json")], work)
        self.assertEqual(code, 0, out)
        with open(os.path.join(work, "r.json")) as f:
            data = json.load(f)
        perf = [t for t in data["tests"] if t["name"].startswith("performance")][0]
        self.assertEqual(data["score"], data["extra_data"]["max_score"] - perf["max_score"], out)
        total = [l for l in out.splitlines() if l.startswith("TOTAL")][0]
        self.assertRegex(total, r"TOTAL +(\d+)/\1 tests, speed: graded by the instructor \(your merge: "
                                r"[\d.]+x std::sort's time.*, the median of %d runs \([\d.]+x to [\d.]+x\); "
                                r"the reference: about [\d.]+x" % speed.SELF_RUNS)
        written = data["extra_data"]["written"]
        self.assertTrue(written and all(q["answered"] for q in written), written)


class MiniTree(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="hpcgrade-mini-")
        cls.tree = mini_tree(os.path.join(cls.tmp, "repo"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_all_labs_starter(self):
        work = os.path.join(self.tmp, "all")
        os.makedirs(work)
        code, out = run([os.path.join(self.tree, "grading", "grade"), "--all", "--starter", "--jobs", "2",
                         "--out", os.path.join(work, "all.json")], work)
        self.assertEqual(code, 0, out)
        self.assertIn("[1/1] 01-sorting ...", out)
        self.assertIn("TOTAL", out)
        with open(os.path.join(work, "all.json")) as f:
            combined = json.load(f)
        with open(os.path.join(work, "all-01-sorting.json")) as f:
            one = json.load(f)
        self.assertEqual(combined["score"], 0)
        self.assertEqual(len(combined["tests"]), len(one["tests"]))
        self.assertTrue(combined["tests"][0]["name"].startswith("01-sorting: "))

    def test_first_loss_stops_and_says_it_is_no_grade(self):
        work = os.path.join(self.tmp, "first-loss")
        os.makedirs(work)
        out_json = os.path.join(work, "r.json")
        code, out = run([os.path.join(self.tree, "grading", "grade"), "01", "--starter", "--first-loss", "--no-perf",
                         "--quiet", "--out", out_json], work)
        self.assertEqual(code, 0, out)
        with open(out_json) as f:
            data = json.load(f)
        self.assertEqual(data["score"], 0)
        not_judged = [t for t in data["tests"] if "(--first-loss)" in t.get("output", "")]
        judged = [t for t in data["tests"] if t.get("status") == "failed" and t not in not_judged]
        self.assertTrue(not_judged and judged, out)
        self.assertIn("--first-loss: judging stopped at the first test that lost points; %d tests were not judged, "
                      "so this is not a grade" % len(not_judged), data["output"])

    def test_all_labs_submission_dir(self):
        work = os.path.join(self.tmp, "subs")
        os.makedirs(work)
        os.rename(helpers.fixture_copy(LAB, "wrong", work), os.path.join(work, "01-sorting"))
        code, out = run([os.path.join(self.tree, "grading", "grade"), "--all", "--submission", work, "--no-perf",
                         "--quiet", "--out", os.path.join(work, "r.json")], work)
        self.assertEqual(code, 0, out)
        with open(os.path.join(work, "r.json")) as f:
            self.assertEqual(json.load(f)["score"], 38)

    def test_a_test_without_points_fails_the_build_check(self):
        # A test added to the visible tests and not to the rubric: the
        # build's rubric test must fail and name it.
        tree = os.path.join(self.tmp, "unlisted")
        shutil.copytree(self.tree, tree)
        with open(os.path.join(manifest.lab_paths(tree, LAB).tests_dir, "test_sorting.cpp"), "a") as f:
            f.write("\nTEST(Unlisted, AddedWithoutPoints) { SUCCEED(); }\n")
        build = os.path.join(self.tmp, "unlisted-build")
        for argv in (["meson", "setup", build, tree, "-Dgrader_tests=false", "-Dcuda=disabled", "-Dmpi=disabled"],
                     ["ninja", "-C", build, "-j", "2", "labs/%s-tests" % LAB]):
            p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=900)
            self.assertEqual(p.returncode, 0, p.stdout.decode()[-2000:])
        p = subprocess.run(["meson", "test", "-C", build, "--suite", "rubric", "--print-errorlogs"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=900)
        out = p.stdout.decode()
        self.assertNotEqual(p.returncode, 0, out)
        self.assertIn("test Unlisted.AddedWithoutPoints has no rubric entry", out)

    def test_release_check_catches_a_leak(self):
        dest = os.path.join(self.tmp, "leaky")
        os.makedirs(dest)
        sys.path.insert(0, os.path.join(self.tree, "grading"))
        from hpcgrade import release
        release.export(self.tree, dest)
        shutil.copy2(os.path.join(manifest.lab_paths(self.tree, LAB).solution_dir, "merge_sort.hpp"),
                     os.path.join(manifest.lab_paths(dest, LAB).lab_dir, "notes.txt"))
        files = {}
        for rel in release.tree_files(dest):
            text = release.read_text(os.path.join(dest, rel))
            if text is not None:
                files[rel] = text
        leaks = release.find_leaks(files, release.collect_secrets(self.tree))
        self.assertTrue(leaks)
        self.assertTrue(all(l[0] == "labs/%s/notes.txt" % LAB for l in leaks), leaks)


if __name__ == "__main__":
    unittest.main()


class NewLab(unittest.TestCase):
    """tools/new-lab (issue 40) in a small copy of the repo: the lab it writes
    builds, passes its own tests and rubric check, and grading/selfcheck
    grades it: the solution full marks, the starter 0, every mutant caught.
    Its MPI and CUDA templates compile where MPI and nvcc are installed."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="hpcgrade-new-lab-")
        cls.tree = mini_tree(os.path.join(cls.tmp, "repo"))
        # The templates (tools/new-lab's TEMPLATES) hold a reference
        # solution: they live with the secret half.
        templates = os.path.join(manifest.SECRET_DIR, ".new-lab")
        shutil.copytree(os.path.join(ROOT, templates), os.path.join(cls.tree, templates))
        # new-lab writes the lab table of the root README.
        shutil.copy2(os.path.join(ROOT, "README.md"), cls.tree)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def new_lab(self, *args):
        return run([os.path.join(self.tree, "tools", "new-lab")] + list(args), self.tree, timeout=120)

    def check(self, argv):
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=900)
        out = p.stdout.decode("utf-8", "replace")
        self.assertEqual(p.returncode, 0, out[-3000:])
        return out

    def build_and_test(self, build, labs, options):
        """Set up a build of LABS and run their suites (the solution's tests,
        driver checks, the rubric check); returns the labs it built, the
        others being skipped for a need this host lacks."""
        out = self.check(["meson", "setup", build, self.tree, "-Dgrader_tests=false", "-Dlabs=" + ",".join(labs)]
                         + options)
        built = [lab for lab in labs if "skipping lab %s" % lab not in out]
        if built:
            self.check(["ninja", "-C", build, "-j", "2"])
            self.check(["meson", "test", "-C", build, "--no-rebuild", "--print-errorlogs", "--num-processes", "2"]
                       + [a for lab in built for a in ("--suite", lab)])
        return built

    def test_a_cpu_lab_builds_and_self_checks(self):
        code, out = self.new_lab("90-example", "--needs", "cpu")
        self.assertEqual(code, 0, out)
        lab = "90-example"
        paths = manifest.lab_paths(self.tree, lab)
        for f in (paths.manifest, paths.handout, os.path.join(paths.student_dir, "prefix_sum.cpp"),
                  os.path.join(paths.solution_dir, "prefix_sum.cpp"), paths.hidden_dir, paths.mutants_dir):
            self.assertTrue(os.path.exists(f), f)
        # What is written from lab.json is up to date: nothing to edit by hand.
        for tool in ("handout_grading.py", "readme_labs.py", "handout_commands.py"):
            code, out = run([os.path.join(self.tree, "tools", tool), "--check"], self.tree)
            self.assertEqual(code, 0, out)
        with open(os.path.join(self.tree, "README.md"), encoding="utf-8") as f:
            self.assertIn("[%s](labs/%s/README.md)" % (lab, lab), f.read())
        # Its own tests, driver checks and rubric check, against the solution.
        self.assertEqual(self.build_and_test(os.path.join(self.tmp, "build-cpu"), [lab],
                                             ["-Dcuda=disabled", "-Dmpi=disabled"]), [lab])
        code, out = run([os.path.join(self.tree, "grading", "selfcheck"), lab, "--jobs", "1", "--parallel", "3",
                         "--first-loss", "--rounds", "1"], self.tree, timeout=1200)
        print("\n" + "\n".join("  " + l for l in out.strip().splitlines()[-6:]))
        self.assertEqual(code, 0, out)
        self.assertIn("self-check passed", out)
        self.assertRegex(out, r"%s +solution +(\d+)/\1 +ok" % lab)
        self.assertRegex(out, r"%s +starter +0/\d+ +ok" % lab)
        for mutant in os.listdir(paths.mutants_dir):
            self.assertRegex(out, r"%s +mutant %s +\d+/\d+ +ok" % (lab, mutant))

    def test_mpi_and_cuda_labs_build(self):
        # Built and tested where this host has MPI and nvcc (a GPU test then
        # skips without a GPU); a need it lacks skips the lab, and says so.
        wanted = [("91-mpi-example", "mpi"), ("92-cuda-example", "cuda")]
        for lab, needs in wanted:
            code, out = self.new_lab(lab, "--needs", needs)
            self.assertEqual(code, 0, out)
        built = self.build_and_test(os.path.join(self.tmp, "build-mpi-cuda"), [lab for lab, _ in wanted], [])
        print("\n  built and tested here: %s" % (", ".join(built) or "none (no MPI, no nvcc)"))

    def test_bad_input_is_refused_in_one_line(self):
        for args, words in ((["9-x", "--needs", "cpu"], "bad lab name '9-x'"),
                            (["00-zero", "--needs", "cpu"], "bad lab name"),
                            (["93-Upper", "--needs", "cpu"], "bad lab name"),
                            (["01-again", "--needs", "cpu"], "lab number 01 is taken by labs/01-sorting"),
                            (["93-x", "--needs", "gpu"], "--needs: unknown 'gpu'"),
                            (["93-x", "--needs", "mpi,cuda"], "mpi and cuda together have no template"),
                            (["93-x"], "the following arguments are required: --needs")):
            code, out = self.new_lab(*args)
            self.assertEqual(code, 2, out)
            self.assertIn(words, out)
            self.assertEqual(len(out.strip().splitlines()), 1, out)
            self.assertFalse(os.path.exists(manifest.lab_paths(self.tree, args[0]).lab_dir), args)
