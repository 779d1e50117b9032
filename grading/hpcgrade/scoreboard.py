"""grading/grade --all: every lab graded one after another, each lab's
results.json beside the combined one, and the scoreboard's rows."""
import os
import time

from . import pipeline, report


def grade_all(root, labs, kind, submission, opts, out_path, sandbox):
    """Grade LABS one after another; write each lab's results next to
    OUT_PATH and the combined results to it. Returns the scoreboard rows."""
    rows, combined, outputs = [], [], []
    t0 = time.monotonic()
    for i, lab in enumerate(labs, 1):
        sub = os.path.join(submission, lab) if submission else None
        if sub is not None and not os.path.isdir(sub):
            sub = os.path.join(submission, ".missing-" + lab)  # graded as an empty submission
        print("[%d/%d] %s ..." % (i, len(labs), lab), flush=True)
        t = time.monotonic()
        data = pipeline.grade_lab(root, lab, kind, sub, opts, sandbox, log=None)
        report.write_atomic(per_lab_path(out_path, lab), data)
        maximum = data["extra_data"].get("max_score") or 0.0
        note = report.lab_note(data)
        print("[%d/%d] %s: %s (%.0f s)%s" % (i, len(labs), lab, report.score_text(data), time.monotonic() - t,
                                           ", " + note if note else ""), flush=True)
        # A lab the grader failed has no score (None), never a 0.
        rows.append((lab, None if report.why_not_graded(data) else data["score"], maximum, note,
                     report.points_not_run_here(data)))
        for test in data.get("tests", []):
            combined.append(dict(test, name="%s: %s" % (lab, test["name"])))
        outputs.append("== %s ==\n%s" % (lab, data["output"]))
    extra = {"labs": {r[0]: {"score": r[1], "max_score": r[2], "note": r[3]} for r in rows},
             "max_score": round(sum(r[2] for r in rows), 4)}
    failed = [r[0] for r in rows if r[1] is None]
    if failed:
        all_data = report.not_graded("the grader failed on %s" % ", ".join(failed), outputs,
                                     time.monotonic() - t0, extra, extra["max_score"])
    else:
        all_data = {"score": round(sum(r[1] for r in rows), 4), "output": "\n\n".join(outputs),
                    "execution_time": round(time.monotonic() - t0, 3), "stdout_visibility": "hidden",
                    "tests": combined, "extra_data": extra}
    report.write_atomic(out_path, all_data)
    return rows


def per_lab_path(out, lab):
    base, ext = os.path.splitext(out)
    return "%s-%s%s" % (base, lab, ext or ".json")
