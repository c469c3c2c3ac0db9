"""Majority vote estimated from recorded vanilla runs (no fresh calls).

For a model and problem with n recorded vanilla attempts, the success rate of a k-vote attempt is
estimated by the average over all C(n, k) subsets of those attempts (a U-statistic: unbiased for
k i.i.d. attempts), at most ``max_subsets`` subsets drawn with a seed when C(n, k) is larger. In a
subset, answers are grouped as grading judges them (``grading.canonical_answer``); every attempt
votes, and an attempt without an extracted answer votes "no answer", which scores 0 if it wins (as
in the reference code); the largest group wins and ties are split evenly (equal in expectation to
the reference's first-seen rule). A k-vote attempt costs k generations: C = k · mean vanilla cost (USD).
"""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pandas as pd

from .grading import NumericRule, canonical_answer
from .tasks import get_task


def vote_success(answers: list[str], correct: list[bool], subset: tuple[int, ...]) -> float:
    """Expected correctness of the majority answer of ``subset`` (ties split evenly), 0-1.

    ``answers``: canonical answers (``NO_ANSWER`` for attempts without one); a group is correct
    when its attempts were graded correct.
    """
    groups: dict[str, bool] = {}
    counts: dict[str, int] = {}
    for i in subset:
        a = answers[i]
        counts[a] = counts.get(a, 0) + 1
        groups[a] = groups.get(a, False) or bool(correct[i])
    top = max(counts.values())
    winners = [a for a, c in counts.items() if c == top]
    return sum(groups[a] for a in winners) / len(winners)


def subsets(n: int, k: int, max_subsets: int, seed: int) -> list[tuple[int, ...]]:
    if math.comb(n, k) <= max_subsets:
        return list(itertools.combinations(range(n), k))
    rng = random.Random(seed)
    return [tuple(sorted(rng.sample(range(n), k))) for _ in range(max_subsets)]


def majority_vote_estimates(vanilla: pd.DataFrame, k: int, max_subsets: int = 256, seed: int = 0,
                            numeric_rule: NumericRule = "number") -> pd.DataFrame:
    """Per (task, problem_id, model): ``cost_usd`` (k x mean vanilla USD), ``pass_rate``, ``n`` (subsets).

    ``vanilla``: complete vanilla attempts with ``extracted``, ``correct``, ``usd``. Problems with
    fewer than k attempts are skipped.
    """
    rows = []
    for (task, pid, model), g in vanilla.groupby(["task", "problem_id", "model"], sort=True):
        if len(g) < k:
            continue
        metric = get_task(task).metric
        n_choices = 10  # letters are validated at grading; grouping only needs the letter
        answers = [canonical_answer(a if isinstance(a, str) else None, metric, n_choices, numeric_rule) for a in g["extracted"]]
        correct = [bool(c) for c in g["correct"]]
        subs = subsets(len(g), k, max_subsets, seed)
        rate = float(np.mean([vote_success(answers, correct, s) for s in subs]))
        rows.append({"task": task, "problem_id": pid, "model": model, "cost_usd": k * float(g["usd"].mean()),
                     "pass_rate": rate, "n": len(subs)})
    return pd.DataFrame(rows, columns=["task", "problem_id", "model", "cost_usd", "pass_rate", "n"])
