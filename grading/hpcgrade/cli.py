"""grading/grade: grade one lab or all labs; the command line and the steps.

Steps for one lab (grade_lab): read the manifest; scan the student files;
copy the build inputs and the student files into a private workspace;
configure and compile the visible tests WITHOUT the hidden tests present;
then add the hidden tests and compile them (the student's objects are not
recompiled), and remove them again; run every rubric test in its own
sandboxed process; if every visible test passed, time the driver against
the reference; on a GPU host run compute-sanitizer; write results.json.
"""
import argparse
import concurrent.futures
import os
import sys
import time
import traceback

from . import build, host, manifest, perf, report, run, scan, score, workspace
from . import sandbox as sb_mod

DEFAULT_TEST_TIMEOUT = 20.0
DEFAULT_TIME_LIMIT = 1800.0
DEFAULT_MEMORY_GIB = 4.0
DEFAULT_ROUNDS = 3

USAGE_EPILOG = """\
LAB may be given as 01, 1, 01-sorting or sorting.

Exactly one source of student files:
  --solution         the reference solutions (solutions/LAB): full marks expected
  --starter          the skeletons (labs/LAB): 0 expected
  --submission DIR   DIR holds the student files of LAB as lab.json lists them
                     (e.g. DIR/sorting.cpp); with --all, DIR holds one
                     subdirectory per lab (DIR/01-sorting/sorting.cpp, ...)

Results: FILE (default results.json in the current directory) in Gradescope's
format. With --all, FILE holds every lab's tests (names prefixed with the lab)
and each lab's own results go next to it as FILE's name plus -LAB
(results-01-sorting.json, ...).

Exit status: 0 whatever the submission does (its results are in FILE);
2 for a usage error (unknown lab, missing directory, no solutions/ here).
"""


class UsageError(Exception):
    pass


class Deadline:
    def __init__(self, seconds):
        self.end = time.monotonic() + seconds
        self.seconds = seconds

    def remaining(self):
        return self.end - time.monotonic()


class Options:
    def __init__(self, jobs=None, test_timeout=DEFAULT_TEST_TIMEOUT, time_limit=DEFAULT_TIME_LIMIT,
                 memory_gib=DEFAULT_MEMORY_GIB, rounds=DEFAULT_ROUNDS, keep=False, perf=True,
                 use_bwrap=True, quiet=False):
        self.jobs = jobs or max(1, min(4, os.cpu_count() or 1))
        self.test_timeout = test_timeout
        self.time_limit = time_limit
        self.memory_bytes = int(memory_gib * sb_mod.GiB)
        self.rounds = rounds
        self.keep = keep
        self.perf = perf
        self.use_bwrap = use_bwrap
        self.quiet = quiet


def read_student_files(directory, names):
    files = {}
    for n in names:
        p = os.path.join(directory, n)
        if os.path.isfile(p) and not os.path.islink(p):
            with open(p, "rb") as f:
                files[n] = f.read(workspace.MAX_STUDENT_FILE).decode("utf-8", "replace")
    return files


def source_dir(root, lab, kind, submission):
    if kind == "solution":
        d = os.path.join(root, "solutions", lab)
        if not os.path.isdir(d):
            raise UsageError("no solutions/%s in this tree (a student release has none): "
                             "use --starter or --submission DIR" % lab)
        return d
    if kind == "starter":
        return os.path.join(root, "labs", lab)
    return submission


def fail_all(items, outcome, text):
    for it in items:
        if it.outcome == "not run":
            it.set(0, "failed", outcome, text)


def grade_lab(root, lab, kind, submission, opts, sandbox=None, log=print):
    """Grade one lab; return the results object (never raises for anything
    the submission does)."""
    t0 = time.monotonic()
    sandbox = sandbox or sb_mod.Sandbox(opts.use_bwrap, hide=[root])
    deadline = Deadline(opts.time_limit)
    m = manifest.check_grading_fields(manifest.load(root, lab))
    src = source_dir(root, lab, kind, submission)
    hidden_here = os.path.isdir(os.path.join(root, "grading", "hidden", lab))
    items = score.rubric(m, include_hidden=hidden_here)
    bench = m.get("benchmark")
    sanitizer = m.get("sanitizer")
    perf_item = san_item = None
    if bench:
        perf_item = score.Item("performance: %s vs the reference" % bench.get("measure", "driver"),
                               bench.get("points", 0), "performance")
        items.append(perf_item)
    if sanitizer:
        san_item = score.Item("compute-sanitizer (%s)" % ", ".join(sanitizer.get("tools", ["memcheck"])),
                              sanitizer.get("points", 0), "sanitizer")
        items.append(san_item)
    what = {"solution": "the reference solution", "starter": "the starter files"}.get(
        kind, "the submission in %s" % submission)
    out = ["%s: %s" % (lab, m["title"]), "graded: " + what, sandbox.describe()]
    extra = {"lab": lab, "kind": kind, "sandbox": sandbox.active, "needs_gpu": False}
    if m["tests"]["hidden"]["points"] and not hidden_here:
        out.append("hidden tests: not in this tree (a student release): visible tests only")
    if bench and not os.path.isdir(os.path.join(root, "solutions", lab)):
        out.append("performance: not scored here (no reference solution in this tree)")
    gpu = host.gpu_available()
    ws = ref_ws = None
    try:
        files = read_student_files(src, m["student_files"])
        tamper, review = scan.scan(files)
        if review:
            out.append("for review (no effect on the score): the student files use things a lab "
                       "does not need:\n  " + "\n  ".join(review[:20]))
        if tamper:
            out.append("0 points: the student files tamper with the test harness:\n  " + "\n  ".join(tamper[:20]))
            fail_all(items, "failed", "0: the submission tampers with the test harness (see the top of the report)")
            return finish(items, out, t0, extra)
        ws = workspace.create(root, lab)
        out += workspace.install_student_files(ws, m["student_files"], src)
        arch = host.gpu_arch() if gpu else "90"
        builder = build.Builder(sandbox, ws, opts.jobs, deadline, gpu_arch=arch)
        log_step(log, opts, "%s: configuring" % lab)
        cfg = builder.configure(m["needs"])
        if cfg.skipped:
            needs_gpu = m["needs_gpu"] and "nvcc" in cfg.skipped
            extra["needs_gpu"] = needs_gpu
            out.append("this lab could not be built here: it needs %s: %s"
                       % ("/".join(m["needs"]), cfg.skipped))
            fail_all(items, "needs_gpu" if needs_gpu else "needs", "not graded on this host: needs %s (%s)"
                     % ("/".join(m["needs"]), cfg.skipped))
            return finish(items, out, t0, extra)
        if not cfg.ok:
            out.append(cfg.errors)
            fail_all(items, "failed", "0: the build could not be configured (see the top of the report)")
            return finish(items, out, t0, extra)
        log_step(log, opts, "%s: compiling the visible tests" % lab)
        target = "labs/%s" % lab
        vis = builder.compile([target + "-tests"])
        bad = builder.foreign_dependencies([root])
        if vis.ok and bad:
            vis = build.BuildResult(False, vis.output, "the build read files outside the workspace and the "
                                    "system headers (not allowed):\n  " +
                                    "\n  ".join(sorted({p for _, p in bad})[:10]))
        hid = None
        if vis.ok and hidden_here and m["tests"]["hidden"]["sources"]:
            log_step(log, opts, "%s: compiling the hidden tests" % lab)
            workspace.add_hidden(ws, root)
            hid = builder.enable_hidden()
            if hid.ok:
                hid = builder.compile([target + "-hidden"])
            leaked = [o for o, _ in builder.foreign_dependencies([root])] + \
                [o for o, _ in check_hidden_deps(builder) if "-hidden" not in o]
            workspace.remove_hidden(ws)
            if hid.ok and leaked:
                hid = build.BuildResult(False, hid.output, "the student's objects read the hidden tests")
        if not vis.ok:
            out.append("compile error: 0 for every test. The compiler's first errors:\n" + vis.errors)
            fail_all(items, "failed", "0: the code does not compile (see the compiler's errors at the top)")
            return finish(items, out, t0, extra)
        if hid is not None and not hid.ok:
            out.append("the hidden tests did not compile against the submission:\n" + hid.errors)
            for it in items:
                if it.kind == score.HIDDEN:
                    it.set(0, "failed", "failed", "0: the hidden tests do not compile against your code "
                           "(does it keep the interface of the header?)")
        run_tests(sandbox, ws, m, items, opts, deadline, log, gpu)
        skipped_gpu = [it for it in items if it.outcome == "needs_gpu"]
        if skipped_gpu:
            extra["needs_gpu"] = True
            out.append("this lab needs a GPU: %d tests (%g points) were not run on this host, which has none; "
                       "grade on a GPU host" % (len(skipped_gpu), sum(i.max_score for i in skipped_gpu)))
        visible = [it for it in items if it.kind == score.VISIBLE]
        # A test worth 0 points (e.g. one that skips where the MPI is not
        # CUDA-aware) cannot hold back the performance points.
        all_visible = all(it.status == "passed" for it in visible if it.max_score > 0)
        if perf_item is not None:
            ref_ws = grade_perf(root, lab, m, bench, perf_item, all_visible, gpu, sandbox, ws, builder,
                                opts, deadline, out, log)
        if san_item is not None:
            grade_sanitizer(sandbox, ws, lab, sanitizer, san_item, gpu, opts, deadline)
    except Exception:  # a grader bug: still write results, say so loudly
        text = traceback.format_exc()
        sys.stderr.write(text)
        extra["internal_error"] = text.strip().splitlines()[-1]
        out.append("internal grader error (not the submission's fault): " + extra["internal_error"])
        fail_all(items, "failed", "not graded: internal grader error")
    finally:
        for w in (ws, ref_ws):
            if w is not None and not opts.keep:
                w.remove()
            elif w is not None:
                out.append("workspace kept: " + w.path)
    return finish(items, out, t0, extra)


def check_hidden_deps(builder):
    """(object, path) for every object other than the hidden tests' that
    depends on a file under grading/hidden (it must not see them)."""
    import subprocess
    try:
        p = subprocess.run(["ninja", "-C", builder.ws.build, "-t", "deps"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return []
    bad, obj = [], None
    for line in p.stdout.decode("utf-8", "replace").splitlines():
        if line and not line.startswith(" "):
            obj = line.split(":", 1)[0]
        elif "grading/hidden/" in line:
            bad.append((obj, line.strip()))
    return bad


_T0 = [None]


def log_step(log, opts, text):
    if not opts.quiet and log:
        now = time.monotonic()
        _T0[0] = _T0[0] or now
        log("  ... [%5.1f s] %s" % (now - _T0[0], text))


def run_tests(sandbox, ws, m, items, opts, deadline, log, gpu=False):
    lab = m["name"]
    binaries = {score.VISIBLE: os.path.join(ws.build, "labs", lab + "-tests"),
                score.HIDDEN: os.path.join(ws.build, "labs", lab + "-hidden")}
    mpirun = host.find_tool("mpirun") if m["mpi_ranks"] else None
    todo = [it for it in items if it.test and it.outcome == "not run"]
    log_step(log, opts, "%s: running %d tests" % (lab, len(todo)))
    # Inside bubblewrap the build is read-only to the tests. Without it, a
    # test could replace a binary for the runs after it: check a digest
    # before every run instead.
    digests = {} if sandbox.active else {k: file_digest(b) for k, b in binaries.items()}

    def one(it):
        if deadline.remaining() < 1:
            it.set(0, "failed", "failed", "not run: the grade's time limit (%g s) ran out" % deadline.seconds)
            return
        binary = binaries[it.kind]
        if digests.get(it.kind) and file_digest(binary) != digests[it.kind]:
            it.set(0, "failed", "failed", "not run: the test binary was changed or deleted by an earlier "
                   "test run, so its results cannot be trusted")
            return
        if not os.path.isfile(binary):
            it.set(0, "failed", "failed", "not run: the test binary was not built")
            return
        timeout = min(opts.test_timeout, max(1.0, deadline.remaining()))
        runs = [((), None, True)]
        if m["mpi_ranks"]:
            # Only rank 0 writes the report; every rank would share one
            # premature-exit file, so MPI runs rely on the report and the exit
            # status (mpirun fails if any rank exits early or fails).
            env = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                   "OMPI_MCA_rmaps_base_oversubscribe": "1"}
            runs = [((mpirun, "-np", np, "--oversubscribe"), (np, env), False) for np in m["mpi_ranks"]]
        elapsed = 0.0
        for prefix, mpi, premature in runs:
            v = run.run_one(sandbox, ws, binary, it.test, timeout, opts.memory_bytes, prefix=prefix,
                            extra_env=mpi[1] if mpi else None, premature_file=premature)
            elapsed += v.outcome.wall_s if v.outcome else 0
            if v.status != run.PASSED:
                where = " (with %s MPI ranks)" % mpi[0] if mpi else ""
                text = v.reason + where + ("\n" + v.detail if v.detail else "")
                # A skip on a host without a GPU is "needs a GPU"; on a GPU
                # host it is the test's own reason (e.g. no CUDA-aware MPI).
                skip_for_gpu = v.status == run.SKIPPED and m["needs_gpu"] and not gpu
                outcome = ("needs_gpu" if v.needs_gpu or skip_for_gpu
                           else "skipped" if v.status == run.SKIPPED else "failed")
                it.set(0, "failed", outcome, text)
                it.execution_time = elapsed
                return
        it.set(it.max_score, "passed", "passed", "" if v.reason == "passed" and not v.detail
               else (v.reason + ("\n" + v.detail.strip() if v.detail else "")))
        it.execution_time = elapsed

    with concurrent.futures.ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        list(pool.map(one, todo))


def file_digest(path):
    import hashlib
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    except OSError:
        return None
    return h.hexdigest()


def grade_perf(root, lab, m, bench, item, all_visible, gpu, sandbox, ws, builder, opts, deadline, out, log):
    """Score BENCH into ITEM; returns the reference workspace (to remove)."""
    if m["needs_gpu"] and not gpu:
        item.set(0, "failed", "needs_gpu", "needs a GPU: performance is measured on a GPU host")
        return None
    if not all_visible:
        item.set(0, "failed", "failed", "not measured: performance counts only when every visible test passes")
        return None
    if not os.path.isdir(os.path.join(root, "solutions", lab)):
        item.set(0, "failed", "needs", "not measured: this tree has no reference solution (a student "
                 "release); the instructor's grader measures performance")
        return None
    if not opts.perf:
        item.set(0, "failed", "not run", "not measured (--no-perf)")
        return None
    log_step(log, opts, "%s: building the driver and the reference" % lab)
    target = "labs/%s" % lab
    d = builder.compile([target])
    if not d.ok:
        item.set(0, "failed", "failed", "not measured: the driver does not build:\n" + d.errors)
        return None
    ref_ws = workspace.create(root, lab)
    workspace.install_student_files(ref_ws, m["student_files"], os.path.join(root, "solutions", lab))
    rb = build.Builder(sandbox, ref_ws, opts.jobs, deadline, gpu_arch=builder.gpu_arch)
    r = rb.configure(m["needs"])
    if r.ok:
        r = rb.compile([target])
    if not r.ok:
        item.set(0, "failed", "failed", "not measured: the reference did not build (grader problem):\n"
                 + (r.errors or r.skipped or ""))
        return ref_ws
    sub_bin = os.path.join(ws.build, "labs", lab)
    ref_bin = os.path.join(ref_ws.build, "labs", lab)

    memory = max(opts.memory_bytes, int(bench.get("memory_gib", 0) * sb_mod.GiB))

    def run_driver(binary, args):
        w = ref_ws if binary == ref_bin else ws
        run_dir = w.new_run_dir()
        wall = max(1.0, min(120.0, deadline.remaining()))
        return sandbox.execute([binary] + args, run.test_limits(wall, memory), ro=[w.build],
                               rw=[run_dir, w.home], cwd=run_dir, env=sb_mod.base_env(w.home), cap=64 * 1024)

    log_step(log, opts, "%s: timing reference and submission, %d rounds" % (lab, opts.rounds))
    metric = perf.metric_for(m["needs"])
    res = perf.measure(run_driver, sub_bin, ref_bin, bench["args"], bench.get("anchor"), bench.get("measure"),
                       rounds=opts.rounds, metric=metric)
    if res.error:
        item.set(0, "failed", "failed", "not measured: " + res.error)
        return ref_ws
    full, floor = float(bench.get("full_marks_ratio", 1.0)), float(bench.get("floor_ratio", 0.0))
    pts = score.ratio_points(res.ratio, item.max_score, full, floor)
    if res.metric == "reported":
        text = ("GPU time of '%s' as the drivers report it (CUDA events, median of %d alternating rounds): "
                "reference %.6f s, yours %.6f s; ratio reference/yours = %.2f (full marks at >= %g, zero at <= %g)"
                % (bench.get("measure"), res.rounds, res.t_ref, res.t_sub, res.ratio, full, floor))
    else:
        what = "CPU time" if res.metric == "cpu" else "wall time"
        text = ("%s per repetition (best of %d alternating rounds, measured outside the driver): reference "
                "%.4f s, yours %.4f s; ratio reference/yours = %.2f (full marks at >= %g, zero at <= %g)"
                % (what, res.rounds, res.t_ref, res.t_sub, res.ratio, full, floor))
    if res.share is not None:
        text += ("; the anchor %s (%.0f%% of a reference repetition, from the reference's own report) is "
                 "taken off both (raw: reference %.4f s, yours %.4f s)"
                 % (bench.get("anchor"), 100 * res.share, res.raw_ref, res.raw_sub))
    item.set(pts, "passed" if pts >= item.max_score else "failed", "passed" if pts > 0 else "failed", text)
    out.append("performance: ratio %.2f -> %s of %s points" % (res.ratio, round(pts, 2), item.max_score))
    return ref_ws


def grade_sanitizer(sandbox, ws, lab, cfg, item, gpu, opts, deadline):
    """compute-sanitizer on the visible tests: any error costs ITEM's points."""
    if not gpu:
        item.set(0, "failed", "needs_gpu", "needs a GPU: compute-sanitizer runs on a GPU host")
        return
    tool = host.find_tool("compute-sanitizer")
    if not tool:
        item.set(0, "failed", "needs", "not run: compute-sanitizer is not installed on this host")
        return
    binary = os.path.join(ws.build, "labs", lab + "-tests")
    if not os.path.isfile(binary):
        item.set(0, "failed", "failed", "not run: the test binary was not built")
        return
    ro = [] if tool.startswith(build.SYSTEM_PREFIXES) else [os.path.dirname(os.path.realpath(tool))]
    reports = []
    for t in cfg.get("tools", ["memcheck"]):
        v = run_sanitizer(sandbox, ws, tool, t, binary, cfg.get("gtest_filter", "*"),
                          min(10 * opts.test_timeout, max(1.0, deadline.remaining())), opts.memory_bytes, ro)
        if v is not None:
            reports.append("%s: %s" % (t, v))
    if reports:
        item.set(0, "failed", "failed", "\n".join(reports))
    else:
        item.set(item.max_score, "passed", "passed", "no errors (%s)" % ", ".join(cfg.get("tools", ["memcheck"])))


def run_sanitizer(sandbox, ws, tool, which, binary, gtest_filter, timeout, memory, ro=()):
    """None when clean, else a one-paragraph reason with the first error.
    The verdict comes from the sanitizer's exit status (99 = errors) plus the
    same report checks as a test run, never from the printed text; the text
    only supplies the first error to show."""
    run_dir = ws.new_run_dir()
    report_path = os.path.join(run_dir, "gtest.json")
    premature = os.path.join(run_dir, "premature_exit")
    env = sb_mod.base_env(ws.home, {"GTEST_COLOR": "no", "TEST_PREMATURE_EXIT_FILE": premature})
    argv = [tool, "--tool", which, "--error-exitcode", "99", binary, "--gtest_filter=" + gtest_filter,
            "--gtest_output=json:" + report_path]
    o = sandbox.execute(argv, run.test_limits(timeout, memory), ro=[ws.build] + list(ro),
                        rw=[run_dir, ws.home], cwd=run_dir, env=env)
    if o.exit_code == 99:
        return "errors found; first: " + first_sanitizer_error(o.output)
    if not o.ok:
        return "the run " + o.describe()
    if os.path.exists(premature):
        return "the tests exited before they finished"
    try:
        import json
        with open(report_path) as f:
            cases = list(run.test_cases(json.load(f)))
    except (OSError, ValueError, KeyError, TypeError):
        return "no valid test report"
    if not cases:
        return "no test ran"
    failed = [n for n, c in cases if c.get("result") != "COMPLETED" or c.get("failures")]
    if failed:
        return "tests failed under the sanitizer: " + ", ".join(failed[:5])
    return None


def first_sanitizer_error(text):
    lines = [l for l in text.splitlines() if l.startswith("=========")]
    for i, l in enumerate(lines):
        body = l.strip("= ").strip()
        if body and not body.startswith(("COMPUTE-SANITIZER", "ERROR SUMMARY")):
            return "\n".join(x.strip() for x in lines[i:i + 4])
    return "(no error text found)"


def finish(items, out, t0, extra):
    return report.results(items, [o for o in out if o], time.monotonic() - t0, extra)


def lab_note(data):
    ex = data.get("extra_data", {})
    if ex.get("internal_error"):
        return "grader error"
    if ex.get("needs_gpu"):
        return "needs a GPU for some parts"
    outcomes = list(ex.get("outcomes", {}).values())
    if outcomes and all(o == "needs" for o in outcomes):
        return "not buildable here"
    return ""


def per_lab_path(out, lab):
    base, ext = os.path.splitext(out)
    return "%s-%s%s" % (base, lab, ext or ".json")


def parse_args(argv):
    p = argparse.ArgumentParser(prog="grading/grade", description="Grade hpc-labs submissions.",
                                epilog=USAGE_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("lab", nargs="?", help="the lab to grade (or --all)")
    p.add_argument("--all", action="store_true", help="grade every lab present")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--solution", action="store_true", help="grade the reference solution")
    src.add_argument("--starter", action="store_true", help="grade the starter files")
    src.add_argument("--submission", metavar="DIR", help="grade the student files in DIR")
    p.add_argument("--out", metavar="FILE", default="results.json", help="results file (default results.json)")
    p.add_argument("--jobs", type=int, default=None, help="parallel compile jobs and test processes")
    p.add_argument("--test-timeout", type=float, default=DEFAULT_TEST_TIMEOUT,
                   help="wall-time limit per test process, seconds (default %(default)s)")
    p.add_argument("--time-limit", type=float, default=DEFAULT_TIME_LIMIT,
                   help="wall-time limit for a whole lab's grade, seconds (default %(default)s)")
    p.add_argument("--memory", type=float, default=DEFAULT_MEMORY_GIB,
                   help="memory limit per process (RLIMIT_DATA), GiB (default %(default)s)")
    p.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS,
                   help="performance rounds, reference and submission alternating (default %(default)s)")
    p.add_argument("--no-perf", action="store_true", help="do not time the driver")
    p.add_argument("--keep", action="store_true", help="keep the workspaces (debugging)")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    a = p.parse_args(argv)
    if a.all == bool(a.lab):
        p.error("give one LAB or --all")
    if a.jobs is not None and a.jobs < 1 or a.test_timeout <= 0 or a.time_limit <= 0 or a.memory <= 0 \
            or a.rounds < 1:
        p.error("--jobs, --test-timeout, --time-limit, --memory and --rounds must be positive")
    # Find out now, not after a grade of many minutes, that the results
    # cannot be written there.
    why = report.unwritable(a.out)
    if why:
        p.error("cannot write the results to %s: %s" % (a.out, why))
    return a


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    root = manifest.repo_root()
    kind = "solution" if a.solution else "starter" if a.starter else "submission"
    opts = Options(jobs=a.jobs, test_timeout=a.test_timeout, time_limit=a.time_limit, memory_gib=a.memory,
                   rounds=a.rounds, keep=a.keep, perf=not a.no_perf, quiet=a.quiet)
    try:
        if a.all:
            labs = manifest.list_labs(root)
            if not labs:
                raise UsageError("no labs found under %s/labs" % root)
        else:
            labs = [manifest.resolve_lab(root, a.lab)]
        submission = None
        if kind == "submission":
            submission = os.path.abspath(a.submission)
            if not os.path.isdir(submission):
                raise UsageError("submission directory not found: %s" % a.submission)
        for lab in labs:
            manifest.check_grading_fields(manifest.load(root, lab))
            source_dir(root, lab, kind, submission)
    except (UsageError, manifest.ManifestError) as e:
        print("grading/grade: error: %s" % e, file=sys.stderr)
        return 2
    sandbox = sb_mod.Sandbox(hide=[root])
    if not a.all:
        data = grade_lab(root, labs[0], kind, submission, opts, sandbox)
        report.write_atomic(a.out, data)
        print(report.table(data, "%s (%s)" % (labs[0], kind)))
        print("\n".join(data["output"].splitlines()[:3]))
        print("results: %s" % os.path.abspath(a.out))
        return 0
    rows, combined = [], []
    t0 = time.monotonic()
    outputs = []
    for i, lab in enumerate(labs, 1):
        sub = os.path.join(submission, lab) if submission else None
        if sub is not None and not os.path.isdir(sub):
            sub = os.path.join(submission, ".missing-" + lab)  # graded as an empty submission
        print("[%d/%d] %s ..." % (i, len(labs), lab), flush=True)
        t = time.monotonic()
        data = grade_lab(root, lab, kind, sub, opts, sandbox, log=None)
        report.write_atomic(per_lab_path(a.out, lab), data)
        maximum = data["extra_data"]["max_score"]
        note = lab_note(data)
        print("[%d/%d] %s: %s/%s (%.0f s)%s" % (i, len(labs), lab, report._fmt(data["score"]),
                                              report._fmt(maximum), time.monotonic() - t,
                                              ", " + note if note else ""), flush=True)
        rows.append((lab, data["score"], maximum, note))
        for test in data["tests"]:
            combined.append(dict(test, name="%s: %s" % (lab, test["name"])))
        outputs.append("== %s ==\n%s" % (lab, data["output"]))
    all_data = {"score": round(sum(r[1] for r in rows), 4), "output": "\n\n".join(outputs),
                "execution_time": round(time.monotonic() - t0, 3), "tests": combined,
                "extra_data": {"labs": {r[0]: {"score": r[1], "max_score": r[2], "note": r[3]} for r in rows},
                               "max_score": round(sum(r[2] for r in rows), 4)}}
    report.write_atomic(a.out, all_data)
    print()
    print(report.scoreboard(rows))
    print("results: %s (each lab: %s)" % (os.path.abspath(a.out), per_lab_path(os.path.abspath(a.out), "LAB")))
    return 0
