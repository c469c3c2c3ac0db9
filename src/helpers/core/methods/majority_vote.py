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
    is computed once per distinct ``vote_pattern``: where every k-subset is enumerated, the patterns
    of all problems are found at once (answer groups' sizes and correctness as rows of one array).
    """
    if vanilla.empty:
        return pd.DataFrame(columns=ESTIMATE_COLUMNS)
    v = vanilla.sort_values(["task", "problem_id", "model"], kind="stable")
    gid = v.groupby(["task", "problem_id", "model"], sort=False).ngroup().to_numpy()  # contiguous, increasing
    starts = np.flatnonzero(np.r_[True, gid[1:] != gid[:-1]])
    sizes = np.diff(np.r_[starts, len(v)])
    answer = pd.factorize(v["answer_key"])[0]  # one code per answer class (a missing key is a class too)
    correct = v["correct"].fillna(False).to_numpy(dtype=bool)
    cost = k * np.add.reduceat(v["usd"].to_numpy(dtype=float), starts) / sizes
    n_subsets = {n: len(subsets(n, k, max_subsets, seed)) for n in set(sizes.tolist()) if n >= k}
    rate = np.full(len(starts), np.nan)
    enumerated = np.array([n >= k and math.comb(n, k) <= max_subsets for n in sizes.tolist()])
    if enumerated.any():
        rate[enumerated] = _enumerated_rates(gid, answer, correct, enumerated, k, max_subsets, seed)
    for g in np.flatnonzero(~enumerated & (sizes >= k)):  # sampled subsets: the runs' order matters
        lo, hi = starts[g], starts[g] + sizes[g]
        answers, ok = [str(a) for a in answer[lo:hi]], correct[lo:hi].tolist()
        rate[g] = pattern_success(vote_pattern(answers, ok, k, max_subsets), k, max_subsets, seed)
    keep = sizes >= k
    first = v.iloc[starts[keep]]
    return pd.DataFrame({
        "task": first["task"].to_numpy(), "problem_id": first["problem_id"].to_numpy(),
        "model": first["model"].to_numpy(), "cost_usd": cost[keep], "pass_rate": rate[keep],
        "n": [n_subsets[n] for n in sizes[keep].tolist()],
    }, columns=ESTIMATE_COLUMNS)


def _enumerated_rates(gid: np.ndarray, answer: np.ndarray, correct: np.ndarray, groups: np.ndarray, k: int,
                      max_subsets: int, seed: int) -> np.ndarray:
    """Vote success of the groups where ``groups`` is true (all k-subsets enumerated), 0-1.

    Each group's pattern is the multiset of (answer-group size, correct) pairs, encoded as
    ``2·size + correct`` and sorted: one row per group, so the distinct patterns are the distinct rows.
    """
    rows = np.flatnonzero(groups[gid])
    pairs = pd.DataFrame({"g": gid[rows], "a": answer[rows], "c": correct[rows]})
    per_class = pairs.groupby(["g", "a"], sort=False).agg(n=("c", "size"), ok=("c", "any")).reset_index()
    per_class["code"] = 2 * per_class["n"] + per_class["ok"].astype(int)
    per_class = per_class.sort_values(["g", "code"], ascending=[True, False])
    position = per_class.groupby("g", sort=False).cumcount().to_numpy()
    index = {g: i for i, g in enumerate(np.flatnonzero(groups))}
    matrix = np.full((len(index), position.max() + 1), -1)
    matrix[[index[g] for g in per_class["g"].tolist()], position] = per_class["code"].to_numpy()
    patterns, inverse = np.unique(matrix, axis=0, return_inverse=True)
    success = [pattern_success(("groups", tuple(sorted((int(c) // 2, bool(c % 2)) for c in row if c >= 0))),
                               k, max_subsets, seed) for row in patterns]
    return np.asarray(success)[inverse.ravel()]


def _make(m) -> Method:
    k = int(m.group(1))
    return Method(m.group(0), collected_calls=0, billed_calls=k,
                  estimator=lambda vanilla, seed: majority_vote_estimates(vanilla, k, seed=seed))


register(r"majority_vote_k([1-9][0-9]?)", "majority_vote_kN", _make)
