"""Run one untrusted command: in bubblewrap when it works, always under
resource limits, a wall-time limit and an output cap.

Layers, outermost first:
  grader  -> bwrap (new pid/net/ipc namespaces, system read-only, only the
             paths the caller names are bound, private /tmp; the repo itself is
             never bound, so solutions/ and grading/hidden/ do not exist inside)
          -> monitor (a few lines of Python passed with -c, so no file the
             submission could edit; it sets the rlimits, runs the command and
             reports exactly how it ended on a pipe only it holds)
          -> the command.
Without bubblewrap the monitor still runs, in a new session whose process
group is killed when the command ends or times out.
"""
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import List, Optional

GiB = 1 << 30
MiB = 1 << 20
OUTPUT_CAP = 1 * MiB

# The monitor: forks the command with the limits applied and writes one JSON
# line on its status pipe when the command ends. It makes itself non-dumpable
# so the command (same uid) cannot open /proc/<monitor>/fd/N and write a
# status line of its own.
MONITOR_SRC = r"""
import ctypes, json, os, resource, sys
try:
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 4, value 0
except Exception:
    pass
fd = int(sys.argv[1]); limits = json.loads(sys.argv[2]); argv = sys.argv[3:]
pid = os.fork()
if pid == 0:
    os.close(fd)
    for name, value in limits.items():
        try:
            resource.setrlimit(getattr(resource, name), (value, value))
        except (ValueError, OSError):
            pass
    try:
        os.execvp(argv[0], argv)
    except OSError as e:
        os.write(2, ("cannot run %s: %s\n" % (argv[0], e.strerror)).encode())
        os._exit(127)
while True:
    try:
        _, status, usage = os.wait4(pid, 0)
        break
    except InterruptedError:
        continue
if os.WIFSIGNALED(status):
    msg = {"signal": os.WTERMSIG(status)}
else:
    msg = {"exit": os.WEXITSTATUS(status)}
msg["cpu"] = usage.ru_utime + usage.ru_stime
os.write(fd, (json.dumps(msg) + "\n").encode())
"""


@dataclass
class Limits:
    """Per-process limits. Memory is limited with RLIMIT_DATA, not RLIMIT_AS:
    the CUDA runtime reserves address ranges far larger than any real memory
    (unified addressing), so an address-space limit breaks every CUDA program
    while RLIMIT_DATA counts only memory actually made writable."""
    wall_s: float = 20.0
    cpu_s: int = 120
    data_bytes: int = 4 * GiB
    fsize_bytes: int = 256 * MiB
    # Per user and ignored for root; the pid namespace (all processes die with
    # the sandbox's init) and the process-group kill are what bound children.
    nproc: int = 4096

    def rlimits(self):
        return {"RLIMIT_CPU": int(self.cpu_s), "RLIMIT_DATA": int(self.data_bytes),
                "RLIMIT_FSIZE": int(self.fsize_bytes), "RLIMIT_NPROC": int(self.nproc),
                "RLIMIT_CORE": 0}


@dataclass
class Outcome:
    """How one sandboxed command ended."""
    exit_code: Optional[int] = None      # set when it exited
    signal: Optional[int] = None         # set when a signal killed it
    timed_out: bool = False
    monitor_lost: bool = False           # no status: the monitor was killed
    output: str = ""
    truncated_bytes: int = 0
    wall_s: float = 0.0
    cpu_s: Optional[float] = None        # user + system time of the command (kernel's count)
    limit_s: float = 0.0

    @property
    def ok(self):
        return self.exit_code == 0 and not self.timed_out and not self.monitor_lost

    def describe(self):
        """The end of the process in plain words."""
        if self.timed_out:
            return "timed out after %g s" % round(self.limit_s, 1)
        if self.monitor_lost:
            return ("killed the grader's monitor process (its parent), so how it ended is "
                    "unknown; the result cannot be trusted")
        if self.signal is not None:
            return describe_signal(self.signal)
        return "exited with code %s" % self.exit_code


def describe_signal(sig):
    try:
        name = signal.Signals(sig).name
    except ValueError:
        name = "signal %d" % sig
    plain = {
        "SIGSEGV": "a segmentation fault: an invalid memory access",
        "SIGBUS": "a bus error: an invalid memory access",
        "SIGFPE": "an arithmetic error such as an integer division by zero",
        "SIGABRT": "abort(), e.g. a failed assert or an uncaught exception",
        "SIGILL": "an illegal instruction",
        "SIGKILL": "killed, e.g. for using too much memory",
        "SIGXCPU": "it used up its CPU-time limit",
        "SIGXFSZ": "it wrote a file larger than the file-size limit",
    }.get(name)
    return "crashed with %s (%s)" % (name, plain) if plain else "was killed by %s" % name


# Build and run tools the sandbox must be able to start.
TOOLS = ("meson", "ninja", "python3", "nvcc", "mpirun", "pkg-config", "compute-sanitizer", "ccache",
         "c++", "g++")
# Directories the sandbox mounts anyway.
SYSTEM_DIRS = ("/usr", "/etc", "/opt", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


def _install_prefix(path):
    """/x/venv/bin/meson -> /x/venv; /x/tools/meson -> /x/tools."""
    bindir = os.path.dirname(path)
    return os.path.dirname(bindir) if os.path.basename(bindir) in ("bin", "sbin") else bindir


def toolchain_dirs(hide=()):
    """Install prefixes of build tools that live outside the system
    directories (meson from pip in a venv or ~/.local, say), with the
    interpreter named in a tool script's #! line. The sandbox mounts them
    read-only so the same tools work inside it; a prefix that would expose a
    hidden path (the repo) is left out, and the tool then fails visibly."""
    found = []
    for tool in TOOLS:
        where = shutil.which(tool)
        if not where:
            continue
        paths = [where, os.path.realpath(where)]
        try:
            with open(where, "rb") as f:
                first = f.readline(256)
            if first.startswith(b"#!"):
                interpreter = first[2:].decode("utf-8", "replace").split()
                if interpreter and os.path.isabs(interpreter[0]):
                    paths += [interpreter[0], os.path.realpath(interpreter[0])]
        except OSError:
            pass
        for path in paths:
            prefix = _install_prefix(path)
            if prefix in ("", "/") or any(prefix == d or prefix.startswith(d + "/") for d in SYSTEM_DIRS):
                continue
            if any(h == prefix or h.startswith(prefix.rstrip("/") + "/") for h in hide):
                continue
            if os.path.isdir(prefix) and prefix not in found:
                found.append(prefix)
    return found


class Sandbox:
    """Decides once whether bubblewrap works and builds command lines."""

    def __init__(self, use_bwrap=True, hide=()):
        # HIDE: paths to cover with an empty tmpfs should they lie inside a
        # system directory that is mounted (e.g. a repo under /opt).
        self.hide = [os.path.realpath(h) for h in hide]
        self.bwrap = shutil.which("bwrap") if use_bwrap else None
        self.reason = ""
        if os.environ.get("HPCGRADE_NO_BWRAP"):
            self.bwrap, self.reason = None, "disabled by HPCGRADE_NO_BWRAP"
        elif not use_bwrap:
            self.reason = "disabled"
        elif not self.bwrap:
            self.reason = "bwrap not installed (apt-get install bubblewrap)"
        else:
            self._probe()

    def _probe(self):
        try:
            p = subprocess.run(self._bwrap_prefix([], [], "/") + ["true"], stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=30)
            if p.returncode != 0:
                text = p.stdout.decode("utf-8", "replace").strip().splitlines()
                self.reason = (text[-1] if text else "exit code %d" % p.returncode)[:200]
                self.bwrap = None
        except (OSError, subprocess.TimeoutExpired) as e:
            self.reason, self.bwrap = str(e)[:200], None

    @property
    def active(self):
        return self.bwrap is not None

    def describe(self):
        if self.active:
            return "sandbox: bubblewrap (no network, own pid namespace, system read-only, repo not mounted)"
        return "sandbox: bubblewrap unavailable (%s); resource limits only" % self.reason

    def _bwrap_prefix(self, ro, rw, cwd):
        cmd = [self.bwrap, "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
               "--die-with-parent", "--new-session"]
        for d in ("/usr", "/etc", "/opt"):
            if os.path.isdir(d) and not os.path.islink(d):
                cmd += ["--ro-bind", d, d]
        for d in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
            if os.path.islink(d):
                cmd += ["--symlink", os.readlink(d), d]
            elif os.path.isdir(d):
                cmd += ["--ro-bind", d, d]
        for d in toolchain_dirs(self.hide):
            cmd += ["--ro-bind", d, d]
        for h in self.hide:
            if h.startswith(("/usr/", "/etc/", "/opt/")) and os.path.isdir(h):
                cmd += ["--tmpfs", h]
        cmd += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/dev/shm"]
        if os.path.isdir("/sys"):
            cmd += ["--ro-bind", "/sys", "/sys"]
        # GPU device nodes, when present (CUDA needs them; --dev has none).
        for name in sorted(os.listdir("/dev")):
            if name.startswith("nvidia"):
                cmd += ["--dev-bind", "/dev/" + name, "/dev/" + name]
        for p in ro:
            cmd += ["--ro-bind", p, p]
        for p in rw:
            cmd += ["--bind", p, p]
        cmd += ["--chdir", cwd]
        return cmd

    def command(self, argv, status_fd, limits, ro=(), rw=(), cwd="/"):
        """The full argument list: [bwrap ...] python3 -c MONITOR fd limits argv."""
        monitor = [sys.executable if os.path.realpath(sys.executable).startswith("/usr/") else "python3",
                   "-I", "-S", "-c", MONITOR_SRC, str(status_fd), json.dumps(limits.rlimits())]
        if self.active:
            return self._bwrap_prefix(list(ro), list(rw), cwd) + monitor + list(argv)
        return monitor + list(argv)

    def execute(self, argv, limits, ro=(), rw=(), cwd="/", env=None, cap=OUTPUT_CAP):
        """Run argv; never raises for anything the command does."""
        r_status, w_status = os.pipe()
        cmd = self.command(argv, w_status, limits, ro, rw, cwd)
        out = Outcome(limit_s=limits.wall_s)
        start = time.monotonic()
        try:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, env=env,
                                    cwd=None if self.active else cwd,
                                    pass_fds=(w_status,), start_new_session=True)
        except OSError as e:
            os.close(r_status)
            os.close(w_status)
            out.monitor_lost, out.output = True, "could not start: %s" % e
            return out
        os.close(w_status)
        kept, status_text, dropped = bytearray(), bytearray(), 0
        sel = selectors.DefaultSelector()
        for f in (proc.stdout.fileno(), r_status):
            os.set_blocking(f, False)
            sel.register(f, selectors.EVENT_READ)
        deadline = start + limits.wall_s

        def pump(wait):
            nonlocal dropped
            if not sel.get_map():
                time.sleep(min(wait, 0.05))
                return
            for key, _ in sel.select(wait):
                try:
                    data = os.read(key.fd, 1 << 16)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    sel.unregister(key.fd)
                elif key.fd == r_status:
                    status_text.extend(data[:4096])
                else:
                    room = cap - len(kept)
                    kept.extend(data[:max(room, 0)])
                    dropped += max(len(data) - max(room, 0), 0)

        try:
            while proc.poll() is None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    out.timed_out = True
                    break
                pump(min(remaining, 0.2))
            # The command is over (or out of time): collect what is already
            # written, but never wait for EOF: a child that outlived it may
            # hold the pipe open forever.
            kill_group(proc)
            grace = time.monotonic() + 0.5
            while sel.get_map() and time.monotonic() < grace:
                pump(0.05)
        finally:
            kill_group(proc)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            sel.close()
            proc.stdout.close()
            os.close(r_status)
        out.wall_s = time.monotonic() - start
        out.output = kept.decode("utf-8", "replace")
        out.truncated_bytes = dropped
        if dropped:
            out.output += "\n[output truncated: %d more bytes not kept (cap %d bytes)]\n" % (dropped, cap)
        if not out.timed_out:
            lines = status_text.decode("utf-8", "replace").strip().splitlines()
            try:
                status = json.loads(lines[-1]) if lines else None
            except ValueError:
                status = None
            if not isinstance(status, dict):
                out.monitor_lost = True
            else:
                if "signal" in status:
                    out.signal = int(status["signal"])
                else:
                    out.exit_code = int(status.get("exit", -1))
                if isinstance(status.get("cpu"), (int, float)):
                    out.cpu_s = float(status["cpu"])
        return out


def kill_group(proc):
    """SIGKILL the process group (monitor, command and the children that did
    not leave it; with bubblewrap, killing bwrap ends the whole namespace)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def base_env(home, extra=None):
    """A small, fixed environment: nothing of the grader's leaks in."""
    system_path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    # The grader's PATH locates the toolchain (meson may come from pip on a
    # GPU host); the variables that locate libraries come along for the same
    # reason (a bundle of oneTBB and QD unpacked under /opt, say).
    env = {"PATH": "/usr/local/cuda/bin:" + os.environ.get("PATH", system_path),
           "HOME": home, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TMPDIR": "/tmp", "TERM": "dumb"}
    for name in ("PKG_CONFIG_PATH", "LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "CPATH", "LIBRARY_PATH"):
        if os.environ.get(name):
            env[name] = os.environ[name]
    env.update(mpi_launch_env(env["PATH"]))
    if extra:
        env.update(extra)
    return env


def mpi_launch_env(path, environ=None):
    """Open MPI settings a test run needs. The host's own MCA settings come
    along (they say how processes start on this host; a ~/.openmpi file
    would be lost with HOME). And where neither ssh nor rsh is on PATH,
    Open MPI 4's mpirun -- and a singleton MPI_Init, which starts the same
    launcher -- refuses to start even one process on this node ("plm_rsh_agent
    ... could not be found", exit 243; open-mpi/ompi#12386) unless the rsh
    launcher is left out, so it is."""
    environ = os.environ if environ is None else environ
    out = {k: v for k, v in environ.items() if k.startswith(("OMPI_MCA_", "PMIX_MCA_", "OPAL_PREFIX"))}
    if ("OMPI_MCA_plm" not in out and "OMPI_MCA_plm_rsh_agent" not in out
            and not any(shutil.which(agent, path=path) for agent in ("ssh", "rsh"))):
        out["OMPI_MCA_plm"] = "^rsh"
    return out
