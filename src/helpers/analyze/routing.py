"""The oracle-routing cost–accuracy frontier (capability-frontier paper, §4.4) of a set's strategies.

An oracle router picks, per problem, one strategy (any model with any technique) or the human expert
(accuracy 1 at the expert's cost). Sweeping a price of accuracy λ (per USD), each problem takes the
strategy maximising R − λ·C; the mean (cost per problem, accuracy) pairs trace the upper envelope of
what routing can reach, and with randomised routing every budget between two of them is reachable
by mixing, so the accuracy reachable at a budget b (USD per problem) is the envelope interpolated at b.
The cheapest strategy that passes (the cost-of-pass frontier's choice) is the envelope's high-λ end.

Estimators: **plug-in** routes on each problem's observed pass rates — a maximum over noisy estimates,
biased up (the optimizer's curse); **model-based** routes on each problem's posterior mean pass rate
under the item-response model of ``frontier_model`` (shrunk towards its dataset, so less biased);
**cross-fitted** (``crossfit_envelope``) routes on half of each cell's runs and is valued on the other half, both
ways, over random halvings — what routing chosen on one's runs reaches on new runs (collected strategies only); its
interval comes from resampling problems (the choices are per problem, so only the average moves).

Shapes: cost and rate (X, P, S) (X replicates, P problems task-major, S strategies; NaN: no estimate),
weights (X, P), expert (P,) USD; results (X, L, T) over the λ grid or (X, K, T) over budgets.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from helpers.analyze.bootstrap import percentile_interval

LAMBDAS = np.geomspace(1e-7, 1e8, 121)  # accuracy per USD traded (8 per decade): down to where an expert fee of
# ~$40 still beats a strategy at 99.9% (the envelope reaches the expert)
CHUNK = 1 << 18  # cells of (replicate, λ, problem, option) ``envelope`` scores in one array (1 MiB of float32)


def envelope(cost: np.ndarray, rate: np.ndarray, weights: np.ndarray, starts: np.ndarray, expert: np.ndarray,
             lambdas: np.ndarray = LAMBDAS, value: tuple[np.ndarray, np.ndarray] | None = None
             ) -> tuple[np.ndarray, np.ndarray]:
    """(accuracy 0-1, USD per problem), each (X, L, T): the oracle's choice per problem at each λ, weighted
    by the replicates' problem weights and averaged per task (scores in float32; ties: the first strategy).
    ``value``: (cost, rate) the choices are valued at instead of those they are made on (cross-fitting; an option
    must have both)."""
    X = rate.shape[0]
    usable = np.isfinite(rate) & np.isfinite(cost)
    if value is not None:
        usable &= np.isfinite(value[0]) & np.isfinite(value[1])
    r, c = _with_expert(cost, rate, usable, expert, -np.inf)
    rv, cv = (r, c) if value is None else _with_expert(*value, usable, expert, 0.0)
    w = np.asarray(weights, float)
    wsum = np.add.reduceat(w, starts, axis=1)[:, None]  # (X, 1, T)
    acc, usd = np.empty((X, len(lambdas), len(starts))), np.empty((X, len(lambdas), len(starts)))
    step = max(1, CHUNK // r.size)  # λs scored at once: (X, step, P, S + 1) float32, at most about CHUNK cells
    for i in range(0, len(lambdas), step):
        lam = np.asarray(lambdas[i:i + step], np.float32)
        pick = np.argmax(c[:, None] * -lam[None, :, None, None] + r[:, None], axis=-1)[..., None]  # (X, L_i, P, 1)
        for out, v in ((acc, rv), (usd, cv)):
            chosen = np.take_along_axis(v[:, None], pick, -1)[..., 0]  # (X, L_i, P)
            out[:, i:i + step] = np.add.reduceat(w[:, None] * chosen, starts, axis=2) / wsum
    return acc, usd


def _with_expert(cost: np.ndarray, rate: np.ndarray, usable: np.ndarray, expert: np.ndarray, unusable_rate: float
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(rate, cost) (X, P, S + 1) float32 with the expert as the last option (rate 1 at its cost)."""
    X, P, _ = rate.shape
    r = np.concatenate([np.where(usable, rate, unusable_rate), np.ones((X, P, 1))], axis=-1).astype(np.float32)
    c = np.concatenate([np.where(usable, cost, 0.0), np.broadcast_to(expert[None, :, None], (X, P, 1))],
                       axis=-1).astype(np.float32)
    return r, c


def half_means(usd: np.ndarray, correct: np.ndarray, runs: np.ndarray,
               slots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(USD per attempt, pass rate), each (P, S), over the run slots ``slots`` ((n,) bool) that each cell has
    (``usd``/``correct`` (P, S, n), ``runs`` (P, S) filled slots); NaN where a cell has none of them."""
    have = (np.arange(usd.shape[-1])[None, None, :] < runs[..., None]) & slots[None, None, :]
    k = have.sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        cost = np.where(have, np.nan_to_num(usd), 0.0).sum(-1) / k
        rate = np.where(have, correct, False).sum(-1) / k
    return np.where(k > 0, cost, np.nan), np.where(k > 0, rate, np.nan)


def crossfit_problems(usd: np.ndarray, correct: np.ndarray, runs: np.ndarray, expert: np.ndarray, seed: int = 0,
                      splits: int = 4, lambdas: np.ndarray = LAMBDAS,
                      truth: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(accuracy 0-1, USD), each (L + 1, P), per problem: for each of ``splits`` random halvings of the run slots, the
    oracle chooses at each λ on one half's pass rates and costs and is valued on the other half's, both ways; the
    2 × ``splits`` values averaged, and a last row (L = λs + 1): the expert (accuracy 1 at its cost), a router that
    needs no estimate. Options without runs in both halves are not chosen. ``truth``: (USD per attempt, rate), each
    (P, S), to value the same choices at instead of the other half (the validity study's truth of this estimate).
    ``usd``/``correct`` (P, S, n), ``runs`` (P, S) filled slots, ``expert`` (P,) USD. Needs 2 runs or more."""
    rng = np.random.default_rng(seed)
    n, P = usd.shape[-1], usd.shape[0]
    acc, out_usd = np.zeros((len(lambdas), P)), np.zeros((len(lambdas), P))
    for _ in range(splits):
        first = np.zeros(n, bool)
        first[rng.permutation(n)[: n // 2]] = True
        halves = [half_means(usd, correct, runs, first), half_means(usd, correct, runs, ~first)]
        for (c_pick, r_pick), (c_val, r_val) in ((halves[0], halves[1]), (halves[1], halves[0])):
            if truth is not None:  # the same choices (an option needs both halves), valued at the truth
                seen = np.isfinite(c_val) & np.isfinite(r_val)
                c_val, r_val = np.where(seen, truth[0], np.nan), np.where(seen, truth[1], np.nan)
            a, u = envelope(c_pick[None], r_pick[None], np.ones((1, P)), np.arange(P), expert, lambdas,
                            value=(c_val[None], r_val[None]))
            acc, out_usd = acc + a[0], out_usd + u[0]
    return (np.vstack([acc / (2 * splits), np.ones((1, P))]),
            np.vstack([out_usd / (2 * splits), np.asarray(expert, float)[None]]))


@dataclass(frozen=True)
class CrossFitted:
    """The cross-fitted router's envelope over the λ grid and the all-expert point (L + 1): accuracy 0-1 and USD per
    problem, each (1 + B, L + 1, T), the estimate (X = 0) and under B problem draws; and accuracy bounds from counts,
    each (1, L + 1, T), where the draws collapse (``count_bounds``)."""
    acc: np.ndarray
    usd: np.ndarray
    floor: np.ndarray
    ceiling: np.ndarray

    def at(self, budgets: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(value, low, high), each (K, T), of the accuracy reachable at ``budgets`` (T, K) USD per problem: the
        ``level`` percentile interval of the problem draws, widened to the count bounds and to hold the value."""
        value = at_budgets(self.acc[:1], self.usd[:1], budgets)[0]
        lo, hi = percentile_interval(at_budgets(self.acc[1:], self.usd[1:], budgets), level)
        floor, ceiling = (at_budgets(b, self.usd[:1], budgets)[0] for b in (self.floor, self.ceiling))
        return value, np.fmin(np.fmin(lo, floor), value), np.fmax(np.fmax(hi, ceiling), value)


def crossfit_envelope(usd: np.ndarray, correct: np.ndarray, runs: np.ndarray, starts: np.ndarray, expert: np.ndarray,
                      seed: int = 0, splits: int = 4, lambdas: np.ndarray = LAMBDAS, weights: np.ndarray | None = None,
                      level: float = 0.95) -> CrossFitted:
    """``CrossFitted``: ``crossfit_problems`` averaged over each dataset's problems (X = 0), and under each of the B
    problem draws ``weights`` (B, P) (a problem bootstrap: X = 1..B); its ``level`` count bounds. Unbiased for what
    routing chosen on half the runs reaches on new runs (no optimizer's curse)."""
    P = usd.shape[0]
    per_problem = crossfit_problems(usd, correct, runs, expert, seed, splits, lambdas)
    w = np.ones((1, P)) if weights is None else np.vstack([np.ones((1, P)), weights])
    acc, cost = (by_task(v, w, starts) for v in per_problem)
    half = max(1, int(runs[runs > 0].min()) // 2) if (runs > 0).any() else 1  # the fewest held-out runs a cell has
    return CrossFitted(acc, cost, *count_bounds(acc[:1], np.diff([*starts, P]), half, level))


def count_bounds(acc: np.ndarray, problems: np.ndarray, half: int, level: float) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) accuracy bounds, each like ``acc`` (…, T), of a dataset's mean held-out accuracy ``acc`` over its
    ``problems`` (T,) problems with at least ``half`` held-out runs each: given the choices, its N held-out passes are
    a sum of independent Bernoulli draws, whose tails lie within those of a binomial of the same mean (Hoeffding
    1956), so the Clopper–Pearson interval of x = acc · N passes in N runs holds at ``level``. Where every held-out
    run passed, the problem draws all give 1 and their interval collapses; this one does not."""
    from scipy.special import betaincinv

    n = half * np.asarray(problems, float)
    x = np.clip(acc * n, 0.0, n)
    a = (1 - level) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(x > 0, betaincinv(np.maximum(x, 1e-12), n - x + 1, a), 0.0)
        high = np.where(x < n, betaincinv(x + 1, np.maximum(n - x, 1e-12), 1 - a), 1.0)
    return low, high


def by_task(values: np.ndarray, weights: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """(X, L, T): per-problem ``values`` (L, P) averaged over each dataset's problems (first problems ``starts``)
    under each row of ``weights`` (X, P)."""
    bounds = [*starts, values.shape[1]]
    return np.stack([(weights[:, a:b] @ values[:, a:b].T) / weights[:, a:b].sum(1, keepdims=True)
                     for a, b in zip(bounds[:-1], bounds[1:], strict=True)], axis=-1)


def at_budgets(acc: np.ndarray, usd: np.ndarray, budgets: np.ndarray) -> np.ndarray:
    """Accuracy reachable at each task's budgets ``budgets`` (T, K) USD per problem, (X, K, T): the envelope of
    (usd, acc) over λ interpolated linearly (randomised routing between two envelope points); NaN below
    its cheapest point, its best accuracy above its dearest."""
    X, _, T = acc.shape
    out = np.full((X, budgets.shape[1], T), np.nan)
    for t in range(T):
        order = np.argsort(usd[:, :, t], axis=1, kind="stable")
        u = np.take_along_axis(usd[:, :, t], order, 1)
        a = np.maximum.accumulate(np.take_along_axis(acc[:, :, t], order, 1), axis=1)
        for x in range(X):
            inside = budgets[t] >= u[x, 0]
            out[x, inside, t] = np.interp(budgets[t, inside], u[x], a[x])
    return out


def budget_grid(*usd: np.ndarray, points: int = 60) -> np.ndarray:
    """(T, K) log-spaced budgets (USD per problem) spanning each task's envelopes of the estimates (X = 0 of each
    (X, L, T) ``usd``)."""
    lo = np.nanmin([np.nanmin(u[0], axis=0) for u in usd], axis=0)
    hi = np.nanmax([np.nanmax(u[0], axis=0) for u in usd], axis=0)
    return np.stack([np.geomspace(max(a, 1e-9), max(b, a * 1.0001, 1e-9), points) for a, b in zip(lo, hi)])


def model_points(cost: np.ndarray, rate: np.ndarray, weights: np.ndarray,
                 starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each strategy alone: (accuracy 0-1, USD per attempt), each (X, T, S), over the problems it has estimates for."""
    usable = np.isfinite(rate) & np.isfinite(cost)
    w = weights[..., None] * usable
    with np.errstate(invalid="ignore", divide="ignore"):
        den = np.add.reduceat(w, starts, axis=1)
        return (np.add.reduceat(w * np.where(usable, rate, 0.0), starts, axis=1) / den,
                np.add.reduceat(w * np.where(usable, cost, 0.0), starts, axis=1) / den)
