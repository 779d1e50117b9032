"""Leases: exclusive for the phases whose figures are scored, shared for
everything else a grade runs.

Many grades may build, record and judge at once on one host; a timed phase
may not share what it measures. Before timing, a grade takes the exclusive
lease of its resource: one GPU (`gpu0`, ...) for a GPU lab, the host's cores
(`host`) for a CPU lab. Every other command a grade runs (a build, a
recording, the judge, the sanitizer) holds a shared lease of what it uses
(`host`, and its GPU for a GPU lab) while it runs (`Shared`): a timed phase
starts only once the commands running on its resource have ended, and no
command starts on it until the timed phase is over. So a timed figure is
never taken beside another grade's work on the same resource. A turnstile
per resource keeps the timed phases from starving: once one waits, new
commands queue behind it.

A lease is a flock on a file in a directory of the grader's cache that only
the grader's uid may enter (so no submission can hold or fake one), so it holds across
threads, processes and grade-class's parallel grades, and is released by
the kernel if its holder dies. Every interval a lease was held is appended
to `intervals.jsonl` beside the locks ("mode": exclusive or shared), so that
a test (or an instructor) can check that no timed phase ever overlapped
another's, or a command of another grade on its resource.
"""
import contextlib
import fcntl
import json
import os
import re
import threading
import time

from . import build

INTERVALS = "intervals.jsonl"

# What this thread holds exclusively now. A flock of a second descriptor of
# the same file waits for the first, even in the same thread: a command a
# grade runs (a shared lease) inside its own exclusive phase would wait for
# itself forever. The profile step did, on the GPU host.
_held = threading.local()


def _held_alone():
    if not hasattr(_held, "resources"):
        _held.resources = set()
    return _held.resources


def lease_dir():
    """HPCGRADE_LEASES, else `leases/` in the grader's cache."""
    return os.environ.get("HPCGRADE_LEASES") or os.path.join(build.cache_dir(), "leases")


def _private_dir():
    """The lease directory, made the grader's alone: a flock needs only a
    descriptor open for reading, so a lock file another uid could open is a
    lock it could hold (and so stall every grade, or time beside one)."""
    directory = lease_dir()
    os.makedirs(directory, mode=0o700, exist_ok=True)
    if os.stat(directory).st_uid == os.geteuid():
        os.chmod(directory, 0o700)
    return directory


def resource_for(needs_gpu, device="0"):
    """The resource a timed phase holds: a GPU lab's device (as
    CUDA_VISIBLE_DEVICES names it), or the host."""
    return "gpu%s" % str(device).replace("/", "_") if needs_gpu else "host"


def _lock_file(directory, name):
    return open(os.path.join(directory, name), "a")


def _log(directory, record):
    # One short append per interval: O_APPEND keeps lines whole.
    with open(os.path.join(directory, INTERVALS), "a") as log:
        log.write(json.dumps(record) + "\n")


@contextlib.contextmanager
def _take(resources, mode, who):
    """Hold every one of RESOURCES in MODE (fcntl.LOCK_EX or LOCK_SH) for
    the body. Each is taken through its turnstile (held only while taking
    the lock), in sorted order, so that two takers never wait for each
    other in a cycle."""
    directory = _private_dir()
    mine = _held_alone()
    # Already this thread's alone: nothing to wait for, and nothing to log
    # (the exclusive interval covers it).
    resources = sorted(set(resources) - mine)
    with contextlib.ExitStack() as stack:
        asked = time.time()
        for resource in resources:
            lock = stack.enter_context(_lock_file(directory, resource + ".lock"))
            # Unlocked explicitly, never by closing: a process forked meanwhile
            # holds a copy of the descriptor, and would keep the lock.
            stack.callback(fcntl.flock, lock, fcntl.LOCK_UN)
            with _lock_file(directory, resource + ".turnstile") as turnstile:
                fcntl.flock(turnstile, fcntl.LOCK_EX)
                try:
                    fcntl.flock(lock, mode)
                finally:
                    fcntl.flock(turnstile, fcntl.LOCK_UN)
        start = time.time()
        if mode == fcntl.LOCK_EX:
            mine.update(resources)
        try:
            yield
        finally:
            end = time.time()
            if mode == fcntl.LOCK_EX:
                mine.difference_update(resources)
            for resource in resources:
                _log(directory, {"resource": resource, "mode": "exclusive" if mode == fcntl.LOCK_EX else "shared",
                                 "who": who, "pid": os.getpid(), "waited_s": round(start - asked, 3),
                                 "start": start, "end": end})


def hold(resources, who):
    """Hold RESOURCES (one name, or a list) exclusively for the body; WHO
    names the holder in the log. Waits as long as it takes: a holder's phase
    is bounded by its own time limits, and so is every shared holder's
    command."""
    return _take([resources] if isinstance(resources, str) else resources, fcntl.LOCK_EX, who)


def share(resources, who):
    """Hold RESOURCES shared for the body (one command of a grade)."""
    return _take(resources, fcntl.LOCK_SH, who)


# How many processes of CUDA labs' recordings may run at once on a host,
# across every grade (HPCGRADE_CUDA_PROCESSES overrides it). Each starts the
# CUDA driver, and the driver starts contexts about one at a time across
# processes: on two H200s a start took 0.54 s alone and a median of 4.6 s
# with 24 at once (one GPU visible; 8.5 s with both), so parallel grades
# spent most of a test's 20 s starting CUDA. Sixteen is what one grade with
# --jobs 16 ran on a 16-core H200 host, where start-up stayed near 4 s.
CUDA_PROCESSES = 16


def cuda_processes():
    """How many CUDA processes of recordings may run at once on this host:
    HPCGRADE_CUDA_PROCESSES, else CUDA_PROCESSES."""
    return whole_number_setting("HPCGRADE_CUDA_PROCESSES", CUDA_PROCESSES)


def whole_number_setting(name, default, environ=os.environ):
    """The grader's setting NAME from the environment, a whole number above
    0, else DEFAULT when it is unset or blank. Any other value is a
    ValueError, not a silent default."""
    text = environ.get(name, "").strip()
    if not text:
        return default
    if not re.fullmatch(r"[0-9]+", text) or int(text) < 1:
        raise ValueError("%s=%r: give a whole number above 0" % (name, text))
    return int(text)


@contextlib.contextmanager
def places(kind, total, n=1, poll_s=0.05):
    """N of this host's TOTAL places of KIND for the body, across threads,
    processes and grades: a flock on each of N of TOTAL files, taken all at
    once or not at all (a taker that held some while waiting for more could
    wait for another doing the same). N is at most TOTAL. Waits as long as
    it takes, polling: each holder's command is bounded by its own limits."""
    directory = _private_dir()
    n = max(1, min(int(n), int(total)))
    while True:
        taken = []
        for i in range(total):
            f = _lock_file(directory, "%s-%d.place" % (kind, i))
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                f.close()
                continue
            taken.append(f)
            if len(taken) == n:
                break
        if len(taken) == n:
            break
        for f in taken:
            fcntl.flock(f, fcntl.LOCK_UN)
            f.close()
        time.sleep(poll_s)
    try:
        yield n
    finally:
        # Unlocked explicitly, never by closing alone (see _take).
        for f in taken:
            fcntl.flock(f, fcntl.LOCK_UN)
            f.close()


def devices_for(needs_gpu, every_gpu=False, ids=None):
    """The GPUs a grade uses, as CUDA_VISIBLE_DEVICES names them: none for a
    CPU lab; all of IDS (default host.gpu_ids()) for a lab whose tests use
    several (EVERY_GPU); else one, the next in turn, so that grades side by
    side spread over the GPUs (a counter beside the locks, taken under a
    lock of its own). On a host without a GPU, "0" names the lease."""
    if not needs_gpu:
        return []
    from . import host
    ids = host.gpu_ids() if ids is None else ids
    if len(ids) <= 1 or every_gpu:
        return list(ids) or ["0"]
    directory = _private_dir()
    with open(os.path.join(directory, "next-gpu"), "a+") as counter:
        fcntl.flock(counter, fcntl.LOCK_EX)
        counter.seek(0)
        text = counter.read().strip()
        turn = int(text) if text.isdigit() else 0
        counter.seek(0)
        counter.truncate()
        counter.write(str(turn + 1))
        counter.flush()
        fcntl.flock(counter, fcntl.LOCK_UN)
    return [ids[turn % len(ids)]]


def visible_devices(devices, ids=None, environ=None):
    """CUDA_VISIBLE_DEVICES for a grade's runs on DEVICES, or None to leave
    it unset: when they are every GPU of the host and the grader was given
    no CUDA_VISIBLE_DEVICES of its own (the runs' environment is built
    afresh, so a given one -- Slurm's -- is passed on here)."""
    from . import host
    ids = host.gpu_ids() if ids is None else ids
    given = "CUDA_VISIBLE_DEVICES" in (os.environ if environ is None else environ)
    if not devices or (set(devices) >= set(ids) and not given):
        return None
    return ",".join(devices)


class Shared:
    """A grade's view of its Sandbox: every command it runs to its end
    (`execute`) holds a shared lease of RESOURCES meanwhile. `start` is the
    timed phase's, which already holds its resources alone. Both see only
    the grade's GPUs (VISIBLE: CUDA_VISIBLE_DEVICES, None for all). The
    rest is the Sandbox's own."""

    # Sandbox.execute's and start's parameters before env.
    ENV_POSITION = 5

    def __init__(self, sandbox, resources, who, visible=None):
        self._sandbox, self.resources, self.who, self.visible = sandbox, list(resources), who, visible

    def __getattr__(self, name):
        return getattr(self._sandbox, name)

    def _on_our_gpus(self, args, kwargs):
        if self.visible is None:
            return args, kwargs
        from . import sandbox as sb_mod
        args, kwargs = list(args), dict(kwargs)
        if len(args) > self.ENV_POSITION:
            args[self.ENV_POSITION] = dict(args[self.ENV_POSITION] or sb_mod.base_env(),
                                           CUDA_VISIBLE_DEVICES=self.visible)
        else:
            kwargs["env"] = dict(kwargs.get("env") or sb_mod.base_env(), CUDA_VISIBLE_DEVICES=self.visible)
        return args, kwargs

    def execute(self, *args, **kwargs):
        args, kwargs = self._on_our_gpus(args, kwargs)
        with share(self.resources, self.who):
            return self._sandbox.execute(*args, **kwargs)

    def start(self, *args, **kwargs):
        args, kwargs = self._on_our_gpus(args, kwargs)
        return self._sandbox.start(*args, **kwargs)


def resources_used(devices):
    """What a grade's commands use: the host's cores, and its GPUs."""
    return ["host"] + gpu_resources(devices)


def gpu_resources(devices):
    return [resource_for(True, d) for d in devices]


def intervals(directory=None):
    """The logged intervals, oldest first."""
    path = os.path.join(directory or lease_dir(), INTERVALS)
    try:
        with open(path, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]
    except OSError:  # none yet, or a cache that is not a directory (a grader error said elsewhere)
        return []


def overlaps(records):
    """Pairs of intervals of one resource that overlap in time, where at
    least one of the two was exclusive (pure). A record without a mode is
    an exclusive one."""
    found = []
    by_resource = {}
    for r in records:
        by_resource.setdefault(r["resource"], []).append(r)
    for rs in by_resource.values():
        exclusive = sorted((r for r in rs if r.get("mode", "exclusive") == "exclusive"), key=lambda r: r["start"])
        for a in exclusive:
            for b in rs:
                if b is not a and b["start"] < a["end"] and a["start"] < b["end"] and (
                        b.get("mode", "exclusive") == "shared" or a["start"] <= b["start"]):
                    found.append((a, b))
    return found


def busy_fractions(records, start, end):
    """{resource: (busy, timed)}: the fraction of [START, END] in which any
    lease of the resource was held, and in which an exclusive one was (a
    class run's utilisation of its host and GPUs)."""
    def covered(spans):
        total, reach = 0.0, start
        for a, b in sorted(spans):
            a, b = max(a, reach), min(b, end)
            if b > a:
                total, reach = total + b - a, b
        return total
    wall = max(end - start, 1e-9)
    found = {}
    for r in records:
        if r["end"] > start and r["start"] < end:
            found.setdefault(r["resource"], []).append(r)
    return {res: (covered([(r["start"], r["end"]) for r in rs]) / wall,
                  covered([(r["start"], r["end"]) for r in rs if r.get("mode", "exclusive") == "exclusive"]) / wall)
            for res, rs in sorted(found.items())}
