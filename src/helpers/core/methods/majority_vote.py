"""``majority_vote_kN``: N generations, the most common answer wins — estimated from recorded vanilla
runs, not fresh calls.

For a model and problem with n recorded vanilla attempts, the success rate of a k-vote attempt is
the mean over all C(n, k) subsets of those attempts (a U-statistic: unbiased for k i.i.d. attempts),
computed exactly in closed form (``vote_math.vote_probability``: multivariate hypergeometric), never
by sampling subsets. Answers are grouped by the ``answer_key`` grading gave them (equal keys: answers
graded alike); every attempt votes, and an attempt without an extracted answer votes "no answer",
which scores 0 if it wins (as in the reference code); the largest group wins and ties are split
evenly (equal in expectation to the reference's first-seen rule). A k-vote attempt costs k
generations: C = k · mean vanilla cost (USD).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from helpers.core.methods.base import ESTIMATE_COLUMNS, RunStats, register_k
from helpers.core.methods.vote_math import pattern_codes, vote_polynomial, vote_probability, vote_rates


def class_matrix(gid: np.ndarray, answer: np.ndarray, correct: np.ndarray,
                 n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Per group, the sizes and correctness of its answer classes: two (n_groups, J) arrays (size 0 =
    unused slot). ``gid``: group of each run (0..n_groups-1); ``answer``: its answer class code; ``correct``: bool."""
    per_class = (pd.DataFrame({"g": gid, "a": answer, "c": correct})
                 .groupby(["g", "a"], sort=False).agg(n=("c", "size"), ok=("c", "any")).reset_index())
    slot = per_class.groupby("g", sort=False).cumcount().to_numpy()
    width = int(slot.max()) + 1 if len(slot) else 1
    sizes, ok = np.zeros((n_groups, width), dtype=np.int64), np.zeros((n_groups, width), dtype=bool)
    sizes[per_class["g"].to_numpy(), slot] = per_class["n"].to_numpy()
    ok[per_class["g"].to_numpy(), slot] = per_class["ok"].to_numpy()
    return sizes, ok


def majority_vote_estimates(vanilla: pd.DataFrame, k: int) -> pd.DataFrame:
    """Per (task, problem_id, model): ``cost_usd`` (k x mean vanilla USD), ``pass_rate``, ``n`` (k-subsets).

    ``vanilla``: complete vanilla attempts with ``answer_key`` (the vote; ``NO_ANSWER`` without an
    answer), ``correct``, ``usd``. Problems with fewer than k attempts are skipped.
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
    rate = vote_rates(*class_matrix(gid, answer, correct, len(starts)), k)
    keep = sizes >= k
    first = v.iloc[starts[keep]]
    return pd.DataFrame({
        "task": first["task"].to_numpy(), "problem_id": first["problem_id"].to_numpy(),
        "model": first["model"].to_numpy(), "cost_usd": cost[keep], "pass_rate": rate[keep],
        "n": [math.comb(n, k) for n in sizes[keep].tolist()],
    }, columns=ESTIMATE_COLUMNS)


def vote_rate_from_runs(k: int, stats: RunStats) -> np.ndarray:
    """The k-vote success rate of many cells (``base.RateFromRuns``): one closed form per distinct pattern."""
    if "patterns" not in stats.cache:  # shared by every k
        stats.cache["patterns"] = pattern_codes(stats.sizes, stats.class_ok)
    return vote_rates(stats.sizes, stats.class_ok, k, stats.cache["patterns"])


def vote_given(k: int, x: np.ndarray, wrong: int, no_answer: float) -> np.ndarray:
    """P(a k-vote is correct) given one run's P(correct) ``x``, ``wrong`` equally likely wrong answers sharing the
    rest but ``no_answer`` (``vote_math.vote_polynomial``, with replacement), clipped to [0, 1]."""
    return np.clip(np.polyval(vote_polynomial(k, wrong, no_answer), x), 0.0, 1.0)


def vote_of_pattern(k: int, pattern) -> float:
    """P(a k-vote is correct) for answer classes ((probability, correct), …), with replacement."""
    return vote_probability(tuple((float(w), bool(ok)) for w, ok in pattern), k, True)


register_k("majority_vote_k", majority_vote_estimates, vote_rate_from_runs, vote_given, vote_of_pattern)
