"""The sandbox's verdict cache: data, not trust.

One JSON line per verdict, appended (``results/<set>/graded/sandbox_verdicts.jsonl``, which no graded program can
see; a shard's run, ``--shard i/N``, appends to ``graded/shard-i-of-N/sandbox_verdicts.jsonl``, which the whole set's
grading reads too): ``key`` (``sandbox.job_key``: the program, its tests, the limits, the boundary, the interpreter's
version and the rules' version), ``passed``, ``reason``, ``cpu_s`` (the program's CPU seconds), ``harness`` (split
or whole), ``isolation`` (bwrap or none) and ``mac``, an HMAC-SHA256 of the rest under a key kept per checkout
(``.cop-grader-key``, mode 0600, made on first use). A line that is not such an object — a torn tail, a non-UTF-8
byte, a string where a bool belongs, a row whose MAC does not match — is not used: its program is graded again, and one
warning counts what was skipped. Only final verdicts are written (never a backstop kill or a lost worker).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import secrets
from pathlib import Path
from typing import Iterable

from helpers.core.paths import repo_root

log = logging.getLogger(__name__)
KEY_FILE = ".cop-grader-key"
_FIELDS: dict[str, type | tuple[type, ...]] = {"key": str, "passed": bool, "reason": str, "cpu_s": (int, float),
                                               "harness": str, "isolation": str}


def checkout_key(root: Path | None = None) -> bytes:
    """This checkout's HMAC key (32 random bytes), made on first use, readable by its owner only. Made under an
    exclusive lock (``KEY_FILE``.lock), so processes grading at once share one key; every file is opened without
    following a symbolic link and a new one with ``O_EXCL``, so nothing planted at either path receives the key or
    supplies one; a key file another user can read, or that is not a regular file, is refused with one line."""
    import fcntl

    path = (root or repo_root()) / KEY_FILE
    lock = os.open(path.with_name(KEY_FILE + ".lock"), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        key = _read_key(path)
        if key is None:
            key = secrets.token_bytes(32)
            tmp = path.with_name(f"{KEY_FILE}.{secrets.token_hex(8)}.tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(key)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        return key
    finally:
        os.close(lock)  # releases the lock


def _read_key(path: Path) -> bytes | None:
    """The key in ``path`` (32 bytes), or None where there is none yet or it is not 32 bytes long (made again)."""
    import stat

    from helpers.core.errors import CostOfPassError

    try:
        # a FIFO planted there does not wait for a writer
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as e:  # ELOOP: a symbolic link where the key belongs
        raise CostOfPassError(f"{path}: not a regular file ({e.strerror}); remove it "
                              "and the grader makes a new key") from None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode) or st.st_mode & 0o077 or st.st_uid != os.geteuid():
            raise CostOfPassError(f"{path}: the grader's key must be a regular file of this user readable by it alone "
                                  "(mode 0600); remove it and the grader makes a new one")
        key = fh.read(33)
    return key if len(key) == 32 else None


def _mac(key: bytes, row: dict) -> str:
    body = json.dumps({k: row[k] for k in _FIELDS}, sort_keys=True, separators=(",", ":"))
    return hmac.new(key, body.encode(), hashlib.sha256).hexdigest()


def valid(row, key: bytes) -> bool:
    """A row the grader wrote: an object with every field of the right type and a MAC that matches."""
    if type(row) is not dict or type(row.get("mac")) is not str:
        return False
    for name, kind in _FIELDS.items():
        value = row.get(name)
        if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
            return False
    return row["harness"] in ("split", "whole") and row["isolation"] in ("bwrap", "none") and row["cpu_s"] >= 0 \
        and hmac.compare_digest(row["mac"], _mac(key, row))


class VerdictCache:
    """Cached verdicts by key (rows as dicts of ``_FIELDS``); ``path`` None keeps them in memory only."""

    def __init__(self, path: Path | None, key: bytes | None = None):
        self.path, self.known, self.skipped = path, {}, 0
        self._key = key if key is not None else checkout_key()
        # the secret the hidden tests' random inputs are drawn under (``sandbox.Sandbox``): this checkout's, so a re-run
        # draws the same ones, and no program can (the key is out of its sight)
        self.draw_secret = hmac.new(self._key, b"the hidden tests' random inputs", hashlib.sha256).digest()
        if path is None:
            return
        # the shards' caches beside it (``graded/shard-i-of-N/``, read only): what the shards judged is not judged again
        for raw in (line for p in [path, *sorted(path.parent.glob(f"shard-*/{path.name}"))] if p.is_file()
                    for line in p.read_bytes().splitlines()):
            try:
                row = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError, RecursionError):
                row = None
            if valid(row, self._key):
                self.known[row["key"]] = {k: row[k] for k in _FIELDS}
            elif raw.strip():
                self.skipped += 1
        if self.skipped:
            log.warning("%s: %d line(s) are not verdicts this checkout's grader wrote; their programs are graded again",
                        path, self.skipped)

    def add(self, rows: Iterable[dict]) -> None:
        rows = [{k: r[k] for k in _FIELDS} for r in rows]
        self.known.update((r["key"], r) for r in rows)
        if self.path is None or not rows:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a+b") as fh:
            if fh.seek(0, os.SEEK_END):
                fh.seek(-1, os.SEEK_END)
                if fh.read(1) != b"\n":
                    fh.write(b"\n")  # a torn last line gets its end, so no new row joins it
            for r in rows:
                fh.write((json.dumps({**r, "mac": _mac(self._key, r)}) + "\n").encode("utf-8"))
