"""The seccomp filter every sandboxed process runs under (bwrap --seccomp).

A classic BPF program, built here from the standard library so that the
grader needs nothing beyond Python and bubblewrap. It refuses, with EPERM,
the system calls a lab never needs and an attack does: mounting, file
handles (open_by_handle_at reads files by inode, past every mount), ptrace
and process_vm_* (another process's memory), keyrings, kernel modules,
io_uring (it bypasses seccomp for the operations it queues), and new
namespaces (clone or unshare with CLONE_NEW*). clone3 answers ENOSYS, so the
C library falls back to clone, whose flags a classic filter can inspect.

Profiles:
  "default"  processes and threads allowed (tests, builds, MPI and parallel
             labs' timing).
  "record"   the default, less what could change a call's outputs after the
             judged call settled and its record was written (see
             common/src/judged_settle.cpp): timers (alarm, setitimer,
             timer_create, timerfd_create), kernel AIO (io_setup), a lower
             CPU-time limit (setrlimit, prlimit64 setting one: SIGXCPU later),
             signals on I/O, leases and directory changes (fcntl F_SETOWN,
             F_SETOWN_EX, F_SETSIG, F_SETLEASE, F_NOTIFY; ioctl FIOSETOWN,
             SIOCSPGRP), and clone with CLONE_PARENT (a process outside the
             recording process's children). No lab, nor OpenMP, oneTBB, Open
             MPI or the CUDA runtime, makes these calls in a test.
  "single"   no new thread or process at all: the timing of a sequential lab,
             so its time cannot be spread over cores or handed to a child.

x86-64 only (the architecture of the CI machines and the GPU hosts). On
another architecture `program` returns None and the sandbox says that it
runs without the filter.
"""
import errno
import platform
import struct

AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000

# seccomp return values
RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000

# classic BPF opcodes
LD_W_ABS = 0x20
JEQ_K = 0x15
JGE_K = 0x35
JSET_K = 0x45
RET_K = 0x06

OFF_NR, OFF_ARCH, OFF_ARG0, OFF_ARG1, OFF_ARG2 = 0, 4, 16, 24, 32

# x86-64 numbers (asm/unistd_64.h)
DENIED = {
    "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "swapon": 167, "swapoff": 168,
    "reboot": 169, "sethostname": 170, "setdomainname": 171, "iopl": 172, "ioperm": 173,
    "init_module": 175, "finit_module": 313, "delete_module": 176, "quotactl": 179, "quotactl_fd": 443,
    "acct": 163, "settimeofday": 164, "clock_settime": 227, "clock_adjtime": 305, "adjtimex": 159,
    "syslog": 103, "ptrace": 101, "kexec_load": 246, "kexec_file_load": 320, "keyctl": 250, "add_key": 248,
    "request_key": 249, "unshare": 272, "setns": 308, "process_vm_readv": 310, "process_vm_writev": 311,
    "kcmp": 312, "bpf": 321, "userfaultfd": 323, "perf_event_open": 298, "name_to_handle_at": 303,
    "open_by_handle_at": 304, "lookup_dcookie": 212, "vhangup": 153, "uselib": 134, "nfsservctl": 180,
    "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
    "pidfd_getfd": 438, "mount_setattr": 442, "io_uring_setup": 425, "io_uring_enter": 426,
    "io_uring_register": 427, "fanotify_init": 300,
}
NR_CLONE, NR_CLONE3, NR_FORK, NR_VFORK = 56, 435, 57, 58
CLONE_THREAD = 0x00010000
CLONE_NEW_ANY = 0x7E020080  # NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET, NEWTIME

# "record" (recording runs): see the docstring.
RECORD_DENIED = {"alarm": 37, "setitimer": 38, "timer_create": 222, "timerfd_create": 283, "io_setup": 206,
                 "setrlimit": 160}
NR_FCNTL, NR_IOCTL, NR_PRLIMIT64 = 72, 16, 302
FCNTL_SIGNALLING = (8, 10, 15, 1024, 1026)  # F_SETOWN, F_SETSIG, F_SETOWN_EX, F_SETLEASE, F_NOTIFY
IOCTL_SIGNALLING = (0x8901, 0x8902)  # FIOSETOWN, SIOCSPGRP
CLONE_PARENT = 0x00008000

PROFILES = ("default", "record", "single")


def _insn(code, k, jt=0, jf=0):
    return struct.pack("=HBBI", code, jt, jf, k)


def supported():
    return platform.machine() in ("x86_64", "AMD64")


def _record_checks(deny):
    """The calls "record" refuses besides the default's. Each block starts
    and ends with the system call number in the accumulator."""
    load_nr = _insn(LD_W_ABS, OFF_NR)
    out = []
    for nr in sorted(RECORD_DENIED.values()):
        out += [_insn(JEQ_K, nr, 0, 1), deny]
    for nr, commands in ((NR_FCNTL, FCNTL_SIGNALLING), (NR_IOCTL, IOCTL_SIGNALLING)):
        # The command is the second argument (an unsigned int to the kernel).
        out.append(_insn(JEQ_K, nr, 0, 2 * len(commands) + 2))
        out.append(_insn(LD_W_ABS, OFF_ARG1))
        for cmd in commands:
            out += [_insn(JEQ_K, cmd, 0, 1), deny]
        out.append(load_nr)
    # prlimit64(pid, resource, new_limit, old_limit): refused when new_limit,
    # the third argument (64 bits), is not null; reading a limit stays allowed.
    out += [
        _insn(JEQ_K, NR_PRLIMIT64, 0, 6),
        _insn(LD_W_ABS, OFF_ARG2),
        _insn(JEQ_K, 0, 0, 2),
        _insn(LD_W_ABS, OFF_ARG2 + 4),
        _insn(JEQ_K, 0, 1, 0),
        deny,
        load_nr,
    ]
    return out


def program(profile="default"):
    """The filter as bytes of struct sock_filter, or None where unsupported."""
    if profile not in PROFILES:
        raise ValueError("unknown seccomp profile %r" % profile)
    if not supported():
        return None
    deny = _insn(RET_K, RET_ERRNO | errno.EPERM)
    out = [
        _insn(LD_W_ABS, OFF_ARCH),
        _insn(JEQ_K, AUDIT_ARCH_X86_64, 1, 0),
        _insn(RET_K, RET_KILL_PROCESS),
        _insn(LD_W_ABS, OFF_NR),
        _insn(JGE_K, X32_SYSCALL_BIT, 0, 1),  # the x32 ABI: never needed
        deny,
    ]
    for nr in sorted(DENIED.values()):
        out += [_insn(JEQ_K, nr, 0, 1), deny]
    out += [_insn(JEQ_K, NR_CLONE3, 0, 1), _insn(RET_K, RET_ERRNO | errno.ENOSYS)]
    if profile == "record":
        out += _record_checks(deny)
    if profile == "single":
        for nr in (NR_FORK, NR_VFORK, NR_CLONE):
            out += [_insn(JEQ_K, nr, 0, 1), deny]
    else:
        # clone: refuse new namespaces (flags are the first argument; the
        # low 32 bits hold every CLONE_NEW* flag), and in recording runs a
        # new process made the sibling of the caller.
        refused = CLONE_NEW_ANY | (CLONE_PARENT if profile == "record" else 0)
        out += [
            _insn(JEQ_K, NR_CLONE, 0, 3),
            _insn(LD_W_ABS, OFF_ARG0),
            _insn(JSET_K, refused, 0, 1),
            deny,
        ]
    out.append(_insn(RET_K, RET_ALLOW))
    return b"".join(out)
