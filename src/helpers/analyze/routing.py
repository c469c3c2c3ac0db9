"""The oracle-routing cost–accuracy frontier (capability-frontier paper, §4.4) of a set's strategies.

An oracle router picks, per problem, one strategy (any model with any technique) or the human expert
(accuracy 1 at the expert's cost). Sweeping a price of accuracy λ (per USD), each problem takes the
strategy maximising R − λ·C; the mean (cost per problem, accuracy) pairs trace the upper envelope of
what routing can reach, and with randomised routing every budget between two of them is reachable
by mixing, so the accuracy reachable at a budget b (USD per problem) is the envelope interpolated at b.
The cheapest strategy that passes (the cost-of-pass frontier's choice) is the envelope's high-λ end.

Estimators: **plug-in** routes on each problem's observed pass rates — a maximum over noisy estimates,
biased up (the optimizer's curse); **model-based** routes on each problem's posterior mean pass rate
under the item-response model of ``frontier_model`` (shrunk towards its dataset, so less biased).

Shapes: cost and rate (X, P, S) (X replicates, P problems task-major, S strategies; NaN: no estimate),
weights (X, P), expert (P,) USD; results (X, L, T) over the λ grid or (X, K, T) over budgets.
"""

from __future__ import annotations

import numpy as np

LAMBDAS = np.geomspace(1e-2, 1e8, 81)  # accuracy points per USD traded (8 per decade)


def envelope(cost: np.ndarray, rate: np.ndarray, weights: np.ndarray, starts: np.ndarray, expert: np.ndarray,
             lambdas: np.ndarray = LAMBDAS) -> tuple[np.ndarray, np.ndarray]:
    """(accuracy 0-1, USD per problem), each (X, L, T): the oracle's choice per problem at each λ, weighted
    by the replicates' problem weights and averaged per task (scores in float32; ties: the first strategy)."""
    X, P, _ = rate.shape
    usable = np.isfinite(rate) & np.isfinite(cost)
    r = np.concatenate([np.where(usable, rate, -np.inf), np.ones((X, P, 1))], axis=-1).astype(np.float32)
    c = np.concatenate([np.where(usable, cost, 0.0), np.broadcast_to(expert[None, :, None], (X, P, 1))],
                       axis=-1).astype(np.float32)
    w = np.asarray(weights, float)
    wsum = np.add.reduceat(w, starts, axis=1)  # (X, T)
    acc, usd = np.empty((X, len(lambdas), len(starts))), np.empty((X, len(lambdas), len(starts)))
    score = np.empty_like(r)
    for i, lam in enumerate(lambdas):
        np.multiply(c, np.float32(-lam), out=score)
        score += r
        pick = np.argmax(score, axis=-1)[..., None]
        acc[:, i] = np.add.reduceat(w * np.take_along_axis(r, pick, -1)[..., 0], starts, axis=1) / wsum
        usd[:, i] = np.add.reduceat(w * np.take_along_axis(c, pick, -1)[..., 0], starts, axis=1) / wsum
    return acc, usd


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


def model_points(cost: np.ndarray, rate: np.ndarray, weights: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each strategy alone: (accuracy 0-1, USD per attempt), each (X, T, S), over the problems it has estimates for."""
    usable = np.isfinite(rate) & np.isfinite(cost)
    w = weights[..., None] * usable
    with np.errstate(invalid="ignore", divide="ignore"):
        den = np.add.reduceat(w, starts, axis=1)
        return (np.add.reduceat(w * np.where(usable, rate, 0.0), starts, axis=1) / den,
                np.add.reduceat(w * np.where(usable, cost, 0.0), starts, axis=1) / den)
