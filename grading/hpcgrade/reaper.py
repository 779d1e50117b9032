"""Run one command and leave none of its processes behind.

The sandbox kills what it started (with bubblewrap, a whole pid namespace;
without it, the process group), but a process that calls setsid() or forks
twice leaves the group, and without bubblewrap nothing else would end it.
This process makes itself a child subreaper (prctl PR_SET_CHILD_SUBREAPER,
Linux 3.4): every orphan below it is re-parented to it instead of to init,
so after the command ends every process still below it is the command's,
and is killed -- stopped first, so that nothing forks while the tree is
being walked.

As a script (stdlib only): reaper.py [--timeout S] -- COMMAND...; its exit
status is the command's, 124 when the wall limit killed it. grade-class runs
each student's grade under one, so a leftover of one student is found and
killed as soon as that student's grade ends.
"""
import ctypes
import os
import signal
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
TIMED_OUT = 124
# How long to keep killing before giving up (a tree that keeps growing
# after SIGSTOP has reached every process cannot exist; this is a bound).
KILL_ROUNDS_S = 20.0


def become_subreaper():
    """Orphans below this process come back to it. False where the kernel
    refuses (not Linux)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def process_table():
    """{pid: (ppid, state, uids)} of every process this host shows in /proc;
    uids: its real, effective and saved uid."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/status" % entry, "rb") as f:
                text = f.read().decode("ascii", "replace")
        except OSError:
            continue  # it ended while we looked
        # "Name:" comes first and may hold anything; the fields read here do not.
        fields = dict(line.split(":", 1) for line in text.splitlines()[1:] if ":" in line)
        try:
            table[int(entry)] = (int(fields["PPid"]), fields["State"].split()[0],
                                 tuple(int(u) for u in fields["Uid"].split()[:3]))
        except (KeyError, ValueError, IndexError):
            continue
    return table


def descendants(pid, table=None):
    """Every process below PID, alive or zombie."""
    table = process_table() if table is None else table
    children = {}
    for p, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(p)
    found, todo = [], list(children.get(pid, []))
    while todo:
        p = todo.pop()
        found.append(p)
        todo += children.get(p, [])
    return found


def reap_children():
    """Collect the exit status of every child that has ended."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def signal_all(pids, sig):
    for p in pids:
        try:
            os.kill(p, sig)
        except (ProcessLookupError, PermissionError):
            pass


def kill_descendants(pid=None):
    """Stop, then kill, every process below PID (this process by default),
    until none is left; returns how many were found alive. Needs this
    process to be a subreaper (or the leftovers' parent) to reap them."""
    pid = os.getpid() if pid is None else pid
    end = time.monotonic() + KILL_ROUNDS_S
    killed = set()
    while time.monotonic() < end:
        table = process_table()
        below = descendants(pid, table)
        alive = [p for p in below if table[p][1] != "Z"]
        if not below:
            break
        if alive:
            # Freeze first: a stopped process cannot fork; walk again until
            # the frozen set stops growing, then kill it all at once.
            frozen = set()
            while set(alive) - frozen and time.monotonic() < end:
                signal_all(set(alive) - frozen, signal.SIGSTOP)
                frozen |= set(alive)
                table = process_table()
                alive = [p for p in descendants(pid, table) if table[p][1] != "Z"]
            signal_all(frozen | set(alive), signal.SIGKILL)
            killed |= frozen | set(alive)
        time.sleep(0.02)
        reap_children()
    return len(killed)


def run(argv, timeout=None, stdout=None):
    """Run ARGV in a new session under this (subreaper) process, at most
    TIMEOUT seconds; then kill everything left below. Returns (exit status
    or TIMED_OUT, number of leftover processes killed)."""
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=stdout, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        code = proc.wait(timeout)
    except subprocess.TimeoutExpired:
        code = TIMED_OUT
    finally:
        leftovers = kill_descendants()
        if proc.returncode is None:
            proc.returncode = -signal.SIGKILL  # reaped by kill_descendants
    return code, leftovers


def main(argv):
    timeout = None
    if argv[:1] == ["--timeout"]:
        timeout, argv = float(argv[1]), argv[2:]
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv:
        print("usage: reaper.py [--timeout S] -- COMMAND...", file=sys.stderr)
        return 2
    if not become_subreaper():
        print("reaper: prctl(PR_SET_CHILD_SUBREAPER) refused: leftovers cannot be collected", file=sys.stderr)

    def stop(signum, frame):
        # The class run was interrupted: take the whole tree down with us.
        kill_descendants()
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    code, leftovers = run(argv, timeout, stdout=None)
    if leftovers:
        print("reaper: killed %d processes left running after the command" % leftovers, flush=True)
    if code == TIMED_OUT:
        print("reaper: wall limit of %g s reached: the command and everything it started were killed" % timeout,
              flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
