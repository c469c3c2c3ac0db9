"""``best_of_kN``: N generations judged by an oracle verifier — the attempt passes if any of its N
generations is correct, and costs N generations. Estimated from recorded vanilla runs, not fresh
calls: with n runs of which c are correct, the unbiased estimate over all N-subsets is
``1 - C(n - c, N) / C(n, N)``; C = N · mean vanilla cost (USD). An upper bound for any real
verifier (best-of-N with a reward model or a judge can only pick worse)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import special

from helpers.core.methods.base import ESTIMATE_COLUMNS, RunStats, register_k
from helpers.core.methods.vote_math import any_pass_probability, any_pass_true


def best_of_k_estimates(vanilla: pd.DataFrame, k: int) -> pd.DataFrame:
    """Per (task, problem_id, model) with at least k runs: ``cost_usd`` (k x mean USD), ``pass_rate``, ``n``
    (subsets)."""
    g = vanilla.assign(correct=vanilla["correct"].astype(bool)).groupby(["task", "problem_id", "model"], sort=True)
    out = g.agg(runs=("correct", "size"), passed=("correct", "sum"), usd=("usd", "mean")).reset_index()
    out = out[out["runs"] >= k]
    out["pass_rate"] = [any_pass_probability(n, c, k) for n, c in zip(out["runs"], out["passed"])]
    out["cost_usd"] = k * out["usd"]
    out["n"] = [math.comb(n, k) for n in out["runs"]]
    return out[ESTIMATE_COLUMNS].reset_index(drop=True)


def any_pass_from_runs(k: int, stats: RunStats) -> np.ndarray:
    """``any_pass_probability`` of many cells (``base.RateFromRuns``); NaN below k runs."""
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = 1.0 - special.comb(stats.runs - stats.passed, k) / special.comb(stats.runs, k)
    return np.where(stats.runs >= k, rate, np.nan)


def any_pass_given(k: int, x: np.ndarray, wrong: int, no_answer: float) -> np.ndarray:
    """P(any of k independent runs is correct) given one run's P(correct) ``x``: 1 - (1 - x)^k (the other classes
    do not matter to an oracle verifier)."""
    return any_pass_true(x, k)


def any_pass_of_pattern(k: int, pattern) -> float:
    """``any_pass_given`` for answer classes ((probability, correct), …): the correct classes' total passes."""
    return float(any_pass_true(sum(w for w, ok in pattern if ok), k))


register_k("best_of_k", best_of_k_estimates, any_pass_from_runs, any_pass_given, any_pass_of_pattern)
