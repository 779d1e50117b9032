"""Record in the submission's build, judge in the starter's (see
common/include/hpclab/judged.hpp for the C++ side).

For every rubric test:
  record  the submission's test binary runs the test in its own sandboxed
          process with HPCLAB_JUDGE_RECORD: every call into student code
          writes what it returned, or threw, to a record file (or with a
          few other tests in one process, record_together, which leaves
          any test it did not record completely to a process of its own);
  judge   the starter's test binary (no student code in it: a call into its
          skeleton throws "not implemented") runs the same test bodies with
          HPCLAB_JUDGE_REPLAY: each judged call reads the recorded outputs,
          and the tests' own assertions judge them. One judge process runs
          every test of a binary (and a rank count); a test it could not
          finish is judged again alone.
Both runs get the grade's seed (HPCLAB_SEED), drawn when the grade starts,
so the inputs are the same in both and unknown to the submission before.

A test passes only if the judge's GoogleTest report says so, the judge read
a complete record for it ("record": "ok" in its notes), and the recording
process ended by itself (no signal, no timeout). Nothing the submission's
process prints, exits with or writes besides its record is read for a score.
"""
import contextlib
import dataclasses
import json
import os
import re
import shutil
import stat
import threading
import time
from dataclasses import dataclass, field
from typing import List, Optional

from . import lease
from .manifest import matches_any
from . import sandbox as sb_mod

PASSED, FAILED, SKIPPED = "passed", "failed", "skipped"
MAX_RECORD_BYTES = 256 << 20  # per test and rank; far above any lab's outputs


@dataclass
class Verdict:
    status: str                 # passed / failed / skipped
    reason: str                 # one line in plain words
    detail: str = ""            # the judge's failure messages, output excerpts
    seconds: float = 0.0        # wall time of the recording run(s)
    notes: List[str] = field(default_factory=list)  # reported, never scored

    needs: str = ""             # what a skip needs, as the test recorded it ("gpu")

    @property
    def needs_gpu(self):
        return self.status == SKIPPED and self.needs == "gpu"


def test_limits(timeout_s, memory_bytes):
    return sb_mod.Limits(wall_s=timeout_s, cpu_s=int(max(30, 4 * timeout_s)), data_bytes=memory_bytes,
                         fsize_bytes=MAX_RECORD_BYTES)


def file_name(test, rank):
    """The record file of TEST on RANK (as judged.cpp names it)."""
    out = []
    for ch in test:
        if ch.isascii() and (ch.isalnum() or ch in "._-"):
            out.append(ch)
        else:
            out.extend("%%%02X" % b for b in ch.encode())
    return "".join(out) + ".r%d" % rank


def pieces(f, limit, size=1 << 20):
    """The first LIMIT bytes of F, in pieces of SIZE. f.read(limit) would
    allocate the whole limit at once, which malloc fills byte by byte under
    meson test's MALLOC_PERTURB_: with 256 MiB a record, a lab 01 grade took
    55 s instead of 15."""
    left = limit
    while left > 0:
        piece = f.read(min(left, size))
        if not piece:
            return
        yield piece
        left -= len(piece)


def read_at_most(path, limit):
    with open(path, "rb") as f:
        return b"".join(pieces(f, limit))


def open_regular(path):
    """(descriptor, size, "") of the regular file at PATH, opened read-only
    without following a link or blocking on a FIFO; (None, 0, why) for
    anything else. The caller closes the descriptor."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as e:
        return None, 0, "cannot be read (%s)" % (e.strerror or e)
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        return None, 0, "is not a regular file"
    return fd, st.st_size, ""


def copy_record(src, dst, limit=MAX_RECORD_BYTES):
    """Copy a record file the submission wrote, refusing links, non-files
    and oversized files. Returns why it was refused, or ""."""
    fd, size, why = open_regular(src)
    if fd is None:
        return why
    try:
        if size > limit:
            return "is larger than %d bytes" % limit
        # At most LIMIT bytes, also from a file that grew after the fstat.
        with os.fdopen(os.dup(fd), "rb") as fi, open(dst, "wb") as fo:
            for piece in pieces(fi, limit):
                fo.write(piece)
    finally:
        os.close(fd)
    return ""


@dataclass
class Run:
    """How to start one test binary: MPI rank count (None: no mpirun)."""
    np: Optional[str] = None

    def prefix(self, mpirun):
        return [mpirun, "-np", self.np, "--oversubscribe"] if self.np else []

    def ranks(self):
        return int(self.np) if self.np else 1

    def label(self):
        return " (with %s MPI ranks)" % self.np if self.np else ""


def runs_for(manifest, test=None):
    """How TEST (every test when None) is started: once per rank count of
    lab.json's "mpi_ranks", or once with the fewest ranks for a test that
    "one_rank_tests" names (a serial or one-GPU test: more ranks would run
    the same code again, side by side, and check nothing new)."""
    if test is not None and manifest["mpi_ranks"] and matches_any(test, manifest.get("one_rank_tests", [])):
        return [Run(manifest["mpi_ranks"][0])]
    return [Run(np) for np in manifest["mpi_ranks"]] or [Run()]


# judged.cpp ends a test's record with the tag 'E' and two 32-bit thread
# counts; a record without it was cut short (the judge reads the whole file
# and says so).
END_OF_TEST_BYTES = 9


def ends_a_test(path):
    """Whether the record file at PATH (a regular file, not a link) ends as
    a finished test's does. Only which tests to record again alone hangs on
    it: the judge reads every record in full."""
    fd, size, _ = open_regular(path)
    if fd is None:
        return False
    try:
        if size < END_OF_TEST_BYTES:
            return False
        os.lseek(fd, -END_OF_TEST_BYTES, os.SEEK_END)
        return os.read(fd, 1) == b"E"
    finally:
        os.close(fd)


RUN_LINE = re.compile(r"^\[ RUN      \] (\S+)$", re.M)


def output_by_test(text, tests):
    """{test: its part of TEXT}, the output of one GoogleTest process that
    ran TESTS: from each test's start line to its end line ("[       OK ]",
    "[  FAILED  ]", "[  SKIPPED ]"), or to the next start line when it has
    none. The process's closing summary belongs to no test."""
    wanted, parts = set(tests), {}
    starts = [(m.start(), m.group(1)) for m in RUN_LINE.finditer(text)]
    for (at, name), nxt in zip(starts, starts[1:] + [(len(text), None)]):
        if name in wanted and name not in parts:
            part = text[at:nxt[0]]
            end = re.search(r"^\[ +(?:OK|FAILED|SKIPPED) +\] %s(?: \(.*\))?$\n?" % re.escape(name), part, re.M)
            parts[name] = part[:end.end()] if end else part
    return parts


class CoreTokens:
    """TOTAL cores, lent by count: held(n) waits until n of them (at most
    TOTAL) are free, so that a run's ranks each have a core of their own."""

    def __init__(self, total):
        self.total = max(1, int(total))
        self.free = self.total
        self.cond = threading.Condition()

    @contextlib.contextmanager
    def held(self, n):
        n = max(1, min(int(n), self.total))
        with self.cond:
            self.cond.wait_for(lambda: self.free >= n)
            self.free -= n
        try:
            yield n
        finally:
            with self.cond:
                self.free += n
                self.cond.notify_all()


class Judging:
    """One grade's record and judge runs. CTX is the pipeline's Grade."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.records = os.path.join(ctx.scratch, "records")  # root-owned copies
        os.makedirs(self.records, exist_ok=True)
        self.record_outcomes = {}  # (test, np) -> sandbox.Outcome
        self.record_problems = {}  # (test, np) -> why a record file was refused
        self.runs = []  # one entry per judge() call: what it ran and how long it took

    def env(self, extra):
        # mpi_yield_when_idle: a rank that waits gives up its core. Records
        # and judges are not timed, and several grades' ranks may share the
        # host's cores; a rank that spins while its peer waits for that core
        # turns a 1 s test into many (Open MPI busy-polls by default).
        env = sb_mod.base_env({"GTEST_COLOR": "no", "HPCLAB_SEED": str(self.ctx.seed),
                               "OMPI_MCA_mpi_yield_when_idle": "1"})
        env.update(extra)
        return env

    def record_dir(self, run, kind):
        d = os.path.join(self.records, run.np or "1", kind)
        os.makedirs(d, exist_ok=True)
        # For the judge to read; with uids apart (no bubblewrap), for the
        # judges' group only: no other grade's submission reads them.
        group = self.ctx.sandbox.trusted_gid()
        for p in (d, os.path.dirname(d), self.records):
            os.chmod(p, 0o755 if group is None else 0o750)
            if group is not None:
                os.chown(p, 0, group)
        return d

    # ---- record -----------------------------------------------------------

    def record(self, item, binary, run, ro):
        """Run ITEM's test once in the submission's BINARY, recording; RO: the
        one tree it may read (its test set's build)."""
        outcome, rec, run_dir = self._recording_run([item.test], binary, run, ro)
        self.record_outcomes[(item.test, run.np)] = outcome
        self._keep_record(item, run, rec)
        shutil.rmtree(run_dir, ignore_errors=True)
        return outcome

    def record_together(self, items, binary, run, ro):
        """Record ITEMS (tests of one binary) in one process, under one
        test's limits: a CUDA lab's process pays the driver's start once for
        them all. Returns the items to record alone, as record() does: every
        one when the process did not end by itself (a crash, the time limit),
        else those it left without a complete record (one that ended the
        process, or a test after it). A test recorded here thus passes only
        if it finished within its own limit in a process that ended by
        itself, as alone. Its time is an equal share of the process's, its
        output the lines from its GoogleTest start line to the next."""
        outcome, rec, run_dir = self._recording_run([it.test for it in items], binary, run, ro)
        alone = list(items)
        if outcome.ended_by_itself:
            parts = output_by_test(outcome.output, [it.test for it in items])
            alone = []
            for it in items:
                if not all(ends_a_test(os.path.join(rec, file_name(it.test, r))) for r in range(run.ranks())):
                    alone.append(it)
                    continue
                self.record_outcomes[(it.test, run.np)] = dataclasses.replace(
                    outcome, output=parts.get(it.test, ""), wall_s=outcome.wall_s / len(items))
                self._keep_record(it, run, rec)
        shutil.rmtree(run_dir, ignore_errors=True)
        return alone

    def _recording_run(self, tests, binary, run, ro):
        """One sandboxed run of TESTS in BINARY with HPCLAB_JUDGE_RECORD:
        (outcome, the records' directory, the run directory to remove)."""
        ctx = self.ctx
        ws = ctx.ws
        run_dir = ws.new_run_dir()
        rec = os.path.join(run_dir, "rec")
        os.mkdir(rec)
        ctx.sandbox.own(rec)
        argv = run.prefix(ctx.mpirun) + [binary, "--gtest_filter=" + ":".join(tests), "--gtest_color=no"]
        timeout = min(ctx.opts.test_timeout, max(1.0, ctx.deadline.remaining()))
        # OMP_WAIT_POLICY: OpenMP's threads park at once after a region,
        # rather than spinning for milliseconds, which the recorder would wait
        # out after every call (a recording is not timed).
        env = {"HPCLAB_JUDGE_RECORD": rec, "OMP_WAIT_POLICY": "passive"}
        if "cuda" in ctx.manifest["needs"]:
            # The CUDA driver starts before the test, so that its threads are
            # known as its own (common/src/judged_settle.cpp).
            env["HPCLAB_JUDGE_CUDA"] = "1"
        # Profile "record": no timers nor other ways to change a call's
        # outputs after its record was written (seccomp.py).
        # A CUDA lab's run holds a place per rank among the host's CUDA
        # processes (lease.CUDA_PROCESSES says why), across every grade.
        with lease.places("cuda", lease.cuda_processes(), run.ranks()) if "HPCLAB_JUDGE_CUDA" in env \
                else contextlib.nullcontext():
            outcome = ctx.sandbox.execute(argv, test_limits(timeout, ctx.opts.memory_bytes), ro=list(ro),
                                          rw=[run_dir], cwd=run_dir, env=self.env(env), profile="record")
        return outcome, rec, run_dir

    def _keep_record(self, item, run, rec):
        """Copy ITEM's record files (one per rank) out of REC for the judge."""
        dest = self.record_dir(run, item.kind)
        for rank in range(run.ranks()):
            name = file_name(item.test, rank)
            src = os.path.join(rec, name)
            if os.path.lexists(src):
                why = copy_record(src, os.path.join(dest, name))
                if why:
                    self.record_problems[(item.test, run.np)] = "the record file %s" % why

    # ---- judge ------------------------------------------------------------

    def judge(self, judge_build, kind, tests, run):
        """Judge TESTS (names) of binary KIND ('-tests' or '-hidden') for one
        rank count; returns {test: (gtest case or None, notes by rank)}."""
        t0 = time.monotonic()
        results = self._judge_once(judge_build, kind, tests, run)
        together = time.monotonic() - t0
        # A test the judge did not finish (it crashed or ran out of time) is
        # judged again alone, so one test cannot take the others with it.
        alone = [t for t in tests if results.get(t, (None, {}))[0] is None and len(tests) > 1]
        for t in alone:
            results.update(self._judge_once(judge_build, kind, [t], run))
        # Where a grade's judging time goes (results.json: extra_data.judge_runs).
        self.runs.append({"binary": kind.lstrip("-"), "ranks": run.ranks(), "tests": len(tests),
                          "seconds": round(together, 1), "judged_alone": len(alone),
                          "alone_seconds": round(time.monotonic() - t0 - together, 1)})
        return results

    def _judge_once(self, judge_build, kind, tests, run):
        ctx = self.ctx
        binary = judge_build.binary(ctx.lab, kind)
        if not judge_build.intact(binary):
            raise RuntimeError("the judge's binary %s changed after it was built" % binary)
        # The judge's run directory and its report are the judge's uid's
        # alone (no bubblewrap: the submission's uid is another).
        run_dir = ctx.scratch_run_dir(sb_mod.JUDGE)
        report = os.path.join(run_dir, "report.json")
        notes = os.path.join(run_dir, "notes")
        src_kind = "visible" if kind == "-tests" else "hidden"
        replay = self.record_dir(run, src_kind)
        argv = run.prefix(ctx.mpirun) + [binary, "--gtest_filter=" + ":".join(tests),
                                         "--gtest_output=json:" + report, "--gtest_color=no"]
        timeout = min(max(60.0, ctx.opts.test_timeout * len(tests)), max(1.0, ctx.deadline.remaining()))
        ctx.sandbox.own(run_dir, sb_mod.JUDGE)
        outcome = ctx.sandbox.execute(argv, test_limits(timeout, ctx.opts.memory_bytes),
                                      ro=[judge_build.build, replay], rw=[run_dir], cwd=run_dir,
                                      env=self.env({"HPCLAB_JUDGE_REPLAY": replay, "HPCLAB_JUDGE_NOTES": notes}),
                                      role=sb_mod.JUDGE)
        cases = {}
        try:
            data = json.loads(read_at_most(report, 64 << 20).decode("utf-8", "replace"))
            for name, case in test_cases(data):
                cases[name] = case
        except (OSError, ValueError, KeyError, TypeError):
            pass
        by_test = {t: {} for t in tests}
        for rank in range(run.ranks()):
            try:
                with open("%s.r%d" % (notes, rank), encoding="utf-8", errors="replace") as f:
                    for line in f:
                        try:
                            n = json.loads(line)
                        except ValueError:
                            continue
                        if n.get("test") in by_test:
                            by_test[n["test"]][rank] = n
            except OSError:
                pass
        shutil.rmtree(run_dir, ignore_errors=True)
        # A report from a judge that did not end normally is incomplete: trust
        # only the cases it holds, and only if the process ended by itself.
        complete = outcome.ended_by_itself
        return {t: (cases.get(t) if complete else None, by_test[t]) for t in tests}

    # ---- verdict ----------------------------------------------------------

    def verdict(self, test, run, case, notes, show_output=True):
        """The verdict of TEST for one rank count, from the judge's case, its
        notes (by rank) and how the recording run ended. SHOW_OUTPUT False (a
        hidden test): nothing the recording run printed goes into the
        verdict. There the submission runs inside the hidden tests' binary
        and could print it; its own output is not worth that risk."""
        rec = self.record_outcomes.get((test, run.np))

        def printed(text):
            return excerpt(text) if show_output else ""
        seconds = rec.wall_s if rec else 0.0
        where = run.label()
        if case is None:
            # An MPI judge ends its job when a record cannot be replayed; its
            # notes say why. A rank whose recording was stopped by another's
            # end says less than the rank that ended it (a refused call).
            failed = [n.get("record", "") for n in notes.values() if "judged call at " in n.get("record", "")]
            failed.sort(key=lambda why: "the recording run ended before" in why)
            if failed:
                why = failed[0][failed[0].index("judged call at "):]
                return Verdict(FAILED, "failed: " + why + where, seconds=seconds)
            return Verdict(FAILED, "the judge could not finish this test" + where + judge_hint(rec), seconds=seconds)
        result = case.get("result")
        failures = [f.get("failure", "") if isinstance(f, dict) else str(f) for f in case.get("failures", [])]
        if result == "SKIPPED":
            why = skip_message(case) or "skipped"
            return Verdict(SKIPPED, why, seconds=seconds, needs=str(case.get("hpclab_needs", "")))
        problem = self.record_problems.get((test, run.np))
        bad_notes = [(r, n.get("record", "?")) for r, n in sorted(notes.items()) if n.get("record") != "ok"]
        missing_ranks = [r for r in range(run.ranks()) if r not in notes]
        if rec is not None and not rec.ended_by_itself:
            reason = "the test " + rec.describe() + where
            return Verdict(FAILED, reason, printed(rec.output), seconds)
        if failures:
            text = "\n".join(failures)
            return Verdict(FAILED, failure_reason(text) + where, clip(tidy(text), 2000), seconds)
        if case.get("status") != "RUN" or result != "COMPLETED":
            return Verdict(FAILED, "the judge did not complete the test (%s)" % result, seconds=seconds)
        if problem:
            return Verdict(FAILED, problem + where, seconds=seconds)
        if bad_notes or missing_ranks:
            r, status = bad_notes[0] if bad_notes else (missing_ranks[0], "not read")
            why = {"missing": "no record: the recording run ended before this test started",
                   "incomplete": "the recording run ended before the test finished"}.get(status, "record " + status)
            tail = " (%s)" % rec.describe() if rec is not None and not rec.ok else ""
            return Verdict(FAILED, why + tail + where + ("" if run.ranks() == 1 else " on rank %d" % r),
                           printed(rec.output if rec else ""), seconds)
        v = Verdict(PASSED, "passed", printed(rec.output) if rec else "", seconds)
        left = [n.get("threads_at_end", 0) - n.get("threads_at_start", 0) for n in notes.values()]
        if any(x > 0 for x in left):
            v.notes.append("%d more thread(s) were running when the test ended than when it began "
                           "(thread pools of OpenMP, oneTBB or CUDA are expected to stay)" % max(left))
        if rec is not None and rec.truncated_bytes:
            v.notes.append("its output was cut: %d bytes beyond the first %d were dropped"
                           % (rec.truncated_bytes, sb_mod.OUTPUT_CAP))
        return v


def run_text(run):
    """One judge run (Judging.runs' entry) as a progress line."""
    kind = {"tests": "visible", "hidden": "hidden"}[run["binary"]]
    text = "judged %d %s tests on %d rank%s in %.1f s" % (run["tests"], kind, run["ranks"],
                                                          "" if run["ranks"] == 1 else "s", run["seconds"])
    if run["judged_alone"]:
        text += ", then %d again alone in %.1f s" % (run["judged_alone"], run["alone_seconds"])
    return text


def judge_hint(rec):
    if rec is None or rec.ok:
        return ""
    return " (the recording run " + rec.describe() + ")"


def test_cases(report):
    """(full name, testcase dict) for every test in a GoogleTest JSON report."""
    for suite in report["testsuites"]:
        for case in suite["testsuite"]:
            yield "%s.%s" % (case.get("classname", suite.get("name")), case["name"]), case


def skip_message(case):
    for key in ("skipped", "failures"):
        items = case.get(key)
        if isinstance(items, list):
            for item in items:
                text = (item.get("message") or item.get("skipped") or item.get("failure")
                        if isinstance(item, dict) else str(item))
                if text:
                    return text.strip().splitlines()[-1][:300]
    return ""


def first_line_with(text, needle):
    for line in text.splitlines():
        if needle in line:
            return line[line.index(needle):].strip()[:300]
    return ""


def tidy(text):
    """Paths as the student knows them (labs/..., not the build's ../src/labs/...)."""
    return text.replace("../src/", "")


def failure_reason(text):
    line = first_line_with(text, "not implemented:")
    if line:
        what = line[len("not implemented:"):].split("(look for")[0].strip()
        return "not implemented (%s)" % what if what else "not implemented"
    if "std::bad_alloc" in text:
        return "failed: ran out of memory (std::bad_alloc) under the grader's memory limit"
    judged = first_line_with(text, "judged call at ")
    if judged:
        return "failed: " + clip(judged.split(": ", 1)[-1], 200)
    if "C++ exception" in text or "threw an exception" in text or "Unknown C++ exception" in text:
        return "failed: an exception escaped: " + clip(first_line_with(text, "exception") or text, 200)
    return "failed: " + clip(" ".join(tidy(text).split()), 200)


GTEST_NOISE = ("Running main() from", "Note: Google Test filter", "[==========]", "[----------]", "[ RUN      ]",
               "[       OK ]", "[  FAILED  ]", "[  PASSED  ]", "[  SKIPPED ]", " 1 FAILED TEST", "Global test environment")


def excerpt(output, n=1500):
    """The program's own last lines (display only, never scored)."""
    keep = [l for l in output.splitlines() if l.strip() and not l.startswith(GTEST_NOISE)]
    text = "\n".join(keep).strip()
    if not text:
        return ""
    if len(text) > n:
        text = "[...]\n" + text[-n:]
    return "--- the program's own output (last lines) ---\n" + text


def clip(text, n):
    return text if len(text) <= n else text[:n] + " [...]"
