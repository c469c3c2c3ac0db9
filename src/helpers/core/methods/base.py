"""What an inference-time method is, and the registry the others add themselves to.

A method says how many calls one attempt makes and with which prompts (``messages``), how many
generations an attempt pays for, and — for methods estimated from recorded vanilla runs instead of
fresh calls — its estimator. Adding a method is one module in this package that calls ``register``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pandas as pd

from helpers.core.prompts import PAPER_PROMPT, solve_messages

# (vanilla attempts with answer_key, correct, usd; seed) -> per (task, problem_id, model):
# cost_usd (USD per attempt), pass_rate (0-1), n (subsets averaged)
Estimator = Callable[[pd.DataFrame, int], pd.DataFrame]


@dataclass
class RunStats:
    """What methods estimated from vanilla runs need of many cells' runs at once (bootstrap replicates).

    ``runs`` (...) runs per cell; ``passed`` (...) correct runs; ``sizes`` (..., J) runs per answer class;
    ``class_ok`` (..., J) whether a class is correct. ``patterns`` caches the vote patterns' codes.
    """

    runs: np.ndarray
    passed: np.ndarray
    sizes: np.ndarray
    class_ok: np.ndarray
    cache: dict = field(default_factory=dict, repr=False)


# the same success rate on arrays of cells (bootstrap replicates): RunStats -> rate (...), NaN below k runs
RateFromRuns = Callable[[RunStats], np.ndarray]
# a method's success rate given one run's: (x: P(the correct answer) array, wrong classes, P(no answer)) -> rate array
RateGiven = Callable[[np.ndarray, int, float], np.ndarray]
RateOfPattern = Callable[[tuple[tuple[float, bool], ...]], float]  # answer classes (probability, correct) -> rate
ESTIMATE_COLUMNS = ["task", "problem_id", "model", "cost_usd", "pass_rate", "n"]


@dataclass(frozen=True)
class Method:
    """One inference-time method.

    ``collected_calls``: calls made per attempt by collection (0: estimated from vanilla runs);
    ``billed_calls``: generations an attempt pays for; ``templates``: the prompt template of each
    call (part of the records' fingerprints); ``estimator``: for methods made of vanilla runs, with
    ``rate_from_runs``, the same success rate on arrays of runs (bootstrap replicates). ``recorded_by_others``:
    a method this project cannot run itself (an agent's loop, ``agent``): its attempts are imported, one record
    each with every call the agent made (``CallRecord.agent_calls``), and a set that would collect it is refused.
    A method made of k vanilla runs owns its math for what models its runs: ``rate_given(x, wrong, no_answer)``, its
    success rate given one run's probability of the correct answer ``x`` (array), ``wrong`` equally likely wrong
    answers and a no-answer probability (the model-based estimator, the simulator's truth), and
    ``rate_of_pattern(pattern)``, the same for any answer classes ((probability, correct), …) (a wrong reference).
    """

    name: str
    collected_calls: int
    billed_calls: int
    templates: tuple[str, ...] = (PAPER_PROMPT,)
    estimator: Estimator | None = field(default=None, compare=False)
    rate_from_runs: RateFromRuns | None = field(default=None, compare=False)
    recorded_by_others: str = ""  # what the method is, where only imported records have it
    rate_given: RateGiven | None = field(default=None, compare=False)
    rate_of_pattern: RateOfPattern | None = field(default=None, compare=False)

    @property
    def is_collected(self) -> bool:
        return self.collected_calls > 0

    def messages(self, question: str, call: int, responses: dict[int, str]) -> list[dict[str, str]]:
        """The messages of call ``call`` given the responses of the earlier calls (default: the paper's prompt)."""
        return solve_messages(question)


_REGISTRY: list[tuple[re.Pattern, str, Callable[[re.Match], Method]]] = []


def register(pattern: str, example: str, make: Callable[[re.Match], Method]) -> None:
    """Add a method family: names matching ``pattern`` (``example`` shows one) are made by ``make``."""
    _REGISTRY.append((re.compile(rf"^(?:{pattern})$"), example, make))


def register_k(prefix: str, estimates: Callable[[pd.DataFrame, int], pd.DataFrame],
               rate: Callable[[int, RunStats], np.ndarray],
               given: Callable[[int, np.ndarray, int, float], np.ndarray],
               of_pattern: Callable[[int, tuple[tuple[float, bool], ...]], float]) -> None:
    """Add a family ``<prefix>N`` (N = 1..99) of methods made of N vanilla runs: each bills N calls and is
    estimated by ``estimates(vanilla, N)`` and, on bootstrap replicates, ``rate(N, stats)``; ``given(N, x, wrong,
    no_answer)`` and ``of_pattern(N, pattern)`` are its ``Method.rate_given`` and ``Method.rate_of_pattern``."""
    def make(m: re.Match) -> Method:
        k = int(m.group(1))
        return Method(m.group(0), collected_calls=0, billed_calls=k,
                      estimator=lambda vanilla, seed: estimates(vanilla, k),
                      rate_from_runs=lambda stats: rate(k, stats),
                      rate_given=lambda x, wrong, no_answer: given(k, x, wrong, no_answer),
                      rate_of_pattern=lambda pattern: of_pattern(k, pattern))

    register(rf"{prefix}([1-9][0-9]?)", f"{prefix}N", make)


def method_forms() -> list[str]:
    """Every registered method family as an example name (``majority_vote_kN``: N = 1..99), in registration order."""
    return [example for _, example, _ in _REGISTRY]


def get_method(name: str) -> Method:
    """The method called ``name``; an unknown name raises ValueError listing the known forms."""
    for pattern, _, make in _REGISTRY:
        if m := pattern.match(name):
            return make(m)
    raise ValueError(f"unknown method {name!r} (known: {', '.join(method_forms())})")


def collected_methods(names: list[str]) -> list[Method]:
    """The methods collection runs: those that make calls, plus vanilla when an estimator needs it."""
    methods = [get_method(n) for n in names]
    out = [m for m in methods if m.is_collected]
    if any(m.estimator for m in methods) and not any(m.name == "vanilla" for m in out):
        out.insert(0, get_method("vanilla"))
    return out
