"""Before any grade: can the sandbox's user run the tools a grade needs?

A grade runs the compiler, meson and ninja (and mpirun for an MPI lab, nvcc
for a CUDA lab, bwrap itself) as the sandbox's unprivileged uid, not as the
grader. A toolchain that only the grader can reach -- meson installed with
pip under /root, a PATH entry in a private directory -- fails every grade
with "Permission denied", which once read as every student's 0. This check
finds it first, from the file modes alone (no process is started), and says
it in one line.

Where the sandbox looks: meson, ninja, the compiler and nvcc are found on
the sandbox's PATH (sandbox.base_env), by the same rule as execvp: the first
entry whose file that uid may execute, past entries it may not. mpirun and
bwrap are started by the absolute path the grader finds. A script's #!
interpreter must be executable too. Access control lists are not read.
"""
import os
import shutil
import stat

from . import host, manifest
from . import sandbox as sb_mod

# The compiler Meson looks for first (it tries c++, then g++).
COMPILERS = ("c++", "g++")


def _allows(st, uid, bit):
    """Whether UID (its gid is the same number, no other groups: the
    sandbox drops them) has BIT (1 execute/search, 4 read) on a file with
    stat ST."""
    if uid == 0:
        return True
    mode = st.st_mode
    if st.st_uid == uid:
        return bool(mode >> 6 & bit)
    if st.st_gid == uid:
        return bool(mode >> 3 & bit)
    return bool(mode & bit)


def _directories(path):
    """Every directory on the way to PATH, as written and as resolved."""
    seen = []
    for p in (os.path.abspath(path), os.path.realpath(path)):
        parts = p.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            d = "/".join(parts[:i]) or "/"
            if d not in seen:
                seen.append(d)
    return seen


def why_not_runnable(path, uid, depth=0):
    """"" when UID may execute PATH (None: the grader's own uid), else why
    not, in words."""
    if uid is None:
        return "" if os.access(path, os.X_OK) else "%s is not executable" % path
    for d in _directories(path):
        try:
            if not _allows(os.stat(d), uid, 1):
                return "%s is not searchable by uid %d" % (d, uid)
        except OSError as e:
            return "%s: %s" % (d, e.strerror)
    try:
        st = os.stat(path)
    except OSError as e:
        return "%s: %s" % (path, e.strerror)
    if not stat.S_ISREG(st.st_mode) or not _allows(st, uid, 1):
        return "%s is not executable by uid %d" % (path, uid)
    try:
        with open(path, "rb") as f:
            first = f.readline(256)
    except OSError:
        first = b""
    if first.startswith(b"#!") and depth == 0:
        if not _allows(st, uid, 4):
            return "%s is a script that uid %d cannot read" % (path, uid)
        words = first[2:].decode("utf-8", "replace").split()
        if words and os.path.isabs(words[0]):
            why = why_not_runnable(words[0], uid, depth + 1)
            if why:
                return "its interpreter: " + why
    return ""


def resolve(tool, uid, path):
    """(the file UID runs for TOOL on PATH, "") or (None, why not)."""
    refused = []
    for d in path.split(os.pathsep):
        candidate = os.path.join(d or ".", tool)
        if not os.path.isfile(candidate):
            continue
        why = why_not_runnable(candidate, uid)
        if not why:
            return candidate, ""
        refused.append("%s (%s)" % (candidate, why))
    if refused:
        return None, "PATH finds only " + "; ".join(refused[:2])
    return None, "not on PATH"


def _as_the_sandbox(uid, path):
    """UID and PATH, each defaulting to the sandbox's: its uid when the
    grader is root (else the grader's own, None), and its PATH."""
    uid = sb_mod.sandbox_uid() if uid is None and os.geteuid() == 0 else uid
    return uid, path if path is not None else sb_mod.base_env()["PATH"]


def problems(lab_manifest, uid=None, path=None, bwrap=None):
    """What the sandbox's UID cannot run of what a grade of LAB_MANIFEST's lab
    needs, one phrase per tool ([] when all is well). UID, PATH and BWRAP
    (bwrap's path, or None when the grade will not use it) default to the
    sandbox's."""
    uid, path = _as_the_sandbox(uid, path)
    if bwrap is None and not os.environ.get("HPCGRADE_NO_BWRAP"):
        bwrap = shutil.which("bwrap")
    found = []
    compilers = [resolve(c, uid, path) for c in COMPILERS]
    if not any(exe for exe, _ in compilers):
        found.append("the C++ compiler (c++: %s)" % compilers[0][1])
    needs = set(lab_manifest.get("needs", []))
    by_path = ["meson", "ninja"] + (["nvcc"] if needs & {"cuda", "cublas"} and host.find_tool("nvcc") else [])
    for tool in by_path:
        exe, why = resolve(tool, uid, path)
        if exe is None:
            found.append("%s (%s)" % (tool, why))
    absolute = [("bwrap", bwrap)]
    if "mpi" in needs:
        absolute.append(("mpirun", host.find_tool("mpirun")))
    for tool, where in absolute:
        why = why_not_runnable(where, uid) if where else ""
        if why:
            found.append("%s (%s)" % (tool, why))
    return found


def problems_of_labs(root, labs):
    """problems() for every lab of LABS in the tree at ROOT, each phrase once."""
    found = []
    for lab in labs:
        found += [f for f in problems(manifest.load(root, lab)) if f not in found]
    return found


def slow_path(uid=None, path=None):
    """What makes every grade slow but not wrong, one phrase each ([] when
    nothing does): today, a compiler cache the sandbox's user cannot run.
    Without ccache each grade's three builds (judge, submission, reference)
    compile the shared library and the tests from scratch: on an H200 host
    with 16 cores, eight grades side by side took 60 to 100 s to build each."""
    uid, path = _as_the_sandbox(uid, path)
    exe, why = resolve("ccache", uid, path)
    if exe is None:
        return ["no compiler cache (ccache: %s): every grade compiles the shared library and the tests from "
                "scratch; install ccache (tools/install-packages) to build them once" % why]
    return []


def line(found, uid=None):
    """FOUND (from problems) as one line for the instructor."""
    uid = sb_mod.sandbox_uid() if uid is None and os.geteuid() == 0 else uid
    who = "the sandbox's user (uid %d)" % uid if uid is not None else "the grader"
    return ("%s cannot run what a grade needs: %s; install the tools where every user can run them "
            "(tools/install-packages) or put such a directory first on PATH" % (who, "; ".join(found)))
