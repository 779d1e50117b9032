"""Speed in a student release: shown to the student, scored by nobody.

A release has no reference solution, so the grader cannot score speed
there: the instructor's grader does, timing the submission against the
reference (timing.py). What the student can still see is the figure the
handout talks about: the driver times the lab's anchor (std::sort, CUB,
cuBLAS: a library that is in the release) in the same run as the student's
code; its --json rows give both times (time_ratio). lab.json's benchmark.reference_vs_anchor says what the
reference reached on a named host, so the two can be put side by side:

    your merge: 1.3x std::sort's time, the median of 5 runs (1.21x to 1.42x);
    the reference: about 1.30x (on ...)

One run is not a figure: on a shared machine the same code read 0.73x and
then 1.08x. The driver runs SELF_RUNS times; the line gives the median
ratio and the range. The driver runs in the sandbox like any submission
code, but the figure is the submission's own report of itself: it is
information, never points.
"""
import json
import statistics

SELF_RUNS = 5


def ratio_unit(kind):
    """Pure: the unit a ratio of KIND is printed with: "x" for a time
    ratio, nothing for a driver's own ratio (it is not a multiple of a time)."""
    return "" if kind == "driver" else "x"


def ratio_text(ratio, anchor, kind="time"):
    """Pure: '1.3x std::sort's time', with how much faster when below 1;
    for a driver's own ratio (kind "driver"), that ratio as it is."""
    if kind == "driver":
        return "%.3g against %s (the driver's ratio)" % (ratio, anchor)
    text = "%.3gx %s's time" % (ratio, anchor)
    if 0 < ratio < 1:
        text += " (%.3gx faster)" % (1 / ratio)
    return text


def reference_text(bench):
    """Pure: what the reference reached against the anchor, from lab.json."""
    ref = bench.get("reference_vs_anchor")
    if not ref:
        return ""
    return "the reference: about %.3g%s (on %s)" % (ref["ratio"], ratio_unit(ref["kind"]), ref["host"])


def rows_of(output):
    """Pure: the driver's --json rows (one JSON object per line; any other
    line is ignored)."""
    rows = []
    for line in output.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if isinstance(obj, dict) and isinstance(obj.get("seconds"), dict):
                rows.append(obj)
    return rows


def median(row):
    value = row["seconds"].get("median")
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


def time_ratio(output, measure):
    """Pure: (ratio, anchor, kind) for the MEASURE row of a driver's --json
    output, or None. kind "time": the row's median time over its anchor's;
    the anchor's row is the one the measured row names in "anchor", at the
    same size, with ratio 1 (drivers differ in what "ratio" is, a time or a
    bandwidth ratio; times are the same thing everywhere). kind "driver":
    the anchor has no row of its own (lab 11 compares with a copy's
    bandwidth), so the driver's own "ratio" is all there is."""
    rows = rows_of(output)
    mine = [r for r in rows if r.get("name") == measure and median(r)]
    if not mine:
        return None
    m = mine[-1]
    anchor = m.get("anchor")
    if not anchor:
        return None
    base = [r for r in rows if r is not m and r.get("anchor") == anchor and r.get("n") == m.get("n")
            and r.get("ratio") == 1.0 and median(r)]
    if base:
        return median(m) / median(base[-1]), anchor, "time"
    ratio = m.get("ratio")
    if isinstance(ratio, (int, float)) and ratio > 0:
        return float(ratio), anchor, "driver"
    return None


def summary(bench, mine):
    """Pure: the line for the total: MINE is the student's ratio text or why
    there is none."""
    parts = ["your %s: %s" % (bench["measure"], mine)]
    ref = reference_text(bench)
    if ref:
        parts.append(ref)
    return "; ".join(parts)


def runs_text(found):
    """Pure: the text for the ratios of several runs FOUND [(ratio, anchor,
    kind)]: the median's ratio_text and the range."""
    ratios = sorted(r for r, _, _ in found)
    _, anchor, kind = found[0]
    unit = ratio_unit(kind)
    text = ratio_text(statistics.median(ratios), anchor, kind)
    if len(ratios) == 1:
        return text + ", one run"
    return text + ", the median of %d runs (%.3g%s to %.3g%s)" % (len(ratios), ratios[0], unit, ratios[-1], unit)


def measure_own(bench, run_driver, runs=SELF_RUNS):
    """Run the submission's driver RUNS times with the benchmark's arguments
    and --json (`run_driver(args)` runs it once in the sandbox and returns
    its outcome); return the text of its median ratio and their range, or
    why there is none."""
    found = []
    for _ in range(runs):
        o = run_driver(list(bench["args"]) + ["--json"])
        one = time_ratio(o.output, bench["measure"]) if o.ok else None
        if one is None:
            return "not measured: the driver %s" % (o.describe() if not o.ok else "printed no row named %r with "
                                                      "its anchor's row" % bench["measure"])
        found.append(one)
    return runs_text(found)
