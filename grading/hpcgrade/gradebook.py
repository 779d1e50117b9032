"""The gradebook of a class, built from the results.json of each student.

A class run (grading/grade-class) or a Slurm array (grading/slurm/) writes
OUT/students/NAME/results.json, one per student, exactly as grading/grade
writes it. collect() reads whatever of those exist and writes

  OUT/gradebook.csv   student, total, max, one column per rubric item,
                      performance ratio, notes
  OUT/summary.json    count, mean, median, min, max, histogram bins
  OUT/histogram.png   the totals as a histogram (python3-matplotlib)

A roster student without a results.json gets a row with total 0 and the note
"no result": nobody silently drops out of the class. A grade the grader
itself could not finish (results marked not graded, see report.NOT_GRADED)
gets a row with no total and the note "not graded: grader error": it is not
the student's 0, and the summary leaves it out. Reading never trusts a file
more than its schema: a results.json that does not parse counts as no
result, with the reason in the notes.
"""
import csv
import json
import os
import statistics
import subprocess
import sys

from . import report, score

STUDENTS_DIR = "students"
RESULTS = "results.json"
LOG = "grade.log"
CSV_NAME, SUMMARY_NAME, PNG_NAME = "gradebook.csv", "summary.json", "histogram.png"
# Items that carry points go into the gradebook; written answers are a TA's
# (their points are not in the total either).
SCORED_KINDS = (score.VISIBLE, score.HIDDEN, score.PERFORMANCE, score.SANITIZER)
HISTOGRAM_BINS = 10
# Set by grade-class in a results.json it wrote itself because the grade did
# not finish (timed out, crashed): a re-run grades that student again.
INCOMPLETE = "class_incomplete"


def roster_names(roster):
    """The students of ROSTER: its sub-directories, sorted (hidden ones, such
    as .git, are not students)."""
    return sorted(n for n in os.listdir(roster) if not n.startswith(".") and os.path.isdir(os.path.join(roster, n)))


def student_dir(out, name):
    return os.path.join(out, STUDENTS_DIR, name)


def results_path(out, name):
    return os.path.join(student_dir(out, name), RESULTS)


def load_results(path):
    """(results, "") or (None, why not)."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        return None, "no result"
    except (OSError, ValueError) as e:
        return None, "unreadable result (%s)" % e
    if isinstance(data, dict) and report.why_not_graded(data):
        return data, ""
    if not isinstance(data, dict) or not isinstance(data.get("tests"), list) or "score" not in data:
        return None, "unreadable result (not a results.json)"
    return data, ""


NOT_GRADED_NOTE = "not graded: grader error"


def scored_tests(data):
    """The tests of DATA that carry points, in the report's order."""
    kinds = data.get("extra_data", {}).get("kinds", {})
    return [t for t in data["tests"] if kinds.get(t["name"], score.VISIBLE) in SCORED_KINDS]


def notes_of(data):
    """What an instructor should know about one student's grade, in words."""
    extra = data.get("extra_data", {})
    notes = []
    if extra.get(INCOMPLETE):
        notes.append(extra[INCOMPLETE])
    lab_note = report.lab_note(data)
    if lab_note:
        notes.append(lab_note)
    if "compile error" in data.get("output", ""):
        notes.append("compile error")
    not_run = report.points_not_run_here(data)
    if not_run:
        notes.append("%s points not run here" % report.fmt_points(not_run))
    return notes


def row_of(name, data, why):
    """One gradebook row: a dict with student, total, max, ratio, notes and
    the score of every scored test (by name)."""
    if data is None:
        return {"student": name, "total": 0.0, "max": None, "ratio": None, "notes": [why], "tests": {}}
    extra = data.get("extra_data", {})
    if report.why_not_graded(data):
        return {"student": name, "total": None, "max": None, "ratio": None, "not_graded": True, "tests": {},
                "notes": ["%s (%s)" % (NOT_GRADED_NOTE, report.why_not_graded(data))]}
    tests = scored_tests(data)
    return {"student": name, "total": float(data["score"]), "max": extra.get("max_score"),
            "ratio": extra.get("timing", {}).get("ratio"), "notes": notes_of(data),
            "tests": {t["name"]: t["score"] for t in tests}, "order": [t["name"] for t in tests]}


def columns_of(rows):
    """Every scored test of any row, in the order the first result that has it
    lists it (all results of one lab list the same tests)."""
    seen = []
    for r in rows:
        for name in r.get("order", []):
            if name not in seen:
                seen.append(name)
    return seen


def class_max(rows):
    """The lab's maximum: the one most results agree on (a grade that stopped
    early can lack items)."""
    maxima = [r["max"] for r in rows if r["max"] is not None]
    return max(set(maxima), key=maxima.count) if maxima else None


def summarize(totals, maximum, bins=HISTOGRAM_BINS):
    """Pure: count, mean, median, min, max and BINS equal bins over
    [0, MAXIMUM] (the top bin holds MAXIMUM itself)."""
    top = maximum if maximum else max(totals + [1.0])
    width = top / bins
    counts = [0] * bins
    for t in totals:
        counts[min(bins - 1, max(0, int(t / width)))] += 1
    edges = [round(i * width, 4) for i in range(bins + 1)]
    return {
        "count": len(totals),
        "max_score": maximum,
        "mean": round(statistics.mean(totals), 4) if totals else None,
        "median": round(statistics.median(totals), 4) if totals else None,
        "min": min(totals) if totals else None,
        "max": max(totals) if totals else None,
        "histogram": [{"from": edges[i], "to": edges[i + 1], "count": counts[i]} for i in range(bins)],
    }


def write_csv(path, rows, columns, maximum):
    tmp = path + ".tmp"
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["student", "total", "max"] + columns + ["performance_ratio", "notes"])
        for r in rows:
            ratio = "" if r["ratio"] is None else "%.3f" % r["ratio"]
            total = "" if r["total"] is None else report.fmt_points(r["total"])  # not graded: no total
            w.writerow([r["student"], total, report.fmt_points(r["max"] if r["max"] is not None else maximum or 0)]
                       + [report.fmt_points(r["tests"][c]) if c in r["tests"] else "" for c in columns]
                       + [ratio, "; ".join(r["notes"])])
    os.replace(tmp, path)


def read_csv(path):
    """A gradebook CSV back: (its header, {student: {column: text}})."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    return rows[0], {r[0]: dict(zip(rows[0], r)) for r in rows[1:]}


def write_histogram(path, totals, maximum, title):
    """The totals as a PNG; "" when written, else why not (the rest of the
    gradebook does not depend on it)."""
    try:
        import matplotlib
        matplotlib.use("Agg")  # no display on a grading host
        import matplotlib.pyplot as plt
    except ImportError:
        return histogram_by_debian_python(path, totals, maximum, title)
    s = summarize(totals, maximum)
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.bar([b["from"] for b in s["histogram"]], [b["count"] for b in s["histogram"]],
           width=[b["to"] - b["from"] for b in s["histogram"]], align="edge", edgecolor="black")
    if s["mean"] is not None:
        ax.axvline(s["mean"], color="tab:red", linestyle="--", label="mean %s" % report.fmt_points(s["mean"]))
        ax.axvline(s["median"], color="tab:green", linestyle=":",
                   label="median %s" % report.fmt_points(s["median"]))
        ax.legend()
    ax.set_xlabel("total points" + (" (of %s)" % report.fmt_points(maximum) if maximum else ""))
    ax.set_ylabel("students")
    ax.set_title(title)
    ax.yaxis.get_major_locator().set_params(integer=True)
    fig.tight_layout()
    tmp = path + ".tmp.png"
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    os.replace(tmp, path)
    return ""


def histogram_by_debian_python(path, totals, maximum, title):
    """python3-matplotlib installs into Debian's own interpreter; a grader
    run by another one (a virtual environment, pyenv) draws the histogram
    through /usr/bin/python3 instead."""
    debian = "/usr/bin/python3"
    missing = "histogram.png not written: python3-matplotlib is not installed (apt-get install python3-matplotlib)"
    if not os.path.exists(debian) or os.path.realpath(sys.executable) == os.path.realpath(debian):
        return missing
    grading = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    draw = ("import json, sys; sys.path.insert(0, sys.argv[1]); from hpcgrade import gradebook; "
            "why = gradebook.write_histogram(*json.loads(sys.argv[2])); sys.exit(3 if why else 0)")
    p = subprocess.run([debian, "-c", draw, grading, json.dumps([path, totals, maximum, title])],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return "" if p.returncode == 0 and os.path.exists(path) else missing


def collect(roster_students, out, title="class"):
    """Build the gradebook of ROSTER_STUDENTS (names) from OUT/students/*;
    write the CSV, summary.json and histogram.png into OUT. Returns the
    summary (with "rows" and "warnings", not written to summary.json)."""
    rows = [row_of(name, *load_results(results_path(out, name))) for name in roster_students]
    columns = columns_of(rows)
    maximum = class_max(rows)
    totals = [r["total"] for r in rows if r["total"] is not None]
    os.makedirs(out, exist_ok=True)
    write_csv(os.path.join(out, CSV_NAME), rows, columns, maximum)
    summary = summarize(totals, maximum)
    summary["no_result"] = sorted(r["student"] for r in rows if r["max"] is None and not r.get("not_graded"))
    summary["not_graded"] = sorted(r["student"] for r in rows if r.get("not_graded"))
    report.write_atomic(os.path.join(out, SUMMARY_NAME), summary)
    why = write_histogram(os.path.join(out, PNG_NAME), totals, maximum, title)
    return dict(summary, rows=rows, columns=columns, warnings=[why] if why else [])


def summary_text(summary, out):
    """The few lines printed at the end of a class run."""
    s = summary
    if not s["count"] and not s.get("not_graded"):
        return "no students"
    top = report.fmt_points(s["max_score"]) if s["max_score"] is not None else "?"
    lines = []
    if s["count"]:
        lines.append("%d students: mean %s, median %s, min %s, max %s (of %s)" % (
            s["count"], report.fmt_points(s["mean"]), report.fmt_points(s["median"]), report.fmt_points(s["min"]),
            report.fmt_points(s["max"]), top))
        peak = max(b["count"] for b in s["histogram"]) or 1
        for b in s["histogram"]:
            lines.append("  %6s-%-6s %3d %s" % (report.fmt_points(b["from"]), report.fmt_points(b["to"]),
                                                b["count"], "#" * round(40 * b["count"] / peak)))
    if s["no_result"]:
        lines.append("no result for %d: %s" % (len(s["no_result"]), ", ".join(s["no_result"][:10])
                                               + (" ..." if len(s["no_result"]) > 10 else "")))
    if s.get("not_graded"):
        lines.append("not graded (grader error, not in the figures above; grade them again) for %d: %s"
                     % (len(s["not_graded"]), ", ".join(s["not_graded"][:10])
                        + (" ..." if len(s["not_graded"]) > 10 else "")))
    lines += s["warnings"]
    beside = SUMMARY_NAME + ("" if s["warnings"] else ", " + PNG_NAME)
    lines.append("gradebook: %s (%s beside it)" % (os.path.join(os.path.abspath(out), CSV_NAME), beside))
    return "\n".join(lines)
