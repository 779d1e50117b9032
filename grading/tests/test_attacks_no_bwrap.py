"""Where bubblewrap cannot run (Gradescope's container: the grader is root and
unprivileged user namespaces are refused; forced here with
HPCGRADE_NO_BWRAP=1), the Gradescope package's run_autograder grades, in a
temporary /autograder, the hostile submissions of
tests/fixtures/LAB/{judge_report,stop_reference,read_secrets,poison_reference}
for labs 01 and 03. Each must earn nothing and read nothing:

  judge_report      a survivor of a recording run (setsid, then a second
                    fork) that rewrites each judge's report as passed;
  stop_reference    a survivor that holds the timed reference driver
                    stopped most of the time, on a slowed solution;
  read_secrets      reads the judge's cached hidden tests, the reference's
                    cached sources and the package's secrets, and prints
                    them where results.json shows them;
  poison_reference  a survivor that writes its own slow code into the
                    reference's sources while they build.

Every grade also checks what grading/README.md says of this mode: the
submission, the judge and the reference ran as three uids of this grade's
own, results.json says which sandbox graded it, no process of those uids is
left, the trusted builds are unreadable to others, and run_autograder runs
the grade under reaper.py. grade-class --parallel gives concurrent grades
distinct uids (two grader processes are given slots at once).
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import zipfile

import helpers

from hpcgrade import manifest, reaper, score
from hpcgrade import sandbox as sb_mod

ROOT = helpers.ROOT
BUILD = os.path.join(ROOT, "grading", "gradescope", "build")
UIDS_LINE = re.compile(r"the submission as uid (\d+), the judge as uid (\d+) and the reference as uid (\d+)")
TMP = [None]
# The sandboxed uids cannot run root's own Python (pyenv under /root).
PYTHON = "/usr/bin/python3"


def setUpModule():
    TMP[0] = tempfile.mkdtemp(prefix="hpcgrade-nobwrap-")
    os.chmod(TMP[0], 0o755)  # the cache is in it, as /var/cache is: the trusted uids pass through


def tearDownModule():
    shutil.rmtree(TMP[0], ignore_errors=True)


def processes_of(uids):
    """Pids of live processes whose real uid is in UIDS."""
    return [pid for uid in uids for pid in sb_mod.processes_of(uid)]


def public_lines(lab):
    """Every line of what a student has: the lab's folder and common/."""
    seen = set()
    for top in (manifest.lab_paths(ROOT, lab).lab_dir, os.path.join(ROOT, "common")):
        for base, _, files in os.walk(top):
            for f in files:
                with open(os.path.join(base, f), "rb") as fh:
                    seen |= {l.strip() for l in fh.read().decode("utf-8", "replace").splitlines()}
    return seen


def secret_lines(paths, public):
    """Lines of PATHS long enough to be telling that no public file has."""
    found = set()
    for p in paths:
        with open(p, encoding="utf-8") as f:
            found |= {l.strip() for l in f if len(l.strip()) >= 30 and l.strip() not in public}
    return found


def results_text(data):
    """Every string results.json holds."""
    return json.dumps(data, ensure_ascii=False) + "\n" + data["output"] + "\n" + "\n".join(
        t.get("output", "") for t in data["tests"])


class Attacks:
    """One lab's fixtures graded by its Gradescope package (mixed into a
    TestCase per lab below)."""
    LAB = None

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("uids of their own need the grader to be root, as run_autograder is on "
                                    "Gradescope")
        cls.tmp = tempfile.mkdtemp(dir=TMP[0])
        cls.cache = os.path.join(TMP[0], "cache")
        cls.zip = os.path.join(cls.tmp, "autograder.zip")
        p = subprocess.run([sys.executable, BUILD, cls.LAB, cls.zip], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        assert p.returncode == 0, p.stdout.decode()
        public = public_lines(cls.LAB)
        paths = manifest.lab_paths(ROOT, cls.LAB)
        cls.hidden = secret_lines(glob.glob(os.path.join(paths.hidden_dir, "*")), public)
        cls.reference = secret_lines(glob.glob(os.path.join(paths.solution_dir, "*.?pp")), public)
        assert cls.hidden and cls.reference

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def autograder(self, fixture):
        """Unpack the package as Gradescope does, put FIXTURE in as the
        submission (@CACHE@ and @TREE@: where the attacker knows the grader
        keeps its builds and the package), run run_autograder without
        bubblewrap; (results, printed output)."""
        ag = tempfile.mkdtemp(dir=self.tmp)
        with zipfile.ZipFile(self.zip) as z:
            z.extractall(os.path.join(ag, "source"))
        run = os.path.join(ag, "run_autograder")
        shutil.copy2(os.path.join(ag, "source", "run_autograder"), run)
        os.chmod(run, 0o755)
        src = helpers.fixture_copy(self.LAB, fixture, tempfile.mkdtemp(dir=self.tmp))
        self.submitted = set()  # lines the submission has itself
        for base, _, files in os.walk(src):
            for f in files:
                path = os.path.join(base, f)
                with open(path, encoding="utf-8") as fh:
                    text = fh.read()
                self.submitted |= {l.strip() for l in text.splitlines()}
                with open(path, "w", encoding="utf-8") as fh:
                    fh.write(text.replace("@CACHE@", self.cache).replace("@TREE@", os.path.join(ag, "source",
                                                                                                 "hpc-labs")))
        shutil.copytree(src, os.path.join(ag, "submission"))
        env = dict(os.environ, HPCGRADE_AUTOGRADER_ROOT=ag, HPCGRADE_NO_BWRAP="1", HPCGRADE_CACHE=self.cache,
                   HPCGRADE_ROUNDS="1", HPCGRADE_JOBS="2", HPCGRADE_TRUST_CCACHE="1")
        env.pop("HPCGRADE_SEED", None)
        proc = subprocess.Popen([run], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
        parents = []
        watcher = threading.Thread(target=self.watch_grade, args=(proc, ag, parents), daemon=True)
        watcher.start()
        out = proc.communicate(timeout=1800)[0].decode("utf-8", "replace")
        watcher.join()
        self.assertEqual(proc.returncode, 0, out)
        with open(os.path.join(ag, "results", "results.json")) as f:
            data = json.load(f)
        # The fixtures' lock files, and the survivors' logs of what befell
        # them (shown where a survivor was not there to be killed).
        self.fixture_logs = ""
        for lock in glob.glob("/tmp/hpclab-fixture-*-%s" % data["extra_data"].get("seed")):
            if "/hpclab-fixture-log-" in lock:
                with open(lock, encoding="utf-8", errors="replace") as f:
                    self.fixture_logs += f.read()
            os.remove(lock)
        self.check_the_mode(data, out, parents)
        return data, out

    @staticmethod
    def watch_grade(proc, ag, parents):
        """The command line of the parent of AG's grade, once it runs."""
        mine = os.path.join(ag, "source").encode()
        while proc.poll() is None and not parents:
            for pid in os.listdir("/proc"):
                try:
                    with open("/proc/%s/cmdline" % pid, "rb") as f:
                        args = f.read().split(b"\0")
                    if args[1:2] == [os.path.join(mine, b"hpc-labs", b"grading", b"grade")]:
                        with open("/proc/%s/stat" % pid, "rb") as f:
                            ppid = f.read().rsplit(b")", 1)[1].split()[1].decode()
                        with open("/proc/%s/cmdline" % ppid, "rb") as f:
                            parents.append(f.read().split(b"\0")[1].decode())
                        return
                except (OSError, IndexError):
                    pass
            time.sleep(0.05)

    def check_the_mode(self, data, out, parents):
        """What grading/README.md says of every grade without bubblewrap."""
        self.assertEqual(data["extra_data"]["sandbox_mode"], "fallback-uids", data["output"][:600])
        m = UIDS_LINE.search(data["output"])
        self.assertIsNotNone(m, data["output"][:600])
        uids = [int(u) for u in m.groups()]
        self.assertEqual(len(set(uids)), 3)
        first, last = sb_mod.fallback_uid_range()
        self.assertTrue(all(first < u <= last for u in uids), uids)
        self.assertEqual(processes_of(uids), [])
        self.assertEqual([os.path.basename(p) for p in parents], [os.path.basename(reaper.__file__)])
        for kind in ("judge", "reference"):
            for entry in glob.glob(os.path.join(self.cache, kind, "*")):
                if os.path.isdir(entry):
                    self.assert_private(entry)

    def assert_private(self, top):
        """Root owns TOP and all below; others may not read, write or enter any of it."""
        for base, dirs, files in os.walk(top):
            for name in [base] + [os.path.join(base, n) for n in dirs + files]:
                if not os.path.islink(name):  # (a link's access is its target's)
                    st = os.lstat(name)
                    self.assertEqual((st.st_uid, st.st_mode & 0o007), (0, 0), name)

    def test_a_survivor_cannot_rewrite_the_judges_report(self):
        killed = re.compile(r"[1-9]\d* process(es)? of the submission (was|were) still running after its tests, and "
                            r"(it was|they were) killed")
        logs = []
        # Twice at most: now and then (twice in some twenty CI runs) the
        # survivor has vanished before the grader's sweep after the tests,
        # SIGKILLed (its log, which notes every other signal, ends at its
        # start). Such a run tried nothing, no verdict either way; the
        # second one must show the survivor killed by the grader.
        for attempt in (1, 2):
            data, out = self.autograder("judge_report")
            self.assertEqual(data["score"], 0, [t["name"] for t in data["tests"] if t["score"]])
            logs.append("attempt %d, the survivor's log:\n%s" % (attempt, self.fixture_logs or
                                                                  "(none: it never started)\n"))
            if killed.search(data["output"]):
                break
        # The survivor was there (its tests' output is not shown: they fail).
        self.assertRegex(data["output"], killed, "".join(logs) + out[-3000:])

    def test_a_survivor_cannot_stop_the_reference(self):
        data, out = self.autograder("stop_reference")
        perf = next(t for t in data["tests"] if data["extra_data"]["kinds"][t["name"]] == score.PERFORMANCE)
        self.assertEqual(perf["score"], 0, perf["output"])
        self.assertIn("over 1 alternating rounds", perf["output"])  # HPCGRADE_ROUNDS=1
        self.assertEqual(data["score"], data["extra_data"]["max_score"] - perf["max_score"])
        self.assertIn("fixture stop_reference: a survivor started", results_text(data))

    def test_the_secrets_are_unreadable(self):
        data, out = self.autograder("read_secrets")
        text = results_text(data)
        self.assertIn("fixture read_secrets: nothing secret readable", text)
        self.assertNotIn("LEAK", text)
        # (A fixture made from the solution has the reference's lines itself:
        # its markers above say whether it read them.)
        self.assertEqual([l for l in (self.hidden | self.reference) - self.submitted if l in text], [])
        perf = next(t for t in data["tests"] if data["extra_data"]["kinds"][t["name"]] == score.PERFORMANCE)
        self.assertNotIn("failed in repetition", perf["output"])
        self.assertIn("ratio reference/yours", perf["output"])

    def test_the_reference_build_cannot_be_poisoned(self):
        shutil.rmtree(os.path.join(self.cache, "reference"), ignore_errors=True)  # built in this grade
        data, out = self.autograder("poison_reference")
        perf = next(t for t in data["tests"] if data["extra_data"]["kinds"][t["name"]] == score.PERFORMANCE)
        self.assertEqual(perf["score"], 0, perf["output"])
        self.assertIn("ratio reference/yours", perf["output"])
        self.assertEqual(data["score"], data["extra_data"]["max_score"] - perf["max_score"])
        entries = [e for e in glob.glob(os.path.join(self.cache, "reference", "*")) if os.path.isdir(e)]
        self.assertTrue(entries)
        for entry in entries:
            for f in manifest.student_files(ROOT, self.LAB):
                with open(os.path.join(manifest.lab_paths(ROOT, self.LAB).solution_dir, f), "rb") as want, \
                        open(os.path.join(manifest.lab_paths(os.path.join(entry, "src"), self.LAB).student_dir, f),
                             "rb") as got:
                    self.assertEqual(got.read(), want.read(), "%s in %s" % (f, entry))


class Lab01(Attacks, unittest.TestCase):
    LAB = "01-sorting"


class Lab03(Attacks, unittest.TestCase):
    LAB = "03-parallel-quicksort"


SLOT_PROBE = """
import sys, time
sys.path.insert(0, %r)
from hpcgrade import sandbox
sb = sandbox.Sandbox(use_bwrap=False)
print(sb.ids(sandbox.SUBMISSION)[0], sb.ids(sandbox.JUDGE)[0], sb.ids(sandbox.REFERENCE)[0], flush=True)
time.sleep(2)
""" % helpers.GRADING

# A driver that serves the grader's clock after leaving a process behind
# that left its session (setsid, then a second fork).
SURVIVOR_DRIVER = r"""
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(600)
    os._exit(0)
os.wait()
d = sys.argv[sys.argv.index("--serve") + 1]
go, done = os.open(d + "/go", os.O_RDWR), os.open(d + "/done", os.O_RDWR)
os.write(done, b"ready\n")
f = os.fdopen(go)
for line in f:
    if line.startswith("go"):
        os.write(done, ("done %s 0x1p+0\n" % line.split()[1]).encode())
    else:
        break
"""


@unittest.skipIf(os.geteuid() != 0, "uids of their own need the grader to be root")
class UidSlots(unittest.TestCase):
    """The uids of the fallback, without a grade."""

    def test_concurrent_graders_get_distinct_uids(self):
        # grade-class --parallel N runs N grader processes at once: each
        # takes a slot of HPCGRADE_FALLBACK_UIDS of its own, locked in SLOT_LOCKS.
        procs = [subprocess.Popen([sys.executable, "-c", SLOT_PROBE], stdout=subprocess.PIPE) for _ in range(3)]
        uids = [tuple(int(u) for u in p.communicate(timeout=60)[0].split()) for p in procs]
        flat = [u for three in uids for u in three]
        self.assertEqual(len(flat), 9, uids)
        self.assertEqual(len(set(flat)), 9, uids)
        first, last = sb_mod.fallback_uid_range()
        self.assertTrue(all(first < u <= last for u in flat), uids)
        self.assertEqual(os.stat(sb_mod.SLOT_LOCKS).st_mode & 0o777, 0o700)

    def test_the_judge_and_the_reference_share_the_first_id_as_group(self):
        sb = sb_mod.Sandbox(use_bwrap=False)
        first, _ = sb_mod.fallback_uid_range()
        self.assertEqual(sb.mode, "fallback-uids")
        self.assertEqual(sb.trusted_gid(), first)
        self.assertEqual([sb.ids(r)[1] for r in sb_mod.ROLES], [sb.ids(sb_mod.SUBMISSION)[0], first, first])

    def test_an_id_that_names_an_account_or_group_is_skipped(self):
        import grp
        import pwd
        named = pwd.getpwnam("nobody").pw_uid  # 65534 on Debian
        first = named - 2
        if sb_mod._named(uid=first) or sb_mod._named(gid=first):
            self.skipTest("id %d is named here" % first)
        slot = sb_mod.UidSlot({sb_mod.FALLBACK_UIDS: "%d-%d" % (first, first + 9)})
        try:
            uids = [slot.ids(r)[0] for r in sb_mod.ROLES]
            self.assertNotIn(named, uids)
            self.assertEqual(uids[0], first + 4)  # the slot first+1..first+3 holds nobody's uid
            for u in uids:
                self.assertRaises(KeyError, pwd.getpwuid, u)
                self.assertRaises(KeyError, grp.getgrgid, u)
        finally:
            os.close(slot.fd)

    def test_a_bad_range_is_one_clear_error(self):
        for text in ("60000", "9-1", "0-100", "a-b", "100-101"):
            with self.subTest(text=text):
                with self.assertRaises(ValueError) as e:
                    sb_mod.fallback_uid_range({sb_mod.FALLBACK_UIDS: text})
                self.assertIn(sb_mod.FALLBACK_UIDS, str(e.exception))

    def test_a_bad_range_is_a_usage_error_of_the_grade(self):
        p = subprocess.run([sys.executable, os.path.join(helpers.GRADING, "grade"), "01", "--starter", "--out",
                            os.path.join(tempfile.gettempdir(), "unused.json")], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, env=dict(os.environ, **{sb_mod.FALLBACK_UIDS: "5-6"}))
        self.assertEqual(p.returncode, 2)
        self.assertIn("HPCGRADE_FALLBACK_UIDS=5-6 must be", p.stdout.decode())

    def test_the_mode_with_bubblewrap(self):
        sb = sb_mod.Sandbox()
        if not sb.active:
            self.skipTest("bubblewrap unavailable: %s" % sb.reason)
        self.assertEqual(sb.mode, "bubblewrap-privileged" if sb.privileged else "bubblewrap")

    def test_without_root_everything_runs_as_the_graders_uid(self):
        from unittest import mock
        with mock.patch("os.geteuid", return_value=1000):
            sb = sb_mod.Sandbox(use_bwrap=False)
            self.assertEqual(sb.mode, "fallback-one-uid")
            self.assertIsNone(sb.ids(sb_mod.JUDGE))
            self.assertIn("all as the grader's own uid", sb.describe())


@unittest.skipIf(os.geteuid() != 0, "uids of their own need the grader to be root")
class Separation(unittest.TestCase):
    """What the judge and the reference own, and the end of every process of
    the submission, without a whole grade."""

    def setUp(self):
        self.sb = sb_mod.Sandbox(use_bwrap=False)
        self.tmp = tempfile.mkdtemp(prefix="hpcgrade-nobwrap-unit-")
        os.chmod(self.tmp, 0o755)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_each_role_runs_as_its_uid_with_no_new_privileges(self):
        for role in sb_mod.ROLES:
            o = self.sb.execute(["/bin/sh", "-c", "id -u; id -g; grep NoNewPrivs /proc/self/status"],
                                sb_mod.Limits(wall_s=10), role=role)
            uid, gid, nnp = o.output.split("\n")[:3]
            self.assertEqual((int(uid), int(gid)), self.sb.ids(role), o.output)
            self.assertEqual(nnp.split(), ["NoNewPrivs:", "1"])

    def test_the_submissions_workspace_is_its_alone(self):
        from hpcgrade import workspace
        ws = workspace.create(ROOT, "01-sorting", self.sb, parent=self.tmp)
        st = os.stat(ws.path)
        self.assertEqual((st.st_uid, st.st_mode & 0o777), (self.sb.ids()[0], 0o700))
        o = self.sb.execute(["/bin/ls", ws.src], sb_mod.Limits(wall_s=10), role=sb_mod.JUDGE)
        self.assertIn("Permission denied", o.output)

    def test_a_trusted_workspace_is_its_uids_alone_then_roots_and_the_groups(self):
        from hpcgrade import build, workspace
        ws = workspace.create(ROOT, "01-sorting", self.sb, parent=self.tmp, hidden=True, role=sb_mod.JUDGE)
        judge = self.sb.ids(sb_mod.JUDGE)
        st = os.stat(ws.path)
        self.assertEqual((st.st_uid, st.st_mode & 0o777), (judge[0], 0o700))
        hidden = os.path.join(ws.hidden_dir(), "test_sorting_hidden.cpp")
        self.assertEqual(os.stat(hidden).st_uid, judge[0])
        o = self.sb.execute(["/bin/cat", hidden], sb_mod.Limits(wall_s=10))  # as the submission
        self.assertIn("Permission denied", o.output)
        build.lock_down(ws.path, self.sb.trusted_gid())
        for base, dirs, files in os.walk(ws.path):
            for name in [base] + [os.path.join(base, n) for n in dirs + files]:
                st = os.lstat(name)
                self.assertEqual((st.st_uid, st.st_gid, st.st_mode & 0o027), (0, self.sb.trusted_gid(), 0), name)
        o = self.sb.execute(["/bin/cat", hidden], sb_mod.Limits(wall_s=10), role=sb_mod.JUDGE)
        self.assertEqual(o.exit_code, 0, o.output)
        o = self.sb.execute(["/bin/sh", "-c", "cat %s; echo x >> %s" % (hidden, hidden)], sb_mod.Limits(wall_s=10))
        self.assertEqual(o.output.count("Permission denied"), 2, o.output)

    def test_run_directories_of_the_judge_and_the_reference_are_theirs_alone(self):
        from hpcgrade import pipeline
        g = pipeline.Grade(ROOT, "01-sorting", "starter", None, pipeline.Options(), self.sb, None)
        try:
            for role in sb_mod.TRUSTED:
                d = g.scratch_run_dir(role)
                st = os.stat(d)
                self.assertEqual((st.st_uid, st.st_mode & 0o777), (self.sb.ids(role)[0], 0o700))
                o = self.sb.execute(["/bin/sh", "-c", "ls %s; touch %s/report.json" % (d, d)],
                                    sb_mod.Limits(wall_s=10))
                self.assertEqual(o.output.count("Permission denied"), 2, o.output)
        finally:
            g.cleanup()

    def test_no_process_of_the_submission_outlives_its_timed_run(self):
        from hpcgrade import pipeline, timing
        driver = os.path.join(self.tmp, "driver.py")
        with open(driver, "w") as f:
            f.write(SURVIVOR_DRIVER)
        os.chmod(driver, 0o755)
        def run_dir(role):
            return pipeline.Grade.scratch_run_dir(type("G", (), {"scratch": self.tmp, "sandbox": self.sb})(), role)
        # A lab with a parallel need runs its driver under the default
        # seccomp profile, which lets this one fork its survivor.
        runs = timing.Runs(self.sb, pipeline.Deadline(60), run_dir, [], {"args": [driver]}, ["openmp"], 1 << 30, 1)
        series = timing.Series()
        timing.serve_once(runs, PYTHON, [1, 2], 0, "the driver", 30, series, 0, [], sb_mod.SUBMISSION)
        self.assertEqual(len(series.seconds), 2)
        self.assertEqual(sb_mod.processes_of(self.sb.ids(sb_mod.SUBMISSION)[0]), [])

    def test_every_process_of_a_uid_is_killed(self):
        o = self.sb.execute(["/bin/sh", "-c", "setsid sh -c 'sleep 600 & sleep 600' & sleep 0.3; echo started"],
                            sb_mod.Limits(wall_s=10))
        self.assertIn("started", o.output)
        uid = self.sb.ids(sb_mod.SUBMISSION)[0]
        self.assertGreaterEqual(len(sb_mod.processes_of(uid)), 2)
        self.assertGreaterEqual(self.sb.end(sb_mod.SUBMISSION), 2)
        self.assertEqual(sb_mod.processes_of(uid), [])

    def test_what_is_not_promised_shared_files_and_the_network(self):
        # What grading/README.md says the fallback cannot promise, as it is:
        # other processes' command lines can be read, a file in /tmp or
        # /dev/shm outlives the run that wrote it, and the loopback network is reachable.
        import socket
        o = self.sb.execute(["/bin/cat", "/proc/%d/cmdline" % os.getpid()], sb_mod.Limits(wall_s=10))
        self.assertIn("python", o.output)
        for where in ("/tmp", "/dev/shm"):
            name = "%s/hpcgrade-nobwrap-%d" % (where, os.getpid())
            try:
                self.sb.execute(["/bin/sh", "-c", "echo kept > " + name], sb_mod.Limits(wall_s=10))
                self.assertIn("kept", self.sb.execute(["/bin/cat", name], sb_mod.Limits(wall_s=10)).output)
            finally:
                if os.path.exists(name):
                    os.remove(name)
        with socket.socket() as server:
            server.bind(("127.0.0.1", 0))
            server.listen(1)
            port = server.getsockname()[1]
            o = self.sb.execute([PYTHON, "-c", "import socket; socket.create_connection(('127.0.0.1', %d), 5); "
                                 "print('connected')" % port], sb_mod.Limits(wall_s=10))
            self.assertIn("connected", o.output)


if __name__ == "__main__":
    unittest.main()
