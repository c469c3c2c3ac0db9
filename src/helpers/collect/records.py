"""The record store: one JSON line per call, append-only, resumable.

Layout: ``<set>/records/<task>/<model>.jsonl``. A record is written and flushed to the OS as soon
as its call is acknowledged (so a crash of the process loses nothing acknowledged) and fsynced at
least every ``fsync_every_s`` seconds and on close (so does a crash of the machine, but for the last
seconds). A torn last line left by a crash is ignored on read and cut off before the next append.
Failed calls are records too (``status = "error"``); a later successful record of the same call
supersedes them.

A record's identity is its call key plus its ``fingerprint``: a hash of everything that determines
the response (litellm model id, sampling arguments, prompt, method, call index, and for in-process
backends their seed and weights or profile). Collection reuses a record only when both match, so a
set with other settings makes new calls while the old records stay on disk, unread.
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

import pandas as pd

from helpers.core.errors import CostOfPassError

if TYPE_CHECKING:
    from helpers.core.params import Params
from helpers.core.redaction import redact

CALL = ("task", "problem_id", "model", "method", "run", "call")
KEY = (*CALL, "fingerprint")  # a record is reused only when the fingerprint matches too


@dataclass
class CallRecord:
    """One call. Token counts are the provider's (``completion_tokens`` includes reasoning tokens)."""

    task: str
    problem_id: str
    model: str
    method: str
    run: int
    call: int
    litellm_model: str
    prompt_hash: str
    status: str  # "ok" | "error"
    fingerprint: str = ""
    response: str | None = None
    finish_reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    latency_s: float = 0.0
    tries: int = 1
    error: str | None = None
    unusable: bool = False  # the provider replied (and may have billed) but the reply cannot be used
    sampling: dict[str, Any] = field(default_factory=dict)
    simulated: bool = False
    created_at: str = ""

    @property
    def key(self) -> tuple:
        return tuple(getattr(self, k) for k in KEY)


COLUMNS = list(CallRecord.__dataclass_fields__)


class RecordStore:
    """Append-only JSONL shards under ``root``; safe to append from several threads."""

    def __init__(self, root: Path, fsync_every_s: float = 2.0):
        self.root = Path(root)
        self.fsync_every_s = fsync_every_s
        self._lock = threading.Lock()
        self._handles: dict[Path, Any] = {}
        self._last_sync = time.monotonic()

    def shard(self, task: str, model: str) -> Path:
        return self.root / task / f"{model}.jsonl"

    def append(self, record: CallRecord) -> None:
        """Write one record; when this returns the record survives a crash of this process."""
        if record.error:
            record.error = redact(record.error)
        if record.response:
            record.response = redact(record.response)
        if not record.created_at:
            record.created_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        # ASCII escapes: a lone surrogate in a reply is written as \\udXXX instead of failing to encode
        line = json.dumps(asdict(record), ensure_ascii=True, sort_keys=True) + "\n"
        path = self.shard(record.task, record.model)
        with self._lock:
            fh = self._handles.get(path) or self._open(path)
            fh.write(line)
            fh.flush()
            if time.monotonic() - self._last_sync >= self.fsync_every_s:
                self._sync_all()

    def _open(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            _drop_torn_tail(path)  # a crash cut the last line: it was never acknowledged
        fh = path.open("a", encoding="utf-8")
        self._handles[path] = fh
        return fh

    def _sync_all(self) -> None:
        for fh in self._handles.values():
            fh.flush()
            os.fsync(fh.fileno())
        self._last_sync = time.monotonic()

    def close(self) -> None:
        with self._lock:
            self._sync_all()
            for fh in self._handles.values():
                fh.close()
            self._handles.clear()

    def __enter__(self) -> "RecordStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---- reading --------------------------------------------------------------------------
    def shards(self) -> list[Path]:
        return sorted(self.root.glob("*/*.jsonl")) if self.root.is_dir() else []

    def iter_records(self) -> Iterable[dict[str, Any]]:
        """Every record of every shard; a corrupt line raises one line naming the file and line."""
        for path in self.shards():
            with path.open(encoding="utf-8", errors="surrogateescape") as fh:
                for i, line in enumerate(fh, 1):
                    if not line.endswith("\n"):
                        break  # torn last line of a crashed write: not acknowledged
                    if line.strip():
                        try:
                            record = json.loads(line)
                        except json.JSONDecodeError as err:
                            raise CostOfPassError(f"{path} line {i}: corrupt record ({err.msg}); move the line "
                                                  "aside or delete it to collect that call again") from None
                        if not isinstance(record, dict) or any(k not in record for k in CALL):
                            raise CostOfPassError(f"{path} line {i}: not a call record (fields {', '.join(CALL)} needed)")
                        yield record

    def load(self) -> pd.DataFrame:
        """All records, one row per record (superseded failures included), in COLUMNS order."""
        rows = list(self.iter_records())
        df = pd.DataFrame(rows, columns=COLUMNS) if rows else pd.DataFrame(columns=COLUMNS)
        df["fingerprint"] = df["fingerprint"].fillna("")  # records made before fingerprints: never reused
        df["unusable"] = df["unusable"].fillna(False).astype(bool)
        return df

    def latest(self) -> pd.DataFrame:
        """One row per call key: its successful record if any, else its last failure."""
        df = self.load()
        if df.empty:
            return df
        df["_ok"] = df["status"].eq("ok")
        df["_order"] = range(len(df))
        df = df.sort_values(["_ok", "_order"]).drop_duplicates(list(KEY), keep="last")
        return df.drop(columns=["_ok", "_order"]).sort_values(list(KEY)).reset_index(drop=True)

    def done(self) -> dict[tuple, dict[str, Any]]:
        """Successful records by (call key, fingerprint): the calls collection must not make again."""
        return {tuple(r.get(k) or "" if k == "fingerprint" else r[k] for k in KEY): r
                for r in self.iter_records() if r["status"] == "ok"}


def _drop_torn_tail(path: Path) -> None:
    """Truncate a shard after its last newline (drops a partial line left by a crash)."""
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with path.open("r+b") as fh:
            fh.truncate(data.rfind(b"\n") + 1)


def move_records_aside(params: Params) -> Path | None:
    """Before a re-collection: move the set's records to ``records.previous/`` (replacing an older copy)."""
    import shutil

    from helpers.core.locking import output_lock

    src = params.records_path
    if not src.is_dir():
        return None
    dst = src.with_name("records.previous")
    with output_lock(params.output_path):  # not while another run collects into them
        shutil.rmtree(dst, ignore_errors=True)
        src.rename(dst)
    return dst
