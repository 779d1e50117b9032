#!/usr/bin/env python3
"""The judged-call protocol end to end (hpclab/judged.hpp), on the probe.

Runs the probe directly, records it, and replays the records with the
"student code" set to abort if called (the judge must never run it); then
replays wrong, truncated, swapped, relabelled, forged and missing records
and checks that each one fails with its reason and never crashes the judge.
Usage: judged_roundtrip.py PROBE_BINARY
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

PROBE = None
TESTS = ["Probe.Value", "Probe.VectorOutput", "Probe.SpanOutput", "Probe.Throws", "Probe.StructResult",
         "Probe.NotImplementedKeepsItsMessage", "Probe.ExtraExceptionKindKeepsItsClass", "Probe.ManyCallsInALoop"]


def run(env_extra, args=()):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HPCLAB_", "PROBE_"))}
    env.update(env_extra)
    return subprocess.run([PROBE] + list(args), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          timeout=120)


def file_for(test, rank=0):
    return test.replace("/", "%2F") + ".r%d" % rank


class ProbeCase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="judged-")
        self.rec = os.path.join(self.tmp, "rec")
        os.mkdir(self.rec)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def record(self, seed="12345", extra=None):
        env = {"HPCLAB_JUDGE_RECORD": self.rec, "HPCLAB_SEED": seed}
        env.update(extra or {})
        return run(env)

    def replay(self, seed="12345"):
        """(results by test name, notes by test name, process)."""
        report = os.path.join(self.tmp, "report.json")
        notes = os.path.join(self.tmp, "notes")
        for p in (report, notes + ".r0"):
            if os.path.exists(p):
                os.remove(p)
        p = run({"HPCLAB_JUDGE_REPLAY": self.rec, "HPCLAB_SEED": seed, "HPCLAB_JUDGE_NOTES": notes,
                 "PROBE_TRAP": "1"}, ["--gtest_output=json:" + report])
        self.assertIn(p.returncode, (0, 1), p.stdout.decode()[-2000:])
        with open(report) as f:
            data = json.load(f)
        results = {}
        for suite in data["testsuites"]:
            for case in suite["testsuite"]:
                failures = [x["failure"] for x in case.get("failures", [])]
                results["%s.%s" % (suite["name"], case["name"])] = failures
        with open(notes + ".r0") as f:
            note = {}
            for line in f:
                n = json.loads(line)
                note[n["test"]] = n
        return results, note, p

    def path(self, test):
        return os.path.join(self.rec, file_for(test))


class RoundTrip(ProbeCase):
    def test_direct_run_passes(self):
        p = run({})
        self.assertEqual(p.returncode, 0, p.stdout.decode()[-2000:])

    def test_record_then_replay_passes_without_running_student_code(self):
        self.assertEqual(self.record().returncode, 0)
        results, notes, _ = self.replay()
        for t in TESTS:
            self.assertEqual(results[t], [], t)
            self.assertEqual(notes[t]["record"], "ok", t)
        self.assertEqual(notes["Probe.ManyCallsInALoop"]["calls_replayed"], 1000)

    def test_wrong_outputs_fail_in_the_judge(self):
        self.record(extra={"PROBE_WRONG": "1"})
        results, notes, _ = self.replay()
        for t in ("Probe.Value", "Probe.VectorOutput", "Probe.StructResult", "Probe.ManyCallsInALoop"):
            self.assertNotEqual(results[t], [], t)
            self.assertEqual(notes[t]["record"], "ok", t)
        self.assertEqual(results["Probe.SpanOutput"], [])

    def test_another_seed_in_the_judge_does_not_match(self):
        # Recorded for one seed, judged with another: the inputs differ, so the
        # recorded answers are wrong for them (no answer carries over).
        self.record(seed="1")
        results, _, _ = self.replay(seed="2")
        self.assertNotEqual(results["Probe.Value"], [])
        self.assertNotEqual(results["Probe.SpanOutput"], [])

    def test_missing_record(self):
        self.record()
        os.remove(self.path("Probe.Value"))
        results, notes, _ = self.replay()
        self.assertIn("no recorded outputs", "".join(results["Probe.Value"]))
        self.assertEqual(notes["Probe.Value"]["record"], "missing")

    def test_truncated_record_is_incomplete_or_malformed(self):
        self.record()
        for cut in (5, 20, 60):
            with open(self.path("Probe.VectorOutput"), "rb") as f:
                data = f.read()
            with open(self.path("Probe.VectorOutput"), "wb") as f:
                f.write(data[:-cut])
            results, notes, _ = self.replay()
            self.assertNotEqual(results["Probe.VectorOutput"], [])
            self.assertNotEqual(notes["Probe.VectorOutput"]["record"], "ok")
            self.record()

    def test_record_of_another_test(self):
        self.record()
        shutil.copy(self.path("Probe.Throws"), self.path("Probe.Value"))
        results, notes, _ = self.replay()
        self.assertIn("recorded for another test", notes["Probe.Value"]["record"])
        self.assertNotEqual(results["Probe.Value"], [])

    def test_out_of_step_label(self):
        self.record()
        p = self.path("Probe.Value")
        with open(p, "rb") as f:
            data = f.read()
        with open(p, "wb") as f:
            f.write(data.replace(b"judged_probe.cpp:", b"judged_probe.cxx:"))
        results, _, _ = self.replay()
        self.assertIn("out of step", "".join(results["Probe.Value"]))

    def test_forged_lengths_do_not_crash_the_judge(self):
        self.record()
        p = self.path("Probe.VectorOutput")
        with open(p, "rb") as f:
            data = bytearray(f.read())
        # The vector's element count sits right after its item length: make
        # it claim 2^60 elements.
        i = data.index(struct.pack("<Q", 100))
        data[i:i + 8] = struct.pack("<Q", 1 << 60)
        with open(p, "wb") as f:
            f.write(data)
        results, _, proc = self.replay()
        self.assertIn("malformed", "".join(results["Probe.VectorOutput"]))

    def test_garbage_and_empty_files(self):
        self.record()
        with open(self.path("Probe.Value"), "wb") as f:
            f.write(os.urandom(4096))
        with open(self.path("Probe.StructResult"), "wb") as f:
            pass
        results, notes, _ = self.replay()
        self.assertTrue(notes["Probe.Value"]["record"].startswith("malformed"))
        self.assertTrue(notes["Probe.StructResult"]["record"].startswith("malformed"))
        self.assertNotEqual(results["Probe.Value"], [])
        self.assertNotEqual(results["Probe.StructResult"], [])

    def test_wrong_exception_kind(self):
        self.record()
        p = self.path("Probe.Throws")
        with open(p, "rb") as f:
            data = bytearray(f.read())
        # outcome 1 (threw) is followed by the kind: invalid_argument (3) -> runtime_error (7)
        i = data.index(b"\x01\x03")
        data[i + 1] = 7
        with open(p, "wb") as f:
            f.write(data)
        results, _, _ = self.replay()
        self.assertNotEqual(results["Probe.Throws"], [])


class LateWork(ProbeCase):
    """A call that leaves work running after it returned (a thread, a pool's
    thread given a task, a child process): the record is written once that
    work has stopped; a call whose outputs changed after it returned, or
    whose work still runs 2 s later, is refused, and the judge fails it."""
    CHANGED = "the call's outputs changed after it returned"
    LEFT = "the call left work running after it returned: 2 s later, "

    def record_late(self, mode):
        return run({"HPCLAB_JUDGE_RECORD": self.rec, "HPCLAB_SEED": "7", "PROBE_LATE": mode},
                   ["--gtest_filter=Probe.LateWork"])

    def check_refused(self, mode, why):
        p = self.record_late(mode)
        out = p.stdout.decode()
        self.assertEqual(p.returncode, 3, out[-2000:])
        self.assertIn("refused", out)
        results, notes, _ = self.replay(seed="7")
        failure = "".join(results["Probe.LateWork"])
        self.assertIn(why, failure)
        self.assertNotEqual(notes["Probe.LateWork"]["record"], "ok")
        return failure

    def test_a_rewrite_100_ms_after_the_return_is_seen(self):
        self.check_refused("rewrite", self.CHANGED)

    def test_an_output_finished_after_the_return_is_refused_too(self):
        self.check_refused("finish", self.CHANGED)

    def test_a_parked_pool_thread_given_a_late_task(self):
        self.check_refused("pool_task", self.CHANGED)

    def test_a_sleeping_thread(self):
        self.check_refused("sleeper", self.LEFT + "a thread was still sleeping (nanosleep)")

    def test_a_thread_in_a_timed_wait(self):
        self.check_refused("timed_wait", self.LEFT + "a thread was still in a wait with a timeout")

    def test_a_child_process(self):
        self.check_refused("child", self.LEFT + "a child process (pid ")

    def test_a_grandchild_that_left_the_process_group(self):
        self.check_refused("orphan", self.LEFT + "a child process (pid ")

    def test_a_call_that_throws_with_a_thread_left_sleeping(self):
        self.check_refused("throw", self.LEFT + "a thread was still sleeping")

    def test_threads_that_wait_for_ever_cost_nothing(self):
        # As the pools of libgomp and oneTBB (futex) and Open MPI's progress
        # threads (poll) wait between calls.
        for mode in ("parked", "poll_forever", ""):
            with self.subTest(mode=mode):
                self.assertEqual(self.record_late(mode).returncode, 0)
                results, notes, _ = self.replay(seed="7")
                self.assertEqual(results["Probe.LateWork"], [])
                self.assertEqual(notes["Probe.LateWork"]["record"], "ok")
                self.assertEqual(notes["Probe.LateWork"]["calls_replayed"], 2)

    def test_a_forged_refusal_with_outputs_is_malformed(self):
        self.record_late("")
        p = self.path("Probe.LateWork")
        with open(p, "rb") as f:
            data = bytearray(f.read())
        # The first call's outcome byte follows its label: 0 (returned) ->
        # 2 (refused) with an empty message, its output left in place.
        label = data.index(b"judged_probe.cpp:")
        outcome = data.index(b"\x00", label)
        data[outcome:outcome + 1] = b"\x02" + struct.pack("<I", 0)
        with open(p, "wb") as f:
            f.write(data)
        _, notes, _ = self.replay(seed="7")
        self.assertEqual(notes["Probe.LateWork"]["record"], "malformed: a refused call with outputs")


def main():
    global PROBE
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    PROBE = os.path.abspath(sys.argv[1])
    suite = unittest.TestSuite(unittest.defaultTestLoader.loadTestsFromTestCase(case) for case in (RoundTrip, LateWork))
    return 0 if unittest.TextTestRunner(verbosity=2).run(suite).wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
