"""One lab's grade, in the order it happens:

  prepare   read the manifest, copy the build inputs and the submission's
            student files into a private workspace, list for a human what
            the files use that a lab does not need (a report, never a score)
  build     compile the submission's tests in the sandbox (the hidden tests
            are added only after the visible ones built, and removed again);
            get the judge's build (the starter with every test, no student
            code) from the cache, or make it
  record    run every rubric test in the submission's build, one sandboxed
            process per test (and per MPI rank count), recording its calls
  judge     replay the records in the judge's build; the verdicts
  time      the driver against the reference, timed from outside
  sanitize  compute-sanitizer on a GPU lab's tests
  profile   Nsight Compute's counters of one run of the driver and of the
            reference's, side by side (never scored; after the timing)
  report    results.json (Gradescope's schema) and the table

Every step reads and fills one Grade. A step that finds the rest cannot run
(the code does not compile, the lab cannot be built here) says so in the
items and sets `done`. Nothing the submission does makes a step raise; a
grader bug is reported as an internal error, with results still written.
"""
import concurrent.futures
import os
import secrets
import shutil
import sys
import tempfile
import time
import traceback

from . import answers, build, host, inputs, judging, lease, manifest, profile, report, sanitize, scan, score, speed, \
    timing, workspace
from . import sandbox as sb_mod

DEFAULT_TEST_TIMEOUT = 20.0
DEFAULT_TIME_LIMIT = 1800.0
DEFAULT_MEMORY_GIB = 4.0
DEFAULT_ROUNDS = 3


class Options:
    def __init__(self, jobs=None, test_timeout=DEFAULT_TEST_TIMEOUT, time_limit=DEFAULT_TIME_LIMIT,
                 memory_gib=DEFAULT_MEMORY_GIB, rounds=DEFAULT_ROUNDS, keep=False, perf=True,
                 use_bwrap=True, quiet=False, sanitize=True, first_loss=False, hidden_visibility=None,
                 profile=False):
        self.jobs = jobs or max(1, min(4, os.cpu_count() or 1))
        self.test_timeout = test_timeout
        self.time_limit = time_limit
        self.memory_bytes = int(memory_gib * sb_mod.GiB)
        self.rounds = rounds
        self.keep = keep
        self.perf = perf
        # The counters' table (never scored); asked for with --profile, and
        # --no-perf skips it too. Not by default: on the H200 (session 17) a
        # sandboxed ncu run did not finish within its limit, while the same
        # ncu outside the sandbox (tools/profile) did in seconds.
        self.profile = profile and perf
        self.sanitize = sanitize
        self.use_bwrap = use_bwrap
        self.quiet = quiet
        # The self-check's mutants: stop judging at the first test that
        # loses points (the mutant is caught; the rest would only cost time).
        self.first_loss = first_loss
        # With first_loss, the tests judged first (fnmatch patterns): those a
        # mutant's mutant.json says are meant to catch it.
        self.first_tests = []
        # When a student sees the hidden tests' items (report.HIDDEN_VISIBILITIES);
        # None: lab.json's tests.hidden.visibility, else the default.
        self.hidden_visibility = hidden_visibility


SEED_VARIABLE = "HPCGRADE_SEED"


def fixed_seed():
    """The seed an instructor fixed with HPCGRADE_SEED (to reproduce a grade,
    or to give a whole class the same test data), else None. A submission
    cannot set it: it is read before anything of the submission runs."""
    text = os.environ.get(SEED_VARIABLE, "").strip()
    if not text:
        return None
    try:
        seed = int(text)
    except ValueError:
        raise inputs.UsageError("%s=%r is not a whole number" % (SEED_VARIABLE, text))
    if not 0 < seed < 2 ** 63:
        raise inputs.UsageError("%s=%s must be between 1 and 2^63 - 1" % (SEED_VARIABLE, text))
    return seed


class Deadline:
    def __init__(self, seconds):
        self.end = time.monotonic() + seconds
        self.seconds = seconds

    def remaining(self):
        return self.end - time.monotonic()


class Grade:
    """Everything one grade knows; the steps read and fill it."""

    def __init__(self, root, lab, kind, submission, opts, sandbox, log):
        self.root, self.lab, self.kind, self.submission = root, lab, kind, submission
        self.opts, self.log = opts, log
        self.t0 = time.monotonic()
        self.deadline = Deadline(opts.time_limit)
        self.manifest = manifest.check_grading_fields(manifest.load(root, lab))
        # Every command of this grade holds a shared lease of what it uses, so
        # that another grade's timed phase never runs beside it (lease.py).
        # Its GPUs: one in turn, or every one for a lab whose tests use
        # several (lab.json "every_gpu").
        self.devices = lease.devices_for(self.manifest["needs_gpu"], bool(self.manifest.get("every_gpu")))
        self.sandbox = lease.Shared(sandbox, lease.resources_used(self.devices), "%s %s" % (lab, kind),
                                    lease.visible_devices(self.devices))
        self.hidden_visibility = (opts.hidden_visibility or self.manifest["tests"]["hidden"].get("visibility")
                                  or report.DEFAULT_HIDDEN_VISIBILITY)
        # Drawn now: the tests' data and the timing's inputs cannot be known
        # to the submission before it runs.
        self.seed = fixed_seed() or secrets.randbits(63)
        self.gpu = host.gpu_available()
        self.gpu_arch = host.build_arch(self.gpu)
        self.paths = manifest.lab_paths(root, lab)
        self.has_solutions = os.path.isdir(self.paths.solution_dir)
        self.hidden_here = os.path.isdir(self.paths.hidden_dir)
        self.mpirun = host.find_tool("mpirun") if self.manifest["mpi_ranks"] else None
        self.items = []  # the tests' items come from the judge's test list (build_step)
        self.perf_item = self.san_item = None
        # (binary, read-only dirs, role) of the submission's and the
        # reference's drivers once time_step built them: the profile's runs.
        self.drivers = None
        self.out = []
        self.extra = {"lab": lab, "kind": kind, "sandbox": sandbox.active, "sandbox_mode": sandbox.mode,
                      "needs_gpu": False, "seed": self.seed}
        self.scratch = tempfile.mkdtemp(prefix="hpcgrade-scratch-")
        os.chmod(self.scratch, 0o755)
        self.ws = self.builder = self.judge_build = None
        self.digests = {}
        self.judged = {}
        self.done = False

    # ---- helpers the steps share -----------------------------------------

    def tests(self, kind=None):
        return [it for it in self.items if it.test and (kind is None or it.kind == kind)]

    def fail_rest(self, outcome, text):
        for it in self.items:
            if it.outcome == "not run":
                it.set(0, outcome, text)
        self.done = True

    def step(self, text):
        if self.log and not self.opts.quiet:
            self.log("  ... [%5.1f s] %s: %s" % (time.monotonic() - self.t0, self.lab, text))

    def scratch_run_dir(self, role=sb_mod.SUBMISSION):
        """A fresh directory ROLE's run may write (the judge's and the
        reference's: theirs alone)."""
        d = tempfile.mkdtemp(prefix="run-", dir=self.scratch)
        os.chmod(d, 0o755 if role == sb_mod.SUBMISSION else 0o700)
        self.sandbox.own(d, role)
        return d

    def held_alone(self, phase=""):
        """The grade's GPUs (a CPU lab: the host) held alone, for a phase
        whose figures another grade's work beside it would change."""
        return lease.hold(lease.gpu_resources(self.devices) or ["host"],
                          "%s %s%s" % (self.lab, self.kind, " " + phase if phase else ""))

    def end_submission(self, when):
        """Without bubblewrap: kill every process of the submission's uid
        before the next step (one that left its session and process group
        would outlive its run); say so when there were any."""
        n = self.sandbox.end(sb_mod.SUBMISSION)
        if n:
            self.out.append("%d process%s of the submission %s still running %s, and %s killed"
                            % (n, "" if n == 1 else "es", "was" if n == 1 else "were", when,
                               "it was" if n == 1 else "they were"))

    def driver_memory_bytes(self):
        """The memory limit of a driver run: the grade's, or more where
        lab.json's benchmark asks for it (memory_gib)."""
        bench = self.manifest.get("benchmark", {})
        return max(self.opts.memory_bytes, int(bench.get("memory_gib", 0) * sb_mod.GiB))

    def timing_runs(self):
        """What timing.measure needs of this grade."""
        return timing.Runs(self.sandbox, self.deadline, self.scratch_run_dir, self.mpi_prefix(),
                           self.manifest["benchmark"], self.manifest["needs"], self.driver_memory_bytes(),
                           self.opts.rounds)

    def mpi_prefix(self):
        np = self.manifest.get("benchmark", {}).get("mpi_ranks")
        if np and self.mpirun:
            return [self.mpirun, "-np", str(np), "--oversubscribe"]
        return []

    def cleanup(self):
        for path in (self.ws.path if self.ws else None, self.scratch):
            if path is None:
                continue
            if self.opts.keep:
                self.out.append("kept for debugging: " + path)
            else:
                shutil.rmtree(path, ignore_errors=True)


# ---- the steps ----------------------------------------------------------------

def prepare(g):
    m = g.manifest
    bench, san = m.get("benchmark"), m.get("sanitizer")
    if bench:
        g.perf_item = score.Item("performance: %s vs the reference" % bench.get("measure", "driver"),
                                 bench.get("points", 0), score.PERFORMANCE)
        g.items.append(g.perf_item)
    if san:
        g.san_item = score.Item("compute-sanitizer (%s)" % ", ".join(san.get("tools", ["memcheck"])),
                                san.get("points", 0), score.SANITIZER)
        g.items.append(g.san_item)
    what = {"solution": "the reference solution", "starter": "the starter files"}.get(
        g.kind, "the submission in %s" % g.submission)
    g.out += ["%s: %s" % (g.lab, m["title"]), "graded: " + what, g.sandbox.describe(),
              "seed of this grade (test data and timing inputs): %d" % g.seed]
    if m["tests"]["hidden"]["points"] and not g.hidden_here:
        g.out.append("hidden tests: not in this tree (a student release): visible tests only")
    if not os.path.isdir(os.path.join(g.root, manifest.SECRET_DIR)):
        g.out.append("judge: this tree has no solutions/ (a student release), so the judge is built from "
                     "labs/%s as it is here: a self-grade, not the instructor's" % g.lab)
    src = inputs.source_dir(g.root, g.lab, g.kind, g.submission)
    code_files = [f for f in m["student_files"] if f != answers.FILE]
    review = scan.review(inputs.read_student_files(src, code_files))
    if review:
        g.out.append("for review (no effect on the score): the student files use things a lab does not "
                     "need:\n  " + "\n  ".join(review[:20]))
    g.ws = workspace.create(g.root, g.lab, g.sandbox)
    g.out += workspace.install_student_files(g.ws, m["student_files"], src,
                                             skip=g.paths.solution_extras() if g.kind == "solution" else ())
    add_written_answers(g, src)


def add_written_answers(g, src):
    """The questions of the starter's answers.md, each with the answer in
    the submission's: items worth 0 points for a person to grade."""
    starter = inputs.read_text(os.path.join(g.paths.student_dir, answers.FILE))
    if starter is None:
        return
    submitted = inputs.read_text(os.path.join(src, answers.FILE))
    try:
        questions = answers.merge(starter, submitted)
    except ValueError as e:
        raise RuntimeError("labs/%s/%s/%s: %s" % (g.lab, manifest.STUDENT_DIR, answers.FILE, e)) from None
    found = submitted is not None
    for q in questions:
        item = score.Item("written Q%d (%s, graded by a TA)" % (q.number, report.points_text(q.points)), 0,
                          score.WRITTEN)
        item.set(0, "manual", answers.describe(q, found))
        g.items.append(item)
    g.extra["written"] = [{"question": q.number, "points": q.points, "prompt": q.prompt, "answer": q.answer,
                           "answered": q.answered, "words": answers.words(q.answer) if q.answered else 0}
                          for q in questions]
    g.extra["written_file"] = found
    unanswered = [q for q in questions if not q.answered]
    g.out.append("written answers (%s): %s%d of %d questions answered, %s, graded by a TA"
                 % (answers.FILE, "" if found else "not in the submission: ", len(questions) - len(unanswered),
                    len(questions), report.points_text(sum(q.points for q in questions))))


def build_step(g):
    m = g.manifest
    target = manifest.build_target(g.lab)
    hidden = bool(g.hidden_here and m["tests"]["hidden"]["sources"])
    g.step("the judge's build (cached after the first grade)")
    targets = [target + "-tests"] + ([target + "-hidden"] if hidden else [])
    g.judge_build, r = build.cached_build(
        g.sandbox, lambda parent: workspace.create(g.root, g.lab, g.sandbox, parent=parent, hidden=hidden,
                                                   role=sb_mod.JUDGE),
        g.lab, m["needs"], targets, g.opts.jobs, g.deadline, g.gpu_arch, sb_mod.JUDGE, hidden=hidden)
    if g.judge_build is None and r.skipped:
        g.items[0:0] = score.rubric_unexpanded(m, include_hidden=g.hidden_here)
        needs_gpu = m["needs_gpu"] and "nvcc" in r.skipped
        g.extra["needs_gpu"] = needs_gpu
        g.out.append("this lab could not be built here: it needs %s: %s" % ("/".join(m["needs"]), r.skipped))
        g.fail_rest("needs_gpu" if needs_gpu else "needs",
                    "not graded on this host: needs %s (%s)" % ("/".join(m["needs"]), r.skipped))
        return
    if g.judge_build is None:
        raise RuntimeError("the judge's build failed (the starter with every test must compile):\n"
                           + (r.errors or "")[:2000])
    g.items[0:0] = score.rubric(rubric_of_judge(g, hidden))

    g.builder = build.Builder(g.sandbox, g.ws, g.opts.jobs, g.deadline, gpu_arch=g.gpu_arch)
    g.step("configuring")
    cfg = g.builder.configure(m["needs"])
    if not cfg.ok:
        # Meson reads no student file while it configures (they are sources
        # of the build, all present): a failure here is the grader's host.
        raise RuntimeError("configuring the submission's build failed (the judge's, from the same sources, "
                           "did not): " + (cfg.errors or cfg.skipped or "")[-1500:])
    g.step("compiling the visible tests")
    vis = g.builder.compile([target + "-tests"])
    bad = g.builder.foreign_dependencies([g.root])
    if vis.ok and bad:
        vis = build.BuildResult(False, vis.output, "the build read files outside the workspace and the system "
                                "headers (not allowed):\n  " + "\n  ".join(sorted({p for _, p in bad})[:10]))
    if not vis.ok:
        g.out.append("compile error: 0 for every test. The compiler's first errors:\n" + vis.errors)
        g.extra["compile_failed"] = True  # the self-check tells a stale mutant from a caught one by it
        g.fail_rest("failed", "0: the code does not compile (see the compiler's errors at the top)")
        return
    g.digests[g.ws.binary("-tests")] = build.file_digest(g.ws.binary("-tests"))
    if hidden:
        g.step("compiling the hidden tests")
        # Only the compiler may read them: nothing else of the submission runs now.
        g.end_submission("before its hidden tests were compiled")
        workspace.add_hidden(g.ws, g.root)
        hid = g.builder.enable_hidden()
        if hid.ok:
            hid = g.builder.compile([target + "-hidden"])
        deps = g.builder.dependencies_text() or ""
        leaked = [o for o, _ in build.check_deps(deps, g.ws.build, g.ws.path, [g.root])] + \
            [o for o, p in hidden_readers(deps, g.ws.hidden_dir(), g.ws.build) if "-hidden" not in o]
        workspace.remove_hidden(g.ws)
        # Out of the build tree that the visible tests' runs mount, whatever
        # happened: the binary, and the objects of a build that failed.
        binary = workspace.set_aside_hidden(g.ws)
        if hid.ok and leaked:
            hid = build.BuildResult(False, hid.output, "the student's objects read the hidden tests")
        if hid.ok and binary:
            g.digests[binary] = build.file_digest(binary)
        else:
            # The compiler quotes the hidden tests' lines: only in the hidden
            # items, which the student sees when the instructor allows.
            for it in g.tests(score.HIDDEN):
                it.set(0, "failed", "0: the hidden tests do not compile against your code "
                                    "(does it keep the interface of the header?)\n" + (hid.errors or ""))


def rubric_of_judge(g, hidden):
    """The rubric expanded against the tests the judge's binaries list (run
    in the sandbox, as the judge runs): {kind: [(test, points, key)]}. A
    test without exactly one entry, or an entry without a test, is the
    instructor's error: the grade stops with it."""
    assigned, problems = {}, []
    for kind, suffix in ((score.VISIBLE, "-tests"), (score.HIDDEN, "-hidden")):
        if kind == score.HIDDEN and not hidden:
            continue
        binary = g.judge_build.binary(g.lab, suffix)
        launcher = [g.mpirun, "-np", "1"] if g.mpirun else []
        run_dir = g.scratch_run_dir(sb_mod.JUDGE)
        o = g.sandbox.execute(launcher + [binary, "--gtest_list_tests"], sb_mod.Limits(wall_s=120),
                              ro=[g.judge_build.build], rw=[run_dir], cwd=run_dir, env=sb_mod.base_env(),
                              role=sb_mod.JUDGE)
        if not o.ok:
            raise RuntimeError("listing the judge's %s tests failed: %s" % (kind, o.describe()))
        assigned[kind], found = manifest.expand_rubric(g.manifest["tests"][kind]["points"],
                                                       manifest.parse_test_list(o.output))
        problems += found
    if problems:
        raise RuntimeError("labs/%s/lab.json's rubric does not match the tests: %s" % (g.lab, "; ".join(problems[:5])))
    return assigned


def hidden_readers(deps_text, hidden_dir, build_dir):
    """(object, path) for every object that depends on a file under
    HIDDEN_DIR, the workspace's copy of the hidden tests (only the hidden
    tests' objects may); Ninja's paths are relative to BUILD_DIR. Paths are
    compared as written and with links resolved, as build.check_deps does."""
    bad, obj = [], None
    roots = {os.path.normpath(hidden_dir) + os.sep, os.path.realpath(hidden_dir) + os.sep}
    for line in deps_text.splitlines():
        if line and not line.startswith(" "):
            obj = line.split(":", 1)[0]
        elif line.strip():
            path = os.path.normpath(os.path.join(build_dir, line.strip()))
            if any(p.startswith(r) for p in (path + os.sep, os.path.realpath(path) + os.sep) for r in roots):
                bad.append((obj, line.strip()))
    return bad


def record(g, todo=None):
    todo = [it for it in g.tests() if it.outcome == "not run"] if todo is None else todo
    most = record_together(g.manifest["needs"])
    plan = {kind: record_units([(it, run) for it in todo if it.kind == kind
                                for run in judging.runs_for(g.manifest, it.test)], g.opts.jobs, most)
            for kind in (score.VISIBLE, score.HIDDEN)}
    shared = max((len(u[0]) for units in plan.values() for u in units if isinstance(u[0], list)), default=1)
    g.step("recording %d tests in the submission's build%s" % (
        len(todo), ", up to %d a process" % shared if shared > 1 else ""))

    def ready(it):
        """(binary, read-only tree) of IT's test set, None when the grade's
        time is up."""
        binary = g.ws.binary("-tests" if it.kind == score.VISIBLE else "-hidden")
        if g.deadline.remaining() < 1:
            return None
        if build.file_digest(binary) != g.digests.get(binary):
            raise RuntimeError("the test binary %s changed after it was built" % binary)
        # Each set's run mounts its own tree: the visible build, or W/hidden.
        return binary, [g.ws.build] if it.kind == score.VISIBLE else [g.ws.hidden]

    # The visible tests all record before any hidden one starts, so that no
    # run of one set overlaps a run of the other (not even through the load
    # it puts on the machine); W/hidden is open only meanwhile.
    # A run of N MPI ranks keeps N cores busy: the grade's --jobs cores are
    # shared out by rank count, so that four 4-rank runs never crowd onto 4
    # cores (ranks that wait on a descheduled peer make every test slow).
    cores = judging.CoreTokens(g.opts.jobs)

    def alone(it, run):
        with cores.held(run.ranks()):
            where = ready(it)
            if where:
                g.judging.record(it, where[0], run, where[1])

    def together(items, run):
        with cores.held(1):
            where = ready(items[0])
            left = g.judging.record_together(items, where[0], run, where[1]) if where else []
        for it in left:
            alone(it, run)

    for kind, units in plan.items():
        if not units:
            continue
        workspace.open_hidden(g.ws, kind == score.HIDDEN)
        try:
            with concurrent.futures.ThreadPoolExecutor(max_workers=g.opts.jobs) as pool:
                list(pool.map(lambda u: together(*u) if isinstance(u[0], list) else alone(*u), units))
        finally:
            workspace.open_hidden(g.ws, False)


# How many one-rank tests may share a recording process. Each CUDA process
# starts the driver, and the driver starts contexts about one at a time
# across a host: on an H200 with 16 cores (session 25), lab 06's 46 visible
# tests took 9.4 s to record one process each, 16 at once (2.8 s a process,
# 0.36 s alone), 3.4 s in 16 processes of about 3, and 2.4 s in one process.
# A class of 30 on lab 06 (session 26, same host, seed and roster) spent
# 5-26 s a grade recording and judging with 8 a process, against 67-155 s
# with one, and graded all 30 in 246 s (25 in 540 s before); every test
# scored as in both earlier runs but a race mutant's. A CPU lab's process
# starts in milliseconds: it keeps one a process, the strongest isolation.
RECORD_TOGETHER_CUDA = 8
RECORD_TOGETHER = 1


def record_together(needs=()):
    """How many one-rank tests may share a recording process for a lab that
    NEEDS these things (lab.json): HPCGRADE_RECORD_TOGETHER, else
    RECORD_TOGETHER_CUDA for a CUDA lab, RECORD_TOGETHER otherwise
    (ValueError when the setting is bad)."""
    default = RECORD_TOGETHER_CUDA if "cuda" in needs else RECORD_TOGETHER
    return lease.whole_number_setting("HPCGRADE_RECORD_TOGETHER", default)


def record_units(jobs, width, most):
    """JOBS ((item, run) pairs of one test set) as units of recording work:
    one-rank runs in lists of up to MOST ((items, run): one process), spread
    over WIDTH workers; every other job alone ((item, run)). Runs of several
    MPI ranks keep a process each: their start is not the driver's alone."""
    ones = [(it, run) for it, run in jobs if run.ranks() == 1]
    size = max(1, min(most, -(-len(ones) // max(1, width))))
    if size == 1:
        return jobs
    units = []
    for run in {r.np: r for _, r in ones}.values():
        items = [it for it, r in ones if r.np == run.np]
        units += [(part, run) if len(part) > 1 else (part[0], run)
                  for part in (items[i:i + size] for i in range(0, len(items), size))]
    return units + [(it, run) for it, run in jobs if run.ranks() != 1]


def judge(g, todo=None):
    runs = judging.runs_for(g.manifest)
    todo = [it for it in g.tests() if it.outcome == "not run"] if todo is None else todo
    g.step("judging %d tests in the judge's build" % len(todo))
    by_kind = {}
    for it in todo:
        by_kind.setdefault("-tests" if it.kind == score.VISIBLE else "-hidden", []).append(it)
    for suffix, items in by_kind.items():
        for run in runs:
            here = [it for it in items if run in judging.runs_for(g.manifest, it.test)]
            if not here:
                continue
            results = g.judging.judge(g.judge_build, suffix, [it.test for it in here], run)
            if suffix == "-tests":  # a hidden run's time is not the student's to see
                g.step(judging.run_text(g.judging.runs[-1]))
            for it in here:
                case, notes = results[it.test]
                v = g.judging.verdict(it.test, run, case, notes, show_output=it.kind == score.VISIBLE)
                prev = g.judged.get(it.test)
                # Every rank count must pass; the first failure is the verdict.
                if prev is None or prev.status == judging.PASSED:
                    v.seconds += prev.seconds if prev else 0.0
                    g.judged[it.test] = v
    # The visible tests' judge runs only: how the hidden ones went (one that
    # had to be judged again alone) is a verdict a student may not see yet.
    g.extra["judge_runs"] = [r for r in g.judging.runs if r["binary"] == "tests"]
    for it in todo:
        v = g.judged.get(it.test) or judging.Verdict(judging.FAILED, "not run: the grade's time limit ran out")
        it.execution_time = v.seconds
        text = "\n".join([v.reason if v.reason != "passed" or v.notes else ""] + v.notes + [v.detail]).strip()
        if v.status == judging.PASSED:
            it.set(it.max_score, "passed", "" if text == "passed" else text)
        elif v.status == judging.SKIPPED:
            needs_gpu = v.needs_gpu or (g.manifest["needs_gpu"] and not g.gpu)
            it.set(0, "needs_gpu" if needs_gpu else "skipped", text)
        else:
            it.set(0, "failed", text)


def note_gpu_skips(g):
    skipped_gpu = [it for it in g.items if it.outcome == "needs_gpu"]
    if skipped_gpu:
        g.extra["needs_gpu"] = True
    # The summary a student sees at once counts no hidden test (a judge's
    # skip is a verdict); the hidden items say it themselves.
    shown = [it for it in skipped_gpu if it.kind != score.HIDDEN]
    if shown:
        g.out.append("this lab needs a GPU: %d tests (%g points) were not run on this host, which has none; "
                     "grade on a GPU host" % (len(shown), sum(i.max_score for i in shown)))


# Tests judged per round when the grade stops at the first loss.
FIRST_LOSS_CHUNK = 6


def first_tests_first(items, patterns):
    """ITEMS with those whose test matches one of PATTERNS first, each part
    in its own order: a mutant stopped at its first loss is then recorded
    and judged by the tests meant to catch it, not by every test before."""
    return sorted(items, key=lambda it: not manifest.matches_any(it.test, patterns))


def record_and_judge(g):
    """Record every test in the submission's build, then judge them all in
    the judge's; with first_loss, a few tests at a time until one loses
    points (the rest are marked as not judged)."""
    g.judging = judging.Judging(g)
    todo = [it for it in g.tests() if it.outcome == "not run"]
    if g.opts.first_loss:
        todo = first_tests_first(todo, g.opts.first_tests)
    chunks = [todo[i:i + FIRST_LOSS_CHUNK] for i in range(0, len(todo), FIRST_LOSS_CHUNK)] \
        if g.opts.first_loss else [todo]
    for n, chunk in enumerate(chunks):
        record(g, chunk)
        g.end_submission("after its tests")
        judge(g, chunk)
        if any(it.max_score > 0 and it.outcome == "failed" for it in chunk):
            rest = [it for later in chunks[n + 1:] for it in later]
            for it in rest:
                it.set(0, "not run", "not judged: this grade stopped at its first lost point (--first-loss)")
            if rest:
                g.out.append("--first-loss: judging stopped at the first test that lost points; %d tests were "
                             "not judged, so this is not a grade" % len(rest))
            break
    note_gpu_skips(g)


def build_drivers(g):
    """Build the submission's driver and the reference's (cached after the
    first grade) into g.drivers: (binary, read-only dirs, role) of each.
    Returns the compiler's errors when the submission's does not build."""
    target = manifest.build_target(g.lab)
    g.step("building the reference's driver and the submission's")

    def reference_workspace(parent):
        ws = workspace.create(g.root, g.lab, g.sandbox, parent=parent, role=sb_mod.REFERENCE)
        workspace.install_student_files(ws, g.manifest["student_files"], g.paths.solution_dir,
                                        skip=g.paths.solution_extras())
        return ws

    g.end_submission("before the drivers were built")
    # The reference's first: it is built once (cached, under a lock) and
    # leaves the driver's shared objects (its main, the library anchor) in
    # the compiler cache, so that the submission's build, and those of the
    # grades waiting on that lock in a class run, compile its own files only.
    ref, r = build.cached_build(g.sandbox, reference_workspace, g.lab, g.manifest["needs"], [target], g.opts.jobs,
                                g.deadline, g.gpu_arch, sb_mod.REFERENCE)
    if ref is None:
        raise RuntimeError("the reference's driver did not build:\n" + (r.errors or r.skipped or "")[:2000])
    d = g.builder.compile([target])
    if not d.ok:
        return d.errors
    ref_bin = ref.binary(g.lab)
    if not ref.intact(ref_bin):
        raise RuntimeError("the reference's driver changed after it was built")
    g.drivers = ((g.ws.binary(), [g.ws.build], sb_mod.SUBMISSION), (ref_bin, [ref.build], sb_mod.REFERENCE))
    return None


def time_step(g):
    item, m = g.perf_item, g.manifest
    if item is None:
        return
    bench = m["benchmark"]
    if m["needs_gpu"] and not g.gpu:
        item.set(0, "needs_gpu", "needs a GPU: performance is measured on a GPU host")
        return
    # Only tests worth points open the gate (score.speed_gate says why).
    visible_pass, failing = score.speed_gate(g.items)
    if not g.has_solutions:
        self_speed(g, item, visible_pass)
        return
    if not visible_pass:
        item.set(0, "failed", "not measured: performance counts only when every visible test worth points "
                              "passes (not: %s)" % ", ".join(failing[:3] + (["..."] if len(failing) > 3 else [])))
        return
    if not g.opts.perf:
        item.set(0, "not run", "not measured (--no-perf)")
        return
    errors = build_drivers(g)
    if errors is not None:
        item.set(0, "failed", "not measured: the driver does not build:\n" + errors)
        return
    (sub_bin, sub_ro, _), (ref_bin, ref_ro, _) = g.drivers
    g.step("timing the reference and the submission, %d rounds" % g.opts.rounds)
    full, floor = float(bench.get("full_marks_ratio", 1.0)), float(bench.get("floor_ratio", 0.0))
    try:
        # Builds, recordings and judging of other grades may run beside this
        # one; the timed phase holds its resource alone (lease.py).
        with g.held_alone():
            result = timing.measure(g.timing_runs(), sub_bin, sub_ro, ref_bin, ref_ro)
    except timing.TimingError as e:
        item.set(0, "failed", "not measured: %s" % e)
        return
    pts = score.ratio_points(result.ratio, item.max_score, full, floor)
    text = timing.describe(result, full, floor)
    if g.kind == "solution":
        # The reference timed against itself: full marks by construction;
        # how far the ratio strays from 1 is this host's timing noise.
        pts = float(item.max_score)
        text = ("the reference against itself: full marks by construction; its ratio %.2f shows this host's "
                "timing noise. " % result.ratio) + text
    item.set(pts, "passed" if pts > 0 else "failed", text)
    g.extra["timing"] = {"reference": result.ref.spread(), "submission": result.sub.spread(),
                         "ratio": result.ratio}
    g.out.append("performance: ratio %.2f -> %s of %s points" % (result.ratio, round(pts, 2), item.max_score))


def self_speed(g, item, visible_pass):
    """The performance item of a release (speed.py): 0 points, outcome
    'needs' (the reference is not here), and the student's own figure
    beside the reference's."""
    bench = g.manifest["benchmark"]
    if visible_pass:
        g.step("running your driver %d times to show your speed against %s" % (speed.SELF_RUNS, bench["anchor"]))
        if g.builder.compile([manifest.build_target(g.lab)]).ok:
            mine = speed.measure_own(bench, lambda args: run_own_driver(g, args))
        else:
            mine = "not measured: the driver does not build"
    else:
        mine = "measured once every visible test worth points passes"
    text = speed.summary(bench, mine)
    g.extra["self_speed"] = {"points": item.max_score, "summary": text}
    item.set(0, "needs", "speed is graded by the instructor's grader against the reference solution "
                         "(not in this tree); shown for you: " + text)
    g.out.append("speed (graded by the instructor): " + text)


def run_own_driver(g, args):
    """One sandboxed run of the submission's driver with ARGS."""
    run_dir = g.scratch_run_dir()
    limits = sb_mod.Limits(wall_s=max(5.0, min(300.0, g.deadline.remaining())), cpu_s=100000,
                           data_bytes=g.driver_memory_bytes())
    return g.sandbox.execute(g.mpi_prefix() + [g.ws.binary()] + args, limits, ro=[g.ws.build], rw=[run_dir],
                             cwd=run_dir, env=sb_mod.base_env(), profile=timing.profile_for(g.manifest["needs"]))


def sanitize_step(g):
    if g.san_item is not None and not g.opts.sanitize:
        g.san_item.set(0, "not run", "not run (the self-check does not count it for mutants)")
    elif g.san_item is not None:
        g.step("compute-sanitizer")
        scored = {it.test for it in score.gates(g.items, score.VISIBLE)}
        sanitize.run(g, g.manifest["sanitizer"], g.san_item, {t: v for t, v in g.judged.items() if t in scored})


def profile_step(g):
    """Nsight Compute's counters of the submission's driver and the
    reference's (lab.json "profile"): a table in the report and an item worth
    0 points. After the timing, so it cannot change the timed figures; where
    it cannot run, one line and nothing else."""
    cfg = g.manifest.get("profile")
    if cfg is None or not g.opts.profile or not g.opts.perf:
        return
    why = None
    if not g.gpu:
        why = "no GPU on this host"
    elif not host.find_tool("ncu"):
        why = "Nsight Compute (ncu) is not installed on this host"
    elif g.drivers is None and "benchmark" not in g.manifest:
        # Nothing is timed (lab 08): the drivers are built for the profile alone.
        errors = build_drivers(g)
        if errors is not None:
            why = "your driver does not build"
    elif g.drivers is None:
        why = "the drivers were not built for timing (%s)" % (
            g.perf_item.output.splitlines()[0] if g.perf_item and g.perf_item.output else "no benchmark")
    if why:
        show_profile(g, "profile (hardware counters, not scored): not run: " + why)
        return
    g.step("Nsight Compute on the submission's and the reference's drivers")
    ncu = host.find_tool("ncu")
    found, lines = {}, []
    # Counters of a throughput (DRAM, issue slots) read true only with the
    # GPU to itself: the profile holds it as the timed phase does.
    with g.held_alone("profile"):
        stuck = None
        for (binary, ro, role), who in zip(g.drivers, ("yours", "reference")):
            found[who] = None
            if stuck:  # one run past its limit: the second would hold the GPU as long
                lines.append("%s: not run: %s" % (who, stuck))
                continue
            try:
                found[who] = profile_run(g, ncu, cfg, binary, ro, role)
            except profile.ProfileTimedOut as e:
                stuck = str(e)
                lines.append("%s: %s" % (who, e))
            except profile.ProfileError as e:
                lines.append("%s: %s" % (who, e))
    if found["yours"] is None and found["reference"] is None:
        # Both failed alike (counters not permitted, say): one line.
        reasons = sorted({l.split(": ", 1)[1] for l in lines})
        show_profile(g, "profile (hardware counters, not scored): not run: " + "; ".join(reasons))
        return
    text = "\n".join(lines + [profile.table(cfg, found["yours"] or {}, found["reference"] or {})])
    item = score.Item("profile: hardware counters beside the reference's (Nsight Compute, not scored)", 0,
                      score.PROFILE)
    item.set(0, "passed", text)
    g.items.append(item)
    show_profile(g, "profile (hardware counters, not scored; one run of each driver with %s):\n%s"
                 % (" ".join(cfg["args"]), text))


def show_profile(g, text):
    """The profile's table or its one line: in the grade's output, and
    whole under the report's table (report.table shows a note's first
    line only)."""
    g.out.append(text)
    g.extra["profile"] = text


def profile_run(g, ncu, cfg, binary, ro, role):
    """One driver run under ncu as ROLE: {kernel: Kernel}; raises
    ProfileError with why there is none."""
    run_dir = g.scratch_run_dir(role)
    tool_ro = [] if ncu.startswith(build.SYSTEM_PREFIXES) else [os.path.dirname(os.path.dirname(
        os.path.realpath(ncu)))]
    limits = sb_mod.Limits(wall_s=max(1.0, min(PROFILE_TIMEOUT, g.deadline.remaining())), cpu_s=100000,
                           data_bytes=g.driver_memory_bytes() + 4 * sb_mod.GiB)
    # ncu writes its settings under HOME: the sandbox gives each run a
    # fresh, writable one. "default": ncu starts the driver as its child.
    o = g.sandbox.execute(profile.ncu_argv(ncu, cfg, binary), limits, ro=list(ro) + tool_ro, rw=[run_dir],
                          cwd=run_dir, env=sb_mod.base_env(), cap=PROFILE_OUTPUT_CAP, profile="default", role=role)
    g.sandbox.end(role)
    shutil.rmtree(run_dir, ignore_errors=True)
    if o.timed_out:
        raise profile.ProfileTimedOut("ncu did not finish within %.0f s" % limits.wall_s)
    return profile.read_run(o.output, cfg, None if o.ok else o.describe())


PROFILE_TIMEOUT = 60.0
PROFILE_OUTPUT_CAP = 4 * sb_mod.MiB


STEPS = (prepare, build_step, record_and_judge, time_step, sanitize_step, profile_step)
PHASE_NAMES = {prepare: "prepare", build_step: "build", record_and_judge: "record+judge", time_step: "timing",
               sanitize_step: "sanitizer", profile_step: "profile"}


def grade_lab(root, lab, kind, submission, opts, sandbox=None, log=print):
    """Grade one lab; return the results object (never raises for anything
    the submission does)."""
    sandbox = sandbox or sb_mod.Sandbox(opts.use_bwrap, hide=sandbox_hides(root))
    g = Grade(root, lab, kind, submission, opts, sandbox, log)
    try:
        for step in STEPS:
            if g.done:
                break
            t = time.monotonic()
            step(g)
            # Where a grade's time goes (a class run's report sums them).
            g.extra.setdefault("phase_s", {})[PHASE_NAMES[step]] = round(time.monotonic() - t, 1)
    except Exception:  # a grader bug: results that are no grade, said loudly
        text = traceback.format_exc()
        sys.stderr.write(text)
        g.extra["internal_error"] = text.strip().splitlines()[-1]
        g.out.append("internal grader error (not the submission's fault): " + g.extra["internal_error"])
        return report.not_graded("internal grader error: " + g.extra["internal_error"], [o for o in g.out if o],
                                 time.monotonic() - g.t0, g.extra)
    finally:
        g.cleanup()
        # Nothing of this grade outlives it (the next grade of this process
        # reuses its uids).
        for role in sb_mod.ROLES:
            try:
                sandbox.end(role)
            except RuntimeError as e:
                g.out.append("after the grade: %s" % e)
    return report.results(g.items, [o for o in g.out if o], time.monotonic() - g.t0, g.extra,
                          g.hidden_visibility)


def sandbox_hides(root):
    """What the sandbox covers should it lie in a mounted system directory:
    the repository, and the grader's cache (the judge's build holds the
    hidden tests' sources and binary)."""
    return [root, build.cache_dir()]
