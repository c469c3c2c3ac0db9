"""The Linux calls the sandbox's worker makes that Python 3.11's ``os`` lacks: namespaces, mounts, capabilities,
``prctl`` and a seccomp filter. Standard library only (``ctypes``): this file runs inside the boundary, in the
sandbox's own interpreter, copied there by ``grade.boundary``; the analysing process never calls it.

Every function raises ``OSError`` with the call's name when the kernel refuses; nothing here is optional once called.
"""

from __future__ import annotations

import ctypes
import os
import struct
import time

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWPID, CLONE_NEWTIME = 0x20000000, 0x80
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 1, 2, 4, 8, 0x4000, 0x40000
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_SECCOMP = 1, 4, 24, 22
PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 38, 47, 4
SECCOMP_MODE_FILTER = 2
_CAP_VERSION_3 = 0x20080522

# x86_64 system calls a graded program never needs and the boundary does not want it to try: namespaces and mounts,
# keyrings (shared by the worker's programs), tracing and reading other processes, BPF, perf, userfaultfd, io_uring,
# process handles (pidfd), kcmp, chroot and file handles. Most already need a capability the program lacks; the filter
# is a second line that answers EPERM. Numbers from the kernel's arch/x86/entry/syscalls/syscall_64.tbl.
DENIED_X86_64 = {
    "ptrace": 101, "chroot": 161, "mount": 165, "umount2": 166, "pivot_root": 155, "add_key": 248,
    "request_key": 249, "keyctl": 250, "unshare": 272, "perf_event_open": 298, "name_to_handle_at": 303,
    "open_by_handle_at": 304, "setns": 308, "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312,
    "bpf": 321, "userfaultfd": 323, "pidfd_send_signal": 424, "io_uring_setup": 425, "io_uring_enter": 426,
    "io_uring_register": 427, "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
    "fspick": 433, "pidfd_open": 434, "pidfd_getfd": 438, "mount_setattr": 442,
    # no socket at all (a program and its harness talk over pipes): abstract unix names are shared by every job of a
    # worker's network namespace, and vsock is not network-namespaced; sysinfo tells the host's uptime, load, memory,
    # times its uptime in ticks, statfs the host disk's size and free space, syslog the kernel's log
    "socket": 41, "socketpair": 53, "sysinfo": 99, "times": 100, "syslog": 103, "statfs": 137, "fstatfs": 138,
    # ustat tells the free space of the file system of any file the program can stat (the host's disk); setrlimit
    # would let a program lower its own CPU limit, so that the kernel's SIGKILL reads as a kill from outside
    "ustat": 136, "setrlimit": 160,
    # a lower priority (nice, SCHED_IDLE) would let a program wait for a CPU the backstop counts as busy, uncounted
    # by its CPU limit, for as long as the machine is loaded
    "setpriority": 141, "sched_setparam": 142, "sched_setscheduler": 144, "sched_setattr": 314,
}
PRCTL_X86_64 = 157  # prctl: refused for PR_SET_PDEATHSIG (what ties a program to its harness stays as it was set)
PRLIMIT64_X86_64 = 302  # prlimit64: refused with a new limit (args[2] not NULL); reading one stays allowed
AUDIT_ARCH_X86_64 = 0xC000003E
_libc = None


def libc():
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.prctl.argtypes = [ctypes.c_int] + [ctypes.c_ulong] * 4  # declared once: each call converts in C
        _libc.prctl.restype = ctypes.c_int
    return _libc


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def prctl(option: int, arg2: int = 0, arg3: int = 0) -> None:
    if libc().prctl(option, arg2, arg3, 0, 0) != 0:
        _check(-1, f"prctl({option})")


def unshare(flags: int) -> None:
    _check(libc().unshare(ctypes.c_int(flags)), "unshare")


def fresh_clocks() -> None:
    """A time namespace for this process's children whose monotonic and boot clocks start at about 1 s (they would
    tell the host's uptime: no system call to refuse, the vDSO reads them). Before the first child; a kernel without
    time namespaces (before 5.6), or a boundary that cannot set their offsets, leaves the clocks as they are."""
    try:
        unshare(CLONE_NEWTIME)
    except OSError:
        return
    mono, boot = time.clock_gettime(time.CLOCK_MONOTONIC), time.clock_gettime(time.CLOCK_BOOTTIME)
    prctl(PR_SET_DUMPABLE, 1)  # a process that is not dumpable cannot write its own /proc files (they are root's)
    try:
        with open("/proc/self/timens_offsets", "w") as fh:
            fh.write(f"monotonic {1 - int(mono)} 0\nboottime {1 - int(boot)} 0\n")
    except OSError:
        pass  # no CAP_SYS_TIME in the boundary's user namespace: the clocks stay the host's (the boundary still holds)
    finally:
        prctl(PR_SET_DUMPABLE, 0)  # again at once: no process of the same user may read this one


def mount(source: str, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    _check(libc().mount(source.encode(), target.encode(), fstype.encode() if fstype else None,
                        ctypes.c_ulong(flags), data.encode() if data else None), f"mount {target}")


def drop_capabilities() -> None:
    """Leave no capability in the effective, permitted, inheritable and ambient sets, set no_new_privs, and drop the
    bounding set where this process may (CAP_SETPCAP: a root caller's test, not a sandbox worker)."""
    for cap in range(_LAST_CAP[0] + 1 if _LAST_CAP else 64):
        if libc().prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            break  # EINVAL past the last capability this kernel knows, or EPERM without CAP_SETPCAP (a sandbox
            # worker lacks it: its bounding set stays, and with every other set empty and no_new_privs, no exec
            # can gain anything from it)
    try:
        prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    except OSError:
        pass  # a kernel without ambient capabilities has none to clear
    header = struct.pack("Ii", _CAP_VERSION_3, 0)
    data = ctypes.create_string_buffer(24)  # two __user_cap_data_struct of three u32, all zero
    _check(libc().capset(ctypes.c_char_p(header), data), "capset")
    prctl(PR_SET_NO_NEW_PRIVS, 1)


def seccomp_filter(denied: dict[str, int] = DENIED_X86_64) -> bytes:
    """A classic BPF program: on x86_64, EPERM for ``denied``, for ``prctl(PR_SET_PDEATHSIG, …)`` (set before the
    filter, never changed after), for ``prlimit64`` with a new limit (limits are set before the filter, never changed
    after) and for the x32 and 32-bit ABIs; anything else allowed."""
    eperm, allow = 0x00050000 | 1, 0x7FFF0000
    # (code, where to go if true, if false, k): a place is a number of instructions to skip or a label
    prog: list[tuple] = [  # a labelled row leads with its label
        (0x20, 0, 0, 4),  # A = arch
        (0x15, 1, 0, AUDIT_ARCH_X86_64),  # x86_64: skip the next
        (0x06, 0, 0, eperm),  # any other ABI (int 0x80's i386 numbers differ): refused
        (0x20, 0, 0, 0),  # A = syscall number
        (0x35, "EPERM", 0, 0x40000000),  # x32 numbers: refused
        *[(0x15, "EPERM", 0, nr) for nr in sorted(denied.values())],
        (0x15, 0, "PRLIMIT", PRCTL_X86_64),  # prctl: look at its option
        (0x20, 0, 0, 16),  # A = args[0] (its low 32 bits)
        (0x15, "EPERM", "ALLOW", PR_SET_PDEATHSIG),
        ("PRLIMIT", 0x15, 0, "ALLOW", PRLIMIT64_X86_64),  # prlimit64: look at its new limit's address
        (0x20, 0, 0, 32),  # A = args[2]'s low 32 bits
        (0x15, 0, "EPERM", 0),
        (0x20, 0, 0, 36),  # and its high 32 bits: a NULL pointer only reads
        (0x15, "ALLOW", "EPERM", 0),
        ("ALLOW", 0x06, 0, 0, allow),
        ("EPERM", 0x06, 0, 0, eperm),
    ]
    return _assemble(prog)


def _assemble(prog: list) -> bytes:
    """BPF instructions from (code, jt, jf, k) rows, a row led by a label naming its place; a jump to a label becomes
    the number of instructions it skips."""
    rows = [row[1:] if isinstance(row[0], str) else row for row in prog]
    places = {row[0]: i for i, row in enumerate(prog) if isinstance(row[0], str)}

    def skip(to: int | str, at: int) -> int:
        return places[to] - at - 1 if isinstance(to, str) else to

    return b"".join(struct.pack("HBBI", code, skip(jt, i), skip(jf, i), k) for i, (code, jt, jf, k) in enumerate(rows))


class _Prog(ctypes.Structure):  # struct sock_fprog
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


_FILTER: list = []  # (code, its sock_fprog): built once per worker (``prepare``), installed in each job's processes


_LAST_CAP: list[int] = []  # the kernel's highest capability number, read once


def prepare() -> None:
    """Build the seccomp filter and read the kernel's last capability once, before the worker forks its jobs."""
    libc()
    if not _FILTER:
        code = seccomp_filter()
        _FILTER.extend([code, _Prog(len(code) // 8, code)])
    if not _LAST_CAP:
        try:
            with open("/proc/sys/kernel/cap_last_cap") as fh:
                _LAST_CAP.append(int(fh.read()))
        except (OSError, ValueError):
            pass  # then every number up to 63 is tried


def install_seccomp() -> bool:
    """Install ``seccomp_filter`` on this process (needs no_new_privs); False where the machine is not x86_64."""
    if os.uname().machine != "x86_64":
        return False
    prepare()
    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(_FILTER[1]))
    return True
