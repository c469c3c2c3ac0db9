"""What every reader of others' run files shares: the memory budget of a JSON parse (estimated before parsing, from
measured costs), reading a JSON or JSONL file with it, the one-line error naming the file and the item, checked token
counts and USD amounts, and the attempt and run each format's file becomes.

**The parse budget** (``PARSE_BUDGET_BYTES``, 4 GiB of this machine's 24): Python's ``json`` holds a whole document
as objects, from 2 to 45 times the size of its text by its shape, so a flat size cap either refuses real logs (chat
text costs 3.5 bytes per byte) or lets a pathological file through. Before a document is parsed, ``parse_peak``
estimates the parse's peak memory (bytes) from counts of its characters (``bytes.count``, at C speed)::

    peak = (3 + 4 if any byte is not ASCII) x len + 96 x "[" + 128 x "{" + 40 x "," + 16 x '"' + 112 x ":"

(``PEAK_PER_BYTE``, ``PEAK_PER_WIDE_BYTE``, ``PEAK_PER_CHAR``): each list costs its object and slots, each dict its
object and table, each element after a comma its slot and number object, each string its object, each key its table
entry and the parser's memo; the text itself is held as bytes and decoded whole (up to four bytes a character where any
byte is not ASCII). A character counted inside a string (a ``{`` in code) only raises the estimate. The
coefficients are rounded up from a linear program's fit (the least over-estimate that bounds every shape) to the
``tracemalloc`` peak of ``json.loads`` plus the text held (CPython 3.11; documents of 1-12 MB): chat records 3.5
bytes per byte (estimated 4.2), floats 3.6 (5.0), ARC grids 5.5 (17.1), Weave-style call trees 6.2 (14.8), ints
``-6`` 14.0 (16.3), short distinct strings 9.1 (11.2), empty dicts 26.3 (59.0), one-key dicts 26.1 (42.0), one
dict of distinct keys 15.8 (18.5), keys distinct across dicts 25.9 (29.4), nested dicts 32.5 (48.2), lists nested
fifty deep 45.3 (50.9), one-int lists 26.9 (30.2), escaped strings 3.1 (5.1), CJK text 4.0 (7.1), emoji 6.0 (7.3),
ASCII with one emoji 6.3 (7.3), ``\\u`` escapes 2.7 (3.1): measured over estimated at most 0.90 (27 shapes; docs/data.md
has the table). ``tests/test_run_formats.py`` measures the worst shapes again and checks the estimate bounds them.
A document whose estimate exceeds the budget is refused in one line before it is parsed, naming the file, the
estimate and the budget; text above ``MAX_JSON_BYTES`` (4 GiB) is refused by its size before it is read. The
pre-scan reads about 240 MB/s (measured here: a 202 MB file of chat records in 0.85 s held whole, 1.0 s read 16 MiB
at a time, against 1.5 s for ``json.loads`` of it; five ``bytes.count`` and one ``isascii`` per chunk). A JSONL
file is parsed a line at a time: each line has the budget, the file ``MAX_JSONL_BYTES`` (what is kept of it is the
text of prompts and answers, never the parsed whole).
"""

from __future__ import annotations

import datetime as dt
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Iterable, Iterator

from helpers.core.errors import CostOfPassError

PARSE_BUDGET_BYTES = 4 << 30  # what one parse may take at worst (bytes, by the estimate of parse_peak)
PEAK_PER_BYTE = 3  # bytes of a parse per byte of text: the text held, decoded, and its strings' characters
PEAK_PER_WIDE_BYTE = 4  # more bytes per byte where the text is not ASCII (decoded four bytes a character at worst)
PEAK_PER_CHAR = {b"[": 96, b"{": 128, b",": 40, b'"': 16, b":": 112}  # bytes of a parse per character counted
MAX_JSON_BYTES = 4 << 30  # one JSON document's text (bytes): above it, refused by its size before it is read
SCAN_CHUNK = 16 << 20  # bytes read at a time by the pre-scan of a file not held whole
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


def parse_peak(chunks: Iterable[bytes]) -> int:
    """The estimated peak memory (bytes) of ``json.loads`` of the text made of ``chunks`` (one, or a file read a
    chunk at a time), from its length and counts of its characters (the module's docstring)."""
    size, wide, counts = 0, False, dict.fromkeys(PEAK_PER_CHAR, 0)
    for chunk in chunks:
        size += len(chunk)
        wide = wide or not chunk.isascii()
        for char in counts:
            counts[char] += chunk.count(char)
    per_byte = PEAK_PER_BYTE + (PEAK_PER_WIDE_BYTE if wide else 0)
    return per_byte * size + sum(PEAK_PER_CHAR[char] * n for char, n in counts.items())


def check_parse(path: Path, where: str, chunks: Iterable[bytes]) -> None:
    """Refuse a JSON text (``chunks``) whose parse is estimated (``parse_peak``) above ``PARSE_BUDGET_BYTES``."""
    check_peak(path, where, parse_peak(chunks), "a JSON parse")


def check_peak(path: Path, where: str, peak: int, what: str) -> None:
    """Refuse a parse estimated at ``peak`` bytes above ``PARSE_BUDGET_BYTES``, in one line naming the file, the item,
    the estimate and the budget (bytes and GiB)."""
    if peak > PARSE_BUDGET_BYTES:
        raise file_error(path, where, f"{what} estimated at {peak:,} bytes of memory ({peak / 2**30:.1f} GiB), more "
                         f"than the budget of {PARSE_BUDGET_BYTES:,} ({PARSE_BUDGET_BYTES / 2**30:.1f} GiB) (refused "
                         "before parsing: the estimate counts the text's brackets, commas, quotes and colons)")


def read_json(path: Path, what: str) -> Any:
    """A JSON file, refused before it is parsed by its size (``MAX_JSON_BYTES``) or the estimate of its parse
    (``check_parse``), and in one line when it is not whole JSON (truncated, or another format)."""
    size = path.stat().st_size
    if size > MAX_JSON_BYTES:
        raise file_error(path, "-", f"{size:,} bytes, more than {MAX_JSON_BYTES:,} (refused before reading)")
    text = path.read_bytes()
    check_parse(path, "-", [text])
    try:
        return json.loads(text)
    except (ValueError, UnicodeDecodeError, RecursionError) as err:
        raise file_error(path, "-", f"not a whole JSON {what} (truncated, or another format: {err})") from None


def json_lines(path: Path, what: str) -> Iterator[tuple[int, Any]]:
    """(line number from 1, object) of a JSONL file's non-empty lines, each refused before it is parsed by the
    estimate of its parse (``check_parse``); one line naming the line when it is not JSON (a truncated last line
    too)."""
    size = path.stat().st_size
    if size > MAX_JSONL_BYTES:
        raise file_error(path, "-", f"{size:,} bytes, more than {MAX_JSONL_BYTES:,} (refused)")
    with path.open("rb") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            check_parse(path, f"line {number}", [line])
            try:
                yield number, json.loads(line)
            except (ValueError, UnicodeDecodeError, RecursionError) as err:
                raise file_error(path, f"line {number}", f"not a JSON {what} line (truncated?: {err})") from None


def file_chunks(fh: IO[bytes], limit: int) -> Iterator[bytes]:
    """An open file's bytes ``SCAN_CHUNK`` at a time, at most ``limit`` of them (a member that unpacks to more than
    its zip directory says stops there)."""
    while limit > 0 and (chunk := fh.read(min(SCAN_CHUNK, limit))):
        limit -= len(chunk)
        yield chunk


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
