"""Configure and compile a workspace with Meson and Ninja, in the sandbox,
and keep the trusted builds (judge, reference) in a cache.

The compiler reads student files, so it runs sandboxed too: inside, the
repo does not exist, so `#include "/path/to/repo/solutions/..."` fails. As a
second layer (and the only one without bubblewrap), every object's header
dependencies, recorded by Ninja, must lie in the workspace or the system
directories; anything else (the repo, the grader's cache, a home directory)
rejects the build.
"""
import os
import re
import shutil
import subprocess

from . import manifest
from . import sandbox as sb_mod

ERROR_LINES = 30
SYSTEM_PREFIXES = ("/usr/", "/opt/")
FEATURES = ("cuda", "mpi", "openmp", "tbb", "qd")


class BuildResult:
    def __init__(self, ok, output="", errors="", skipped=None):
        self.ok = ok
        self.output = output      # everything (capped)
        self.errors = errors      # the first compiler errors, readable
        self.skipped = skipped    # Meson skipped the lab: the reason


def cache_dir():
    """The grader's cache (ccache, cached judge and reference builds):
    HPCGRADE_CACHE, else /var/cache/hpc-labs-grader for root (the sandbox
    uid must reach it; /root is private), else ~/.cache/hpc-labs-grader."""
    if os.environ.get("HPCGRADE_CACHE"):
        return os.environ["HPCGRADE_CACHE"]
    if os.geteuid() == 0:
        return "/var/cache/hpc-labs-grader"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "hpc-labs-grader")


def build_limits(wall_s):
    return sb_mod.Limits(wall_s=wall_s, cpu_s=900, data_bytes=6 * sb_mod.GiB,
                         fsize_bytes=2 * sb_mod.GiB)


class Builder:
    """Runs meson/ninja for one workspace, in the sandbox: the sources are
    read-only, the build directory (and the shared compiler cache) writable.
    The compiler runs the student's code through nothing but itself, so a
    shared cache is safe: its entries are keyed by the preprocessed input."""

    def __init__(self, sandbox, ws, jobs=2, deadline=None, gpu_arch="90", use_ccache=True):
        self.sb = sandbox
        self.ws = ws
        self.jobs = max(1, int(jobs))
        self.deadline = deadline
        self.gpu_arch = gpu_arch
        self.rw = [ws.build]
        self.role = ws.role
        extra = {"CCACHE_BASEDIR": ws.path, "CCACHE_NOHASHDIR": "1"}
        ccache = os.path.join(cache_dir(), "ccache")
        # Without bubblewrap a build could write anything into a cache that
        # other grades read: off, unless the grader's own tests (trusted
        # fixtures) ask for it with HPCGRADE_TRUST_CCACHE=1 -- and never for
        # a trusted build whose uid is not the submission's.
        trusted_apart = sandbox.separate_uids and ws.role != sb_mod.SUBMISSION
        if use_ccache and not trusted_apart and (sandbox.active or os.environ.get("HPCGRADE_TRUST_CCACHE") == "1"):
            try:
                os.makedirs(ccache, exist_ok=True)
                os.chmod(cache_dir(), 0o755)
                sandbox.own(ccache, ws.role)
                extra["CCACHE_DIR"] = ccache
                self.rw.append(ccache)
            except OSError:
                extra["CCACHE_DISABLE"] = "1"
        else:
            extra["CCACHE_DISABLE"] = "1"
        self.env = sb_mod.base_env(extra)

    def _run(self, argv, wall_s=1200):
        if self.deadline is not None:
            wall_s = max(1.0, min(wall_s, self.deadline.remaining()))
        return self.sb.execute(argv, build_limits(wall_s), ro=[self.ws.src], rw=self.rw, cwd=self.ws.build,
                               env=self.env, cap=256 * 1024, role=self.role)

    def configure(self, needs=None, hidden=False, labs=None):
        """meson setup for this lab only (or for LABS, whose workspace holds
        them all). NEEDS (the manifest's list) turns the optional features
        the lab does not use off: probing nvcc, MPI and the rest costs time
        and buys nothing. A lab's objects do not depend on either."""
        feats = []
        if needs is not None:
            wanted = set(needs) | ({"cuda"} if "cublas" in needs else set())
            feats = ["-D%s=%s" % (f, "auto" if f in wanted else "disabled") for f in FEATURES]
        out = self._run(["meson", "setup", self.ws.build, self.ws.src, "-Dlabs=" + ",".join(labs or [self.ws.lab]),
                         "-Dsolutions=disabled", "-Dhidden_tests=%s" % ("true" if hidden else "false"),
                         "-Dgrader_tests=false", "-Dgpu_arch=" + self.gpu_arch, "-Dbuildtype=release",
                         # A graded build never fails on a warning (a student header
                         # included by the harness may warn).
                         "-Dproject_werror=disabled"] + feats)
        text = self._clean(out.output)
        if not out.ok:
            return BuildResult(False, text, "meson setup failed (%s):\n%s" % (out.describe(), tail(text, 30)))
        m = re.search(r"skipping lab %s: (.*)" % re.escape(self.ws.lab), text)
        if m:
            return BuildResult(False, text, skipped=m.group(1).strip())
        return BuildResult(True, text)

    def enable_hidden(self):
        out = self._run(["meson", "configure", self.ws.build, "-Dhidden_tests=true"])
        if out.ok:
            # Regenerate now, so that the compiler's errors come alone (first
            # in the report), not after Meson's account of the regeneration.
            out = self._run(["ninja", "-C", self.ws.build, "build.ninja"])
        if not out.ok:
            return BuildResult(False, out.output, "enabling the hidden tests failed (%s)" % out.describe())
        return BuildResult(True, out.output)

    def compile(self, targets, wall_s=1200):
        out = self._run(["ninja", "-C", self.ws.build, "-j", str(self.jobs)] + list(targets), wall_s)
        text = self._clean(out.output)
        if not out.ended_by_itself:
            return BuildResult(False, text, "the build %s" % out.describe())
        if out.exit_code != 0:
            return BuildResult(False, text, first_errors(text))
        return BuildResult(True, text)

    def _clean(self, text):
        # Paths relative to the workspace read better and reveal nothing.
        return text.replace(self.ws.src + "/", "").replace(self.ws.path + "/", "").replace("../src/", "")

    def dependencies_text(self):
        try:
            p = subprocess.run(["ninja", "-C", self.ws.build, "-t", "deps"], stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=120)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return p.stdout.decode("utf-8", "replace")

    def foreign_dependencies(self, forbidden_roots=()):
        """Headers or sources outside the workspace and the system directories
        that any compiled object read, as (object, path) pairs."""
        text = self.dependencies_text()
        if text is None:
            return [("(ninja -t deps)", "could not list the build's dependencies")]
        return check_deps(text, self.ws.build, self.ws.path, forbidden_roots)


class CachedBuild:
    """A build of trusted sources only (the judge: the starter with the
    hidden tests; the reference: the solution's driver), made once per set
    of inputs and toolchain and kept in the cache, read-only to the sandbox.
    Its binaries' digests are taken the moment it is made and checked before
    every run. Where the judge and the reference run as uids of their own
    (no bubblewrap), it is built by its role's uid in a workspace only that
    uid may enter, then belongs to root and the trusted group alone: the
    submission's uid can neither read the hidden tests and the reference's
    sources nor write the build while it is made or used."""

    def __init__(self, path, digests):
        self.build = os.path.join(path, "build")
        self.digests = digests

    def binary(self, lab, suffix=""):
        return os.path.join(self.build, manifest.build_target(lab, suffix))

    def intact(self, binary):
        return self.digests.get(os.path.relpath(binary, self.build)) == file_digest(binary)


def toolchain_id(gpu_arch):
    """What, besides the sources, decides a build's output."""
    parts = ["gpu_arch=" + gpu_arch]
    for tool in (["c++", "--version"], ["nvcc", "--version"], ["meson", "--version"]):
        try:
            p = subprocess.run(tool, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=60)
            parts.append(p.stdout.decode("utf-8", "replace"))
        except (OSError, subprocess.TimeoutExpired):
            parts.append(tool[0] + ": none")
    return "\n".join(parts)


def cached_build(sandbox, make_workspace, lab, needs, targets, jobs, deadline, gpu_arch, kind, hidden=False):
    """The CachedBuild of KIND ("judge" or "reference", the role that
    builds and runs it) for LAB, building it if the cache has none for these
    inputs. MAKE_WORKSPACE(parent) creates the workspace (KIND's); HIDDEN:
    compile the hidden tests too. Returns (CachedBuild or None, BuildResult)."""
    import fcntl
    import hashlib
    import json
    from . import workspace
    base = os.path.join(cache_dir(), kind)
    os.makedirs(base, exist_ok=True)
    for d in (cache_dir(), base):
        os.chmod(d, 0o755)
    ws = make_workspace(base)
    # A build made for uids of their own is locked down for their group
    # only, one made under bubblewrap for any uid: each mode has its own.
    group = sandbox.trusted_gid()
    apart = "" if group is None else " uids apart, group %d" % group
    key = hashlib.sha256((workspace.tree_digest(ws.src) + toolchain_id(gpu_arch) + " ".join(targets) + str(hidden)
                          + apart).encode()).hexdigest()[:20]
    final = os.path.join(base, "%s-%s" % (lab, key))
    with open(final + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            with open(os.path.join(final, "digests.json")) as f:
                ws.remove()
                return CachedBuild(final, json.load(f)), BuildResult(True)
        except (OSError, ValueError):
            pass
        b = Builder(sandbox, ws, jobs, deadline, gpu_arch)
        r = b.configure(needs, hidden=hidden)
        if r.ok:
            r = b.compile(targets)
        if not r.ok:
            ws.remove()
            return None, r
        digests = {}
        for t in targets:
            rel = os.path.relpath(os.path.join(ws.build, t), ws.build)
            digests[rel] = file_digest(os.path.join(ws.build, t))
        # digests.json marks the build complete: written before the lock-down
        # (which covers it too) and the rename that makes it all appear at once.
        with open(os.path.join(ws.path, "digests.json"), "w") as f:
            json.dump(digests, f)
        if os.geteuid() == 0:
            lock_down(ws.path, group)
        shutil.rmtree(final, ignore_errors=True)
        os.rename(ws.path, final)
        return CachedBuild(final, digests), r


def lock_down(path, group=None):
    """Root owns a trusted build and nobody else may write it; with GROUP
    (uids apart, no bubblewrap), only that group may read it: the group may
    read and run what the owner may, others nothing."""
    for base, dirs, files in os.walk(path):
        for name in [base] + [os.path.join(base, n) for n in dirs + files]:
            if not os.path.islink(name):
                os.lchown(name, 0, group or 0)
                mode = os.stat(name).st_mode & 0o7777
                os.chmod(name, mode & ~0o022 if group is None else (mode & 0o700) | (mode & 0o500) >> 3)


def file_digest(path):
    import hashlib
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    except OSError:
        return None
    return h.hexdigest()


def check_deps(deps_text, build_dir, allowed_root, forbidden_roots=()):
    """Pure: parse `ninja -t deps` output and return (object, path) for every
    dependency not under ALLOWED_ROOT or the system prefixes, or under a
    FORBIDDEN root (the repo, even if it lives below /usr or /opt)."""
    bad, obj = [], None
    allowed_root = os.path.realpath(allowed_root) + "/"
    forbidden = [os.path.realpath(f) + "/" for f in forbidden_roots]
    for line in deps_text.splitlines():
        if not line.strip():
            continue
        if not line.startswith(" "):
            obj = line.split(":", 1)[0]
            continue
        dep = line.strip()
        path = os.path.normpath(os.path.join(build_dir, dep))
        real = os.path.realpath(path)
        if any(real.startswith(f) or path.startswith(f) for f in forbidden):
            bad.append((obj, real))
        elif not (path.startswith(allowed_root) or real.startswith(allowed_root)
                  or real.startswith(SYSTEM_PREFIXES)):
            bad.append((obj, real))
    return bad


def first_errors(text, n=ERROR_LINES):
    """Pure: the compiler's first N lines of messages, without Ninja's
    progress lines and the long compiler command lines."""
    keep = []
    skip_next = False
    for line in text.splitlines():
        if skip_next:
            skip_next = False
            continue
        if line.startswith("FAILED:"):
            skip_next = True  # the next line is the full compiler command
            continue
        if re.match(r"^\[\d+/\d+\] ", line) or line.startswith(("ninja: ", "ninja: build stopped")):
            continue
        if line.startswith(("ccache ", "c++ ", "g++ ", "/usr/bin/", "nvcc ")):
            continue
        keep.append(line)
        if len(keep) >= n:
            keep.append("[...]")
            break
    return "\n".join(keep).strip()


def tail(text, n):
    lines = text.strip().splitlines()
    return "\n".join(lines[-n:])
