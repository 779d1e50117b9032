"""Leases of timed phases (grading/hpcgrade/lease.py), and a small class of
lab 01 graded in parallel with timing on: no two timed phases overlap, the
tests score as in a grade of its own with the same seed, and the speed
points still tell the solution from a 5x slower copy."""
import multiprocessing
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import unittest.mock

import helpers

from hpcgrade import gradebook, host, lease, pipeline, score, selfcheck

ROOT = helpers.ROOT
LAB = "01-sorting"
PERF = "performance: merge vs the reference"


def hold_in_process(directory, resource, seconds):
    os.environ["HPCGRADE_LEASES"] = directory
    with lease.hold(resource, "process %d" % os.getpid()):
        time.sleep(seconds)


def take_places_in_process(directory, total, n, seconds, log):
    """Holds N of TOTAL places for SECONDS, appending "start N" and "end N"
    lines (with the time) to LOG."""
    os.environ["HPCGRADE_LEASES"] = directory
    with lease.places("cuda", total, n) as held:
        with open(log, "a") as f:
            f.write("%f +%d\n" % (time.time(), held))
        time.sleep(seconds)
        with open(log, "a") as f:
            f.write("%f -%d\n" % (time.time(), held))


class LeaseUnits(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="hpcgrade-lease-")
        self.old = os.environ.get("HPCGRADE_LEASES")
        os.environ["HPCGRADE_LEASES"] = self.dir

    def tearDown(self):
        if self.old is None:
            os.environ.pop("HPCGRADE_LEASES", None)
        else:
            os.environ["HPCGRADE_LEASES"] = self.old
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_threads_and_processes_take_turns_on_one_resource(self):
        workers = [threading.Thread(target=hold_in_process, args=(self.dir, "gpu0", 0.2)) for _ in range(3)]
        workers += [multiprocessing.Process(target=hold_in_process, args=(self.dir, "gpu0", 0.2)) for _ in range(2)]
        t = time.monotonic()
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        self.assertGreaterEqual(time.monotonic() - t, 5 * 0.2)
        records = lease.intervals()
        self.assertEqual(len(records), 5)
        self.assertEqual(lease.overlaps(records), [])

    def test_two_resources_do_not_wait_for_each_other(self):
        # gpu0's holder lets go only once gpu1 has been taken: were the two
        # one lease, this would wait out the timeout.
        taken = threading.Event()

        def hold_gpu0():
            with lease.hold("gpu0", "a"):
                taken.wait(30)

        a = threading.Thread(target=hold_gpu0)
        a.start()
        with lease.hold("gpu1", "b"):
            taken.set()
        a.join()
        self.assertTrue(taken.is_set())
        records = {r["resource"]: r for r in lease.intervals()}
        self.assertLess(records["gpu0"]["end"] - records["gpu0"]["start"], 29)

    def test_places_are_never_held_beyond_their_number_across_processes(self):
        # Four processes want 1, 2, 3 and 3 of 4 places: never more than 4
        # are held at once, each gets all it asked for, and one that wants
        # 3 is not starved by holding 1 and waiting (all or nothing).
        log = os.path.join(self.dir, "places.log")
        workers = [multiprocessing.Process(target=take_places_in_process, args=(self.dir, 4, n, 0.3, log))
                   for n in (1, 2, 3, 3)]
        t = time.monotonic()
        for w in workers:
            w.start()
        for w in workers:
            w.join(30)
        self.assertEqual([w.exitcode for w in workers], [0, 0, 0, 0])
        with open(log) as f:
            events = sorted((float(a), int(b)) for a, b in (line.split() for line in f))
        held, peak = 0, 0
        for _, change in events:
            held += change
            peak = max(peak, held)
        self.assertEqual(held, 0)
        self.assertLessEqual(peak, 4)
        self.assertEqual(sorted(c for _, c in events if c > 0), [1, 2, 3, 3])
        # 1+3 or 2 alone, 3 alone, ...: at least three rounds of 0.3 s.
        self.assertGreaterEqual(time.monotonic() - t, 3 * 0.3)

    def test_places_in_threads_and_a_request_above_the_total(self):
        with lease.places("cuda", 2, 5) as held:
            self.assertEqual(held, 2)  # never more than there are
            got = []

            def take_one():
                with lease.places("cuda", 2) as n:
                    got.append(n)
            t = threading.Thread(target=take_one)
            t.start()
            t.join(0.3)
            self.assertTrue(t.is_alive(), "a thread got a place while all were held")
        t.join(10)
        self.assertEqual(got, [1])
        with unittest.mock.patch.dict(os.environ, {"HPCGRADE_CUDA_PROCESSES": ""}):
            self.assertEqual(lease.cuda_processes(), lease.CUDA_PROCESSES)
        with unittest.mock.patch.dict(os.environ, {"HPCGRADE_CUDA_PROCESSES": " 6 "}):
            self.assertEqual(lease.cuda_processes(), 6)
        for bad in ("0", "six", "-1", "2.5", "\u0663"):
            with unittest.mock.patch.dict(os.environ, {"HPCGRADE_CUDA_PROCESSES": bad}):
                with self.assertRaisesRegex(ValueError, "HPCGRADE_CUDA_PROCESSES"):
                    lease.cuda_processes()

    def test_overlaps_finds_exactly_the_overlapping_pairs(self):
        rs = [{"resource": "host", "start": 0, "end": 2}, {"resource": "host", "start": 1, "end": 3},
              {"resource": "host", "start": 3, "end": 4}, {"resource": "gpu0", "start": 0, "end": 9}]
        self.assertEqual(lease.overlaps(rs), [(rs[0], rs[1])])

    def test_the_holder_of_a_lease_is_released_when_it_dies(self):
        p = multiprocessing.Process(target=hold_in_process, args=(self.dir, "host", 60))
        p.start()
        time.sleep(0.3)
        p.kill()
        p.join()
        t = time.monotonic()
        with lease.hold("host", "after"):
            pass
        self.assertLess(time.monotonic() - t, 5)

    def test_a_timed_phase_waits_for_running_commands_and_queues_new_ones(self):
        # A command runs (shared) when the timed phase asks; a second command
        # asks while the phase waits: it must wait for the phase, which must
        # wait for the first, so that nothing runs beside the timing.
        events = {}

        def command(name, delay, seconds):
            time.sleep(delay)
            with lease.share(["host"], name):
                events[name] = time.monotonic()
                time.sleep(seconds)

        first = threading.Thread(target=command, args=("first", 0, 0.4))
        second = threading.Thread(target=command, args=("second", 0.2, 0.05))
        first.start()
        second.start()
        time.sleep(0.1)
        with lease.hold("host", "timed"):
            timed = time.monotonic()
            time.sleep(0.3)
        first.join()
        second.join()
        self.assertLess(events["first"], timed)
        self.assertGreater(events["second"], timed + 0.3)
        records = lease.intervals()
        self.assertEqual(sorted(r["mode"] for r in records), ["exclusive", "shared", "shared"])
        self.assertEqual(lease.overlaps(records), [])

    def test_commands_share_a_resource_with_each_other(self):
        start = threading.Barrier(3, timeout=10)

        def command():
            with lease.share(["host", "gpu0"], "command"):
                start.wait()  # all three hold the lease at once, or this times out

        workers = [threading.Thread(target=command) for _ in range(3)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        self.assertFalse(start.broken)
        self.assertEqual(len(lease.intervals()), 6)

    def test_overlaps_counts_a_shared_interval_only_against_an_exclusive_one(self):
        ex = {"resource": "gpu0", "mode": "exclusive", "start": 1, "end": 2}
        inside = {"resource": "gpu0", "mode": "shared", "start": 1.5, "end": 3}
        apart = {"resource": "gpu0", "mode": "shared", "start": 2, "end": 3}
        other = {"resource": "host", "mode": "shared", "start": 0, "end": 9}
        self.assertEqual(lease.overlaps([ex, inside, apart, other]), [(ex, inside)])
        self.assertEqual(lease.overlaps([inside, apart, other]), [])

    def test_a_grades_sandbox_holds_a_shared_lease_while_a_command_runs(self):
        class FakeSandbox:
            active = True

            def execute(self, argv):
                return [r["mode"] for r in lease.intervals()], argv

        shared = lease.Shared(FakeSandbox(), lease.resources_used(["0"]), "lab grade")
        self.assertTrue(shared.active)
        with lease.hold("host", "before"):
            pass
        logged_during, argv = shared.execute(["x"])
        self.assertEqual((logged_during, argv), (["exclusive"], ["x"]))
        self.assertEqual(sorted(r["resource"] for r in lease.intervals() if r["mode"] == "shared"),
                         ["gpu0", "host"])

    def test_a_command_inside_its_own_grades_exclusive_phase_runs_at_once(self):
        # The profile step runs its commands while it holds the GPU alone:
        # their shared lease must not wait for that very phase (it did,
        # forever), while another grade's command still waits for its end.
        class FakeSandbox:
            def execute(self, argv):
                return argv

        shared = lease.Shared(FakeSandbox(), lease.resources_used(["0"]), "lab grade")
        ran, other_ran = threading.Event(), threading.Event()

        def another_grade():
            with lease.share(["gpu0"], "another grade"):
                other_ran.set()

        def the_grade():  # in a thread only so that a relapse fails, not hangs
            with lease.hold(["gpu0"], "lab grade profile"):
                worker.start()
                if not other_ran.wait(0.3) and shared.execute(["x"]) == ["x"]:
                    ran.set()

        worker = threading.Thread(target=another_grade)
        grade = threading.Thread(target=the_grade, daemon=True)
        grade.start()
        grade.join(10)
        self.assertTrue(ran.is_set(), "the grade's own command waited for its own exclusive phase, "
                                      "or another grade's ran inside it")
        worker.join(10)
        self.assertTrue(other_ran.is_set())
        mine = [r for r in lease.intervals() if r["who"] == "lab grade"]
        self.assertEqual([r["resource"] for r in mine], ["host"], "only what the phase did not hold is shared")

    def test_busy_fractions_merge_overlaps_and_clip_to_the_run(self):
        from hpcgrade import classrun
        records = [{"resource": "gpu0", "mode": "shared", "start": 0, "end": 4},
                   {"resource": "gpu0", "mode": "shared", "start": 2, "end": 6},
                   {"resource": "gpu0", "mode": "exclusive", "start": 7, "end": 8},
                   {"resource": "host", "mode": "shared", "start": -5, "end": 20},
                   {"resource": "gpu1", "mode": "exclusive", "start": 11, "end": 12}]
        fractions = lease.busy_fractions(records, 0, 10)
        self.assertEqual(fractions, {"gpu0": (0.7, 0.1), "host": (1.0, 0.0)})
        self.assertEqual(classrun.utilisation_text(fractions), "busy: gpu0 70% (timed 10%), host 100% (timed 0%)")
        self.assertEqual(classrun.utilisation_text({}), "busy: no lease was held")

    def test_the_lease_directory_is_the_graders_alone(self):
        # A lock file that another uid can open for reading is a lock it can hold.
        os.chmod(self.dir, 0o755)
        with lease.hold("host", "timed"):
            pass
        self.assertEqual(os.stat(self.dir).st_mode & 0o077, 0)
        # A cache that is not a directory has no intervals (the grade's own error says why).
        blocker = os.path.join(self.dir, "a-file")
        open(blocker, "w").close()
        self.assertEqual(lease.intervals(os.path.join(blocker, "leases")), [])

    def test_resource_names(self):
        self.assertEqual(lease.resource_for(True), "gpu0")
        self.assertEqual(lease.resource_for(True, 1), "gpu1")
        self.assertEqual(lease.resource_for(False), "host")
        self.assertEqual(lease.resources_used([]), ["host"])
        self.assertEqual(lease.resources_used(["2"]), ["host", "gpu2"])

    def test_grades_spread_over_the_gpus_and_see_only_theirs(self):
        # Three GPUs: one grade after another takes the next, a lab whose
        # tests use several takes all, a CPU lab none.
        three = ["0", "1", "2"]
        self.assertEqual([lease.devices_for(True, ids=three) for _ in range(4)], [["0"], ["1"], ["2"], ["0"]])
        self.assertEqual(lease.devices_for(True, every_gpu=True, ids=three), three)
        self.assertEqual(lease.devices_for(False, ids=three), [])
        self.assertEqual(lease.devices_for(True, ids=["0"]), ["0"])
        self.assertEqual(lease.devices_for(True, ids=[]), ["0"])
        mine = {}  # the grader's environment without CUDA_VISIBLE_DEVICES
        self.assertEqual(lease.visible_devices(["1"], three, mine), "1")
        self.assertIsNone(lease.visible_devices(three, three, mine))
        self.assertIsNone(lease.visible_devices(["0"], ["0"], mine))
        self.assertIsNone(lease.visible_devices([], three, mine))
        # Slurm gave this job GPUs 2 and 3: a grade uses one of them, and
        # one that uses both still passes them on (its runs' environment is
        # built afresh).
        slurm = {"CUDA_VISIBLE_DEVICES": "2,3"}
        self.assertEqual(host.gpu_ids(slurm), ["2", "3"])
        self.assertEqual(host.gpu_ids({"CUDA_VISIBLE_DEVICES": ""}), [])
        self.assertIn(lease.devices_for(True, ids=host.gpu_ids(slurm)), [["2"], ["3"]])
        self.assertEqual(lease.visible_devices(["2", "3"], ["2", "3"], slurm), "2,3")
        self.assertEqual(lease.resource_for(True, "GPU-8f4c"), "gpuGPU-8f4c")

        class FakeSandbox:
            def execute(self, argv, limits, ro=(), rw=(), cwd="/", env=None):
                return env

            start = execute

        shared = lease.Shared(FakeSandbox(), lease.resources_used(["1"]), "lab grade", visible="1")
        # Every command and the timed run, env given by keyword, by position or not at all.
        self.assertEqual(shared.execute(["x"], None)["CUDA_VISIBLE_DEVICES"], "1")
        self.assertEqual(shared.execute(["x"], None, env={"A": "b"}), {"A": "b", "CUDA_VISIBLE_DEVICES": "1"})
        self.assertEqual(shared.execute(["x"], None, (), (), "/", {"A": "b"}),
                         {"A": "b", "CUDA_VISIBLE_DEVICES": "1"})
        self.assertEqual(shared.start(["x"], None)["CUDA_VISIBLE_DEVICES"], "1")
        self.assertIsNone(lease.Shared(FakeSandbox(), ["host"], "cpu lab").execute(["x"], None))
        self.assertEqual({r["resource"] for r in lease.intervals()}, {"host", "gpu1"})


class TimedClass(unittest.TestCase):
    """grade-class --parallel 2 with timing on, on 2 cores."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="hpcgrade-timed-class-")
        cls.leases = os.path.join(cls.tmp, "leases")
        cls.seed = secrets.randbits(62) | 1
        roster = cls.roster = os.path.join(cls.tmp, "roster")
        selfcheck.patched_submission(ROOT, LAB, None, os.path.join(roster, "solution"))
        selfcheck.patched_submission(ROOT, LAB, None, os.path.join(roster, "starter"), base="labs")
        scratch = os.path.join(cls.tmp, "scratch")
        os.makedirs(scratch)
        shutil.copytree(helpers.fixture_copy(LAB, "slowed", scratch), os.path.join(roster, "slowed"))
        cls.env = dict(os.environ, HPCGRADE_LEASES=cls.leases, **{pipeline.SEED_VARIABLE: str(cls.seed)})
        cls.out = os.path.join(cls.tmp, "out")
        t = time.monotonic()
        p = subprocess.run([sys.executable, os.path.join(ROOT, "grading", "grade-class"), LAB, roster, "--out",
                            cls.out, "--parallel", "2", "--jobs", "1", "--rounds", "1"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=cls.env, timeout=1500)
        cls.code, cls.output = p.returncode, p.stdout.decode("utf-8", "replace")
        print("timed class of 3: %.0f s" % (time.monotonic() - t))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def results(self, name):
        data, why = gradebook.load_results(gradebook.results_path(self.out, name))
        self.assertIsNotNone(data, "%s: %s\n%s" % (name, why, self.output))
        return data

    def test_no_two_timed_phases_overlapped(self):
        self.assertEqual(self.code, 0, self.output)
        records = lease.intervals(self.leases)
        timed = [r for r in records if r["mode"] == "exclusive"]
        # The solution and the slowed copy pass every visible test, so both are
        # timed; the starter is not.
        self.assertEqual(sorted(r["who"] for r in timed), ["%s submission" % LAB] * 2, timed)
        self.assertEqual({r["resource"] for r in timed}, {"host"})
        # Every command of the three grades held the host shared: none ran
        # beside a timed phase.
        self.assertEqual({r["who"] for r in records if r["mode"] == "shared"},
                         {"%s submission" % LAB}, records[:5])
        self.assertGreater(len(records), len(timed) + 3)
        self.assertEqual(lease.overlaps(records), [])

    def test_the_run_reports_its_throughput_and_utilisation(self):
        self.assertRegex(self.output, r"\n3 graded in \d+ (s|min): [\d.]+ per minute; time per phase, summed: prepare ")
        self.assertRegex(self.output, r"\nbusy: host \d+% \(timed [1-9]\d*%\)")

    def test_speed_points_still_tell_fast_from_slow(self):
        solution, slowed = score_of(self.results("solution"), PERF), score_of(self.results("slowed"), PERF)
        self.assertEqual(solution["score"], solution["max_score"], solution["output"])
        self.assertEqual(slowed["score"], 0, slowed["output"])
        self.assertEqual(self.results("starter")["score"], 0)

    def test_tests_score_as_in_a_grade_of_their_own(self):
        for name in ("solution", "slowed"):
            code, out, alone = helpers.grade([LAB, "--submission", os.path.join(self.roster, name), "--no-perf",
                                              "--quiet", "--jobs", "2"], env_extra={pipeline.SEED_VARIABLE: str(self.seed)})
            self.assertEqual(code, 0, out)
            in_class = self.results(name)
            self.assertEqual(in_class["extra_data"]["seed"], alone["extra_data"]["seed"])
            self.assertEqual(test_points(in_class), test_points(alone), name)


def score_of(data, name):
    return next(t for t in data["tests"] if t["name"] == name)


def test_points(data):
    kinds = data["extra_data"]["kinds"]
    return {t["name"]: t["score"] for t in data["tests"] if kinds[t["name"]] in (score.VISIBLE, score.HIDDEN)}
