"""Inspect logs (UK AISI's ``inspect-ai``): an ``.eval`` (a zip) or ``.json`` log, or a folder of them, read with
Inspect's own reader (``inspect_ai.log.read_eval_log``, the optional extra ``cost-of-pass[inspect]``) and checked
before anything uses them.

One log holds one model's run of one task: per sample its ``id``, ``epoch`` (1, 2, …: run ``epoch - 1`` here),
``scores``, ``model_usage`` (per model: ``input_tokens`` without cache reads and writes, ``input_tokens_cache_read``,
``input_tokens_cache_write``, ``output_tokens`` with reasoning, ``reasoning_tokens``, ``total_cost`` where prices were
set at run time), ``role_usage``, ``error`` and ``limit``. What a sample becomes (``InspectSample``):

- **the verdict** (``verdict``): the score of the log's one scorer (or the one ``scorer`` names) read by type —
  ``"C"`` correct; ``"I"`` incorrect; ``"P"`` (partial, 0.5) and numbers correct when at least ``threshold`` (default
  1.0: a partial score is not a pass); ``"N"`` (no answer) incorrect; ``True``/``False``; ``"yes"``/``"no"`` and
  ``"true"``/``"false"`` as Inspect reads them. Anything else is one line naming the file and the sample.
- **could not finish** (``failure``): a sample that ended in an error or hit a limit (tokens, messages, time, …) is a
  failure of its own kind, not a wrong answer: imported as a failed call, left out of R and C and counted apart.
- **the solver's tokens**: ``model_usage`` of the log's model (``eval.model``), less any ``role_usage`` of a role the
  log binds to that same model; **grading**: the usage of every model bound to a role (``eval.model_roles``: a judge,
  a scorer's model), kept apart and never part of cost-of-pass. A sample that used a model that is neither is a log
  of mixed models, and refused.

Hostile or broken files are refused before anything is read into the set, one line naming the file and the sample:
an ``.eval`` whose members would unpack to more than ``MAX_UNPACKED_BYTES`` or number more than ``MAX_MEMBERS`` (a zip
bomb: checked from the zip's directory before a member is read), a log whose parse is estimated above the budget of
any JSON parse (``core.runlogs.common.PARSE_BUDGET_BYTES``, 4 GiB, by ``parse_peak``: counts of the text's
characters, read a chunk at a time before Inspect reads the file), a file that is not an Inspect log, a truncated
``.eval``, a sample without usage, negative or implausible token counts (``MAX_TOKENS``). Inspect's reader parses a
``.json`` log whole, and an ``.eval``'s members one at a time but keeps every sample it builds, so the estimate of an
``.eval`` is the sum of its members' (each unpacked to count it, 16 MiB at a time: a few seconds for a log of
hundreds of MB).
"""

from __future__ import annotations

import datetime as dt
import math
import zipfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

from helpers.core.errors import CostOfPassError
from helpers.core.runlogs import common

INSTALL = "pip install 'cost-of-pass[inspect]' (or `make setup`)"
MAX_MEMBERS = 100_000  # members of one .eval (one per sample and epoch, plus a few summaries)
MAX_UNPACKED_BYTES = 4 << 30  # what one .eval's members may unpack to, summed (bytes: the text ceiling of a JSON parse)
MAX_LOGS = 10_000  # logs in one folder
MAX_TOKENS = 10**9  # tokens of one sample: more is no plausible count
BUCKETS = ("prompt_tokens", "cache_read_tokens", "cache_write_tokens", "completion_tokens", "reasoning_tokens")
USAGE = {"prompt_tokens": "input_tokens", "cache_read_tokens": "input_tokens_cache_read",
         "cache_write_tokens": "input_tokens_cache_write", "completion_tokens": "output_tokens",
         "reasoning_tokens": "reasoning_tokens"}  # bucket -> Inspect's ModelUsage field
LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0, "YES": 1.0, "NO": 0.0, "TRUE": 1.0, "FALSE": 0.0}


@dataclass(frozen=True)
class InspectSample:
    """One sample of one epoch: its verdict (None where it could not finish), the solver's tokens per bucket
    (``BUCKETS``, tokens), its cost as Inspect computed it (USD, or None), and the grading models' tokens."""

    sample_id: str
    run: int
    question: str
    target: str
    response: str
    verdict: bool | None
    failure: str | None
    tokens: dict[str, int]
    total_cost: float | None
    latency_s: float
    grading: dict[str, dict[str, int]] = field(default_factory=dict)  # grading model -> bucket -> tokens


@dataclass(frozen=True)
class InspectLog:
    """One log: its file, task, model (Inspect's name), when it was made (``eval.created``, ISO 8601), its service tier
    (``batch`` when run in a batch tier, else None) and its samples."""

    path: Path
    task: str
    model: str
    created: str
    service_tier: str | None
    samples: tuple[InspectSample, ...]

    @property
    def date(self) -> dt.date:
        return dt.date.fromisoformat(self.created[:10])


def log_error(path: Path, where: str, message: str) -> CostOfPassError:
    """The one-line error of a bad log (``where``: the sample and epoch, or '-' for the whole file)."""
    return CostOfPassError(f"{path}: {where}: {message}")


def log_files(path: Path) -> list[Path]:
    """The logs at ``path``: the file itself, or a folder's ``*.eval`` and ``*.json`` (sorted); one line if none."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise CostOfPassError(f"{path}: no Inspect log or folder of logs there")
    files = sorted(p for p in path.iterdir() if p.suffix in (".eval", ".json") and p.is_file())
    if not files:
        raise CostOfPassError(f"{path}: no Inspect log (*.eval, *.json) in the folder")
    if len(files) > MAX_LOGS:
        raise CostOfPassError(f"{path}: more than {MAX_LOGS} logs in the folder")
    return files


def check_container(path: Path) -> None:
    """Refuse a file before Inspect reads it: an ``.eval`` that is no whole zip (truncated), that would unpack to
    more than ``MAX_UNPACKED_BYTES`` or has more than ``MAX_MEMBERS`` members (from the zip's directory, nothing
    unpacked), holds no Inspect log, or whose members' parse is estimated above the budget (``check_members``); a
    ``.json`` above the text ceiling or the budget (``core.runlogs.common.check_parse``); any other suffix."""
    if path.suffix == ".json":
        if (size := path.stat().st_size) > common.MAX_JSON_BYTES:
            raise log_error(path, "-", f"{size:,} bytes, more than {common.MAX_JSON_BYTES:,} (refused before reading)")
        with path.open("rb") as fh:
            common.check_parse(path, "-", common.file_chunks(fh, size))
        return
    if path.suffix != ".eval":
        raise log_error(path, "-", "not an Inspect log (.eval or .json)")
    try:
        with zipfile.ZipFile(path) as zf:
            members = zf.infolist()
            check_directory(path, members)
            check_members(path, zf, members)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError) as err:
        raise log_error(path, "-", f"not a whole .eval log (truncated or not a zip: {err})") from None


def check_directory(path: Path, members: list[zipfile.ZipInfo]) -> None:
    """Refuse an ``.eval`` by its zip directory alone: too many members, too many bytes unpacked, no Inspect log."""
    if len(members) > MAX_MEMBERS:
        raise log_error(path, "-", f"{len(members)} members, more than {MAX_MEMBERS} (refused: a zip bomb?)")
    unpacked = sum(m.file_size for m in members)
    if unpacked > MAX_UNPACKED_BYTES:
        raise log_error(path, "-", f"its members unpack to {unpacked:,} bytes, more than {MAX_UNPACKED_BYTES:,} "
                        "(refused: a zip bomb?)")
    names = {m.filename for m in members}
    if not names & {"header.json", "_journal/start.json"}:
        raise log_error(path, "-", "not an Inspect log (no header.json or _journal/start.json in the zip)")


def check_members(path: Path, zf: zipfile.ZipFile, members: list[zipfile.ZipInfo]) -> None:
    """Refuse an ``.eval`` whose JSON members' parses, summed (Inspect keeps every sample it reads), are estimated
    above ``core.runlogs.common.PARSE_BUDGET_BYTES``: each member unpacked a chunk at a time, at most the size the
    directory gives it, and counted (``core.runlogs.common.parse_peak``)."""
    peak = sum(common.parse_peak(member_chunks(zf, m)) for m in members if m.filename.endswith(".json"))
    common.check_peak(path, "-", peak, "its members' JSON parses (summed: Inspect keeps every sample it reads) are")


def member_chunks(zf: zipfile.ZipFile, member: zipfile.ZipInfo) -> Iterator[bytes]:
    """A zip member's unpacked bytes a chunk at a time (``core.runlogs.common.SCAN_CHUNK``), at most the size the
    zip's directory gives it."""
    with zf.open(member) as fh:
        yield from common.file_chunks(fh, member.file_size)


def read_log(path: Path) -> Any:
    """Inspect's ``EvalLog`` of one file (checked first, ``check_container``); one line if Inspect cannot read it."""
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise CostOfPassError(f"{path}: reading Inspect logs needs inspect-ai: {INSTALL}") from None
    check_container(path)
    try:
        log = read_eval_log(str(path))
    except Exception as err:  # noqa: BLE001 - whatever Inspect raises on a file it cannot read is one line here
        first = str(err).strip().splitlines()[0][:200] if str(err).strip() else ""
        raise log_error(path, "-", f"not a readable Inspect log ({type(err).__name__}: {first})") from None
    if not getattr(log, "eval", None) or not log.eval.model or not log.eval.task:
        raise log_error(path, "-", "not an Inspect log (no eval.model or eval.task)")
    if not log.samples:
        raise log_error(path, "-", f"no samples (the log's status is {log.status!r})")
    return log


def verdict(path: Path, where: str, scores: Any, scorer: str | None, threshold: float) -> bool:
    """A scored sample's verdict by the rules above; one line naming the file and sample otherwise."""
    if not scores:
        raise log_error(path, where, "no score (the sample was not scored)")
    if scorer is None and len(scores) > 1:
        raise log_error(path, where, f"several scorers ({', '.join(sorted(scores))}): name one (--scorer)")
    name = scorer or next(iter(scores))
    if name not in scores:
        raise log_error(path, where, f"no score of scorer {name!r} (scorers: {', '.join(sorted(scores))})")
    value = scores[name].value
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().upper() in LETTERS:
        return LETTERS[value.strip().upper()] >= threshold
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value) >= threshold
    raise log_error(path, where, f"score {str(value)[:60]!r} of scorer {name!r} is not one this project reads "
                    "(C/I/P/N, a number, true/false)")


def count(path: Path, where: str, name: str, value: Any) -> int:
    """A token count of the log: a whole number in [0, ``MAX_TOKENS``] (None: 0); one line otherwise."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TOKENS:
        raise log_error(path, where, f"{name} is {value!r}: not a token count (a whole number from 0 to "
                        f"{MAX_TOKENS:.0e})")
    return value


def buckets(path: Path, where: str, usage: Any) -> dict[str, int]:
    """A ``ModelUsage``'s tokens per bucket (``BUCKETS``), checked."""
    return {b: count(path, where, f, getattr(usage, f, None)) for b, f in USAGE.items()}


def role_models(log: Any) -> dict[str, str]:
    """Role -> model of the log's roles (``eval.model_roles``; the first of a role bound to several)."""
    out = {}
    for role, config in (log.eval.model_roles or {}).items():
        first = config[0] if isinstance(config, list) and config else config
        if getattr(first, "model", None):
            out[role] = first.model
    return out


def usage_of(path: Path, where: str, sample: Any, model: str, roles: dict[str, str],
             finished: bool) -> tuple[dict[str, int], float | None, dict[str, dict[str, int]]]:
    """The solver's tokens and Inspect's cost of them (USD or None), and each grading model's tokens."""
    usage = sample.model_usage or {}
    if stray := sorted(set(usage) - {model, *roles.values()}):
        raise log_error(path, where, f"mixed models: usage of {', '.join(stray)} besides the log's model {model} "
                        "(one model per log; a judge is bound to a role in eval.model_roles)")
    if model not in usage:
        if finished:
            raise log_error(path, where, f"no token usage of the log's model {model} (model_usage)")
        return dict.fromkeys(BUCKETS, 0), None, {}
    solver = buckets(path, where, usage[model])
    for role, bound in roles.items():  # the model judging its own answers: its judging is grading, not solving
        if bound == model and role in (sample.role_usage or {}):
            own = buckets(path, where, sample.role_usage[role])
            solver = {b: max(solver[b] - own[b], 0) for b in BUCKETS}
    cost = usage[model].total_cost
    if cost is not None and not (isinstance(cost, (int, float)) and math.isfinite(cost) and 0 <= cost < 1e6):
        raise log_error(path, where, f"total_cost {cost!r} is not a USD amount")
    grading = {m: buckets(path, where, usage[m]) for m in sorted(set(roles.values()) - {model}) if m in usage}
    return solver, cost, grading


def failure_of(sample: Any) -> str | None:
    """Why a sample could not finish (an error, or a limit it hit), or None."""
    if sample.error is not None:
        message = (getattr(sample.error, "message", "") or str(sample.error)).strip().splitlines()
        return f"could not finish: error: {(message[0] if message else '')[:200]}"
    if sample.limit is not None:
        return f"could not finish: {getattr(sample.limit, 'type', 'a')} limit"
    return None


def text_of(value: Any) -> str:
    """A sample's input or target as text (messages' texts and list items joined)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(v if isinstance(v, str) else getattr(v, "text", "") for v in value)
    return str(value)


def read_sample(path: Path, log: Any, sample: Any, scorer: str | None, threshold: float) -> InspectSample:
    """One sample of ``log``, checked (``verdict``, ``usage_of``, ``failure_of``)."""
    if isinstance(sample.epoch, bool) or not isinstance(sample.epoch, int) or sample.epoch < 1:
        raise log_error(path, f"sample {str(sample.id)[:80]}", f"epoch {sample.epoch!r} is not 1, 2, ...")
    where = f"sample {str(sample.id)[:80]} epoch {sample.epoch}"
    failure = failure_of(sample)
    tokens, cost, grading = usage_of(path, where, sample, log.eval.model, role_models(log), failure is None)
    correct = None if failure else verdict(path, where, sample.scores, scorer, threshold)
    output = getattr(sample.output, "completion", "") or ""
    return InspectSample(str(sample.id), sample.epoch - 1, text_of(sample.input), text_of(sample.target), output,
                         correct, failure, tokens, cost, float(sample.total_time or 0.0), grading)


def read_logs(path: Path, scorer: str | None = None, threshold: float = 1.0) -> list[InspectLog]:
    """Every log at ``path`` (a file or folder), each checked whole, and together: one task, and each sample and epoch
    of a model once. Raises one line naming the file and the sample on the first thing wrong. Read once per process
    while the files stay the same (their sizes and modification times)."""
    stamp = tuple((str(f), f.stat().st_size, f.stat().st_mtime_ns) for f in log_files(path))
    return list(_read_logs(path, stamp, scorer, threshold))


@lru_cache(maxsize=4)
def _read_logs(path: Path, stamp: tuple, scorer: str | None, threshold: float) -> tuple[InspectLog, ...]:
    logs: list[InspectLog] = []
    seen: dict[tuple[str, str, int], Path] = {}
    for file in (Path(f) for f, _, _ in stamp):
        log = read_log(file)
        samples = tuple(read_sample(file, log, s, scorer, threshold) for s in log.samples)
        batch = getattr(log.eval.model_generate_config, "batch", None)
        logs.append(InspectLog(file, log.eval.task, log.eval.model, str(log.eval.created),
                               "batch" if batch else None, samples))
        for s in samples:
            key = (log.eval.model, s.sample_id, s.run)
            if key in seen:
                raise log_error(file, f"sample {s.sample_id} epoch {s.run + 1}",
                                f"{log.eval.model} ran it already in {seen[key]}")
            seen[key] = file
    if len(tasks := sorted({log.task for log in logs})) > 1:
        raise CostOfPassError(f"{path}: logs of several tasks ({', '.join(tasks)}): import one task's logs at a time")
    return tuple(logs)
