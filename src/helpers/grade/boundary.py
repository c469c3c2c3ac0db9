"""The kernel's boundary around model-written code: how a sandbox worker (``sandbox_server.py``) is started.

With bubblewrap (Debian's ``bubblewrap``; ``make setup`` installs it where apt is usable) a worker runs

- as an unprivileged user: uid/gid 65534 when the caller is root (``setresuid`` before bubblewrap starts, so the
  kernel's user is never root), else the caller's own;
- in its own user (no further user namespaces: ``--disable-userns``), PID, network (loopback only, nothing
  listening), IPC, UTS and mount namespaces, and a new session, torn down with its parent (``--die-with-parent``);
- on a read-only file system that shows the sandbox's interpreter at ``/python`` (its standard library, site-packages
  masked), the shared libraries it loads, ``/dev/null``, ``/dev/urandom``, the worker's four files in ``/box``, a
  ``/proc`` of its own PID namespace (each program hides it) and an empty ``/tmp`` mount point: no ``/root``, no
  ``/home``, no checkout, no ``results/``, no cache, no socket file; with an environment of ``PYTHONHASHSEED=0``
  alone (string hashing fixed, so verdicts repeat; the worker empties it before a program runs);
- with one capability kept, CAP_SYS_ADMIN in its own user namespace, for the worker to give each program new mount,
  IPC, PID and UTS namespaces and a fresh ``/tmp`` (the network namespace is the worker's: nothing of a program
  outlives it); every program drops it (``sandbox_server``).

The sandbox's interpreter is the first of ``$COP_SANDBOX_PYTHON``, the analysing interpreter's own and
``/usr/bin/python3`` with which a worker judges a probe right (``grade.sandbox.find_boundary``); its version is part
of every verdict's cache key.
Where no boundary can be had, grading refuses to run model-written code unless the user asked for it without one
(``cost-of-pass run --unisolated-grading``, the run's ``RunSettings.unisolated_grading``): then the same worker runs
directly, with limits, seccomp and the audit hook but no namespaces, and every verdict says ``isolation: none``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from helpers.core.errors import CostOfPassError

HERE = Path(__file__).parent
FILES = ("sandbox_server.py", "kernel.py", "plain.py", "reasons.py")  # the worker and what it imports, copied into /box
SANDBOX_UID = 65534  # the kernel's user of a root caller's sandboxes (nobody)
# No site, no user site, no script folder on sys.path; unlike -I, the environment is read, and it holds only this:
# string hashing fixed, so a set's iteration order (and a verdict that depends on it) is the same in every worker
PYTHON_FLAGS = ("-S", "-s", "-P")
WORKER_ENV = {"PYTHONHASHSEED": "0"}
PYTHON_ENV = "COP_SANDBOX_PYTHON"
_INFO = ("import json, sys, sysconfig; p = sysconfig.get_paths(); "
         "print(json.dumps([sys.version.split()[0], p['stdlib'], p['platstdlib'], sys.version_info[:2]]))")


@dataclass(frozen=True)
class Interpreter:
    """A Python for the sandbox: its binary, standard library, version and the shared libraries it loads."""

    binary: str
    stdlib: str
    version: str
    major_minor: tuple[int, int]
    libraries: tuple[str, ...]


@dataclass(frozen=True)
class Boundary:
    """How to start a worker: ``isolation`` is ``bwrap`` (the kernel's boundary) or ``none`` (the user's opt-in)."""

    isolation: str
    interpreter: Interpreter
    reason: str = ""  # why there is no boundary (isolation none)
    bwrap: str = ""
    files: dict = field(default_factory=dict, compare=False)  # name -> bytes of the worker's files

    def start(self) -> subprocess.Popen:
        """A new worker process (stdin/stdout pipes, binary); the caller's thread must outlive it
        (--die-with-parent)."""
        if self.isolation == "none":
            return subprocess.Popen([self.interpreter.binary, *PYTHON_FLAGS, str(HERE / "sandbox_server.py"), "bare"],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                    env=dict(WORKER_ENV), cwd="/", start_new_session=True)
        memfds = []
        for name in FILES:
            fd = os.memfd_create(f"box-{name}")
            os.write(fd, self.files[name])
            os.lseek(fd, 0, os.SEEK_SET)
            memfds.append(fd)
        try:
            drop: dict[str, Any] = {"user": SANDBOX_UID, "group": SANDBOX_UID,
                                    "extra_groups": []} if os.geteuid() == 0 else {}
            return subprocess.Popen(self.argv(memfds), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL, env={}, cwd="/", pass_fds=memfds,
                                    start_new_session=True, **drop)
        finally:
            for fd in memfds:
                os.close(fd)

    def argv(self, memfds: list[int]) -> list[str]:
        py = self.interpreter
        stdlib = f"/python/lib/python{py.major_minor[0]}.{py.major_minor[1]}"
        args = [self.bwrap, "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session",
                "--clearenv", "--hostname", "sandbox", "--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SYS_TIME",
                "--ro-bind", py.binary, "/python/bin/python3", "--ro-bind", py.stdlib, stdlib]
        if Path(py.stdlib, "site-packages").is_dir():
            args += ["--tmpfs", f"{stdlib}/site-packages", "--remount-ro", f"{stdlib}/site-packages"]
        for lib in py.libraries:
            args += ["--ro-bind", lib, lib]
        args += ["--dev-bind", "/dev/null", "/dev/null", "--dev-bind", "/dev/urandom", "/dev/urandom",
                 "--proc", "/proc", "--dir", "/tmp"]
        for name, fd in zip(FILES, memfds, strict=True):
            args += ["--ro-bind-data", str(fd), f"/box/{name}"]
        env = [x for k, v in WORKER_ENV.items() for x in ("--setenv", k, v)]
        return [*args, *env, "--remount-ro", "/", "/python/bin/python3", *PYTHON_FLAGS, "/box/sandbox_server.py",
                "isolated"]


def interpreter(binary: str, libraries: bool = True) -> Interpreter | None:
    """What the sandbox needs to know of a Python binary (without ``libraries``: not the shared libraries it loads,
    which take a second of ``ldd``), or None when it does not run or is not CPython 3."""
    try:
        out = subprocess.run([binary, "-I", "-S", "-c", _INFO], capture_output=True, text=True, timeout=30, env={})
        version, stdlib, platstdlib, major_minor = json.loads(out.stdout)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None
    if platstdlib != stdlib or not Path(stdlib, "os.py").is_file():
        return None
    real = os.path.realpath(binary)
    objects = [real, *map(str, Path(stdlib, "lib-dynload").glob("*.so"))]
    return Interpreter(real, os.path.realpath(stdlib), version, tuple(major_minor),
                       shared_libraries(objects) if libraries else ())


def shared_libraries(objects: list[str]) -> tuple[str, ...]:
    """Every shared library (and the dynamic loader) that ``objects`` load, by ``ldd``: absolute paths, sorted."""
    ldd = shutil.which("ldd")
    if not ldd:
        return ()
    out = subprocess.run([ldd, *objects], capture_output=True, text=True, timeout=60).stdout
    return tuple(sorted({m.group(1) for m in re.finditer(r"(/\S+) \(0x[0-9a-f]+\)", out)} - set(objects)))


def world_readable(path: str) -> bool:
    """Whether any user may read ``path`` (and pass through every folder above it): what a root caller's sandbox,
    which runs as ``SANDBOX_UID``, needs of the files it binds."""
    import stat

    p = Path(path)
    for folder in p.parents:
        if not os.stat(folder).st_mode & stat.S_IXOTH:
            return False
    return bool(os.stat(p).st_mode & stat.S_IROTH)


def candidates() -> list[str]:
    """Pythons to try for the sandbox, in order."""
    base = Path(sys.base_prefix) / "bin" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    return [p for p in (os.environ.get(PYTHON_ENV), str(base), "/usr/bin/python3") if p]


def options() -> tuple[list[Boundary], list[str]]:
    """The boundaries to try, in order (bubblewrap with each usable interpreter of ``candidates``), and why the
    others cannot be (``grade.sandbox.find_boundary`` probes them)."""
    bwrap = shutil.which("bwrap")
    if not bwrap:
        return [], ["bubblewrap (bwrap) is not installed"]
    files = {name: (HERE / name).read_bytes() for name in FILES}
    found, why = [], []
    for binary in candidates():
        py = interpreter(binary, libraries=False)
        if py is not None and os.geteuid() == 0 and not all(world_readable(p) for p in (py.binary, py.stdlib)):
            why.append(f"{binary}: not readable by the sandbox's user (uid {SANDBOX_UID})")
            continue
        py = py and interpreter(binary)
        if py is None:
            why.append(f"{binary}: not a usable Python")
        elif os.geteuid() == 0 and not all(world_readable(p) for p in py.libraries):
            why.append(f"{binary}: its libraries are not readable by the sandbox's user (uid {SANDBOX_UID})")
        else:
            found.append(Boundary("bwrap", py, bwrap=bwrap, files=files))
    return found, why


def unisolated(reason: str, allowed: bool = False) -> Boundary:
    """No boundary: the worker runs directly (only where the command line ``allowed`` it, ``--unisolated-grading``:
    ``RunSettings.unisolated_grading``; else a one-line error, before any program runs)."""
    if not allowed:
        raise CostOfPassError(f"model-written code is graded only inside a kernel boundary, and none works here "
                              f"({reason}); install bubblewrap (`make setup` does, where apt is usable) or, "
                              "knowing the program can then reach this machine, pass --unisolated-grading")
    py = interpreter(sys.executable)
    if py is None:
        raise CostOfPassError(f"no Python to grade with: {sys.executable}")
    return Boundary("none", py, reason=reason)
