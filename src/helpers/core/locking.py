"""One collector per output directory: an OS file lock (``filelock``) with a note naming its holder.

The lock is an ``flock`` on ``<output_dir>/.collect.lock``: the kernel releases it when the holder
exits, even by ``kill -9``, so a stale lock never blocks the next run. The holder writes who it is
(pid, host, start time, command) to ``.collect.lock.holder`` for the message a second run prints.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from helpers.core.errors import CostOfPassError


@contextmanager
def output_lock(output_dir: Path):
    """Hold the collection lock of ``output_dir``; raise one line naming the holder if it is taken."""
    output_dir.mkdir(parents=True, exist_ok=True)
    lock = FileLock(output_dir / ".collect.lock", timeout=0)
    note = output_dir / ".collect.lock.holder"
    try:
        lock.acquire()
    except Timeout:
        raise CostOfPassError(f"{output_dir} is being collected by another run ({holder(note)}); wait for it to "
                              "finish or stop it, then rerun") from None
    try:
        note.write_text(json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                                    "since": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                                    "command": " ".join(sys.argv)[:200]}))
        yield
    finally:
        note.unlink(missing_ok=True)
        lock.release()


def holder(note: Path) -> str:
    """Who holds a lock, from its note: ``pid N on HOST since T: COMMAND``."""
    try:
        h = json.loads(note.read_text())
        return f"pid {h['pid']} on {h['host']} since {h['since']}: {h['command']}"
    except (OSError, ValueError, KeyError):
        return "holder unknown"
