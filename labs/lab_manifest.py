#!/usr/bin/env python3
"""Read and check a lab's manifest (labs/NN-name/lab.json): the one
description of a lab, read by the build (labs/meson.build) and the grader
alike, so that no second list of labs, files or tests exists anywhere.

A lab is:
  labs/NN-name/lab.json     title, needs, harness and driver sources, tests and
                            their points, driver checks, benchmark, sanitizer
  labs/NN-name/student/     the files a student edits, and nothing else: every
                            file in it is a student file
  labs/NN-name/*            the harness: the interface, given code, the driver
  labs/NN-name/tests/       the visible tests
  solutions/NN-name/        the reference versions of student/, file for file
  grading/hidden/NN-name/   the hidden tests (the build option hidden_tests_dir)

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
"""
import fnmatch
import json
import os
import shlex
import subprocess
import sys

KNOWN_NEEDS = {"cuda", "cublas", "mpi", "openmp", "tbb", "qd"}
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


class ManifestError(ValueError):
    """A lab.json that is missing, malformed or inconsistent."""


def repo_root():
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def list_labs(root):
    """Lab directory names (NN-name) that hold a lab.json, in order."""
    labs_dir = os.path.join(root, "labs")
    if not os.path.isdir(labs_dir):
        return []
    return sorted(d for d in os.listdir(labs_dir) if os.path.isfile(os.path.join(labs_dir, d, "lab.json")))


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
    base = os.path.join(root, "labs", lab, STUDENT_DIR)
    found = []
    for d, dirs, files in os.walk(base):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        for f in sorted(files):
            if not f.startswith("."):
                found.append(os.path.relpath(os.path.join(d, f), base))
    return found


def load(root, lab):
    """Load and validate labs/LAB/lab.json; return a dict with defaults filled in."""
    path = os.path.join(root, "labs", lab, "lab.json")
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
    data.setdefault("driver_checks", [])
    data.setdefault("test_main", "mpi" if "mpi" in needs else "gtest")
    data["name"] = lab
    data["needs"] = needs
    data["needs_gpu"] = bool(set(needs) & GPU_NEEDS)
    return data


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
    return data


# ---- the rubric -------------------------------------------------------------------

def is_glob(key):
    return any(c in key for c in "*?[")


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
        line("mpi_ranks", data["mpi_ranks"]),
        line("test_main", [data["test_main"]]),
    ]
    for check in data["driver_checks"]:
        expect = check.get("expect", "pass")
        if expect not in ("pass", "fail"):
            raise ManifestError("labs/%s/lab.json: driver_checks: expect must be 'pass' or 'fail'" % data["name"])
        if any(a.strip() != a for a in check.get("args", [])):
            raise ManifestError("labs/%s/lab.json: driver_checks: arguments may not have edge spaces" % data["name"])
        lines.append(line("check", [expect] + check.get("args", [])))
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
