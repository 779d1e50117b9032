"""grading/grade: the command line. It parses and checks the arguments, then
hands over to pipeline.py, where a grade's steps live."""
import argparse
import math
import os
import sys

from . import inputs, lease, manifest, pipeline, preflight, report, scoreboard
from . import sandbox as sb_mod

USAGE_EPILOG = """\
LAB may be given as 01, 1, 01-sorting or sorting.

Exactly one source of student files:
  --solution         the reference solutions (solutions/LAB): full marks expected
  --starter          the skeletons (labs/LAB): 0 expected
  --submission DIR   DIR holds the student files of LAB (as in labs/LAB/student/), or
                     is a lab folder whose student/ holds them
                     (e.g. DIR/sorting.cpp); with --all, DIR holds one
                     subdirectory per lab (DIR/01-sorting/sorting.cpp, ...)

Results: FILE (default results.json in the current directory) in Gradescope's
format. With --all, FILE holds every lab's tests (names prefixed with the lab)
and each lab's own results go next to it as FILE's name plus -LAB
(results-01-sorting.json, ...).

Each grade draws a fresh random seed for its test data and timing inputs
(printed in its header). HPCGRADE_SEED=N fixes it: to reproduce a grade,
or to give every student of a class run the same data.

Exit status: 0 whatever the submission does (its results are in FILE);
2 for a usage error (unknown lab, missing directory, no solutions/ here);
3 when the grader itself failed (a tool the sandbox's user cannot run, an
internal error): FILE then says NOT GRADED and why, and holds no score.
"""
NOT_GRADED_EXIT = 3


def positive_int(text):
    """argparse type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not an integer: %r" % text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1: %r" % text)
    return value


def positive_float(text):
    """argparse type: a finite number > 0 (nan and inf are refused)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not a number: %r" % text)
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError("must be a finite number above 0: %r" % text)
    return value


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
    p.add_argument("--jobs", type=positive_int, default=None, help="parallel compile jobs and test processes")
    p.add_argument("--test-timeout", type=positive_float, default=pipeline.DEFAULT_TEST_TIMEOUT,
                   help="wall-time limit per test process, seconds (default %(default)s)")
    p.add_argument("--time-limit", type=positive_float, default=pipeline.DEFAULT_TIME_LIMIT,
                   help="wall-time limit for a whole lab's grade, seconds (default %(default)s)")
    p.add_argument("--memory", type=positive_float, default=pipeline.DEFAULT_MEMORY_GIB,
                   help="memory limit per process (RLIMIT_DATA), GiB (default %(default)s)")
    p.add_argument("--rounds", type=positive_int, default=pipeline.DEFAULT_ROUNDS,
                   help="performance rounds, reference and submission alternating (default %(default)s)")
    p.add_argument("--no-perf", action="store_true", help="do not time the driver (nor profile it)")
    p.add_argument("--profile", action="store_true",
                   help="also profile the drivers with Nsight Compute on a GPU host: a GPU lab's table of "
                        "counters beside the reference's, never scored (tools/profile shows yours alone)")
    p.add_argument("--first-loss", action="store_true",
                   help="stop judging at the first test that loses points: a quick check, not a grade (the "
                        "tests after it are not judged)")
    p.add_argument("--keep", action="store_true", help="keep the workspaces (debugging)")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument("--hidden-visibility", choices=report.HIDDEN_VISIBILITIES, default=None,
                   help="when Gradescope shows the hidden tests' items to the student (default: lab.json's "
                        "tests.hidden.visibility, else %s)" % report.DEFAULT_HIDDEN_VISIBILITY)
    a = p.parse_args(argv)
    if a.all == bool(a.lab):
        p.error("give one LAB or --all")
    # Find out now, not after a grade of many minutes, that the results
    # cannot be written there.
    why = report.unwritable(a.out)
    if why:
        p.error("cannot write the results to %s: %s" % (a.out, why))
    return a


def check_settings():
    """The grader's HPCGRADE_* settings, read before any grade starts: a bad
    one is a usage error (one line, exit 2), never a silent default nor a
    grade that fails halfway as an internal error."""
    pipeline.fixed_seed()
    try:
        sb_mod.fallback_uid_range()
        lease.cuda_processes()
        pipeline.record_together()
    except ValueError as e:
        raise inputs.UsageError(str(e))


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    root = manifest.repo_root()
    kind = "solution" if a.solution else "starter" if a.starter else "submission"
    opts = pipeline.Options(jobs=a.jobs, test_timeout=a.test_timeout, time_limit=a.time_limit,
                            memory_gib=a.memory, rounds=a.rounds, keep=a.keep, perf=not a.no_perf, quiet=a.quiet,
                            hidden_visibility=a.hidden_visibility, profile=a.profile,
                            first_loss=a.first_loss)
    try:
        labs = manifest.list_labs(root) if a.all else [manifest.resolve_lab(root, a.lab)]
        if not labs:
            raise inputs.UsageError("no labs found under %s/labs" % root)
        submission = None
        if kind == "submission":
            inputs.require_directory(a.submission, "submission")
            submission = os.path.abspath(a.submission)
        for lab in labs:
            manifest.check_grading_fields(manifest.load(root, lab))
            inputs.source_dir(root, lab, kind, submission)
        check_settings()
    except (inputs.UsageError, manifest.ManifestError) as e:
        print("grading/grade: error: %s" % e, file=sys.stderr)
        return 2
    found = preflight.problems_of_labs(root, labs)
    if found:
        why = preflight.line(found)
        print("grading/grade: error: %s" % why, file=sys.stderr)
        report.write_atomic(a.out, report.not_graded(why, [], 0.0, {"lab": labs[0] if not a.all else "all",
                                                                    "kind": kind}))
        print("results: %s (not graded)" % os.path.abspath(a.out))
        return NOT_GRADED_EXIT
    sandbox = sb_mod.Sandbox(hide=pipeline.sandbox_hides(root))
    if not a.all:
        data = pipeline.grade_lab(root, labs[0], kind, submission, opts, sandbox)
        report.write_atomic(a.out, data)
        print(report.table(data, "%s (%s)" % (labs[0], kind)))
        print("\n".join(data["output"].splitlines()[:4]))
        print("results: %s" % os.path.abspath(a.out))
        return NOT_GRADED_EXIT if report.why_not_graded(data) else 0
    rows = scoreboard.grade_all(root, labs, kind, submission, opts, a.out, sandbox)
    print()
    print(report.scoreboard(rows))
    print("results: %s (each lab: %s)" % (os.path.abspath(a.out),
                                         scoreboard.per_lab_path(os.path.abspath(a.out), "LAB")))
    return NOT_GRADED_EXIT if any(r[1] is None for r in rows) else 0
