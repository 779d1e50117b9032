"""grading/grade-class LAB ROSTER --out DIR: grade a whole class.

Each student's grade is `grading/grade LAB --submission ROSTER/NAME` in a
process of its own (sandboxed as any grade), run under reaper.py: a wall
limit kills the grade's whole process tree, and whatever a student's code
left running is killed as soon as that grade ends. N grades run at once,
the machine's cores split between them. A student's crash, hang or attack
costs that student only: the class run always reaches the gradebook
(gradebook.py), which --collect alone rebuilds from the results on disk
(the Slurm path's last step).
"""
import argparse
import concurrent.futures
import os
import statistics
import subprocess
import sys
import threading
import time

from . import cli, gradebook, inputs, lease, manifest, preflight, reaper, report

GRADING = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRADE = os.path.join(GRADING, "grade")
REAPER = os.path.abspath(reaper.__file__)
DEFAULT_STUDENT_TIMEOUT = 1800.0
# Grader errors in a row (not the students' fault) after which a class run
# stops: the host is broken, and every further grade would fail the same way.
STOP_AFTER_GRADER_ERRORS = 3
GRADER_FAILED_EXIT = cli.NOT_GRADED_EXIT
# The grade's own time limit is set this much below the hard wall limit, so
# a slow grade normally stops itself and still reports what it finished.
OWN_LIMIT_MARGIN_S = 60.0

EPILOG = """\
ROSTER holds one sub-directory per student: their student files (as in
labs/LAB/student/) or a clone of their repository -- whatever
`grading/grade LAB --submission ROSTER/NAME` accepts.

Writes DIR/students/NAME/results.json (Gradescope's format) and grade.log,
then DIR/gradebook.csv, DIR/summary.json and DIR/histogram.png.
A re-run skips a student whose results.json is newer than every file in
their directory (and regrades one whose grade did not finish).
With --collect nobody is graded: the gradebook is built from the
results.json files already in DIR/students (a Slurm array's, say).

Timing: grades build, record and judge in parallel, but every timed phase
holds its resource alone (a GPU for a GPU lab, the host's cores for a CPU
lab: grading/hpcgrade/lease.py), so performance points are as fair as in a
grade of its own; the intervals are logged in the cache's
leases/intervals.jsonl. --no-perf when the speed is not graded.

Before grading anyone it checks that the sandbox's user can run the tools
a grade needs; it stops after %d grades in a row that the grader itself
could not finish (results marked "not graded: grader error", never a 0),
and says why in one line.

Exit status: 0 when the class run finished (whatever the students' code
did); 2 for a usage error; 3 when it stopped because the grader cannot
work on this host (no gradebook is written then).
""" % STOP_AFTER_GRADER_ERRORS


def parse_args(argv):
    p = argparse.ArgumentParser(prog="grading/grade-class", description="Grade every student of a roster.",
                                epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("lab", help="the lab (01, 01-sorting, sorting)")
    p.add_argument("roster", help="directory with one sub-directory per student")
    p.add_argument("--out", metavar="DIR", required=True, help="where results and the gradebook go")
    p.add_argument("--parallel", type=cli.positive_int, default=None,
                   help="grades at once (default: half the cores, at least 1)")
    p.add_argument("--jobs", type=cli.positive_int, default=None,
                   help="compile jobs and test processes per grade (default: the cores split between grades)")
    p.add_argument("--no-perf", action="store_true", help="do not time the drivers")
    p.add_argument("--rounds", type=cli.positive_int, default=None,
                   help="timing rounds per student (default: grading/grade's)")
    p.add_argument("--student-timeout", type=cli.positive_float, default=DEFAULT_STUDENT_TIMEOUT, metavar="S",
                   help="wall limit of one student's grade in seconds; past it, the grade and every process it "
                        "started are killed (default %(default)s)")
    p.add_argument("--collect", action="store_true",
                   help="grade nobody; build the gradebook from DIR/students/*/results.json")
    return p.parse_args(argv)


def check(a):
    """(lab, students) or raises UsageError with one clear line."""
    root = manifest.repo_root()
    try:
        lab = manifest.resolve_lab(root, a.lab)
    except manifest.ManifestError as e:
        raise UsageError(str(e))
    inputs.require_directory(a.roster, "roster")
    students = gradebook.roster_names(a.roster)
    if not students:
        raise UsageError("the roster %s has no student sub-directories" % a.roster)
    if os.path.exists(a.out) and not os.path.isdir(a.out):
        raise UsageError("--out %s exists and is not a directory" % a.out)
    cli.check_settings()
    why = report.unwritable(os.path.join(a.out, gradebook.CSV_NAME))
    if why:
        raise UsageError("cannot write to %s: %s" % (a.out, why))
    return lab, students


# One kind of usage error for every command (one clear line, exit 2).
UsageError = inputs.UsageError


def newest_mtime(path):
    """The latest change under PATH (files, links and directories: a deleted
    file changes its directory's time)."""
    newest = os.lstat(path).st_mtime
    for base, dirs, files in os.walk(path):
        for n in dirs + files:
            try:
                newest = max(newest, os.lstat(os.path.join(base, n)).st_mtime)
            except OSError:
                pass
    return newest


def up_to_date(lab, submission, results):
    """Whether RESULTS is a finished grade of LAB newer than every file of
    SUBMISSION (then a re-run skips the student)."""
    data, _ = gradebook.load_results(results)
    if data is None:
        return False
    extra = data.get("extra_data", {})
    if extra.get(gradebook.INCOMPLETE) or extra.get("lab") != lab or report.why_not_graded(data):
        return False
    return os.stat(results).st_mtime > newest_mtime(submission)


def log_tail(path, lines=15):
    try:
        with open(path, "rb") as f:
            f.seek(max(0, os.fstat(f.fileno()).st_size - 8192))
            return "\n".join(f.read().decode("utf-8", "replace").splitlines()[-lines:])
    except OSError:
        return ""


def write_incomplete(results, lab, why, log):
    """A results.json for a grade that did not finish: 0, the reason, and the
    end of its log; marked so that a re-run grades the student again."""
    report.write_atomic(results, {
        "score": 0.0, "execution_time": 0.0, "tests": [],
        "output": "%s: not graded: %s\n%s" % (lab, why, log_tail(log)),
        "extra_data": {"lab": lab, gradebook.INCOMPLETE: why},
    })


def grade_one(lab, roster, out, name, a, jobs):
    """Grade one student under the reaper; returns (name, seconds, results
    or None, a note). Never raises for anything the student's code does."""
    sdir = gradebook.student_dir(out, name)
    os.makedirs(sdir, exist_ok=True)
    results = os.path.join(sdir, gradebook.RESULTS)
    log = os.path.join(sdir, gradebook.LOG)
    own_limit = a.student_timeout - OWN_LIMIT_MARGIN_S
    cmd = [sys.executable, REAPER, "--timeout", repr(a.student_timeout), "--",
           sys.executable, GRADE, lab, "--submission", os.path.join(roster, name), "--out", results,
           "--jobs", str(jobs)] + (["--time-limit", repr(own_limit)] if own_limit >= OWN_LIMIT_MARGIN_S else []) \
        + (["--no-perf"] if a.no_perf else []) + (["--rounds", str(a.rounds)] if a.rounds else [])
    t0 = time.time()
    with open(log, "wb") as f:
        # The reaper is a new session of its own: the class run's Ctrl-C
        # reaches it only through us, after it has killed its tree.
        code = subprocess.call(cmd, stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT,
                               start_new_session=True)
    seconds = time.time() - t0
    fresh = os.path.exists(results) and os.stat(results).st_mtime >= t0 - 1
    data = gradebook.load_results(results)[0] if fresh else None
    if code == reaper.TIMED_OUT:
        why = "timed out after %g s (the grade and every process it started were killed)" % a.student_timeout
        write_incomplete(results, lab, why, log)
    elif data is not None and report.why_not_graded(data):
        why = "%s: %s" % (gradebook.NOT_GRADED_NOTE, report.why_not_graded(data))
    elif code != 0 or data is None:
        # The grader died: no grade of the student's, not a 0.
        why = "%s: the grader stopped (exit status %s) without results: see grade.log" % (
            gradebook.NOT_GRADED_NOTE, code)
        report.write_atomic(results, report.not_graded(why, [log_tail(log)], seconds, {"lab": lab}))
    else:
        why = ""
    data, _ = gradebook.load_results(results)
    return name, seconds, data, why


def split_cores(parallel, jobs):
    cores = os.cpu_count() or 1
    parallel = parallel or max(1, cores // 2)
    return parallel, jobs or max(1, cores // parallel)


class Progress:
    """done/total, who is running, and the time left, one line per event."""

    def __init__(self, total, parallel):
        self.total, self.parallel = total, parallel
        self.done, self.running, self.durations = 0, set(), []
        self.lock = threading.Lock()

    def started(self, name):
        with self.lock:
            self.running.add(name)

    def finished(self, name, text, seconds=None):
        with self.lock:
            self.running.discard(name)
            self.done += 1
            if seconds is not None:
                self.durations.append(seconds)
            left = self.total - self.done
            eta = ""
            if left and self.durations:
                per = statistics.mean(self.durations)
                eta = ", about %s left" % human_seconds(per * left / min(self.parallel, left))
            running = ", running: %s" % ", ".join(sorted(self.running)[:4]) if self.running else ""
            print("[%d/%d] %s: %s%s%s" % (self.done, self.total, name, text, running, eta), flush=True)


def human_seconds(s):
    return "%.0f s" % s if s < 90 else "%.0f min" % (s / 60) if s < 5400 else "%.1f h" % (s / 3600)


def grade_class(lab, roster, out, students, a):
    parallel, jobs = split_cores(a.parallel, a.jobs)
    todo = [n for n in students if not up_to_date(lab, os.path.join(roster, n), gradebook.results_path(out, n))]
    progress = Progress(len(students), parallel)
    print("grading %s: %d students, %d up to date; %d grades at once, %d jobs each%s" % (
        lab, len(students), len(students) - len(todo), parallel, jobs, ", no timing" if a.no_perf else ""),
        flush=True)
    for n in students:
        if n not in todo:
            progress.finished(n, "up to date, skipped")

    # Grader errors in a row, in the order grades finish; the reason that
    # stopped the run.
    state = {"in_a_row": 0, "stopped": None}
    lock = threading.Lock()
    graded, t0 = [], time.time()

    def one(name):
        with lock:
            if state["stopped"]:
                return
        progress.started(name)
        name, seconds, data, why = grade_one(lab, roster, out, name, a, jobs)
        text = why or report.score_text(data)
        phases = report.phases_text(data) if data else ""
        # Each line says where the grade's time went: a run cut short
        # (a device's time limit) still tells which phase to make faster.
        progress.finished(name, "%s in %.0f s%s" % (text, seconds, " (%s)" % phases if phases else ""), seconds)
        with lock:
            graded.append(data)
            failed = data is None or bool(report.why_not_graded(data))
            state["in_a_row"] = state["in_a_row"] + 1 if failed else 0
            if state["in_a_row"] >= STOP_AFTER_GRADER_ERRORS and not state["stopped"]:
                state["stopped"] = (report.why_not_graded(data) if data else "") or why

    with concurrent.futures.ThreadPoolExecutor(max_workers=parallel) as pool:
        for f in [pool.submit(one, n) for n in todo]:
            f.result()
    if graded:
        t1 = time.time()
        print(throughput_text(graded, t1 - t0), flush=True)
        print(utilisation_text(lease.busy_fractions(lease.intervals(), t0, t1)), flush=True)
    return state["stopped"]


def utilisation_text(fractions):
    """'busy: host 97% (timed 20%), gpu0 64% (timed 31%)': how much of the
    run each resource was in use, from the leases' log."""
    return "busy: " + (", ".join("%s %.0f%% (timed %.0f%%)" % (res, 100 * busy, 100 * timed)
                                 for res, (busy, timed) in fractions.items()) or "no lease was held")


def throughput_text(graded, wall_s):
    """One line: students per minute, and where their grades' time went
    (phase seconds summed over the students, so the parallel overlap shows
    as a sum above the wall time)."""
    totals = {}
    for data in graded:
        for phase, s in ((data or {}).get("extra_data", {}).get("phase_s") or {}).items():
            totals[phase] = totals.get(phase, 0.0) + s
    phases = ", ".join("%s %s" % (p, human_seconds(s)) for p, s in totals.items())
    return "%d graded in %s: %.1f per minute%s" % (
        len(graded), human_seconds(wall_s), len(graded) * 60.0 / max(wall_s, 1e-9),
        "; time per phase, summed: " + phases if phases else "")


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        lab, students = check(a)
    except UsageError as e:
        print("grading/grade-class: error: %s" % e, file=sys.stderr)
        return 2
    roster, out = os.path.abspath(a.roster), os.path.abspath(a.out)
    t0 = time.monotonic()
    if not a.collect:
        found = preflight.problems_of_labs(manifest.repo_root(), [lab])
        if found:
            print("grading/grade-class: error: %s; nobody was graded" % preflight.line(found), file=sys.stderr)
            return GRADER_FAILED_EXIT
        for why in preflight.slow_path():
            print("grading/grade-class: warning: %s" % why, flush=True)
        # Orphans of a grade whose reaper was itself killed come here; what is
        # left below this process at the end is killed.
        reaper.become_subreaper()
        try:
            stopped = grade_class(lab, roster, out, students, a)
        finally:
            left = reaper.kill_descendants()
            if left:
                print("killed %d processes left running by the class run" % left, flush=True)
        if stopped:
            print("grading/grade-class: stopped: %d grades in a row ended in a grader error, not the students' "
                  "fault (the last: %s); nobody else was graded and no gradebook was written: fix the grader "
                  "and run again" % (STOP_AFTER_GRADER_ERRORS, stopped), file=sys.stderr, flush=True)
            return GRADER_FAILED_EXIT
    summary = gradebook.collect(students, out, title="%s: %d students" % (lab, len(students)))
    print()
    print(gradebook.summary_text(summary, out))
    if not a.collect:
        print("class run: %s" % human_seconds(time.monotonic() - t0))
    return 0
