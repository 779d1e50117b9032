"""grading/selfcheck [LAB...]: does the grader tell good code from bad?

For every lab present (or those named) it grades
  - the reference solution: every test must pass (GPU parts excepted on a
    host without a GPU); its performance, timed against itself (ratio about
    1), is reported, and a shortfall is shown as timing noise, not a failure;
  - the starter: 0 points;
  - every mutant in solutions/LAB/mutants/*/ (mutant.patch, one planted bug
    as a patch against the solution; about.txt's first line says what the
    bug is): it must lose points. A mutant whose bug needs several GPUs to
    show (mutant.json: {"min_gpus": 2}) is listed as not run on a host with
    fewer.
With --first-loss (CI) a mutant is judged only until its first lost point.
With --cases only the cases named are graded: a self-check too long for one
sitting (lab 11's on a GPU host) is split over several.
Labs and mutants are found on disk, so new ones are picked up without
changes here. Prints a table; exits 1 if any expectation breaks.
"""
import argparse
import concurrent.futures
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from . import cli, host, inputs, manifest, pipeline, preflight, report, score
from . import sandbox as sb_mod


def mutant_dirs(root, lab):
    base = manifest.lab_paths(root, lab).mutants_dir
    if not os.path.isdir(base):
        return []
    return sorted(os.path.join(base, d) for d in os.listdir(base) if os.path.isdir(os.path.join(base, d)))


def mutant_json(path):
    """A mutant's optional mutant.json ({} without one)."""
    try:
        with open(os.path.join(path, "mutant.json"), encoding="utf-8") as f:
            value = json.load(f)
    except FileNotFoundError:
        return {}
    except ValueError as e:
        raise StaleMutant("%s/mutant.json: %s" % (path, e))
    if not isinstance(value, dict):
        raise StaleMutant("%s/mutant.json: must be an object" % path)
    return value


def min_gpus(path):
    """The GPUs a mutant's bug needs to show (mutant.json's "min_gpus", default
    0): a bug in splitting work over devices cannot show on one GPU."""
    value = mutant_json(path).get("min_gpus", 0)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise StaleMutant("%s/mutant.json: min_gpus must be a whole number" % path)
    return value


# What must catch a mutant (mutant.json's "caught_by", default "tests"): a
# test item losing points; or the timed item ("performance": right answers,
# slowly, as an uncoalesced load), or the sanitizer's item ("sanitizer": a
# race the tests cannot make bite on every GPU), each graded with that step
# on. A test item losing points always counts.
CAUGHT_BY = {"tests": None, "performance": score.PERFORMANCE, "sanitizer": score.SANITIZER}


def first_tests(path):
    """The tests meant to catch a mutant (mutant.json's "first_tests",
    fnmatch patterns over its lab's test names; default none): with
    --first-loss they are recorded and judged first, so a mutant that only
    a late, costly test can catch (lab 11's GPU-to-GPU ones) does not wait
    for every test before it. Any test that loses points still counts."""
    value = mutant_json(path).get("first_tests", [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise StaleMutant("%s/mutant.json: first_tests must be a list of test name patterns" % path)
    return value


def caught_by(path):
    value = mutant_json(path).get("caught_by", "tests")
    if value not in CAUGHT_BY:
        raise StaleMutant("%s/mutant.json: caught_by must be one of %s" % (path, ", ".join(CAUGHT_BY)))
    return value


def about(path):
    try:
        with open(os.path.join(path, "about.txt"), encoding="utf-8") as f:
            return f.readline().strip()
    except OSError:
        return "(no about.txt)"


class StaleMutant(Exception):
    """A mutant's patch no longer applies to the current solution."""


def overlay(root, lab, mutant, tmp):
    """A submission dir: the solution's student files, with the mutant's
    planted bug applied. A mutant is a patch against the solution
    (mutant.patch, paths a/FILE b/FILE relative to the lab), so it follows
    every change to the solution; one that no longer applies is an error."""
    return patched_submission(root, lab, os.path.join(mutant, "mutant.patch"),
                              os.path.join(tmp, os.path.basename(mutant)))


def patched_submission(root, lab, patch_file, dest, base="solutions"):
    """DEST (created): the student files of BASE/LAB (solutions or labs),
    then PATCH_FILE applied to them when it is not None. Raises StaleMutant
    when the patch is missing or no longer applies."""
    m = manifest.load(root, lab)
    os.makedirs(dest)
    paths = manifest.lab_paths(root, lab)
    src = paths.student_dir if base == "labs" else paths.solution_dir
    for f in m["student_files"]:
        os.makedirs(os.path.dirname(os.path.join(dest, f)), exist_ok=True)
        shutil.copy2(os.path.join(src, f), os.path.join(dest, f))
    if patch_file is None:
        return dest
    if not os.path.isfile(patch_file):
        raise StaleMutant("%s is missing" % patch_file)
    p = subprocess.run(["patch", "-p1", "--batch", "--forward", "--quiet", "--no-backup-if-mismatch",
                        "-d", dest, "-i", os.path.abspath(patch_file)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    if p.returncode != 0:
        raise StaleMutant("%s no longer applies to %s/%s (update the patch): %s" % (
            patch_file, base, lab, p.stdout.decode("utf-8", "replace").strip()[:300]))
    return dest


def kind_of(data, name):
    """An item's kind (visible, hidden, performance, sanitizer): results
    carry it as data."""
    return data["extra_data"]["kinds"].get(name)


def performance_item(data):
    return next((t for t in data["tests"] if kind_of(data, t["name"]) == score.PERFORMANCE), None)


def gpu_excused(data):
    outcomes = data["extra_data"]["outcomes"]
    return {n for n, o in outcomes.items() if o in report.NOT_RUN_HERE}


def lost_tests(data, excused):
    """Test items (visible or hidden) that scored less than their maximum."""
    outcomes = data["extra_data"]["outcomes"]
    return [t["name"] for t in data["tests"] if t["score"] < t["max_score"] and t["name"] not in excused
            and kind_of(data, t["name"]) in (score.VISIBLE, score.HIDDEN) and outcomes.get(t["name"]) != "not run"]


def why_lost(data, name):
    """The first line of item NAME's output: why a solution lost it (the
    self-check is the instructor's, so a hidden test's reason is shown)."""
    output = next((t.get("output") or "" for t in data["tests"] if t["name"] == name), "")
    line = next((x.strip() for x in output.splitlines() if x.strip()), "no output")
    return line[:200]


def first_error(data):
    """The compiler's first error line in a grade's output (else its first
    line: a build that ran out of time says so without "error:")."""
    text = data.get("output") or ""
    lines = [x.strip() for x in text.split("The compiler's first errors:", 1)[-1].splitlines() if x.strip()]
    return next((x for x in lines if "error:" in x), lines[0] if lines else "no compiler output")[:200]


def judge_solution(data):
    if data["extra_data"].get("internal_error"):
        return False, "grader error: " + data["extra_data"]["internal_error"]
    excused = gpu_excused(data)
    lost = [t["name"] for t in data["tests"] if t["score"] < t["max_score"] and t["name"] not in excused
            and kind_of(data, t["name"]) != score.PERFORMANCE]
    if lost:
        return False, "lost points: %s (first: %s)" % (", ".join(lost[:5]), why_lost(data, lost[0]))
    perf = performance_item(data)
    note = "needs a GPU for %d items (not run here)" % len(excused) if excused else "full marks"
    # The reference timed against itself scores full marks by construction;
    # its measured ratio is shown: how far it strays from 1 is this host's
    # timing noise (a busy 2-core CI machine, say), not a failure.
    ratio = data["extra_data"].get("timing", {}).get("ratio")
    if perf is not None and ratio is not None:
        note += "; timed against itself: ratio %.2f (timing noise beyond 1)" % ratio
    return True, note


def judge_starter(data):
    if data["extra_data"].get("internal_error"):
        return False, "grader error: " + data["extra_data"]["internal_error"]
    if data["score"] != 0:
        won = [t["name"] for t in data["tests"] if t["score"] > 0]
        return False, "the starter scores %g (%s)" % (data["score"], ", ".join(won[:5]))
    return True, "0 as expected"


def judge_mutant(data, by="tests"):
    """Whether a mutant's grade DATA shows its bug; BY: what must catch it
    (CAUGHT_BY)."""
    if data["extra_data"].get("internal_error"):
        return False, "grader error: " + data["extra_data"]["internal_error"]
    if data["extra_data"].get("compile_failed"):
        # Every test lost, but no test saw the bug: a patch that no longer
        # compiles (or a build that ran out of time) says nothing of the tests.
        return False, "NOT a check of the tests: the mutant does not compile (%s)" % first_error(data)
    excused = gpu_excused(data)
    lost = lost_tests(data, excused)
    if lost:
        return True, "caught by " + ", ".join(lost[:3]) + (" ..." if len(lost) > 3 else "")
    if CAUGHT_BY[by] is not None:
        items = [t for t in data["tests"] if kind_of(data, t["name"]) == CAUGHT_BY[by] and t["name"] not in excused]
        short = [t for t in items if t["score"] < t["max_score"]]
        if short:
            return True, "caught by the %s item: %s %g/%g" % (by, short[0]["name"], short[0]["score"],
                                                              short[0]["max_score"])
        if items:
            return False, "NOT caught: it loses no test points, nor any of the %s item's" % by
    if excused:
        return True, "needs a GPU: its bug can only show on a GPU host"
    # A property only the submission's own process can observe (an
    # allocation count, say) is reported by a test worth 0 points: a mutant
    # of that property fails the report, and says so; it cannot cost points.
    reported = [t["name"] for t in data["tests"] if t["max_score"] == 0 and t.get("status") != "passed"
                and kind_of(data, t["name"]) in (score.VISIBLE, score.HIDDEN)
                and data["extra_data"]["outcomes"].get(t["name"]) == "failed"]
    if reported:
        return True, "caught only by a report-only test (0 points: observed inside the submission): " + \
            ", ".join(reported[:3])
    return False, "NOT caught: it loses no test points"


def judge_case(root, lab, label, kind, mutant, opts, mutant_opts, sandbox, tmp):
    """Grade one case of a lab's self-check; return its row (lab, label,
    score, ok/FAIL, note) and whether it met its expectation."""
    t = time.monotonic()
    try:
        sub = overlay(root, lab, mutant, tmp) if mutant else None
        needed = min_gpus(mutant) if mutant else 0
        by = caught_by(mutant) if mutant else "tests"
        look = first_tests(mutant) if mutant else []
    except StaleMutant as e:
        return (lab, label, "-", "FAIL", str(e)), False, time.monotonic() - t, ""
    if needed > 1 and host.gpu_count() < needed:
        # Not run: on fewer GPUs its bug cannot show, so "not caught" would
        # say nothing about the grader.
        return (lab, label, "-", "ok", "%s: not run here: needs %d GPUs, this host has %d"
                % (about(mutant), needed, host.gpu_count())), True, time.monotonic() - t, ""
    # A mutant is judged by its tests alone (timing and the sanitizer would
    # only cost time), unless it is one only they can catch.
    case_opts = opts if not mutant else mutant_opts_for(mutant_opts, by, look)
    data = pipeline.grade_lab(root, lab, kind, sub, case_opts, sandbox, log=None)
    if kind == "solution":
        ok, note = judge_solution(data)
    elif kind == "starter":
        ok, note = judge_starter(data)
    else:
        ok, note = judge_mutant(data, by)
        note = about(mutant) + ": " + note
    row = (lab, label, report.score_text(data), "ok" if ok else "FAIL", note)
    return row, ok, time.monotonic() - t, report.phases_text(data)


def mutant_opts_for(mutant_opts, by, look=()):
    """The options of a mutant that BY must catch: the tests only, or with
    the timing or the sanitizer on; LOOK: the tests to judge first."""
    if by == "tests" and not look:
        return mutant_opts
    o = copy.copy(mutant_opts)
    o.perf, o.sanitize = by == "performance", by == "sanitizer"
    o.first_tests = list(look)
    return o


def wanted(cases, name):
    """Whether the case NAME ("solution", "starter" or a mutant's folder
    name) is among CASES (fnmatch patterns; None: every case)."""
    return cases is None or manifest.matches_any(name, cases)


def run(root, labs, opts, log=print, first_loss=False, parallel=1, cases=None):
    """Grades every case of every lab (or those CASES names), PARALLEL at a
    time: builds, recordings and judging share the host's cores; a
    solution's timed phase holds its resource alone (lease.py), so its ratio
    is as fair as in a grade of its own. Solutions are queued first."""
    sandbox = sb_mod.Sandbox(hide=pipeline.sandbox_hides(root))
    log(sandbox.describe())
    for why in preflight.slow_path():
        log("warning: " + why)
    if sandbox.separate_uids and parallel > 1:
        # The uids of the fallback are one slot per process, and a grade's end
        # kills every process of them: grades side by side would end each
        # other's runs.
        log("without bubblewrap: one grade at a time (--parallel %d ignored)" % parallel)
        parallel = 1
    mutant_opts = copy.copy(opts)
    mutant_opts.perf = mutant_opts.sanitize = False
    mutant_opts.first_loss = first_loss
    tmp = tempfile.mkdtemp(prefix="hpcgrade-selfcheck-")
    rows, ok_all = {lab: [] for lab in labs}, True
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
            queued = []
            for lab in labs if wanted(cases, "solution") else []:
                queued.append((lab, pool.submit(judge_case, root, lab, "solution", "solution", None, opts,
                                                mutant_opts, sandbox, tmp)))
            for lab in labs:
                mutants = mutant_dirs(root, lab)
                if len(mutants) < 3:
                    rows[lab].append((lab, "mutants", "-", "FAIL", "fewer than 3 mutants in %s"
                                      % manifest.lab_paths("", lab).mutants_dir))
                    ok_all = False
                todo = [("starter", "starter", None)] if wanted(cases, "starter") else []
                todo += [("mutant " + os.path.basename(d), "submission", d) for d in mutants
                         if wanted(cases, os.path.basename(d))]
                for label, kind, mutant in todo:
                    queued.append((lab, pool.submit(judge_case, root, lab, label, kind, mutant, opts, mutant_opts,
                                                    sandbox, tmp)))
            # Logged as each case ends (a long solution does not hide the
            # cases done after it); the table keeps the queue's order.
            order = {future: i for i, (lab, future) in enumerate(queued)}
            done = {}
            for future in concurrent.futures.as_completed(order):
                row, ok, seconds, phases = future.result()
                ok_all &= ok
                done[order[future]] = row
                log("%-12s %-28s %9s  %-4s %s  (%.0f s%s)" % (row + (seconds, phases and ": " + phases)))
            for i, (lab, future) in enumerate(queued):
                rows[lab].append(done[i])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return ok_all, [r for lab in labs for r in rows[lab]]


def main(argv=None):
    p = argparse.ArgumentParser(prog="grading/selfcheck", description=__doc__.split("\n\n")[0])
    p.add_argument("labs", nargs="*", help="labs to check (default: every lab present)")
    p.add_argument("--jobs", type=cli.positive_int, default=None)
    p.add_argument("--test-timeout", type=cli.positive_float, default=pipeline.DEFAULT_TEST_TIMEOUT)
    p.add_argument("--rounds", type=cli.positive_int, default=pipeline.DEFAULT_ROUNDS)
    p.add_argument("--first-loss", action="store_true",
                   help="judge a mutant only until its first lost point (faster; CI uses it)")
    p.add_argument("--parallel", type=cli.positive_int, default=1,
                   help="grade this many cases at a time (each with --jobs cores); timed phases still run "
                        "one at a time")
    p.add_argument("--cases", metavar="PATTERNS",
                   help="only these cases, comma-separated fnmatch patterns over 'solution', 'starter' and the "
                        "mutants' names (to split a long self-check)")
    a = p.parse_args(argv)
    root = manifest.repo_root()
    try:
        labs = [manifest.resolve_lab(root, x) for x in a.labs] or manifest.list_labs(root)
        cli.check_settings()
    except (manifest.ManifestError, inputs.UsageError) as e:
        print("grading/selfcheck: error: %s" % e, file=sys.stderr)
        return 2
    if not os.path.isdir(os.path.join(root, manifest.SECRET_DIR)):
        print("grading/selfcheck: error: no solutions/ in this tree (a student release)", file=sys.stderr)
        return 2
    # No profile: the self-check checks scores, which the profile never changes.
    opts = pipeline.Options(jobs=a.jobs, test_timeout=a.test_timeout, rounds=a.rounds, quiet=True, profile=False)
    cases = [c for c in a.cases.split(",") if c] if a.cases is not None else None
    if cases is not None and not any(wanted(cases, n) for lab in labs for n in
                                      ["solution", "starter"] + [os.path.basename(d) for d in mutant_dirs(root, lab)]):
        print("grading/selfcheck: error: --cases %s names no case of %s" % (a.cases, ", ".join(labs)),
              file=sys.stderr)
        return 2
    # A tool the sandbox's user cannot run would fail every case as a
    # grader error: say it once, before grading anything (preflight.py).
    found = preflight.problems_of_labs(root, labs)
    if found:
        print("grading/selfcheck: error: %s" % preflight.line(found), file=sys.stderr)
        return cli.NOT_GRADED_EXIT
    print("self-check of the grader: %s" % ", ".join(labs))
    ok, rows = run(root, labs, opts, first_loss=a.first_loss, parallel=a.parallel, cases=cases)
    print()
    w = max(len(r[1]) for r in rows)
    print("%-12s %-*s %9s  %-4s %s" % ("lab", w, "graded", "score", "", "expectation"))
    for r in rows:
        print("%-12s %-*s %9s  %-4s %s" % (r[0], w, r[1], r[2], r[3], r[4]))
    print("self-check %s" % ("passed" if ok else "FAILED"))
    return 0 if ok else 1
