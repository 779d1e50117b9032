"""Read and validate a lab's manifest (labs/NN-name/lab.json).

The manifest is the single description of a lab: what it needs, which files a
student edits, its driver, its tests and their points, its benchmark. Meson
reads it through `python3 manifest.py meson LAB` (see labs/meson.build) and
the grader imports it, so no second list of labs or files exists anywhere.
"""
import json
import os
import sys

KNOWN_NEEDS = {"cuda", "cublas", "mpi", "openmp", "tbb", "qd"}
GPU_NEEDS = {"cuda", "cublas"}


class ManifestError(ValueError):
    """A lab.json that is missing, malformed or inconsistent."""


def repo_root():
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def list_labs(root):
    """Lab directory names (NN-name) that hold a lab.json, in order."""
    labs_dir = os.path.join(root, "labs")
    if not os.path.isdir(labs_dir):
        return []
    return sorted(d for d in os.listdir(labs_dir)
                  if os.path.isfile(os.path.join(labs_dir, d, "lab.json")))


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


def _require_list_of_str(data, key, where):
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ManifestError("%s: '%s' must be a list of strings" % (where, key))
    return value


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
    for key in ("title", "student_files", "driver", "tests"):
        if key not in data:
            raise ManifestError("%s: missing '%s'" % (where, key))
    needs = _require_list_of_str(data, "needs", where)
    unknown = set(needs) - KNOWN_NEEDS
    if unknown:
        raise ManifestError("%s: unknown needs %s" % (where, sorted(unknown)))
    _require_list_of_str(data, "student_files", where)
    _require_list_of_str(data, "driver", where)
    tests = data["tests"]
    for kind in ("visible", "hidden"):
        part = tests.setdefault(kind, {"sources": [], "points": {}})
        _require_list_of_str(part, "sources", where + " tests." + kind)
        points = part.setdefault("points", {})
        if not all(isinstance(v, (int, float)) and v >= 0 for v in points.values()):
            raise ManifestError("%s: tests.%s.points must map test names to points >= 0" % (where, kind))
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
        _require_list_of_str(bench, "args", where + " benchmark")
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
        # memory_gib: host memory the driver needs at the benchmark's size, when
        # more than the grader's per-process default (a 16384^2 grid of doubles
        # with a copy to check it is 4.3 GB).
        if "memory_gib" in bench and (not isinstance(bench["memory_gib"], (int, float)) or bench["memory_gib"] <= 0):
            raise ManifestError("%s: benchmark.memory_gib must be a number > 0" % where)
    san = data.get("sanitizer")
    if san is not None:
        if not isinstance(san, dict):
            raise ManifestError("%s: 'sanitizer' must be an object" % where)
        tools = _require_list_of_str(san, "tools", where + " sanitizer")
        bad = set(tools) - {"memcheck", "racecheck", "initcheck", "synccheck"}
        if not tools or bad:
            raise ManifestError("%s: sanitizer.tools must list compute-sanitizer tools (memcheck, racecheck, "
                                "initcheck, synccheck)" % where)
        if not isinstance(san.get("points"), (int, float)) or san["points"] < 0:
            raise ManifestError("%s: sanitizer.points must be a number >= 0" % where)
        if not isinstance(san.get("gtest_filter", "*"), str):
            raise ManifestError("%s: sanitizer.gtest_filter must be a string" % where)
    return data


def meson_lines(data):
    """The manifest as lines Meson can split: one field per line in a fixed
    order (needs, student_files, driver, visible tests, hidden tests, MPI rank
    counts, test main), items joined by ';', then one line per driver check:
    'pass' or 'fail' followed by the arguments."""
    def join(items):
        return ";".join(str(i) for i in items)
    lines = [
        join(data["needs"]),
        join(data["student_files"]),
        join(data["driver"]),
        join(data["tests"]["visible"]["sources"]),
        join(data["tests"]["hidden"]["sources"]),
        join(data["mpi_ranks"]),
        data["test_main"],
    ]
    for check in data["driver_checks"]:
        expect = check.get("expect", "pass")
        if expect not in ("pass", "fail"):
            raise ManifestError("driver_checks: expect must be 'pass' or 'fail'")
        if any(";" in a or "\n" in a or a.strip() != a or a == "" for a in check.get("args", [])):
            raise ManifestError("driver_checks: arguments may not be empty or contain ';', newlines or edge spaces")
        lines.append(join([expect] + check.get("args", [])))
    return lines


def main(argv):
    root = repo_root()
    try:
        if len(argv) == 2 and argv[1] == "list":
            print("\n".join(list_labs(root)))
        elif len(argv) == 3 and argv[1] == "meson":
            print("\n".join(meson_lines(load(root, argv[2]))))
        else:
            print("usage: manifest.py list | meson LAB", file=sys.stderr)
            return 2
    except ManifestError as e:
        print("manifest error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
