"""Progress bars that reach the terminal: a stage's tqdm bar runs inside a notebook's kernel, where the runner
cannot see it, so each refresh also writes (what, done, total) to a small JSON file the runner names in
``COP_PROGRESS_FILE``; the runner redraws it as its own bar (``watch``) while the notebook runs.
"""

from __future__ import annotations

import functools
import json
import os
import threading
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

from tqdm import tqdm

PROGRESS_ENV = "COP_PROGRESS_FILE"


def _write(path: str, desc: str, n: float, total: float | None, unit: str, postfix: str) -> None:
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump({"desc": desc, "n": n, "total": total, "unit": unit, "postfix": postfix}, fh)
    os.replace(tmp, path)  # the runner never reads half a file


class _Mirrored(tqdm):
    """A tqdm bar whose every refresh is also written to the file ``COP_PROGRESS_FILE`` names; ``live_postfix``,
    a function, gives the text after the counts at each refresh (the spend so far)."""

    def __init__(self, *args, live_postfix: Callable[[], str] | None = None, **kwargs):
        self._live_postfix = live_postfix
        super().__init__(*args, **kwargs)

    def display(self, msg=None, pos=None):
        if self._live_postfix is not None:
            self.postfix = self._live_postfix()
        path = os.environ.get(PROGRESS_ENV)
        if path:
            d = self.format_dict
            try:
                _write(path, self.desc, d["n"], d["total"], d["unit"], self.postfix or "")
            except OSError:
                pass  # a progress display is never worth failing a stage for
        return super().display(msg, pos)

    def close(self):
        if not self.disable:
            self.refresh()  # the last count reaches the file too
        super().close()


@functools.cache
def _devnull():
    return open(os.devnull, "w", encoding="utf-8")  # one per process, open while it runs


def progress_bar(iterable=None, **kwargs) -> tqdm:
    """``tqdm(iterable, **kwargs)``, mirrored to the runner's terminal when it watches (``watch``); ``live_postfix``:
    a function giving the text after the counts (e.g. the USD spent) at each refresh."""
    kwargs.setdefault("mininterval", 1.0)
    if os.environ.get(PROGRESS_ENV):  # the runner draws it: none in the executed notebook's output
        kwargs.setdefault("file", _devnull())
    return _Mirrored(iterable, **kwargs)


def terminal_size() -> tuple[int, int]:
    """(columns, rows) of the terminal on stderr; (100, 20) for a size it does not report: tqdm would draw nothing
    in a pseudo-terminal of size 0x0 (it reads -1 rows)."""
    try:
        columns, rows = os.get_terminal_size(2)
    except OSError:
        columns, rows = 0, 0
    return (columns if columns > 0 else 100), (rows if rows > 0 else 20)


@contextmanager
def watch(path: Path, interval_s: float = 0.5, stage: str = ""):
    """While the block runs, redraw the bar a stage writes to ``path`` (``COP_PROGRESS_FILE`` is set to it) on
    the terminal's stderr, headed by ``stage``; nothing where stderr is not a terminal (logs stay one line per
    stage)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    before = os.environ.get(PROGRESS_ENV)
    os.environ[PROGRESS_ENV] = str(path)
    stop = threading.Event()
    state: dict = {}

    def poll():
        while not stop.wait(interval_s):
            try:
                seen = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            bar = state.get("bar")
            if bar is None or state["desc"] != seen["desc"]:  # a stage's next bar
                if bar is not None:
                    bar.close()
                bar = state["bar"] = tqdm(total=seen["total"],
                                          desc=f"{stage} {seen['desc']}".strip(), unit=seen["unit"],
                                          initial=seen["n"],  # its rate counts from here, not from zero at once
                                          leave=False, disable=None)  # None: off where stderr is no terminal
                state["desc"] = seen["desc"]
            bar.total, bar.n, (bar.ncols, bar.nrows) = seen["total"], seen["n"], terminal_size()
            bar.postfix = seen.get("postfix") or None
            bar.refresh()

    thread = threading.Thread(target=poll, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        if state.get("bar") is not None:
            state["bar"].close()
        if before is None:
            os.environ.pop(PROGRESS_ENV, None)
        else:
            os.environ[PROGRESS_ENV] = before
        try:
            path.unlink(missing_ok=True)
        except OSError:  # the output directory turned read-only or vanished: the stage's own error says so
            pass
