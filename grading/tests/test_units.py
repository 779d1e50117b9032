"""Fast tests of the grader's pieces: no lab is built."""
import json
import os
import shutil
import stat
import sys
import tempfile
import time
import unittest

import helpers  # noqa: F401  (puts grading/ on sys.path)
from hpcgrade import build, cli, manifest, perf, release, report, run, scan, score, workspace
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


class JudgeTest(unittest.TestCase):
    NAME = "Lab01/EverySorter.Random/qsort"

    def ok_report(self):
        return gtest_report([("Lab01/EverySorter", "Random/qsort", "RUN", "COMPLETED", [])])

    def test_pass_needs_every_check(self):
        self.assertEqual(run.judge(self.NAME, outcome(), self.ok_report(), False).status, run.PASSED)

    def test_premature_exit_file_left_means_failed(self):
        v = run.judge(self.NAME, outcome(0), self.ok_report(), True)
        self.assertEqual(v.status, run.FAILED)
        self.assertIn("exited before the test finished", v.reason)

    def test_missing_report_means_failed(self):
        v = run.judge(self.NAME, outcome(0), None, False)
        self.assertEqual(v.status, run.FAILED)
        self.assertIn("no test report", v.reason)

    def test_report_naming_other_tests_is_not_trusted(self):
        text = gtest_report([("Lab01/EverySorter", "Random/qsort", "RUN", "COMPLETED", []),
                             ("Other", "Forged", "RUN", "COMPLETED", [])])
        v = run.judge(self.NAME, outcome(), text, False)
        self.assertEqual(v.status, run.FAILED)
        self.assertIn("other tests", v.reason)

    def test_report_without_the_test(self):
        text = gtest_report([("Other", "Test", "RUN", "COMPLETED", [])])
        self.assertIn("no test named", run.judge(self.NAME, outcome(), text, False).reason)

    def test_garbage_report(self):
        self.assertIn("not valid", run.judge(self.NAME, outcome(), "{[ passed", False).reason)
        self.assertIn("not valid", run.judge(self.NAME, outcome(), '{"testsuites": 3}', False).reason)

    def test_nonzero_exit_after_a_passing_report(self):
        v = run.judge(self.NAME, outcome(3), self.ok_report(), False)
        self.assertEqual(v.status, run.FAILED)
        self.assertIn("exited with code 3", v.reason)

    def test_signal_timeout_and_lost_monitor_in_plain_words(self):
        self.assertIn("crashed with SIGSEGV", run.judge(self.NAME, outcome(sig=11), None, False).reason)
        self.assertIn("timed out after 20 s", run.judge(self.NAME, outcome(timed_out=True), None, False).reason)
        self.assertIn("monitor", run.judge(self.NAME, outcome(lost=True), self.ok_report(), False).reason)

    def test_not_implemented(self):
        text = gtest_report([("Lab01/EverySorter", "Random/qsort", "RUN", "COMPLETED",
                              ["C++ exception with description \"not implemented: qsort_doubles (look for "
                               "TODO(student))\" thrown in the test body."])])
        v = run.judge(self.NAME, outcome(1), text, False)
        self.assertEqual(v.reason, "not implemented (qsort_doubles)")

    def test_gpu_skip(self):
        text = json.dumps({"testsuites": [{"name": "Gpu", "testsuite": [
            {"name": "Kernel", "classname": "Gpu", "status": "RUN", "result": "SKIPPED",
             "failures": [{"failure": "x.cpp:3\nSkipped\nneeds a GPU: no CUDA device", "type": ""}]}]}]})
        v = run.judge("Gpu.Kernel", outcome(0), text, False)
        self.assertEqual(v.status, run.SKIPPED)
        self.assertTrue(v.needs_gpu)

    def test_not_run_status(self):
        text = gtest_report([("Lab01/EverySorter", "Random/qsort", "NOTRUN", "SUPPRESSED", [])])
        self.assertEqual(run.judge(self.NAME, outcome(), text, False).status, run.FAILED)


class ScoreAndPerfTest(unittest.TestCase):
    def test_ratio_points(self):
        self.assertEqual(score.ratio_points(1.0, 5, 0.8, 0.4), 5)
        self.assertEqual(score.ratio_points(0.8, 5, 0.8, 0.4), 5)
        self.assertAlmostEqual(score.ratio_points(0.6, 5, 0.8, 0.4), 2.5)
        self.assertEqual(score.ratio_points(0.4, 5, 0.8, 0.4), 0)
        self.assertEqual(score.ratio_points(None, 5, 0.8, 0.4), 0)
        self.assertEqual(score.ratio_points(float("nan"), 5, 0.8, 0.4), 0)

    def test_rubric_is_the_manifest(self):
        m = manifest.load(ROOT, "01-sorting")
        items = score.rubric(m)
        self.assertEqual(len(items), len(m["tests"]["visible"]["points"]) + len(m["tests"]["hidden"]["points"]))
        self.assertTrue(all(i.name.startswith("hidden: ") for i in items if i.kind == score.HIDDEN))

    def test_with_reps(self):
        self.assertEqual(perf.with_reps(["--n", "5", "--reps", "3", "--json"], 4), ["--n", "5", "--reps", "4", "--json"])
        self.assertEqual(perf.with_reps(["--reps=3"], 1), ["--reps=1"])
        self.assertEqual(perf.with_reps(["--n", "5"], 2), ["--n", "5", "--reps", "2"])

    def test_per_rep_uses_best_walls(self):
        self.assertAlmostEqual(perf.per_rep({1: [2.0, 1.5], 4: [5.0, 4.5]}, 1, 4), 1.0)

    def test_anchor_share_from_the_reference_report(self):
        text = ('hello\n{"name": "std::sort", "seconds": {"median": 0.25, "reps": 4}}\n'
                '{"name": "merge", "seconds": {"median": 0.75, "reps": 4}}\n')
        self.assertEqual(perf.anchor_seconds(text, "std::sort"), 0.25)
        self.assertIsNone(perf.anchor_seconds(text, "qsort"))
        self.assertEqual(perf.anchor_share(text, "std::sort", "merge", 4), 0.25)
        self.assertIsNone(perf.anchor_share(text, "std::sort", "merge", 1))  # not timed per repetition

    def test_metric(self):
        self.assertEqual(perf.metric_for([]), "cpu")
        self.assertEqual(perf.metric_for(["openmp"]), "wall")
        self.assertEqual(perf.metric_for(["cuda"]), "reported")
        self.assertEqual(perf.metric_for(["mpi", "cuda"]), "reported")

    def test_gpu_labs_score_the_reported_event_times(self):
        calls = []

        def fake(binary, args):
            calls.append(binary)
            # Process wall time is noise at this scale; the event medians count.
            median = 0.001 if binary == "ref" else 0.002
            return sb_mod.Outcome(exit_code=0, wall_s=1.7, cpu_s=1.0,
                                  output='{"name": "final", "seconds": {"median": %g, "reps": 10}}' % median)
        r = perf.measure(fake, "sub", "ref", ["--reps", "10"], "cuBLAS", "final", rounds=3, metric="reported")
        self.assertEqual(calls, ["ref", "sub", "sub", "ref", "ref", "sub"])
        self.assertEqual(r.metric, "reported")
        self.assertAlmostEqual(r.ratio, 0.5)
        self.assertFalse(r.error)

    def test_gpu_labs_missing_timing_is_an_error_not_a_crash(self):
        def fake(binary, args):
            return sb_mod.Outcome(exit_code=0, wall_s=1.0, cpu_s=1.0, output="no json here")
        r = perf.measure(fake, "sub", "ref", [], None, "final", rounds=1, metric="reported")
        self.assertIsNone(r.ratio)
        self.assertIn("printed no timing for 'final'", r.error)

    def test_noise_that_cancels_everything_is_an_error_not_a_crash(self):
        def fake(binary, args):
            return sb_mod.Outcome(exit_code=0, wall_s=1.0, cpu_s=1.0, output="")
        r = perf.measure(fake, "sub", "ref", ["--reps", "3"], None, None, rounds=1, metric="wall")
        self.assertIsNone(r.ratio)
        self.assertIn("too noisy", r.error)

    def test_measure_alternates_and_scores_outside_the_driver(self):
        calls = []

        def fake(binary, args):
            reps = int(args[args.index("--reps") + 1])
            calls.append(binary)
            # ref: 1 s per rep, sub: 2 s per rep, both with 3 s of setup, and
            # an anchor of 0.5 s per rep inside; the submission prints a
            # forged time (ignored). CPU time is what counts here.
            o = sb_mod.Outcome(exit_code=0, wall_s=99, cpu_s=3 + reps * (1.5 if binary == "ref" else 2.5))
            if binary == "sub":
                o.output = '{"name": "merge", "seconds": {"median": 0.0001, "reps": %d}}' % reps
            else:
                o.output = ('{"name": "std::sort", "seconds": {"median": 0.5, "reps": %d}}\n'
                            '{"name": "merge", "seconds": {"median": 1.0, "reps": %d}}' % (reps, reps))
            return o
        r = perf.measure(fake, "sub", "ref", ["--reps", "3"], "std::sort", "merge", rounds=2, metric="cpu")
        self.assertEqual(calls[:4], ["ref", "ref", "sub", "sub"])
        self.assertEqual(calls[4:8], ["sub", "sub", "ref", "ref"])
        self.assertAlmostEqual(r.share, 1 / 3)
        self.assertAlmostEqual(r.ratio, 0.5)
        r = perf.measure(fake, "sub", "ref", ["--reps", "3"], None, None, rounds=1, metric="cpu")
        self.assertAlmostEqual(r.ratio, 1.5 / 2.5)  # no anchor information: diluted ratio


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
            ws = workspace.create(ROOT, "01-sorting", tmp)
            sub = os.path.join(tmp, "sub")
            os.makedirs(sub)
            os.symlink(os.path.join(ROOT, "solutions", "01-sorting", "sorting.cpp"), os.path.join(sub, "sorting.cpp"))
            with open(os.path.join(sub, "README.md"), "w") as f:
                f.write("hi")
            notes = workspace.install_student_files(ws, ["sorting.cpp", "merge_sort.hpp"], sub)
            joined = "\n".join(notes)
            self.assertIn("sorting.cpp is a link", joined)
            self.assertIn("missing from the submission", joined)
            self.assertIn("README.md", joined)
            with open(os.path.join(ws.lab_dir(), "sorting.cpp")) as f:
                self.assertIn("NotImplemented", f.read())  # still the starter's
            self.assertFalse(os.path.exists(os.path.join(ws.src, "solutions")))
            self.assertFalse(os.path.exists(os.path.join(ws.src, "grading", "hidden")))
        finally:
            shutil.rmtree(tmp)


class ScanTest(unittest.TestCase):
    def test_tamper_and_review(self):
        tamper, review = scan.scan({"a.hpp": "#undef EXPECT_TRUE\n#define EXPECT_TRUE(x) (void)0\n",
                                    "b.cpp": "// fork() in a comment is fine\nint f() { return fork(); }\n",
                                    "c.cpp": 'auto p = getenv("TEST_PREMATURE_EXIT_FILE");\n'})
        self.assertEqual(len(tamper), 3)
        self.assertEqual(review, ["b.cpp:2: starts processes: int f() { return fork(); }"])

    def test_solutions_are_clean(self):
        for lab in manifest.list_labs(ROOT):
            m = manifest.load(ROOT, lab)
            files = cli.read_student_files(os.path.join(ROOT, "solutions", lab), m["student_files"])
            tamper, _ = scan.scan(files)
            self.assertEqual(tamper, [], lab)


class ReportTest(unittest.TestCase):
    def test_schema_and_atomic_write(self):
        a = score.Item("A.b", 2, score.VISIBLE, "A.b")
        a.set(2, "passed", "passed", "")
        h = score.Item("hidden: H.c", 3, score.HIDDEN, "H.c")
        h.set(0, "failed", "failed", "timed out after 20 s")
        data = report.results([a, h], ["line"], 1.5, {"lab": "x"})
        self.assertEqual(data["score"], 2)
        self.assertEqual(set(data["tests"][0]), {"name", "score", "max_score", "status", "output", "visibility",
                                                 "execution_time"})
        self.assertEqual([t["visibility"] for t in data["tests"]], ["visible", "after_published"])
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

    def test_meson_outputs_unchanged(self):
        # Meson parses these lines: their format is fixed (see meson_lines()).
        lines = manifest.meson_lines(manifest.load(ROOT, "01-sorting"))
        self.assertEqual(lines[:7], ["", "sorting.cpp;merge_sort.hpp", "main.cpp", "tests/test_sorting.cpp",
                                     "test_sorting_hidden.cpp", "", "gtest"])


class SandboxTest(unittest.TestCase):
    """The sandbox's guarantees, with and without bubblewrap."""

    def modes(self):
        yield "fallback", sb_mod.Sandbox(use_bwrap=False)
        sb = sb_mod.Sandbox()
        if sb.active:
            yield "bwrap", sb
        else:
            print("\n  note: bubblewrap unavailable here (%s): only the fallback is tested" % sb.reason)

    def run_sh(self, sb, script, wall=5, cap=sb_mod.OUTPUT_CAP):
        return sb.execute(["/bin/sh", "-c", script], sb_mod.Limits(wall_s=wall), cwd="/",
                          env=sb_mod.base_env("/tmp"), cap=cap)

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

    def test_killing_the_parent_is_reported(self):
        for mode, sb in self.modes():
            with self.subTest(mode=mode):
                o = self.run_sh(sb, "kill -9 $PPID; sleep 2; exit 0")
                self.assertTrue(o.monitor_lost)
                self.assertIn("monitor", o.describe())

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
                               sb_mod.Limits(wall_s=10, data_bytes=256 * sb_mod.MiB), env=sb_mod.base_env("/tmp"))
                self.assertNotEqual(o.exit_code, 0)
                self.assertIn("MemoryError", o.output)

    def test_bwrap_hides_the_repo_and_the_network(self):
        sb = sb_mod.Sandbox()
        if not sb.active:
            self.skipTest("bubblewrap unavailable: %s" % sb.reason)
        o = self.run_sh(sb, "ls %s; ls /work 2>&1; echo done" % os.path.join(ROOT, "solutions"))
        self.assertIn("No such file", o.output)
        o = sb.execute(["python3", "-c", "import socket; socket.create_connection(('1.1.1.1', 53), 3)"],
                       sb_mod.Limits(wall_s=10), env=sb_mod.base_env("/tmp"))
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
            self.assertEqual(sb_mod.mpi_launch_env(empty, {}), {"OMPI_MCA_plm": "^rsh"})

    def test_with_ssh_nothing_is_forced(self):
        with tempfile.TemporaryDirectory() as d:
            ssh = os.path.join(d, "ssh")
            with open(ssh, "w") as f:
                f.write("#!/bin/sh\n")
            os.chmod(ssh, 0o755)
            self.assertEqual(sb_mod.mpi_launch_env(d, {}), {})

    def test_the_hosts_mca_settings_come_along_and_win(self):
        with tempfile.TemporaryDirectory() as empty:
            env = sb_mod.mpi_launch_env(empty, {"OMPI_MCA_plm_rsh_agent": "false", "OMPI_MCA_btl": "self,vader",
                                                "SECRET": "x"})
        self.assertEqual(env, {"OMPI_MCA_plm_rsh_agent": "false", "OMPI_MCA_btl": "self,vader"})

    @unittest.skipUnless(shutil.which("mpirun"), "needs Open MPI")
    def test_mpirun_starts_with_a_missing_rsh_agent(self):
        # The failure reproduced where ssh exists: point the agent nowhere.
        env = dict(sb_mod.base_env("/tmp"), OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   OMPI_MCA_plm_rsh_agent="does-not-exist")
        import subprocess
        broken = subprocess.run(["mpirun", "-np", "1", "true"], env=env, capture_output=True, timeout=60)
        env.update(sb_mod.mpi_launch_env("/nonexistent", {}))
        fixed = subprocess.run(["mpirun", "-np", "1", "true"], env=env, capture_output=True, timeout=60)
        self.assertIn(b"plm_rsh_agent", broken.stdout + broken.stderr)
        self.assertEqual(fixed.returncode, 0, (fixed.stdout + fixed.stderr).decode()[-500:])


class SanitizerTest(unittest.TestCase):
    """compute-sanitizer, faked: a script on PATH that either runs the tests
    or reports an error like the real tool, and a fake GoogleTest binary."""

    FAKE_TOOL = """#!/bin/sh
# fake compute-sanitizer: --tool T --error-exitcode N BINARY ARGS...
shift 2; shift; code=$1; shift
if [ -n "$FAKE_SANITIZER_ERROR" ] || [ -e "$(dirname "$0")/errors" ]; then
  echo "========= COMPUTE-SANITIZER"
  echo "========= Invalid __global__ read of size 4 bytes"
  echo "=========     at kernel_sum+0x90 in sum.cu:12"
  echo "========= ERROR SUMMARY: 1 error"
  "$@" >/dev/null 2>&1
  exit $code
fi
exec "$@"
"""
    FAKE_TESTS = """#!/usr/bin/env python3
import json, os, sys
out = [a.split("json:", 1)[1] for a in sys.argv if a.startswith("--gtest_output=json:")][0]
json.dump({"testsuites": [{"name": "Gpu", "testsuite": [{"name": "Sum", "classname": "Gpu", "status": "RUN",
           "result": "COMPLETED"}]}]}, open(out, "w"))
p = os.environ.get("TEST_PREMATURE_EXIT_FILE")
if p and os.path.exists(p):
    os.remove(p)
"""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.tools = os.path.join(self.tmp, "tools")
        os.makedirs(self.tools)
        self.ws = workspace.Workspace(os.path.join(self.tmp, "ws"), "09-fake")
        for d in (self.ws.runs, self.ws.home, os.path.join(self.ws.build, "labs")):
            os.makedirs(d)
        for path, text in ((os.path.join(self.tools, "compute-sanitizer"), self.FAKE_TOOL),
                           (os.path.join(self.ws.build, "labs", "09-fake-tests"), self.FAKE_TESTS)):
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, 0o755)
        self.env = dict(os.environ)
        os.environ["PATH"] = self.tools + ":" + os.environ["PATH"]
        os.environ["HPCGRADE_GPU"] = "1"

    def tearDown(self):
        os.environ.clear()
        os.environ.update(self.env)
        shutil.rmtree(self.tmp)

    def grade(self):
        item = score.Item("compute-sanitizer (memcheck, racecheck)", 3, "sanitizer")
        cfg = {"tools": ["memcheck", "racecheck"], "points": 3, "gtest_filter": "Gpu.*"}
        cli.grade_sanitizer(sb_mod.Sandbox(), self.ws, "09-fake", cfg, item, True, cli.Options(),
                            cli.Deadline(60))
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

    def test_without_a_gpu(self):
        item = score.Item("compute-sanitizer (memcheck)", 3, "sanitizer")
        cli.grade_sanitizer(sb_mod.Sandbox(), self.ws, "09-fake", {"tools": ["memcheck"]}, item, False,
                            cli.Options(), cli.Deadline(60))
        self.assertEqual((item.score, item.outcome), (0, "needs_gpu"))
        self.assertIn("needs a GPU", item.output)


class ReleaseLeakTest(unittest.TestCase):
    def test_secret_lines(self):
        skeleton = "int f() {\n    // TODO(student)\n    throw 1;\n}\n"
        solution = ("int f() {\n    for (int i = 0; i < n; ++i) {\n    const int total = compute_the_answer(42);\n"
                    "    const int doubled = twice_the_value(total);\n    return finish_the_job(doubled) + 1;\n}\n")
        lines = release.secret_lines(solution, skeleton)
        self.assertEqual(lines, ["const int total = compute_the_answer(42);",
                                 "const int doubled = twice_the_value(total);",
                                 "return finish_the_job(doubled) + 1;"])
        secrets = {"sol/a.cpp": lines}
        pasted = ("x = 1;\n  const int total =   compute_the_answer(42);\n// const int doubled = twice_the_value(total);\n"
                  "    return finish_the_job(doubled) + 1;\n")
        self.assertEqual(release.find_leaks({"a.md": pasted}, secrets), [("a.md", "sol/a.cpp", lines)])
        self.assertEqual(release.find_leaks({"b.cpp": "const int total = compute_the_answer(42);\n"}, secrets,
                                            min_lines=3), [])


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
                               != open(os.path.join(root, "solutions", lab, f), "rb").read()]
                    self.assertTrue(changed, "%s changes nothing" % m)

    def test_every_fixture_applies_and_plants_something(self):
        for name in sorted(os.listdir(helpers.FIXTURES + "/01-sorting")):
            with tempfile.TemporaryDirectory() as tmp:
                d = helpers.fixture_copy("01-sorting", name, tmp)
                base = os.path.join(ROOT, "labs" if name == "starter" else "solutions", "01-sorting")
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
