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


class RoundTrip(unittest.TestCase):
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


def main():
    global PROBE
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    PROBE = os.path.abspath(sys.argv[1])
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(RoundTrip)
    return 0 if unittest.TextTestRunner(verbosity=2).run(suite).wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
