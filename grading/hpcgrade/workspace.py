"""Private copies of what one lab's build needs.

Three kinds, one layout (a fresh directory W; the repo is never written to
and never mounted inside the sandbox):
  submission  the starter's tree with the submission's student files copied
              over it: built and run (recorded) in the sandbox;
  judge       the starter's tree as the repo has it: no student code at all;
              its test binaries replay the submission's records (see
              hpclab/judged.hpp), and any call into its skeleton throws "not
              implemented", so a test that forgot to judge a call fails for
              everyone and the self-check sees it;
  reference   solutions/LAB's files: the anchor of the timing.

  W/src     the build inputs every lab shares (lab_manifest.BUILD_FILES and
            BUILD_DIRS), labs/LAB/ (the submission's files in its student/),
            solutions/LAB/hidden/ (judge: always; submission: only while the
            hidden tests compile)
  W/build   the Meson build directory
  W/hidden  the submission's hidden test binary, alone: moved out of W/build
            the moment it is linked, its objects deleted, so that a run of
            the visible tests (which mounts W/build) cannot read or start it,
            and a run of the hidden tests mounts W/hidden and nothing of W/build
  W/runs    one fresh directory per sandboxed run

Each workspace belongs to the role that builds in it (sandbox.SUBMISSION,
JUDGE or REFERENCE). Where those run as uids of their own (no bubblewrap),
W is that uid's alone (mode 0700): the submission cannot read the judge's
hidden tests or the reference's sources, nor write either while they
build, and concurrent grades cannot read each other's.
"""
import hashlib
import os
import shutil
import tempfile

from .manifest import BUILD_DIRS, BUILD_FILES, build_target, lab_paths
from .sandbox import SUBMISSION

MAX_STUDENT_FILE = 1 << 20  # bytes; a lab's source file is far smaller
MAX_LISTED = 20             # ignored files named in the report


class Workspace:
    def __init__(self, path, lab, sandbox=None, role=SUBMISSION):
        self.path = path
        self.lab = lab
        self.sandbox = sandbox
        self.role = role
        self.src = os.path.join(path, "src")
        self.build = os.path.join(path, "build")
        self.hidden = os.path.join(path, "hidden")
        self.runs = os.path.join(path, "runs")

    def paths(self):
        """The lab's paths in this workspace's copy of the tree."""
        return lab_paths(self.src, self.lab)

    def lab_dir(self):
        return self.paths().lab_dir

    def student_dir(self):
        return self.paths().student_dir

    def hidden_dir(self):
        return self.paths().hidden_dir

    def hidden_top(self):
        """The folder under W/src that holds the hidden tests and nothing
        else of the build's: made by add_hidden, removed by remove_hidden."""
        return os.path.join(self.src, os.path.relpath(self.hidden_dir(), self.src).split(os.sep)[0])

    def binary(self, suffix=""):
        """labs/LAB<suffix> in the build: '' the driver, '-tests'; '-hidden'
        is in W/hidden once set_aside_hidden moved it there."""
        if suffix == "-hidden":
            return os.path.join(self.hidden, self.lab + suffix)
        return self.built(suffix)

    def built(self, suffix=""):
        """Where Ninja writes labs/LAB<suffix>."""
        return os.path.join(self.build, build_target(self.lab, suffix))

    def new_run_dir(self):
        """A fresh directory the sandboxed run may write."""
        d = tempfile.mkdtemp(prefix="run-", dir=self.runs)
        os.chmod(d, 0o755)
        if self.sandbox is not None:
            self.sandbox.own(d, self.role)
        return d

    def remove(self):
        shutil.rmtree(self.path, ignore_errors=True)


def _ignore_junk(_dir, names):
    return [n for n in names if n in ("__pycache__", ".git")]


def create(root, lab, sandbox=None, parent=None, hidden=False, role=SUBMISSION):
    """Copy the build inputs of LAB from the repo at ROOT into a new
    workspace, readable by ROLE's uid and writable where it builds."""
    path = tempfile.mkdtemp(prefix="hpcgrade-%s-" % lab, dir=parent)
    private = sandbox is not None and sandbox.separate_uids
    os.chmod(path, 0o700 if private else 0o755)
    if private:
        os.chown(path, *sandbox.ids(role))
    ws = Workspace(path, lab, sandbox, role)
    for d in (ws.src, ws.runs):
        os.makedirs(d, exist_ok=True)
    for f in BUILD_FILES:
        os.makedirs(os.path.dirname(os.path.join(ws.src, f)), exist_ok=True)
        shutil.copy2(os.path.join(root, f), os.path.join(ws.src, f))
    for d in BUILD_DIRS:
        shutil.copytree(os.path.join(root, d), os.path.join(ws.src, d), ignore=_ignore_junk)
    shutil.copytree(lab_paths(root, lab).lab_dir, ws.lab_dir(), ignore=_ignore_junk)
    if hidden:
        add_hidden(ws, root)
    if sandbox is not None:
        sandbox.own(ws.src, role)
        os.makedirs(ws.build, exist_ok=True)
        sandbox.own(ws.build, role)
    return ws


def tree_digest(directory):
    """sha256 over the relative paths and contents of every file under
    DIRECTORY (the key of a cached build)."""
    h = hashlib.sha256()
    for base, dirs, files in os.walk(directory):
        dirs.sort()
        dirs[:] = [d for d in dirs if d not in ("__pycache__", ".git")]
        for f in sorted(files):
            p = os.path.join(base, f)
            h.update(os.path.relpath(p, directory).encode() + b"\0")
            with open(p, "rb") as fh:
                h.update(hashlib.sha256(fh.read()).digest())
    return h.hexdigest()


def list_files(directory, limit=1000, skip=()):
    """Relative paths of the regular files and links under DIRECTORY
    (bounded), but for the folders SKIP (relative to it)."""
    found = []
    for base, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(base, d))
                         and os.path.relpath(os.path.join(base, d), directory) not in skip)
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


def install_student_files(ws, student_files, submission_dir, skip=()):
    """Copy the student files (paths relative to the lab's student/) from
    SUBMISSION_DIR over the starter's; the folders SKIP in it are not looked
    at (the solution's hidden tests and mutants).
    Returns notes (plain sentences) for the report."""
    present = list_files(submission_dir, skip=skip)
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
        dst = os.path.join(ws.student_dir(), f)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(src, "rb") as fi:
            data = fi.read(MAX_STUDENT_FILE + 1)
        with open(dst, "wb") as fo:
            fo.write(data)
        if ws.sandbox is not None:
            ws.sandbox.own(dst, ws.role)
    if missing:
        notes.append("missing from the submission (the starter's version is used): " + ", ".join(missing))
    if ignored:
        shown = ignored[:MAX_LISTED]
        more = " and %d more" % (len(ignored) - len(shown)) if len(ignored) > len(shown) else ""
        notes.append("ignored (not a student file of this lab): " + ", ".join(shown) + more)
    return notes


def add_hidden(ws, root):
    src = lab_paths(root, ws.lab).hidden_dir
    if not os.path.isdir(src):
        return False
    shutil.copytree(src, ws.hidden_dir(), ignore=_ignore_junk)
    if ws.sandbox is not None:
        ws.sandbox.own(ws.hidden_top(), ws.role)
    return True


def remove_hidden(ws):
    shutil.rmtree(ws.hidden_top(), ignore_errors=True)


def set_aside_hidden(ws):
    """Take every artefact of the hidden tests out of the build tree that
    the visible tests' runs mount: the binary goes to W/hidden (alone, for
    the hidden tests' runs; the grader's, when it is root), its objects are
    deleted (also those of a build that failed half-way). Returns the
    binary's new path, or None when none was linked. What stays in the build
    names the hidden sources' files (build.ninja, Ninja's logs), names that
    lab.json lists anyway. W/hidden stays closed (0700) but while the hidden
    tests record (open_hidden): without bubblewrap, where every run sees the
    file system, a visible test's run then cannot reach it either."""
    shutil.rmtree(ws.built("-hidden") + ".p", ignore_errors=True)
    built = ws.built("-hidden")
    if not os.path.isfile(built):
        if os.path.lexists(built):
            os.remove(built)
        return None
    os.makedirs(ws.hidden, exist_ok=True)
    os.chmod(ws.hidden, 0o700)
    os.replace(built, ws.binary("-hidden"))
    if os.geteuid() == 0:
        os.chown(ws.binary("-hidden"), 0, 0)
    os.chmod(ws.binary("-hidden"), 0o755)
    return ws.binary("-hidden")


def open_hidden(ws, is_open):
    """Let the sandbox's uid reach W/hidden (only while hidden tests record)."""
    if os.path.isdir(ws.hidden):
        os.chmod(ws.hidden, 0o755 if is_open else 0o700)
