"""Tables 5 and 6: each collected strategy's accuracy (0-1) and mean USD per attempt on a dataset, with intervals in
closed form over its runs. Their truth is the mean over the dataset's own problems of each problem's true pass rate
and expected USD per attempt (what the paper's tables estimate); the validity study measures both
(``policy_study``: coverage and width over the oracle's on every generator).

- **Accuracy**: the mean over problems of each problem's share of passed runs. Its interval is Jeffreys' for a
  binomial count of the same mean and variance bound: a problem's pass share has variance R(1 − R)/n, and the mean
  of such shares at most R̄(1 − R̄) / n_eff with n_eff = P² / Σ 1/n_i (equal runs: every run of the dataset), so
  the binomial interval is conservative where problems differ and never leaves [0, 1]; with the usual ends at the
  edges (0 where no run passed, 1 where all did; Brown, Cai & DasGupta 2001).
- **USD per attempt**: the mean over problems of each problem's mean USD per run; its interval is Student's t, with
  each problem's variance its own runs' spread and the degrees of freedom of their sum (Welch–Satterthwaite: few
  where one problem's spread dominates, as with heavy-tailed costs); a dataset with a problem of one run takes the
  spread between problems, which is at least it. The lower end is at least 0.
"""

from __future__ import annotations

import numpy as np
from scipy.special import betaincinv, stdtrit


def _group_means(x: np.ndarray, has: np.ndarray, G: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mean over each group's problems with runs (T, S), their count (T, S)) of ``x`` (P, S)."""
    count = G @ has
    with np.errstate(invalid="ignore", divide="ignore"):
        return G @ np.where(has, x, 0.0) / count, count


def accuracy_interval(correct: np.ndarray, runs: np.ndarray, groups: np.ndarray, level: float = 0.95
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(value, low, high), each (T, S), 0-1: the mean pass share of each strategy over each group's problems with
    runs and its Jeffreys interval (module docstring). ``correct`` (P, S, n) bool, ``runs`` (P, S) complete runs,
    ``groups`` (T, P) 0/1 rows (a dataset's problems). NaN where a group has no runs of a strategy."""
    live = np.arange(correct.shape[-1]) < runs[..., None]
    has = runs > 0
    n = np.where(has, runs, 1).astype(float)
    G = np.asarray(groups, float)
    value, count = _group_means((live & correct).sum(-1) / n, has, G)
    with np.errstate(invalid="ignore", divide="ignore"):
        n_eff = count**2 / (G @ np.where(has, 1 / n, 0.0))
        x = value * n_eff
        a = (1 - level) / 2
        low = np.where(x > 0, betaincinv(x + 0.5, n_eff - x + 0.5, a), 0.0)
        high = np.where(x < n_eff, betaincinv(x + 0.5, n_eff - x + 0.5, 1 - a), 1.0)
    none = ~(count > 0)
    return tuple(np.where(none, np.nan, v) for v in (value, low, high))  # type: ignore[return-value]


def cost_interval(usd: np.ndarray, runs: np.ndarray, groups: np.ndarray, level: float = 0.95
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(value, low, high), each (T, S), USD: the mean over each group's problems of each strategy's mean USD per run
    and its t interval (module docstring). ``usd`` (P, S, n) (past a cell's runs: ignored), ``runs`` (P, S),
    ``groups`` (T, P). NaN where a group has no runs of a strategy."""
    live = np.arange(usd.shape[-1]) < runs[..., None]
    has = runs > 0
    n = np.where(has, runs, 1).astype(float)
    x = np.where(live, np.nan_to_num(usd), 0.0)
    G = np.asarray(groups, float)
    mean = x.sum(-1) / n  # (P, S)
    value, count = _group_means(mean, has, G)
    with np.errstate(invalid="ignore", divide="ignore"):
        within = np.where(live, (x - mean[..., None]) ** 2, 0.0).sum(-1) / np.maximum(n - 1, 1) / n  # var of each mean
        var_within = G @ np.where(has, within, 0.0) / count**2
        dev = np.where(has, mean - (G.T @ np.nan_to_num(value)), 0.0)
        var_between = G @ dev**2 / np.maximum(count - 1, 1) / count
        single = (G @ (has & (runs < 2))) > 0  # a problem with one run: its own spread is unknown
        var = np.where(single, np.maximum(var_between, var_within), var_within)
        # Welch–Satterthwaite: the degrees of freedom of a sum of variances each estimated from its own runs, few
        # where one problem's spread dominates (a heavy tail), so the quantile widens where one draw could mislead
        df = (G @ np.where(has, within, 0.0)) ** 2 / (G @ np.where(has & (runs > 1),
                                                                   within**2 / np.maximum(n - 1, 1), 0.0))
        df = np.where(single | ~np.isfinite(df), np.maximum(count - 1, 1), np.maximum(df, 1.0))
        half = stdtrit(df, 1 - (1 - level) / 2) * np.sqrt(var)
    none = ~(count > 0)
    bounds = (value, np.maximum(value - half, 0.0), value + half)
    return tuple(np.where(none, np.nan, v) for v in bounds)  # type: ignore[return-value]
