"""One collector per output directory: an OS file lock (``filelock``) with a note naming its holder.

The lock is an ``flock`` on ``<output_dir>/.collect.lock``: the kernel releases it when the holder
exits, even by ``kill -9``, so a stale lock never blocks the next run. The holder writes who it is
(pid, host, start time, command) to ``.collect.lock.holder`` for the message a second run prints.

Shards of a set (``--shard i/N``, ``core.shards``) collect into one folder at once: each holds ``.collect.lock``
shared (an ``flock`` ``LOCK_SH``, which the whole set's exclusive lock excludes both ways) and its own
``.collect.shard-i-of-N.lock`` exclusive, so shards run side by side, a shard never runs twice at once, and a run of the
whole set waits for no shard: it refuses to start while any holds the folder, naming them.
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
from helpers.core.shards import Shard


@contextmanager
def output_lock(output_dir: Path, part: Shard | None = None):
    """Hold the collection lock of ``output_dir`` (``part``: a shard's, beside the other shards'); raise one line
    naming the holder if it is taken."""
    if part is None:
        with _exclusive(output_dir, output_dir / ".collect.lock"):
            yield
        return
    import fcntl

    output_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(output_dir / ".collect.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            raise CostOfPassError(f"{output_dir} is being collected by another run ({holders(output_dir)}); wait "
                                  "for it to finish or stop it, then rerun") from None
        with _exclusive(output_dir, output_dir / f".collect.{part.label}.lock"):
            yield
    finally:
        os.close(fd)  # releases the shared lock


@contextmanager
def _exclusive(output_dir: Path, path: Path):
    """Hold ``path`` exclusively, its holder's note beside it; one line naming the holders if it is taken."""
    output_dir.mkdir(parents=True, exist_ok=True)
    lock = FileLock(path, timeout=0)
    note = path.with_name(path.name + ".holder")
    try:
        lock.acquire()
    except Timeout:
        raise CostOfPassError(f"{output_dir} is being collected by another run ({holders(output_dir, note)}); wait "
                              "for it to finish or stop it, then rerun") from None
    try:
        note.write_text(json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                                    "since": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                                    "command": " ".join(sys.argv)[:200]}))
        yield
    finally:
        note.unlink(missing_ok=True)
        lock.release()


def holders(output_dir: Path, note: Path | None = None) -> str:
    """Who holds ``note``'s lock, or (without it, or where it names no one) the folder's locks: the whole set's and
    every shard's (``holder``), ``;``-separated."""
    notes = [note] if note is not None and note.is_file() else sorted(output_dir.glob(".collect*.lock.holder"))
    return "; ".join(holder(n) for n in notes) or "holder unknown"


def holder(note: Path) -> str:
    """Who holds a lock, from its note: ``pid N on HOST since T: COMMAND``."""
    try:
        h = json.loads(note.read_text())
        return f"pid {h['pid']} on {h['host']} since {h['since']}: {h['command']}"
    except (OSError, ValueError, KeyError):
        return "holder unknown"
