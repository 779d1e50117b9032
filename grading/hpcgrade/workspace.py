"""A private copy of what one lab's build needs, with the student's files in.

Layout of a workspace W (a fresh temporary directory; the repo is never
written to and is never mounted inside the sandbox):
  W/src     meson.build, meson_options.txt, common/, labs/meson.build,
            labs/LAB/ (with the submission's student files copied over the
            starter's), grading/hpcgrade/ (Meson runs manifest.py);
            grading/hidden/LAB/ only while the hidden tests are compiled
  W/build   the Meson build directory
  W/runs    one fresh directory per test process
  W/home    HOME inside the sandbox
"""
import os
import shutil
import tempfile

MAX_STUDENT_FILE = 1 << 20  # bytes; a lab's source file is far smaller
MAX_LISTED = 20             # ignored files named in the report


class Workspace:
    def __init__(self, path, lab):
        self.path = path
        self.lab = lab
        self.src = os.path.join(path, "src")
        self.build = os.path.join(path, "build")
        self.runs = os.path.join(path, "runs")
        self.home = os.path.join(path, "home")

    def lab_dir(self):
        return os.path.join(self.src, "labs", self.lab)

    def hidden_dir(self):
        return os.path.join(self.src, "grading", "hidden", self.lab)

    def new_run_dir(self):
        return tempfile.mkdtemp(prefix="run-", dir=self.runs)

    def remove(self):
        shutil.rmtree(self.path, ignore_errors=True)


def _ignore_junk(_dir, names):
    return [n for n in names if n in ("__pycache__", ".git")]


def create(root, lab, parent=None):
    """Copy the build inputs for LAB from the repo at ROOT into a new workspace."""
    path = tempfile.mkdtemp(prefix="hpcgrade-%s-" % lab, dir=parent)
    ws = Workspace(path, lab)
    for d in (ws.src, ws.runs, ws.home, os.path.join(ws.src, "labs"), os.path.join(ws.src, "grading")):
        os.makedirs(d, exist_ok=True)
    for f in ("meson.build", "meson_options.txt"):
        shutil.copy2(os.path.join(root, f), os.path.join(ws.src, f))
    shutil.copy2(os.path.join(root, "labs", "meson.build"), os.path.join(ws.src, "labs", "meson.build"))
    shutil.copytree(os.path.join(root, "common"), os.path.join(ws.src, "common"), ignore=_ignore_junk)
    shutil.copytree(os.path.join(root, "labs", lab), ws.lab_dir(), ignore=_ignore_junk)
    shutil.copytree(os.path.join(root, "grading", "hpcgrade"), os.path.join(ws.src, "grading", "hpcgrade"),
                    ignore=_ignore_junk)
    return ws


def list_files(directory, limit=1000):
    """Relative paths of the regular files and links under DIRECTORY (bounded)."""
    found = []
    for base, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(base, d)))
        for f in sorted(files):
            found.append(os.path.relpath(os.path.join(base, f), directory))
            if len(found) >= limit:
                return found
    return found


def plan_files(student_files, present):
    """Pure: which listed files to take, which are missing, which are ignored."""
    wanted = [f for f in student_files if f in present]
    missing = [f for f in student_files if f not in present]
    ignored = [f for f in present if f not in student_files]
    return wanted, missing, ignored


def install_student_files(ws, student_files, submission_dir):
    """Copy the listed student files from SUBMISSION_DIR over the starter's.
    Returns notes (plain sentences) for the report."""
    present = list_files(submission_dir)
    wanted, missing, ignored = plan_files(student_files, present)
    notes = []
    for f in wanted:
        src = os.path.join(submission_dir, f)
        if os.path.islink(src) or not os.path.isfile(src):
            notes.append("%s is a link or not a regular file: ignored, the starter's version is used" % f)
            continue
        if os.path.getsize(src) > MAX_STUDENT_FILE:
            notes.append("%s is larger than %d bytes: ignored, the starter's version is used"
                         % (f, MAX_STUDENT_FILE))
            continue
        dst = os.path.join(ws.lab_dir(), f)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(src, "rb") as fi:
            data = fi.read(MAX_STUDENT_FILE + 1)
        with open(dst, "wb") as fo:
            fo.write(data)
    if missing:
        notes.append("missing from the submission (the starter's version is used): " + ", ".join(missing))
    if ignored:
        shown = ignored[:MAX_LISTED]
        more = " and %d more" % (len(ignored) - len(shown)) if len(ignored) > len(shown) else ""
        notes.append("ignored (not a student file of this lab): " + ", ".join(shown) + more)
    return notes


def add_hidden(ws, root):
    src = os.path.join(root, "grading", "hidden", ws.lab)
    if not os.path.isdir(src):
        return False
    shutil.copytree(src, ws.hidden_dir(), ignore=_ignore_junk)
    return True


def remove_hidden(ws):
    shutil.rmtree(os.path.join(ws.src, "grading", "hidden"), ignore_errors=True)
