"""Fast tests of the grader's pieces: no lab is built."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import unittest.mock

import helpers  # noqa: F401  (puts grading/ on sys.path)
from hpcgrade import answers, build, inputs, judging, manifest, pipeline, release, report, sanitize, scan, score, speed, timing, workspace
from hpcgrade import sandbox as sb_mod

ROOT = helpers.ROOT


def gtest_report(cases):
    """A GoogleTest-shaped JSON report: CASES = [(suite, name, status, result, failures)]."""
    suites = {}
    for suite, name, status, result, failures in cases:
        suites.setdefault(suite, []).append({"name": name, "classname": suite, "status": status, "result": result,
                                             "failures": [{"failure": f, "type": ""} for f in failures]})
    return json.dumps({"tests": len(cases), "testsuites": [{"name": s, "testsuite": c} for s, c in suites.items()]})


def outcome(code=0, sig=None, timed_out=False, lost=False, output=""):
    return sb_mod.Outcome(exit_code=None if sig or lost else code, signal=sig, timed_out=timed_out,
                          monitor_lost=lost, output=output, limit_s=20)


def case(result="COMPLETED", failures=(), status="RUN", skipped=None):
    c = {"status": status, "result": result, "failures": [{"failure": f, "type": ""} for f in failures]}
    if skipped:
        c["skipped"] = [{"message": skipped}]
    return c


class VerdictTest(unittest.TestCase):
    """judging.Judging.verdict: the judge's case, its notes and the recording
    run's end combine into one verdict; only the judge can say passed."""
    NAME = "Lab01/EverySorter.Random/qsort"
    OK = {0: {"record": "ok", "threads_at_start": 1, "threads_at_end": 1}}

    def verdict(self, c, notes=None, rec=None, run=None, problem=None):
        j = judging.Judging.__new__(judging.Judging)
        run = run or judging.Run()
        j.record_outcomes = {(self.NAME, run.np): rec if rec is not None else outcome(0)}
        j.record_problems = {(self.NAME, run.np): problem} if problem else {}
        return j.verdict(self.NAME, run, c, self.OK if notes is None else notes)

    def test_pass_needs_the_judge_and_a_complete_record(self):
        self.assertEqual(self.verdict(case()).status, judging.PASSED)
        # The recording process's exit code is not evidence: 1 (its own
        # assertions failed) or 0 alike, the judge decides.
        self.assertEqual(self.verdict(case(), rec=outcome(1)).status, judging.PASSED)

    def test_no_judge_result_means_failed(self):
        v = self.verdict(None)
        self.assertEqual(v.status, judging.FAILED)
        self.assertIn("the judge could not finish", v.reason)

    def test_judge_failures_are_the_reason(self):
        v = self.verdict(case(failures=["x.cpp:3\nExpected equality of these values:\n  got\n    1"]))
        self.assertEqual(v.status, judging.FAILED)
        self.assertIn("Expected equality", v.detail)

    def test_record_missing_or_incomplete_fails_even_without_calls(self):
        for status, words in (("missing", "no record"), ("incomplete", "ended before the test finished"),
                              ("malformed: bad header", "record malformed")):
            v = self.verdict(case(), notes={0: {"record": status}})
            self.assertEqual(v.status, judging.FAILED, status)
            self.assertIn(words, v.reason)
        v = self.verdict(case(), notes={})
        self.assertEqual(v.status, judging.FAILED)

    def test_an_mpi_judge_that_ended_on_a_broken_record_says_why(self):
        notes = {1: {"record": "replay failed: judged call at t.cpp:9: the recording made fewer calls"}}
        v = self.verdict(None, notes=notes, run=judging.Run("2"))
        self.assertEqual(v.status, judging.FAILED)
        self.assertIn("the recording made fewer calls", v.reason)

    def test_an_mpi_judge_names_the_refused_call_before_a_stopped_rank(self):
        # Rank 1's call was refused and ended the job; rank 0's recording
        # stopped in the same call (issue 38, class 4).
        notes = {0: {"record": "incomplete: judged call at t.cpp:9: the recording run ended before this call "
                               "returned (it crashed, exited or timed out)"},
                 1: {"record": "incomplete: judged call at t.cpp:9: the call's outputs changed after it returned"}}
        v = self.verdict(None, notes=notes, run=judging.Run("2"))
        self.assertEqual(v.status, judging.FAILED)
        self.assertIn("judged call at t.cpp:9: the call's outputs changed after it returned", v.reason)

    def test_every_rank_needs_its_record(self):
        run = judging.Run("3")
        notes = {0: {"record": "ok"}, 1: {"record": "ok"}}
        v = self.verdict(case(), notes=notes, run=run)
        self.assertEqual(v.status, judging.FAILED)
        self.assertIn("rank 2", v.reason)
        self.assertIn("with 3 MPI ranks", v.reason)

    def test_signal_and_timeout_of_the_recording_in_plain_words(self):
        self.assertIn("crashed with SIGSEGV", self.verdict(case(), rec=outcome(sig=11)).reason)
        self.assertIn("timed out after 20 s", self.verdict(case(), rec=outcome(timed_out=True)).reason)

    def test_a_refused_record_file(self):
        v = self.verdict(case(), problem="the record file is not a regular file")
        self.assertEqual(v.status, judging.FAILED)
        self.assertIn("not a regular file", v.reason)

    def test_not_implemented(self):
        c = case(failures=["C++ exception with description \"not implemented: qsort_doubles (look for "
                           "TODO(student))\" thrown in the test body."])
        self.assertEqual(self.verdict(c).reason, "not implemented (qsort_doubles)")

    def test_gpu_skip_is_data_not_wording(self):
        c = case("SKIPPED", skipped="x.cpp:3\nneeds a GPU: no CUDA device")
        self.assertFalse(self.verdict(c).needs_gpu)
        c["hpclab_needs"] = "gpu"
        v = self.verdict(c)
        self.assertEqual(v.status, judging.SKIPPED)
        self.assertTrue(v.needs_gpu)
        self.assertEqual(v.reason, "needs a GPU: no CUDA device")

    def test_not_run_status(self):
        self.assertEqual(self.verdict(case("SUPPRESSED", status="NOTRUN")).status, judging.FAILED)

    def test_leftover_threads_are_a_note(self):
        v = self.verdict(case(), notes={0: {"record": "ok", "threads_at_start": 1, "threads_at_end": 3}})
        self.assertEqual(v.status, judging.PASSED)
        self.assertIn("2 more thread(s)", v.notes[0])

    def test_record_file_names_match_the_harness(self):
        self.assertEqual(judging.file_name("Lab01/EverySorter.Random/qsort", 2),
                         "Lab01%2FEverySorter.Random%2Fqsort.r2")

    def test_copy_record_refuses_links_and_large_files(self):
        with tempfile.TemporaryDirectory() as d:
            real = os.path.join(d, "real")
            with open(real, "wb") as f:
                f.write(b"x" * 100)
            link = os.path.join(d, "link")
            os.symlink("/etc/passwd", link)
            self.assertIn("cannot be read", judging.copy_record(link, os.path.join(d, "out1")))
            self.assertIn("larger", judging.copy_record(real, os.path.join(d, "out2"), limit=10))
            self.assertEqual(judging.copy_record(real, os.path.join(d, "out3")), "")
            os.mkfifo(os.path.join(d, "fifo"))
            self.assertIn("not a regular file", judging.copy_record(os.path.join(d, "fifo"), os.path.join(d, "o4")))

    def test_copy_record_copies_in_pieces_every_byte(self):
        # Larger than one piece (1 MiB) and not a multiple of it.
        data = bytes(range(256)) * (5 * 4096 + 3)
        with tempfile.TemporaryDirectory() as d:
            src, dst = os.path.join(d, "src"), os.path.join(d, "dst")
            with open(src, "wb") as f:
                f.write(data)
            self.assertEqual(judging.copy_record(src, dst), "")
            with open(dst, "rb") as f:
                self.assertEqual(f.read(), data)
            self.assertEqual(judging.copy_record(src, dst, limit=len(data)), "")
            with open(dst, "rb") as f:
                self.assertEqual(f.read(), data)


class ScoreTest(unittest.TestCase):
    def test_ratio_points(self):
        self.assertEqual(score.ratio_points(1.0, 5, 0.8, 0.4), 5)
        self.assertEqual(score.ratio_points(0.8, 5, 0.8, 0.4), 5)
        self.assertAlmostEqual(score.ratio_points(0.6, 5, 0.8, 0.4), 2.5)
        self.assertEqual(score.ratio_points(0.4, 5, 0.8, 0.4), 0)
        self.assertEqual(score.ratio_points(None, 5, 0.8, 0.4), 0)
        self.assertEqual(score.ratio_points(float("nan"), 5, 0.8, 0.4), 0)

    def test_rubric_globs_expand_to_every_test_once(self):
        points = {"Lab/Every.*/qsort": 1, "Lab/Every.Random/merge": 2, "Lab/Every.[!R]*/merge": 1, "Other.Test": 3}
        tests = ["Lab/Every.Random/qsort", "Lab/Every.Large/qsort", "Lab/Every.Random/merge",
                 "Lab/Every.Large/merge", "Other.Test"]
        assigned, problems = manifest.expand_rubric(points, tests)
        self.assertEqual(problems, [])
        self.assertEqual([(t, p) for t, p, _ in assigned],
                         [("Lab/Every.Random/qsort", 1), ("Lab/Every.Large/qsort", 1), ("Lab/Every.Random/merge", 2),
                          ("Lab/Every.Large/merge", 1), ("Other.Test", 3)])

    def test_rubric_problems_are_named(self):
        _, problems = manifest.expand_rubric({"A.*": 1, "A.b": 2, "Gone.Test": 1}, ["A.b", "A.c", "Unlisted.Test"])
        self.assertIn("test A.b matches 2 rubric entries (A.*, A.b)", problems)
        self.assertIn("test Unlisted.Test has no rubric entry", problems)
        self.assertIn("rubric entry Gone.Test matches no test", problems)

    def test_test_list_parsing(self):
        text = ("Running main() from gtest_main.cc\nLab01/EverySorter.\n  Random/qsort  # GetParam() = x\n"
                "  Large/qsort  # GetParam() = y\nComparator.\n  ReturnsMinusOneZeroPlusOne\n")
        self.assertEqual(manifest.parse_test_list(text), ["Lab01/EverySorter.Random/qsort",
                                                          "Lab01/EverySorter.Large/qsort",
                                                          "Comparator.ReturnsMinusOneZeroPlusOne"])

    def test_items_from_the_expanded_rubric(self):
        items = score.rubric({score.VISIBLE: [("A.b", 2, "A.*")], score.HIDDEN: [("H.c", 1, "H.c")]})
        self.assertEqual([(i.name, i.kind, i.test, i.max_score) for i in items],
                         [("A.b", "visible", "A.b", 2), ("hidden: H.c", "hidden", "H.c", 1)])


FAKE_DRIVER = r"""
import os, sys, time
d = sys.argv[sys.argv.index("--serve") + 1]
mode = os.path.basename(sys.argv[0])
go = open(os.path.join(d, "go"), "rb", buffering=0)
done = os.open(os.path.join(d, "done"), os.O_RDWR)
os.write(done, b"ready\n")
if mode == "ahead.py":  # answers before it is asked: the seeds are unknown
    for k in range(20):
        os.write(done, b"done %d 0x1p+0\n" % k)
buf = b""
while True:
    while b"\n" not in buf:
        buf += go.read(1)
    line, _, buf = buf.partition(b"\n")
    parts = line.split()
    if parts[0] == b"end":
        break
    k, seed = int(parts[1]), int(parts[2], 16)
    value = float(seed % 1000003)
    if mode == "slow.py":
        time.sleep(0.003)
    elif mode == "wrong.py" and k == 3:
        value += 1
    elif mode == "crash.py" and k == 2:
        os._exit(3)
    else:
        time.sleep(0.001)
    if mode != "ahead.py":
        os.write(done, ("done %d %s\n" % (k, value.hex())).encode())
"""


class TimingProtocolTest(unittest.TestCase):
    """timing.measure against fake drivers that speak the protocol, run in
    the real sandbox: the grader's clock, fresh seeds, checked values."""

    def runs(self):
        """A timing.Runs as a grade makes it, without a grade: no MPI, 4 GiB."""
        sandbox = sb_mod.Sandbox(hide=[ROOT])

        def run_dir(role):
            d = tempfile.mkdtemp(dir=self.tmp)
            os.chmod(d, 0o755)
            sandbox.own(d, role)
            return d
        bench = {"args": [], "reps": 6, "warmup": 1, "check": "exact"}
        return timing.Runs(sandbox, pipeline.Deadline(120), run_dir, [], bench, [], 4 * sb_mod.GiB, rounds=2)

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        os.chmod(self.tmp, 0o755)
        for name in ("fast.py", "slow.py", "wrong.py", "crash.py", "ahead.py"):
            path = os.path.join(self.tmp, name)
            with open(path, "w") as f:
                f.write("#!/usr/bin/python3\n" + FAKE_DRIVER)
            os.chmod(path, 0o755)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def measure(self, sub, ref="fast.py"):
        return timing.measure(self.runs(), os.path.join(self.tmp, sub), [self.tmp], os.path.join(self.tmp, ref),
                              [self.tmp])

    def test_the_grader_holds_the_clock(self):
        r = self.measure("slow.py")
        self.assertEqual(len(r.sub.seconds), 12)
        self.assertLess(r.ratio, 0.8)
        self.assertGreater(r.sub.median(), 0.003)
        self.assertIn("ratio reference/yours", timing.describe(r, 0.8, 0.4))

    def test_a_wrong_repetition_scores_nothing(self):
        with self.assertRaisesRegex(timing.TimingError, "repetition 3 of round 1 gave a wrong result"):
            self.measure("wrong.py")

    def test_answers_written_ahead_are_wrong(self):
        with self.assertRaisesRegex(timing.TimingError, "wrong result"):
            self.measure("ahead.py")

    def test_a_crash_is_a_sentence_not_a_traceback(self):
        with self.assertRaisesRegex(timing.TimingError, "did not finish repetition 2: exited with code 3"):
            self.measure("crash.py")

    def test_parse_done_and_compare(self):
        self.assertEqual(timing.parse_done("done 4 0x1.8p+1 -0x0p+0", 4), [3.0, -0.0])
        for bad in ("done 5 1", "done 4 xyz", "garbage", "error 4 not implemented: x"):
            with self.assertRaises(timing.TimingError):
                timing.parse_done(bad, 4)
        self.assertTrue(timing.same([1.0, 2.0], [1.0, 2.0], "exact"))
        self.assertFalse(timing.same([1.0, 2.0 + 1e-15], [1.0, 2.0], "exact"))
        self.assertTrue(timing.same([1.0 + 1e-9], [1.0], {"rel": 1e-6}))
        self.assertFalse(timing.same([1.0], [1.0, 2.0], {"rel": 1}))
        nan, inf = float("nan"), float("inf")
        self.assertFalse(timing.same([nan], [1.0], {"rel": 1e9, "abs": 1e9}))
        self.assertFalse(timing.same([1.0], [inf], {"rel": 1e-3}))
        self.assertFalse(timing.same([inf], [-inf], {"rel": 1}))
        self.assertTrue(timing.same([inf, nan, -0.0], [inf, nan, 0.0], {"rel": 0}))
        self.assertFalse(timing.same([-0.0], [0.0], "exact"))
        self.assertEqual(timing.profile_for([]), "single")
        self.assertEqual(timing.profile_for(["openmp"]), "default")


class BuildTest(unittest.TestCase):
    def test_foreign_dependencies(self):
        deps = ("labs/x.p/sorting.cpp.o: #deps 3, deps mtime 1 (VALID)\n"
                "    ../src/labs/01-sorting/sorting.cpp\n"
                "    /usr/include/c++/12/vector\n"
                "    /work/repo/solutions/01-sorting/sorting.cpp\n\n")
        bad = build.check_deps(deps, "/tmp/ws/build", "/tmp/ws", ["/work/repo"])
        self.assertEqual(bad, [("labs/x.p/sorting.cpp.o", "/work/repo/solutions/01-sorting/sorting.cpp")])
        # The repo is refused even when it lives under a system prefix.
        deps2 = "o: #deps\n    /opt/repo/solutions/a.cpp\n"
        self.assertTrue(build.check_deps(deps2, "/tmp/ws/build", "/tmp/ws", ["/opt/repo"]))

    def test_hidden_readers_follow_the_workspace_layout(self):
        hidden = manifest.lab_paths("/tmp/ws/src", "01-sorting").hidden_dir
        rel = os.path.relpath(hidden, "/tmp/ws/build")
        deps = ("labs/s.p/sorting.cpp.o: #deps\n    ../src/labs/01-sorting/student/../../../%s/t.cpp\n"
                "    ../src/labs/01-sorting/sorting.hpp\n"
                "labs/01-sorting-hidden.p/t.cpp.o: #deps\n    %s/t.cpp\n") % (rel[len("../src/"):], rel)
        self.assertEqual([o for o, _ in pipeline.hidden_readers(deps, hidden, "/tmp/ws/build")],
                         ["labs/s.p/sorting.cpp.o", "labs/01-sorting-hidden.p/t.cpp.o"])

    def test_first_errors_drop_commands_and_progress(self):
        text = ("[1/3] Compiling C++ object x.o\nFAILED: x.o\nccache c++ -Ifoo -c x.cpp -o x.o\n"
                "labs/01-sorting/sorting.cpp:3:5: error: expected ';'\n    3 | int a = 1\n"
                "ninja: build stopped: subcommand failed.\n")
        self.assertEqual(build.first_errors(text),
                         "labs/01-sorting/sorting.cpp:3:5: error: expected ';'\n    3 | int a = 1")


class WorkspaceTest(unittest.TestCase):
    def test_plan_files(self):
        wanted, missing, ignored = workspace.plan_files(["a.cpp", "b.hpp"], ["a.cpp", "notes.txt"])
        self.assertEqual((wanted, missing, ignored), (["a.cpp"], ["b.hpp"], ["notes.txt"]))

    def test_install_refuses_links_and_says_what_was_ignored(self):
        tmp = tempfile.mkdtemp()
        try:
            ws = workspace.create(ROOT, "01-sorting", parent=tmp)
            sub = os.path.join(tmp, "sub")
            os.makedirs(sub)
            os.symlink(os.path.join(manifest.lab_paths(ROOT, "01-sorting").solution_dir, "sorting.cpp"),
                       os.path.join(sub, "sorting.cpp"))
            with open(os.path.join(sub, "README.md"), "w") as f:
                f.write("hi")
            notes = workspace.install_student_files(ws, ["sorting.cpp", "merge_sort.hpp"], sub)
            joined = "\n".join(notes)
            self.assertIn("sorting.cpp is a link", joined)
            self.assertIn("missing from the submission", joined)
            self.assertIn("README.md", joined)
            with open(os.path.join(ws.student_dir(), "sorting.cpp")) as f:
                self.assertIn("NotImplemented", f.read())  # still the starter's
            self.assertFalse(os.path.exists(os.path.join(ws.src, manifest.SECRET_DIR)))
            self.assertFalse(os.path.exists(ws.hidden_dir()))
        finally:
            shutil.rmtree(tmp)


class ScanTest(unittest.TestCase):
    def test_review_lists_what_a_lab_does_not_need(self):
        found = scan.review({"a.hpp": "#undef EXPECT_TRUE\n#define EXPECT_TRUE(x) (void)0\n",
                             "b.cpp": "// fork() in a comment is fine\nint f() { return fork(); }\n",
                             "c.cpp": 'auto p = getenv("HPCLAB_JUDGE_RECORD");\n'})
        self.assertEqual(len(found), 4)
        self.assertIn("b.cpp:2: starts processes: int f() { return fork(); }", found)

    def test_solutions_are_clean(self):
        for lab in manifest.list_labs(ROOT):
            m = manifest.load(ROOT, lab)
            files = inputs.read_student_files(manifest.lab_paths(ROOT, lab).solution_dir, m["student_files"])
            self.assertEqual([f for f in scan.review(files) if "test harness" in f or "GoogleTest" in f], [], lab)


class ReportTest(unittest.TestCase):
    def test_points_in_words(self):
        self.assertEqual([report.points_text(x) for x in (1, 1.0, 0, 2, 2.5, 0.5, 83.52)],
                         ["1 point", "1 point", "0 points", "2 points", "2.5 points", "0.5 points", "83.52 points"])

    def test_schema_and_atomic_write(self):
        a = score.Item("A.b", 2, score.VISIBLE, "A.b")
        a.set(2, "passed", "")
        h = score.Item("hidden: H.c", 3, score.HIDDEN, "H.c")
        h.set(0, "failed", "timed out after 20 s")
        data = report.results([a, h], ["line"], 1.5, {"lab": "x"})
        self.assertEqual(data["score"], 2)
        self.assertEqual(set(data["tests"][0]), {"name", "score", "max_score", "status", "output", "visibility",
                                                 "execution_time"})
        self.assertEqual([t["visibility"] for t in data["tests"]], ["visible", "after_published"])
        self.assertEqual(data["extra_data"]["kinds"], {"A.b": "visible", "hidden: H.c": "hidden"})
        tmp = tempfile.mkdtemp()
        try:
            path = os.path.join(tmp, "r.json")
            report.write_atomic(path, data)
            with open(path) as f:
                self.assertEqual(json.load(f)["score"], 2)
            self.assertEqual(os.listdir(tmp), ["r.json"])
        finally:
            shutil.rmtree(tmp)
        self.assertIn("TOTAL", report.table(data))

    def test_totals_say_what_could_not_run_here(self):
        board = report.scoreboard([("01-sorting", 46, 46, "", 0), ("06-reduction", 12, 86, "needs a GPU", 74)])
        self.assertIn("58/58 run here; 74 more points not run here", board.splitlines()[-1])
        self.assertEqual(report.total_line(40, 46, 0), "40/46")

    def test_release_total_separates_tests_and_speed(self):
        line = report.total_line(43, 48, 5, {"points": 5, "summary": "your merge: 1.2x std::sort's time"})
        self.assertEqual(line, "43/43 tests, speed: graded by the instructor (your merge: 1.2x std::sort's time)")

    def test_table_cuts_nothing(self):
        long_name = "Lab06/EveryKernel.SizesAroundPowersOfTwo/interleaved_with_a_very_long_parameter_name"
        note = "word " * 60
        data = report.results([], [], 0, {})
        data["tests"] = [{"name": long_name, "score": 1, "max_score": 1, "status": "passed", "output": note}]
        text = report.table(data)
        self.assertIn(long_name, text.splitlines())
        self.assertEqual(" ".join(text.split()).count("word"), 60)

    def test_the_profile_table_follows_whole(self):
        table = "profile (hardware counters, not scored; ...):\n  metric  yours  reference\n  kernel time (ns)  2  1"
        data = report.results([], [], 0, {"profile": table})
        self.assertTrue(report.table(data).endswith("\n\n" + table))
        self.assertNotIn("profile", report.table(report.results([], [], 0, {})))


    def test_phase_times_and_class_throughput(self):
        from hpcgrade import classrun
        data = report.results([], [], 60, {"phase_s": {"build": 52.3, "timing": 6.0}})
        self.assertEqual(report.phases_text(data), "build 52, timing 6")
        self.assertEqual(report.phases_text(report.results([], [], 0, {})), "")
        line = classrun.throughput_text([data, None, data], 120)
        self.assertEqual(line, "3 graded in 2 min: 1.5 per minute; time per phase, summed: build 2 min, timing 12 s")


class WrittenAnswersTest(unittest.TestCase):
    STARTER = "# Lab\n\n## Q1 (2 points) Why?\n\n(your answer)\n\n## Q2 (1.5 points) How?\n\n(your answer)\n"

    def test_questions_and_points_come_from_the_starter(self):
        sub = "## Q1 (100 points) Changed\nBecause.\n\n## Q2 (2 points) How?\n\n(your answer)\n## Q9 x\nextra"
        qs = answers.merge(self.STARTER, sub)
        self.assertEqual([(q.number, q.points, q.prompt) for q in qs], [(1, 2.0, "Why?"), (2, 1.5, "How?")])
        self.assertEqual(qs[0].answer, "Because.")
        self.assertTrue(qs[0].answered)
        self.assertFalse(qs[1].answered)
        self.assertEqual([q.answer for q in answers.merge(self.STARTER, None)], ["", ""])

    def test_each_answer_says_its_state(self):
        qs = answers.merge(self.STARTER, "## Q1 x\n" + "word " * 60 + "\n## Q2 y\n(your answer)\n")
        first = answers.state(qs[0])
        self.assertTrue(first.startswith('answered, 60 words: "word word'), first)
        self.assertTrue(first.endswith(' ..."') and len(first) < answers.EXCERPT + 40, first)
        self.assertEqual(answers.state(qs[1]), "unanswered")
        missing = answers.merge(self.STARTER, None)
        self.assertEqual(answers.state(missing[0], file_found=False), "no answers.md in the submission")
        self.assertEqual(answers.state(answers.merge(self.STARTER, "## Q1\nYes.")[0]), 'answered, 1 word: "Yes."')
        # The table shows an item's first line: the state; the question and the whole answer follow.
        text = answers.describe(qs[0])
        self.assertEqual(text.splitlines()[0], first)
        self.assertIn("question: Why?", text)
        self.assertIn("answer: " + qs[0].answer, text)

    def test_a_linked_answers_file_is_not_read(self):
        # The grader may run as root: a link to a secret must not reach results.json.
        tmp = tempfile.mkdtemp()
        try:
            os.symlink("/etc/hostname", os.path.join(tmp, answers.FILE))
            self.assertIsNone(inputs.read_text(os.path.join(tmp, answers.FILE)))
        finally:
            shutil.rmtree(tmp)

    def test_bad_starter_is_an_error(self):
        for bad in ("no headings", "## Q1 (1 points) a\n## Q1 (1 points) b"):
            with self.assertRaises(ValueError):
                answers.parse(bad)

    def test_every_lab_has_parseable_questions(self):
        for lab in manifest.list_labs(ROOT):
            with open(os.path.join(manifest.lab_paths(ROOT, lab).student_dir, answers.FILE)) as f:
                self.assertTrue(answers.parse(f.read()), lab)

    def test_written_items_have_no_status_and_no_points(self):
        item = score.Item("written Q1", 0, score.WRITTEN)
        item.set(0, "manual", "Q1: text")
        t = report.results([item], [], 0, {})["tests"][0]
        self.assertNotIn("status", t)
        self.assertEqual(t["max_score"], 0)


class SelfSpeedTest(unittest.TestCase):
    def row(self, name, median, anchor="std::sort", ratio=0.0, n=10):
        return json.dumps({"name": name, "n": n, "anchor": anchor, "ratio": ratio, "seconds": {"median": median}})

    def test_several_runs_give_the_median_and_the_range(self):
        found = [(r, "std::sort", "time") for r in (1.08, 0.73, 0.95, 1.01, 0.9)]
        self.assertEqual(speed.runs_text(found), "0.95x std::sort's time (1.05x faster), the median of 5 runs (0.73x to 1.08x)")
        self.assertEqual(speed.runs_text([(0.9, "copy", "driver"), (0.94, "copy", "driver"), (0.92, "copy", "driver")]),
                         "0.92 against copy (the driver's ratio), the median of 3 runs (0.9 to 0.94)")
        self.assertEqual(speed.runs_text([(1.5, "CUB", "time")]), "1.5x CUB's time, one run")

    def test_time_ratio_reads_times_not_the_drivers_ratio(self):
        # lab 06 prints bandwidth ratios: the times are what compare.
        out = "\n".join(["text", self.row("cub", 2.0, "cub", 1.0), self.row("mine", 3.0, "cub", 0.66),
                          self.row("cub", 9.0, "cub", 1.0, n=99)])
        ratio, anchor, kind = speed.time_ratio(out, "mine")
        self.assertAlmostEqual(ratio, 1.5)
        self.assertEqual((anchor, kind), ("cub", "time"))
        # No row of the anchor's own (lab 11's copy bandwidth): the driver's ratio.
        self.assertEqual(speed.time_ratio(self.row("mine", 3.0, "copy", 0.94), "mine"), (0.94, "copy", "driver"))
        self.assertIsNone(speed.time_ratio(self.row("mine", 3.0), "mine"))
        self.assertIsNone(speed.time_ratio("not json {", "mine"))

    def test_measure_own_runs_the_driver_with_the_benchmarks_arguments(self):
        bench = {"args": ["--n", "10"], "measure": "mine"}
        outputs = iter([2.0, 3.0, 4.0])
        seen = []

        class Outcome:
            ok = True

            def __init__(self, output):
                self.output = output

        def run_driver(args):
            seen.append(args)
            return Outcome("\n".join([self.row("std::sort", 2.0, ratio=1.0), self.row("mine", next(outputs))]))
        self.assertEqual(speed.measure_own(bench, run_driver, runs=3),
                         "1.5x std::sort's time, the median of 3 runs (1x to 2x)")
        self.assertEqual(seen, [["--n", "10", "--json"]] * 3)

        def crashed(args):
            o = Outcome("")
            o.ok, o.describe = False, lambda: "was killed by SIGSEGV"
            return o
        self.assertEqual(speed.measure_own(bench, crashed), "not measured: the driver was killed by SIGSEGV")
        self.assertEqual(speed.measure_own(bench, lambda args: Outcome(self.row("other", 1.0))),
                         "not measured: the driver printed no row named 'mine' with its anchor's row")

    def test_texts(self):
        self.assertEqual(speed.ratio_text(1.25, "std::sort"), "1.25x std::sort's time")
        self.assertEqual(speed.ratio_text(0.5, "CUB"), "0.5x CUB's time (2x faster)")
        self.assertEqual(speed.ratio_text(0.947, "device copy", "driver"), "0.947 against device copy (the driver's ratio)")
        bench = {"measure": "merge", "reference_vs_anchor": {"ratio": 1.227, "host": "a laptop", "kind": "time"}}
        self.assertEqual(speed.summary(bench, "1.3x std::sort's time"),
                         "your merge: 1.3x std::sort's time; the reference: about 1.23x (on a laptop)")

    def test_the_reference_figure_says_what_it_is(self):
        # A time ratio read as a bandwidth fraction (or back) turns the
        # handout's advice upside down, so lab.json must say which it is.
        m = manifest.load(ROOT, "13-mri-fhd")
        manifest.check_grading_fields(m)
        self.assertEqual(m["benchmark"]["reference_vs_anchor"]["kind"], "driver")
        del m["benchmark"]["reference_vs_anchor"]["kind"]
        with self.assertRaisesRegex(manifest.ManifestError, "reference_vs_anchor must be"):
            manifest.check_grading_fields(m)


class HandoutGradingTest(unittest.TestCase):
    def test_the_section_goes_between_the_markers(self):
        # That every handout is up to date is the Meson test `handouts`.
        sys.path.insert(0, os.path.join(ROOT, "tools"))
        import handout_grading
        text = "a\n%s\nold\n%s\nb" % (handout_grading.BEGIN, handout_grading.END)
        self.assertEqual(handout_grading.replace(text, "NEW"), "a\nNEW\nb")
        self.assertIsNone(handout_grading.replace("no markers", "x"))


class ReadmeLabsTest(unittest.TestCase):
    def test_rows_come_from_the_manifest(self):
        # That README.md's table is up to date is the Meson test `readme labs`.
        sys.path.insert(0, os.path.join(ROOT, "tools"))
        import readme_labs
        self.assertEqual(readme_labs.needs_text([]), "C++")
        self.assertEqual(readme_labs.needs_text(["cuda", "tbb"]), "CUDA, oneTBB")
        row = readme_labs.row("99-x", {"title": "T", "needs": ["mpi"], "status": "s"})
        self.assertEqual(row, "| [99-x](labs/99-x/README.md) | T | MPI | s |")
        self.assertIsNone(readme_labs.replace("no markers", "x"))


class FigureRunsTest(unittest.TestCase):
    def test_runs_are_checked_and_launched(self):
        lab_manifest = sys.modules["lab_manifest"]  # the package hpcgrade.manifest imports
        for bad in ({"sample": [{"args": "--n 1"}]}, {"sample": [{"args": [], "ranks": 0}]},
                    {"quoted": [{"args": []}]}, {"sample": [{"args": [], "env": {"A B": "1"}}]},
                    {"samples": []}, {"sample": [{"args": [], "what": 1}]}):
            with self.assertRaises(manifest.ManifestError, msg=bad):
                lab_manifest.check_figure_runs(bad, "x")
        run = {"args": ["--n", "2^18"], "ranks": 4, "env": {"OMP_NUM_THREADS": "1"}}
        self.assertEqual(lab_manifest.figure_run_command(run, "d"),
                         ["mpirun", "-np", "4", "--oversubscribe", "-x", "OMP_NUM_THREADS=1", "d", "--n", "2^18"])
        self.assertEqual(lab_manifest.figure_run_command({"args": []}, "d"), ["d"])
        m = manifest.load(ROOT, "14-pancake-bfs")
        self.assertTrue(m["figure_runs"]["sample"])
        self.assertFalse(m["figure_runs"]["sample_is_handout"])


class DriverFilesTest(unittest.TestCase):
    """labs/driver_files.py: the hostile files are what they claim, and its
    own count of a file follows the handouts' word rule."""

    def setUp(self):
        sys.path.insert(0, os.path.join(ROOT, "labs"))
        import driver_files
        self.df = driver_files

    def test_memory_under_mpirun_is_the_ranks_not_mpiruns(self):
        # A stand-in mpirun that holds 200 MiB itself and starts NP ranks of
        # 40 MiB: the bound (64 MiB) holds for the ranks, as it must.
        with tempfile.TemporaryDirectory() as d:
            mpirun, driver = os.path.join(d, "mpirun"), os.path.join(d, "driver")
            with open(mpirun, "w") as f:
                f.write("#!%s\nimport subprocess, sys\nheld = bytearray(200 << 20)\n"
                        "np, cmd = int(sys.argv[2]), sys.argv[4:]\n"
                        "sys.exit(max(p.wait() for p in [subprocess.Popen(cmd) for _ in range(np)]))\n"
                        % sys.executable)
            with open(driver, "w") as f:
                f.write("#!%s\nheld = bytearray(40 << 20)\n" % sys.executable)
            for path in (mpirun, driver):
                os.chmod(path, 0o755)
            entry = {"name": "x", "args": [], "ranks": 3, "max_mib": 64}
            with unittest.mock.patch.object(self.df.lab_manifest, "load", return_value={"driver_memory": [entry]}):
                self.assertEqual(self.df.memory("lab", 0, driver, mpirun), "")
                entry["max_mib"] = 30
                # A rank's 40 MiB and the interpreter's own; mpirun's 200 MiB would be above 200.
                mib = float(self.df.memory("lab", 0, driver, mpirun).split(" MiB is above the bound of 30")[0])
                self.assertTrue(40 < mib < 200, mib)
                entry.update(ranks=1, max_mib=64)  # one process, no mpirun: measured the same way
                self.assertEqual(self.df.memory("lab", 0, driver, ""), "")

    def test_hostile_files(self):
        with tempfile.TemporaryDirectory() as d:
            def read(kind):
                with open(self.df.make(kind, d), "rb") as f:
                    return f.read()
            self.assertEqual(read("empty"), b"")
            self.assertIn(b"\0", read("nul")[1:-1])
            self.assertTrue(read("nul").startswith(b"\0"))
            crlf = read("crlf")
            self.assertEqual(crlf.count(b"\n"), crlf.count(b"\r\n"))
            self.assertTrue(crlf.count(b"\n") > 1000)
            self.assertTrue(any(b > 0x7f for b in read("utf8")))
            self.assertEqual(set(read("separators")), set(self.df.SEPARATORS))
            self.assertNotIn(read("no-final-newline")[-1:], self.df.SEPARATORS)
            self.assertEqual(len(set(read("binary"))), 256)
            for kind, mib in (("huge-line", 64), ("long-line", 8)):
                line = read(kind)
                self.assertEqual(len(line), mib << 20)
                self.assertNotIn(b"\n", line)
            self.assertEqual(read("nul"), read("nul"))  # the same file every time
            self.assertTrue(read("word-list-crlf").endswith(b"\r\n"))
            with self.assertRaises(KeyError):
                self.df.make("no-such-kind", d)

    def test_memory_is_measured_without_malloc_perturbation(self):
        # meson test sets MALLOC_PERTURB_ for a test, and everything the test
        # starts inherits it: glibc then writes every allocated byte, so
        # memory reserved but never used counts as resident. Under CI's
        # meson test, lab 15's handout measured 1,053 MiB where its reader
        # sees 741 (bound 1,024).
        # A fresh parent measures its one child, as driver_files.memory does.
        measure = ("import resource, subprocess, sys; subprocess.run([sys.executable, '-c', "
                   "'import ctypes; ctypes.CDLL(None).malloc(256 << 20)'], check=True); "
                   "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")

        def peak_mib(env):
            out = subprocess.run([sys.executable, "-c", measure], env=env, check=True, stdout=subprocess.PIPE)
            return int(out.stdout) / 1024.0

        with unittest.mock.patch.dict(os.environ, {"MALLOC_PERTURB_": "57"}):
            env = self.df.memory_env()
            self.assertNotIn("MALLOC_PERTURB_", env)
            self.assertEqual(env["OMPI_ALLOW_RUN_AS_ROOT"], "1")
            self.assertLess(peak_mib(env), 128)  # reserved, never touched
        self.assertGreater(peak_mib(dict(env, MALLOC_PERTURB_="57")), 256)  # what the flag does

    def test_facts_split_at_the_six_separators_only(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "f")
            with open(path, "wb") as f:
                f.write(b"a\0b a\0b\r\nc\x0bc\x0c\xc3\xa9 a\0b\n\n c  c\x00")
            # Lines: {a\0b}, {c, \xc3\xa9, a\0b}, {}, {c, c\0}.
            self.assertEqual(self.df.facts(path), {"bytes": 27, "words": 8, "distinct_words": 4,
                                                   "distinct_line_words": 1 + 3 + 0 + 2})

    def test_declarations_are_checked(self):
        data = {"name": "x", "driver_files": [{"args": ["--input"], "files": ["nul"]}]}
        with self.assertRaises(manifest.ManifestError):  # no {file}
            self.df.lab_manifest.check_driver_files(data, "x")
        data = {"driver_memory": [{"name": "a", "args": ["{file}"], "max_mib": 10}]}
        with self.assertRaises(manifest.ManifestError):  # {file} without a file kind
            self.df.lab_manifest.check_driver_files(data, "x")
        data = {"driver_files": [{"args": ["--input", "{file}"], "files": ["nul"], "expect": "maybe"}]}
        with self.assertRaises(manifest.ManifestError):
            self.df.lab_manifest.check_driver_files(data, "x")
        lines = manifest.meson_lines(manifest.load(ROOT, "15-mapreduce"))
        self.assertIn("file_run\t0\tnul\t2\t--input {nul} --reps 1 --warmup 0 --json", lines)
        self.assertTrue(any(l.startswith("memory\t") for l in lines))


class LabNameTest(unittest.TestCase):
    def test_resolve(self):
        for name in ("01", "1", "01-sorting", "sorting"):
            self.assertEqual(manifest.resolve_lab(ROOT, name), "01-sorting")
        with self.assertRaises(manifest.ManifestError):
            manifest.resolve_lab(ROOT, "99")

    def test_grading_fields_of_every_lab(self):
        for lab in manifest.list_labs(ROOT):
            manifest.check_grading_fields(manifest.load(ROOT, lab))
        bad = {"name": "x", "benchmark": {"args": ["--n", "1"], "points": 5, "full_marks_ratio": 0.4,
                                          "floor_ratio": 0.8}}
        with self.assertRaises(manifest.ManifestError):
            manifest.check_grading_fields(bad)
        with self.assertRaises(manifest.ManifestError):
            manifest.check_grading_fields({"name": "x", "sanitizer": {"tools": ["memchek"], "points": 1}})
        for memory in (0, -1, "8"):
            bench = {"args": ["--n", "1"], "points": 5, "full_marks_ratio": 0.8, "floor_ratio": 0.4,
                     "memory_gib": memory}
            with self.assertRaises(manifest.ManifestError):
                manifest.check_grading_fields({"name": "x", "benchmark": bench})

    def test_meson_lines_are_named(self):
        lines = manifest.meson_lines(manifest.load(ROOT, "01-sorting"))
        named = {l.split("\t")[0]: l.split("\t")[1:] for l in lines if not l.startswith("check")}
        self.assertEqual(named["student_files"], ["answers.md", "merge_sort.hpp", "sorting.cpp"])
        self.assertEqual(named["harness"], ["merge_sort_doubles.cpp"])
        self.assertEqual(named["driver"], ["main.cpp"])
        self.assertEqual(named["test_main"], ["gtest"])
        self.assertEqual(named["needs"], [])
        self.assertIn("check\tfail\t--n\t1e18", lines)

    def test_a_lab_folder_is_graded_from_its_student_folder(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "lab", "student"))
            open(os.path.join(d, "lab", "student", "a.cpp"), "w").close()
            self.assertEqual(inputs.submission_dir(os.path.join(d, "lab"), ["a.cpp"]),
                             os.path.join(d, "lab", "student"))
            open(os.path.join(d, "lab", "a.cpp"), "w").close()  # files given directly win
            self.assertEqual(inputs.submission_dir(os.path.join(d, "lab"), ["a.cpp"]), os.path.join(d, "lab"))

    def test_student_files_are_the_student_folder(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "labs", "x", "student", "sub"))
            for f in ("a.cpp", "sub/b.hpp", ".hidden"):
                open(os.path.join(d, "labs", "x", "student", f), "w").close()
            self.assertEqual(manifest.student_files(d, "x"), ["a.cpp", "sub/b.hpp"])


class SandboxTest(unittest.TestCase):
    """The sandbox's guarantees, with and without bubblewrap."""

    def modes(self):
        yield "fallback", sb_mod.Sandbox(use_bwrap=False)
        sb = sb_mod.Sandbox(hide=[ROOT])
        if sb.active:
            yield "bwrap", sb
        else:
            print("\n  note: bubblewrap unavailable here (%s): only the fallback is tested" % sb.reason)
        # As root, also the way a host without unprivileged user namespaces
        # (Ubuntu 24.04's AppArmor default: the GPU hosts) runs it.
        if sb.active and not sb.privileged and os.geteuid() == 0 and sb.setpriv:
            sb = sb_mod.Sandbox(hide=[ROOT])
            sb.privileged = True
            yield "bwrap-privileged", sb

    def run_sh(self, sb, script, wall=5, cap=sb_mod.OUTPUT_CAP, profile="default"):
        return sb.execute(["/bin/sh", "-c", script], sb_mod.Limits(wall_s=wall), cwd="/", cap=cap, profile=profile)

    def test_exit_codes_and_signals(self):
        for mode, sb in self.modes():
            with self.subTest(mode=mode):
                self.assertEqual(self.run_sh(sb, "exit 3").exit_code, 3)
                o = self.run_sh(sb, "kill -SEGV $$")
                self.assertEqual(o.signal, 11)
                self.assertIn("crashed with SIGSEGV", o.describe())

    def test_timeout_kills_everything_and_returns(self):
        for mode, sb in self.modes():
            with self.subTest(mode=mode):
                t = time.monotonic()
                o = self.run_sh(sb, "sleep 1000 & sleep 1000", wall=1)
                self.assertTrue(o.timed_out)
                self.assertLess(time.monotonic() - t, 5)

    def test_child_outliving_parent_does_not_block(self):
        for mode, sb in self.modes():
            with self.subTest(mode=mode):
                t = time.monotonic()
                o = self.run_sh(sb, "(sleep 30; echo late) & echo early; exit 0", wall=20)
                self.assertEqual(o.exit_code, 0)
                self.assertIn("early", o.output)
                self.assertLess(time.monotonic() - t, 5)

    def test_the_grader_is_out_of_reach(self):
        # The monitor is the grader itself: another uid (when it is root)
        # in a pid namespace the command cannot see.
        for mode, sb in self.modes():
            with self.subTest(mode=mode):
                o = self.run_sh(sb, "kill -9 $PPID; kill -9 %d; sleep 0.2; echo alive" % os.getpid())
                self.assertIn("alive", o.output)
        self.assertTrue(True)  # and this process still runs

    def test_output_is_capped(self):
        for mode, sb in self.modes():
            with self.subTest(mode=mode):
                o = self.run_sh(sb, "head -c 20000000 /dev/zero | tr '\\0' x", cap=1000)
                self.assertEqual(o.exit_code, 0)
                self.assertEqual(o.truncated_bytes, 20000000 - 1000)
                self.assertIn("output truncated", o.output)

    def test_memory_limit(self):
        for mode, sb in self.modes():
            with self.subTest(mode=mode):
                o = sb.execute(["python3", "-c", "b = bytearray(1 << 30)"],
                               sb_mod.Limits(wall_s=10, data_bytes=256 * sb_mod.MiB))
                self.assertNotEqual(o.exit_code, 0)
                self.assertIn("MemoryError", o.output)

    def test_no_privileges_and_the_filter(self):
        probe = (
            "import ctypes, os\n"
            "libc = ctypes.CDLL(None, use_errno=True)\n"
            "def denied(rc): return rc == -1 and ctypes.get_errno() == 1\n"
            "print('uid', os.getuid())\n"
            "print('mount', denied(libc.mount(b'none', b'/tmp', b'tmpfs', 0, None)))\n"
            "print('unshare', denied(libc.unshare(0x10000000)))\n"
            "print('open_by_handle_at', denied(libc.syscall(304, 0, 0, 0)))\n"
            "print('ptrace', denied(libc.ptrace(16, 1, 0, 0)))\n"
            "print('process_vm_readv', denied(libc.syscall(310, 1, 0, 0, 0, 0, 0)))\n"
            "status = open('/proc/self/status').read()\n"
            "print('caps', [l.split()[1] for l in status.splitlines() if l.startswith('CapEff')][0])\n"
            "print('nnp', [l.split()[1] for l in status.splitlines() if l.startswith('NoNewPrivs')][0])\n")
        for mode, sb in self.modes():
            with self.subTest(mode=mode):
                o = sb.execute(["python3", "-c", probe], sb_mod.Limits(wall_s=10))
                lines = dict(l.split(" ", 1) for l in o.output.strip().splitlines())
                if os.geteuid() == 0:
                    self.assertEqual(lines["uid"], str(sb.ids()[0] if mode == "fallback" or sb.privileged else 65534))
                for call in ("mount", "unshare", "open_by_handle_at", "ptrace", "process_vm_readv"):
                    self.assertEqual(lines[call], "True", (mode, call, o.output))
                self.assertEqual(lines["caps"], "0000000000000000")
                self.assertEqual(lines["nnp"], "1")

    def test_single_profile_refuses_threads_and_processes(self):
        for mode, sb in self.modes():
            with self.subTest(mode=mode):
                o = self.run_sh(sb, "echo one; (echo child) ; echo two", profile="single")
                self.assertNotIn("child", o.output)
                o = sb.execute(["python3", "-c", "import threading; threading.Thread(target=print).start()"],
                               sb_mod.Limits(wall_s=10), profile="single")
                self.assertIn("can't start new thread", o.output)

    def test_record_profile_refuses_timers_and_late_signals(self):
        # What could change a judged call's outputs after its record was
        # written (common/src/judged_settle.cpp); threads and processes stay.
        probe = (
            "import ctypes, fcntl, os, threading\n"
            "libc = ctypes.CDLL(None, use_errno=True)\n"
            "def denied(rc): return rc == -1 and ctypes.get_errno() == 1\n"
            "def raises(f):\n"
            "    try: f()\n"
            "    except OSError as e: return e.errno == 1\n"
            "    return False\n"
            "buf = ctypes.create_string_buffer(64)\n"
            "print('alarm', denied(libc.alarm(5)))\n"
            "print('setitimer', denied(libc.setitimer(0, buf, None)))\n"
            "print('timer_create', denied(libc.timer_create(1, None, buf)))\n"
            "print('timerfd_create', denied(libc.timerfd_create(1, 0)))\n"
            "print('io_setup', denied(libc.syscall(206, 1, buf)))\n"
            "print('clone_parent', denied(libc.syscall(56, 0x8000 | 17, 0, 0, 0, 0)))\n"
            "print('getrlimit', libc.getrlimit(0, buf) == 0)\n"
            "print('setrlimit', denied(libc.setrlimit(0, buf)))\n"
            "print('f_setown', raises(lambda: fcntl.fcntl(1, fcntl.F_SETOWN, os.getpid())))\n"
            "print('f_getfl', fcntl.fcntl(1, fcntl.F_GETFL) >= 0)\n"
            "t = threading.Thread(target=print, args=('thread', True)); t.start(); t.join()\n"
            "pid = os.fork()\n"
            "if pid == 0: os._exit(7)\n"
            "print('fork', os.waitpid(pid, 0)[1] >> 8 == 7)\n")
        for mode, sb in self.modes():
            with self.subTest(mode=mode):
                o = sb.execute(["python3", "-c", probe], sb_mod.Limits(wall_s=10), profile="record")
                lines = dict(l.split(" ", 1) for l in o.output.strip().splitlines())
                for what in ("alarm", "setitimer", "timer_create", "timerfd_create", "io_setup", "clone_parent",
                             "getrlimit", "setrlimit", "f_setown", "f_getfl", "thread", "fork"):
                    self.assertEqual(lines.get(what), "True", (mode, what, o.output))
                o = sb.execute(["python3", "-c", "import signal; print(signal.alarm(5) == 0)"],
                               sb_mod.Limits(wall_s=10))
                self.assertIn("True", o.output, "the default profile keeps timers")

    def test_home_tmp_and_shm_are_writable(self):
        # Nsight Compute, Open MPI and compilers write there; a tmpfs that
        # only root may write made ncu wait forever on a privileged host.
        for mode, sb in self.modes():
            with self.subTest(mode=mode):
                # (A name of this run's own: /dev/shm is shared and sticky,
                # and another grade's uid may own an older probe.)
                o = self.run_sh(sb, 'for d in "$HOME" "${TMPDIR:-/tmp}" /dev/shm; do '
                                    'echo x > "$d/probe-$$" && echo "ok $d" && rm "$d/probe-$$"; done')
                self.assertEqual(o.output.count("ok "), 3, (mode, o.output))

    def test_fresh_home_and_tmp_every_run(self):
        for mode, sb in self.modes():
            with self.subTest(mode=mode):
                self.run_sh(sb, "echo secret > $HOME/left; echo secret > $TMPDIR/left")
                o = self.run_sh(sb, "ls -A $HOME $TMPDIR 2>&1; echo end")
                self.assertNotIn("left", o.output)

    def test_bwrap_hides_the_repo_and_the_network(self):
        sb = sb_mod.Sandbox(hide=[ROOT])
        if not sb.active:
            self.skipTest("bubblewrap unavailable: %s" % sb.reason)
        o = self.run_sh(sb, "ls %s; ls /work 2>&1; echo done" % os.path.join(ROOT, manifest.SECRET_DIR))
        self.assertIn("No such file", o.output)
        o = sb.execute(["python3", "-c", "import socket; socket.create_connection(('1.1.1.1', 53), 3)"],
                       sb_mod.Limits(wall_s=10))
        self.assertNotEqual(o.exit_code, 0)
        self.assertIn("unreachable", o.output.lower())
        o = self.run_sh(sb, "touch /usr/x 2>&1; touch /tmp/x && echo tmp-ok")
        self.assertIn("Read-only", o.output)
        self.assertIn("tmp-ok", o.output)


class MpiLaunchEnvTest(unittest.TestCase):
    """The environment of a test run starts MPI on a host without ssh/rsh
    (the GPU host: every lab 11 test there exited 243 before this)."""

    def test_without_ssh_or_rsh_the_rsh_launcher_is_left_out(self):
        with tempfile.TemporaryDirectory() as empty:
            self.assertEqual(sb_mod.mpi_launch_env(empty, {}), {"OMPI_MCA_plm": "^rsh",
                                                                "OMPI_MCA_btl_vader_single_copy_mechanism": "none",
                                                                "OMPI_MCA_odls_base_sigkill_timeout": "0"})

    def test_with_ssh_nothing_is_forced(self):
        with tempfile.TemporaryDirectory() as d:
            ssh = os.path.join(d, "ssh")
            with open(ssh, "w") as f:
                f.write("#!/bin/sh\n")
            os.chmod(ssh, 0o755)
            self.assertEqual(sb_mod.mpi_launch_env(d, {}), {"OMPI_MCA_btl_vader_single_copy_mechanism": "none",
                                                            "OMPI_MCA_odls_base_sigkill_timeout": "0"})

    def test_the_hosts_mca_settings_come_along_and_win(self):
        with tempfile.TemporaryDirectory() as empty:
            env = sb_mod.mpi_launch_env(empty, {"OMPI_MCA_plm_rsh_agent": "false", "OMPI_MCA_btl": "self,vader",
                                                "OMPI_MCA_odls_base_sigkill_timeout": "2", "SECRET": "x"})
        self.assertEqual(env, {"OMPI_MCA_plm_rsh_agent": "false", "OMPI_MCA_btl": "self,vader",
                               "OMPI_MCA_btl_vader_single_copy_mechanism": "none",
                               "OMPI_MCA_odls_base_sigkill_timeout": "2"})

    @unittest.skipUnless(shutil.which("mpirun"), "needs Open MPI")
    def test_mpirun_starts_with_a_missing_rsh_agent(self):
        # The failure reproduced where ssh exists: point the agent nowhere.
        env = dict(sb_mod.base_env(), HOME="/tmp", OMPI_MCA_plm_rsh_agent="does-not-exist", **manifest.MPI_AS_ROOT_ENV)
        broken = subprocess.run(["mpirun", "-np", "1", "true"], env=env, capture_output=True, timeout=60)
        env.update(sb_mod.mpi_launch_env("/nonexistent", {}))
        fixed = subprocess.run(["mpirun", "-np", "1", "true"], env=env, capture_output=True, timeout=60)
        self.assertIn(b"plm_rsh_agent", broken.stdout + broken.stderr)
        self.assertEqual(fixed.returncode, 0, (fixed.stdout + fixed.stderr).decode()[-500:])


class RunsForTest(unittest.TestCase):
    """Which rank counts a test is recorded and judged with."""

    def test_one_rank_tests_run_once_with_the_fewest_ranks(self):
        m = {"mpi_ranks": ["1", "2", "4"], "one_rank_tests": ["Cpu.*", "Hidden.Fit"]}
        every = [judging.Run("1"), judging.Run("2"), judging.Run("4")]
        self.assertEqual(judging.runs_for(m), every)
        self.assertEqual(judging.runs_for(m, "Cpu.SweepIsLexicographic"), [judging.Run("1")])
        self.assertEqual(judging.runs_for(m, "Hidden.Fit"), [judging.Run("1")])
        # A glob names a suite exactly: GpuMpi is not Gpu, CpuX is not Cpu.
        for test in ("Mpi.StripsAreBitwiseEqual", "CpuX.Y", "Hidden.FitMore"):
            self.assertEqual(judging.runs_for(m, test), every, test)

    def test_a_judge_run_reads_as_one_progress_line(self):
        run = {"binary": "tests", "ranks": 4, "tests": 12, "seconds": 3.31, "judged_alone": 0, "alone_seconds": 0.0}
        self.assertEqual(judging.run_text(run), "judged 12 visible tests on 4 ranks in 3.3 s")
        run.update(ranks=1, judged_alone=2, alone_seconds=7.0)
        self.assertEqual(judging.run_text(run), "judged 12 visible tests on 1 rank in 3.3 s, then 2 again alone in 7.0 s")

    def test_a_lab_without_mpi_runs_every_test_once(self):
        self.assertEqual(judging.runs_for({"mpi_ranks": []}, "Cpu.X"), [judging.Run()])
        lab_manifest = sys.modules["lab_manifest"]  # the package hpcgrade.manifest imports
        with tempfile.TemporaryDirectory() as tree:
            shutil.copytree(os.path.join(ROOT, "labs", "01-sorting"), os.path.join(tree, "labs", "01-sorting"))
            path = os.path.join(tree, "labs", "01-sorting", "lab.json")
            with open(path) as f:
                data = json.load(f)
            data["one_rank_tests"] = ["Sorting.*"]
            with open(path, "w") as f:
                json.dump(data, f)
            with self.assertRaisesRegex(lab_manifest.ManifestError, "one_rank_tests needs mpi_ranks"):
                lab_manifest.load(tree, "01-sorting")

    def test_every_pattern_names_a_test_of_its_lab(self):
        import fnmatch
        for lab in manifest.list_labs(ROOT):
            m = manifest.load(ROOT, lab)
            keys = [k for kind in ("visible", "hidden") for k in m["tests"][kind]["points"]]
            for pattern in m.get("one_rank_tests", []):
                self.assertTrue(any(fnmatch.fnmatchcase(k, pattern) for k in keys),
                                "%s: one_rank_tests %r names no test" % (lab, pattern))

    def test_lab_11s_serial_and_one_gpu_tests_are_named(self):
        m = manifest.load(ROOT, "11-multigpu-sor")
        one = [t for kind in ("visible", "hidden") for t in m["tests"][kind]["points"]
               if len(judging.runs_for(m, t)) == 1]
        self.assertIn("Cpu.SorSweepIsLexicographic", one)
        self.assertIn("Gpu.NaturalLayoutMatchesCpuBitwise", one)
        self.assertNotIn("GpuMpi.PeerExchangeMatchesSerialBitwise", one)
        self.assertNotIn("Hidden.TinyGridsAndOneRowStrips", one)


class RecordTogetherTest(unittest.TestCase):
    """Which tests share a recording process, and what each gets of it."""

    def test_one_rank_runs_share_processes_when_told(self):
        one, four = judging.Run("1"), judging.Run("4")
        jobs = [("t%d" % i, one) for i in range(46)] + [("m", four)]
        self.assertEqual(pipeline.record_units(jobs, 16, 1), jobs)  # one a process
        units = pipeline.record_units(jobs, 16, 8)
        recorded = [t for u in units for t in (u[0] if isinstance(u[0], list) else [u[0]])]
        self.assertEqual(sorted(recorded), sorted(t for t, _ in jobs))  # each test once
        self.assertEqual(max(len(u[0]) for u in units if isinstance(u[0], list)), 3)  # 46 over 16 workers
        self.assertIn(("m", four), units)  # a 4-rank run stays alone
        wide = pipeline.record_units(jobs, 2, 8)
        self.assertEqual(max(len(u[0]) for u in wide if isinstance(u[0], list)), 8)
        jobs = [("t%d" % i, judging.Run()) for i in range(10)]
        self.assertEqual([len(u[0]) for u in pipeline.record_units(jobs, 2, 4)], [4, 4, 2])

    def test_cuda_labs_share_by_default_cpu_labs_do_not(self):
        with unittest.mock.patch.dict(os.environ, {"HPCGRADE_RECORD_TOGETHER": ""}):
            self.assertEqual(pipeline.record_together(["cuda", "mpi"]), pipeline.RECORD_TOGETHER_CUDA)
            self.assertEqual(pipeline.record_together(["mpi", "tbb"]), 1)
        self.assertGreater(pipeline.RECORD_TOGETHER_CUDA, 1)
        with unittest.mock.patch.dict(os.environ, {"HPCGRADE_RECORD_TOGETHER": "1"}):
            self.assertEqual(pipeline.record_together(["cuda"]), 1)  # the setting wins

    def test_the_setting_is_a_whole_number_above_0_checked_before_a_grade(self):
        from hpcgrade import cli
        with unittest.mock.patch.dict(os.environ, {"HPCGRADE_RECORD_TOGETHER": ""}):
            self.assertEqual(pipeline.record_together(), pipeline.RECORD_TOGETHER)
        with unittest.mock.patch.dict(os.environ, {"HPCGRADE_RECORD_TOGETHER": " 8 "}):
            self.assertEqual(pipeline.record_together(), 8)
        for bad in ("0", "-1", "x", "2.5", "\u00b2", "1e3"):
            with unittest.mock.patch.dict(os.environ, {"HPCGRADE_RECORD_TOGETHER": bad}):
                with self.assertRaisesRegex(ValueError, "HPCGRADE_RECORD_TOGETHER=.*whole number above 0"):
                    pipeline.record_together()
                with self.assertRaisesRegex(inputs.UsageError, "HPCGRADE_RECORD_TOGETHER"):
                    cli.check_settings()

    def test_each_test_gets_its_own_lines(self):
        text = ("noise\n[ RUN      ] A.x\nout of A\n[       OK ] A.x (1 ms)\nbetween\n"
                "[ RUN      ] B.y\n[  FAILED  ] B.y (2 ms)\n[ RUN      ] A.x\nforged\n"
                "[ RUN      ] D.w\ncut short\n[==========] 3 tests ran.\n 1 FAILED TEST\n")
        parts = judging.output_by_test(text, ["A.x", "B.y", "C.z", "D.w"])
        self.assertEqual(parts["A.x"], "[ RUN      ] A.x\nout of A\n[       OK ] A.x (1 ms)\n")
        self.assertEqual(parts["B.y"], "[ RUN      ] B.y\n[  FAILED  ] B.y (2 ms)\n")
        self.assertEqual(parts["D.w"], "[ RUN      ] D.w\ncut short\n[==========] 3 tests ran.\n 1 FAILED TEST\n")
        self.assertNotIn("C.z", parts)
        self.assertEqual(judging.output_by_test("", ["A.x"]), {})

    def test_a_record_ends_a_test_only_with_its_end_tag(self):
        with tempfile.TemporaryDirectory() as d:
            def record(name, data):
                p = os.path.join(d, name)
                with open(p, "wb") as f:
                    f.write(data)
                return p
            self.assertTrue(judging.ends_a_test(record("ok", b"HEADER" + b"E" + b"\0" * 8)))
            self.assertFalse(judging.ends_a_test(record("cut", b"HEADER" + b"E" + b"\0" * 7)))
            self.assertFalse(judging.ends_a_test(record("empty", b"")))
            self.assertFalse(judging.ends_a_test(os.path.join(d, "missing")))
            os.symlink(record("target", b"E" + b"\0" * 8), os.path.join(d, "link"))
            self.assertFalse(judging.ends_a_test(os.path.join(d, "link")))
            os.mkfifo(os.path.join(d, "fifo"))
            self.assertFalse(judging.ends_a_test(os.path.join(d, "fifo")))


class CoreTokensTest(unittest.TestCase):
    """A grade's record runs share its --jobs cores by MPI rank count."""

    def test_runs_never_hold_more_cores_than_the_grade_has(self):
        import concurrent.futures
        import threading
        cores = judging.CoreTokens(4)
        lock = threading.Lock()
        in_use, peak = [0], [0]

        def run(ranks):
            with cores.held(ranks) as n:
                with lock:
                    in_use[0] += n
                    peak[0] = max(peak[0], in_use[0])
                time.sleep(0.01)
                with lock:
                    in_use[0] -= n
            return n

        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            held = list(pool.map(run, [1, 2, 3, 4, 4, 1, 2, 3] * 3))
        self.assertEqual(peak[0], 4)
        self.assertEqual(in_use[0], 0)
        self.assertEqual(held[:4], [1, 2, 3, 4])

    def test_a_run_wider_than_the_grade_still_runs(self):
        cores = judging.CoreTokens(2)
        with cores.held(4) as n:
            self.assertEqual(n, 2)
        with cores.held(0) as n:
            self.assertEqual(n, 1)
        self.assertEqual(cores.free, 2)

    def test_record_and_judge_runs_yield_idle_cores(self):
        class Ctx:
            seed = 7
        env = judging.Judging.env(type("J", (), {"ctx": Ctx()})(), {"X": "1"})
        self.assertEqual(env["OMPI_MCA_mpi_yield_when_idle"], "1")
        self.assertEqual(env["X"], "1")


class SanitizerTest(unittest.TestCase):
    """compute-sanitizer, faked: a script on PATH that either runs the tests
    or reports an error like the real tool; the verdicts of the tests come
    from the judge (given here)."""

    FAKE_TOOL = """#!/bin/sh
# fake compute-sanitizer: --tool T --error-exitcode N BINARY ARGS...
shift 2; shift; code=$1; shift
if [ -e "$(dirname "$0")/errors" ]; then
  echo "========= COMPUTE-SANITIZER"
  echo "========= Invalid __global__ read of size 4 bytes"
  echo "=========     at kernel_sum+0x90 in sum.cu:12"
  echo "========= ERROR SUMMARY: 1 error"
  exit $code
fi
exec "$@"
"""

    class Ctx:
        pass

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        os.chmod(self.tmp, 0o755)
        self.tools = os.path.join(self.tmp, "tools")
        os.makedirs(self.tools)
        ws = workspace.Workspace(os.path.join(self.tmp, "ws"), "09-fake")
        for d in (ws.runs, os.path.join(ws.build, "labs")):
            os.makedirs(d)
        for path, text in ((os.path.join(self.tools, "compute-sanitizer"), self.FAKE_TOOL),
                           (ws.binary("-tests"), "#!/bin/sh\nexit 0\n")):
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, 0o755)
        for base, dirs, files in os.walk(self.tmp):
            for d in dirs:
                os.chmod(os.path.join(base, d), 0o755)
        self.env = dict(os.environ)
        os.environ["PATH"] = self.tools + ":" + os.environ["PATH"]
        self.ctx = self.Ctx()
        self.ctx.gpu, self.ctx.ws, self.ctx.seed = True, ws, 1
        self.ctx.sandbox = sb_mod.Sandbox(use_bwrap=False)
        ws.sandbox = self.ctx.sandbox
        self.ctx.opts, self.ctx.deadline = pipeline.Options(), pipeline.Deadline(60)
        self.passed = {"Gpu.Sum": judging.Verdict(judging.PASSED, "passed")}

    def tearDown(self):
        os.environ.clear()
        os.environ.update(self.env)
        shutil.rmtree(self.tmp)

    def grade(self, judged=None):
        item = score.Item("compute-sanitizer (memcheck, racecheck)", 3, score.SANITIZER)
        cfg = {"tools": ["memcheck", "racecheck"], "points": 3, "gtest_filter": "Gpu.*"}
        sanitize.run(self.ctx, cfg, item, judged or self.passed)
        return item

    def test_clean(self):
        item = self.grade()
        self.assertEqual((item.score, item.status), (3, "passed"), item.output)

    def test_errors_cost_the_points_and_show_the_first(self):
        open(os.path.join(self.tools, "errors"), "w").close()
        item = self.grade()
        self.assertEqual(item.score, 0)
        self.assertIn("Invalid __global__ read of size 4 bytes", item.output)
        self.assertIn("memcheck", item.output)

    def test_the_tests_must_pass_the_judge_first(self):
        item = self.grade({"Gpu.Sum": judging.Verdict(judging.FAILED, "failed: wrong sum")})
        self.assertEqual(item.score, 0)
        self.assertIn("must pass first", item.output)

    def test_without_a_gpu(self):
        self.ctx.gpu = False
        item = self.grade()
        self.assertEqual((item.score, item.outcome), (0, "needs_gpu"))
        self.assertIn("needs a GPU", item.output)


class SanitizeScriptTest(unittest.TestCase):
    """tools/sanitize.sh is the one compute-sanitizer script of every CUDA
    lab: no lab keeps a copy, every handout command names it, and for every
    CUDA lab it runs the tools and filter of that lab's lab.json "sanitizer"
    entry (the grader's) on the lab's test binary. compute-sanitizer and
    nvidia-smi are faked on PATH: this host needs no GPU."""

    FAKE_TOOL = """#!/bin/sh
# fake compute-sanitizer: log the arguments; report an error where asked
echo "$*" >> "$(dirname "$0")/calls"
[ -e "$(dirname "$0")/errors" ] && exit 99
exit 0
"""
    SCRIPT = os.path.join(ROOT, "tools", "sanitize.sh")

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.bin = os.path.join(self.tmp, "bin")
        os.makedirs(self.bin)
        for name, text in (("compute-sanitizer", self.FAKE_TOOL), ("nvidia-smi", "#!/bin/sh\nexit 0\n")):
            with open(os.path.join(self.bin, name), "w") as f:
                f.write(text)
            os.chmod(os.path.join(self.bin, name), 0o755)
        self.env = dict(os.environ, PATH=self.bin + ":" + os.environ["PATH"])
        self.cuda_labs = [lab for lab in manifest.list_labs(ROOT) if "cuda" in manifest.load(ROOT, lab)["needs"]]

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def sanitize(self, *args):
        return subprocess.run(["bash", self.SCRIPT] + list(args), env=self.env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, universal_newlines=True, timeout=60)

    def test_every_cuda_lab_runs_its_lab_json_entry(self):
        self.assertGreater(len(self.cuda_labs), 0)
        build_dir = os.path.join(self.tmp, "build")
        os.makedirs(os.path.join(build_dir, "labs"))
        calls = os.path.join(self.bin, "calls")
        for lab in self.cuda_labs:
            with self.subTest(lab=lab):
                self.assertFalse(os.path.exists(os.path.join(ROOT, "labs", lab, "sanitize.sh")),
                                 "a copy of tools/sanitize.sh in labs/%s" % lab)
                san = manifest.load(ROOT, lab).get("sanitizer")
                self.assertTrue(san, "labs/%s/lab.json has no sanitizer entry" % lab)
                binary = os.path.join(build_dir, "labs", lab + "-tests")
                with open(binary, "w") as f:
                    f.write("#!/bin/sh\nexit 0\n")
                os.chmod(binary, 0o755)
                if os.path.exists(calls):
                    os.remove(calls)
                p = self.sanitize(lab.split("-")[0], build_dir, "student")
                self.assertEqual(p.returncode, 0, p.stdout)
                with open(calls) as f:
                    ran = f.read().splitlines()
                self.assertEqual([c.split()[1] for c in ran], san["tools"], p.stdout)
                for c in ran:
                    self.assertIn("%s --gtest_filter=%s" % (binary, san["gtest_filter"]), c)
        open(os.path.join(self.bin, "errors"), "w").close()
        p = self.sanitize(self.cuda_labs[0], build_dir, "student")
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn("FAILED", p.stdout)

    def test_handouts_name_the_one_script(self):
        for lab in manifest.list_labs(ROOT):
            with open(manifest.lab_paths(ROOT, lab).handout, encoding="utf-8") as f:
                for line in f:
                    if "sanitize.sh " not in line or not line.lstrip().startswith(("tools/", "labs/")):
                        continue
                    with self.subTest(lab=lab, line=line.strip()):
                        self.assertTrue(line.startswith("tools/sanitize.sh "), line)
                        self.assertIn(lab, self.cuda_labs)
                        self.assertEqual(manifest.resolve_lab(ROOT, line.split()[1]), lab, line)

    def test_refusals(self):
        for args, why in ((("01-sorting",), 'no "sanitizer" entry'), (("99",), "unknown lab"),
                          (("06", self.tmp, "bogus"), "must be 'solution' or 'student'"),
                          (("06", self.tmp), "no test binary")):
            p = self.sanitize(*args)
            self.assertEqual(p.returncode, 2, (args, p.stdout))
            self.assertIn(why, p.stdout)


class ReleaseLeakTest(unittest.TestCase):
    def test_secret_lines(self):
        skeleton = "int f() {\n    // TODO(student)\n    throw 1;\n}\n"
        solution = ("int f() {\n    for (int i = 0; i < n; ++i) {\n    const int total = compute_the_answer(42);\n"
                    "    const int doubled = twice_the_value(total, n);\n    return finish_the_job(doubled) + 1;\n}\n")
        lines = release.secret_lines(solution, skeleton)
        self.assertEqual(lines, ["const int total = compute_the_answer(42);",
                                 "const int doubled = twice_the_value(total, n);",
                                 "return finish_the_job(doubled) + 1;"])
        secrets = {"sol/a.cpp": lines}
        pasted = ("x = 1;\n  const int total =   compute_the_answer(42);\n// const int doubled = twice_the_value(total, n);\n"
                  "    return finish_the_job(doubled) + 1;\n")
        self.assertEqual(release.find_leaks({"a.md": pasted}, secrets), [("a.md", "sol/a.cpp", lines)])
        self.assertEqual(release.find_leaks({"b.cpp": "const int total = compute_the_answer(42);\n"}, secrets,
                                            min_lines=3), [])

    def test_plain_declarations_are_not_secret(self):
        # Names bound to 0, a constant, a name or a one-argument call: what
        # any code using the same interface writes (lab 11's test opens its
        # communicator as the student's make_strip_comm does).
        generic = ["MPI_Comm cart = MPI_COMM_NULL;", "int up = MPI_PROC_NULL, down = MPI_PROC_NULL;",
                   "const int rank = hpclab::mpi::rank(cart);", "const std::size_t m = k.size();",
                   "std::uint64_t level_count = 0;", "BitSegments::Segment& seg = segments.load(0);",
                   "constexpr int BM = kFinalBM, BN = kFinalBN;", "void* output_pointer = nullptr;"]
        # What computes stays: operators, several inputs, an expression as
        # the argument, a number other than 0, an assignment to a member.
        computing = ["const double w = weight_of(x, y);", "const std::size_t count = std::min(chunk, k.m - start);",
                     "const double mean_value = sum / count;", "const double w = weight_of(x + 1);",
                     "constexpr int kBM = 128, kBN = 256;", "const QuadDouble half = make_qd(0.5);",
                     "d.cc_major = attr(cudaDevAttrComputeCapabilityMajor);", "r += k.rMu[j] * c - k.iMu[j] * s;",
                     "std::vector<int> counts = histogram(v)(bins);"]
        self.assertEqual(release.secret_lines("\n".join(generic + computing), ""), computing)

if __name__ == "__main__":
    unittest.main()


class MutantPatchTest(unittest.TestCase):
    """Mutants are patches against the solution: they apply, or fail loudly."""

    def test_every_mutant_applies_to_its_solution(self):
        from hpcgrade import selfcheck
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        for lab in manifest.list_labs(root):
            for m in selfcheck.mutant_dirs(root, lab):
                with tempfile.TemporaryDirectory() as tmp:
                    d = selfcheck.overlay(root, lab, m, tmp)
                    changed = [f for f in manifest.load(root, lab)["student_files"]
                               if open(os.path.join(d, f), "rb").read()
                               != open(os.path.join(manifest.lab_paths(root, lab).solution_dir, f), "rb").read()]
                    self.assertTrue(changed, "%s changes nothing" % m)

    def test_every_fixture_applies_and_plants_something(self):
        for name in sorted(os.listdir(helpers.FIXTURES + "/01-sorting")):
            with tempfile.TemporaryDirectory() as tmp:
                d = helpers.fixture_copy("01-sorting", name, tmp)
                paths = manifest.lab_paths(ROOT, "01-sorting")
                starter = helpers.fixture_base("01-sorting", name) == "starter"
                base = paths.student_dir if starter else paths.solution_dir
                changed = [f for f in ("sorting.cpp", "merge_sort.hpp")
                           if open(os.path.join(d, f), "rb").read() != open(os.path.join(base, f), "rb").read()]
                self.assertEqual(bool(changed), name not in ("solution", "starter"), name)

    def test_a_stale_patch_is_an_error(self):
        from hpcgrade import selfcheck
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        with tempfile.TemporaryDirectory() as tmp:
            mutant = os.path.join(tmp, "stale")
            os.makedirs(mutant)
            with open(os.path.join(mutant, "mutant.patch"), "w") as f:
                f.write("--- a/sorting.cpp\n+++ b/sorting.cpp\n@@ -1,1 +1,1 @@\n-no such line\n+x\n")
            with self.assertRaises(selfcheck.StaleMutant):
                selfcheck.overlay(root, "01-sorting", mutant, os.path.join(tmp, "out"))

    def test_cases_pick_the_solution_the_starter_and_mutants_by_pattern(self):
        from hpcgrade import selfcheck
        self.assertTrue(selfcheck.wanted(None, "omega-capped"))
        self.assertTrue(selfcheck.wanted(["solution", "peer-*"], "peer-no-wait"))
        self.assertTrue(selfcheck.wanted(["solution", "peer-*"], "solution"))
        self.assertFalse(selfcheck.wanted(["solution", "peer-*"], "starter"))
        self.assertFalse(selfcheck.wanted(["peer-*"], "halo-peer-x"))
        out = subprocess.run([sys.executable, os.path.join(ROOT, "grading", "selfcheck"), "01", "--cases", "nothing-*"],
                             capture_output=True, text=True)
        self.assertEqual(out.returncode, 2)
        self.assertIn("--cases nothing-* names no case of 01-sorting", out.stderr)
        self.assertEqual(out.stdout, "")

    def test_first_tests_are_judged_first_and_name_tests_of_their_lab(self):
        import fnmatch
        from hpcgrade import selfcheck

        class Item:
            def __init__(self, test):
                self.test = test

        items = [Item(t) for t in ("Cpu.A", "Mpi.B", "GpuMpi.PeerX", "Gpu.C", "Hidden.GpuPeerY")]
        order = [it.test for it in pipeline.first_tests_first(items, ["GpuMpi.Peer*", "Hidden.GpuPeerY"])]
        self.assertEqual(order, ["GpuMpi.PeerX", "Hidden.GpuPeerY", "Cpu.A", "Mpi.B", "Gpu.C"])
        self.assertEqual([it.test for it in pipeline.first_tests_first(items, [])],
                         [it.test for it in items])
        with tempfile.TemporaryDirectory() as tmp:
            self.assertEqual(selfcheck.first_tests(tmp), [])
            for bad in ('{"first_tests": "Cpu.A"}', '{"first_tests": [""]}', '{"first_tests": [3]}'):
                with open(os.path.join(tmp, "mutant.json"), "w") as f:
                    f.write(bad)
                with self.assertRaises(selfcheck.StaleMutant):
                    selfcheck.first_tests(tmp)
        # Every pattern a mutant names matches a test of its lab: a renamed
        # test must not leave a mutant judged in the old, slow order.
        named = 0
        for lab in manifest.list_labs(ROOT):
            m = manifest.load(ROOT, lab)
            keys = [k for kind in ("visible", "hidden") for k in m["tests"][kind]["points"]]
            for d in selfcheck.mutant_dirs(ROOT, lab):
                for pattern in selfcheck.first_tests(d):
                    named += 1
                    self.assertTrue(any(fnmatch.fnmatchcase(k, pattern) for k in keys),
                                    "%s: first_tests %r names no test" % (d, pattern))
        self.assertGreater(named, 0)

    def test_a_mutant_that_needs_several_gpus_says_so(self):
        from hpcgrade import selfcheck
        with tempfile.TemporaryDirectory() as tmp:
            self.assertEqual(selfcheck.min_gpus(tmp), 0)
            with open(os.path.join(tmp, "mutant.json"), "w") as f:
                f.write('{"min_gpus": 2}')
            self.assertEqual(selfcheck.min_gpus(tmp), 2)
            for bad in ('{"min_gpus": "2"}', '{"min_gpus": -1}', '{"min_gpus": true}'):
                with open(os.path.join(tmp, "mutant.json"), "w") as f:
                    f.write(bad)
                with self.assertRaises(selfcheck.StaleMutant):
                    selfcheck.min_gpus(tmp)


    def test_what_must_catch_a_mutant(self):
        from hpcgrade import selfcheck
        with tempfile.TemporaryDirectory() as tmp:
            self.assertEqual(selfcheck.caught_by(tmp), "tests")
            for by in ("tests", "performance", "sanitizer"):
                with open(os.path.join(tmp, "mutant.json"), "w") as f:
                    f.write('{"caught_by": "%s"}' % by)
                self.assertEqual(selfcheck.caught_by(tmp), by)
            for bad in ('{"caught_by": "timing"}', '{"caught_by": 1}', '[1]', '{'):
                with open(os.path.join(tmp, "mutant.json"), "w") as f:
                    f.write(bad)
                with self.assertRaises(selfcheck.StaleMutant):
                    selfcheck.caught_by(tmp)

    def test_a_mutant_is_caught_only_by_what_it_declares(self):
        from hpcgrade import selfcheck

        def grade(visible, perf, sanitizer):
            items = [("t", visible, score.VISIBLE), ("perf", perf, score.PERFORMANCE),
                     ("san", sanitizer, score.SANITIZER)]
            return {"tests": [{"name": n, "score": v, "max_score": 4} for n, v, _ in items],
                    "extra_data": {"kinds": {n: k for n, _, k in items},
                                   "outcomes": {n: "passed" if v == 4 else "failed" for n, v, _ in items}}}

        slow, racy, wrong = grade(4, 1, 4), grade(4, 4, 0), grade(0, 4, 4)
        self.assertEqual(selfcheck.judge_mutant(slow)[0], False, "timing is not a test")
        self.assertEqual(selfcheck.judge_mutant(slow, "performance"),
                         (True, "caught by the performance item: perf 1/4"))
        self.assertFalse(selfcheck.judge_mutant(slow, "sanitizer")[0])
        self.assertTrue(selfcheck.judge_mutant(racy, "sanitizer")[0])
        self.assertFalse(selfcheck.judge_mutant(racy, "performance")[0])
        for by in ("tests", "performance", "sanitizer"):
            self.assertTrue(selfcheck.judge_mutant(wrong, by)[0], "a lost test always counts")
        # A mutant that does not compile loses every test, and is not caught.
        broken = grade(0, 0, 0)
        broken["extra_data"]["compile_failed"] = True
        broken["output"] = "compile error: 0 for every test. The compiler's first errors:\n\na.cpp:3: error: x\n"
        self.assertEqual(selfcheck.judge_mutant(broken),
                         (False, "NOT a check of the tests: the mutant does not compile (a.cpp:3: error: x)"))
        # The declared step on, the others as for any mutant (off).
        opts = pipeline.Options(perf=False)
        opts.sanitize = False
        self.assertIs(selfcheck.mutant_opts_for(opts, "tests"), opts)
        o = selfcheck.mutant_opts_for(opts, "sanitizer")
        self.assertEqual((o.perf, o.sanitize, opts.sanitize), (False, True, False))

    def test_a_solution_that_loses_points_says_why(self):
        from hpcgrade import selfcheck
        data = {"tests": [{"name": "a", "score": 2, "max_score": 2, "output": "passed"},
                          {"name": "b", "score": 0, "max_score": 2, "output": "\n  failed: timed out after 20 s\nmore"},
                          {"name": "c", "score": 0, "max_score": 1, "output": ""}],
                "extra_data": {"kinds": {"a": score.VISIBLE, "b": score.HIDDEN, "c": score.VISIBLE},
                               "outcomes": {"a": "passed", "b": "failed", "c": "failed"}}}
        self.assertEqual(selfcheck.judge_solution(data),
                         (False, "lost points: b, c (first: failed: timed out after 20 s)"))
        data["tests"] = data["tests"][2:]
        self.assertEqual(selfcheck.judge_solution(data), (False, "lost points: c (first: no output)"))


class GpusInTheSandbox(unittest.TestCase):
    """A grade on a host of N GPUs gives its tests all N (lab 09's and 11's
    multi-GPU tests rely on it): the sandbox binds every /dev/nvidia* node."""

    def test_gpu_count_can_be_forced(self):
        old = os.environ.get("HPCGRADE_GPUS")
        try:
            os.environ["HPCGRADE_GPUS"] = "3"
            from hpcgrade import host
            self.assertEqual(host.gpu_count(), 3)
        finally:
            if old is None:
                del os.environ["HPCGRADE_GPUS"]
            else:
                os.environ["HPCGRADE_GPUS"] = old

    def test_every_gpu_of_the_host_is_seen_inside(self):
        from hpcgrade import host
        n = host.gpu_count()
        if n == 0:
            self.skipTest("no GPU on this host")
        # The driver API's own count, from inside the sandbox, as the tests see it.
        probe = ("import ctypes; c = ctypes.CDLL('libcuda.so.1'); n = ctypes.c_int(0); "
                 "assert c.cuInit(0) == 0; assert c.cuDeviceGetCount(ctypes.byref(n)) == 0; print(n.value)")
        # The default cwd ("/"): under bwrap, /tmp inside is a fresh tmpfs.
        r = sb_mod.Sandbox(hide=[ROOT]).execute(["/usr/bin/python3", "-c", probe], sb_mod.Limits(wall_s=60))
        out = r.output
        self.assertEqual(out.strip().splitlines()[-1:], [str(n)], out)


@unittest.skipIf(shutil.which("clang-format") is None, "clang-format is not installed")
class FormatCheckTest(unittest.TestCase):
    """tools/format.py --check: one clang-format run names exactly the files that differ."""

    def test_names_only_the_unformatted_file(self):
        with tempfile.TemporaryDirectory() as tree:
            os.makedirs(os.path.join(tree, "tools"))
            os.makedirs(os.path.join(tree, "labs", "99-x"))
            shutil.copy(os.path.join(ROOT, "tools", "format.py"), os.path.join(tree, "tools"))
            shutil.copytree(os.path.join(ROOT, "labs", "lab_manifest"), os.path.join(tree, "labs", "lab_manifest"),
                            ignore=shutil.ignore_patterns("__pycache__"))  # the layout
            shutil.copy(os.path.join(ROOT, ".clang-format"), tree)
            for name, text in (("good.cpp", "int main() { return 0; }\n"), ("bad.cpp", "int  main( ){return 0;}\n")):
                with open(os.path.join(tree, "labs", "99-x", name), "w") as f:
                    f.write(text)
            run = subprocess.run([sys.executable, os.path.join(tree, "tools", "format.py"), "--check"],
                                 capture_output=True, text=True)
            self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
            self.assertIn("not formatted: labs/99-x/bad.cpp", run.stdout)
            self.assertNotIn("good.cpp", run.stdout)
            self.assertIn("1 of 2 files", run.stdout)
            bad = subprocess.run([sys.executable, os.path.join(tree, "tools", "format.py"), "--chek"],
                                 capture_output=True, text=True)
            self.assertEqual(bad.returncode, 2)
            self.assertEqual(len(bad.stderr.strip().splitlines()), 1, bad.stderr)
            self.assertIn("--chek", bad.stderr)


class PythonLintTest(unittest.TestCase):
    """tools/lint_python.py: pyflakes over every Python file and script of a tree, build trees left out."""

    def run_lint(self, tree, path=None):
        env = dict(os.environ, PATH=path if path is not None else os.environ.get("PATH", ""))
        return subprocess.run([sys.executable, os.path.join(tree, "tools", "lint_python.py")],
                              capture_output=True, text=True, env=env)

    def test_finds_what_pyflakes_finds_and_skips_without_it(self):
        if not shutil.which("pyflakes3"):
            self.skipTest("pyflakes3 is not installed")
        with tempfile.TemporaryDirectory() as tree:
            for d in ("tools", "grading", "build-x"):
                os.makedirs(os.path.join(tree, d))
            shutil.copy(os.path.join(ROOT, "tools", "lint_python.py"), os.path.join(tree, "tools"))
            files = {"grading/clean.py": "import os\nprint(os.sep)\n",
                     "grading/script": "#!/usr/bin/env python3\nimport sys\n",  # a script without .py
                     "grading/notes": "import sys\n",  # no shebang: not Python
                     "build-x/made.py": "import sys\n"}  # a build tree: not ours
            for name, text in files.items():
                with open(os.path.join(tree, name), "w") as f:
                    f.write(text)
            r = self.run_lint(tree)
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            self.assertEqual(r.stdout.strip().splitlines(), ["grading/script:2:1: 'sys' imported but unused"])
            os.remove(os.path.join(tree, "grading", "script"))
            r = self.run_lint(tree)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("2 Python files", r.stdout)
            r = self.run_lint(tree, path=os.path.join(tree, "nowhere"))
            self.assertEqual(r.returncode, 77, r.stdout + r.stderr)


class CompileCostTest(unittest.TestCase):
    def test_only_the_command_line_layer_includes_cli11(self):
        # The packaged CLI11 is header-only: 10-14 s of compile time in every
        # file that includes it (hpclab/cli.hpp says why it stays in cli.cpp).
        import importlib.util
        import re
        # The C++ files are tools/format.py's: one list of where C++ lives.
        spec = importlib.util.spec_from_file_location("format_tool", os.path.join(ROOT, "tools", "format.py"))
        format_tool = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(format_tool)
        allowed = {os.path.join("common", "src", "cli.cpp")}
        include = re.compile(r'^\s*#\s*include\s*[<"]CLI/', re.MULTILINE)
        found = []
        for path in format_tool.cxx_files():
            with open(path, encoding="utf-8", errors="replace") as f:
                if include.search(f.read()):
                    found.append(os.path.relpath(path, ROOT))
        self.assertIn(next(iter(allowed)), found, "the test no longer sees cli.cpp's include")
        self.assertEqual(sorted(set(found) - allowed), [])
