"""``majority_vote_kN``: N generations, the most common answer wins — estimated from recorded vanilla
runs, not fresh calls.

For a model and problem with n recorded vanilla attempts, the success rate of a k-vote attempt is
estimated by the average over all C(n, k) subsets of those attempts (a U-statistic: unbiased for
k i.i.d. attempts), at most ``max_subsets`` subsets drawn with a seed when C(n, k) is larger. In a
subset, answers are grouped by the ``answer_key`` grading gave them (equal keys: answers graded alike); every attempt
votes, and an attempt without an extracted answer votes "no answer", which scores 0 if it wins (as
in the reference code); the largest group wins and ties are split evenly (equal in expectation to
the reference's first-seen rule). A k-vote attempt costs k generations: C = k · mean vanilla cost (USD).
"""

from __future__ import annotations

import itertools
import math
import random
from functools import lru_cache

import numpy as np
import pandas as pd

from helpers.core.methods.base import ESTIMATE_COLUMNS, Method, register


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


@lru_cache(maxsize=1024)
def subsets(n: int, k: int, max_subsets: int, seed: int) -> list[tuple[int, ...]]:
    if math.comb(n, k) <= max_subsets:
        return list(itertools.combinations(range(n), k))
    rng = random.Random(seed)
    return [tuple(sorted(rng.sample(range(n), k))) for _ in range(max_subsets)]


def vote_pattern(answers: list[str], correct: list[bool], k: int, max_subsets: int) -> tuple:
    """What the vote success of a problem depends on, as a hashable key.

    When every k-subset is enumerated, only the answer groups' sizes and correctness matter: the
    sorted (size, correct) pairs. When subsets are sampled, the runs' order matters too: the answers
    relabelled by first appearance, with each run's correctness.
    """
    if math.comb(len(answers), k) <= max_subsets:
        groups: dict[str, list] = {}
        for a, c in zip(answers, correct):
            g = groups.setdefault(a, [0, False])
            g[0] += 1
            g[1] = g[1] or c
        return ("groups", tuple(sorted((n, ok) for n, ok in groups.values())))
    labels: dict[str, int] = {}
    return ("runs", tuple(labels.setdefault(a, len(labels)) for a in answers), tuple(correct))


@lru_cache(maxsize=65536)
def pattern_success(pattern: tuple, k: int, max_subsets: int, seed: int) -> float:
    """Mean vote success over the k-subsets of the runs a ``vote_pattern`` describes (0-1)."""
    if pattern[0] == "groups":  # a representative order: each group's runs in a row
        answers = [str(i) for i, (n, _) in enumerate(pattern[1]) for _ in range(n)]
        correct = [ok for n, ok in pattern[1] for _ in range(n)]
    else:
        answers, correct = [str(label) for label in pattern[1]], list(pattern[2])
    return float(np.mean([vote_success(answers, correct, s) for s in subsets(len(answers), k, max_subsets, seed)]))


def majority_vote_estimates(vanilla: pd.DataFrame, k: int, max_subsets: int = 256, seed: int = 0) -> pd.DataFrame:
    """Per (task, problem_id, model): ``cost_usd`` (k x mean vanilla USD), ``pass_rate``, ``n`` (subsets).

    ``vanilla``: complete vanilla attempts with ``answer_key`` (the vote; ``NO_ANSWER`` without an
    answer), ``correct``, ``usd``. Problems with fewer than k attempts are skipped. The vote success
    is computed once per ``vote_pattern``.
    """
    v = vanilla.sort_values(["task", "problem_id", "model"], kind="stable")
    keys = list(zip(v["task"], v["problem_id"], v["model"]))
    votes, correct_col, usd = v["answer_key"].tolist(), v["correct"].tolist(), v["usd"].to_numpy(dtype=float)
    rows, i = [], 0
    while i < len(keys):
        j = i
        while j < len(keys) and keys[j] == keys[i]:
            j += 1
        task, pid, model = keys[i]
        if j - i >= k:
            answers = [str(a) for a in votes[i:j]]
            correct = [bool(c) for c in correct_col[i:j]]
            rate = pattern_success(vote_pattern(answers, correct, k, max_subsets), k, max_subsets, seed)
            rows.append({"task": task, "problem_id": pid, "model": model, "cost_usd": k * float(usd[i:j].mean()),
                         "pass_rate": rate, "n": len(subsets(j - i, k, max_subsets, seed))})
        i = j
    return pd.DataFrame(rows, columns=ESTIMATE_COLUMNS)


def _make(m) -> Method:
    k = int(m.group(1))
    return Method(m.group(0), collected_calls=0, billed_calls=k,
                  estimator=lambda vanilla, seed: majority_vote_estimates(vanilla, k, seed=seed))


register(r"majority_vote_k([1-9][0-9]?)", "majority_vote_kN", _make)
