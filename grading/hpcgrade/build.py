"""Configure and compile a workspace with Meson and Ninja, in the sandbox.

The compiler reads student files, so it runs sandboxed too: inside, the
repo does not exist, so `#include "/path/to/repo/solutions/..."` fails. As a
second layer (and the only one without bubblewrap), every object's header
dependencies, recorded by Ninja, must lie in the workspace or the system
directories; anything else (the repo, the grader's cache, a home directory)
rejects the build.
"""
import os
import re
import subprocess

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
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "hpc-labs-grader")


def build_limits(wall_s):
    return sb_mod.Limits(wall_s=wall_s, cpu_s=900, data_bytes=6 * sb_mod.GiB,
                         fsize_bytes=2 * sb_mod.GiB)


class Builder:
    """Runs meson/ninja for one workspace."""

    def __init__(self, sandbox, ws, jobs=2, deadline=None, gpu_arch="90", use_ccache=True):
        self.sb = sandbox
        self.ws = ws
        self.jobs = max(1, int(jobs))
        self.deadline = deadline
        self.gpu_arch = gpu_arch
        self.rw = [ws.path]
        extra = {"CCACHE_BASEDIR": ws.path, "CCACHE_NOHASHDIR": "1"}
        ccache = os.path.join(cache_dir(), "ccache")
        # The cache is shared between gradings, so only a sandboxed build may
        # write to it; without bubblewrap it is off (nothing of one submission
        # may leak into another's build).
        # HPCGRADE_TRUST_CCACHE=1 keeps it on without bubblewrap: for the
        # grader's own tests, whose fixtures are trusted.
        if use_ccache and (sandbox.active or os.environ.get("HPCGRADE_TRUST_CCACHE") == "1"):
            try:
                os.makedirs(ccache, exist_ok=True)
                extra["CCACHE_DIR"] = ccache
                self.rw.append(ccache)
            except OSError:
                extra["CCACHE_DISABLE"] = "1"
        else:
            extra["CCACHE_DISABLE"] = "1"
        self.env = sb_mod.base_env(ws.home, extra)

    def _run(self, argv, wall_s=1200):
        if self.deadline is not None:
            wall_s = max(1.0, min(wall_s, self.deadline.remaining()))
        return self.sb.execute(argv, build_limits(wall_s), rw=self.rw, cwd=self.ws.path, env=self.env,
                               cap=256 * 1024)

    def configure(self, needs=None):
        """meson setup for this lab only. NEEDS (the manifest's list) turns the
        optional features the lab does not use off: probing nvcc, MPI and the
        rest costs time and buys nothing."""
        feats = []
        if needs is not None:
            wanted = set(needs) | ({"cuda"} if "cublas" in needs else set())
            feats = ["-D%s=%s" % (f, "auto" if f in wanted else "disabled") for f in FEATURES]
        out = self._run(["meson", "setup", self.ws.build, self.ws.src, "-Dlabs=" + self.ws.lab,
                         "-Dsolutions=disabled", "-Dhidden_tests=false", "-Dgrader_tests=false",
                         "-Dgpu_arch=" + self.gpu_arch, "-Dbuildtype=release"] + feats)
        text = self._clean(out.output)
        if not out.ok:
            return BuildResult(False, text, "meson setup failed (%s):\n%s" % (out.describe(), tail(text, 30)))
        m = re.search(r"skipping lab %s: (.*)" % re.escape(self.ws.lab), text)
        if m:
            return BuildResult(False, text, skipped=m.group(1).strip())
        return BuildResult(True, text)

    def enable_hidden(self):
        out = self._run(["meson", "configure", self.ws.build, "-Dhidden_tests=true"])
        if not out.ok:
            return BuildResult(False, out.output, "enabling the hidden tests failed (%s)" % out.describe())
        return BuildResult(True, out.output)

    def compile(self, targets):
        out = self._run(["ninja", "-C", self.ws.build, "-j", str(self.jobs)] + list(targets))
        text = self._clean(out.output)
        if out.timed_out or out.signal is not None or out.monitor_lost:
            return BuildResult(False, text, "the build %s" % out.describe())
        if out.exit_code != 0:
            return BuildResult(False, text, first_errors(text))
        return BuildResult(True, text)

    def _clean(self, text):
        # Paths relative to the workspace read better and reveal nothing.
        return text.replace(self.ws.src + "/", "").replace(self.ws.path + "/", "").replace("../src/", "")

    def foreign_dependencies(self, forbidden_roots=()):
        """Headers or sources outside the workspace and the system directories
        that any compiled object read, as (object, path) pairs."""
        try:
            p = subprocess.run(["ninja", "-C", self.ws.build, "-t", "deps"], stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=120)
        except (OSError, subprocess.TimeoutExpired):
            return [("(ninja -t deps)", "could not list the build's dependencies")]
        return check_deps(p.stdout.decode("utf-8", "replace"), self.ws.build, self.ws.path, forbidden_roots)


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
