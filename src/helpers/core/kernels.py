"""The stages' Jupyter kernels: started over local sockets, interrupted or killed on Ctrl-C, and started warm.

A stage's kernel costs ~0.7 s to start and ~2 s to import pandas, scipy, matplotlib and the package before its first
line of analysis runs; on a set of eight stages that is ~20 s of waiting. ``prepare`` starts the *next* stage's kernel
while the current stage runs and imports there, in the background, the modules that notebook's own import lines name
(nothing else: no name is bound, no code of the notebook runs, the execution count stays at 0). ``take`` hands that
kernel to the next stage's notebook, which then runs in a fresh process exactly as it would have, minus the wait.
A kernel prepared for another notebook, or left when the run stops, is shut down (``retire``).

A kernel without keys (or a key stage's, where the environment holds no secret) is forked from the command's zygote
(``helpers.core.zygote``), which has imported the modules of the stage notebooks beside it once: the ~2 s of imports
are then paid once per command, not once per stage and set; a stage with no kernel prepared for it gets one so too.
It is still a process of its own, started before its notebook, with its own environment. jupyter_client starts and
signals it through the manager's provisioner (``helpers.core.provisioner``: its public provisioner API); nothing
here calls or overrides a private name of jupyter_client, nbclient, papermill or ipykernel
(``tests/test_public_api.py``).
"""

from __future__ import annotations

import ast
import os
import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from helpers.core.zygote import PRELOAD

if TYPE_CHECKING:  # a mixin: jupyter_client's manager is its base only where it is used (``kernel_manager_class``)
    from jupyter_client.manager import KernelManager as _Manager

    from helpers.core.zygote import Zygote
else:
    _Manager = object

KERNEL = "cost-of-pass"
KEY_STAGES = ("01_collect",)  # the only stage whose kernel may hold provider keys
COLD_ENV = "COP_COLD_KERNELS"  # set to 1: each stage starts its own kernel when it starts (benchmarks compare)
PRELOAD_WAIT_S = 300.0  # how long a stage waits for its warm kernel's imports before it runs anyway
_LIVE = None  # a weakref.WeakSet of the kernel managers alive now (``interrupt_kernels``)
_WARM: dict[str, "_Warm"] = {}  # notebook path -> its kernel, started before it runs
_ZYGOTES: dict[str, "Zygote"] = {}  # notebooks' folder -> the process its keyless warm kernels are forked from


def _live():
    global _LIVE
    if _LIVE is None:
        import weakref

        _LIVE = weakref.WeakSet()
    return _LIVE


def interrupt_kernels() -> int:
    """Send SIGINT to every running stage's kernel and its process group (the calls it started, forked workers):
    the running cell raises KeyboardInterrupt there. Returns how many kernels were interrupted. A kernel prepared for
    a stage that has not started runs nothing to stop: the runner retires it on its way out."""
    n = 0
    for km in list(_live()):
        try:
            if km.has_kernel and not getattr(km, "warm", False):
                km.interrupt_kernel()
                n += 1
        except Exception:  # noqa: BLE001 - a kernel that just ended has nothing to interrupt
            continue
    return n


def kill_kernels() -> None:
    """SIGKILL every running stage's kernel process group (a second Ctrl-C): records are appended line by line, so a
    torn last line is all a kill can leave, and it is ignored on read (``collect.records``). Each goes through the
    kernel's checked handle (``sessions.OwnSession``, ``zygote.Forked``): the kernel's own session while its parent
    has not reaped it, and nothing else (a reaped kernel's pid, and so its group's, may be anyone's)."""
    import signal

    from helpers.core.sessions import OwnSession
    from helpers.core.zygote import Forked

    for km in list(_live()):
        try:
            process = km.provisioner.process if km.provisioner is not None else None
            if process is not None:
                (process if isinstance(process, (OwnSession, Forked))
                 else OwnSession(process)).send_signal(signal.SIGKILL)
            km.cleanup_connection_file()
            km.cleanup_ipc_files()  # its sockets (and empty log) in /tmp: nothing else would remove them
        except Exception:  # noqa: BLE001 - gone already
            continue


# What ipykernel prints when it starts with no parent process it knows of (a kernel forked from a zygote, which imported
# ipykernel before the kernel's parent was set): how to connect another client; a log holding only this said nothing.
CONNECT_BANNER = re.compile(r"(NOTE: When using the `ipython kernel` entry point.*?)?To connect another client to this "
                            r"kernel, use:\s+--existing \S+", re.S)


def said_nothing(log: Path) -> bool:
    """Whether a kernel's log file holds nothing but whitespace and ipykernel's connection banner (``CONNECT_BANNER``);
    a log of more than 64 KiB always said something."""
    if log.stat().st_size > 65536:
        return False
    return not CONNECT_BANNER.sub("", log.read_text(encoding="utf-8", errors="replace")).strip()


class _LocalKernel(_Manager):
    """What the stages' kernel manager adds to jupyter_client's (mixed in by ``kernel_manager_class``), through its
    public methods and attributes only: local sockets, a log file, no secrets where ``keys`` is False, and its
    ``provisioner`` (``stage_provisioner``), which forks the kernel from ``forked_from``'s zygote where it may."""

    keys = True
    forked_from: Path | None = None  # the notebooks' folder whose zygote forks this kernel where it holds no secret

    def __init__(self, **kwargs):
        import tempfile
        import uuid

        super().__init__(**kwargs)
        if os.name == "posix":
            self.transport = "ipc"
            self.ip = str(Path(tempfile.gettempdir()) / f"cost-of-pass-kernel-{uuid.uuid4().hex[:12]}")
        self.clients: list = []
        _live().add(self)

    def start_kernel(self, **kw):
        # the kernel process's own log (not the cells' output, which the notebook keeps) goes to a file beside its
        # sockets, not to the user's terminal: an interrupted kernel's messages are not the user's business
        if not self.keys:
            from helpers.core.redaction import without_secrets

            kw["env"] = without_secrets({**os.environ, **kw.get("env", {})})
        if self.provisioner is None:  # jupyter_client makes one from the kernelspec only where none is given
            self.provisioner = self.stage_provisioner(kw)
        with open(f"{self.ip}.log" if self.transport == "ipc" else os.devnull, "ab") as log:  # the child keeps a copy
            kw.setdefault("stderr", log)
            return super().start_kernel(**kw)

    def stage_provisioner(self, kw: dict):
        """This kernel's provisioner (``provisioner.StageProvisioner``): a fork of ``forked_from``'s zygote where the
        kernel holds no secret, else a process of its own; signalled through its checked handle either way."""
        import functools
        import uuid

        from helpers.core.provisioner import StageProvisioner

        self.kernel_id = self.kernel_id or kw.pop("kernel_id", None) or str(uuid.uuid4())
        made = StageProvisioner(kernel_id=self.kernel_id, kernel_spec=self.kernel_spec, parent=self)
        if self.forked_from is not None and _keyless(self):
            made.fork = functools.partial(_forked_kernel, self.forked_from)
        return made

    def client(self, **kwargs):
        made = super().client(**kwargs)
        self.clients.append(made)
        return made

    def cleanup_ipc_files(self):
        # with the sockets, the kernel's log when it said nothing but how to connect to it: litter in /tmp otherwise
        super().cleanup_ipc_files()
        log = Path(f"{self.ip}.log")
        if self.transport == "ipc" and log.exists() and said_nothing(log):
            log.unlink()

    def retire(self, now: bool = False) -> None:
        """Shut the kernel down with every client made for it (a kernel handed to papermill is not papermill's)."""
        for made in self.clients:
            made.stop_channels()
        self.clients.clear()
        try:
            if self.has_kernel:
                self.shutdown_kernel(now=now)
        finally:
            self.cleanup_resources()


def kernel_manager_class(keys: bool = True):
    """A kernel manager that talks to the kernel over local sockets (IPC) rather than TCP on 127.0.0.1: nothing
    listens on the network, and ipykernel has no "running over TCP without encryption" warning to print once
    per notebook. TCP where the platform has no Unix sockets. Without ``keys`` the kernel starts with no variable that
    holds a secret (``redaction.without_secrets``): only collection calls providers."""
    from jupyter_client.manager import KernelManager

    return type("IPCKernelManager", (_LocalKernel, KernelManager), {"keys": keys})


def notebook_modules(src: Path) -> list[str]:
    """The modules a notebook's code cells import at their top level, in order: ``import a.b`` gives ``a.b``,
    ``from a import b`` gives ``a`` and ``a.b`` (``a.b`` may be a name, not a module: the kernel skips what is not)."""
    import nbformat

    names: list[str] = []
    for cell in nbformat.read(src, as_version=4).cells:
        if cell.cell_type != "code":
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:  # a cell with IPython syntax: its imports are the notebook's own business
            continue
        for node in tree.body:
            if isinstance(node, ast.Import):
                names += [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names += [node.module, *(f"{node.module}.{a.name}" for a in node.names if a.name != "*")]
    return list(dict.fromkeys(names))


class _Warm:
    """A kernel started for one notebook and the thread importing that notebook's modules in it."""

    def __init__(self, src: Path, cwd: Path):
        self.km = kernel_manager_class(keys=src.stem in KEY_STAGES)(kernel_name=KERNEL)
        self.km.warm = True  # not running a stage yet (``interrupt_kernels``)
        self.km.forked_from = src.parent
        try:
            self.km.start_kernel(cwd=str(cwd), extra_arguments=["--HistoryManager.hist_file=:memory:"])
        except Exception:
            try:  # a kernel process that started but could not be reached is not left behind
                self.km.retire(now=True)
            finally:
                raise
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._preload, args=(notebook_modules(src),), daemon=True,
                                       name="warm-kernel")
        self.thread.start()

    def _preload(self, names: list[str]) -> None:
        """Import ``names`` in the kernel (silently, outside its history) and wait for the reply, so that the
        channels close clean; give up when retired or after ``PRELOAD_WAIT_S``."""
        import queue
        import time

        kc = self.km.client()
        kc.start_channels()
        try:
            kc.wait_for_ready(timeout=60)
            msg_id = kc.execute(PRELOAD.format(names=names), silent=True, store_history=False, allow_stdin=False)
            deadline = time.monotonic() + PRELOAD_WAIT_S
            while not self.stop.is_set() and time.monotonic() < deadline:
                try:
                    if kc.get_shell_msg(timeout=0.2)["parent_header"].get("msg_id") == msg_id:
                        return
                except queue.Empty:
                    continue
        except Exception:  # noqa: BLE001 - a warm start that failed leaves the notebook to import for itself
            return
        finally:
            kc.stop_channels()
            self.km.clients.remove(kc)

    def ready(self):
        """The kernel manager once the imports are done, or None (they failed to finish, or the kernel died)."""
        self.thread.join(PRELOAD_WAIT_S + 60)
        if self.thread.is_alive() or not self.km.is_alive():
            self.retire()
            return None
        self.km.warm = False
        return self.km

    def retire(self) -> None:
        self.stop.set()
        self.thread.join(5)
        self.km.retire(now=True)


def _keyless(km) -> bool:
    """Whether ``km``'s kernel holds no secret: started without keys, or the environment has none to give (then a key
    stage's kernel is the zygote's environment too)."""
    from helpers.core.redaction import without_secrets

    return not km.keys or without_secrets(dict(os.environ)) == dict(os.environ)


def _forked_kernel(folder: Path, cmd: list[str], kw: dict) -> int | None:
    """The pid of a kernel forked from ``folder``'s zygote (started now if it is not running) for the launch ``cmd``
    with ``kw`` (env, cwd, stderr), or None: not an ipykernel of this interpreter, forks turned off or impossible (no
    fork, or no pidfd to hold a kernel by: ``zygote.Forked``)."""
    from helpers.core import zygote
    from helpers.core.redaction import without_secrets

    argv = zygote.kernel_argv(cmd)
    if argv is None or os.environ.get(zygote.FORK_ENV) == "0" or not hasattr(os, "fork") or not zygote.can_hold():
        return None
    made = _ZYGOTES.get(str(folder))
    if made is None or not made.alive():
        import atexit

        atexit.unregister(stop_zygotes)
        atexit.register(stop_zygotes)  # once, however many zygotes this process starts
        stages = sorted(p for p in folder.glob("*.ipynb") if p.stem not in KEY_STAGES)
        modules = list(dict.fromkeys(m for p in stages for m in notebook_modules(p)))
        made = _ZYGOTES[str(folder)] = zygote.Zygote(modules, without_secrets(dict(os.environ)),
                                                     Path(kw.get("cwd") or "."))
    log = getattr(kw.get("stderr"), "name", None)
    return made.fork(argv, dict(kw.get("env") or {}), str(kw.get("cwd") or os.getcwd()),
                     log if isinstance(log, str) else None)


def stop_zygotes() -> None:
    """Stop every zygote (at exit; kernels forked from one are shut down by their managers)."""
    while _ZYGOTES:
        _ZYGOTES.popitem()[1].stop()


def prepare(src: Path, cwd: Path) -> None:
    """Start ``src``'s kernel now (in ``cwd``, with keys only for a key stage) and import its modules in the
    background; a kernel prepared earlier for another notebook is retired. Nothing is started under ``COLD_ENV``."""
    retire()
    if os.environ.get(COLD_ENV) == "1":
        return
    try:
        _WARM[str(src)] = _Warm(src, cwd)
    except Exception:  # noqa: BLE001 - no warm start: the stage starts its own kernel and says what fails there
        return


def take(src: Path, cwd: Path | None = None):
    """The kernel prepared for ``src`` once its imports are done; with none prepared, one started now (in ``cwd``,
    given: a fork of the zygote costs little) or None; the caller retires it (``retire`` on the manager) when the
    notebook is done."""
    if str(src) not in _WARM and cwd is not None:
        prepare(src, cwd)
    warm = _WARM.pop(str(src), None)
    return warm.ready() if warm is not None else None


def retire() -> None:
    """Shut down every prepared kernel no stage took."""
    while _WARM:
        _WARM.popitem()[1].retire()
