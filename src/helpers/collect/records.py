"""The record store: one JSON line per call, append-only, resumable.

Layout: ``<set>/records/<task>/<model>.jsonl``; a shard's run (``--shard i/N``, ``core.shards``) writes
``<model>.shard-i-of-N.jsonl`` instead, and every read takes all of a model's files, a record found in two of them
(the same call key, fingerprint, status and time) once. A record is written and flushed to the OS as soon
as its call is acknowledged (so a crash of the process loses nothing acknowledged) and fsynced at
least every ``fsync_every_s`` seconds and on close (so does a crash of the machine, but for the last
seconds). A torn last line left by a crash is ignored on read and cut off before the next append.
Failed calls are records too (``status = "error"``); a later successful record of the same call
supersedes them.

A record's identity is its call key plus its ``fingerprint``: a hash of everything that determines
the response (litellm model id, sampling arguments, prompt, method, call index, and for in-process
backends their seed and weights or profile). Collection reuses a record only when both match, so a
set with other settings makes new calls while the old records stay on disk, unread.

A record's fields, their types and units, and the migration of every older shape of record are the schema's
(``collect.schema``): every line is migrated to the newest version and checked as it is read, and a line that does not
fit stops the read with one line naming the file and line.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from helpers.collect.schema import CALL, FIELDS, KEY, SCHEMA_VERSION, CallRecord, SchemaError, upgrade
from helpers.core.errors import CostOfPassError
from helpers.core.shards import Shard, record_model

if TYPE_CHECKING:
    from helpers.core.params import Params
from helpers.core.redaction import Redactor

# the frame's columns: every field but ``schema_version`` (a frame holds records of the newest schema only)
COLUMNS = [f for f in FIELDS if f != "schema_version"]


class RecordStore:
    """Append-only JSONL shards under ``root``; safe to append from several threads. ``part``: the shard of the set's
    calls this store writes (its own files, ``core.shards``); it reads every file whatever ``part``."""

    def __init__(self, root: Path, fsync_every_s: float = 2.0, part: Shard | None = None):
        self.root = Path(root)
        self.part = part
        self.fsync_every_s = fsync_every_s
        self._lock = threading.Lock()
        self._handles: dict[tuple[str, str], Any] = {}
        self._last_sync = time.monotonic()
        self._redact = Redactor()  # the secrets in the environment now (the collection sets them first)

    def shard(self, task: str, model: str) -> Path:
        """The file this store appends a (task, model)'s records to."""
        return self.root / task / f"{model}{'.' + self.part.label if self.part else ''}.jsonl"

    def append(self, record: CallRecord) -> None:
        """Write one record; when this returns the record survives a crash of this process."""
        if record.error:
            record.error = self._redact(record.error)
        if record.response:
            record.response = self._redact(record.response)
        if not record.created_at:
            record.created_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        # ASCII escapes: a lone surrogate in a reply is written as \\udXXX instead of failing to encode
        line = json.dumps(record.as_dict(), ensure_ascii=True, sort_keys=True) + "\n"
        with self._lock:
            fh = self._handles.get((record.task, record.model)) or self._open(record.task, record.model)
            fh.write(line)
            fh.flush()
            if time.monotonic() - self._last_sync >= self.fsync_every_s:
                self._sync_all()

    def _open(self, task: str, model: str):
        path = self.shard(task, model)
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            _drop_torn_tail(path)  # a crash cut the last line: it was never acknowledged
        fh = path.open("a", encoding="utf-8")
        self._handles[(task, model)] = fh
        return fh

    def _sync_all(self) -> None:
        for fh in self._handles.values():
            fh.flush()
            os.fsync(fh.fileno())
        self._last_sync = time.monotonic()

    def sync(self) -> None:
        """Flush and fsync every open shard now: what was appended survives a crash of the machine."""
        with self._lock:
            self._sync_all()

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

    def snapshot(self, task: str, model: str) -> None:
        """Parse a shard's new lines into its parquet snapshot now (``read_shard``): a forked collector does it for
        the shards it wrote, in parallel, so the next ``load`` reads snapshots only."""
        path = self.shard(task, model)
        if path.is_file():
            read_shard(path, self.root / SNAPSHOT / task / f"{model}.parquet", ["status"])

    def load(self, columns: list[str] | None = None, only: set[tuple[str, str]] | None = None) -> pd.DataFrame:
        """All records (``only``: of these (task, model) shards), one row per record (superseded failures included),
        in COLUMNS order.

        ``sampling`` is the JSON text of the sampling arguments. Each shard is parsed once: its rows
        are kept in a parquet snapshot beside it (``.snapshot/<task>/<model>.parquet``, with the byte
        offset parsed), so a later read parses only the lines appended since, and reads only ``columns``
        from the snapshot (a collection with nothing to do never holds the responses in memory).
        """
        paths = [p for p in self.shards() if only is None or (p.parent.name, record_model(p.stem)) in only]
        files = [(p.parent.name, record_model(p.stem)) for p in paths]
        merged = len(set(files)) < len(files)  # a model's records in several files (shards' runs): read as one
        wanted = columns if columns is None or not merged else list(dict.fromkeys([*columns, *IDENTITY]))
        frames = [read_shard(path, self.root / SNAPSHOT / path.parent.name / f"{path.stem}.parquet", wanted)
                  for path in paths]
        frames = [f for f in frames if not f.empty]
        df = pd.concat(frames, ignore_index=True) if frames else _frame([])
        if merged and not df.empty:
            df = df.drop_duplicates(IDENTITY, ignore_index=True)
        return df[columns] if columns else df

    def latest(self, columns: list[str] | None = None, sort: bool = True, only: set[tuple[str, str]] | None = None
               ) -> pd.DataFrame:
        """One row per call key: its successful record if any, else its last failure (sorted by key
        unless ``sort`` is false; ``only``: of these (task, model) shards)."""
        import pyarrow.compute as pc

        df = self.load(None if columns is None else list(dict.fromkeys([*KEY, "status", *columns])), only)
        if df.empty:
            return df
        keys = pa.array(key_strings(df), type=pa.large_string())
        if len(pc.unique(keys)) < len(keys):  # a failure superseded by a later success, or failed twice
            order = np.lexsort((np.arange(len(df)), df["status"].eq("ok").to_numpy()))
            keep = ~pd.Series(keys.take(order)).duplicated(keep="last").to_numpy()
            df = df.iloc[order[keep]]
        return df.sort_values(list(KEY)).reset_index(drop=True) if sort else df.reset_index(drop=True)

    def done(self, responses: bool = False, only: set[tuple[str, str]] | None = None) -> pd.DataFrame:
        """The keys (KEY columns) of the successful records, the calls not to make again; with ``responses``,
        their response texts too (``only``: of these (task, model) shards)."""
        df = self.load([*KEY, "status", *(["response"] if responses else [])], only)
        return df[df["status"].eq("ok")].drop(columns=["status"]).reset_index(drop=True)


def key_strings(frame: pd.DataFrame) -> pd.Series:
    """One string per row of a frame with the KEY columns (vectorised): to match keys with ``keys_in``."""
    out = frame[KEY[0]].astype(str)
    for k in KEY[1:]:
        out = out + "\x1f" + frame[k].astype(str)
    return out


def keys_in(keys: pd.Series, values: pd.Series) -> np.ndarray:
    """Boolean array: which of ``keys`` (``key_strings``) are among ``values`` (Arrow's hash look-up,
    which beats pandas' ``isin`` on millions of strings)."""
    import pyarrow.compute as pc

    def as_arrow(s):
        return pa.array(s.astype(str), type=pa.large_string())
    return pc.is_in(as_arrow(keys), value_set=as_arrow(values)).to_numpy(zero_copy_only=False)


SNAPSHOT = ".snapshot"
# what makes a record the same record in two files (a shard's file merged twice, a copy): its call key and fingerprint,
# status, time and tries; two calls made of the same key are two records (both were paid)
IDENTITY = [*KEY, "status", "created_at", "tries"]


def _frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=COLUMNS)
    df["fingerprint"] = df["fingerprint"].fillna("")  # rows are complete (``schema.upgrade``); an empty frame is not
    df["unusable"] = df["unusable"].fillna(False).astype(bool)
    df["simulated"] = df["simulated"].fillna(False).astype(bool)
    df["token_counts"] = df["token_counts"].fillna("provider")
    df["source_correct"] = df["source_correct"].astype("boolean")
    for col in ("run", "call", "prompt_tokens", "completion_tokens", "reasoning_tokens", "tries", "cache_read_tokens",
                "cache_write_tokens"):
        df[col] = df[col].fillna(0).astype("int64")
    for col in ("billed_usd", "billed_calls", "source_usd"):  # NaN where the record is priced from its tokens
        df[col] = pd.to_numeric(df[col], errors="coerce").astype("float64")
    df["sampling"] = [s if isinstance(s, str) else json.dumps(s or {}, sort_keys=True) for s in df["sampling"]]
    df["agent_calls"] = [a if isinstance(a, str) else json.dumps(a) if a else "" for a in df["agent_calls"]]
    return df


def _parse(path: Path, data: bytes, first_line: int) -> tuple[list[dict[str, Any]], int]:
    """Records of the complete lines of ``data`` (a shard's bytes from a line start) and the bytes they span."""
    end = data.rfind(b"\n") + 1  # a torn last line of a crashed write was never acknowledged
    rows = []
    for i, line in enumerate(data[:end].decode("utf-8", errors="surrogateescape").split("\n")[:-1], first_line):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise CostOfPassError(f"{path} line {i}: corrupt record ({err.msg}); move the line "
                                  "aside or delete it to collect that call again") from None
        if not isinstance(record, dict) or any(k not in record for k in CALL):
            raise CostOfPassError(f"{path} line {i}: not a call record (fields {', '.join(CALL)} needed)")
        try:
            rows.append(upgrade(record))  # an older version migrated, every version checked
        except SchemaError as err:
            raise CostOfPassError(f"{path} line {i}: {err}") from None
    return rows, end


def _head(data: bytes) -> str:
    return hashlib.sha256(data[:4096]).hexdigest()


def read_shard(path: Path, snapshot: Path, columns: list[str] | None = None) -> pd.DataFrame:
    """A shard's records (``columns`` only, if given), from its parquet snapshot plus the lines appended since.

    The snapshot is valid when its offset ends a line of the shard and the shard's first 4 KiB still
    hash to its ``head``; only the bytes after the offset are read. The snapshot's metadata and rows
    come from one open file, so a snapshot another process replaces meanwhile is never half-used.
    """
    size = path.stat().st_size
    try:
        snap = pq.ParquetFile(snapshot)
    except (FileNotFoundError, OSError, pa.ArrowInvalid):
        snap = None
    offset, lines = _snapshot_offset(path, snap, size)
    if offset and offset == size:  # nothing appended: the columns asked for, straight from the snapshot
        return snap.read(columns=columns).to_pandas()
    with path.open("rb") as fh:
        fh.seek(offset)
        data = fh.read()
    rows, parsed = _parse(path, data, lines)
    if not rows and offset:
        return snap.read(columns=columns).to_pandas()  # only a torn, unacknowledged line
    old = snap.read().to_pandas() if offset else _frame([])
    df = pd.concat([old, _frame(rows)],
                   ignore_index=True) if rows and not old.empty else (_frame(rows) if rows else old)
    end = offset + parsed
    with path.open("rb") as fh:
        head = _head(fh.read(min(end, 4096)))
    _write_snapshot(df, snapshot, {"offset": str(end), "lines": str(lines + data[:parsed].count(b"\n")), "head": head,
                                   "schema_version": str(SCHEMA_VERSION)})
    return df[columns] if columns else df


def _snapshot_offset(path: Path, snap: pq.ParquetFile | None, size: int) -> tuple[int, int]:
    """(bytes, next line number) of the shard its snapshot covers; (0, 1) when there is none valid."""
    if snap is None:
        return 0, 1
    meta = snap.schema_arrow.metadata or {}
    if meta.get(b"schema_version") != str(SCHEMA_VERSION).encode():  # rows of another schema: parse the shard again
        return 0, 1
    offset, lines = int(meta.get(b"offset", -1)), int(meta.get(b"lines", 1))
    if not 0 < offset <= size:
        return 0, 1
    with path.open("rb") as fh:
        head = fh.read(min(offset, 4096))
        fh.seek(offset - 1)
        ends_line = fh.read(1) == b"\n"
    return (offset, lines) if ends_line and meta.get(b"head", b"").decode() == _head(head) else (0, 1)


def _write_snapshot(df: pd.DataFrame, snapshot: Path, meta: dict[str, str]) -> None:
    """Write atomically (a reader sees the old snapshot or the new one); a read-only store just is not snapshotted."""
    try:
        snapshot.parent.mkdir(parents=True, exist_ok=True)
        table = pa.Table.from_pandas(df, preserve_index=False)
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), **meta})
        tmp = snapshot.with_name(f".{snapshot.name}.{os.getpid()}.{threading.get_ident()}")
        pq.write_table(table, tmp)
        os.replace(tmp, snapshot)
    except OSError:
        pass


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
