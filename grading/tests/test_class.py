"""grading/grade-class end to end, on a roster made from lab 01: the solution,
the starter, every mutant and a student whose code leaves detached sleepers.
The gradebook must agree with grading each student alone, be resumable, and
leave no process of any student alive -- with bubblewrap and without it.
--no-perf everywhere: the totals compared must not depend on timing noise.
"""
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

import helpers

from hpcgrade import gradebook, pipeline, reaper, score, selfcheck

ROOT = helpers.ROOT
LAB = "01-sorting"
GRADE_CLASS = os.path.join(ROOT, "grading", "grade-class")
SLEEPER = "detached-sleepers"
# The tests whose call leaves the sleepers running (seconds_per_n_log2_n).
SLEEPER_LOST = {"Analysis.SecondsPerNLogN", "Analysis.RejectsBadInput", "hidden: Hidden.AnalysisIsLinearInTime"}


def run(argv, env_extra=None, timeout=1200):
    env = dict(os.environ, **(env_extra or {}))
    p = subprocess.run([sys.executable] + argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                       timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def processes_with(marker):
    """Pids whose command line holds MARKER."""
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) != os.getpid():
            try:
                with open("/proc/%s/cmdline" % pid, "rb") as f:
                    if marker.encode() in f.read():
                        found.append(int(pid))
            except OSError:
                pass
    return found


def sleeper_student(roster, marker):
    """The fixture detached_sleepers, its sleepers named with MARKER."""
    tmp = tempfile.mkdtemp()
    try:
        src = helpers.fixture_copy(LAB, "detached_sleepers", tmp)
        path = os.path.join(src, "sorting.cpp")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        assert "@MARKER@" in text
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace("@MARKER@", marker))
        shutil.copytree(src, os.path.join(roster, SLEEPER))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def make_roster(roster, marker):
    """The solution, the starter, every mutant, and the sleeper student."""
    selfcheck.patched_submission(ROOT, LAB, None, os.path.join(roster, "solution"))
    selfcheck.patched_submission(ROOT, LAB, None, os.path.join(roster, "starter"), base="labs")
    for m in selfcheck.mutant_dirs(ROOT, LAB):
        selfcheck.patched_submission(ROOT, LAB, os.path.join(m, "mutant.patch"),
                                     os.path.join(roster, "mutant-" + os.path.basename(m)))
    sleeper_student(roster, marker)


def read_gradebook(out):
    return gradebook.read_csv(os.path.join(out, gradebook.CSV_NAME))


class AClass(unittest.TestCase):
    """One class run (bubblewrap where it works), checked against grading
    each student alone."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="hpcgrade-class-")
        # One seed for the class run and the grades alone: a mutant's score
        # may depend on the test data (a truncating comparator can pass
        # some draws), and the totals must be compared on the same data.
        cls.seed = secrets.randbits(62) | 1
        os.environ[pipeline.SEED_VARIABLE] = str(cls.seed)
        cls.marker = "hpclab-sleeper-" + secrets.token_hex(6)
        cls.roster = os.path.join(cls.tmp, "roster")
        cls.out = os.path.join(cls.tmp, "out")
        make_roster(cls.roster, cls.marker)
        cls.students = gradebook.roster_names(cls.roster)
        t = time.monotonic()
        cls.code, cls.output = run([GRADE_CLASS, LAB, cls.roster, "--out", cls.out, "--no-perf"])
        print("class run of %d students: %.0f s" % (len(cls.students), time.monotonic() - t))
        cls.header, cls.rows = read_gradebook(cls.out)

    @classmethod
    def tearDownClass(cls):
        os.environ.pop(pipeline.SEED_VARIABLE, None)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_every_student_has_a_row_and_a_result(self):
        self.assertEqual(self.code, 0, self.output)
        self.assertGreaterEqual(len(self.students), 8)  # solution, starter, 5 mutants, sleeper
        self.assertEqual(sorted(self.rows), self.students)
        for name in self.students:
            data, why = gradebook.load_results(gradebook.results_path(self.out, name))
            self.assertIsNotNone(data, "%s: %s" % (name, why))
            self.assertTrue(os.path.getsize(os.path.join(gradebook.student_dir(self.out, name), gradebook.LOG)))
        self.assertIn("[%d/%d]" % (len(self.students), len(self.students)), self.output)
        # Each student's line says where the grade's time went.
        self.assertRegex(self.output, r"\] \S+: [\d.]+/[\d.]+ in \d+ s \(prepare \d+, build \d+, record\+judge \d+")

    def test_totals_equal_grading_each_alone(self):
        for name in self.students:
            t = time.monotonic()
            code, out, alone = helpers.grade([LAB, "--submission", os.path.join(self.roster, name), "--no-perf",
                                              "--quiet"])
            print("%s alone: %.0f s" % (name, time.monotonic() - t))
            self.assertEqual(code, 0, out)
            self.assertEqual(alone["extra_data"]["seed"], self.seed, name)
            in_class, _ = gradebook.load_results(gradebook.results_path(self.out, name))
            self.assertEqual(in_class["extra_data"]["seed"], self.seed, name)
            self.assertEqual(float(self.rows[name]["total"]), alone["score"], name)
            self.assertEqual(float(self.rows[name]["max"]), alone["extra_data"]["max_score"], name)
        self.assertEqual(float(self.rows["starter"]["total"]), 0)
        # The sleepers cost the tests whose call left them running, since a
        # call may leave no process behind (common/src/judged_settle.cpp);
        # every other answer is the solution's.
        sleeper, _ = gradebook.load_results(gradebook.results_path(self.out, SLEEPER))
        lost = {t["name"]: t["max_score"] for t in sleeper["tests"]
                if t["score"] < t["max_score"] and not t["name"].startswith("performance")}
        self.assertEqual(set(lost), SLEEPER_LOST)
        self.assertEqual(float(self.rows[SLEEPER]["total"]), float(self.rows["solution"]["total"]) - sum(lost.values()))
        # (A mutant seen only by a 0-point test can keep the solution's total.)
        mutants = [float(r["total"]) for n, r in self.rows.items() if n.startswith("mutant-")]
        self.assertLessEqual(max(mutants), float(self.rows["solution"]["total"]))
        self.assertLess(min(mutants), float(self.rows["solution"]["total"]))

    def test_a_column_per_rubric_item(self):
        data, _ = gradebook.load_results(gradebook.results_path(self.out, "solution"))
        kinds = data["extra_data"]["kinds"]
        scored = [t["name"] for t in data["tests"] if kinds[t["name"]] != score.WRITTEN]
        self.assertEqual(self.header, ["student", "total", "max"] + scored + ["performance_ratio", "notes"])
        self.assertIn("hidden: Hidden.ExtremeValues", self.header)
        self.assertIn("Lab01/EverySorter.Large/merge", self.header)
        for name, row in self.rows.items():
            self.assertAlmostEqual(sum(float(row[c]) for c in scored), float(row["total"]), places=3, msg=name)

    def test_summary_and_histogram(self):
        import json
        with open(os.path.join(self.out, gradebook.SUMMARY_NAME)) as f:
            s = json.load(f)
        totals = sorted(float(r["total"]) for r in self.rows.values())
        self.assertEqual(s["count"], len(self.students))
        self.assertEqual(s["min"], totals[0])
        self.assertEqual(s["max"], totals[-1])
        self.assertEqual(sum(b["count"] for b in s["histogram"]), len(self.students))
        with open(os.path.join(self.out, gradebook.PNG_NAME), "rb") as f:
            png = f.read()
        self.assertTrue(png.startswith(b"\x89PNG\r\n\x1a\n"))
        self.assertGreater(len(png), 1000)
        self.assertIn("mean", self.output)

    def test_a_rerun_skips_everyone(self):
        before = {n: os.stat(gradebook.results_path(self.out, n)).st_mtime_ns for n in self.students}
        code, out = run([GRADE_CLASS, LAB, self.roster, "--out", self.out, "--no-perf"])
        self.assertEqual(code, 0, out)
        self.assertIn("%d up to date" % len(self.students), out)
        self.assertEqual(out.count("up to date, skipped"), len(self.students))
        after = {n: os.stat(gradebook.results_path(self.out, n)).st_mtime_ns for n in self.students}
        self.assertEqual(before, after)

    def test_no_sleeper_survives(self):
        self.assertEqual(processes_with(self.marker), [])


class WithoutBubblewrap(unittest.TestCase):
    """The grader's fallback (resource limits only): a process that leaves
    its session is killed with every process of the submission's uid when
    its tests end (as root), or by the class run's reaper."""

    def test_detached_sleepers_are_killed(self):
        tmp = tempfile.mkdtemp(prefix="hpcgrade-class-")
        marker = "hpclab-sleeper-" + secrets.token_hex(6)
        try:
            roster, out = os.path.join(tmp, "roster"), os.path.join(tmp, "out")
            os.makedirs(roster)
            sleeper_student(roster, marker)
            code, output = run([GRADE_CLASS, LAB, roster, "--out", out, "--no-perf"], {"HPCGRADE_NO_BWRAP": "1"})
            self.assertEqual(code, 0, output)
            with open(os.path.join(gradebook.student_dir(out, SLEEPER), gradebook.LOG)) as f:
                log = f.read()
            self.assertIn("resource limits only", log)
            # The sleepers did outlive their run (the fixture works), and were killed.
            if os.geteuid() == 0:
                with open(gradebook.results_path(out, SLEEPER)) as f:
                    self.assertRegex(json.load(f)["output"], r"[1-9]\d* process(es)? of the submission (was|were) "
                                                             r"still running after its tests")
            else:
                self.assertRegex(log, r"reaper: killed [1-9]\d* processes left running")
            self.assertEqual(processes_with(marker), [])
            _, rows = read_gradebook(out)
            self.assertGreater(float(rows[SLEEPER]["total"]), 0)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class Limits(unittest.TestCase):
    def test_a_grade_past_its_wall_limit_costs_that_student_only(self):
        tmp = tempfile.mkdtemp(prefix="hpcgrade-class-")
        try:
            roster, out = os.path.join(tmp, "roster"), os.path.join(tmp, "out")
            selfcheck.patched_submission(ROOT, LAB, None, os.path.join(roster, "solution"))
            t = time.monotonic()
            code, output = run([GRADE_CLASS, LAB, roster, "--out", out, "--no-perf", "--student-timeout", "1"])
            self.assertEqual(code, 0, output)
            self.assertLess(time.monotonic() - t, 60)
            _, rows = read_gradebook(out)
            self.assertEqual(float(rows["solution"]["total"]), 0)
            self.assertIn("timed out after 1 s", rows["solution"]["notes"])
            # Not final: a re-run grades that student again.
            code, output = run([GRADE_CLASS, LAB, roster, "--out", out, "--no-perf", "--student-timeout", "1"])
            self.assertIn("0 up to date", output)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_the_reaper_kills_a_detached_tree_at_its_wall_limit(self):
        marker = "hpclab-reaper-" + secrets.token_hex(6)
        t = time.monotonic()
        script = "(setsid bash -c 'exec -a %s sleep 600' &); exec -a %s sleep 600" % (marker, marker)
        code, out = run([reaper.__file__, "--timeout", "1", "--", "bash", "-c", script])
        self.assertEqual(code, reaper.TIMED_OUT, out)
        self.assertLess(time.monotonic() - t, 30)
        self.assertIn("wall limit of 1 s reached", out)
        self.assertEqual(processes_with(marker), [])

    def test_the_reaper_kills_leftovers_of_a_command_that_ended(self):
        marker = "hpclab-reaper-" + secrets.token_hex(6)
        script = "(setsid bash -c 'exec -a %s sleep 600' &); sleep 0.2; exit 3" % marker
        code, out = run([reaper.__file__, "--", "bash", "-c", script])
        self.assertEqual(code, 3, out)
        self.assertIn("reaper: killed 1 processes left running", out)
        self.assertEqual(processes_with(marker), [])


class Collect(unittest.TestCase):
    def test_collect_gives_no_result_rows_and_bad_input_one_line(self):
        tmp = tempfile.mkdtemp(prefix="hpcgrade-class-")
        try:
            roster, out = os.path.join(tmp, "roster"), os.path.join(tmp, "out")
            for name in ("ann", "bob"):
                os.makedirs(os.path.join(roster, name))
            os.makedirs(os.path.join(roster, ".git"))
            code, output = run([GRADE_CLASS, "01", roster, "--out", out, "--collect"])
            self.assertEqual(code, 0, output)
            header, rows = read_gradebook(out)
            self.assertEqual(sorted(rows), ["ann", "bob"])
            self.assertEqual(rows["ann"]["total"], "0")
            self.assertEqual(rows["ann"]["notes"], "no result")
            empty = os.path.join(tmp, "empty")
            os.makedirs(empty)
            a_file = os.path.join(tmp, "a-file")
            open(a_file, "w").close()
            for args, words in ((["99", roster, "--out", out], "unknown lab '99'"),
                                (["01", os.path.join(tmp, "none"), "--out", out], "roster directory not found"),
                                (["01", empty, "--out", out], "has no student sub-directories"),
                                (["01", a_file, "--out", out], "the roster must be a directory"),
                                (["01", roster], "required: --out"),
                                (["01", roster, "--out", out, "--parallel", "0"], "must be at least 1")):
                code, output = run([GRADE_CLASS] + args)
                self.assertEqual(code, 2, output)
                self.assertIn(words, output)
                self.assertNotIn("Traceback", output)
            code, output = run([GRADE_CLASS, "01", roster, "--out", out], {"HPCGRADE_CUDA_PROCESSES": "many"})
            self.assertEqual(code, 2, output)
            self.assertIn("HPCGRADE_CUDA_PROCESSES='many': give a whole number above 0", output)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_summary_bins(self):
        s = gradebook.summarize([0.0, 5.0, 10.0, 10.0], 10.0, bins=2)
        self.assertEqual([b["count"] for b in s["histogram"]], [1, 3])
        self.assertEqual((s["mean"], s["median"], s["min"], s["max"]), (6.25, 7.5, 0.0, 10.0))
        self.assertEqual(gradebook.summarize([], None)["count"], 0)


if __name__ == "__main__":
    unittest.main()
