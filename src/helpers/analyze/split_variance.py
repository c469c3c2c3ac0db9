"""What a routed choice's value would vary by if each problem's runs were drawn again, problem by problem (issue 61).

A routed choice (``policy.crossfit_halves`` with the shared difficulty alone) values each problem as the mean over
every split of its r runs into a choosing half and a valuing half of m = r − r // 2 runs: split c's value is the
records part and "all k tries failed" read on its valuing half, of the option its choosing half chose. Given the
problem, only its runs vary; a problem's choice never reads its valuing half, and the problems' runs are independent,
so the variance of a set's mean is the sum of each problem's, over the squared number of problems. Each problem's:

- the records part (``pair_products``): splits c and its complement c̄ value disjoint halves, so half the mean of
  (x_c − x_c̄)(y_c − y_c̄) estimates the covariance of one half's values; the mean over all splits of a part linear in
  the runs varies half as much as one half's value (``LINEAR``), exactly where the choices hold (where they move
  between the two splits, the pairs also count how the choices differ, and err wide);
- the fee part (``fee_products``): split c's all-fail estimate of option o is the mean over the k-subsets of its
  m valuing runs of "all k failed"; two splits' estimates of one option covary by Σ_i W[j, i] (q^(2k − i) − q^(2k)),
  j the valuing runs they share (``overlaps``, ``shared_tries``), and different options' runs are independent. The
  powers of q come from each problem's posterior under the empirical-Bayes prior of its dataset
  (``fee_prior.power_moments``): a problem whose runs all passed may still fail, a spread the split pairs cannot see.

The fee part is not linear in the runs: "all k of a half's runs failed" is a U-statistic of degree k, and its mean
over every split varies far less than half of one half's value wherever q is not near 1 (down to 1 / C(r, k) where
q is small). So the split pairs read the fee part at ``LINEAR`` only where the choices move between a split and its
complement; where every choice holds, the fee part's gaps are scaled by ``held_scale``, the square root of what the
posterior says the mean over splits keeps of one half's variance with those choices, over ``LINEAR``. Scaling the
gaps, not their products, keeps each problem's readings a covariance matrix (a gain's interval turns on Var(A −
(1 − g) B), which a reading that is not one can put at 0). The two readings still disagree where choices move: the
split pairs count how the two splits' choices differ, and err wide; the prior's covariance, taken with the choices
held, missed part of the spread under problem × model interactions (a technique's gain held 91.3-92.5% of 40 sets on
three such generators). A gain (``policy.routed_gain_interval``) is the interval of the ratio of the two means,
B − A over B (or over A), which share each problem's runs, by the delta method at its estimate (``delta_ratio``), under
the larger of the two readings: the union of their two intervals. Measured on every generator of the validity study:
``benchmarks/routed_gains.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import comb

import numpy as np


@dataclass(frozen=True)
class SplitParts:
    """What a routed choice keeps of each split for its variance: ``records`` and ``fees`` (R, P) USD each split's
    records and fee parts (rows as ``policy.CrossFitted.chosen``'s), ``powers`` (P, O, k + 1) the posterior
    E[q^(k + e)], e = 0..k, of each option's failure rate, ``runs`` (P,) the runs split (0: not split, fewer
    than 2k, or an odd number, whose splits have no complement)."""

    records: np.ndarray
    fees: np.ndarray
    powers: np.ndarray
    runs: np.ndarray


LINEAR = 0.5  # Var(mean over all splits) ÷ Var(one half's value), exact for a part linear in the runs


@lru_cache(maxsize=8)
def overlaps(r: int, choosing: bytes) -> np.ndarray:
    """(C, C) int: how many valuing runs splits c and c' share, for ``choosing`` the (C, r) 0/1 float64 array of
    which runs choose in each split, as bytes (``policy._halves(r).tobytes()``)."""
    halves = np.frombuffer(choosing).reshape(-1, r)
    valuing = 1 - halves
    out = np.rint(valuing @ valuing.T).astype(np.int64)
    out.setflags(write=False)
    return out


def pair_products(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """(P,) ``LINEAR`` × the covariance of one valuing half's values of two parts, each (R, P) per split (rows in
    split order, each problem's splits tiled so that row R − 1 − c is split c's complement): half the mean over splits
    of (x_c − x_c̄)(y_c − y_c̄)."""
    dx, dy = x - x[::-1], y - y[::-1]
    return LINEAR * (dx * dy).mean(axis=0) / 2


def _comb(n: int, r: int) -> int:
    return comb(n, r) if 0 <= r <= n else 0


@lru_cache(maxsize=32)
def shared_tries(m: int, k: int) -> np.ndarray:
    """(m + 1, k + 1): W[j, i] the share of the pairs (a, b) of k-subsets, a of one valuing half of m runs and b of
    another sharing j runs with it, whose intersection holds i runs: Cov(f̂_c, f̂_c') = Σ_i W[j, i] (q^(2k − i) −
    q^(2k)) for the all-fail estimates f̂ = C(F, k) / C(m, k) of the two halves (each the mean over its k-subsets of
    "all k failed")."""
    W = np.zeros((m + 1, k + 1))
    for j in range(m + 1):
        for i in range(min(j, k) + 1):
            rest = j - i  # shared runs in neither's intersection: each in a, in b or in neither
            W[j, i] = _comb(j, i) * sum(_comb(rest, u) * _comb(m - j, k - i - u) * _comb(rest - u, v)
                                        * _comb(m - j, k - i - v) for u in range(rest + 1) for v in range(rest - u + 1))
    W /= comb(m, k) ** 2
    W.setflags(write=False)
    return W


def fee_products(x: np.ndarray, y: np.ndarray, powers: np.ndarray, J: np.ndarray, m: int) -> np.ndarray:
    """(n,) Σ_o Σ_{c,c'} x[o, c] y[o, c'] Cov(f̂_c, f̂_c') / C² for n problems: ``x``/``y`` (n, O, C) weights of each
    option's all-fail estimate from each split's valuing half of ``m`` runs (e.g. 1 where the split chose it),
    ``powers`` (n, O, k + 1) the posterior E[q^(k + e)], e = 0..k, of each option's failure rate, ``J`` (C, C)
    ``overlaps`` (0..m)."""
    n, options, C = x.shape
    k = powers.shape[-1] - 1
    live = (x != 0).any(axis=2) | (y != 0).any(axis=2)  # (n, O): the options some split weighs
    xs, ys, mu = x[live], y[live], powers[live]  # (N, C), (N, C), (N, k + 1)
    cov = (mu[:, ::-1] - mu[:, k:]) @ shared_tries(m, k).T  # (N, m + 1): per overlap j; mu[:, k − i] = E[q^(2k − i)]
    form = np.zeros(len(xs))
    for j in range(m + 1):
        form += ((xs @ (J == j)) * ys).sum(axis=1) * cov[:, j]
    out = np.zeros((n, options))
    out[live] = form
    return out.sum(axis=1) / C**2


def held_scale(x: np.ndarray, powers: np.ndarray, J: np.ndarray, m: int) -> np.ndarray:
    """(n,) what a routed choice's fee-part gaps between a split and its complement are scaled by where every choice
    holds: √(ratio ÷ ``LINEAR``), the ratio being the variance of the fee part's mean over splits with the choices
    held (``fee_products``) over the mean over splits of one valuing half's own variance (the overlap j = m), clipped
    to [0, 1]; 1 where no split weighs an option. ``x`` (n, O, C) each option's weight in each split, ``powers``
    (n, O, k + 1), ``J`` and ``m`` as ``fee_products``."""
    k = powers.shape[-1] - 1
    one = ((powers[..., ::-1] - powers[..., k:]) @ shared_tries(m, k)[m])  # (n, O): one valuing half's variance
    whole = ((x**2).mean(axis=2) * one).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(whole > 0, fee_products(x, x, powers, J, m) / whole, LINEAR)
    return np.sqrt(np.clip(ratio, 0.0, 1.0) / LINEAR)


def delta_ratio(d: np.ndarray, b: np.ndarray, V: tuple[np.ndarray, np.ndarray, np.ndarray], z: float,
                over_after: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(low, high), each (T,): the interval of the gain g = d / b, d = B − A and b = B (A with ``over_after``) the
    means of two costs, by the delta method at the estimate: ĝ ± z · √Var(d − ĝ b) / b, V = (Var d, Cov(d, b), Var b),
    each (T,); within the truth's own bounds (a gain over B at most 1, over A at least −1). The variance of d − g b
    at ĝ is what g's estimate errs by: where the other option keeps a small share of B's failures, that share is read
    far more precisely than B itself. Fieller's interval, the same test at each g, is unbounded wherever b's own
    interval reaches 0; on the log scale of A / B the ends are bounded but wide where A is a small share of B
    (benchmarks/HISTORY.md, "Routed gains by the delta method"). (−∞, ∞) where b is not positive."""
    v_dd, v_db, v_bb = V
    with np.errstate(divide="ignore", invalid="ignore"):
        g = d / b
        half = z * np.sqrt(np.maximum(v_dd - 2 * g * v_db + g * g * v_bb, 0.0)) / b
        low, high = (np.maximum(g - half, -1.0), g + half) if over_after else (g - half, np.minimum(g + half, 1.0))
        ok = b > 0
        return np.where(ok, low, -np.inf), np.where(ok, high, np.inf)
