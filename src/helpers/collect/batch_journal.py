"""The batch journal: every batch a collection sends, recorded in the record store before anything waits on it.

One JSON file per batch under ``<records>/.batches/`` (beside the shards; the store reads ``*/*.jsonl`` only), each
written whole (a temporary file, fsynced, then renamed over the old one) so a crash leaves the old state or the new,
never half of one. A batch goes ``submitting`` (its requests ready, its input file uploaded: nothing paid yet; the
file says which calls it holds) → ``pending`` (the provider gave its id: the calls are paid for) → ``done`` (its
results are records in the shards, fsynced). A run that finds a ``pending`` batch polls it and records its results
instead of sending those calls again; a ``submitting`` one is looked for by its input file (OpenAI) before anything is
sent. A ``done`` file keeps the batch's id, its state and how many calls it held (not the calls).

Each call is kept as the record it will become (``CallRecord.as_dict`` with ``status: error`` until a result fills it),
so a resumed batch needs neither the plan nor the set that sent it. No key is written: the name of the environment
variable holding it (``key_env``) is.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from helpers.core.redaction import Redactor

JOURNAL = ".batches"
STATES = ("submitting", "pending", "done")


@dataclass
class Entry:
    """One batch: its provider (``openai``, ``anthropic``), the model and API it went to, the environment variable of
    its key (a name), its ``state`` (``STATES``), its calls (custom_id -> the record to be, as a dict), the provider's
    batch id and uploaded input file id, when it was sent (Unix seconds), and its file's name."""

    provider: str
    model: str
    api_base: str | None
    key_env: str | None
    state: str
    calls: dict[str, dict[str, Any]] = field(default_factory=dict)
    batch_id: str | None = None
    prepared: str | None = None
    submitted_at: float = 0.0
    name: str = ""
    n_calls: int = 0
    outcome: str = ""

    def path(self, records: Path) -> Path:
        return Path(records) / JOURNAL / f"{self.name}.json"


def new_entry(provider: str, model: str, api_base: str | None, key_env: str | None,
              calls: dict[str, dict[str, Any]]) -> Entry:
    """A batch about to be sent (``submitting``), named by the time, this process and a random part."""
    name = f"{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    return Entry(provider, model, api_base, key_env, "submitting", calls, submitted_at=time.time(), name=name,
                 n_calls=len(calls))


def write(records: Path, entry: Entry) -> None:
    """Write ``entry`` durably and whole (temporary file, fsync, rename, fsync of the folder); a ``done`` entry
    without its calls."""
    assert entry.state in STATES
    path = entry.path(records)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = asdict(entry)
    if entry.state == "done":
        data["calls"] = {}
    text = Redactor()(json.dumps(data, sort_keys=True))
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def entries(records: Path) -> list[Entry]:
    """Every batch under ``records``, in the order they were sent; a file that is not an entry is one line."""
    from helpers.core.errors import CostOfPassError

    folder = Path(records) / JOURNAL
    out = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            out.append(Entry(**json.loads(path.read_text(encoding="utf-8"))))
        except (ValueError, TypeError) as err:
            raise CostOfPassError(f"{path}: not a batch of the journal ({str(err)[:100]}); move it aside only if "
                                  "its batch is known to be recorded or never created") from None
    return sorted(out, key=lambda e: e.submitted_at)


def open_entries(records: Path) -> list[Entry]:
    """The batches not yet ``done`` under ``records``, in the order they were sent."""
    return [e for e in entries(records) if e.state != "done"]


def close(records: Path, entry: Entry, outcome: str) -> None:
    """Mark ``entry`` done, saying how (``outcome``: its final state, or why it was never sent)."""
    entry.state, entry.outcome = "done", outcome
    write(records, entry)
