"""grading/export-release DIR: the tree a student receives, verified.

Left out: solutions/ (every lab's reference files, hidden tests and
mutants: manifest.lab_paths), the grader's fixtures and the grader tests that need them. Kept: everything else,
including the grader, so a student can self-grade with the visible tests
(no hidden tests; speed shown against the lab's anchor, not scored: there is
no reference). The repository's README is for instructors: the release gets
its own (release_readme), whose quick start is set up, test one lab,
self-grade it.

Verification, all of which must pass (exit status 1 otherwise):
  1. none of the left-out paths exists in DIR;
  2. no file in DIR contains a solution's code: the distinctive lines of a
     solution file (those not in the skeleton of the same name, ignoring
     blank lines, braces, preprocessor and namespace lines, loop headers and
     other boilerplate, and lines shorter than MIN_SECRET chars) must not
     occur in any file of DIR, as whole lines or inside comments; a file
     holding MIN_LINES of them (or all, if fewer) fails the check, one shared
     line being coincidence;
  3. every lab builds from DIR's files alone, its driver and its visible
     tests, as the grader builds it (sandboxed, with the repository hidden,
     and no header read from outside DIR or the system), and its visible
     tests run on the skeleton score 0 (no test worth points passes); a
     Meson setup of DIR with a student's default options configures every
     lab;
  4. the release README's two commands, run as written in DIR: the first
     (install, set up and build the first lab) exits 0, the second runs the
     first lab's tests and self-grades its skeleton: 0 points on tests,
     the speed line explained;
  5. grading/grade LAB --starter --first-loss works in DIR for every other
     lab (0 points, says the hidden tests and the reference are absent);
     --solution is refused. --first-loss: step 3 already ran every visible
     test on the skeleton, and this step is about the grader in the release;
     judged in full, the MPI labs' failing tests (one mpirun each, per rank
     count) took 35-70 s a lab;
  6. DIR holds the release and nothing else afterwards: what the checks
     made there (the README's build folder, its results.json, Python's
     caches) is removed, and what is left is compared with what was
     exported.

Time: the builds of step 3 fill the grader's compiler cache (build.cache_dir)
with exactly the objects the grades of steps 4 and 5 compile again, so each
lab is compiled once; a second export, or one after the grader's own tests
(CI), finds most of them there already. Every step prints a line when it
ends, with its wall time, and the slow ones one per lab.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from . import build, host, judging, manifest, speed, workspace
from . import sandbox as sb_mod

# The secret half of every lab (reference files, hidden tests, mutants) is
# one folder: manifest.lab_paths.
EXCLUDED = (manifest.SECRET_DIR + "/", "grading/tests/fixtures/")
JUNK = ("build", "__pycache__", ".git", "results.json", ".gpu-deps")
MIN_SECRET = 20
MIN_LINES = 3


# The grader's own tests stay with the instructor, but for the unit tests,
# which need no solution, fixture or hidden test.
KEPT_GRADER_TESTS = ("grading/tests/test_units.py",)


def excluded(rel):
    if rel.startswith("grading/tests/test_") and rel.endswith(".py") and rel not in KEPT_GRADER_TESTS:
        return True
    return rel.startswith(EXCLUDED) or rel in [e.rstrip("/") for e in EXCLUDED]


def tree_files(root):
    """Files of the working tree: git's view (tracked + untracked, not
    ignored) when ROOT is a git checkout, else a walk without build dirs."""
    try:
        p = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=60)
        if p.returncode == 0:
            names = sorted({n for n in p.stdout.decode("utf-8", "replace").split("\0") if n})
            return [n for n in names if os.path.isfile(os.path.join(root, n))]
    except (OSError, subprocess.TimeoutExpired):
        pass
    found = []
    for base, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(JUNK)]
        for f in files:
            found.append(os.path.relpath(os.path.join(base, f), root))
    return sorted(found)


def normalize(line):
    return " ".join(line.split())


# A declaration that binds names to values it does not compute: each name to
# 0, a named constant, another name, or what one call with at most one plain
# argument returns (`MPI_Comm cart = MPI_COMM_NULL;`, `int up = MPI_PROC_NULL,
# down = MPI_PROC_NULL;`, `const int rank = hpclab::mpi::rank(cart);`,
# `const std::size_t m = k.size();`, `std::uint64_t found = 0;`). Any code
# that touches the same interface writes such a line (a test that needs a
# communicator of its own opens as the student's code does). What computes
# stays distinctive: operators, a call with several inputs or an expression,
# control flow, and any number but 0 (a tile size is a choice). A rule, not a
# list of allowed files: the same for every file of every lab, its unit tests
# show both sides, and it cannot wave a real leak through in a file that a
# list would.
_NAME = r"[A-Za-z_][\w:]*(?:(?:\.|->)\w+)*"
_VALUE = r"(?:0|%s(?:\((?:0|%s)?\))?)" % (_NAME, _NAME)
PLAIN_DECLARATION = (r"(?:(?:const|constexpr|static)\s+)*[\w:]+(?:<[\w:, ]*>)?[\s*&]+\w+ = %s(?:, \w+ = %s)*;$"
                     % (_VALUE, _VALUE))

# Lines every C++ file has in some form: they prove nothing.
BOILERPLATE = re.compile(r"^(for|while|if|switch|else|do|try)\b.*[{)]$|^(case|default)\b.*:$|^\} ?catch|"
                         r"^(template|using|typedef|public|private|protected|struct|class|enum|static_assert)\b|"
                         r"^HPCLAB_\w+\(.*\);$|^[\w:<>,\s*&]+ \w+(\{\})?;$|"
                         # a bare call with plain arguments uses an interface, it does not implement it
                         r"^[\w:.>-]+\([\w\s,&*.:>-]*\);$|^return [\w:.>-]+\([\w\s,&*.:>-]*\);$|"
                         # CUDA's thread-index and grid-stride idioms
                         r".*\b(blockIdx|gridDim)\.[xyz]\b.*\b(blockDim|threadIdx)\.[xyz]\b.*|" + PLAIN_DECLARATION)


def secret_lines(solution_text, skeleton_text):
    """Pure: the solution's distinctive lines that the skeleton does not have
    (no blank lines, braces, includes, loop headers and other boilerplate,
    nothing shorter than MIN_SECRET characters)."""
    skeleton = {normalize(l) for l in skeleton_text.splitlines()}
    out = []
    for raw in solution_text.splitlines():
        line = normalize(raw)
        if len(line) < MIN_SECRET or line in skeleton or re.fullmatch(r"[{}()\[\];,\s]*", line):
            continue
        if line.startswith(("#", "namespace", "}  // namespace", "} // namespace")) or BOILERPLATE.match(line):
            continue
        if line not in out:
            out.append(line)
    return out


def release_lines(text):
    """Pure: the normalized lines of a file, also with comment markers taken
    off (an answer pasted into a comment or a handout is still a leak)."""
    lines = set()
    for raw in text.splitlines():
        line = normalize(raw)
        lines.add(line)
        lines.add(re.sub(r"^(//+|\*|#+|>|-)\s*", "", line))
    return lines


def find_leaks(files, secrets, min_lines=MIN_LINES):
    """Pure: FILES {name: text}, SECRETS {solution file: [lines]} ->
    [(file, solution file, [lines])] where a file holds at least
    min(MIN_LINES, number of secret lines) of one solution's secret lines.
    One shared line is coincidence (two programs may well both contain
    `std::vector<double> result(n);`); several are copied code."""
    leaks = []
    for name, text in sorted(files.items()):
        have = release_lines(text)
        for sol, lines in sorted(secrets.items()):
            hits = [l for l in lines if l in have]
            if lines and len(hits) >= min(min_lines, len(lines)):
                leaks.append((name, sol, hits))
    return leaks


def read_text(path, limit=4 << 20):
    try:
        with open(path, "rb") as f:
            data = f.read(limit)
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", "replace")


def export(root, dest):
    """Copy the release files into DEST; return the list of relative paths."""
    copied = []
    for rel in tree_files(root):
        if excluded(rel) or any(part.startswith(JUNK) for part in rel.split("/")[:1]):
            continue
        src, dst = os.path.join(root, rel), os.path.join(dest, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(src, dst)
        copied.append(rel)
    return copied


def given_text(root, lab):
    """The lab's given code outside tests/ and student/ (interfaces, harness,
    driver): public by design, reviewed as such. A solution line that it
    already holds reveals nothing (lab 10 gives two_diff beside the
    student's two_sum, which shares lines with it)."""
    base = manifest.lab_paths(root, lab).lab_dir
    texts = []
    for name in sorted(os.listdir(base)):
        path = os.path.join(base, name)
        if os.path.isfile(path) and name.endswith((".hpp", ".h", ".cuh", ".cpp", ".cu")):
            texts.append(read_text(path) or "")
    return "\n".join(texts)


def collect_secrets(root):
    secrets = {}
    for lab in manifest.list_labs(root):
        paths = manifest.lab_paths(root, lab)
        if not os.path.isdir(paths.solution_dir):
            continue
        given = given_text(root, lab)
        for f in manifest.load(root, lab)["student_files"]:
            sol = read_text(os.path.join(paths.solution_dir, f))
            skel = read_text(os.path.join(paths.student_dir, f)) or ""
            if sol:
                name = os.path.join(manifest.lab_paths("", lab).solution_dir, f)
                secrets[name] = secret_lines(sol, skel + "\n" + given)
    return secrets


class Checker:
    def __init__(self):
        self.failures = []

    def check(self, ok, what):
        print("  [%s] %s" % ("ok" if ok else "FAIL", what), flush=True)
        if not ok:
            self.failures.append(what)
        return ok


def release_readme(dest):
    """The release's README.md: its quick start works in the release (no
    solutions, no hidden tests), for the first lab; the table links every
    handout."""
    labs = manifest.list_labs(dest)
    first = labs[0]
    number = first.split("-")[0]
    rows = []
    for lab in labs:
        m = manifest.load(dest, lab)
        rows.append("| [%s](%s) | %s | %s |" % (lab, manifest.lab_paths("", lab).handout, m["title"],
                                                  ", ".join(m["needs"]) or "C++"))
    return """# hpc-labs: student release

```sh
tools/install-packages && meson setup build/{lab} -Dlabs={lab} && meson compile -C build/{lab}
meson test -C build/{lab} --suite {lab} --print-errorlogs; grading/grade {number} --submission labs/{lab}
```

The first command installs what the labs need from Debian's or Ubuntu's packages (with `sudo` when
you are not root; it does nothing when they are installed), then sets up and builds lab {number} in
a build folder of its own. The second runs the lab's tests on your files and then grades them the
way the instructor's grader does. Before you write any code every test fails ("not implemented")
and the grade is 0: that is the starting point, not a broken install. For another lab, put its
name in place of `{lab}` (each handout gives the commands).

## How to work

- Each lab is a folder `labs/NN-name/`: the handout `README.md` says what to build, how it is
  graded, and what to expect. Edit only the files in its `student/` folder; every place to
  change is marked `TODO(student)`.
- `student/answers.md` holds the lab's written questions: write your answers under them. A TA
  grades them; the self-grade shows, next to your scores, whether it found the file and, for
  each question, whether it is answered, in how many words, and how the answer begins.
- `grading/grade NN --submission labs/NN-name` is your self-grade: the visible tests (the
  instructor's grader adds hidden ones), and your speed against the library the driver compares
  with (the median of {runs} runs of your driver, with their range), next to what the reference
  solution reached. Speed is scored only by the instructor's grader, against the reference
  solution, which this release does not have.
- The CUDA labs need NVIDIA's CUDA toolkit (`nvcc`) to build and a GPU to run; without one their
  GPU tests are skipped with the reason, and the grade says which points need a GPU.

| lab | topic | needs |
| --- | --- | --- |
{rows}
""".format(lab=first, number=number, rows="\n".join(rows), runs=speed.SELF_RUNS)


def readme_commands(text):
    """Pure: the commands of the first ```sh block of a README."""
    block, inside = [], False
    for line in text.splitlines():
        if line.startswith("```sh"):
            inside = True
        elif line.startswith("```") and inside:
            break
        elif inside and line.strip():
            block.append(line)
    return block


def run_readme(c, dest, timeout=3600):
    """Run the release README's two commands as a student would; check them.
    Returns the first lab's tests binary (or None)."""
    with open(os.path.join(dest, "README.md"), encoding="utf-8") as f:
        commands = readme_commands(f.read())
    if not c.check(len(commands) == 2, "the release README starts with two commands"):
        return None
    lab = manifest.list_labs(dest)[0]
    for i, command in enumerate(commands, 1):
        t0 = time.monotonic()
        try:
            p = subprocess.run(["bash", "-c", command], cwd=dest, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               timeout=timeout)
        except subprocess.TimeoutExpired:
            c.check(False, "README command %d ends within %d s" % (i, timeout))
            return None
        out = p.stdout.decode("utf-8", "replace")
        seconds = time.monotonic() - t0
        if i == 1:
            ok = p.returncode == 0
            what = "README command 1 (install, set up and build %s) exits 0 (%.0f s)" % (lab, seconds)
        else:
            # The skeleton: its tests fail; the self-grade gives 0 on tests
            # and explains the speed line.
            ok = p.returncode == 0 and re.search(r"TOTAL +0/[\d.]+ tests", out) is not None and \
                "speed: graded by the instructor" in out
            what = ("README command 2 (test %s, self-grade its skeleton) runs: 0 points on tests, the speed "
                    "line explained (%.0f s)" % (lab, seconds))
        if not c.check(ok, what):
            print(out[-3000:])
            return None
    return os.path.join(dest, "build", lab, manifest.build_target(lab, "-tests"))


def verify(root, dest, jobs=2, grade_check=True):
    c = Checker()
    shipped = all_files(dest)
    t0 = time.monotonic()
    present = [e for e in EXCLUDED if os.path.exists(os.path.join(dest, e.rstrip("/")))]
    c.check(not present, "left out: %s" % (", ".join(present) if present else "solutions/, hidden tests, "
                                           "mutants, grader fixtures"))
    files = {}
    for rel in tree_files(dest):
        text = read_text(os.path.join(dest, rel))
        if text is not None:
            files[rel] = text
    secrets = collect_secrets(root)
    leaks = find_leaks(files, secrets)
    c.check(not leaks, "no solution code in %d files (%d distinctive solution lines checked, %.1f s)%s"
            % (len(files), sum(len(v) for v in secrets.values()), time.monotonic() - t0,
               "".join("\n      %s contains %d lines of %s, e.g. %s" % (f, len(h), sol, h[0])
                       for f, sol, h in leaks[:10])))
    labs = manifest.list_labs(dest)
    work = tempfile.mkdtemp(prefix="hpc-release-build-")
    os.chmod(work, 0o755)  # the sandbox's uid builds below it
    try:
        configure_all(c, dest, work)
        built = build_labs(c, root, dest, work, labs, jobs)
        if built is None:
            return c.failures
        t = time.monotonic()
        for lab in labs:
            if lab not in built:
                continue
            passed, total, why = run_skeleton_tests(dest, lab, built[lab])
            c.check(total > 0 and passed == 0, "%s: visible tests run on the skeleton and it scores 0 "
                    "(%d of %d tests with points passed)%s" % (lab, passed, total, why))
        print("  ... the skeletons' tests: %.0f s" % (time.monotonic() - t), flush=True)
        if run_readme(c, dest) is None:
            return c.failures
        if grade_check:
            grade_all_in_release(c, dest, labs[1:], jobs)
            c.check(*refused(dest, labs[0])[:2])
    finally:
        shutil.rmtree(work, ignore_errors=True)
        c.check(*only_the_release(dest, shipped))
    return c.failures


def only_the_release(dest, shipped):
    """Remove from DEST what the checks made there (the README's build
    folder and results.json, Python's caches): the student makes their own.
    Returns (ok, what) for the check that DEST then holds exactly SHIPPED."""
    for name in os.listdir(dest):
        if name == "build" or name == "results.json" or name.startswith("results-"):
            path = os.path.join(dest, name)
            shutil.rmtree(path, ignore_errors=True) if os.path.isdir(path) else os.remove(path)
    for base, dirs, _ in os.walk(dest):
        for d in [d for d in dirs if d == "__pycache__"]:
            shutil.rmtree(os.path.join(base, d), ignore_errors=True)
    left = all_files(dest)
    extra, missing = sorted(left - shipped), sorted(shipped - left)
    what = "DIR holds the release and nothing else (%d files)" % len(shipped)
    if extra:
        what += "; not exported: " + ", ".join(extra[:10])
    if missing:
        what += "; gone: " + ", ".join(missing[:10])
    return not extra and not missing, what


def all_files(top):
    """Every file and link below TOP, relative to it."""
    found = set()
    for base, dirs, names in os.walk(top):
        links = [d for d in dirs if os.path.islink(os.path.join(base, d))]
        found.update(os.path.relpath(os.path.join(base, n), top) for n in names + links)
    return found


def configure_all(c, dest, work):
    """A student's Meson setup of the whole release (every option at its
    default) configures every lab: what the handouts' setup does for one."""
    t = time.monotonic()
    p = subprocess.run(["meson", "setup", os.path.join(work, "defaults"), dest], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=900)
    out = p.stdout.decode("utf-8", "replace")
    skipped = re.findall(r"^Message: skipping lab (\S+): (.*)$", out, re.M)
    ok = p.returncode == 0
    c.check(ok, "meson setup of the release with the defaults configures every lab (%d skipped here: %s; %.0f s)"
            % (len(skipped), "; ".join("%s (%s)" % s for s in skipped) or "none", time.monotonic() - t))
    if not ok:
        print(out[-3000:])
    shutil.rmtree(os.path.join(work, "defaults"), ignore_errors=True)


def build_labs(c, root, dest, work, labs, jobs):
    """Build every lab's driver and visible tests from DEST's files as the
    grader builds a lab (build.Builder: in the sandbox, the repository
    hidden, the grader's options and compiler cache), in one workspace that
    holds every lab: one Meson setup, one Ninja run (no core idles between
    labs), a line as each lab's two programs are linked. Returns {lab: its
    tests binary} for the labs this host can build, or None after a failure."""
    sandbox = sb_mod.Sandbox(True, hide=[root])
    arch = host.build_arch()
    t = time.monotonic()
    ws = workspace.create(dest, labs[0], sandbox, parent=work)
    for lab in labs[1:]:
        shutil.copytree(manifest.lab_paths(dest, lab).lab_dir, manifest.lab_paths(ws.src, lab).lab_dir)
    sandbox.own(os.path.join(ws.src, manifest.LABS_DIR))
    b = build.Builder(sandbox, ws, jobs, gpu_arch=arch)
    r = b.configure(labs=labs)
    skipped = dict(re.findall(r"skipping lab (\S+): (.*)", r.output))
    if not c.check(r.ok, "the grader's Meson setup of every lab in the release (%s, GPU code for %s; %.0f s)"
                   % (sandbox.describe(), arch, time.monotonic() - t)):
        print(r.errors or r.output[-3000:])
        return None
    for lab in labs:
        if lab in skipped:
            print("  [--] %s: not built on this host: %s" % (lab, skipped[lab]), flush=True)
    todo = [lab for lab in labs if lab not in skipped]
    t = time.monotonic()
    done = {}
    # Every lab at once: far longer than a grade's build may take; the
    # instructor's own code, so the limit only stops a hung compiler.
    runner = threading.Thread(target=lambda: done.setdefault("r", b.compile(
        [manifest.build_target(lab, s) for lab in todo for s in ("", "-tests")], wall_s=6 * 3600)))
    runner.start()
    waiting = list(todo)
    while waiting:
        runner.join(5)
        linked = ninja_outputs(ws.build)
        for lab in [lab for lab in waiting if {manifest.build_target(lab), manifest.build_target(lab, "-tests")} <= linked]:
            waiting.remove(lab)
            print("  ... [%d/%d] %s: driver and visible tests built (%.0f s)"
                  % (len(todo) - len(waiting), len(todo), lab, time.monotonic() - t), flush=True)
        if not runner.is_alive():
            break
    runner.join()
    r = done["r"]
    if not c.check(r.ok, "every lab's driver and visible tests build from the release (%d labs, %.0f s)"
                   % (len(todo), time.monotonic() - t)):
        print(r.errors or r.output[-3000:])
        return None
    bad = sorted({p for _, p in b.foreign_dependencies([root])})
    if not c.check(not bad, "the builds read nothing outside the release and the system%s"
                   % (": " + ", ".join(bad[:5]) if bad else "")):
        return None
    return {lab: os.path.join(ws.build, manifest.build_target(lab, "-tests")) for lab in todo}


def ninja_outputs(build_dir):
    """The outputs Ninja's log says it has made in BUILD_DIR so far."""
    try:
        with open(os.path.join(build_dir, ".ninja_log"), encoding="utf-8", errors="replace") as f:
            return {line.split("\t")[3] for line in f if line.count("\t") >= 4}
    except OSError:
        return set()


def run_skeleton_tests(dest, lab, binary):
    m = manifest.load(dest, lab)
    out = tempfile.mktemp(suffix=".json")
    argv = [binary, "--gtest_output=json:" + out]
    env = dict(os.environ, **manifest.MPI_AS_ROOT_ENV)
    if m["mpi_ranks"]:
        argv = judging.Run(m["mpi_ranks"][0]).prefix("mpirun") + argv
    try:
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=900, env=env)
        with open(out) as f:
            report = json.load(f)
    except (OSError, ValueError, subprocess.TimeoutExpired) as e:
        return 0, 0, " (no report: %s)" % e
    finally:
        if os.path.exists(out):
            os.remove(out)
    cases = [(s.get("name"), c) for s in report.get("testsuites", []) for c in s.get("testsuite", [])]
    points = m["tests"]["visible"]["points"]
    passed = ["%s.%s" % (c.get("classname", s), c.get("name")) for s, c in cases
              if c.get("result") == "COMPLETED" and not c.get("failures")]
    # A test worth 0 points (e.g. one that checks the lab's own harness) may
    # pass on the skeleton: the skeleton must score 0, not fail everything.
    scoring = [n for n in passed if points.get(n, 0) > 0]
    skipped = [c for _, c in cases if c.get("result") == "SKIPPED"]
    why = " (%d skipped: needs a GPU)" % len(skipped) if skipped else ""
    if len(passed) > len(scoring):
        why += " (%d passing tests are worth 0 points)" % (len(passed) - len(scoring))
    if scoring:
        why += ": " + ", ".join(scoring[:5])
    return len(scoring), len(cases), why


def grade_in_release(dest, lab):
    """grading/grade LAB --starter --first-loss in DEST (one job: the grades
    run side by side). Returns its checks as (ok, what, detail)."""
    grade = os.path.join(dest, "grading", "grade")
    t = time.monotonic()
    tmp = tempfile.mkdtemp(prefix="hpc-release-grade-")
    try:
        out = os.path.join(tmp, "r.json")
        what = "%s: grading/grade --starter --first-loss works in the release" % lab
        try:
            # Beyond the grade's own time limit (pipeline.DEFAULT_TIME_LIMIT).
            p = subprocess.run([sys.executable, grade, lab, "--starter", "--first-loss", "--quiet", "--jobs", "1",
                                "--out", out],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=2400, cwd=tmp)
        except subprocess.TimeoutExpired:
            return [(False, what + ": it did not end in 2400 s", ""), refused(dest, lab)]
        try:
            with open(out) as f:
                data = json.load(f)
        except (OSError, ValueError):
            data = None
        m = manifest.load(dest, lab)
        ok = p.returncode == 0 and data is not None and data["score"] == 0
        if ok and m["tests"]["hidden"]["points"]:
            ok = "hidden tests: not in this tree" in data["output"]
        if ok and m.get("benchmark") and not m["needs_gpu"]:
            ok = "self_speed" in data["extra_data"]
        what += " (0 points, no hidden tests, no performance score; %.0f s)" % (time.monotonic() - t)
        return [(ok, what, "" if ok else p.stdout.decode("utf-8", "replace")[-2000:]), refused(dest, lab)]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def grade_all_in_release(c, dest, labs, jobs):
    """grade_in_release for LABS, JOBS at a time; a line as each ends."""
    t = time.monotonic()
    print("  ... grading/grade --starter --first-loss for %d labs in the release, %d at a time" % (len(labs), jobs),
          flush=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(grade_in_release, dest, lab) for lab in labs]
        for n, done in enumerate(concurrent.futures.as_completed(futures), 1):
            for ok, what, detail in done.result():
                if not c.check(ok, "[%d/%d] %s" % (n, len(labs), what)) and detail:
                    print(detail, flush=True)
    print("  ... the grades: %.0f s" % (time.monotonic() - t), flush=True)


def refused(dest, lab):
    """grading/grade LAB --solution in DEST is refused: (ok, what, detail)."""
    tmp = tempfile.mkdtemp(prefix="hpc-release-grade-")
    try:
        p = subprocess.run([sys.executable, os.path.join(dest, "grading", "grade"), lab, "--solution", "--out",
                            os.path.join(tmp, "r.json")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=60, cwd=tmp)
        ok = p.returncode == 2 and b"no solutions/" in p.stdout
        return ok, "%s: grading/grade --solution is refused in the release" % lab, \
            "" if ok else p.stdout.decode("utf-8", "replace")[-2000:]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv=None):
    p = argparse.ArgumentParser(prog="grading/export-release",
                                description="Write and verify the student release of hpc-labs in DIR.")
    p.add_argument("dir", help="an empty or new directory")
    p.add_argument("--jobs", type=int, default=2, help="build jobs (default 2)")
    p.add_argument("--no-grade-check", action="store_true",
                   help="skip running grading/grade inside the release (faster)")
    a = p.parse_args(argv)
    root = manifest.repo_root()
    dest = os.path.abspath(a.dir)
    if os.path.exists(dest) and (not os.path.isdir(dest) or os.listdir(dest)):
        print("grading/export-release: error: %s exists and is not an empty directory" % a.dir, file=sys.stderr)
        return 2
    if dest == root or dest.startswith(root + os.sep):
        print("grading/export-release: error: DIR must be outside the repository", file=sys.stderr)
        return 2
    os.makedirs(dest, exist_ok=True)
    copied = export(root, dest)
    with open(os.path.join(dest, "README.md"), "w", encoding="utf-8") as f:
        f.write(release_readme(dest))
    print("exported %d files to %s; verifying:" % (len(copied), dest), flush=True)
    failures = verify(root, dest, a.jobs, grade_check=not a.no_grade_check)
    if failures:
        print("release verification FAILED (%d): %s" % (len(failures), "; ".join(f.splitlines()[0] for f in failures)))
        return 1
    print("release verified: %s" % dest)
    return 0
