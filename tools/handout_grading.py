#!/usr/bin/env python3
"""Each handout's "How you are graded" section, written from the lab's data.

  tools/handout_grading.py           rewrite the section in every labs/*/README.md
  tools/handout_grading.py --check   list the handouts whose section is out of date; exit 1 if any

The section stands between the lines `<!-- grading:begin -->` and
`<!-- grading:end -->` of labs/NN-name/README.md and is made from
labs/NN-name/lab.json (rubric, benchmark, sanitizer) and
labs/NN-name/student/answers.md (the written questions), so that what a
handout promises is what the grader does. Meson runs the check as the test
`handouts`; a handout without the markers fails it.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "labs"))
sys.path.insert(0, os.path.join(ROOT, "grading"))

import lab_manifest  # noqa: E402
import marked_block  # noqa: E402
from hpcgrade import answers, pipeline, speed, timing  # noqa: E402
from hpcgrade.report import fmt_points as fmt, points_text  # noqa: E402

BEGIN = "<!-- grading:begin -->"
END = "<!-- grading:end -->"


def fmt3(x):
    """Three significant digits: a GPU's time can be 0.00213 of a CPU's."""
    return "%.3g" % x


def rubric_points(points):
    """Pure: the points column: the named tests' sum, '+' when families
    (glob keys) add points per test they match."""
    fixed = sum(v for k, v in points.items() if not lab_manifest.is_glob(k))
    return fmt(fixed) + ("+" if any(lab_manifest.is_glob(k) for k in points) else "")


def rubric_phrase(points):
    """Pure: how the tests' points are made up."""
    named = [k for k in points if not lab_manifest.is_glob(k)]
    families = [(k, v) for k, v in points.items() if lab_manifest.is_glob(k)]
    text = "%d named tests" % len(named)
    if families:
        text += ", and %s" % ", ".join("%s for each test of `%s`" % (fmt(v), k) for k, v in families)
    return text


def bench_rows(lab, m):
    b = m.get("benchmark")
    if not b:
        return [], []
    check = b.get("check", "exact")
    check_text = ("bit for bit" if check == "exact" else
                  "within a relative %g and an absolute %g" % (check.get("rel", 0), check.get("abs", 0)))
    full, floor = b.get("full_marks_ratio", 1.0), b.get("floor_ratio", 0.0)
    ranks = (" on %d MPI ranks" % b["mpi_ranks"]) if b.get("mpi_ranks") else ""
    reps, warmup = timing.reps_and_warmup(b)
    rounds = pipeline.DEFAULT_ROUNDS
    how = ("the grader's clock times the driver (`%s`%s) against the reference solution's, in %d rounds that "
           "alternate the two, each of %s then %d timed repetitions (%d timed in all), each repetition on input "
           "drawn when its clock starts and checked against the reference's output (%s). Score: the reference's "
           "median time over yours; full marks at %s or more, none at %s or less, linear between. Timed only when "
           "every visible test worth points passes."
           % (" ".join(b["args"]), ranks, rounds, plural(warmup, "warm-up"), reps, rounds * reps, check_text,
              fmt(full), fmt(floor)))
    rows = [("speed of `%s`" % b["measure"], fmt(b.get("points", 0)), how)]
    ref = b.get("reference_vs_anchor") or {}
    driver_ratio = bool(ref) and ref["kind"] == "driver"  # the schema requires "kind"
    if driver_ratio:
        mine = ("shows the median of the driver's own ratios of your `%s` to %s (it has no time of its own to "
                "compare with), and their range" % (b["measure"], b["anchor"]))
    else:
        mine = ("shows the median of your `%s` time as a multiple of %s's, which the driver times in the same "
                "run, and the range of the %d" % (b["measure"], b["anchor"], speed.SELF_RUNS))
    notes = ["**Speed in your own self-grade.** A student release has no reference solution, so its grader "
             "cannot score speed: the instructor's grader does. Your self-grade runs your driver %d times and %s."
             % (speed.SELF_RUNS, mine)]
    if driver_ratio:
        notes[0] += " The reference solution reached %s on %s." % (fmt3(ref["ratio"]), ref["host"])
    elif ref:
        notes[0] += (" The reference solution's `%s` took %sx %s's time on %s; full marks need %s of the "
                     "reference's speed, so aim for about %sx or less there."
                     % (b["measure"], fmt3(ref["ratio"]), b["anchor"], ref["host"], fmt(full),
                        fmt3(ref["ratio"] / full)))
    return rows, notes


def plural(n, word):
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


# The handout's commands are run as written (tools/handout_commands.py); a
# whole grade is too slow for CI (the release README's self-grade of the
# first lab, the same command, runs there), and a GPU lab's needs a GPU: the
# marker says so, and tools/gpu-host-check.sh runs them.
GPU_MARKER = "<!-- check: gpu-host; needs CUDA (nvcc) and an NVIDIA GPU -->"
GRADE_MARKER = "<!-- check: slow; a whole grade builds, tests and times the lab: minutes on two cores -->"


def section(root, lab):
    """Pure but for reading the lab's files: the Markdown between the markers."""
    m = lab_manifest.load(root, lab)
    number = lab.split("-")[0]
    visible = m["tests"]["visible"]["points"]
    rows = [("visible tests (`tests/`)", rubric_points(visible), rubric_phrase(visible) +
             "; a test earns its points when it passes")]
    hidden = m["tests"]["hidden"]["points"]
    if hidden:
        rows.append(("hidden tests", rubric_points(hidden), rubric_phrase(hidden) +
                     ", run only by the instructor's grader"))
    b_rows, notes = bench_rows(lab, m)
    rows += b_rows
    san = m.get("sanitizer")
    if san:
        rows.append(("compute-sanitizer", fmt(san.get("points", 0)),
                     "%s report no error on the tests `%s` (on a GPU)" % (" and ".join(san.get("tools", [])),
                                                                          san.get("gtest_filter", "*"))))
    path = os.path.join(lab_manifest.lab_paths(root, lab).student_dir, answers.FILE)
    questions = []
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as f:
            questions = answers.parse(f.read())
        rows.append(("written answers (`student/answers.md`)", fmt(sum(q.points for q in questions)),
                     "%d questions, graded by a TA, not by the grader" % len(questions)))
    lines = [BEGIN,
             "<!-- written by tools/handout_grading.py from lab.json and student/answers.md: edit those -->",
             "",
             "## How you are graded",
             "", GPU_MARKER if m["needs_gpu"] else GRADE_MARKER,
             "```sh",
             "grading/grade %s --submission labs/%s" % (number, lab),
             "```",
             "",
             "grades your `student/` files the way the instructor's grader does (in a sandbox, with a fresh "
             "seed for the test data each time), with the visible tests only, and prints every test with its "
             "points. The parts:",
             "",
             "| part | points | how |",
             "| --- | ---: | --- |"]
    lines += ["| %s | %s | %s |" % r for r in rows]
    lines.append("")
    if m["needs_gpu"]:
        lines += ["On a machine without a GPU the GPU parts are not run; the total says how many points that "
                  "leaves for a GPU host.", ""]
    for n in notes:
        lines += [n, ""]
    if questions:
        lines.append("The written questions (answer them in `student/answers.md`):")
        lines.append("")
        lines += ["%d. %s (%s)" % (q.number, q.prompt, points_text(q.points)) for q in questions]
        lines.append("")
    lines.append(END)
    return "\n".join(lines)


def replace(text, new):
    """Pure: TEXT with its marked section replaced, or None without markers."""
    return marked_block.replace(text, BEGIN, END, new)


def main(argv):
    check = argv[1:] == ["--check"]
    if argv[1:] not in ([], ["--check"]):
        print("usage: tools/handout_grading.py [--check]  (see the top of the file)", file=sys.stderr)
        return 2
    stale = []
    for lab in lab_manifest.list_labs(ROOT):
        path = lab_manifest.lab_paths(ROOT, lab).handout
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
            new = replace(text, section(ROOT, lab))
        except (OSError, ValueError) as e:  # ManifestError is a ValueError, as answers.parse's errors are
            print("handout_grading.py: error: %s: %s" % (lab, e), file=sys.stderr)
            return 1
        if new is None:
            stale.append("%s: no %s ... %s markers" % (os.path.relpath(path, ROOT), BEGIN, END))
        elif new != text:
            if check:
                stale.append("%s: its grading section is out of date (run tools/handout_grading.py)"
                             % os.path.relpath(path, ROOT))
            else:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(new)
                print("rewrote the grading section of", os.path.relpath(path, ROOT))
    for s in stale:
        print(s, file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
