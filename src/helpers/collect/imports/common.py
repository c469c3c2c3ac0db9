"""What every importer shares: the imported response, the one-line error of a bad row, question matching."""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from helpers.collect.schema import AgentCall
from helpers.core.errors import CostOfPassError
from helpers.core.params import ImportSource, Params
from helpers.core.tasks import Problem


@dataclass(frozen=True)
class Imported:
    """One recorded response as a source gives it, matched to the set's task, problem and registry model.

    Tokens are the source's counts, a tokenizer's, or an estimate (``token_counts`` says which)."""

    task: str
    problem_id: str
    model: str  # registry name
    run: int
    response: str | None
    prompt_tokens: int
    completion_tokens: int
    token_counts: str
    source: str
    source_correct: bool | None = None
    finish_reason: str | None = "stop"
    failure: str | None = None  # the source recorded a failed generation: imported as a failed call
    sampling: dict[str, Any] = field(default_factory=dict)
    row: int | str = 0  # the source's row (or file and index), for error messages
    method: str = "vanilla"  # an agent strategy's (``core.methods.agent``), for recorded agent runs
    agent_calls: tuple[AgentCall, ...] = ()  # an agent attempt's calls (``CallRecord.agent_calls``)
    billed_usd: float | None = None  # the attempt's USD as its source says it was billed (``CallRecord.billed_usd``)
    billed_calls: int | None = None  # and its API calls
    cache_read_tokens: int = 0  # of the prompt, tokens read from the provider's cache (``CallRecord``)
    cache_write_tokens: int = 0  # of the prompt, tokens written to it
    reasoning_tokens: int = 0  # of the completion, reasoning tokens
    service_tier: str | None = None  # ``batch`` where the source ran in a batch tier
    source_usd: float | None = None  # the USD the source computed for the attempt (compared, never used)
    latency_s: float | None = None  # the attempt's time as the source recorded it (else its agent calls' sum)


@dataclass(frozen=True)
class Dropped:
    """Part of a source a reader cannot use (a run with a malformed line, a missing log): ``where`` names the file and
    line and says why. A reader yields it in its stream; ``import_records`` lists it, and ``cost-of-pass run`` prints
    it."""

    where: str


MAX_TOKENS = 10**9  # tokens of one call: more is no plausible count (a long-context call is ~10^6)


def token_count(value: Any) -> int:
    """A token count from a source: a whole, finite number in [0, ``MAX_TOKENS``]; ``ValueError`` saying what it is
    instead (the caller names the file and row)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"expected a token count, got {value!r}") from None
    if not math.isfinite(number) or number < 0 or number != int(number):
        raise ValueError(f"expected a token count (a whole number >= 0), got {value!r}")
    if number > MAX_TOKENS:
        raise ValueError(f"a token count of {value!r} is beyond any plausible count (at most {MAX_TOKENS:.0e})")
    return int(number)


def import_spec(params: Params) -> tuple[ImportSource, Path]:
    """An imported set's ``import_from`` and its source's path (``Params.import_path``); one line when the set is
    not imported."""
    if params.import_from is None or params.import_path is None:
        raise CostOfPassError(f"{params.source}: no import_from: this set's records are collected, not imported")
    return params.import_from, params.import_path


def source_error(path: Path, row: int | str, message: str) -> CostOfPassError:
    """The one-line error of a malformed source row."""
    return CostOfPassError(f"{path}: row {row}: {message}")


def normalize_text(text: str) -> str:
    """A question's text for matching across sources: Unicode NFKC, whitespace collapsed."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip()


def text_index(problems: list[Problem]) -> dict[str, Problem]:
    """Problems by normalised question text (the first of duplicates)."""
    out: dict[str, Problem] = {}
    for p in problems:
        out.setdefault(normalize_text(p.question), p)
    return out
