"""The hidden tests stay hidden, and a grader that fails gives no one a 0.

HiddenTestsStayHidden grades the fixtures hidden_binary_probe (labs 01 and
03) and hidden_compile_leak (lab 01) (grading/tests/fixtures/LAB/NAME, the
reference solution with an attack planted): a test run that looks for the
other test set's binary finds nothing, what a hidden test's run prints
reaches no field of results.json, and the compiler's errors that quote the
hidden tests reach only the hidden items. "What a student sees before the
instructor allows" is, in Gradescope's terms, the top-level output and every
item whose visibility is "visible"; none of it may name a hidden test or
carry the fixtures' markers.

GraderErrors breaks one tool for the sandbox's user (a meson it cannot run:
the only one on PATH sits in a directory only root may search) and checks
that grading/grade writes a results.json that is not a grade, that the
Gradescope package writes none, that the gradebook says "not graded: grader
error", and that grade-class refuses to start; then a fault the check
cannot see (a grader cache that is a file) and that grade-class stops after
a few grader errors in a row.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import helpers

from hpcgrade import classrun, gradebook, manifest, report, score, selfcheck

ROOT = helpers.ROOT
FAST = ["--no-perf", "--test-timeout", "10", "--memory", "1", "--jobs", "2"]
MARKERS = ("LEAK", "HIDDEN-RUN-MARKER", "HIDDEN-TEXT-MARKER")
BWRAP, BWRAP_WHY = helpers.bwrap_works()


def hidden_names(lab):
    """The hidden tests' names as lab.json gives them (globs cut at the first
    wildcard): none may appear where the student looks first."""
    keys = manifest.load(ROOT, lab)["tests"]["hidden"]["points"]
    return [k.split("*")[0].rstrip("/.") for k in keys if k.split("*")[0].rstrip("/.")]


def seen_at_once(data):
    """What Gradescope shows a student at once: the top-level output and
    the items that are visible, name and output."""
    parts = [data.get("output", "")]
    for t in data.get("tests", []):
        if t.get("visibility", "visible") == "visible":
            parts += [t["name"], t.get("output", "")]
    return "\n".join(parts)


@unittest.skipUnless(BWRAP, "bubblewrap unavailable (%s): class 5 is about a bubblewrap host" % BWRAP_WHY)
class HiddenTestsStayHidden(unittest.TestCase):
    maxDiff = None

    def grade(self, lab, name, args=FAST):
        code, text, data = helpers.grade_fixture(lab, name, args)
        self.assertIsNotNone(data, text)
        self.assertEqual(code, 0, text)
        if any(o == "needs" for o in data["extra_data"]["outcomes"].values()):
            self.skipTest("%s cannot be built here: %s" % (lab, data["output"].splitlines()[-1]))
        return data

    def assert_nothing_hidden_at_once(self, lab, data):
        shown = seen_at_once(data)
        for word in hidden_names(lab) + list(MARKERS):
            self.assertNotIn(word, shown)
        for t in data["tests"]:
            if data["extra_data"]["kinds"][t["name"]] == score.HIDDEN:
                self.assertNotEqual(t["visibility"], "visible", t["name"])

    def check_probe(self, lab, attacked):
        data = self.grade(lab, "hidden_binary_probe")
        tests = helpers.by_name(data)
        kinds = data["extra_data"]["kinds"]
        lost = [n for n, t in tests.items() if kinds[n] in (score.VISIBLE, score.HIDDEN)
                and t["score"] < t["max_score"]]
        self.assertEqual(lost, [], "a probe found the other test set's artefacts")
        self.assertIn("no artefact of the other test set reachable from a visible test", tests[attacked]["output"])
        text = json.dumps(data)
        for marker in MARKERS:  # not even in a hidden item, nor in extra_data
            self.assertNotIn(marker, text)
        self.assert_nothing_hidden_at_once(lab, data)

    def check_compile_leak(self, lab, visibility):
        data = self.grade(lab, "hidden_compile_leak", FAST + ["--hidden-visibility", visibility])
        kinds = data["extra_data"]["kinds"]
        hidden = [t for t in data["tests"] if kinds[t["name"]] == score.HIDDEN]
        self.assertTrue(hidden)
        for t in hidden:
            self.assertEqual(t["score"], 0, t["name"])
            self.assertEqual(t["visibility"], visibility)
            self.assertIn("the hidden tests do not compile against your code", t["output"])
        # The instructor reads the compiler's quotes of the hidden tests in
        # the hidden items; the student, only when they are shown.
        self.assertTrue(any("HIDDEN-TEXT-MARKER" in t["output"] for t in hidden))
        for t in data["tests"]:
            if kinds[t["name"]] == score.VISIBLE:
                self.assertEqual(t["score"], t["max_score"], t["name"])
        self.assert_nothing_hidden_at_once(lab, data)

    def test_lab01_probe_finds_no_other_test_set(self):
        self.check_probe("01-sorting", "Analysis.SecondsPerNLogN")

    def test_lab03_probe_finds_no_other_test_set(self):
        self.check_probe("03-parallel-quicksort", "Lab03/EverySorter.Random/omp_tasks")

    def test_lab01_hidden_compile_errors_stay_in_the_hidden_items(self):
        # (The probes above check the default visibility, after_published.)
        self.check_compile_leak("01-sorting", "hidden")


class Visibility(unittest.TestCase):
    def test_the_default_and_lab_json(self):
        item = score.Item("hidden: H.c", 1, score.HIDDEN, "H.c")
        data = report.results([item], [], 0.0, {})
        self.assertEqual(data["tests"][0]["visibility"], report.DEFAULT_HIDDEN_VISIBILITY)
        self.assertEqual(data["stdout_visibility"], "hidden")
        m = manifest.load(ROOT, "01-sorting")
        m["tests"]["hidden"]["visibility"] = "after_due_date"
        manifest.check_grading_fields(m)
        m["tests"]["hidden"]["visibility"] = "visible"
        with self.assertRaisesRegex(manifest.ManifestError, "tests.hidden.visibility must be one of"):
            manifest.check_grading_fields(m)


class Preflight(unittest.TestCase):
    """preflight.py reads file modes as the sandbox's uid would meet them."""
    UID = 65534 if os.getuid() != 65534 else 65533

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        os.chmod(self.tmp, 0o755)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def tool(self, where, body="#!/bin/sh\n", mode=0o755):
        os.makedirs(where, exist_ok=True)
        path = os.path.join(where, "meson")
        with open(path, "w") as f:
            f.write(body)
        os.chmod(path, mode)
        return path

    def test_the_first_runnable_on_path_as_execvp_finds_it(self):
        from hpcgrade import preflight
        private, public = os.path.join(self.tmp, "private"), os.path.join(self.tmp, "public")
        self.tool(private)
        os.chmod(private, 0o700)
        ok = self.tool(public)
        self.assertEqual(preflight.resolve("meson", self.UID, private + ":" + public), (ok, ""))
        exe, why = preflight.resolve("meson", self.UID, private)
        self.assertIsNone(exe)
        self.assertIn("%s is not searchable by uid %d" % (private, self.UID), why)
        self.assertEqual(preflight.resolve("meson", self.UID, os.path.join(self.tmp, "none"))[1], "not on PATH")

    def test_a_file_without_x_and_a_script_whose_interpreter_is_out_of_reach(self):
        from hpcgrade import preflight
        self.assertIn("not executable by uid",
                      preflight.why_not_runnable(self.tool(os.path.join(self.tmp, "a"), mode=0o744), self.UID))
        hidden_python = self.tool(os.path.join(self.tmp, "root-only"), body="")
        os.chmod(os.path.dirname(hidden_python), 0o700)
        script = self.tool(os.path.join(self.tmp, "b"), body="#!%s\n" % hidden_python)
        self.assertIn("its interpreter", preflight.why_not_runnable(script, self.UID))

    def test_a_missing_compiler_cache_is_a_warning_that_names_it(self):
        from hpcgrade import preflight
        bin_dir = os.path.join(self.tmp, "bin")
        self.tool(bin_dir)
        [why] = preflight.slow_path(self.UID, bin_dir)
        self.assertIn("no compiler cache (ccache: not on PATH)", why)
        os.rename(os.path.join(bin_dir, "meson"), os.path.join(bin_dir, "ccache"))
        self.assertEqual(preflight.slow_path(self.UID, bin_dir), [])


def broken_path(tmp):
    """A PATH on which the compiler and ninja work for everyone, but the only
    meson sits in a directory that only its owner may search (root, when the
    grader is root: the sandbox's uid cannot run it; otherwise the file is
    not executable, for the grader itself)."""
    public, private = os.path.join(tmp, "bin"), os.path.join(tmp, "private")
    os.makedirs(public)
    os.makedirs(private)
    for tool in ("c++", "g++", "ninja", "true", "bash", "env"):
        where = shutil.which(tool)
        if where:
            os.symlink(where, os.path.join(public, tool))
    os.symlink(sys.executable, os.path.join(public, "python3"))
    meson = os.path.join(private, "meson")
    with open(meson, "w") as f:
        f.write("#!/bin/sh\nexec %s \"$@\"\n" % shutil.which("meson"))
    os.chmod(meson, 0o755 if os.geteuid() == 0 else 0o644)
    os.chmod(private, 0o700)
    os.symlink(meson, os.path.join(public, "meson"))
    os.chmod(tmp, 0o755)
    return public


def run(argv, env_extra=None, timeout=600):
    env = dict(os.environ, **(env_extra or {}))
    p = subprocess.run([sys.executable] + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                       timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


class GraderErrors(unittest.TestCase):
    LAB = "01-sorting"

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="hpcgrade-grader-error-")
        os.chmod(self.tmp, 0o755)
        self.path = broken_path(os.path.join(self.tmp, "tools"))
        self.env = {"PATH": self.path, "HPCGRADE_SEED": "1"}
        self.roster = os.path.join(self.tmp, "roster")
        for name in ("ann", "bob", "cy", "dee", "eve"):
            selfcheck.patched_submission(ROOT, self.LAB, None, os.path.join(self.roster, name), base="labs")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def assert_not_graded(self, data, *words):
        self.assertNotIn("score", data)
        self.assertNotIn("tests", data)
        why = report.why_not_graded(data)
        for w in words:
            self.assertIn(w, why)

    def test_a_tool_the_sandbox_cannot_run(self):
        out = os.path.join(self.tmp, "ann.json")
        code, stdout, stderr = run([os.path.join(ROOT, "grading", "grade"), self.LAB, "--submission",
                                    os.path.join(self.roster, "ann"), "--out", out], self.env)
        # grading/grade: one line, exit 3, results that are not a grade.
        self.assertEqual(code, 3, stdout + stderr)
        lines = stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, stderr)
        self.assertIn("cannot run what a grade needs: meson", lines[0])
        with open(out) as f:
            data = json.load(f)
        self.assert_not_graded(data, "meson", "not searchable" if os.geteuid() == 0 else "not executable")

        # The gradebook: a "not graded: grader error" row with no total,
        # left out of the class's figures.
        class_out = os.path.join(self.tmp, "class")
        os.makedirs(gradebook.student_dir(class_out, "ann"))
        shutil.copy(out, gradebook.results_path(class_out, "ann"))
        code, stdout, stderr = run([os.path.join(ROOT, "grading", "grade-class"), self.LAB, self.roster, "--out",
                                    class_out, "--collect"])
        self.assertEqual(code, 0, stdout + stderr)
        _, rows = gradebook.read_csv(os.path.join(class_out, gradebook.CSV_NAME))
        self.assertEqual(rows["ann"]["total"], "")
        self.assertTrue(rows["ann"]["notes"].startswith("not graded: grader error"), rows["ann"]["notes"])
        self.assertEqual(rows["bob"]["notes"], "no result")
        with open(os.path.join(class_out, gradebook.SUMMARY_NAME)) as f:
            summary = json.load(f)
        self.assertEqual(summary["not_graded"], ["ann"])
        self.assertEqual(summary["count"], 4)
        self.assertIn("not graded (grader error", stdout)

        # selfcheck: the same, before it grades any case.
        code, stdout, stderr = run([os.path.join(ROOT, "grading", "selfcheck"), self.LAB, "--cases", "starter"],
                                   self.env)
        self.assertEqual(code, 3, stdout + stderr)
        self.assertEqual(len(stderr.strip().splitlines()), 1, stderr)
        self.assertIn("cannot run what a grade needs: meson", stderr)
        self.assertEqual(stdout, "")

        # grade-class: it refuses to start, in one line, and grades nobody.
        fresh = os.path.join(self.tmp, "class-2")
        code, stdout, stderr = run([os.path.join(ROOT, "grading", "grade-class"), self.LAB, self.roster, "--out",
                                    fresh, "--no-perf"], self.env)
        self.assertEqual(code, classrun.GRADER_FAILED_EXIT, stdout + stderr)
        self.assertEqual(len(stderr.strip().splitlines()), 1, stderr)
        self.assertIn("cannot run what a grade needs: meson", stderr)
        self.assertFalse(os.path.exists(os.path.join(fresh, gradebook.STUDENTS_DIR)))

    def test_gradescope_records_no_score(self):
        if os.geteuid() != 0:
            self.skipTest("run_autograder runs as root on Gradescope")
        zip_path = os.path.join(self.tmp, "autograder.zip")
        code, stdout, stderr = run([os.path.join(ROOT, "grading", "gradescope", "build"), "01", zip_path,
                                    "--no-perf"])
        self.assertEqual(code, 0, stdout + stderr)
        ag = os.path.join(self.tmp, "autograder")
        import zipfile
        with zipfile.ZipFile(zip_path) as z:
            z.extractall(os.path.join(ag, "source"))
        shutil.copytree(os.path.join(self.roster, "ann"), os.path.join(ag, "submission"))
        os.makedirs(os.path.join(ag, "results"))
        stale = os.path.join(ag, "results", "results.json")
        with open(stale, "w") as f:
            f.write('{"score": 0}')
        runner = os.path.join(ag, "source", "run_autograder")
        os.chmod(runner, 0o755)
        p = subprocess.run([runner], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600,
                           env=dict(os.environ, HPCGRADE_AUTOGRADER_ROOT=ag, **self.env))
        text = p.stdout.decode("utf-8", "replace")
        # No results.json: Gradescope says the autograder failed and records
        # no score; the instructor reads why in the autograder's output.
        self.assertNotEqual(p.returncode, 0, text)
        self.assertFalse(os.path.exists(stale), text)
        self.assertIn("NOT GRADED, no results.json written", text)
        self.assertIn("cannot run what a grade needs: meson (", text)

    def test_grade_class_stops_after_grader_errors_in_a_row(self):
        # A fault the check before grading cannot see: the grader's cache is
        # a file. Every grade fails in its build step.
        cache = os.path.join(self.tmp, "cache-is-a-file")
        open(cache, "w").close()
        out = os.path.join(self.tmp, "class")
        code, stdout, stderr = run([os.path.join(ROOT, "grading", "grade-class"), self.LAB, self.roster, "--out",
                                    out, "--no-perf", "--parallel", "1"], {"HPCGRADE_CACHE": cache,
                                                                          "HPCGRADE_SEED": "1"})
        self.assertEqual(code, classrun.GRADER_FAILED_EXIT, stdout + stderr)
        lines = stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, stderr)
        self.assertIn("stopped: %d grades in a row ended in a grader error" % classrun.STOP_AFTER_GRADER_ERRORS,
                      lines[0])
        graded = [n for n in gradebook.roster_names(self.roster) if os.path.exists(gradebook.results_path(out, n))]
        self.assertEqual(len(graded), classrun.STOP_AFTER_GRADER_ERRORS)
        for n in graded:
            with open(gradebook.results_path(out, n)) as f:
                self.assert_not_graded(json.load(f), "internal grader error")
        self.assertFalse(os.path.exists(os.path.join(out, gradebook.CSV_NAME)))
        self.assertIn("not graded: grader error", stdout)


if __name__ == "__main__":
    unittest.main()
