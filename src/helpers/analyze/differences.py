"""Paired differences between two policies on the same problems: the comparisons behind "cheapest", "a technique
pays", "the most essential family" and "a release's gain" (issue 61, item 3).

Two options valued on the same problems (each model alone: on the same problems and every run of each) give per
problem i an unbiased estimate of each one's policy cost, t̂_a,i and t̂_b,i (``policy.policy_cost``); their
difference d̂_i = t̂_a,i − t̂_b,i is unbiased for the problem's true difference, and the mean of d̂ over a dataset's
problems for the mean difference. Paired, what the two share — a problem's difficulty, the fee on a problem both
fail — cancels, so the difference is far more precise than the two marginal intervals suggest.

Where every problem read at least 2k and 4 runs of both options (``fee_prior.identified``), the interval targets the
mean difference over the set's own problems: the records parts' paired difference (Student's t over the problems, which
also counts the spread between them: conservative, and small beside the fee part) and each option's fee part interval
from what its runs say (``fee_prior.fee_interval``: the two are independent given the problems, their runs being
separate), combined side by side (MOVER, Zou & Donner 2008: the lower end takes a's room below and b's above).
Elsewhere it is Student's t over the problems of d̂ (n − 1 degrees of freedom): its truth is the mean difference of
the population the problems are drawn from; for the set's own problems it is conservative (it also counts the spread
between problems). Where few problems carry a fee part the differences are lumpy (a fee on one problem, 0 on the
others) and the t interval is too short: there each end is widened to the smaller of what a Poisson count of the
lumps allows and what each problem's own runs allow of a lump no run showed (``lump_bound``, ``unseen_fee``).
``policy_study`` measures its coverage, width against the narrowest valid one and power on known truth;
``bonferroni`` widens a family of comparisons so that every interval of the family holds at once (a finding among
many is not a finding by chance).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from helpers.analyze import fee_prior


class Parts(Protocol):
    """An option's per-problem cost in its parts (``policy.PolicyCost``): ``records`` USD, ``fail_all`` the chance
    that k tries all fail, ``fail_runs`` the share of runs that failed, ``runs`` the runs read, each (P, C); ``k``."""

    @property
    def k(self) -> int: ...
    @property
    def records(self) -> np.ndarray: ...
    @property
    def fail_all(self) -> np.ndarray: ...
    @property
    def fail_runs(self) -> np.ndarray: ...
    @property
    def runs(self) -> np.ndarray | None: ...

    def columns(self, idx) -> Parts: ...


def _t_ppf(q: float, df: np.ndarray) -> np.ndarray:
    from scipy.special import stdtrit

    return stdtrit(np.asarray(df, float), q)


def _gamma_ppf(q: float, shape: np.ndarray) -> np.ndarray:
    from scipy.special import gammaincinv

    return gammaincinv(np.asarray(shape, float), q)


JEFF = 0.5  # the count's Jeffreys bound (x + ½): the exact bound (x + 1) added 0.5–1 lump too many, always
FEW = 10  # lumps on a side from which Student's t alone holds (``policy_study``'s paired rows: coverage 97-99%)


def unseen_fee(fail_all: np.ndarray, fail_share: np.ndarray, runs: np.ndarray, k: int, fee: np.ndarray, G: np.ndarray,
               q: float) -> np.ndarray:
    """(T, C) USD: how far each column's fee part summed over each group's problems (``G`` (T, P) 0/1) could lie
    above its estimate by what its runs allow: the ``q`` quantile of Σ fee_i (1 − R_i)^k with each problem's R_i
    under its Jeffreys posterior from its runs (Beta(f + ½, s + ½), gamma-matched to the sum's mean and variance; 1
    where every run failed, its most),
    less the estimate's fee part (Σ fee_i times ``fail_all``, the unbiased all-fail chances); 0 where below.
    ``fail_share`` (P, C) the share of each cell's ``runs`` (P, C) that failed, ``fee`` (P,) USD."""
    from scipy.special import betaln

    r = np.asarray(runs, float)
    f = np.rint(np.nan_to_num(np.asarray(fail_share, float)) * r)
    s = r - f
    every = f >= r  # every run failed: (1 − R)^k ≤ 1, its estimate; the posterior (mean < 1) would eat the room above
    m1 = np.where(every, 1.0, np.exp(betaln(f + 0.5 + k, s + 0.5) - betaln(f + 0.5, s + 0.5)))  # E[(1 − R)^k]
    m2 = np.where(every, 1.0, np.exp(betaln(f + 0.5 + 2 * k, s + 0.5) - betaln(f + 0.5, s + 0.5)))
    fee2 = np.asarray(fee, float)[:, None]
    G = np.asarray(G, float)
    mean, var = G @ (fee2 * m1), G @ (fee2**2 * np.clip(m2 - m1**2, 0, None))
    with np.errstate(divide="ignore", invalid="ignore"):
        upper = np.where((mean > 0) & (var > 0), _gamma_ppf(q, mean**2 / var) * var / mean, mean)
        seen = G @ (fee2 * np.nan_to_num(np.asarray(fail_all, float)))
        return np.clip(upper - seen, 0, None)


def lump_bound(d: np.ndarray, fee: np.ndarray, G: np.ndarray, q: float,
               caps: tuple[np.ndarray, np.ndarray] | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
    """(down, up), each (T, C) USD per problem: how far the mean of ``d`` (P, C) over each group's problems (``G``
    (T, P) 0/1) could lie below and above its estimate by the lumps the records show, at one-sided level ``q``: the
    positive and negative parts of d over the fee (``fee`` (P,) USD), each a count of lumps of at most one fee,
    bounded by the Poisson (gamma) upper end of that count (Jeffreys': x + ½), minus the count seen, times the group's
    largest fee over its problems; 0 on a side with ``FEW`` lumps or more, where Student's t holds by itself. A sum of
    independent [0, 1] parts is less dispersed than the Poisson count of its mean, so the bound holds where only a
    few problems, or none, carried a lump. ``caps`` (up, down), (T, C) each, USD per problem: how far a's and b's fee
    parts could lie above their estimates by their runs (``unseen_fee``); where smaller, each bounds its side instead
    (the records' passed runs rule out a lump the count alone cannot)."""
    w = np.max(np.where(G > 0, fee, 0.0), axis=1, initial=0.0)[:, None]  # (T, 1)
    n = G.sum(axis=1)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(w > 0, 1 / w, 0.0)
        pos, neg = G @ np.clip(d, 0, None) * scale, G @ np.clip(-d, 0, None) * scale  # lumps up and down, in fees
        # the truth above: more lumps than seen
        up = np.where(pos < FEW, (_gamma_ppf(q, pos + JEFF) - pos) * w / n, 0.0)
        down = np.where(neg < FEW, (_gamma_ppf(q, neg + JEFF) - neg) * w / n, 0.0)
        if caps is not None:
            up, down = np.minimum(up, caps[0]), np.minimum(down, caps[1])
    return down, up


@dataclass(frozen=True)
class Room:
    """What each option's parts allow, per group of problems: ``records`` (P, C) USD per problem (the records part of
    each option's unbiased cost), ``down``/``up`` (T, C) USD per problem how far its fee part's mean may lie below and
    above its estimate (``fee_prior.fee_interval`` at one level), ``ok`` (T, C) where that holds
    (``fee_prior.identified``)."""

    records: np.ndarray
    down: np.ndarray
    up: np.ndarray
    ok: np.ndarray

    def columns(self, idx) -> Room:
        return Room(self.records[:, idx], self.down[:, idx], self.up[:, idx], self.ok[:, idx])


def room(parts: Parts, G: np.ndarray, fee: np.ndarray, level: float, n: np.ndarray | None = None) -> Room:
    """``Room`` of each column of ``parts`` over each group's problems (``G`` (T, P) 0/1) at ``level``, per problem of
    the group (or of ``n`` (T,) problems: the group's fee part over a larger set's)."""
    G = np.asarray(G, float).reshape(-1, len(fee))
    runs = np.nan_to_num(np.asarray(parts.runs, float))
    n = (G.sum(axis=1) if n is None else np.asarray(n, float))[:, None]
    seen = G @ (fee[:, None] * np.nan_to_num(parts.fail_all))
    lo, hi = fee_prior.fee_interval(parts.fail_all, fee, level, parts.fail_runs, runs, parts.k, G)
    with np.errstate(divide="ignore", invalid="ignore"):
        return Room(np.asarray(parts.records, float), (seen - lo) / n, (hi - seen) / n,
                    fee_prior.identified(runs, parts.k, G))


def _moved(rooms: tuple[Room, Room], G: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(down, up, ok), each (T, C): how far the mean of a − b over each group's problems may lie below and above its
    estimate (USD per problem) by its parts (module docstring: the records parts' paired t, each fee part's room,
    MOVER), and where that holds (both options' runs identify their fee part's spread)."""
    ra, rb = rooms
    n = G.sum(axis=1)[:, None]
    r = np.nan_to_num(ra.records - rb.records)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = G @ r / n
        dev = (r - G.T @ mean) * (G.sum(axis=0) > 0)[:, None]
        rec = _t_ppf(1 - (1 - level) / 2, n - 1) * np.sqrt(G @ dev**2 / (n - 1) / n)
    return (np.sqrt(rec**2 + ra.down**2 + rb.up**2), np.sqrt(rec**2 + ra.up**2 + rb.down**2),
            ra.ok & rb.ok & (n > 1))


def paired(a: np.ndarray, b: np.ndarray, G: np.ndarray, fee: np.ndarray, level: float = 0.95,
           caps: tuple[np.ndarray, np.ndarray] | None = None, rooms: tuple[Room, Room] | None = None
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(value, low, high), each (T, C) USD per problem: the mean over each group's problems (``G`` (T, P) 0/1) of
    a − b, ``a``/``b`` (P, C) per-problem unbiased estimates of two policies' costs (each column a comparison), with
    its ``level`` interval: Student's t over the problems, each end at least as wide as the fee lumps allow
    (``lump_bound`` with the records part's spread, both at the same level; ``caps``: what each problem's runs allow of
    a's and of b's fee part could lie above its estimate, USD per problem (T, C) each: ``unseen_fee``); with ``rooms``
    (a's and b's, ``Room`` at ``level``) the interval by the parts where their runs allow (``_moved``). NaN where a
    group has under 2 problems or a value is not identified."""
    a, b, fee = np.asarray(a, float), np.asarray(b, float), np.asarray(fee, float)
    G = np.asarray(G, float).reshape(-1, len(fee))
    d = a - b
    unknown = (G @ np.isnan(d)) > 0
    d0 = np.nan_to_num(d)
    n = G.sum(axis=1)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = G @ d0 / n
        dev = (d0 - G.T @ mean) * (G.sum(axis=0) > 0)[:, None]
        se = np.sqrt(G @ dev**2 / (n - 1) / n)
        half = _t_ppf(1 - (1 - level) / 2, n - 1) * se
        down, up = lump_bound(d0, fee, G, 1 - (1 - level) / 2, caps)
        low, high = mean - np.maximum(half, down), mean + np.maximum(half, up)
        if rooms is not None:
            down, up, ok = _moved(rooms, G, level)
            low, high = np.where(ok, mean - down, low), np.where(ok, mean + up, high)
    bad = unknown | (n < 2)
    return np.where(bad, np.nan, mean), np.where(bad, np.nan, low), np.where(bad, np.nan, high)


def fee_gaps(cost, fee: np.ndarray, G: np.ndarray, level: float, among: np.ndarray | None = None) -> np.ndarray:
    """(T, C) USD per problem: ``unseen_fee`` of a ``policy.PolicyCost`` or ``policy.CrossFitted`` (its ``fail_all``,
    ``fail_runs``, ``runs`` and k; (P, C) or (P,) arrays) at one-sided ``level``, over each group's problems (``G``
    (T, P)) or only those of ``among`` (P,) bool, per problem of the group: what the runs allow its fee part to lie
    above the estimate."""
    G = np.asarray(G, float).reshape(-1, len(fee))
    where = G if among is None else G * np.asarray(among, bool)
    def col(x):
        return np.asarray(x, float).reshape(len(fee), -1)
    gap = unseen_fee(col(cost.fail_all), col(cost.fail_runs), col(cost.runs), cost.k, fee, where, level)
    return gap / G.sum(axis=1)[:, None]


def bonferroni(level: float, comparisons: int) -> float:
    """The level of each of ``comparisons`` intervals so that all hold at once with probability ``level`` or more."""
    return 1 - (1 - level) / max(int(comparisons), 1)


def all_pairs(total: np.ndarray, G: np.ndarray, fee: np.ndarray, level: float = 0.95, simultaneous: bool = True,
              caps: np.ndarray | None = None, parts: Parts | None = None
              ) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Every pair (a, b), a < b, of the columns of ``total`` (P, C): per-problem unbiased policy costs of C options
    on the same problems. Returns (a, b) indices (K,) and (value, low, high), each (T, K): the mean of a − b over each
    group's problems (``paired``), at ``level`` per interval, or with ``simultaneous`` at the level that holds for
    all K pairs of a group at once (``bonferroni``). ``caps`` (T, C): how far each column's fee part could lie above
    its estimate by its runs (``fee_gaps``), or None; ``parts``: ``total``'s columns in their parts (``paired``), or
    None."""
    C = np.asarray(total).shape[1]
    a, b = (np.array(x, dtype=int) for x in zip(*[(i, j) for i in range(C) for j in range(i + 1, C)])) if C > 1 else (
        np.zeros(0, int), np.zeros(0, int))
    each = bonferroni(level, len(a)) if simultaneous else level
    pair_caps = None if caps is None else (caps[:, a], caps[:, b])  # up: a's unseen fee; down: b's
    span = None if parts is None else room(parts, G, fee, each)
    rooms = None if span is None else (span.columns(a), span.columns(b))
    return a, b, paired(np.asarray(total)[:, a], np.asarray(total)[:, b], G, fee, each, pair_caps, rooms)


def lowest_level(level: float, others: int) -> float:
    """The two-sided level of each of the ``others`` paired intervals whose upper ends hold at once with probability
    ``level`` (Bonferroni, each end at (1 − ``level``)/``others``): the options they cannot tell from the lowest then
    hold the truly cheapest at ``level`` (Gupta's subset selection, ``policy.contenders``); never below ``level``."""
    return max(level, 1 - 2 * (1 - level) / max(int(others), 1))


def cheapest_beyond_doubt(total: np.ndarray, G: np.ndarray, fee: np.ndarray, level: float = 0.95,
                          caps: np.ndarray | None = None, parts: Parts | None = None) -> np.ndarray:
    """(T,) per group of problems (``G`` (T, P)), the column of ``total`` (P, C) named the cheapest, or −1: the one
    with the lowest mean, named only where its paired difference with every other identified column has its
    ``level`` interval below 0 (an intersection-union claim: a wrong one needs the interval against the truly
    cheapest to err, and at most one column is named, so two truly equal cheapest columns, the rest far dearer, are
    the least favourable case, where the claim errs as often as that one pair's interval excludes 0, 1 − ``level``;
    ``benchmarks/comparison_power.py`` measures it). A column with a value missing on a group's problems takes no
    part there. ``caps``, ``parts``: as ``all_pairs``'."""
    return against_lowest(total, G, fee, level, caps, parts)[0]


def against_lowest(total: np.ndarray, G: np.ndarray, fee: np.ndarray, level: float = 0.95,
                   caps: np.ndarray | None = None, parts: Parts | None = None, simultaneous: bool = False
                   ) -> tuple[np.ndarray, np.ndarray]:
    """(named (T,), reaches (T, C) bool): ``cheapest_beyond_doubt``'s choice per group, and which columns' paired
    difference with the group's lowest column has an interval reaching 0 (those the lowest is not shown cheaper than;
    False on the lowest itself and on columns that take no part), each interval at ``level``, or with
    ``simultaneous`` their upper ends holding at once at ``level`` (``lowest_level``: the columns reaching 0 then
    hold the truly cheapest at ``level``). ``caps``, ``parts``: as ``all_pairs``'."""
    total = np.asarray(total, float)
    G = np.asarray(G, float).reshape(-1, len(total))
    out, reaches = np.full(G.shape[0], -1), np.zeros((G.shape[0], total.shape[1]), bool)
    for t, row in enumerate(G):
        here = row > 0
        cols = np.flatnonzero(~np.isnan(total[here]).any(axis=0)) if here.any() else np.zeros(0, int)
        if len(cols) < 2 or here.sum() < 2:
            out[t] = cols[0] if len(cols) == 1 else -1
            continue
        means = total[here][:, cols].mean(axis=0)
        best = cols[int(np.argmin(means))]
        others = cols[cols != best]
        mine = None if caps is None else (caps[t:t + 1, [best] * len(others)], caps[t:t + 1, others])
        each = lowest_level(level, len(others)) if simultaneous else level
        span = None if parts is None else room(parts, row[None], fee, each)
        theirs = None if span is None else (span.columns([best] * len(others)), span.columns(others))
        _, _, high = paired(total[:, [best] * len(others)], total[:, others], row[None], fee, each, mine, theirs)
        out[t] = best if (high[0] < 0).all() else -1
        reaches[t, others] = high[0] >= 0
    return out, reaches
