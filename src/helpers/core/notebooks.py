"""Executing a notebook with papermill for a parameter set (the pipeline's stages and the report)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from helpers.core.errors import CostOfPassError
from helpers.core.paths import repo_root

KERNEL = "cost-of-pass"
_LIVE = None  # a weakref.WeakSet of the kernel managers of the notebooks running now (``interrupt_kernels``)


def _live():
    global _LIVE
    if _LIVE is None:
        import weakref

        _LIVE = weakref.WeakSet()
    return _LIVE


def interrupt_kernels() -> int:
    """Send SIGINT to every running stage's kernel and its process group (the calls it started, forked workers):
    the running cell raises KeyboardInterrupt there. Returns how many kernels were interrupted."""
    n = 0
    for km in list(_live()):
        try:
            if km.has_kernel:
                km.interrupt_kernel()
                n += 1
        except Exception:  # noqa: BLE001 - a kernel that just ended has nothing to interrupt
            continue
    return n


def kill_kernels() -> None:
    """SIGKILL every running stage's kernel process group (a second Ctrl-C): records are appended line by line, so a
    torn last line is all a kill can leave, and it is ignored on read (``collect.records``)."""
    import signal

    for km in list(_live()):
        try:
            pid = km.provisioner.process.pid if km.provisioner is not None else None
            if pid:
                os.killpg(os.getpgid(pid), signal.SIGKILL)
        except Exception:  # noqa: BLE001 - gone already
            continue


class Interrupted(CostOfPassError):
    """A stage stopped by Ctrl-C or SIGTERM (exit status 130)."""


def _kernel_manager_class(keys: bool = True):
    """A kernel manager that talks to the kernel over local sockets (IPC) rather than TCP on 127.0.0.1: nothing
    listens on the network, and ipykernel has no "running over TCP without encryption" warning to print once
    per notebook. TCP where the platform has no Unix sockets. Without ``keys`` the kernel starts with no variable that
    holds a secret (``redaction.without_secrets``): only collection calls providers."""
    import tempfile
    import uuid

    from jupyter_client.manager import KernelManager

    class IPCKernelManager(KernelManager):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.transport = "ipc"
            self.ip = str(Path(tempfile.gettempdir()) / f"cost-of-pass-kernel-{uuid.uuid4().hex[:12]}")
            _live().add(self)

        def start_kernel(self, **kw):
            # the kernel process's own log (not the cells' output, which the notebook keeps) goes to a file beside its
            # sockets, not to the user's terminal: an interrupted kernel's messages are not the user's business
            if not keys:
                from helpers.core.redaction import without_secrets

                kw["env"] = without_secrets({**os.environ, **kw.get("env", {})})
            with open(f"{self.ip}.log", "ab") as log:  # the child keeps its own copy of the descriptor
                kw.setdefault("stderr", log)
                return super().start_kernel(**kw)

        def cleanup_ipc_files(self):
            # with the sockets, the kernel's log when it said nothing: an empty file per kernel is litter in /tmp
            super().cleanup_ipc_files()
            log = Path(f"{self.ip}.log")
            if log.exists() and log.stat().st_size == 0:
                log.unlink()

    return IPCKernelManager if os.name == "posix" else KernelManager


def summary_path(output_path: Path, stage: str) -> Path:
    """Where a stage notebook leaves the one line the runner prints after it (``write_summary``)."""
    return output_path / "notebooks" / f"{stage}.summary.txt"


def write_summary(output_path: Path, stage: str, text: str) -> None:
    """A stage's one-line account of what it did (e.g. calls made, attempts graded), for the runner's line."""
    path = summary_path(output_path, stage)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(" ".join(text.split()) + "\n", encoding="utf-8")


def notes_path(output_path: Path, stage: str) -> Path:
    """Where a stage leaves lines the runner prints below its one-line summary (``write_notes``)."""
    return output_path / "notebooks" / f"{stage}.notes.txt"


def write_notes(output_path: Path, stage: str, notes: list[str]) -> None:
    """Lines the terminal must show after the stage (e.g. each run an import dropped, with its file and line)."""
    path = notes_path(output_path, stage)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(" ".join(n.split()) + "\n" for n in notes), encoding="utf-8")


KEY_STAGES = ("01_collect",)  # the only stage whose kernel may hold provider keys


def execute_notebook(src: Path, dst: Path, params_path: Path, log_output: bool = False, extra: dict | None = None) -> None:
    """Execute one notebook with papermill for a parameter set; raise one line naming the executed copy.

    Like ``papermill -f params/<set>.yaml``: the set's keys are the notebook's parameters (plus
    ``params_file``, where they came from, and ``extra``). The kernel is ``cost-of-pass`` from this environment;
    only a stage of ``KEY_STAGES`` gets the environment's provider keys.
    """
    import json
    import logging

    import papermill as pm
    import yaml

    logging.getLogger("papermill").setLevel(logging.ERROR)  # the set's keys are all passed, by design
    os.environ.setdefault("JUPYTER_PATH", str(Path(sys.prefix) / "share" / "jupyter"))
    parameters = {**yaml.safe_load(params_path.read_text()), "params_file": str(params_path), **(extra or {})}
    parameters = json.loads(json.dumps(parameters, default=str))  # YAML dates (prices.as_of) as ISO text: papermill writes JSON
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        pm.execute_notebook(str(src), str(dst), parameters=parameters, cwd=str(repo_root()), kernel_name=KERNEL,
                            log_output=log_output, progress_bar=False,
                            kernel_manager_class=_kernel_manager_class(keys=src.stem in KEY_STAGES))
    except pm.PapermillExecutionError as err:
        if err.ename == "KeyboardInterrupt":
            raise Interrupted(f"stopped during {src.stem}") from None
        raise CostOfPassError(f"notebook {src.stem} failed ({err.ename}: {err.evalue}); see {dst}") from None
    except Exception as err:
        raise CostOfPassError(f"notebook {src.stem} failed ({type(err).__name__}: {err}); see {dst}") from None


