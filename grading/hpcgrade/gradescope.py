"""Gradescope's autograder package for one lab, and its run_autograder.

grading/gradescope/build LAB OUT.zip writes a zip with, at its root,
  setup.sh         Gradescope runs it once, as root, when the image is built:
                   installs .ci/packages.txt's Debian packages (tools/install-packages)
  run_autograder   Gradescope runs it for every submission: grades
                   /autograder/submission, writes /autograder/results/results.json
  hpc-labs/        the part of this repository the lab's grade needs (the
                   build inputs, labs/LAB, solutions/LAB with its hidden
                   tests but not its mutants, the grader)
  gradescope.json  the lab, and whether it needs a GPU
Gradescope unpacks the zip into /autograder/source. HPCGRADE_AUTOGRADER_ROOT
replaces /autograder (the tests lay out a temporary directory like it).

Gradescope has no GPU: a CUDA lab's package grades what runs on a CPU and
reports the GPU parts as not run here (the grader's own outcome), with a line
that points to the GPU host (grading/slurm/). Hostility: bubblewrap usually
cannot create namespaces inside Gradescope's container, so the grader falls
back to resource limits, seccomp and uids of the grade's own for the
submission, the judge and the reference; run_autograder makes the reference
solutions and hidden tests readable by root only and grades under
reaper.py (grading/README.md, "Without bubblewrap", states what holds).
"""
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile

from . import inputs, manifest, reaper, release, report

CONFIG = "gradescope.json"
TREE = "hpc-labs"
# Parts of the repository every lab's grade needs, beside the lab's own.
GRADER = ("grading/grade", "grading/hpcgrade/", ".ci/packages.txt", "tools/install-packages")
HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATES = os.path.join(os.path.dirname(HERE), "gradescope")
GPU_NOTE = ("Gradescope gives no GPU: this package grades the parts of %s that run on a CPU; the GPU parts are "
            "reported as not run here and are graded on the course's GPU host (grading/slurm/).")


def wanted(rel, lab):
    """Whether the repository file REL goes into LAB's package."""
    if rel in manifest.BUILD_FILES or rel in GRADER:
        return True
    paths = manifest.lab_paths("", lab)
    prefixes = [d + "/" for d in manifest.BUILD_DIRS] + [g for g in GRADER if g.endswith("/")] + [
        paths.lab_dir + "/", paths.solution_dir + "/", paths.hidden_dir + "/"]
    # The mutants are the self-check's, not a grade's.
    return rel.startswith(tuple(prefixes)) and not rel.startswith(paths.mutants_dir + "/") \
        and "/__pycache__/" not in rel


def build(root, lab, zip_path, perf=True, hidden_visibility=None):
    """Write LAB's package to ZIP_PATH; returns the lines to print. PERF
    False: the speed is not timed (a shared Gradescope machine is noisy).
    HIDDEN_VISIBILITY: when Gradescope shows the hidden tests' items (None:
    lab.json's choice, else the grader's default)."""
    m = manifest.check_grading_fields(manifest.load(root, lab))
    files = [rel for rel in release.tree_files(root) if wanted(rel, lab)]
    config = {"lab": lab, "needs_gpu": bool(m["needs_gpu"]), "perf": perf}
    if hidden_visibility:
        config["hidden_visibility"] = hidden_visibility
    tmp = zip_path + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for name in ("setup.sh", "run_autograder"):
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFREG | 0o755) << 16
            with open(os.path.join(TEMPLATES, name), "rb") as f:
                z.writestr(info, f.read(), zipfile.ZIP_DEFLATED)
        z.writestr(CONFIG, json.dumps(config, indent=2) + "\n")
        for rel in files:
            z.write(os.path.join(root, rel), TREE + "/" + rel)
    os.replace(tmp, zip_path)
    lines = ["%s: %d files, %d KiB" % (zip_path, len(files) + 3, os.path.getsize(zip_path) // 1024)]
    if config["needs_gpu"]:
        lines.append(GPU_NOTE % lab)
    return lines


def find_student_dir(submission, lab, student_files):
    """Where in SUBMISSION the student files are: a whole repository
    (labs/LAB/student/), a lab folder, the files themselves, or one folder
    down (an uploaded zip of a folder). SUBMISSION itself when none is found
    (the grade then reports the files as missing)."""
    candidates = [manifest.lab_paths(submission, lab).lab_dir, submission]
    for base, dirs, _ in os.walk(submission):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        if base[len(submission):].count(os.sep) >= 3:
            dirs[:] = []
        candidates.append(base)
    for c in candidates:
        d = inputs.submission_dir(c, student_files)  # C itself, or its student/ folder
        if any(os.path.isfile(os.path.join(d, f)) for f in student_files):
            return d
    return submission


def secret_dirs(tree, lab):
    """What the submission must not read: every reference solution, and the
    folder that holds LAB's hidden tests."""
    return [os.path.join(tree, manifest.SECRET_DIR), os.path.dirname(manifest.lab_paths(tree, lab).hidden_dir)]


def hide_secrets(tree, lab):
    """Reference solutions and hidden tests: root only. The grader (root)
    copies them; the submission runs as another uid."""
    for path in secret_dirs(tree, lab):
        if os.path.isdir(path):
            os.chmod(path, 0o700)


def withhold(results, lab, why):
    """The grader failed (WHY): no results.json at all. Gradescope then shows
    "The autograder failed to execute correctly" and records no score (its
    documented answer to a missing or invalid results.json), where a 0
    would read as the student's; the instructor reads WHY in the
    autograder's output (stdout, shown to instructors only) and reruns the
    submission once the grader works. Returns run_autograder's status."""
    if os.path.lexists(results):
        os.remove(results)
    print("%s: NOT GRADED, no results.json written (the grader failed, not the submission): %s" % (lab, why))
    return 1


def run_autograder(autograder):
    """Grade AUTOGRADER/submission into AUTOGRADER/results/results.json."""
    source = os.path.join(autograder, "source")
    with open(os.path.join(source, CONFIG)) as f:
        config = json.load(f)
    lab, tree = config["lab"], os.path.join(source, TREE)
    results = os.path.join(autograder, "results", "results.json")
    os.makedirs(os.path.dirname(results), exist_ok=True)
    if os.geteuid() == 0:
        hide_secrets(tree, lab)
    submission = find_student_dir(os.path.join(autograder, "submission"), lab, manifest.student_files(tree, lab))
    work = tempfile.mkdtemp(prefix="gradescope-")
    out = os.path.join(work, "results.json")
    # Gradescope's containers are small: 2 jobs keep a grade within them.
    # Under reaper.py: whatever the grade leaves running below it is killed
    # when it ends (Gradescope's container has no reaper of its own).
    p = subprocess.run([sys.executable, reaper.__file__, "--", sys.executable, os.path.join(tree, "grading", "grade"),
                        lab, "--submission", submission, "--out", out, "--jobs", os.environ.get("HPCGRADE_JOBS", "2")]
                       + (["--rounds", os.environ["HPCGRADE_ROUNDS"]] if os.environ.get("HPCGRADE_ROUNDS") else [])
                       + ([] if config.get("perf", True) else ["--no-perf"])
                       + (["--hidden-visibility", config["hidden_visibility"]] if config.get("hidden_visibility")
                          else []),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    text = p.stdout.decode("utf-8", "replace")
    print(text)
    try:
        with open(out) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        shutil.rmtree(work, ignore_errors=True)
        return withhold(results, lab, "no results (exit status %d, %s)" % (p.returncode, e))
    if report.why_not_graded(data):
        shutil.rmtree(work, ignore_errors=True)
        return withhold(results, lab, report.why_not_graded(data))
    if config.get("needs_gpu"):
        data["output"] = GPU_NOTE % lab + "\n" + data.get("output", "")
    report.write_atomic(results, data)
    os.chmod(results, 0o644)
    shutil.rmtree(work, ignore_errors=True)
    print("results: %s" % results)
    return 0


def build_main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    perf = "--no-perf" not in argv
    argv = [a for a in argv if a != "--no-perf"]
    hidden_visibility = None
    if "--hidden-visibility" in argv:
        i = argv.index("--hidden-visibility")
        hidden_visibility = argv[i + 1] if i + 1 < len(argv) else ""
        del argv[i:i + 2]
        if hidden_visibility not in report.HIDDEN_VISIBILITIES:
            print("grading/gradescope/build: error: --hidden-visibility must be one of %s"
                  % ", ".join(report.HIDDEN_VISIBILITIES), file=sys.stderr)
            return 2
    if len(argv) != 2 or argv[0].startswith("-"):
        print("usage: grading/gradescope/build LAB OUT.zip [--no-perf] [--hidden-visibility %s]"
              % "|".join(report.HIDDEN_VISIBILITIES), file=sys.stderr)
        return 2
    root = manifest.repo_root()
    try:
        lab = manifest.resolve_lab(root, argv[0])
    except manifest.ManifestError as e:
        print("grading/gradescope/build: error: %s" % e, file=sys.stderr)
        return 2
    if not os.path.isdir(manifest.lab_paths(root, lab).solution_dir):
        print("grading/gradescope/build: error: no %s here (a student release cannot grade)"
              % manifest.lab_paths("", lab).solution_dir, file=sys.stderr)
        return 2
    why = report.unwritable(argv[1])
    if why or not argv[1].endswith(".zip"):
        print("grading/gradescope/build: error: cannot write %s: %s" % (argv[1], why or "the name must end in .zip"),
              file=sys.stderr)
        return 2
    print("\n".join(build(root, lab, os.path.abspath(argv[1]), perf, hidden_visibility)))
    return 0


def run_main():
    return run_autograder(os.environ.get("HPCGRADE_AUTOGRADER_ROOT", "/autograder"))
