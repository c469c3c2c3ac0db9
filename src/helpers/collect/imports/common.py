"""What every importer shares: the imported response, the one-line error of a bad row, question matching."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from helpers.core.errors import CostOfPassError
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
    agent_calls: tuple[dict[str, Any], ...] = ()  # an agent attempt's calls (``CallRecord.agent_calls``)


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
