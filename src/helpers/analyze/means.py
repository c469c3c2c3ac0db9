"""Tables 5 and 6: each collected strategy's accuracy (0-1) and mean USD per attempt on a dataset, with intervals in
closed form over its runs. Their truth is the mean over the dataset's own problems of each problem's true pass rate
and expected USD per attempt (what the paper's tables estimate); the validity study measures both
(``policy_study``: coverage and width over the oracle's on every generator).

- **Accuracy**: the mean over problems of each problem's share of passed runs. Its truth is the mean of the dataset's
  own problems' pass rates, so its variance is the runs' alone: Σ R_i(1 − R_i)/n_i / P². Each problem's R_i(1 − R_i)
  is read as its posterior mean under a Beta prior of the dataset's pass rates fitted on its problems by the method
  of moments (``beta_prior``: empirical Bayes; Beta(α + s, β + n − s) for s passes of n runs): never 0, so a problem
  that passed all or none of its runs still counts, and where problems differ little the prior is tight and the
  variance the pooled count's. The interval is Jeffreys' for a binomial count of the same mean and that variance
  (n_eff = R̄(1 − R̄) / variance), never wider than the bound every dataset obeys, R̄(1 − R̄) / n_eff with
  n_eff = P² / Σ 1/n_i (the pooled count: every run of the dataset where runs are equal), which alone is conservative
  where problems differ (it counts their spread, which the truth does not have). A dataset with a problem of one run
  takes that bound (one run tells nothing of its own spread). It never leaves [0, 1]; with the usual ends at the edges
  (0 where no run passed, 1 where all did; Brown, Cai & DasGupta 2001). Measured on every generator of the validity
  study at 2, 3, 5 and 8 runs, beside the pooled count alone: ``benchmarks/accuracy_interval.py``.
- **USD per attempt**: the mean over problems of each problem's mean USD per run; its interval is Student's t, with
  each problem's variance its own runs' spread and the degrees of freedom of their sum (Welch–Satterthwaite: few
  where one problem's spread dominates, as with heavy-tailed costs); a dataset with a problem of one run takes the
  spread between problems, which is at least it. The lower end is at least 0.
"""

from __future__ import annotations

import warnings

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
    passed = (live & correct).sum(-1)
    value, count = _group_means(passed / n, has, G)
    a, b = _group_priors(np.where(has, passed, 0), np.where(has, runs, 0), G)
    a, b = a + passed, b + n - passed
    spread = a * b / ((a + b) * (a + b + 1))  # (P, S): each problem's posterior mean of R(1 − R)
    with np.errstate(invalid="ignore", divide="ignore"):
        pooled = count**2 / (G @ np.where(has, 1 / n, 0.0))
        own = value * (1 - value) * count**2 / (G @ np.where(has, spread / n, 0.0))
        one_run = (G @ (has & (n < 2))) > 0
        n_eff = np.fmax(pooled, np.where(one_run, pooled, own))
        x = value * n_eff
        tail = (1 - level) / 2
        low = np.where(x > 0, betaincinv(x + 0.5, n_eff - x + 0.5, tail), 0.0)
        high = np.where(x < n_eff, betaincinv(x + 0.5, n_eff - x + 0.5, 1 - tail), 1.0)
    none = ~(count > 0)
    return tuple(np.where(none, np.nan, v) for v in (value, low, high))  # type: ignore[return-value]


def _group_priors(passed: np.ndarray, tried: np.ndarray, G: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(α, β) (P, S): the ``beta_prior`` of each problem's group (``G`` (T, P) 0/1), fitted on the group's problems;
    ``passed``/``tried`` (P, S) (0 tried: no runs). A problem in no group: Jeffreys' (½, ½)."""
    a, b = np.full(passed.shape, 0.5), np.full(passed.shape, 0.5)
    for row in np.asarray(G) > 0:
        a[row], b[row] = (x[None, :] for x in beta_prior(passed[row], tried[row]))
    return a, b


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


def beta_moments(m: np.ndarray, v: np.ndarray, noise: np.ndarray, count: np.ndarray, passed: np.ndarray,
                 tried: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(α, β) of a Beta distribution of pass rates by the method of moments: ``m`` the mean of the problems' pass
    shares, ``v`` their variance, ``noise`` the part of it the runs' binomial noise explains, ``count`` the problems;
    where the moments give none (rates alike, every try passed or none did) the problems share one rate, its Jeffreys
    posterior from the ``passed`` of all ``tried`` runs (Beta(passed + ½, tried − passed + ½)): a model that passed
    every run of 127 problems is not given even odds of failing the next; Jeffreys' (½, ½) under 3 problems. Arrays of
    one shape."""
    with np.errstate(invalid="ignore", divide="ignore"):
        between = v - noise
        total = np.clip(m * (1 - m) / between - 1, 0.2, 1e4)  # α + β
        usable = (count >= 3) & (m > 0) & (m < 1) & (between > 1e-9)
        pooled_a = np.where(count >= 3, passed + 0.5, 0.5)
        pooled_b = np.where(count >= 3, tried - passed + 0.5, 0.5)
        return (np.where(usable, np.maximum(m * total, 0.05), pooled_a),
                np.where(usable, np.maximum((1 - m) * total, 0.05), pooled_b))


def beta_prior(passed: np.ndarray, tried: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(α, β) (S,) of a Beta distribution of pass rates over problems, per strategy, by the method of moments from
    each problem's passes of its tries ((P, S) each; problems without tries left out): the spread left after the
    runs' own binomial noise (``beta_moments``)."""
    ok = tried > 0
    count = ok.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a strategy without tries: its mean is NaN, and unused
        x = np.where(ok, passed / np.where(ok, tried, 1), np.nan)
        m = np.nanmean(x, axis=0) if len(x) else np.full(x.shape[1], np.nan)
        v = np.nansum((x - m) ** 2, axis=0) / (count - 1)
        noise = np.nansum(np.where(ok, m * (1 - m) / np.where(ok, tried, 1), np.nan), axis=0) / count
    return beta_moments(m, v, noise, count, np.where(ok, passed, 0).sum(axis=0), np.where(ok, tried, 0).sum(axis=0))
