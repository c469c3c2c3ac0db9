"""The fee part's interval from what each problem's runs say (issue 61): an empirical-Bayes prior of the problems'
failure rates, fitted without a shape, gives the spread the unbiased all-fail estimate has *given the problems* —
the truth the headline targets is the mean over the benchmark's own problems.

The fee part of "up to k tries, then the expert" over a group of problems is S = Σ_i fee_i · f̂_i, f̂_i = C(F_i, k) /
C(r_i, k) of F_i failed runs out of r_i (unbiased for q_i^k, q_i the problem's failure rate); its truth Θ = Σ fee_i
q_i^k. Given the problems, the error S − Θ is a sum of independent lumps, with variance Σ fee_i² Var(f̂_i | q_i) and
third cumulant Σ fee_i³ κ₃(f̂_i | q_i). Neither is known; each problem's posterior under a prior of q fitted to the
group's problems (Kiefer–Wolfowitz NPMLE on a grid that holds 0 and 1, so the point masses of capability cliffs and
broken items stay) gives both (its mass at 1 may instead be read at the failure rate the pooled runs of the problems
that failed every run allow: ``top_moments``; no count of failed runs tells 1 from just below it). The
interval (``fee_interval``):

- upper end: the score interval of a quasi-Poisson sum whose variance grows with its truth, c · Θ (c = the fitted
  variance ÷ the fitted mean: one lump's typical size): where the records read low by chance, a variance taken at the
  estimate would be small exactly when it is wrong (the plain plug-in held 91–94%);
- lower end: the lower of the score's and the Cornish–Fisher one, S − sd · (z + (z² − 1) · γ / 6) with the sum's
  skewness γ ≥ 0: a few problems whose runs all failed push the estimate up more than a normal error would.

Measured on every generator of the validity study against the set's own truth: ``benchmarks/fee_interval_study.py``
(coverage and width ÷ the oracle's), beside the worst-case Poisson interval it replaces (``policy.fee_interval``).
"""

from __future__ import annotations

from functools import lru_cache
from math import comb
from typing import Literal, get_args

import numpy as np
from scipy.special import ndtri
from scipy.stats import binom

GRID = np.linspace(0.0, 1.0, 41)  # the failure rates the prior may put mass on, 0 and 1 included
EM_STEPS = 150  # EM steps of the NPMLE (from the uniform prior)


def all_fail_row(r: int, k: int) -> np.ndarray:
    """(r + 1,): C(f, k) / C(r, k) for f = 0..r failed runs of r, the chance that k runs drawn without replacement all
    failed: the unbiased estimate f̂ of q^k from r runs (exact integer binomials; r ≥ k ≥ 1)."""
    return np.array([comb(f, k) / comb(r, k) for f in range(r + 1)])


@lru_cache(maxsize=64)
def all_fail_table(n: int, k: int) -> np.ndarray:
    """(n + 1, n + 1): ``[r, f]`` = ``all_fail_row(r, k)[f]``; NaN where r < k (not identified) or f > r."""
    out = np.full((n + 1, n + 1), np.nan)
    for r in range(max(k, 1), n + 1):
        out[r, :r + 1] = all_fail_row(r, k)
    return out


def estimate_moments(r: int, k: int, q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(q^k, Var, κ₃), each shaped as ``q`` (1-D failure rates): the truth, variance and third central moment of the
    all-fail estimate f̂ = C(J, k) / C(r, k) from J ~ Binomial(r, q) failed runs of r (0 where r < k: no estimate)."""
    j = np.arange(r + 1)
    L = binom.pmf(j[None, :], r, q[:, None])  # (Q, r + 1)
    qk = q**k if r >= k else np.zeros(len(q))
    f = all_fail_row(r, k) if r >= max(k, 1) else np.zeros(r + 1)
    err = f[None, :] - qk[:, None]
    return qk, (err**2 * L).sum(axis=1), (err**3 * L).sum(axis=1)


@lru_cache(maxsize=64)
def run_tables(r: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For a problem of ``r`` runs, q on ``GRID``: (L, M, V, K3): L (r + 1, grid) Binomial(j; r, q) of j failed runs,
    and (grid,) each ``estimate_moments``."""
    return (binom.pmf(np.arange(r + 1)[:, None], r, GRID[None, :]), *estimate_moments(r, k, GRID))


def cell_tables(cells: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``run_tables`` of each (runs, failed) cell, ``cells`` (U, 2) integers: (L, M, V, K3), each (U, grid)."""
    rows = [run_tables(int(r), k) for r in cells[:, 0]]
    L = np.stack([t[0][f] for t, f in zip(rows, cells[:, 1], strict=True)])
    M, V, K3 = (np.stack([t[m] for t in rows]) for m in (1, 2, 3))
    return L, M, V, K3


_FITTED: dict[bytes, np.ndarray] = {}  # a histogram's prior weights: a set's statistics refit the same columns often


def npmle(H: np.ndarray, L: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """(rows, len(GRID)) the prior weights maximising each row's marginal likelihood Σ_cell H · log(L @ w): ``H``
    (rows, cells) counts of problems per (runs, failed) cell, ``L`` (cells, grid) their likelihoods, ``ids`` (cells,)
    int64 each cell's (runs, failed) packed (EM from the uniform prior; each row on its own, so a histogram fitted
    before in this process is not fitted again)."""
    if len(_FITTED) > 20_000:
        _FITTED.clear()
    H = np.asarray(H, float)
    keys = [ids[row > 0].tobytes() + row[row > 0].tobytes() for row in H]
    first = {key: i for i, key in reversed(list(enumerate(keys))) if key not in _FITTED}
    if first:
        h = H[list(first.values())]
        w = np.full((len(h), L.shape[1]), 1 / L.shape[1])
        total = np.maximum(h.sum(axis=1, keepdims=True), 1.0)
        for _ in range(EM_STEPS):
            w = w * ((h / np.maximum(w @ L.T, 1e-300)) @ L) / total
        _FITTED.update(zip(first, w))
    return np.stack([_FITTED[key] for key in keys]) if keys else np.zeros((0, L.shape[1]))


# Where the prior's mass sits at q = 1 (the node "every run fails"), a ``top`` argument: "one", read as it is, or
# "jeffreys", at the failure rate the pooled runs allow (``top_moments``). Measured side by side on the validity
# study's sets (benchmarks/HISTORY.md, "The fee part at q = 1"): "jeffreys" is what holds a frontier routed problem by
# problem (``policy.chosen_interval`` of a routed choice); elsewhere "one" already held, and "jeffreys" widens each
# model alone by 5-11% (capability cliffs: 1.15 -> 1.28 x the oracle's width) and the headline's frontier by 2-30%.
Top = Literal["one", "jeffreys"]
TOPS: tuple[Top, ...] = get_args(Top)


def check_top(top: str) -> None:
    """One line naming the choices where ``top`` is not one of ``TOPS``."""
    if top not in TOPS:
        raise ValueError(f"top must be one of {TOPS}, got {top!r}")


def top_rate(H: np.ndarray, cells: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows,) q* = 1 − ½ / (N + 1), the pooled Jeffreys failure rate of the N runs of each row's problems that failed
    every run (``top_moments``), and (U,) bool the cells that failed every run; ``H`` (rows, U), ``cells`` (U, 2)."""
    r, f = cells[:, 0], cells[:, 1]
    none_passed = (f == r) & (r >= max(k, 1))
    N = np.asarray(H, float) @ np.where(none_passed, r, 0)
    return 1 - 0.5 / (N + 1), none_passed


def top_moments(H: np.ndarray, cells: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(M, V, K3), each (rows, U): ``run_tables``' moments at the prior's top node read at q* instead of 1, per row of
    ``H`` (rows, U) problems per (runs, failed) cell (``cells`` (U, 2)). No run count tells q = 1 from q just below it,
    and at 1 the all-fail estimate has no variance: a set whose problems all failed every run of a cheap, weak option
    (broken items, k tries at a 1-2% pass rate) reads them as exact, and its fee part's interval shuts where the truth
    sits a few % below (a frontier routed problem by problem held 82-88% of the broken-items sets: HISTORY). The
    posterior mass at 1 comes only from problems whose every run failed; pooled, their N runs with no pass give the
    Jeffreys posterior Beta(N + ½, ½) of the cluster's failure rate, whose mean q* = 1 − ½ / (N + 1) is where the
    moments are read (the all-fail estimate's variance is near linear in 1 − q there: about its posterior mean)."""
    r = cells[:, 0]
    q, none_passed = top_rate(H, cells, k)
    out = [np.zeros((len(H), len(r))) for _ in range(3)]  # other cells: no posterior mass at the top node
    for u in np.flatnonzero(none_passed):
        for m, x in enumerate(estimate_moments(int(r[u]), k, q)):
            out[m][:, u] = x
    return out[0], out[1], out[2]


def _posterior(failed: np.ndarray, runs: np.ndarray, k: int, G: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each group's NPMLE prior per column and the posteriors it gives: (post (T·C, U, grid) over ``GRID`` of each
    (runs, failed) cell, H (T·C, U) problems per cell, cells (U, 2), at (P·C,) each problem's cell index per column).
    ``failed``, ``runs`` (P, C) integers, ``G`` (T, P) 0/1."""
    r, F = runs.astype(np.int64), failed.astype(np.int64)
    P, C = r.shape
    ids, inv = np.unique((r << 32) | F, return_inverse=True)  # (U,) the (runs, failed) cells held, packed
    U = len(ids)
    at = (inv.reshape(P, C) + U * np.arange(C)[None, :]).ravel()  # (P·C,): each problem's cell, per column
    H = np.stack([np.bincount(at, weights=w, minlength=C * U) for w in np.repeat(np.asarray(G, float), C, axis=1)]
                 ).reshape(len(G) * C, U)  # (T·C, U) problems per cell
    cells = np.stack([ids >> 32, ids & 0xFFFFFFFF], axis=1)
    L = cell_tables(cells, k)[0]
    post = L[None] * npmle(H, L, ids)[:, None, :]  # (T·C, U, grid)
    post /= np.maximum(post.sum(axis=2, keepdims=True), 1e-300)
    return post, H, cells, at


def _per_problem(each: np.ndarray, at: np.ndarray, T: int, P: int, C: int) -> np.ndarray:
    """(T, P, C): a (T·C, U) table of each row's cells read at each problem's cell."""
    return each.reshape(T, -1)[:, at].reshape(T, P, C)


def posterior_moments(failed: np.ndarray, runs: np.ndarray, k: int, G: np.ndarray, top: Top = "one"
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mean, var, k3), each (T, P, C): for each problem and column, E[·_i | problem i's runs] of q_i^k, of Var(f̂_i |
    q_i) and of κ₃(f̂_i | q_i) (no fee), its posterior under the NPMLE prior of group t's problems (``G`` (T, P) 0/1) in
    its column (its mass at q = 1 read as ``top`` says: ``TOPS``). ``failed``, ``runs`` (P, C) integers."""
    check_top(top)
    post, H, cells, at = _posterior(failed, runs, k, G)
    tables = cell_tables(cells, k)[1:]
    tops = top_moments(H, cells, k) if top == "jeffreys" else None
    out = []
    for m, table in enumerate(tables, start=1):
        each = np.einsum("aug,ug->au", post[..., :-1], table[:, :-1])
        each += post[..., -1] * (table[None, :, -1] if tops is None else tops[m - 1])
        out.append(_per_problem(each, at, len(G), *runs.shape))
    return out[0], out[1], out[2]


def power_moments(failed: np.ndarray, runs: np.ndarray, k: int, G: np.ndarray, powers: np.ndarray,
                  top: Top = "one") -> np.ndarray:
    """(T, P, C, len(powers)): E[q_i^p | problem i's runs] for each power p, each problem's posterior as in
    ``posterior_moments`` (the top node at 1, or at q* with ``top`` "jeffreys": ``top_rate``)."""
    check_top(top)
    post, H, cells, at = _posterior(failed, runs, k, G)
    q_top = top_rate(H, cells, k)[0] if top == "jeffreys" else np.ones(len(H))  # (T·C,)
    out = []
    for p in np.asarray(powers):
        each = post[..., :-1] @ GRID[:-1] ** p + post[..., -1] * (q_top[:, None] ** p)  # (T·C, U)
        out.append(_per_problem(each, at, len(G), *runs.shape))
    return np.stack(out, axis=-1)


def moments(failed: np.ndarray, runs: np.ndarray, k: int, fee: np.ndarray, G: np.ndarray, top: Top = "one"
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mean, var, k3), each (T, C): Σ_i G[t, i] fee_i^m · ``posterior_moments``' (USD, USD², USD³). ``failed``,
    ``runs`` (P, C) integers; ``fee`` (P,) USD; ``G`` (T, P) 0/1."""
    each = posterior_moments(failed, runs, k, G, top)
    out = [np.einsum("tp,tpc->tc", G * fee[None, :] ** m, e) for m, e in enumerate(each, start=1)]
    return out[0], out[1], out[2]


MIN_RUNS = 4  # the fewest runs per problem at which the interval was validated (4 and 8 runs, every generator)
# "prior" (this module's interval where ``identified``) or "poisson" (never: the worst-case intervals it replaced,
# ``policy.fee_interval`` and ``differences.paired``'s Student's t); ``benchmarks/fee_interval_study.py`` measures both.
METHOD = "prior"


def identified(runs: np.ndarray, k: int, G: np.ndarray) -> np.ndarray:
    """(T, C) bool: where every problem of each group (``G`` (T, P) 0/1) read at least 2k runs (``runs`` (P, C); NaN:
    none) in the column, so that the all-fail estimate's own variance is identified (an unbiased estimate of q^{2k}
    exists), and at least ``MIN_RUNS``: where ``fee_interval`` may be used. With 2 runs per cell (k = 1) the prior
    cannot tell a problem that always fails from one that mostly does: in a study at 2 runs run before this bound
    existed (its output not kept), sets with broken items held under 93%; with 4 runs, 94.5-96.5% on every generator
    (``benchmarks/results/fee_interval_study_4runs.txt``). None where ``METHOD`` is not "prior"."""
    short = np.nan_to_num(np.asarray(runs, float)) < max(2 * k, MIN_RUNS)
    return ((G > 0).astype(float) @ short == 0) & (METHOD == "prior")


def fee_interval(fail_all: np.ndarray, fee: np.ndarray, level: float, fail_runs: np.ndarray, runs: np.ndarray, k: int,
                 G: np.ndarray, top: Top = "one") -> tuple[np.ndarray, np.ndarray]:
    """(low, high), each (T, C) USD summed over each group's problems (``G`` (T, P) 0/1): a ``level`` interval for Σ_i
    fee_i q_i^k around the unbiased estimate Σ fee_i ``fail_all``_i (module docstring). ``fail_all``, ``fail_runs``
    (the share of runs that failed) and ``runs`` (P, C); ``fee`` (P,) USD; ``top``: ``moments``'."""
    r = np.rint(np.nan_to_num(np.asarray(runs, float)))
    failed = np.rint(np.nan_to_num(np.asarray(fail_runs, float)) * r)
    seen = G @ (fee[:, None] * np.nan_to_num(np.asarray(fail_all, float)))
    mean, var, k3 = moments(failed, r, k, fee, G, top)
    z = float(ndtri(1 - (1 - level) / 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        c = np.where(mean > 0, var / mean, 0.0)  # one lump's size: the variance per USD of truth
        sd = np.sqrt(var)
        skew = np.where(sd > 0, np.clip(k3, 0, None) / sd**3, 0.0)
    mid, half = seen + z**2 * c / 2, z * np.sqrt(c * seen + z**2 * c**2 / 4)
    low = np.minimum(mid - half, seen - sd * (z + (z**2 - 1) * skew / 6))
    return np.maximum(low, 0.0), mid + half
