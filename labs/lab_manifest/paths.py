"""Where a lab's files live: the one place that joins a lab's paths
(lab_paths), the labs present, and what every lab's build reads."""
import collections
import os

from .base import ManifestError

STUDENT_DIR = "student"
# What every lab's build reads besides its own folder (the grader copies
# these into a workspace; the release keeps them).
BUILD_FILES = ("meson.build", "meson_options.txt", "labs/meson.build")
BUILD_DIRS = ("common", "labs/lab_manifest")


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



def repo_root():
    """The repository this package lives in (labs/lab_manifest/ is two levels down)."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


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

