"""Stage kernels forked from one process that has imported the stages' modules once (a "zygote").

Every stage's kernel imports pandas, scipy, matplotlib, seaborn and the package before its first line of analysis:
~2.2 CPU seconds per stage, paid again by each stage of each set (warm kernels, ``kernels.prepare``, hide the wait
but not the CPU). A command's first kernel without a secret starts the zygote: one process, in a session of its own,
with the environment a keyless kernel gets (``redaction.without_secrets``), that imports the modules of the stage
notebooks beside that notebook (``kernels.notebook_modules``; the key stages' excluded) and then waits on its pipe.
Each kernel without a secret (``kernels._keyless``: collection's too where the environment holds none) is a fork of
it (copy-on-write: the imports cost nothing more) that becomes an ipykernel with the manager's connection file,
arguments, environment, working directory and log, in a session of its own (interrupts and kills reach its process
group, as for a kernel jupyter_client starts). A kernel ends through the interpreter's own exit, its atexit handlers
run (``_become_kernel``, ``_leave``). The zygote reaps its kernels; it exits when its pipe closes (the command ended,
or died). ``FORK_ENV=0`` starts every kernel as its own process. Only public interfaces are used: the kernel manager
holds a fork through jupyter_client's provisioner API (``helpers.core.provisioner``), and nothing here reaches into
ipykernel's, jupyter_client's or CPython's private names (``tests/test_public_api.py``).

Run as ``python -m helpers.core.zygote MODULES_JSON`` by ``Zygote``; importing this module changes nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import NoReturn

FORK_ENV = "COP_FORKED_KERNELS"  # 0: every kernel starts as its own process; unfrozen: no gc.freeze (the benchmark)
LAUNCHER = "ipykernel_launcher"


# The import loop of a warm kernel (``kernels``, sent to it as code) and of the zygote: a name that is not a module,
# or that fails to import, is the notebook's own business.
PRELOAD = """\
def _cop_preload(names):
    import importlib, importlib.util
    for name in names:
        try:
            parent = name.rpartition(".")[0]
            if not parent or importlib.util.find_spec(name) is not None:
                importlib.import_module(name)
        except Exception:
            pass
_cop_preload({names!r})
del _cop_preload
"""


def _reap(*_) -> None:
    """Collect every kernel that ended (SIGCHLD): none stays a zombie, so its manager sees it gone."""
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _become_kernel(request: dict) -> NoReturn:
    """In the forked child: a fresh session, the manager's stdio, directory, environment and arguments, then the
    ipykernel app until it shuts down. It never returns to the zygote's loop: it raises ``SystemExit``, which nothing
    on the way out (``serve``'s loop, this module's ``__main__``) catches or cleans up after, so the kernel ends
    through the interpreter's own exit, as ``python -m ipykernel_launcher`` does: its atexit handlers run there, the
    last of them ``_leave``."""
    import signal

    code = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the kernel waits for its own subprocesses
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.setsid()
        null = os.open(os.devnull, os.O_RDONLY)
        log = os.open(request["log"] or os.devnull, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        os.dup2(null, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        for fd in {null, log} - {0, 1, 2}:
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update({**request["env"], "JPY_PARENT_PID": str(os.getppid())})
        sys.argv = [LAUNCHER, *request["argv"]]
        from ipykernel.kernelapp import IPKernelApp

        IPKernelApp.launch_instance()
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 0
    except BaseException:  # noqa: BLE001 - a kernel that could not start says why in its log, and ends
        import traceback

        traceback.print_exc()
    _LEAVING.append(code)
    raise SystemExit(code)


_LEAVING: list[int] = []  # in a forked kernel on its way out: its exit status (``_leave``)


def _leave() -> None:
    """The zygote's first atexit handler, and so (last in, first out) the last of every kernel forked from it: in a
    kernel on its way out (``_become_kernel``), once the kernel's own handlers have run, its log flushed, end the
    process (``os._exit``, as meant for a child after ``fork``) without the interpreter's teardown, which frees every
    module's objects one by one and so copies the pages the kernel shares with the zygote (~0.1 CPU-s per kernel with
    the stages' modules, on the machine of ``benchmarks/results/``). In the zygote itself, nothing."""
    if _LEAVING:
        for stream in (sys.__stdout__, sys.__stderr__):
            try:
                if stream is not None:
                    stream.flush()
            except (OSError, ValueError):  # closed, or its file gone: nothing more to say
                pass
        os._exit(_LEAVING[0])


def serve(modules: list[str]) -> None:
    """The zygote's loop: import ``modules``, then one fork per request line on stdin (JSON: argv, env, cwd, log),
    answering the kernel's pid on stdout; exit at end of input."""
    import atexit
    import gc
    import signal

    atexit.register(_leave)  # before any module it imports registers one of its own: the kernels' last handler
    if sys.path and sys.path[0] == os.getcwd():  # as ``python -m ipykernel_launcher`` leaves it
        del sys.path[0]
    exec(PRELOAD.format(names=[*modules, "ipykernel.kernelapp"]), {})  # noqa: S102 - our own code, module names as data
    if os.environ.get(FORK_ENV) != "unfrozen":  # the imports' garbage collected, then every object left moves out
        gc.collect()  # of the collector's sight: a kernel's collections (a full one as it shuts down) never walk
        gc.freeze()  # (nor write to, copying their pages) the modules it shares
    signal.signal(signal.SIGCHLD, _reap)
    for line in sys.stdin:
        request = json.loads(line)
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            _become_kernel(request)
        sys.stdout.write(json.dumps({"pid": pid}) + "\n")
        sys.stdout.flush()


class Zygote:
    """The client side: starts ``serve`` in a process of its own and asks it for kernels (one request at a time)."""

    def __init__(self, modules: list[str], env: dict[str, str], cwd: Path):
        self.proc = subprocess.Popen([sys.executable, "-Xfrozen_modules=off", "-m", __name__, json.dumps(modules)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     env=env, cwd=str(cwd), start_new_session=True, text=True)
        self.lock = threading.Lock()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def fork(self, argv: list[str], env: dict[str, str], cwd: str, log: str | None) -> int | None:
        """A kernel's pid, or None: the zygote is gone or answered nothing usable (the caller starts one itself)."""
        with self.lock:
            try:
                assert self.proc.stdin is not None and self.proc.stdout is not None
                self.proc.stdin.write(json.dumps({"argv": argv, "env": env, "cwd": cwd, "log": log}) + "\n")
                self.proc.stdin.flush()
                pid = json.loads(self.proc.stdout.readline())["pid"]
            except (OSError, ValueError, KeyError, AssertionError):
                self.stop()
                return None
        return pid if isinstance(pid, int) and pid > 0 else None

    def stop(self) -> None:
        """Close its pipe (it exits there) and wait for it; its kernels are shut down by their managers."""
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


class Forked:
    """A forked kernel's handle, as jupyter_client's local provisioner uses a ``Popen``. Its parent is the zygote,
    which reaps it, and a reaped kernel's pid (the name of its process group) may be another process's: so the handle
    holds the kernel itself, as a pidfd taken when the zygote answered its pid, and has ended once that process has.
    The provisioner is given no process group for it: every signal goes through ``send_signal``, to the kernel's
    group while the kernel has not ended (so its pid, and its group's, is still its own; ``sessions``)."""

    stdin = stdout = stderr = None

    def __init__(self, pid: int):
        self.pid, self.returncode = pid, None
        try:
            self.fd: int | None = os.pidfd_open(pid)
        except ProcessLookupError:  # ended (and reaped) before it was looked at
            self.fd, self.returncode = None, 0

    def poll(self) -> int | None:
        import select

        if self.returncode is None and (self.fd is None or select.select([self.fd], [], [], 0)[0]):
            self.returncode = 0  # a pidfd is readable once its process has ended
            self._close()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        import time

        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(str(self.pid), timeout or 0)
            time.sleep(0.05)
        return self.returncode or 0

    def send_signal(self, signum: int) -> None:
        """Signal the kernel's process group (it leads its own session: its subprocesses too) while the kernel has
        not ended; one that ended has nothing to signal (as ``Popen.send_signal``)."""
        if self.poll() is None:
            try:
                os.killpg(self.pid, signum)
            except ProcessLookupError:  # not yet its own session's leader, or ended in between
                pass

    def kill(self) -> None:
        import signal

        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        import signal

        self.send_signal(signal.SIGTERM)

    def _close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def __del__(self) -> None:
        self._close()


def can_hold() -> bool:
    """Whether this system gives pidfds (Linux 5.3 and later), by which ``Forked`` holds a kernel: without them a
    kernel is started as a process of its own."""
    global _HOLDS
    if _HOLDS is None:
        try:
            os.close(os.pidfd_open(os.getpid()))
            _HOLDS = True
        except (AttributeError, OSError):
            _HOLDS = False
    return _HOLDS


_HOLDS: bool | None = None


def kernel_argv(cmd: list[str]) -> list[str] | None:
    """The ipykernel arguments of a kernel command of this interpreter (``python [-X…] -m ipykernel_launcher ARGS``),
    or None for any other command (started as its own process)."""
    if not cmd or os.path.abspath(cmd[0]) != os.path.abspath(sys.executable):
        return None
    try:
        at = cmd.index("-m")
    except ValueError:
        return None
    return cmd[at + 2:] if cmd[at + 1:at + 2] == [LAUNCHER] else None


if __name__ == "__main__":
    serve(json.loads(sys.argv[1]))
