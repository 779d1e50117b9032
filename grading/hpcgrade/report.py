"""results.json in Gradescope's schema, written once and atomically, and the
readable table printed to stdout."""
import json
import os
import tempfile

from . import manifest

# When a student sees a hidden test's item (Gradescope's per-test
# "visibility"): never, after the due date, or when the instructor publishes
# the grades (the default). While any item is not visible, Gradescope hides
# the total too. Every other item is visible at once and depends on no
# hidden test. The instructor chooses with lab.json's tests.hidden.visibility
# or grading/grade --hidden-visibility.
HIDDEN_VISIBILITIES = manifest.HIDDEN_VISIBILITIES
DEFAULT_HIDDEN_VISIBILITY = "after_published"
# Set in extra_data when the grader failed: the results then have no score
# and no tests (Gradescope's schema needs one of them: such a file is not a
# grade, and no 0 reads as the student's); the value says why.
NOT_GRADED = "not_graded"


def results(items, output_lines, execution_time, extra, hidden_visibility=DEFAULT_HIDDEN_VISIBILITY):
    """Pure: the Gradescope results object."""
    assert hidden_visibility in HIDDEN_VISIBILITIES, hidden_visibility
    tests = []
    for it in items:
        test = {
            "name": it.name,
            "score": it.score,
            "max_score": it.max_score,
            "status": it.status,
            "output": it.output,
            "visibility": hidden_visibility if it.kind == "hidden" else "visible",
            "execution_time": round(it.execution_time, 3),
        }
        if test["status"] is None:  # a written answer: no verdict of ours
            del test["status"]
        tests.append(test)
    score = round(sum(t["score"] for t in tests), 4)
    maximum = round(sum(t["max_score"] for t in tests), 4)
    data = {
        "score": score,
        "output": "\n".join(output_lines),
        "execution_time": round(execution_time, 3),
        # The printed table names every hidden verdict: for the instructor
        # only (Gradescope's default, said here so no setting changes it).
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": dict(extra, max_score=maximum,
                           outcomes={it.name: it.outcome for it in items},
                           kinds={it.name: it.kind for it in items}),
    }
    return data


def not_graded(why, output_lines, execution_time, extra, max_score=None):
    """Pure: the results of a grade the grader could not finish (WHY, one
    line: not the submission's fault). No score, no tests: nothing in it
    reads as the student's 0 (see NOT_GRADED)."""
    return {
        "output": "\n".join(list(output_lines) + ["NOT GRADED: %s (the grader failed, not the submission; "
                                                  "grade it again once the grader works)" % why]),
        "execution_time": round(execution_time, 3),
        "stdout_visibility": "hidden",
        "extra_data": dict(extra, max_score=max_score, **{NOT_GRADED: why}),
    }


def why_not_graded(data):
    """The reason DATA is not a grade (the grader failed), or ""."""
    return str(data.get("extra_data", {}).get(NOT_GRADED) or "") if isinstance(data, dict) else ""


def unwritable(path):
    """Why results cannot be written to PATH (its directory is created if
    missing), or "" when they can: the same steps write_atomic takes."""
    directory = os.path.dirname(os.path.abspath(path)) or "."
    if os.path.isdir(path):
        return "it is a directory"
    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".results-", suffix=".json", dir=directory)
        os.close(fd)
        os.remove(tmp)
    except OSError as e:
        return e.strerror or str(e)
    return ""


def write_atomic(path, data):
    """Write JSON to a temporary file next to PATH, then rename it over PATH."""
    path = os.path.abspath(path)
    directory = os.path.dirname(path) or "."
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".results-", suffix=".json", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def score_text(data):
    """'12/86', or 'not graded' for results the grader could not finish."""
    if why_not_graded(data):
        return "not graded"
    return "%s/%s" % (fmt_points(data["score"]), fmt_points(data.get("extra_data", {}).get("max_score") or 0))


def phases_text(data):
    """'build 52, record+judge 3, timing 20': a grade's seconds per phase."""
    phases = data.get("extra_data", {}).get("phase_s") or {}
    return ", ".join("%s %.0f" % (name, s) for name, s in phases.items())


def fmt_points(x):
    """Points as people write them: 2, 2.5, 83.52."""
    return ("%.2f" % x).rstrip("0").rstrip(".")


def points_text(x):
    """A number of points in words: "1 point", "2 points", "2.5 points"."""
    n = fmt_points(x)
    return "%s point%s" % (n, "" if n == "1" else "s")


# Outcomes of items this host could not run (no GPU, a missing library).
NOT_RUN_HERE = ("needs_gpu", "needs")


def points_not_run_here(data):
    """The points of DATA's items that this host could not run."""
    outcomes = data.get("extra_data", {}).get("outcomes", {})
    return sum(t["max_score"] for t in data.get("tests", []) if outcomes.get(t["name"]) in NOT_RUN_HERE)


def total_line(score, maximum, not_run, self_speed=None):
    """'12/86', or, where some parts could not run here, the total of what
    ran and the points left for another host: a reference solution on a
    machine without a GPU must not read as a failing one. In a student
    release (SELF_SPEED, see speed.py) the speed points are the
    instructor's to give: '43/43 tests, speed: graded by the instructor
    (your merge: 1.2x std::sort's time; the reference: about 1.2x)'."""
    if self_speed is not None:
        tests = "%s/%s tests" % (fmt_points(score), fmt_points(maximum - self_speed["points"]))
        left = not_run - self_speed["points"]
        if left > 0:
            tests += " run here (%s more points need a GPU or a library this host lacks)" % fmt_points(left)
        return "%s, speed: graded by the instructor (%s)" % (tests, self_speed["summary"])
    if not not_run:
        return "%s/%s" % (fmt_points(score), fmt_points(maximum))
    return "%s/%s run here; %s more points not run here (need a GPU or a library this host lacks)" % (
        fmt_points(score), fmt_points(maximum - not_run), fmt_points(not_run))


NAME_WIDTH = 60
NOTE_WIDTH = 90


def table(data, title=""):
    """Pure: a fixed-width table of one lab's results. A name longer than
    the column stands on a line of its own, and a note's first line wraps
    onto indented lines (results.json holds every line). The profile's
    table (grade --profile) follows whole."""
    import textwrap
    if why_not_graded(data):
        return "\n".join(([title] if title else []) + ["NOT GRADED: " + why_not_graded(data)])
    outcomes = data.get("extra_data", {}).get("outcomes", {})
    rows = [(t["name"], "%s/%s" % (fmt_points(t["score"]), fmt_points(t["max_score"])),
             outcomes.get(t["name"], t.get("status", "")), (t["output"].splitlines() or [""])[0])
            for t in data["tests"]]
    w = min(max([len(r[0]) for r in rows] + [4]), NAME_WIDTH)
    lines = [title] if title else []
    lines.append("%-*s %7s  %-9s %s" % (w, "test", "points", "outcome", "note"))
    for name, points, outcome, note in rows:
        if len(name) > w:
            lines.append(name)
            name = ""
        wrapped = textwrap.wrap(note, NOTE_WIDTH) or [""]
        lines.append("%-*s %7s  %-9s %s" % (w, name, points, outcome, wrapped[0]))
        lines += [" " * (w + 20) + more for more in wrapped[1:]]  # under the note column
    extra = data.get("extra_data", {})
    lines.append("%-*s %7s" % (w, "TOTAL", total_line(data["score"], extra.get("max_score", 0),
                                                       points_not_run_here(data), extra.get("self_speed"))))
    written = extra.get("written")
    if written:
        lines.append("written answers: %d of %d questions answered%s, %s, graded by a TA (not in the total)"
                     % (sum(1 for q in written if q.get("answered")), len(written),
                        "" if extra.get("written_file", True) else " (no answers.md in the submission)",
                        points_text(sum(q["points"] for q in written))))
    if extra.get("profile"):
        lines += ["", extra["profile"]]
    return "\n".join(lines)


def scoreboard(rows):
    """Pure: ROWS of (lab, score, max, note, points not run here) as a table."""
    w = max([len(r[0]) for r in rows] + [3])
    lines = ["%-*s %12s  %s" % (w, "lab", "score", "note")]
    for lab, score, maximum, note, _ in rows:
        shown = "not graded" if score is None else "%s/%s" % (fmt_points(score), fmt_points(maximum))
        lines.append("%-*s %12s  %s" % (w, lab, shown, note))
    if any(r[1] is None for r in rows):
        lines.append("%-*s %12s  %s" % (w, "TOTAL", "not graded", "the grader failed on some labs"))
        return "\n".join(lines)
    lines.append("%-*s %12s" % (w, "TOTAL", total_line(sum(r[1] for r in rows), sum(r[2] for r in rows),
                                                        sum(r[4] for r in rows))))
    return "\n".join(lines)


def lab_note(data):
    ex = data.get("extra_data", {})
    if ex.get("internal_error") or why_not_graded(data):
        return "not graded: grader error"
    if ex.get("needs_gpu"):
        return "needs a GPU for some parts"
    outcomes = list(ex.get("outcomes", {}).values())
    if outcomes and all(o == "needs" for o in outcomes):
        return "not buildable here"
    return ""
