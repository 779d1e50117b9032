#!/usr/bin/env python3
"""Read and check a lab's manifest (labs/NN-name/lab.json): the one
description of a lab, read by the build (labs/meson.build) and the grader
alike, so that no second list of labs, files or tests exists anywhere.

A lab is:
  labs/NN-name/lab.json     title, topic and status (the root README's lab
                            table: tools/readme_labs.py), needs, harness and
                            driver sources, tests and their points, driver
                            checks, driver runs on real and hostile files and
                            their memory bounds (driver_files, driver_memory:
                            labs/driver_files.py), benchmark, sanitizer,
                            profile (the Nsight Compute counters a grade
                            shows, never scored: check_profile), figures
                            and the runs that record them (figure_runs, below),
                            every_gpu (true: its tests use every GPU of the
                            host, so a grade leases them all; else one),
                            mpi_ranks (the rank counts every test runs with)
                            and one_rank_tests (names or globs of serial or
                            one-GPU tests the grader runs with the fewest)
  labs/NN-name/student/     the files a student edits, and nothing else: every
                            file in it is a student file
  labs/NN-name/*            the harness: the interface, given code, the driver
  labs/NN-name/tests/       the visible tests
  solutions/NN-name/        what a student must not see (the release leaves out
                            solutions/ whole): the reference versions of
                            student/, file for file, and
    hidden/                 the hidden tests (Meson reads the folder from the
                            manifest's hidden_dir line)
    mutants/NAME/           the planted-bug mutants (grading/selfcheck)
lab_paths(root, lab) names each of these paths; nothing else joins them.

Rubric: tests.visible.points and tests.hidden.points map test names to
points. A key may be a glob (fnmatch: *, ?, [...]) naming a family of tests
(Lab06/EveryKernel.*/grid_stride): each test it matches gets its points.
Every test of a binary must match exactly one key and every key at least one
test (check_rubric); `lab_manifest.py check-rubric` runs in every build's
tests, so a test added without points, or points for a test that is gone,
fails CI.

Command line (Meson and scripts use it):
  lab_manifest.py list                        the labs, one per line
  lab_manifest.py meson LAB                   the manifest as "key<TAB>value<TAB>value..." lines
  lab_manifest.py mpi-env [--shell]           the environment Open MPI needs to run as root
  lab_manifest.py check-rubric LAB --visible BIN [--hidden BIN] [--launcher CMD...]
  lab_manifest.py figure-runs SET --driver-dir DIR [--cpu | --gpu] [--gpus N] [LAB...]

Figures: "figures" lists the plots tools/plot draws from the driver's --json
lines (FIGURE_SCHEMA below says what each key means); check_figures
validates them whenever a manifest is loaded.

Figure runs: "figure_runs" says how the reference driver is run to make them,
so that no script keeps a list of labs or arguments:
  "sample": [RUN...]          the runs whose --json lines are the lab's
                              figures/sample.jsonl: tools/figures-cpu.sh runs a
                              CPU lab's, tools/figures-gpu-host.sh a GPU lab's
  "sample_is_handout": false  the handout's figures are not drawn from the
                              sample (it shows larger runs its README gives)
  "quoted": [RUN...]          named runs whose output the handout quotes
                              (tools/lab11-figures.sh runs them on a GPU host)
  RUN: {"args": [driver arguments], "ranks": P (under mpirun with P ranks;
       without it the driver runs alone), "one_gpu_per_rank": true (left out
       on a host with fewer GPUs than ranks), "env": {NAME: value},
       "name": the output's name (quoted runs), "note": why, for the reader}
  lab_manifest.py figure-runs SET --driver-dir DIR [--cpu | --gpu] [--gpus N] [LAB...]
prints one run a line: the lab, the run's name (- for none) and the command
line, shell-quoted, separated by tabs.
"""
import ast
import collections
import fnmatch
import json
import re
import os
import shlex
import subprocess
import sys

# Each need as the root README's lab table writes it (tools/readme_labs.py).
NEEDS_NAMES = {"cuda": "CUDA", "cublas": "cuBLAS", "mpi": "MPI", "openmp": "OpenMP", "tbb": "oneTBB", "qd": "QD"}
KNOWN_NEEDS = set(NEEDS_NAMES)
GPU_NEEDS = {"cuda", "cublas"}
STUDENT_DIR = "student"
# Open MPI refuses to run as root (CI and GPU hosts run as root) unless told;
# oversubscription lets 4 ranks run on a 2-core CI machine.
MPI_AS_ROOT_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                   "OMPI_MCA_rmaps_base_oversubscribe": "1"}
# What every lab's build reads besides its own folder (the grader copies
# these into a workspace; the release keeps them).
BUILD_FILES = ("meson.build", "meson_options.txt", "labs/meson.build", "labs/lab_manifest.py")
BUILD_DIRS = ("common",)


# Where a lab's two halves live, relative to the repository's root: the
# public half (what a student gets) and the secret half (lab_paths).
LABS_DIR = "labs"
SECRET_DIR = "solutions"

class LabPaths(collections.namedtuple("LabPaths", [
        "lab_dir",       # labs/LAB: the public half
        "student_dir",   # labs/LAB/student: the files a student edits
        "tests_dir",     # labs/LAB/tests: the visible tests
        "handout",       # labs/LAB/README.md
        "manifest",      # labs/LAB/lab.json
        "solution_dir",  # solutions/LAB: the reference student files, flat
        "hidden_dir",    # the hidden tests
        "mutants_dir",   # the planted-bug mutants, one folder each
        ])):
    __slots__ = ()

    def solution_extras(self):
        """The folders in solution_dir that hold no student file (the hidden
        tests, the mutants), relative to it: not part of the solution."""
        return [os.path.relpath(d, self.solution_dir) for d in (self.hidden_dir, self.mutants_dir)
                if d.startswith(self.solution_dir + os.sep)]


def lab_paths(root, lab):
    """Every path of LAB under ROOT (ROOT "" gives them relative to the
    root): the one place that names them."""
    lab_dir = os.path.join(root, LABS_DIR, lab)
    solution_dir = os.path.join(root, SECRET_DIR, lab)
    return LabPaths(lab_dir, os.path.join(lab_dir, STUDENT_DIR), os.path.join(lab_dir, "tests"),
                    os.path.join(lab_dir, "README.md"), os.path.join(lab_dir, "lab.json"), solution_dir,
                    os.path.join(solution_dir, "hidden"), os.path.join(solution_dir, "mutants"))


def build_target(lab, suffix=""):
    """A lab's program in a Meson build tree, relative to it: labs/meson.build
    names the driver LAB, its tests LAB-tests and LAB-hidden, and the
    instructor tree's solution builds LAB-solution... (SUFFIX)."""
    return LABS_DIR + "/" + lab + suffix


class ManifestError(ValueError):
    """A lab.json that is missing, malformed or inconsistent."""


def repo_root():
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def list_labs(root):
    """Lab directory names (NN-name) that hold a lab.json, in order."""
    labs_dir = os.path.join(root, LABS_DIR)
    if not os.path.isdir(labs_dir):
        return []
    return sorted(d for d in os.listdir(labs_dir) if os.path.isfile(lab_paths(root, d).manifest))


def resolve_lab(root, name):
    """Accept '01', '1', '01-sorting' or 'sorting'; return the directory name."""
    labs = list_labs(root)
    if name in labs:
        return name
    matches = [d for d in labs
               if d.split("-", 1)[0].lstrip("0") == name.lstrip("0") and name.strip("0") != ""
               or d.split("-", 1)[0] == name or d.split("-", 1)[-1] == name]
    if len(matches) == 1:
        return matches[0]
    raise ManifestError("unknown lab '%s' (present: %s)" % (name, ", ".join(labs) or "none"))


def _list_of_str(data, key, where):
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ManifestError("%s: '%s' must be a list of strings" % (where, key))
    return value


def student_files(root, lab):
    """Every file under labs/LAB/student/, as paths relative to it."""
    base = lab_paths(root, lab).student_dir
    found = []
    for d, dirs, files in os.walk(base):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        for f in sorted(files):
            if not f.startswith("."):
                found.append(os.path.relpath(os.path.join(d, f), base))
    return found


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
    needs = _list_of_str(data, "needs", where)
    unknown = set(needs) - KNOWN_NEEDS
    if unknown:
        raise ManifestError("%s: unknown needs %s" % (where, sorted(unknown)))
    _list_of_str(data, "driver", where)
    _list_of_str(data, "harness", where)
    tests = data["tests"]
    for kind in ("visible", "hidden"):
        part = tests.setdefault(kind, {"sources": [], "points": {}})
        _list_of_str(part, "sources", where + " tests." + kind)
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
    if _list_of_str(data, "one_rank_tests", where) and not data["mpi_ranks"]:
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
        _list_of_str(run, "args", at)
        ranks = run.setdefault("ranks", 1)
        if not isinstance(ranks, int) or isinstance(ranks, bool) or ranks < 1:
            raise ManifestError("%s: ranks must be a whole number >= 1" % at)
        if i < len(runs):
            if set(run) - {"args", "files", "ranks", "expect", "facts"}:
                raise ManifestError("%s: unknown keys %s" % (at, sorted(set(run) - {"args", "files", "ranks", "expect",
                                                                                   "facts"})))
            if not any("{file}" in a for a in run["args"]):
                raise ManifestError("%s: args must name the file as {file}" % at)
            if not _list_of_str(run, "files", at):
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
        _list_of_str(bench, "args", where + " benchmark")
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
        # "kind": "driver" where the anchor has no time of its own and the
        # ratio is the driver's (a bandwidth fraction, higher is better).
        if ref is not None and not (isinstance(ref, dict) and {"ratio", "host"} <= set(ref) <= {"ratio", "host", "kind"}
                                    and isinstance(ref["ratio"], (int, float)) and ref["ratio"] > 0
                                    and isinstance(ref["host"], str) and ref["host"]
                                    and ref.get("kind", "time") in ("time", "driver")):
            raise ManifestError('%s: benchmark.reference_vs_anchor must be {"ratio": r > 0, "host": "where"'
                                '[, "kind": "time" or "driver"]}' % where)
    # When Gradescope shows a student the hidden tests' items (its per-test
    # "visibility"); the grader's default is after_published.
    vis = data.get("tests", {}).get("hidden", {}).get("visibility")
    if vis is not None and vis not in HIDDEN_VISIBILITIES:
        raise ManifestError("%s: tests.hidden.visibility must be one of %s" % (where, ", ".join(HIDDEN_VISIBILITIES)))
    san = data.get("sanitizer")
    if san is not None:
        if not isinstance(san, dict):
            raise ManifestError("%s: 'sanitizer' must be an object" % where)
        tools = _list_of_str(san, "tools", where + " sanitizer")
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
    _list_of_str(prof, "args", at)
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


# ---- figures ---------------------------------------------------------------------

# What a figure declaration may hold. A figure is one PNG of one or more
# panels (axes); a panel draws layers; a layer is rows of the driver's --json
# output turned into points. Values in x, y, series, if, facet... are
# EXPRESSIONS over a row's fields: Python's arithmetic, comparisons, "a if c
# else b", string % formatting and FIGURE_FUNCTIONS, nothing else (no
# attribute but a nested field such as seconds.median, no call but those
# named), so a lab.json cannot run code. A field a row lacks leaves the row
# out of that layer.
FIGURE_SCHEMA = {
    "figure": {
        "file": "the PNG's name, written into the output folder",
        "title": "the figure's title",
        "size": "[width, height] of one panel in inches (default [6, 4])",
        "columns": "panels per row (default: up to 3)",
        "panels": "a list of panels side by side (or a panel's keys directly in the figure)",
    },
    "panel": {
        "title": "the panel's title; with facet, a template: {} is the facet's value",
        "x": "the x axis: {label, log (true, 2 or 10), min, max}",
        "y": "the y axis: {label, log (true, 2 or 10), min, max}",
        "layers": "the list of layers drawn in this panel",
        "facet": "an expression: one panel per distinct value it takes over the layers' rows",
        "legend": "false: no legend",
    },
    "layer": {
        "where": "{field: value, or a list of values, or a glob such as 'copy/*'}: the rows drawn",
        "if": "an expression: only the rows where it is true",
        "x": "an expression (or a list: the first that varies within the panel)",
        "x_end": "segments: where each segment ends (an expression)",
        "y": "an expression (bar: a list of expressions stacks them)",
        "series": "an expression or list of expressions: one line per distinct value",
        "label": "the legend's text: a str.format template of the series' values ({0}, {1}...); "
                 "bar with a list of y: one label each",
        "style": "line (default), dashed, dotted, points, bar, hline, vline or segments",
        "ref": "{field: value}: the reference row within each series, named ref in expressions "
               "(ref.seconds.median); a series without one is not drawn",
        "best": "an expression: keep only the row of each series where it is largest",
        "reduce": "hline, vline: one line for max, min, first, last or mean of the rows' values",
        "repeat": "vline: a line at every multiple of the value, up to the panel's largest x",
        "curve": "[low, high]: the layer is a function of x (named x in expressions), drawn over "
                 "that range for each row",
        "unpivot": "a field prefix such as 'level_': each field level_K of a row becomes a point (K, value)",
        "annotate": "a str.format template of the row's fields written beside each point or bar",
    },
}
FIGURE_STYLES = ("line", "dashed", "dotted", "points", "bar", "hline", "vline", "segments")
FIGURE_REDUCTIONS = ("max", "min", "first", "last", "mean")
# get("field", default): a field that some rows lack; part(text, sep, i): the
# i-th piece of text split at sep; number(text): a number written in text.
FIGURE_FUNCTIONS = ("log", "log2", "log10", "sqrt", "abs", "min", "max", "get", "part", "number")
_EXPRESSION_NODES = (ast.Expression, ast.Constant, ast.Name, ast.Load, ast.Attribute, ast.BinOp, ast.UnaryOp,
                     ast.Compare, ast.BoolOp, ast.IfExp, ast.Call, ast.Tuple, ast.Add, ast.Sub, ast.Mult, ast.Div,
                     ast.FloorDiv, ast.Mod, ast.Pow, ast.USub, ast.UAdd, ast.Not, ast.And, ast.Or, ast.Eq,
                     ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def parse_expression(text, where):
    """The syntax tree of a figure expression, or ManifestError if it is not
    one (see FIGURE_SCHEMA): tools/plot evaluates only trees that pass."""
    if not isinstance(text, str) or not text.strip():
        raise ManifestError("%s: an expression must be a non-empty string" % where)
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as e:
        raise ManifestError("%s: %r is not an expression: %s" % (where, text, e.msg)) from None
    for node in ast.walk(tree):
        if not isinstance(node, _EXPRESSION_NODES):
            raise ManifestError("%s: %r: %s is not allowed in a figure expression" % (where, text, type(node).__name__))
        if isinstance(node, ast.Attribute) and not isinstance(node.value, (ast.Name, ast.Attribute)):
            raise ManifestError("%s: %r: only fields have parts (seconds.median)" % (where, text))
        if isinstance(node, ast.Call) and (node.keywords or not isinstance(node.func, ast.Name)
                                           or node.func.id not in FIGURE_FUNCTIONS):
            raise ManifestError("%s: %r: the functions are %s" % (where, text, ", ".join(FIGURE_FUNCTIONS)))
    return tree


def _check_keys(obj, kind, where):
    if not isinstance(obj, dict):
        raise ManifestError("%s must be an object" % where)
    unknown = set(obj) - set(FIGURE_SCHEMA[kind])
    if unknown:
        raise ManifestError("%s: unknown key(s) %s (a %s has %s)"
                            % (where, ", ".join(sorted(unknown)), kind, ", ".join(FIGURE_SCHEMA[kind])))


def _check_match(obj, where):
    """A where or ref: field -> a value or a list of values."""
    scalar = (str, int, float)
    if not isinstance(obj, dict) or not all(
            isinstance(v, scalar) or (isinstance(v, list) and v and all(isinstance(x, scalar) for x in v))
            for v in obj.values()):
        raise ManifestError("%s must map fields to a value or a list of values" % where)


def _check_axis(axis, where):
    if not isinstance(axis, dict) or set(axis) - {"label", "log", "min", "max"}:
        raise ManifestError("%s must be an object of label, log, min, max" % where)
    if not isinstance(axis.get("label", ""), str) or axis.get("log", False) not in (True, False, 2, 10):
        raise ManifestError("%s: label is a string, log is true, false, 2 or 10" % where)
    for key in ("min", "max"):
        if key in axis and not isinstance(axis[key], (int, float)):
            raise ManifestError("%s.%s must be a number" % (where, key))


def _check_layer(layer, where):
    _check_keys(layer, "layer", where)
    style = layer.get("style", "line")
    if style not in FIGURE_STYLES:
        raise ManifestError("%s: style must be one of %s" % (where, ", ".join(FIGURE_STYLES)))
    need = {"hline": ["y"], "vline": ["x"], "segments": ["x", "x_end", "y"]}.get(style, ["x", "y"])
    if "unpivot" in layer:
        need = []
    for key in need:
        if key not in layer:
            raise ManifestError("%s: a %s layer needs '%s'" % (where, style, key))
    for key in ("where", "ref"):
        if key in layer:
            _check_match(layer[key], "%s.%s" % (where, key))
    for key in ("x", "y", "series"):
        value = layer.get(key)
        if isinstance(value, list):
            if not value or (key == "y" and style != "bar"):
                raise ManifestError("%s.%s: a list of expressions is for x, series and a bar's y" % (where, key))
            for i, v in enumerate(value):
                parse_expression(v, "%s.%s[%d]" % (where, key, i))
        elif value is not None:
            parse_expression(value, "%s.%s" % (where, key))
    for key in ("x_end", "if", "best"):
        if key in layer:
            parse_expression(layer[key], "%s.%s" % (where, key))
    label = layer.get("label", "")
    if isinstance(layer.get("y"), list):
        if not (isinstance(label, list) and len(label) == len(layer["y"]) and all(isinstance(v, str) for v in label)):
            raise ManifestError("%s: stacked bars need one label per y" % where)
    elif not isinstance(label, str):
        raise ManifestError("%s.label must be a string" % where)
    if layer.get("reduce", "first") not in FIGURE_REDUCTIONS:
        raise ManifestError("%s.reduce must be one of %s" % (where, ", ".join(FIGURE_REDUCTIONS)))
    if not isinstance(layer.get("repeat", False), bool):
        raise ManifestError("%s.repeat must be true or false" % where)
    curve = layer.get("curve")
    if curve is not None and not (isinstance(curve, list) and len(curve) == 2 and curve[0] < curve[1]
                                  and all(isinstance(v, (int, float)) and v > 0 for v in curve)):
        raise ManifestError("%s.curve must be [low, high] with 0 < low < high" % where)
    for key in ("unpivot", "annotate"):
        if not isinstance(layer.get(key, ""), str):
            raise ManifestError("%s.%s must be a string" % (where, key))


def figure_panel_keys(figure):
    """The keys of a figure that are its one panel's (the title is the figure's)."""
    return set(figure) & (set(FIGURE_SCHEMA["panel"]) - {"title"})


def figure_panels(figure):
    """A figure's panels: its "panels", or its one panel given inline."""
    return figure.get("panels", [{k: figure[k] for k in figure_panel_keys(figure)}])


def check_figures(figures, where):
    """Validate a manifest's "figures" (FIGURE_SCHEMA); raises ManifestError."""
    if not isinstance(figures, list):
        raise ManifestError("%s: 'figures' must be a list" % where)
    files = set()
    for i, figure in enumerate(figures):
        at = "%s figures[%d]" % (where, i)
        if not isinstance(figure, dict):
            raise ManifestError("%s must be an object" % at)
        panel_keys = figure_panel_keys(figure)
        if "panels" in figure and panel_keys:
            raise ManifestError("%s: give 'panels' or one panel's keys (%s), not both"
                                % (at, ", ".join(sorted(panel_keys))))
        _check_keys({k: v for k, v in figure.items() if k not in panel_keys}, "figure", at)
        name = figure.get("file")
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*\.png", name):
            raise ManifestError("%s: 'file' must be a plain name ending in .png" % at)
        if name in files:
            raise ManifestError("%s: two figures are named %s" % (at, name))
        files.add(name)
        at = "%s (%s)" % (at, name)
        size = figure.get("size", [6, 4])
        if not (isinstance(size, list) and len(size) == 2 and all(isinstance(v, (int, float)) and v > 0 for v in size)):
            raise ManifestError("%s: size must be [width, height] in inches" % at)
        if not isinstance(figure.get("columns", 1), int) or isinstance(figure.get("columns"), bool) \
                or figure.get("columns", 1) < 1:
            raise ManifestError("%s: columns must be a whole number >= 1" % at)
        panels = figure_panels(figure)
        if not isinstance(panels, list) or not panels:
            raise ManifestError("%s: 'panels' must be a non-empty list" % at)
        for j, panel in enumerate(panels):
            pat = "%s panels[%d]" % (at, j) if "panels" in figure else at
            _check_keys(panel, "panel", pat)
            for axis in ("x", "y"):
                if axis in panel:
                    _check_axis(panel[axis], "%s.%s" % (pat, axis))
            if not isinstance(panel.get("title", ""), str) or not isinstance(panel.get("legend", True), bool):
                raise ManifestError("%s: title is a string and legend true or false" % pat)
            if "facet" in panel:
                parse_expression(panel["facet"], pat + ".facet")
            layers = panel.get("layers")
            if not isinstance(layers, list) or not layers:
                raise ManifestError("%s: 'layers' must be a non-empty list" % pat)
            for k, layer in enumerate(layers):
                _check_layer(layer, "%s layers[%d]" % (pat, k))


FIGURE_RUN_SETS = ("sample", "quoted")
FIGURE_RUN_KEYS = {"args", "ranks", "one_gpu_per_rank", "env", "name", "note"}


def check_figure_runs(runs, where):
    """Validate a manifest's "figure_runs" (the module's doc); raises ManifestError."""
    if not isinstance(runs, dict) or set(runs) - set(FIGURE_RUN_SETS) - {"sample_is_handout"}:
        raise ManifestError("%s: 'figure_runs' must be an object of %s and sample_is_handout"
                            % (where, ", ".join(FIGURE_RUN_SETS)))
    if not isinstance(runs.setdefault("sample_is_handout", True), bool):
        raise ManifestError("%s: figure_runs.sample_is_handout must be true or false" % where)
    for kind in FIGURE_RUN_SETS:
        names = set()
        if not isinstance(runs.setdefault(kind, []), list):
            raise ManifestError("%s: figure_runs.%s must be a list of runs" % (where, kind))
        for i, run in enumerate(runs[kind]):
            at = "%s figure_runs.%s[%d]" % (where, kind, i)
            if not isinstance(run, dict) or set(run) - FIGURE_RUN_KEYS or "args" not in run:
                raise ManifestError("%s must be an object of args and %s" % (at, ", ".join(sorted(FIGURE_RUN_KEYS))))
            _list_of_str(run, "args", at)
            ranks = run.get("ranks", 1)
            if not isinstance(ranks, int) or isinstance(ranks, bool) or ranks < 1:
                raise ManifestError("%s: ranks must be a whole number >= 1" % at)
            if not isinstance(run.get("one_gpu_per_rank", False), bool) or not isinstance(run.get("note", ""), str):
                raise ManifestError("%s: one_gpu_per_rank is true or false, note a string" % at)
            env = run.get("env", {})
            if not (isinstance(env, dict) and all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k) and isinstance(v, str)
                                                  for k, v in env.items())):
                raise ManifestError("%s: env must map variable names to strings" % at)
            name = run.get("name")
            if (name is not None or kind == "quoted") and not (
                    isinstance(name, str) and re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", name)):
                raise ManifestError("%s: name must be a plain file name (a quoted run needs one)" % at)
            if name is not None and name in names:
                raise ManifestError("%s: two runs are named %s" % (at, name))
            names.add(name)


def figure_run_command(run, driver):
    """Pure: the command line (a list) of one figure run of DRIVER. Under
    mpirun, oversubscription lets more ranks than cores run (and a rank a
    GPU shares with others)."""
    env = sorted(run.get("env", {}).items())
    if "ranks" in run:
        launch = ["mpirun", "-np", str(run["ranks"]), "--oversubscribe"]
        for k, v in env:
            launch += ["-x", "%s=%s" % (k, v)]
    else:
        launch = ["env"] + ["%s=%s" % kv for kv in env] if env else []
    return launch + [driver] + run["args"]


def figure_runs_command(root, args):
    """figure-runs SET --driver-dir DIR [--cpu | --gpu] [--gpus N] [LAB...]"""
    if not args or args[0] not in FIGURE_RUN_SETS:
        raise ManifestError("figure-runs: the first argument is one of %s" % ", ".join(FIGURE_RUN_SETS))
    kind, driver_dir, gpu, gpus, labs, i = args[0], None, None, None, [], 1
    while i < len(args):
        if args[i] == "--driver-dir" and i + 1 < len(args):
            driver_dir, i = args[i + 1], i + 2
        elif args[i] == "--gpus" and i + 1 < len(args) and args[i + 1].isdigit():
            gpus, i = int(args[i + 1]), i + 2
        elif args[i] in ("--cpu", "--gpu"):
            gpu, i = args[i] == "--gpu", i + 1
        elif not args[i].startswith("-"):
            labs.append(resolve_lab(root, args[i]))
            i += 1
        else:
            raise ManifestError("figure-runs: unexpected argument %r" % args[i])
    if driver_dir is None:
        raise ManifestError("figure-runs: --driver-dir DIR (where LAB-solution is) is missing")
    lines = []
    for lab in labs or list_labs(root):
        m = load(root, lab)
        runs = m["figure_runs"][kind]
        if gpu is not None and m["needs_gpu"] != gpu:
            runs = []
        if labs and not runs:
            raise ManifestError("labs/%s/lab.json has no %s%s figure runs"
                                % (lab, "" if gpu is None else "GPU " if gpu else "CPU ", kind))
        for run in runs:
            if gpus is not None and run.get("one_gpu_per_rank") and run.get("ranks", 1) > max(gpus, 1):
                continue
            command = figure_run_command(run, os.path.join(driver_dir, lab + "-solution"))
            lines.append("%s\t%s\t%s" % (lab, run.get("name", "-"), " ".join(shlex.quote(a) for a in command)))
    print("\n".join(lines))
    return 0


# ---- the rubric -------------------------------------------------------------------

def is_glob(key):
    return any(c in key for c in "*?[")


def matches_any(name, patterns):
    """Whether NAME (a test, or a self-check case) matches one of PATTERNS
    (fnmatch, case-sensitive, as lab.json's test lists are)."""
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


def expand_rubric(points, tests):
    """Pure: POINTS (rubric keys, names or globs, -> points) against TESTS
    (the full names a test binary lists). Returns ([(test, points, key)] in
    TESTS' order, [problems]): a test matched by no key or by several, a key
    that matches no test."""
    assigned, problems, used = [], [], set()
    for test in tests:
        keys = [k for k in points if (fnmatch.fnmatchcase(test, k) if is_glob(k) else test == k)]
        if not keys:
            problems.append("test %s has no rubric entry" % test)
        elif len(keys) > 1:
            problems.append("test %s matches %d rubric entries (%s)" % (test, len(keys), ", ".join(keys)))
        else:
            assigned.append((test, points[keys[0]], keys[0]))
        used.update(keys)
    for key in points:
        if key not in used:
            problems.append("rubric entry %s matches no test" % key)
    return assigned, problems


def parse_test_list(text):
    """Pure: full test names from GoogleTest's --gtest_list_tests output."""
    names, suite = [], None
    for line in text.splitlines():
        if not line.strip() or line.startswith(("Running main()", "[")):
            continue
        if not line.startswith(" "):
            suite = line.split("#")[0].strip()
            continue
        if suite:
            names.append(suite + line.split("#")[0].strip())
    return names


def list_tests(binary, launcher=(), env=None, timeout=120):
    """The test names a GoogleTest binary holds (it runs no test)."""
    p = subprocess.run(list(launcher) + [binary, "--gtest_list_tests"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, timeout=timeout)
    if p.returncode != 0:
        raise ManifestError("%s --gtest_list_tests failed: %s" % (binary, p.stdout.decode("utf-8", "replace")[-500:]))
    return parse_test_list(p.stdout.decode("utf-8", "replace"))


# ---- Meson's view -------------------------------------------------------------------

def meson_lines(data):
    """The manifest as lines Meson can split: a key, then its values, all
    separated by tabs; one `check` line per driver check (pass or fail, then
    the arguments)."""
    def line(key, values):
        for v in values:
            v = str(v)
            if "\t" in v or "\n" in v or v == "":
                raise ManifestError("labs/%s/lab.json: %s: values may not be empty or hold tabs or newlines"
                                    % (data["name"], key))
        return "\t".join([key] + [str(v) for v in values])
    lines = [
        line("needs", data["needs"]),
        line("student_files", data["student_files"]),
        line("harness", data["harness"]),
        line("driver", data["driver"]),
        line("visible_tests", data["tests"]["visible"]["sources"]),
        line("hidden_tests", data["tests"]["hidden"]["sources"]),
        line("hidden_dir", [lab_paths("", data["name"]).hidden_dir]),
        line("mpi_ranks", data["mpi_ranks"]),
        line("test_main", [data["test_main"]]),
        line("figures", [f["file"] for f in data["figures"]]),
    ]
    for check in data["driver_checks"]:
        expect = check.get("expect", "pass")
        if expect not in ("pass", "fail"):
            raise ManifestError("labs/%s/lab.json: driver_checks: expect must be 'pass' or 'fail'" % data["name"])
        if any(a.strip() != a for a in check.get("args", [])):
            raise ManifestError("labs/%s/lab.json: driver_checks: arguments may not have edge spaces" % data["name"])
        lines.append(line("check", [expect] + check.get("args", [])))
    # One test per run and file kind: its index, the kind, the ranks, and
    # how the test is named (the arguments, the file shown as {kind}).
    for i, run in enumerate(data["driver_files"]):
        for kind in run["files"]:
            label = " ".join(a.replace("{file}", "{%s}" % kind) for a in run["args"])
            if run["expect"] == "fail":
                label += " (refused)"
            lines.append(line("file_run", [i, kind, run["ranks"], label]))
    for i, run in enumerate(data["driver_memory"]):
        lines.append(line("memory", [i, run["ranks"], run["name"]]))
    return lines


def main(argv):
    root = repo_root()
    try:
        if argv[1:] == ["list"]:
            print("\n".join(list_labs(root)))
        elif len(argv) == 3 and argv[1] == "meson":
            print("\n".join(meson_lines(load(root, argv[2]))))
        elif argv[1:2] == ["mpi-env"]:
            for k, v in MPI_AS_ROOT_ENV.items():
                print("export %s=%s" % (k, shlex.quote(v)) if argv[2:] == ["--shell"] else "%s=%s" % (k, v))
        elif argv[1:2] == ["figure-runs"]:
            return figure_runs_command(root, argv[2:])
        elif argv[1:2] == ["check-rubric"] and len(argv) >= 5:
            return check_rubric_command(root, argv[2], argv[3:])
        else:
            print(__doc__.split("Command line")[1], file=sys.stderr)
            return 2
    except ManifestError as e:
        print("lab_manifest: error: %s" % e, file=sys.stderr)
        return 1
    return 0


def check_rubric_command(root, lab, args):
    """check-rubric LAB --visible BIN [--hidden BIN] [--launcher CMD...]"""
    binaries, launcher, i = {}, [], 0
    while i < len(args):
        if args[i] in ("--visible", "--hidden") and i + 1 < len(args):
            binaries[args[i][2:]] = args[i + 1]
            i += 2
        elif args[i] == "--launcher":
            launcher = args[i + 1:]
            break
        else:
            raise ManifestError("check-rubric: unexpected argument %r" % args[i])
    m = load(root, lab)
    env = dict(os.environ, **MPI_AS_ROOT_ENV)
    problems = []
    for kind, binary in sorted(binaries.items()):
        _, found = expand_rubric(m["tests"][kind]["points"], list_tests(binary, launcher, env))
        problems += ["%s (%s tests)" % (p, kind) for p in found]
    for p in problems:
        print("labs/%s/lab.json: %s" % (lab, p))
    if not problems:
        print("labs/%s/lab.json: every test has exactly one rubric entry and every entry a test" % lab)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
