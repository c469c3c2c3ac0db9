"""Progress bars that reach the terminal: a stage's tqdm bar runs inside a notebook's kernel, where the runner
cannot see it, so each refresh also writes (what, done, total) to a small JSON file the runner names in
``COP_PROGRESS_FILE``; the runner redraws it as its own bar (``watch``) while the notebook runs.
"""

from __future__ import annotations

import json
import os
import threading
from contextlib import contextmanager
from pathlib import Path

from tqdm import tqdm

PROGRESS_ENV = "COP_PROGRESS_FILE"


def _write(path: str, desc: str, n: float, total: float | None, unit: str) -> None:
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump({"desc": desc, "n": n, "total": total, "unit": unit}, fh)
    os.replace(tmp, path)  # the runner never reads half a file


class _Mirrored(tqdm):
    """A tqdm bar whose every refresh is also written to the file ``COP_PROGRESS_FILE`` names."""

    def display(self, msg=None, pos=None):
        path = os.environ.get(PROGRESS_ENV)
        if path:
            d = self.format_dict
            try:
                _write(path, self.desc, d["n"], d["total"], d["unit"])
            except OSError:
                pass  # a progress display is never worth failing a stage for
        return super().display(msg, pos)

    def close(self):
        if not self.disable:
            self.refresh()  # the last count reaches the file too
        super().close()


def progress_bar(iterable=None, **kwargs) -> tqdm:
    """``tqdm(iterable, **kwargs)``, mirrored to the runner's terminal when it watches (``watch``)."""
    kwargs.setdefault("mininterval", 1.0)
    return _Mirrored(iterable, **kwargs)


@contextmanager
def watch(path: Path, interval_s: float = 0.5):
    """While the block runs, redraw the bar a stage writes to ``path`` (``COP_PROGRESS_FILE`` is set to it) on
    the terminal's stderr; nothing where stderr is not a terminal (logs stay one line per stage)."""
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
                bar = state["bar"] = tqdm(total=seen["total"], desc=seen["desc"], unit=seen["unit"], leave=False,
                                          disable=None, dynamic_ncols=True)  # None: off where stderr is no terminal
                state["desc"] = seen["desc"]
            bar.total = seen["total"]
            bar.n = seen["n"]
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
