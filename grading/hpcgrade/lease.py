"""Exclusive leases for the phases whose figures are scored.

Many grades may build, record and judge at once on one host; a timed phase
may not share what it measures. Before timing, a grade takes the lease of
its resource: one GPU (`gpu0`, ...) for a GPU lab, the host's cores (`host`)
for a CPU lab. A lease is an exclusive flock on a file in the grader's cache
(written by the grader's uid only, so no submission can hold or fake one),
so it holds across threads, processes and grade-class's parallel grades, and
is released by the kernel if its holder dies. Every interval a lease was
held is appended to `intervals.jsonl` beside the locks, so that a test (or
an instructor) can check that no two timed phases ever overlapped.
"""
import contextlib
import fcntl
import json
import os
import time

from . import build

INTERVALS = "intervals.jsonl"


def lease_dir():
    """HPCGRADE_LEASES, else `leases/` in the grader's cache."""
    return os.environ.get("HPCGRADE_LEASES") or os.path.join(build.cache_dir(), "leases")


def resource_for(needs_gpu, device=0):
    """The resource a timed phase holds: a GPU lab's device, or the host."""
    return "gpu%d" % device if needs_gpu else "host"


@contextlib.contextmanager
def hold(resource, who):
    """Hold RESOURCE exclusively for the body; WHO names the holder in the
    log. Waits as long as it takes: a holder's phase is bounded by its own
    time limits."""
    directory = lease_dir()
    os.makedirs(directory, mode=0o755, exist_ok=True)
    with open(os.path.join(directory, resource + ".lock"), "a") as lock:
        asked = time.time()
        fcntl.flock(lock, fcntl.LOCK_EX)
        start = time.time()
        try:
            yield
        finally:
            end = time.time()
            record = {"resource": resource, "who": who, "pid": os.getpid(),
                      "waited_s": round(start - asked, 3), "start": start, "end": end}
            # One short append per interval: O_APPEND keeps lines whole.
            with open(os.path.join(directory, INTERVALS), "a") as log:
                log.write(json.dumps(record) + "\n")
            fcntl.flock(lock, fcntl.LOCK_UN)


def intervals(directory=None):
    """The logged intervals, oldest first."""
    path = os.path.join(directory or lease_dir(), INTERVALS)
    try:
        with open(path, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        return []


def overlaps(records):
    """Pairs of intervals of one resource that overlap in time (pure)."""
    found = []
    by_resource = {}
    for r in records:
        by_resource.setdefault(r["resource"], []).append(r)
    for rs in by_resource.values():
        rs = sorted(rs, key=lambda r: r["start"])
        for a, b in zip(rs, rs[1:]):
            if b["start"] < a["end"]:
                found.append((a, b))
    return found
