"""What every reader of others' run files shares: the size cap of a JSON parse (measured), reading a JSON or JSONL
file with it, the one-line error naming the file and the item, checked token counts and USD amounts, and the attempt
and run each format's file becomes.

**The size cap** (``MAX_JSON_BYTES``): Python's ``json`` holds a whole document as objects, many times the size of its
text. Measured with ``tracemalloc`` (CPython 3.12, ``json.loads`` of generated documents of 4-28 MB; the peak of the
parse over the text's bytes): chat messages (long strings) 2.3 times, floats 2.7, ARC grids (lists of small ints) 4.6,
Weave-style call dicts 5.1, short distinct strings 7.5, empty dicts ``[{}, ...]`` 25, one-key dicts 25, nested dicts 31,
and the worst shape found, lists nested fifty deep (``[[[...]]]``: two bytes of text per 56-byte list plus its slot),
44.3. ``PEAK_PER_BYTE`` is that worst case rounded up, so a file of ``MAX_JSON_BYTES`` parses within
``PARSE_BUDGET_BYTES`` (4 GiB of this machine's 24) whatever its shape: ``4 GiB / 45`` = 91 MiB. A file above it is
refused by its size before a byte is parsed. ``tests/test_run_formats.py`` measures the nested-list worst case again and
checks it stays within ``PEAK_PER_BYTE``. A JSONL file is parsed a line at a time: each line has the cap, the file
``MAX_JSONL_BYTES`` (what is kept of it is the text of prompts and answers, never the parsed whole).
"""

from __future__ import annotations

import datetime as dt
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from helpers.core.errors import CostOfPassError

PEAK_PER_BYTE = 45  # the measured worst peak of a JSON parse per byte of text (44.3: lists nested fifty deep)
PARSE_BUDGET_BYTES = 4 << 30  # what one parse may take at worst
MAX_JSON_BYTES = PARSE_BUDGET_BYTES // PEAK_PER_BYTE  # one JSON document (a file, or a JSONL line): 91 MiB
MAX_JSONL_BYTES = 4 << 30  # one JSONL file, parsed a line at a time
MAX_FILES = 100_000  # files of one import
MAX_TOKENS = 10**9  # tokens of one attempt: more is no plausible count
MAX_USD = 1e4  # USD of one attempt: more is no plausible bill
MAX_CALLS = 10**6  # API calls of one attempt
BUCKETS = ("prompt_tokens", "cache_read_tokens", "cache_write_tokens", "completion_tokens", "reasoning_tokens")


@dataclass(frozen=True)
class Attempt:
    """One attempt of one model at one problem, as a run file records it: its verdict (None where it could not
    finish), the tokens per bucket (``BUCKETS``; ``prompt_tokens`` without cache reads and writes, ``completion_tokens``
    with reasoning; None where the file has no complete count), the USD the source computed (``source_usd``: compared,
    never used) or billed (``billed_usd``: used as the cost), its API calls and its time (seconds)."""

    sample_id: str
    run: int
    question: str
    target: str
    response: str
    verdict: bool | None
    failure: str | None
    tokens: dict[str, int] | None
    source_usd: float | None = None
    billed_usd: float | None = None
    calls: int | None = None
    latency_s: float | None = None
    status: str = ""  # how the source says the attempt ended (an agent's exit status), for the caveats


@dataclass(frozen=True)
class RunFile:
    """What one import reads of one model: the file or folder, the source's task (benchmark, eval), the model (the
    source's name), when it ran (ISO 8601), its attempts, and lines the report's caveats print (the source's own
    totals beside the import's)."""

    path: Path
    task: str
    model: str
    created: str
    samples: tuple[Attempt, ...]
    notes: tuple[str, ...] = ()
    service_tier: str | None = None

    @property
    def date(self) -> dt.date:
        return dt.date.fromisoformat(self.created[:10])


def created_of(path: Path, value: Any) -> str:
    """When a run was made (ISO 8601): ``value`` where it starts with a date, else the file's modification time."""
    text = str(value or "")
    try:
        dt.date.fromisoformat(text[:10])
        return text
    except ValueError:
        return dt.datetime.fromtimestamp(path.stat().st_mtime, dt.timezone.utc).isoformat()


def file_error(path: Path, where: str, message: str) -> CostOfPassError:
    """The one-line error of a bad run file (``where``: the item, or '-' for the whole file)."""
    return CostOfPassError(f"{path}: {where}: {message}")


def files_at(path: Path, patterns: tuple[str, ...], what: str, recursive: bool = False) -> list[Path]:
    """The run files at ``path``: the file itself, or a folder's files matching ``patterns`` (sorted; in subfolders
    too where ``recursive``); one line if there are none or more than ``MAX_FILES``."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise CostOfPassError(f"{path}: no {what} or folder of them there")
    found: set[Path] = set()
    for pattern in patterns:
        found.update(p for p in (path.rglob(pattern) if recursive else path.glob(pattern)) if p.is_file())
        if len(found) > MAX_FILES:
            raise CostOfPassError(f"{path}: more than {MAX_FILES} {what} files in the folder")
    if not found:
        raise CostOfPassError(f"{path}: no {what} ({', '.join(patterns)}) in the folder")
    return sorted(found)


def read_json(path: Path, what: str) -> Any:
    """A JSON file, refused by its size before it is parsed (``MAX_JSON_BYTES``) and in one line when it is not whole
    JSON (truncated, or another format)."""
    size = path.stat().st_size
    if size > MAX_JSON_BYTES:
        raise file_error(path, "-", f"{size:,} bytes, more than {MAX_JSON_BYTES:,} (refused before parsing: a JSON "
                         f"parse may take {PEAK_PER_BYTE} times its size in memory)")
    try:
        return json.loads(path.read_bytes())
    except (ValueError, UnicodeDecodeError, RecursionError) as err:
        raise file_error(path, "-", f"not a whole JSON {what} (truncated, or another format: {err})") from None


def json_lines(path: Path, what: str) -> Iterator[tuple[int, Any]]:
    """(line number from 1, object) of a JSONL file's non-empty lines, each refused by its size before it is parsed;
    one line naming the line when it is not JSON (a truncated last line too)."""
    size = path.stat().st_size
    if size > MAX_JSONL_BYTES:
        raise file_error(path, "-", f"{size:,} bytes, more than {MAX_JSONL_BYTES:,} (refused)")
    with path.open("rb") as fh:
        for number, line in enumerate(fh, 1):
            if len(line) > MAX_JSON_BYTES:
                raise file_error(path, f"line {number}", f"{len(line):,} bytes, more than {MAX_JSON_BYTES:,} (refused)")
            if not line.strip():
                continue
            try:
                yield number, json.loads(line)
            except (ValueError, UnicodeDecodeError, RecursionError) as err:
                raise file_error(path, f"line {number}", f"not a JSON {what} line (truncated?: {err})") from None


def count(path: Path, where: str, name: str, value: Any, default: int | None = None) -> int:
    """A token count of a run file: a whole number in [0, ``MAX_TOKENS``]; None is ``default`` where one is given
    (an optional bucket), else one line saying the count is missing."""
    if value is None and default is not None:
        return default
    if value is None:
        raise file_error(path, where, f"no {name} (missing usage: token counts are needed)")
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TOKENS:
        raise file_error(path, where, f"{name} is {value!r}: not a token count (a whole number from 0 to "
                         f"{MAX_TOKENS:.0e})")
    return value


def usd(path: Path, where: str, name: str, value: Any) -> float:
    """A USD amount of one attempt: a finite number in [0, ``MAX_USD``); one line otherwise (a missing one too)."""
    if value is None:
        raise file_error(path, where, f"no {name} (missing cost)")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not 0 <= value < MAX_USD:
        raise file_error(path, where, f"{name} is {value!r}: not a USD amount in [0, {MAX_USD:g})")
    return float(value)


def calls(path: Path, where: str, name: str, value: Any) -> int:
    """A number of API calls of one attempt: a whole number in [0, ``MAX_CALLS``]; one line otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_CALLS:
        raise file_error(path, where, f"{name} is {value!r}: not a number of API calls")
    return value


def field(path: Path, where: str, data: Any, *keys: str) -> Any:
    """``data[k1][k2]...``, or one line naming the missing field (``data`` not an object there either)."""
    for i, key in enumerate(keys):
        if not isinstance(data, dict) or key not in data:
            raise file_error(path, where, f"no field {'.'.join(keys[: i + 1])}")
        data = data[key]
    return data


def obj(value: Any) -> dict[str, Any]:
    """``value`` where it is a JSON object, else an empty one (an optional part of a record)."""
    return value if isinstance(value, dict) else {}


def text_of(value: Any) -> str:
    """A prompt or answer as text: a string as it is, chat messages' contents and list items joined."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return text_of(value.get("content", ""))
    if isinstance(value, list):
        return "\n".join(text_of(v) for v in value)
    return "" if value is None else json.dumps(value)


def one_model(path: Path, where: str, models: set[str] | dict[str, Path]) -> str:
    """The one model of ``models``; one line naming them when there are several (one model per import), and, where
    ``models`` maps each to the first file that names it, that file of the second model."""
    if len(models) > 1 and isinstance(models, dict):
        named = ", ".join(f"{m} (first in {models[m]})" for m in sorted(models))
        raise file_error(models[list(models)[1]], where, f"mixed models: {named} (one model per import)")
    if len(models) > 1:
        raise file_error(path, where, f"mixed models: {', '.join(sorted(models))} (one model per import)")
    if not models:
        raise file_error(path, where, "no model named")
    return next(iter(models))


def check_once(runs: list[RunFile]) -> None:
    """Each problem and run of a model once, across the runs; one line naming the second."""
    seen: dict[tuple[str, str, int], Path] = {}
    for run in runs:
        for a in run.samples:
            key = (run.model, a.sample_id, a.run)
            if key in seen:
                raise file_error(run.path, f"{a.sample_id} run {a.run + 1}", f"{run.model} has it already in "
                                 f"{seen[key]}")
            seen[key] = run.path
