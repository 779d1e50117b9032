"""Performance, timed from outside the submission's process.

The grader holds the clock (see common/include/hpclab/timed.hpp for the
driver's side). The driver, started with `--serve DIR`, sets up and says
`ready`; then, for each repetition k, the grader draws a fresh seed, writes
`go k seed`, and stops its clock when `done k values...` arrives. The driver
makes the repetition's input from that seed inside the window, so the input
is new to it; the next `go` waits for this `done`, so nothing is deferred;
and the values (a digest of the output) must equal the reference's for the
same seed, so nothing is skipped. The reference and the submission run
alternately, each round with seeds of its own, for the same seeds within a
round. The score is the ratio of the medians of the timed repetitions
(warm-ups dropped), reference / submission; the spread is reported.

For a lab that needs no parallel feature the driver runs under the "single"
seccomp profile: no thread or process can be started, so its wall time is
the time of one core's work, and no work can be handed to a helper.
"""
import math
import os
import select
import statistics
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List

from . import sandbox as sb_mod

PARALLEL_NEEDS = {"openmp", "tbb", "mpi", "cuda", "cublas"}
MAX_LINE = 4096
MAX_VALUES = 64
# A benchmark's repetitions per round when lab.json does not say, and how
# many of the first ones are warm-ups (dropped).
DEFAULT_REPS = 10
DEFAULT_WARMUP = 2


def reps_and_warmup(bench):
    """Pure: (timed repetitions, warm-ups) of each round of lab.json's BENCH."""
    return int(bench.get("reps", DEFAULT_REPS)), int(bench.get("warmup", DEFAULT_WARMUP))


def profile_for(needs):
    return "default" if set(needs) & PARALLEL_NEEDS else "single"


class TimingError(Exception):
    """The measurement could not be made, or a repetition was wrong."""


@dataclass
class Series:
    """One driver's timed repetitions."""
    seconds: List[float] = field(default_factory=list)
    values: Dict[tuple, List[float]] = field(default_factory=dict)  # (round, k) -> values

    def median(self):
        return statistics.median(self.seconds)

    def spread(self):
        s = sorted(self.seconds)
        q = statistics.quantiles(s, n=4) if len(s) >= 2 else [s[0]] * 3
        return {"min": s[0], "q1": q[0], "median": statistics.median(s), "q3": q[2], "max": s[-1],
                "count": len(s)}


@dataclass
class Result:
    ref: Series
    sub: Series
    rounds: int
    reps: int
    warmup: int

    @property
    def ratio(self):
        return self.ref.median() / self.sub.median()


class Channel:
    """The grader's ends of the two FIFOs of one serving driver."""

    def __init__(self, directory):
        self.go = os.path.join(directory, "go")
        self.done = os.path.join(directory, "done")
        for p in (self.go, self.done):
            os.mkfifo(p, 0o600)
        self.w = self.r = None
        self.buf = b""

    def open(self):
        # O_RDWR: opening never waits for the driver's end.
        self.w = os.open(self.go, os.O_RDWR | os.O_CLOEXEC)
        self.r = os.open(self.done, os.O_RDWR | os.O_CLOEXEC | os.O_NONBLOCK)

    def close(self):
        for fd in (self.w, self.r):
            if fd is not None:
                os.close(fd)
        self.w = self.r = None

    def send(self, text):
        os.write(self.w, (text + "\n").encode())

    def receive(self, running, timeout):
        """The next line, or None when the driver ended or TIMEOUT passed."""
        end = time.perf_counter() + timeout
        while b"\n" not in self.buf:
            left = end - time.perf_counter()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.r], [], [], min(left, 0.1))
            if ready:
                try:
                    chunk = os.read(self.r, 65536)
                except BlockingIOError:
                    continue
                self.buf += chunk
                if len(self.buf) > MAX_LINE and b"\n" not in self.buf:
                    raise TimingError("the driver's reply is longer than %d bytes" % MAX_LINE)
            elif not running.alive():
                return None
        line, _, self.buf = self.buf.partition(b"\n")
        return line.decode("utf-8", "replace").strip()


def parse_done(line, k):
    """Pure: the values of `done K v...`, or raise TimingError."""
    parts = line.split()
    if len(parts) >= 2 and parts[0] == "error":
        raise TimingError("the driver failed in repetition %s: %s" % (parts[1], " ".join(parts[2:])[:300]))
    if len(parts) < 2 or parts[0] != "done" or parts[1] != str(k):
        raise TimingError("the driver answered %r to repetition %d" % (line[:100], k))
    if len(parts) - 2 > MAX_VALUES:
        raise TimingError("the driver's reply has too many values")
    try:
        return [float.fromhex(v) for v in parts[2:]]
    except ValueError:
        raise TimingError("the driver's reply is not a list of numbers: %r" % line[:100]) from None


@dataclass
class Runs:
    """What timing needs of a grade, and nothing more (pipeline's
    Grade.timing_runs makes one): where and until when drivers run, how
    they are started, and lab.json's benchmark."""
    sandbox: object                   # sandbox.Sandbox
    deadline: object                  # the grade's; .remaining() seconds
    run_dir: Callable[[str], str]     # a fresh directory a role's run may write
    mpi_prefix: List[str]             # mpirun's words, or none
    bench: dict                       # lab.json's benchmark
    needs: List[str]                  # lab.json's needs (the seccomp profile)
    memory_bytes: int                 # a driver run's memory limit
    rounds: int                       # alternating rounds


def serve_once(runs, binary, seeds, warmup, label, rep_timeout, series, rnd, ro, role):
    """Start BINARY with the benchmark's arguments and --serve as ROLE, time
    one repetition per seed (the first WARMUP are warm-ups), add the timed
    ones to SERIES. Afterwards no process of ROLE's uid is left (no
    bubblewrap: the submission's could otherwise slow or stop the
    reference's next run)."""
    run_dir = runs.run_dir(role)
    channel = Channel(run_dir)
    runs.sandbox.own(run_dir, role)
    argv = runs.mpi_prefix + [binary] + list(runs.bench["args"]) + ["--serve", run_dir]
    limits = sb_mod.Limits(wall_s=max(5.0, runs.deadline.remaining()), cpu_s=100000, data_bytes=runs.memory_bytes)
    running = runs.sandbox.start(argv, limits, ro=ro, rw=[run_dir], cwd=run_dir, env=sb_mod.base_env(),
                                 cap=64 * 1024, profile=profile_for(runs.needs), role=role)
    try:
        channel.open()
        line = channel.receive(running, min(180.0, max(1.0, runs.deadline.remaining())))
        if line != "ready":
            raise TimingError("%s did not start serving: %s" % (label, ended(running, line)))
        for k, seed in enumerate(seeds):
            t0 = time.perf_counter()
            channel.send("go %d %x" % (k, seed))
            line = channel.receive(running, min(rep_timeout, max(1.0, runs.deadline.remaining())))
            t1 = time.perf_counter()
            if line is None:
                raise TimingError("%s did not finish repetition %d: %s" % (label, k, ended(running, None)))
            values = parse_done(line, k)
            if k >= warmup:
                series.seconds.append(t1 - t0)
                series.values[(rnd, k)] = values
        channel.send("end")
        outcome = running.wait(timeout=30)
        if not outcome.ok:
            raise TimingError("%s %s after its repetitions" % (label, outcome.describe()))
    except TimingError as e:
        raise TimingError(str(e)) from None
    finally:
        running.kill()
        runs.sandbox.end(role)
        channel.close()
        import shutil
        shutil.rmtree(run_dir, ignore_errors=True)


def ended(running, line):
    o = running.wait(timeout=5)
    tail = " ".join(o.output.strip().splitlines()[-3:])[:300]
    said = " (it said %r)" % line[:100] if line else ""
    return "%s%s%s" % (o.describe(), said, ": " + tail if tail else "")


def same(values_sub, values_ref, check):
    """Pure: do a repetition's values agree with the reference's? "exact":
    the same bits. A tolerance: the same bits, or both finite and within it;
    so NaN matches only NaN and an infinity only itself (an infinite
    reference would otherwise accept anything: inf <= inf)."""
    if len(values_sub) != len(values_ref):
        return False
    if check == "exact":
        return all(a.hex() == b.hex() for a, b in zip(values_sub, values_ref))
    rel, absolute = float(check.get("rel", 0)), float(check.get("abs", 0))
    return all(a.hex() == b.hex() or (math.isfinite(a) and math.isfinite(b) and abs(a - b) <= absolute + rel * abs(b))
               for a, b in zip(values_sub, values_ref))


def measure(runs, sub_binary, sub_ro, ref_binary, ref_ro):
    """Time the submission against the reference (RUNS: a Runs); returns a
    Result or raises TimingError with a sentence for the report."""
    import secrets
    reps, warmup = reps_and_warmup(runs.bench)
    check = runs.bench.get("check", "exact")
    ref, sub = Series(), Series()
    for rnd in range(runs.rounds):
        seeds = [secrets.randbits(64) for _ in range(warmup + reps)]
        order = [(sb_mod.REFERENCE, ref_binary, ref, ref_ro), (sb_mod.SUBMISSION, sub_binary, sub, sub_ro)]
        if rnd % 2:
            order.reverse()
        for who, binary, series, ro in order:
            label = "the reference driver" if who == sb_mod.REFERENCE else "your driver"
            # A repetition may take 20 times the reference's median before it
            # counts as hung (generous: the score is zero long before).
            rep_timeout = max(10.0, 20 * ref.median()) if ref.seconds else 300.0
            serve_once(runs, binary, seeds, warmup, label, rep_timeout, series, rnd, ro, who)
    for key, want in ref.values.items():
        got = sub.values.get(key)
        if got is None or not same(got, want, check):
            rnd, k = key
            raise TimingError("repetition %d of round %d gave a wrong result (its values %s, the reference's "
                              "%s): speed counts only for right answers" % (k, rnd + 1, fmt(got), fmt(want)))
    return Result(ref, sub, runs.rounds, reps, warmup)


def fmt(values):
    if values is None:
        return "none"
    return "[" + ", ".join("%.10g" % v for v in values[:4]) + (", ..." if len(values) > 4 else "") + "]"


def describe(result, full, floor):
    """The report's sentence about a Result."""
    r, s = result.ref.spread(), result.sub.spread()

    def ms(x):
        return "%.3f ms" % (1e3 * x)
    return ("time per repetition, measured by the grader outside the driver (median of %d repetitions over %d "
            "alternating rounds, each on fresh input): reference %s, yours %s; ratio reference/yours = %.2f "
            "(full marks at >= %g, zero at <= %g). Spread (min / quartiles / max): reference %s / %s-%s / %s, "
            "yours %s / %s-%s / %s"
            % (s["count"], result.rounds, ms(r["median"]), ms(s["median"]), result.ratio, full, floor,
               ms(r["min"]), ms(r["q1"]), ms(r["q3"]), ms(r["max"]), ms(s["min"]), ms(s["q1"]), ms(s["q3"]),
               ms(s["max"])))
