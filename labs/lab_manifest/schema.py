"""lab.json's fields and their checks: load (what the build and the grader
read), the driver runs on files, the grading fields and the profile."""
import json
import re

from .base import ManifestError, list_of_str
from .figures import check_figure_runs, check_figures
from .paths import STUDENT_DIR, lab_paths, student_files

# Each need as the root README's lab table writes it (tools/readme_labs.py).
NEEDS_NAMES = {"cuda": "CUDA", "cublas": "cuBLAS", "mpi": "MPI", "openmp": "OpenMP", "tbb": "oneTBB", "qd": "QD"}
KNOWN_NEEDS = set(NEEDS_NAMES)
GPU_NEEDS = {"cuda", "cublas"}


def load(root, lab):
    """Load and validate labs/LAB/lab.json; return a dict with defaults filled in."""
    path = lab_paths(root, lab).manifest
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise ManifestError("cannot read %s: %s" % (path, e.strerror)) from None
    except json.JSONDecodeError as e:
        raise ManifestError("%s is not valid JSON: %s" % (path, e)) from None
    where = "labs/%s/lab.json" % lab
    for key in ("title", "driver", "tests"):
        if key not in data:
            raise ManifestError("%s: missing '%s'" % (where, key))
    if "student_files" in data:
        raise ManifestError("%s: 'student_files' is gone: the student files are the files in labs/%s/%s/"
                            % (where, lab, STUDENT_DIR))
    for key in ("topic", "status"):  # one cell each of the README's table
        if not isinstance(data.get(key, ""), str) or re.search(r"[|\n]", data.get(key, "")):
            raise ManifestError("%s: '%s' must be a string without '|' or a newline" % (where, key))
    needs = list_of_str(data, "needs", where)
    unknown = set(needs) - KNOWN_NEEDS
    if unknown:
        raise ManifestError("%s: unknown needs %s" % (where, sorted(unknown)))
    list_of_str(data, "driver", where)
    list_of_str(data, "harness", where)
    tests = data["tests"]
    for kind in ("visible", "hidden"):
        part = tests.setdefault(kind, {"sources": [], "points": {}})
        list_of_str(part, "sources", where + " tests." + kind)
        points = part.setdefault("points", {})
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 for v in points.values()):
            raise ManifestError("%s: tests.%s.points must map test names (or globs) to points >= 0"
                                % (where, kind))
    data["student_files"] = student_files(root, lab)
    if not data["student_files"]:
        raise ManifestError("%s: labs/%s/%s/ holds no student file" % (where, lab, STUDENT_DIR))
    data.setdefault("harness", [])
    data.setdefault("mpi_ranks", [])
    # Tests (names or globs) the grader runs with the fewest of mpi_ranks
    # only: serial or one-GPU tests of an MPI lab (judging.runs_for).
    if list_of_str(data, "one_rank_tests", where) and not data["mpi_ranks"]:
        raise ManifestError("%s: one_rank_tests needs mpi_ranks (a lab without MPI runs every test once)" % where)
    data.setdefault("driver_checks", [])
    check_driver_files(data, where)
    data.setdefault("test_main", "mpi" if "mpi" in needs else "gtest")
    data["name"] = lab
    check_figures(data.setdefault("figures", []), where)
    check_figure_runs(data.setdefault("figure_runs", {}), where)
    data["needs"] = needs
    data["needs_gpu"] = bool(set(needs) & GPU_NEEDS)
    if not isinstance(data.setdefault("every_gpu", False), bool) or (data["every_gpu"] and not data["needs_gpu"]):
        raise ManifestError("%s: 'every_gpu' must be true or false, and true only for a lab that needs a GPU" % where)
    return data


HIDDEN_VISIBILITIES = ("hidden", "after_due_date", "after_published")


def check_driver_files(data, where):
    """Validate "driver_files" and "driver_memory" (labs/driver_files.py says
    what they mean and checks the file kinds); fills in defaults."""
    runs = data.setdefault("driver_files", [])
    bounds = data.setdefault("driver_memory", [])
    if not isinstance(runs, list) or not isinstance(bounds, list):
        raise ManifestError("%s: 'driver_files' and 'driver_memory' must be lists" % where)
    for i, run in enumerate(runs + bounds):
        at = "%s %s[%d]" % (where, "driver_files" if i < len(runs) else "driver_memory",
                            i if i < len(runs) else i - len(runs))
        if not isinstance(run, dict):
            raise ManifestError("%s must be an object" % at)
        list_of_str(run, "args", at)
        ranks = run.setdefault("ranks", 1)
        if not isinstance(ranks, int) or isinstance(ranks, bool) or ranks < 1:
            raise ManifestError("%s: ranks must be a whole number >= 1" % at)
        if i < len(runs):
            if set(run) - {"args", "files", "ranks", "expect", "facts"}:
                raise ManifestError("%s: unknown keys %s" % (at, sorted(set(run) - {"args", "files", "ranks", "expect",
                                                                                   "facts"})))
            if not any("{file}" in a for a in run["args"]):
                raise ManifestError("%s: args must name the file as {file}" % at)
            if not list_of_str(run, "files", at):
                raise ManifestError("%s: files must list file kinds" % at)
            if run.setdefault("expect", "pass") not in ("pass", "fail"):
                raise ManifestError("%s: expect must be 'pass' or 'fail'" % at)
            facts = run.setdefault("facts", {})
            if not (isinstance(facts, dict) and all(isinstance(v, dict) and all(
                    isinstance(f, str) and isinstance(x, str) for f, x in v.items()) for v in facts.values())):
                raise ManifestError("%s: facts must map row names to {field: fact}" % at)
        else:
            if set(run) - {"name", "args", "file", "ranks", "max_mib"}:
                raise ManifestError("%s: unknown keys %s" % (at, sorted(set(run) - {"name", "args", "file", "ranks",
                                                                                   "max_mib"})))
            if not isinstance(run.get("name"), str) or not run["name"] or "`" in run["name"]:
                raise ManifestError("%s: name must be a label (no backquote)" % at)
            if not isinstance(run.get("max_mib"), int) or run["max_mib"] < 1:
                raise ManifestError("%s: max_mib must be a whole number of MiB >= 1" % at)
            if ("file" in run) != any("{file}" in a for a in run["args"]):
                raise ManifestError("%s: give file and name it in args as {file}, or neither" % at)


def check_grading_fields(data):
    """Validate what only the grader reads: `benchmark` and `sanitizer`.
    Raises ManifestError; returns DATA. (Meson never sees these fields.)"""
    where = "labs/%s/lab.json" % data.get("name", "?")
    bench = data.get("benchmark")
    if bench is not None:
        if not isinstance(bench, dict):
            raise ManifestError("%s: 'benchmark' must be an object" % where)
        list_of_str(bench, "args", where + " benchmark")
        if not bench.get("args"):
            raise ManifestError("%s: benchmark.args must name the driver's arguments" % where)
        for key in ("points", "full_marks_ratio", "floor_ratio"):
            if not isinstance(bench.get(key), (int, float)) or bench[key] < 0:
                raise ManifestError("%s: benchmark.%s must be a number >= 0" % (where, key))
        if bench["floor_ratio"] >= bench["full_marks_ratio"]:
            raise ManifestError("%s: benchmark.floor_ratio must be below full_marks_ratio" % where)
        for key in ("measure", "anchor"):
            if key in bench and not isinstance(bench[key], str):
                raise ManifestError("%s: benchmark.%s must be a string" % (where, key))
        for key in ("reps", "warmup", "mpi_ranks"):
            if key in bench and (not isinstance(bench[key], int) or bench[key] < (1 if key != "warmup" else 0)):
                raise ManifestError("%s: benchmark.%s must be a whole number" % (where, key))
        check = bench.get("check", "exact")
        if check != "exact" and not (isinstance(check, dict) and set(check) <= {"rel", "abs"}
                                     and all(isinstance(v, (int, float)) and v >= 0 for v in check.values())):
            raise ManifestError('%s: benchmark.check must be "exact" or {"rel": r, "abs": a}' % where)
        # memory_gib: host memory the driver needs at the benchmark's size, when
        # more than the grader's per-process default (a 16384^2 grid of doubles
        # with a copy to check it is 4.3 GB).
        if "memory_gib" in bench and (not isinstance(bench["memory_gib"], (int, float)) or bench["memory_gib"] <= 0):
            raise ManifestError("%s: benchmark.memory_gib must be a number > 0" % where)
        # reference_vs_anchor: the reference's measured time over the anchor's
        # (tools/reference_speed.py) and where: what a release's self-grade
        # and the handout show beside the student's own ratio.
        ref = bench.get("reference_vs_anchor")
        # "kind": "time" (the reference's time over the anchor's, lower is
        # better) or "driver" where the anchor has no time of its own and the
        # ratio is the driver's (a bandwidth fraction, higher is better).
        # Required: read with the wrong kind, the handout turns the figure
        # upside down, and reference_speed.py prints the kind to copy.
        if ref is not None and not (isinstance(ref, dict) and set(ref) == {"ratio", "host", "kind"}
                                    and isinstance(ref["ratio"], (int, float)) and ref["ratio"] > 0
                                    and isinstance(ref["host"], str) and ref["host"]
                                    and ref["kind"] in ("time", "driver")):
            raise ManifestError('%s: benchmark.reference_vs_anchor must be {"ratio": r > 0, "host": "where", '
                                '"kind": "time" or "driver"}' % where)
    # When Gradescope shows a student the hidden tests' items (its per-test
    # "visibility"); the grader's default is after_published.
    vis = data.get("tests", {}).get("hidden", {}).get("visibility")
    if vis is not None and vis not in HIDDEN_VISIBILITIES:
        raise ManifestError("%s: tests.hidden.visibility must be one of %s" % (where, ", ".join(HIDDEN_VISIBILITIES)))
    san = data.get("sanitizer")
    if san is not None:
        if not isinstance(san, dict):
            raise ManifestError("%s: 'sanitizer' must be an object" % where)
        tools = list_of_str(san, "tools", where + " sanitizer")
        bad = set(tools) - {"memcheck", "racecheck", "initcheck", "synccheck"}
        if not tools or bad:
            raise ManifestError("%s: sanitizer.tools must list compute-sanitizer tools (memcheck, racecheck, "
                                "initcheck, synccheck)" % where)
        if not isinstance(san.get("points"), (int, float)) or san["points"] < 0:
            raise ManifestError("%s: sanitizer.points must be a number >= 0" % where)
        if not isinstance(san.get("gtest_filter", "*"), str):
            raise ManifestError("%s: sanitizer.gtest_filter must be a string" % where)
    if "profile" in data:
        check_profile(data["profile"], where, data["needs_gpu"])
    return data


# ---- profile ---------------------------------------------------------------------

# "profile": the Nsight Compute counters a GPU lab's report shows beside the
# reference's, never scored (grading/hpcgrade/profile.py reads ncu's output;
# tools/profile shows a student the same table):
#   "kernels"   a regular expression (ncu's regex:) on the kernels' names
#   "args"      the driver's arguments of the profiled run: small, one
#               repetition, no warm-up (--reps 1 --warmup 0)
#   "launches"  how many kernel launches ncu profiles at most (default 8)
#   "stalls"    true: also the top two warp stall reasons
#   "metrics"   [{"metric": an ncu metric name, "per": another (optional: the
#               value is metric / per, e.g. bank conflicts per shared load),
#               "label": short, "readings": [READING...]}]
#   READING     {"above" | "below" | "above_reference" | "below_reference": x,
#                "say": one line tied to the handout}: fires when the value is
#               above/below x, or x times the reference's value for the same
#               kernel (only in a grade, where the reference is profiled)
PROFILE_KEYS = {"kernels", "args", "launches", "stalls", "metrics"}
PROFILE_COMPARISONS = ("above", "below", "above_reference", "below_reference")
_METRIC_NAME = re.compile(r"^[a-z0-9_]+(\.[a-z0-9_]+)*$")


def check_profile(prof, where, needs_gpu):
    at = where + " profile"
    if not needs_gpu:
        raise ManifestError("%s: only a lab that needs a GPU has one" % at)
    if not isinstance(prof, dict) or set(prof) - PROFILE_KEYS or not {"kernels", "args", "metrics"} <= set(prof):
        raise ManifestError("%s: must be an object with kernels, args, metrics (and launches, stalls)" % at)
    try:
        re.compile(prof["kernels"])
    except (re.error, TypeError):
        raise ManifestError("%s: kernels must be a regular expression" % at) from None
    list_of_str(prof, "args", at)
    launches = prof.get("launches", 8)
    if not isinstance(launches, int) or isinstance(launches, bool) or not 1 <= launches <= 100:
        raise ManifestError("%s: launches must be a whole number from 1 to 100" % at)
    if not isinstance(prof.get("stalls", False), bool):
        raise ManifestError("%s: stalls must be true or false" % at)
    if not isinstance(prof["metrics"], list) or not prof["metrics"]:
        raise ManifestError("%s: metrics must list the metrics to show" % at)
    for i, m in enumerate(prof["metrics"]):
        mat = "%s.metrics[%d]" % (at, i)
        if not isinstance(m, dict) or set(m) - {"metric", "per", "label", "readings"}:
            raise ManifestError("%s: must be {metric, label[, per, readings]}" % mat)
        for k in ("metric", "per") if "per" in m else ("metric",):
            if not isinstance(m.get(k), str) or not _METRIC_NAME.match(m[k]):
                raise ManifestError("%s: %s must be an ncu metric name" % (mat, k))
        if not isinstance(m.get("label"), str) or not m["label"] or "\n" in m["label"]:
            raise ManifestError("%s: label must be a short line" % mat)
        readings = m.get("readings", [])
        if not isinstance(readings, list):
            raise ManifestError("%s: readings must be a list" % mat)
        for j, r in enumerate(readings):
            ops = [k for k in PROFILE_COMPARISONS if isinstance(r, dict) and k in r]
            if (not isinstance(r, dict) or len(ops) != 1 or set(r) != {ops[0], "say"}
                    or not isinstance(r[ops[0]], (int, float)) or isinstance(r[ops[0]], bool)
                    or not isinstance(r["say"], str) or not r["say"] or "\n" in r["say"]):
                raise ManifestError('%s.readings[%d]: must be {"above"|"below"|"above_reference"|"below_reference": '
                                    'number, "say": one line}' % (mat, j))

