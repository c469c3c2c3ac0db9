"""What the records cannot see, as a range: problems a strategy never passed in its runs.

Where strategy s passed 0 of its n runs on problem p, the plug-in charges cost-of-pass ∞ (the problem falls
back on other strategies and at worst on the human expert), but s may well pass with a small rate. The
records allow any rate up to the exact one-sided binomial bound ``zero_pass_upper(n)`` = 1 − (1 − q)^(1/n)
(Clopper–Pearson at confidence q: a rate above it gives 0 passes in n runs with probability below 1 − q), so
its cost-of-pass lies in [C / R_up, ∞): the *floor* of the cell (a derived strategy billed k calls of its
model's vanilla runs: k·C / (1 − (1 − R_up)^k), the best-of-k rate bounding a vote's). A problem's frontier
V_p(M) then lies in [min(expert, floors and observed values), plug-in], and every statistic of ``headline``
has an identified range (``range_of``): a frontier from all its never-passed cells at their floor up to the
plug-in; a gain from the corner where the base's never-passed cells are at their floor (lowest) to the one where
the added strategies' are (highest). ``unseen_share`` says how much of a statistic's plug-in value comes from
problems that no strategy of it passed.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from helpers.analyze.headline import Level, Spec
from helpers.analyze.statistic import Key
from helpers.core.methods import get_method

# the floor's one-sided confidence: a true rate above the bound shows 0 passes less than 5% of the time
CONFIDENCE = 0.95


def zero_pass_upper(n: np.ndarray | int, confidence: float = CONFIDENCE) -> np.ndarray:
    """The exact one-sided upper confidence bound of a success rate after 0 passes in ``n`` runs (0-1; NaN
    for n = 0): 1 − (1 − confidence)^(1/n)."""
    n = np.asarray(n, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n > 0, 1 - (1 - confidence) ** (1 / np.where(n > 0, n, 1)), np.nan)


def floor_cop(cost: np.ndarray, rate: np.ndarray, runs: np.ndarray, derived: list[tuple[str, int, str]],
              confidence: float = CONFIDENCE) -> np.ndarray:
    """The lowest cost-of-pass the runs allow, (B, P, S_all) USD: C / rate where a strategy passed, C / R_up
    (``zero_pass_upper``) where it passed none of its runs (a derived strategy: where its model's vanilla runs
    passed none, k·C / (1 − (1 − R_up)^k)), ∞ without runs.

    ``cost``, ``rate`` (B, P, S_all) as ``bootstrap.Replicates`` holds them (derived strategies after the
    collected ones, in ``derived``'s order); ``runs`` (P, S) each collected cell's runs."""
    cost, rate = np.asarray(cost, float), np.asarray(rate, float)
    S = runs.shape[1]
    n = np.concatenate([runs, runs[:, [s for _, s, _ in derived]]], axis=1).astype(float)  # (P, S_all)
    k = np.array([1] * S + [get_method(m).billed_calls for _, _, m in derived], float)
    never = np.concatenate([rate[..., :S] == 0, rate[..., [s for _, s, _ in derived]] == 0], axis=-1) & (n > 0)
    reach = 1 - (1 - zero_pass_upper(n, confidence)) ** k  # (P, S_all) the most a k-call attempt can pass
    with np.errstate(divide="ignore", invalid="ignore"):
        observed = np.where(rate > 0, cost / rate, np.inf)
        out = np.where(never, cost / reach, observed)
    return np.where(np.isfinite(cost), out, np.inf)


def rate_bounds(k: np.ndarray, n: np.ndarray, confidence: float = CONFIDENCE) -> tuple[np.ndarray, np.ndarray]:
    """The exact two-sided (Clopper–Pearson) ``confidence`` interval of a success rate after ``k`` passes in
    ``n`` runs, (low, high) 0-1 each (NaN where n = 0)."""
    k, n = np.asarray(k, float), np.asarray(n, float)
    a = (1 - confidence) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(k > 0, stats.beta.ppf(a, np.maximum(k, 1), n - k + 1), 0.0)
        high = np.where(k < n, stats.beta.ppf(1 - a, k + 1, np.maximum(n - k, 1)), 1.0)
    return np.where(n > 0, low, np.nan), np.where(n > 0, high, np.nan)


def cell_box(cube, confidence: float = CONFIDENCE, z: float = 1.96) -> tuple[np.ndarray, np.ndarray]:
    """The cost-of-pass every (problem, strategy) cell's runs allow, (floor, ceiling) each (1, P, S_all) USD: its
    mean USD per attempt ± ``z`` standard errors over the exact ``rate_bounds`` of its pass rate, C_low / R_high
    up to C_high / R_low (∞ where it never passed, and for strategies derived from vanilla runs, whose closed
    form bounds their rate only from above: k·C_low / (1 − (1 − R_high)^k)). ``cube``: a ``bootstrap.RunCube``."""
    valid = np.arange(cube.usd.shape[2]) < cube.runs[..., None]
    n = cube.runs.astype(float)
    k = (cube.correct & valid).sum(-1).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(valid, cube.usd, 0.0).sum(-1) / n
        sd = np.sqrt(np.where(valid, (cube.usd - mean[..., None]) ** 2, 0.0).sum(-1) / np.maximum(n - 1, 1))
        c_lo, c_hi = np.maximum(mean - z * sd / np.sqrt(n), 0.0), mean + z * sd / np.sqrt(n)
        r_lo, r_hi = rate_bounds(k, n, confidence)
        floor, ceiling = c_lo / r_hi, np.where(r_lo > 0, c_hi / r_lo, np.inf)
        van = [s for _, s, _ in cube.derived]
        calls = np.array([get_method(m).billed_calls for _, _, m in cube.derived], float)
        floor_d = calls * c_lo[:, van] / (1 - (1 - r_hi[:, van]) ** calls)
    floor = np.concatenate([floor, floor_d], axis=1)
    ceiling = np.concatenate([ceiling, np.full(floor_d.shape, np.inf)], axis=1)
    has = np.isfinite(np.concatenate([mean, mean[:, van]], axis=1))
    return np.where(has, floor, np.inf)[None], np.where(has, ceiling, np.inf)[None]


class Bounds:
    """Per-problem bounds of V_p(M ∪ {expert}) over B replicates: ``per_problem(strategies)`` -> (low, high),
    each (B, P) USD, and ``mean`` their per-dataset weighted means (B, T).

    ``cop`` (B, P, S_all) plug-in cost-of-pass (∞ where a strategy never passed), ``floor`` (B, P, S_all)
    (``floor_cop``, or ``cell_box``'s), ``expert`` (P,) USD, ``weights`` (B, P), ``task_starts`` (T,),
    ``strategies`` (S_all,); ``ceiling`` (B, P, S_all): each cell's highest cost-of-pass (default ``cop``: the
    identified range, whose high end is the plug-in)."""

    def __init__(self, cop, floor, expert, weights, task_starts, strategies, ceiling=None):
        self.cop, self.floor, self.expert = np.asarray(cop, float), np.asarray(floor, float), np.asarray(expert, float)
        self.ceiling = self.cop if ceiling is None else np.asarray(ceiling, float)
        self.weights, self.starts = np.asarray(weights, float), task_starts
        self.index = {s: i for i, s in enumerate(strategies)}
        self._seen: dict[tuple[str, ...], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def per_problem(self, strategies) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(low, high, unseen): V_p with the strategies' cells at their floor and at their ceiling (the identified
        range: never-passed cells at their floor, and the plug-in), (B, P) USD, and whether no strategy of them
        passed problem p (B, P) bool."""
        key = tuple(strategies)
        if key not in self._seen:
            cols = [self.index[s] for s in key]
            high = np.broadcast_to(self.expert, self.cop.shape[:2]).copy()
            low = high.copy()
            for c in cols:
                np.minimum(high, self.ceiling[..., c], out=high)
                np.minimum(low, self.floor[..., c], out=low)
            unseen = ~np.isfinite(self.cop[..., cols]).any(axis=-1) if cols else np.ones(high.shape, bool)
            self._seen[key] = (low, high, unseen)
        return self._seen[key]

    def mean(self, values: np.ndarray) -> np.ndarray:
        """(B, P) -> (B, T): each dataset's weighted mean."""
        w = self.weights
        return np.add.reduceat(w * values, self.starts, axis=1) / np.add.reduceat(w, self.starts, axis=1)


def range_of(spec: Spec, bounds: Bounds) -> tuple[np.ndarray, np.ndarray]:
    """(lowest, highest) value of a statistic the records allow, (B, T) each (``Bounds``): a frontier from its
    never-passed cells at their floor to the plug-in; a gain G = 1 − Σ min(a, b) / Σ a (a: the base's V_p, b:
    the added strategies') at its two corners — lowest with b as observed and a at the value in its range
    nearest b (clip(b, a_low, a_high)), highest with b at its floor and a as observed where b's floor is below
    it (else at a's floor). Both ends hold the plug-in value."""
    if isinstance(spec, Level):
        lo, hi, _ = bounds.per_problem(spec.strategies)
        scale = spec.factor / (bounds.mean(bounds.per_problem(())[1]) if spec.relative else 1.0)
        return scale * bounds.mean(lo), scale * bounds.mean(hi)
    a_lo, a_hi, _ = bounds.per_problem(spec.base)
    b_lo, b_hi, _ = bounds.per_problem(spec.added)

    def gain(a, b):
        before, after = bounds.mean(a), bounds.mean(np.minimum(a, b))
        return (before - after) / (after if spec.over_after else before)

    low = gain(np.clip(b_hi, a_lo, a_hi), b_hi)
    high = gain(np.where(b_lo < a_hi, a_hi, a_lo), b_lo)
    return low, high


def unseen_share(spec: Spec, bounds: Bounds) -> np.ndarray:
    """(B, T) 0-1: the share of the statistic's plug-in frontier (a gain: its base's, V(base)) carried by
    problems that no strategy of it (a gain: of base and added) passed — the part the plug-in charges the
    expert for."""
    if isinstance(spec, Level):
        _, value, unseen = bounds.per_problem(spec.strategies)
    else:
        value = bounds.per_problem(spec.base)[1]
        unseen = bounds.per_problem(spec.base + spec.added)[2]
    return bounds.mean(value * unseen) / bounds.mean(value)


def ranges(specs: dict[Key, Spec], bounds: Bounds) -> dict[Key, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """statistic -> (lowest, highest, unseen share), (B, T) each, for every statistic of ``specs``."""
    return {name: (*range_of(spec, bounds), unseen_share(spec, bounds)) for name, spec in specs.items()}
