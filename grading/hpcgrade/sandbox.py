"""Run one untrusted command in a sandbox that holds, under limits.

The submission never runs as root and never shares anything with the
grader but the paths a run names:

  grader (may be root; it is the monitor: it holds the clock, the output
  pipe and the exit status, in a pid namespace the command cannot see)
    -> [drops to an unprivileged uid, HPCGRADE_SANDBOX_UID or 65534, when
        the grader is root; sets the rlimits]
    -> bwrap: its own user, pid, network, IPC and UTS namespaces; no
       capabilities; no_new_privs; the seccomp filter of seccomp.py; the
       system directories read-only; a fresh tmpfs for /tmp, /dev/shm and
       HOME on every run; of the grader's files only the paths the caller
       names (read-only unless listed as writable); the repository itself is
       never mounted, so solutions/ (the hidden tests too) does not exist inside
    -> the command.

Where unprivileged user namespaces are refused (AppArmor on Ubuntu 24.04,
say) and the grader is root, bwrap runs privileged and `setpriv` drops to
the unprivileged uid inside, before the command ("privileged bwrap" in the
report). Without bubblewrap the command still runs with no_new_privs, the
seccomp filter and the limits, in a new session that is killed as a group
("resource limits only"); when the grader is root, each grade then takes a
slot of HPCGRADE_FALLBACK_UIDS (UidSlot): the submission, the judge and the
reference each run as a uid of that grade's own, so no process of the
submission can signal theirs or write their files, and end(role) kills
every process of a uid (kill(-1) from a process of that uid), so nothing of
the submission outlives the step that started it.
"""
import ctypes
import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from typing import Optional

from . import reaper, seccomp

GiB = 1 << 30
MiB = 1 << 20
OUTPUT_CAP = 1 * MiB
SANDBOX_HOME = "/home/sandbox"
DEFAULT_UID = 65534


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
    # Per uid: counts every process of the sandbox uid on the host.
    nproc: int = 4096

    def rlimits(self):
        import resource
        return {resource.RLIMIT_CPU: int(self.cpu_s), resource.RLIMIT_DATA: int(self.data_bytes),
                resource.RLIMIT_FSIZE: int(self.fsize_bytes), resource.RLIMIT_NPROC: int(self.nproc),
                resource.RLIMIT_CORE: 0}


@dataclass
class Outcome:
    """How one sandboxed command ended."""
    exit_code: Optional[int] = None      # set when it exited
    signal: Optional[int] = None         # set when a signal killed it
    timed_out: bool = False
    monitor_lost: bool = False           # it could not be started
    output: str = ""
    truncated_bytes: int = 0
    wall_s: float = 0.0
    cpu_s: Optional[float] = None        # user + system time of everything it started and reaped
    limit_s: float = 0.0

    @property
    def ok(self):
        return self.ended_by_itself and self.exit_code == 0

    @property
    def ended_by_itself(self):
        """It started and exited, with any code: no signal, no time limit,
        and an exit status that was read (a lost one is no normal end)."""
        return self.exit_code is not None and not self.timed_out and not self.monitor_lost

    def describe(self):
        """The end of the process in plain words."""
        if self.timed_out:
            return "timed out after %g s" % round(self.limit_s, 1)
        if self.monitor_lost:
            return "could not be started (%s)" % self.output.strip()[:200]
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
        "SIGSYS": "a system call the sandbox forbids",
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


def readable_by_others(path):
    """Whether an unprivileged uid can reach PATH (every directory on the way
    searchable by others, PATH itself readable): a toolchain under /root is
    not, and bwrap running as that uid could not mount it."""
    import stat
    path = os.path.realpath(path)
    parts = path.split("/")
    for i in range(1, len(parts) + 1):
        p = "/".join(parts[:i]) or "/"
        try:
            mode = os.stat(p).st_mode
        except OSError:
            return False
        if stat.S_ISDIR(mode) and not mode & stat.S_IXOTH:
            return False
    return bool(os.stat(path).st_mode & stat.S_IROTH)


def sandbox_uid():
    """The unprivileged uid (and gid) sandboxed commands run as, or None to
    keep the grader's own (when the grader is not root)."""
    if os.geteuid() != 0:
        return None
    try:
        return int(os.environ.get("HPCGRADE_SANDBOX_UID", DEFAULT_UID))
    except ValueError:
        return DEFAULT_UID


# Who runs a command: the submission's code (and its build), or the trusted
# judge and reference (their builds and runs).
SUBMISSION, JUDGE, REFERENCE = "submission", "judge", "reference"
ROLES = (SUBMISSION, JUDGE, REFERENCE)
TRUSTED = (JUDGE, REFERENCE)

# Without bubblewrap, as root: the ids a grade's three uids come from. The
# first is the group of the judge and the reference (the trusted builds in
# the cache are theirs to read, nobody else's); the rest are slots of three
# uids, one slot per grader process. Below 65534, so that a container that
# maps only 16-bit ids has them, and clear of the ids Debian gives users
# (up to 59999), systemd-homed (60001-60513) and systemd's dynamic users
# (61184-65519). An id that names an account or a group is never used.
FALLBACK_UIDS = "HPCGRADE_FALLBACK_UIDS"
DEFAULT_FALLBACK_UIDS = "60600-60999"
SLOT_LOCKS = "/run/hpcgrade-uids"
KILL_GIVE_UP_S = 20.0


def fallback_uid_range(environ=None):
    """(first, last) of HPCGRADE_FALLBACK_UIDS=FIRST-LAST, or ValueError
    with one sentence."""
    environ = os.environ if environ is None else environ
    text = environ.get(FALLBACK_UIDS, "").strip() or DEFAULT_FALLBACK_UIDS
    try:
        first, last = (int(x) for x in text.split("-"))
    except ValueError:
        raise ValueError("%s=%r is not FIRST-LAST (two whole numbers, e.g. %s)"
                         % (FALLBACK_UIDS, text, DEFAULT_FALLBACK_UIDS)) from None
    if not (0 < first and first + 3 <= last < 2 ** 32 - 2):
        raise ValueError("%s=%s must be FIRST-LAST with 0 < FIRST, FIRST + 3 <= LAST < 4294967294"
                         % (FALLBACK_UIDS, text))
    return first, last


def _named(uid=None, gid=None):
    """Whether an account or group has this id (then it is not ours to use)."""
    import grp
    import pwd
    try:
        if uid is not None:
            pwd.getpwuid(uid)
        else:
            grp.getgrgid(gid)
        return True
    except KeyError:
        return False


def processes_of(uid):
    """Pids of the live processes (zombies excluded) whose real, effective
    or saved uid is UID: exactly those kill(-1) from that uid reaches."""
    return [pid for pid, (_, state, uids) in reaper.process_table().items()
            if uid in uids and state not in ("Z", "X")]


def kill_uid(uid):
    """SIGKILL every process of UID, from a process of that uid: kill(-1)
    reaches every process it may signal, which are exactly the processes of
    UID (no_new_privs: none of them can change uid), wherever they are in
    the process tree, whatever session they made. Repeated until none is
    left (one forking at that moment is caught the next time); returns how
    many were alive. RuntimeError if some survive KILL_GIVE_UP_S."""
    found = set()
    end = time.monotonic() + KILL_GIVE_UP_S
    while True:
        alive = processes_of(uid)
        if not alive:
            return len(found)
        found |= set(alive)
        if time.monotonic() > end:
            raise RuntimeError("processes of uid %d could not be killed: %s" % (uid, alive[:10]))

        def as_uid():
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            os.kill(-1, signal.SIGKILL)
        try:
            subprocess.run(["/bin/true"], preexec_fn=as_uid, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=30)
        except (OSError, subprocess.SubprocessError):
            pass  # the kill happened before exec; only the exec failed
        time.sleep(0.01)


class UidSlot:
    """Three uids of one grader process's own (the submission's, the
    judge's, the reference's), held with a lock in SLOT_LOCKS while the
    process lives: concurrent grades (grade-class --parallel) get distinct
    ones. Whatever a previous holder left running is killed on taking it."""

    def __init__(self, environ=None):
        import fcntl
        first, last = fallback_uid_range(environ)
        self.group = first
        if _named(gid=first):
            raise RuntimeError("%s: gid %d, the judge's and the reference's group, is a named group here; "
                               "choose a range no account or group uses" % (FALLBACK_UIDS, first))
        os.makedirs(SLOT_LOCKS, mode=0o700, exist_ok=True)
        st = os.lstat(SLOT_LOCKS)
        if st.st_uid != 0 or not os.path.isdir(SLOT_LOCKS) or os.path.islink(SLOT_LOCKS):
            raise RuntimeError("%s must be a directory of root's" % SLOT_LOCKS)
        os.chmod(SLOT_LOCKS, 0o700)
        for k in range((last - first) // 3):
            uids = [first + 1 + 3 * k + i for i in range(3)]
            if any(_named(uid=u) or _named(gid=u) for u in uids):
                continue
            fd = os.open(os.path.join(SLOT_LOCKS, "%d-%d" % (uids[0], uids[2])),
                         os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            self.fd = fd
            self.uids = dict(zip(ROLES, uids))
            for u in uids:
                kill_uid(u)
            return
        raise RuntimeError("%s=%d-%d: every slot of three uids is taken by another grade (or names an account)"
                           % (FALLBACK_UIDS, first, last))

    def ids(self, role):
        """(uid, gid) of ROLE: the submission in a group of its own, the
        judge and the reference in the trusted group."""
        uid = self.uids[role]
        return uid, (self.group if role in TRUSTED else uid)


_SLOT = []


def uid_slot():
    """This process's UidSlot, taken on first use (one grade at a time per
    process: the self-check and --all grade one lab after another)."""
    if not _SLOT:
        _SLOT.append(UidSlot())
    return _SLOT[0]


PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _install_seccomp_here(program):
    """In the child before exec (fallback without bwrap)."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    if program:
        buf = ctypes.create_string_buffer(program, len(program))
        prog = _SockFprog(len(program) // 8, ctypes.cast(buf, ctypes.c_void_p))
        if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP)")


class Sandbox:
    """Decides once how commands are confined here and runs them."""

    def __init__(self, use_bwrap=True, hide=()):
        # HIDE: paths to cover with an empty tmpfs should they lie inside a
        # system directory that is mounted (e.g. a repo under /opt).
        self.hide = [os.path.realpath(h) for h in hide]
        self.uid = sandbox_uid()
        self.bwrap = shutil.which("bwrap") if use_bwrap else None
        self.setpriv = shutil.which("setpriv")
        self.privileged = False  # bwrap as root, setpriv inside
        self.reason = ""
        self._scratch = None
        if os.environ.get("HPCGRADE_NO_BWRAP"):
            self.bwrap, self.reason = None, "disabled by HPCGRADE_NO_BWRAP"
        elif not use_bwrap:
            self.reason = "disabled"
        elif not self.bwrap:
            self.reason = "bwrap not installed (apt-get install bubblewrap)"
        else:
            self._probe()

    def _probe(self):
        why = self._try()
        if why and self.uid is not None and self.setpriv:
            self.privileged = True
            why2 = self._try()
            if not why2:
                return
            why = "%s; privileged bwrap: %s" % (why, why2)
            self.privileged = False
        if why:
            self.reason, self.bwrap = why[:300], None

    def _try(self):
        try:
            o = self.execute(["true"], Limits(wall_s=30))
        except OSError as e:
            return str(e)
        if o.ok:
            return ""
        text = o.output.strip().splitlines()
        return text[-1] if text else o.describe()

    @property
    def active(self):
        return self.bwrap is not None

    @property
    def separate_uids(self):
        """Without bubblewrap, as root: the submission, the judge and the
        reference each run as a uid of this grade's own (UidSlot)."""
        return self.bwrap is None and os.geteuid() == 0

    @property
    def mode(self):
        """Which sandbox grades, in one word (results.json's
        extra_data.sandbox_mode; grading/README.md says what each holds)."""
        if self.active:
            return "bubblewrap-privileged" if self.privileged else "bubblewrap"
        return "fallback-uids" if self.separate_uids else "fallback-one-uid"

    def ids(self, role=SUBMISSION):
        """(uid, gid) that ROLE's commands run as, or None for the grader's own."""
        if self.separate_uids:
            return uid_slot().ids(role)
        return None if self.uid is None else (self.uid, self.uid)

    def trusted_gid(self):
        """The group that may read the trusted builds in the cache (None: any
        uid may, as bubblewrap mounts them only where they are needed)."""
        return uid_slot().group if self.separate_uids else None

    def end(self, role=SUBMISSION):
        """Kill every process of ROLE's uid; how many were alive. Only where
        the uids are this grade's own: with bubblewrap, the end of its pid
        namespace already killed what a run started."""
        return kill_uid(self.ids(role)[0]) if self.separate_uids else 0

    def describe(self):
        who = "uid %d" % self.uid if self.uid is not None else "the grader's own uid"
        filt = "seccomp" if seccomp.supported() else "no seccomp filter on %s" % os.uname().machine
        if self.active:
            how = "privileged bwrap, then setpriv to %s" % who if self.privileged else \
                "%s in its own user namespace" % who
            return ("sandbox: bubblewrap (%s, no capabilities, no_new_privs, %s, no network, own pid "
                    "namespace, system read-only, fresh HOME and /tmp, repo not mounted)" % (how, filt))
        if self.separate_uids:
            who = ("the submission as uid %d, the judge as uid %d and the reference as uid %d (this grade's own, "
                   "from %s)" % (self.ids(SUBMISSION)[0], self.ids(JUDGE)[0], self.ids(REFERENCE)[0], FALLBACK_UIDS))
        return "sandbox: bubblewrap unavailable (%s); resource limits only, %s, %s" % (
            self.reason, who if self.separate_uids else "all as " + who, filt)

    def own(self, path, role=SUBMISSION):
        """Make PATH (recursively) ROLE's: writable by the uid it runs as."""
        ids = self.ids(role)
        if ids is None:
            return
        for base, dirs, files in os.walk(path):
            os.lchown(base, *ids)
            for name in dirs + files:
                os.lchown(os.path.join(base, name), *ids)

    def scratch(self):
        """A directory for fallback HOMEs (bwrap gives each run a tmpfs)."""
        if self._scratch is None:
            self._scratch = tempfile.mkdtemp(prefix="hpcgrade-home-")
            os.chmod(self._scratch, 0o755)
        return self._scratch

    def _bwrap_argv(self, ro, rw, cwd, seccomp_fd):
        cmd = [self.bwrap]
        if not self.privileged:
            cmd += ["--unshare-user"]
            if self.uid is not None:
                cmd += ["--uid", str(self.uid), "--gid", str(self.uid)]
        cmd += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--die-with-parent",
                "--new-session"]
        if not self.privileged:
            # (Privileged: setpriv needs CAP_SETUID to drop to the uid; the
            # change of uid then clears every capability.)
            cmd += ["--cap-drop", "ALL"]
        if seccomp_fd is not None:
            cmd += ["--seccomp", str(seccomp_fd)]
        for d in ("/usr", "/etc", "/opt"):
            if os.path.isdir(d) and not os.path.islink(d):
                cmd += ["--ro-bind", d, d]
        for d in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
            if os.path.islink(d):
                cmd += ["--symlink", os.readlink(d), d]
            elif os.path.isdir(d):
                cmd += ["--ro-bind", d, d]
        for d in toolchain_dirs(self.hide):
            if self.uid is None or self.privileged or readable_by_others(d):
                cmd += ["--ro-bind", d, d]
        for h in self.hide:
            if h.startswith(("/usr/", "/etc/", "/opt/")) and os.path.isdir(h):
                cmd += ["--tmpfs", h]
        # Each tmpfs writable by the uid the run ends as: bubblewrap makes
        # them its own, which is root's where it runs privileged (setpriv
        # then drops to the sandbox uid). Fresh per run, so 1777 shares them
        # with nobody else; without it, anything writing /tmp or HOME fails
        # on such hosts (Nsight Compute's lock file, Open MPI's session
        # directory, a compiler's temporaries).
        cmd += ["--proc", "/proc", "--dev", "/dev"]
        for d in ("/tmp", "/dev/shm", SANDBOX_HOME):
            cmd += ["--perms", "1777", "--tmpfs", d]
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
        cmd += ["--chdir", cwd, "--"]
        if self.privileged:
            cmd += [self.setpriv, "--reuid", str(self.uid), "--regid", str(self.uid), "--clear-groups",
                    "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]
        return cmd

    def execute(self, argv, limits, ro=(), rw=(), cwd="/", env=None, cap=OUTPUT_CAP, profile="default",
                role=SUBMISSION):
        """Run ARGV to its end; never raises for anything the command does.
        PROFILE is the seccomp profile ("default", or "single": no threads
        or processes); ROLE who runs it (SUBMISSION, JUDGE, REFERENCE)."""
        return self.start(argv, limits, ro, rw, cwd, env, cap, profile, role).wait()

    def start(self, argv, limits, ro=(), rw=(), cwd="/", env=None, cap=OUTPUT_CAP, profile="default",
              role=SUBMISSION):
        """Start ARGV and return a Running (wait() gives the Outcome)."""
        env = dict(env or base_env())
        program = seccomp.program(profile)
        rlimits = limits.rlimits()
        seccomp_file = None
        home = None
        pass_fds = ()
        if self.active:
            env["HOME"] = SANDBOX_HOME
            if program:
                seccomp_file = tempfile.TemporaryFile()
                seccomp_file.write(program)
                seccomp_file.seek(0)
                pass_fds = (seccomp_file.fileno(),)
            cmd = self._bwrap_argv(ro, rw, cwd, pass_fds[0] if pass_fds else None) + list(argv)
            run_ids = None if self.privileged or self.uid is None else (self.uid, self.uid)
        else:
            # No tmpfs without bwrap: a fresh HOME and TMPDIR per run instead.
            run_ids = self.ids(role)
            home = tempfile.mkdtemp(prefix="home-", dir=self.scratch())
            os.mkdir(os.path.join(home, "tmp"))
            if run_ids is not None:
                for d in (home, os.path.join(home, "tmp")):
                    os.chown(d, *run_ids)
            env["HOME"], env["TMPDIR"] = home, os.path.join(home, "tmp")
            cmd = list(argv)
        confined = self.active

        def child_setup():
            import resource
            for what, value in rlimits.items():
                try:
                    resource.setrlimit(what, (value, value))
                except (ValueError, OSError):
                    pass
            if run_ids is not None:
                os.setgroups([])
                os.setgid(run_ids[1])
                os.setuid(run_ids[0])
            if not confined:
                _install_seccomp_here(program)

        try:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, env=env, cwd=None if self.active else cwd,
                                    pass_fds=pass_fds, start_new_session=True, preexec_fn=child_setup)
        except (OSError, subprocess.SubprocessError) as e:
            proc = None
            error = str(e)
        else:
            error = ""
        finally:
            if seccomp_file is not None:
                seccomp_file.close()
        return Running(proc, limits.wall_s, cap, bwrap=self.active, home=home, error=error)


class Running:
    """A started command: its output is read (and capped) by a thread, so a
    chatty command never blocks on a full pipe while the grader talks to it."""

    def __init__(self, proc, wall_s, cap, bwrap, home, error=""):
        import threading
        self.proc = proc
        self.start = time.monotonic()
        self.deadline = self.start + wall_s
        self.wall_s = wall_s
        self.cap = cap
        self.bwrap = bwrap
        self.home = home
        self.error = error
        self.kept = bytearray()
        self.dropped = 0
        self.status = None
        self.cpu_s = None
        self.reader = None
        if proc is not None:
            self.reader = threading.Thread(target=self._read, daemon=True)
            self.reader.start()

    def _read(self):
        fd = self.proc.stdout.fileno()
        while True:
            try:
                data = os.read(fd, 1 << 16)
            except OSError:
                return
            if not data:
                return
            room = self.cap - len(self.kept)
            self.kept.extend(data[:max(room, 0)])
            self.dropped += max(len(data) - max(room, 0), 0)

    def alive(self):
        """Whether the command is still running (reaps it if it ended)."""
        if self.proc is None or self.status is not None:
            return False
        pid, st, usage = os.wait4(self.proc.pid, os.WNOHANG)
        if pid:
            self.status = st
            self.cpu_s = usage.ru_utime + usage.ru_stime
            return False
        return True

    def wait(self, timeout=None):
        """Wait for the end (at most until the wall-time limit, or TIMEOUT
        seconds from now), kill whatever is left, return the Outcome."""
        out = Outcome(limit_s=self.wall_s)
        if self.proc is None:
            out.monitor_lost, out.output = True, self.error
            return out
        end = self.deadline if timeout is None else min(self.deadline, time.monotonic() + timeout)
        try:
            while self.alive():
                if time.monotonic() >= end:
                    out.timed_out = True
                    break
                time.sleep(0.005 if time.monotonic() - self.start < 0.5 else 0.02)
        finally:
            self.kill()
        # Output already written is collected, but never waited for: a
        # process that outlived the command may hold the pipe open.
        self.reader.join(0.5)
        out.wall_s = time.monotonic() - self.start
        out.cpu_s = self.cpu_s
        out.output = bytes(self.kept).decode("utf-8", "replace")
        out.truncated_bytes = self.dropped
        if self.dropped:
            out.output += "\n[output truncated: %d more bytes not kept (cap %d bytes)]\n" % (self.dropped, self.cap)
        if not out.timed_out and self.status is not None:
            if os.WIFSIGNALED(self.status):
                out.signal = os.WTERMSIG(self.status)
            else:
                code = os.WEXITSTATUS(self.status)
                # bwrap reports a command killed by signal N as exit 128 + N.
                if self.bwrap and 128 < code < 128 + 65:
                    out.signal = code - 128
                else:
                    out.exit_code = code
        return out

    def kill(self):
        if self.proc is None:
            return
        kill_group(self.proc)
        if self.status is None:
            try:
                _, self.status, usage = os.wait4(self.proc.pid, 0)
                self.cpu_s = usage.ru_utime + usage.ru_stime
            except ChildProcessError:
                pass
        self.proc.returncode = 0  # reaped here; keep Popen from waiting again
        if self.home:
            shutil.rmtree(self.home, ignore_errors=True)
            self.home = None


def kill_group(proc):
    """SIGKILL the process group (with bubblewrap, killing bwrap ends the
    whole pid namespace)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def base_env(extra=None):
    """A small, fixed environment: nothing of the grader's leaks in (HOME is
    set per run by Sandbox.execute)."""
    system_path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    # The grader's PATH locates the toolchain (meson may come from pip on a
    # GPU host); the variables that locate libraries come along for the same
    # reason (a bundle of oneTBB and QD unpacked under /opt, say).
    env = {"PATH": "/usr/local/cuda/bin:" + os.environ.get("PATH", system_path),
           "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TMPDIR": "/tmp", "TERM": "dumb"}
    for name in ("PKG_CONFIG_PATH", "LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "CPATH", "LIBRARY_PATH"):
        if os.environ.get(name):
            env[name] = os.environ[name]
    env.update(mpi_launch_env(env["PATH"]))
    if extra:
        env.update(extra)
    return env


def mpi_launch_env(path, environ=None):
    """Open MPI settings a run needs. The host's own MCA settings come along
    (they say how processes start on this host; a ~/.openmpi file would be
    lost with HOME). Where neither ssh nor rsh is on PATH, Open MPI 4's
    mpirun -- and a singleton MPI_Init, which starts the same launcher --
    refuses to start even one process on this node ("plm_rsh_agent ... could
    not be found", exit 243; open-mpi/ompi#12386) unless the rsh launcher is
    left out, so it is. Shared-memory single copy (CMA) reads another
    process's memory with process_vm_readv, which the seccomp filter refuses:
    the vader transport copies through shared memory instead. When a rank
    exits non-zero (every failing test), mpirun sends SIGTERM to what is left
    and waits odls_base_sigkill_timeout (1 s by default) before SIGKILL and
    its own exit: 0.7 s for a failing one-rank test becomes 2.6-3.0 s. A
    test that fails is over; nothing of it needs a graceful end, so the
    wait is 0 (a starter's grade of lab 02: 150 s before, see the closing
    note for after)."""
    environ = os.environ if environ is None else environ
    out = {k: v for k, v in environ.items() if k.startswith(("OMPI_MCA_", "PMIX_MCA_", "OPAL_PREFIX"))}
    if ("OMPI_MCA_plm" not in out and "OMPI_MCA_plm_rsh_agent" not in out
            and not any(shutil.which(agent, path=path) for agent in ("ssh", "rsh"))):
        out["OMPI_MCA_plm"] = "^rsh"
    out.setdefault("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
    out.setdefault("OMPI_MCA_odls_base_sigkill_timeout", "0")
    return out
