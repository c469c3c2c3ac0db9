"""The cost of a policy the records identify: "try the model up to k times, stop at the first verified pass, else pay
the expert" (the CPSP note's cost of a verified-correct solution under a given inference policy; issue 35).

For one problem and one strategy with attempts X_1, X_2, … drawn independently (each a cost in USD and a pass or a
fail), the policy's expected cost is

    E[cost] = E[X] · Σ_{j<k} (1 − R)^j  +  e · (1 − R)^k            (USD; R the pass rate, e the expert's fee)

which, unlike the paper's ratio C / R, stays finite and is identified by the records when no run passed: a model that
failed all its runs is charged its k attempts and then the expert, by the records' own evidence.

The estimator is unbiased for it from r ≥ k recorded runs: it is the policy's cost averaged over every ordering of k
of the runs (a U-statistic, as the unbiased pass@k estimator is), in closed form. Run i is tried at position j ≤ k with
probability 1/r, and is reached when the j − 1 runs before it, drawn from the r − 1 others, all failed; the expert is
paid when the k runs drawn all failed:

    records part  = Σ_i usd_i · (1/r) Σ_{j<k} C(f_{−i}, j) / C(r − 1, j)
    expert part   = e · C(f, k) / C(r, k)

with f the failed runs of the cell and f_{−i} those among the runs other than i. The split is what decides the value:
the records part is paid to the model, the expert part is the assumed fee times the estimated chance that k tries all
fail. Shapes: P problems, S strategies, n most runs of a cell (``bootstrap.RunCube``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from functools import lru_cache
from math import comb

import numpy as np
import pandas as pd


@lru_cache(maxsize=64)
def _tables(n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Lookup tables over r ≤ n runs: ``use[r, g]`` = (1/r) Σ_{j<k} C(g, j) / C(r − 1, j), a run's expected uses when
    g of the r − 1 others failed, and ``fail[r, f]`` = C(f, k) / C(r, k), the chance that k of r runs with f failed
    all failed; NaN where r < k (not identified)."""
    use, fail = np.full((n + 1, n + 1), np.nan), np.full((n + 1, n + 1), np.nan)
    for r in range(max(k, 1), n + 1):
        for g in range(r):
            use[r, g] = sum(comb(g, j) / comb(r - 1, j) for j in range(k)) / r
        for f in range(r + 1):
            fail[r, f] = comb(f, k) / comb(r, k)
    return use, fail


def _all_fail_chance(failed: np.ndarray, runs: np.ndarray, draws: int) -> np.ndarray:
    """C(failed, draws) / C(runs, draws): the chance that ``draws`` runs taken without replacement all failed.
    Integer arrays of one shape; NaN where runs < draws."""
    runs = np.asarray(runs, dtype=np.int64)
    return _tables(int(runs.max(initial=0)), draws)[1][runs, np.asarray(failed, dtype=np.int64)]


def attempt_weights(correct: np.ndarray, runs: np.ndarray, k: int) -> np.ndarray:
    """Each run's expected number of uses under the policy, (P, S, n): (1/r) Σ_{j<k} C(f_{−i}, j) / C(r − 1, j).

    ``correct`` (P, S, n) bool, ``runs`` (P, S) complete runs of each cell (its first ``runs`` slots); NaN in cells
    with fewer than k runs, 0 in the slots past a cell's runs."""
    if k < 1:
        raise ValueError(f"k must be at least 1 (got {k})")
    n = correct.shape[-1]
    runs = np.asarray(runs, dtype=np.int64)
    live = np.arange(n) < runs[..., None]
    failed = (live & ~correct).sum(axis=-1)
    others_failed = np.clip(failed[..., None] - (live & ~correct), 0, None)
    use = _tables(max(int(runs.max(initial=0)), n), k)[0]
    w = np.where(live, use[np.broadcast_to(runs[..., None], correct.shape), others_failed], 0.0)
    return np.where(runs[..., None] >= k, w, np.nan)


@dataclass(frozen=True)
class PolicyCost:
    """Per (problem, strategy) USD of "up to k tries, then the expert": ``records`` paid for attempts, ``expert`` the
    fee times the estimated chance that all k fail, ``fail_all`` that chance, ``fail_runs`` the share of the cell's
    runs that failed (unbiased for 1 − R: what bounds the chance of k fails where none was seen, ``fee_interval``);
    NaN where a cell has fewer than k runs (the records do not identify the policy there). Arrays (P, S)."""

    k: int
    records: np.ndarray
    expert: np.ndarray
    fail_all: np.ndarray
    fail_runs: np.ndarray | None = None

    @property
    def total(self) -> np.ndarray:
        return self.records + self.expert


def policy_cost(usd: np.ndarray, correct: np.ndarray, runs: np.ndarray, expert_usd: np.ndarray, k: int) -> PolicyCost:
    """The unbiased estimate of each cell's policy cost (module docstring). ``usd`` (P, S, n) USD per attempt (NaN
    past a cell's runs), ``correct`` (P, S, n), ``runs`` (P, S), ``expert_usd`` (P,) the expert's fee per problem."""
    w = attempt_weights(correct, runs, k)
    records = np.nansum(np.where(w > 0, w * np.nan_to_num(usd), 0.0), axis=-1)
    live = np.arange(correct.shape[-1]) < runs[..., None]
    failed = (live & ~correct).sum(axis=-1)
    fail_all = _all_fail_chance(failed, runs, k)
    identified = runs >= k
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(identified, failed / np.where(runs > 0, runs, 1), np.nan)
    return PolicyCost(k, np.where(identified, records, np.nan), fail_all * np.asarray(expert_usd, float)[:, None],
                      fail_all, share)


def largest_k(runs: np.ndarray) -> int:
    """The most tries every cell's records identify: the fewest complete runs of any cell that has some (>= 1)."""
    some = runs[runs > 0]
    return int(some.min()) if some.size else 1


def policy_table(cost: PolicyCost, task_codes: np.ndarray, tasks: list[str], strategies: list[str]) -> pd.DataFrame:
    """Per (task, strategy): the policy's mean USD per problem over the task's problems, its records and expert parts,
    the expert's share (%), the problems where all k tries are expected to fail half the time or more, and the problems
    the records leave unidentified (fewer than k runs; then no value)."""
    rows = []
    for t, task in enumerate(tasks):
        mask = task_codes == t
        for s, strategy in enumerate(strategies):
            rec, exp, fail = cost.records[mask, s], cost.expert[mask, s], cost.fail_all[mask, s]
            unidentified = int(np.isnan(rec).sum())
            value = float(np.mean(rec + exp)) if not unidentified else np.nan
            expert_part = float(np.mean(exp)) if not unidentified else np.nan
            rows.append({"task": task, "strategy": strategy, "k": cost.k, "policy_usd": value,
                         "records_usd": value - expert_part if not unidentified else np.nan,
                         "expert_usd": expert_part,
                         "expert_share_pct": 100 * expert_part / value if value and not unidentified else np.nan,
                         "problems": int(mask.sum()), "mostly_failed": int((fail >= 0.5).sum()),
                         "unidentified": unidentified})
    return pd.DataFrame(rows)


def true_policy(cost: np.ndarray, rate: np.ndarray, expert_usd: np.ndarray, k: int) -> PolicyCost:
    """The policy's exact value from true C (USD per attempt) and R (0-1) of each cell, (P, S) each, and the expert's
    USD per problem (P,): C · Σ_{j<k} (1 − R)^j and e · (1 − R)^k (the simulator's truth, and the test's)."""
    q = 1.0 - np.asarray(rate, float)
    fail = q**k
    return PolicyCost(k, np.asarray(cost, float) * sum(q**j for j in range(k)), fail * np.asarray(expert_usd, float)[:, None],
                      fail, q)


# ---- the frontier: the per-problem cheapest option, chosen on some runs and valued on others ----------------------
SPLITS = 4  # random halvings of the runs a cross-fitted value averages over (each gives two folds)


def run_folds(runs: int, splits: int = SPLITS, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """(choose, value) pairs of run-slot indices: each of ``splits`` random halvings of ``runs`` slots gives two folds,
    the halves swapped (the smaller half, ⌊runs/2⌋ slots, values in one of them). Empty when runs < 2."""
    if runs < 2:
        return []
    rng = np.random.default_rng([seed, runs])
    out = []
    for _ in range(splits):
        perm = rng.permutation(runs)
        a, b = np.sort(perm[:runs // 2]), np.sort(perm[runs // 2:])
        out += [(a, b), (b, a)]
    return out


def crossfit_k(runs: int) -> int:
    """The most tries a cross-fitted value identifies from ``runs`` runs per cell: the smaller half, ⌊runs/2⌋."""
    return runs // 2


@dataclass(frozen=True)
class CrossFitted:
    """The per-problem cheapest of ``options`` (strategy indices), chosen on one fold of the runs and valued by
    ``policy_cost`` on the other, averaged over ``folds``: per problem (P,) the records part (USD), the estimated
    chance that the chosen option's k tries all fail, and the expert part (that chance times the fee);
    ``chosen`` (F, P) the position in ``options`` chosen in each fold (−1: no option had runs, the expert alone);
    ``in_sample`` (P,) USD: the same estimate read on the choosing runs themselves (flattered by their luck);
    ``fail_runs`` (P,) the share of the chosen option's valued runs that failed, averaged over the folds."""

    k: int
    options: tuple[int, ...]
    folds: tuple[tuple[np.ndarray, np.ndarray], ...]
    records: np.ndarray
    fail_all: np.ndarray
    expert: np.ndarray
    chosen: np.ndarray
    in_sample: np.ndarray
    fail_runs: np.ndarray

    @property
    def total(self) -> np.ndarray:
        return self.records + self.expert

    def strategies(self) -> np.ndarray:
        """(F, P) the strategy index chosen in each fold (−1: the expert alone)."""
        return np.where(self.chosen >= 0, np.asarray(self.options)[np.maximum(self.chosen, 0)], -1)

    def truth(self, true: PolicyCost, expert_usd: np.ndarray) -> PolicyCost:
        """What the options chosen here truly cost under the policy, per problem (P,), averaged over the folds:
        ``true`` the exact (P, S) policy cost of every strategy (``true_policy``, same k), ``expert_usd`` (P,) the fee
        (paid whole where no option had runs)."""
        rows = np.arange(self.chosen.shape[1])
        pick = lambda a, fallback: np.where(self.chosen >= 0, a[:, list(self.options)][rows, np.maximum(self.chosen, 0)],  # noqa: E731
                                            fallback).mean(axis=0)
        return PolicyCost(true.k, pick(true.records, 0.0), pick(true.expert, np.asarray(expert_usd, float)),
                          pick(true.fail_all, 1.0))


def beta_prior(passed: np.ndarray, tried: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(α, β) (S,) of a Beta distribution of pass rates over problems, per strategy, by the method of moments from
    each problem's passes of its tries ((P, S) each; problems without tries left out): the spread left after the
    runs' own binomial noise; Jeffreys' (½, ½) where the moments give none (rates all alike, or under 3 problems)."""
    ok = tried > 0
    count = ok.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a strategy without tries: its mean is NaN, and unused
        x = np.where(ok, passed / np.where(ok, tried, 1), np.nan)
        m = np.nanmean(x, axis=0) if len(x) else np.full(x.shape[1], np.nan)
        v = np.nansum((x - m) ** 2, axis=0) / (count - 1)
        noise = np.nansum(np.where(ok, m * (1 - m) / np.where(ok, tried, 1), np.nan), axis=0) / count
        between = v - noise
        total = np.clip(m * (1 - m) / between - 1, 0.2, 1e4)  # α + β
    usable = (count >= 3) & (m > 0) & (m < 1) & (between > 1e-9)
    return (np.where(usable, np.maximum(m * total, 0.05), 0.5), np.where(usable, np.maximum((1 - m) * total, 0.05), 0.5))


def expected_cost(usd: np.ndarray, correct: np.ndarray, runs: np.ndarray, expert_usd: np.ndarray, k: int,
                  groups: np.ndarray) -> np.ndarray:
    """Each cell's expected cost of "up to k tries, then the expert" given its runs (P, S): the mean USD per attempt
    times Σ_{j<k} E[(1 − R)^j], plus the fee times E[(1 − R)^k], under the Beta posterior of R from the cell's
    passes and a prior fitted per strategy over the problems of its group (``beta_prior``); ∞ where a cell has no
    runs. What a cross-fitted choice goes by: a shrunk guess, never a reported value."""
    live = np.arange(correct.shape[-1]) < runs[..., None]
    s, f = (live & correct).sum(-1).astype(float), (live & ~correct).sum(-1).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        c = np.where(runs > 0, np.nansum(np.where(live, usd, 0.0), -1) / runs, np.nan)
    a, b = np.full(runs.shape, 0.5), np.full(runs.shape, 0.5)  # Jeffreys' where a group has too few problems
    kinds, counts = np.unique(groups, return_counts=True)
    for g in kinds[counts >= 3]:
        here = groups == g
        a[here], b[here] = beta_prior(s[here], s[here] + f[here])
    moment, geometric = np.ones(runs.shape), np.zeros(runs.shape)
    for t in range(k):
        geometric += moment
        moment = moment * (b + f + t) / (a + b + s + f + t)
    out = c * geometric + moment * np.asarray(expert_usd, float)[:, None]
    return np.where(runs > 0, out, np.inf)


def _sub(usd: np.ndarray, correct: np.ndarray, runs: np.ndarray, slots: np.ndarray, full: int):
    """The runs in ``slots`` of every cell that has ``full`` runs or more (the others: no runs)."""
    return usd[..., slots], correct[..., slots], np.where(runs >= full, len(slots), 0)


def crossfit_frontier(usd: np.ndarray, correct: np.ndarray, runs: np.ndarray, expert_usd: np.ndarray,
                      options: list[int], k: int | None = None, splits: int = SPLITS, seed: int = 0,
                      groups: np.ndarray | None = None) -> CrossFitted:
    """The cross-fitted value of "per problem, the option that looks cheapest; up to k tries of it, then the expert":
    in each fold (``run_folds`` of the fewest runs any option has, r), the option with the lowest expected policy
    cost given the choosing runs (``expected_cost``; ``groups`` (P,) the problems that share a prior, e.g. a task's)
    is valued without bias on the other runs (k tries, default ⌊r/2⌋). Unbiased, problem by problem, for what the
    chosen options truly cost (``CrossFitted.truth``): no winner's curse, as a minimum over the same runs would
    have. ``usd``/``correct`` (P, S, n), ``runs`` (P, S)."""
    return crossfit_many(usd, correct, runs, expert_usd, [options], k, splits, seed, groups)[0]


def crossfit_many(usd: np.ndarray, correct: np.ndarray, runs: np.ndarray, expert_usd: np.ndarray,
                  option_sets: list[list[int]], k: int | None = None, splits: int = SPLITS, seed: int = 0,
                  groups: np.ndarray | None = None) -> list[CrossFitted]:
    """``crossfit_frontier`` of each option set, on the same folds (the fewest runs of any cell of any set), each
    fold's estimates computed once."""
    used = sorted({o for options in option_sets for o in options})
    full = largest_k(runs[:, used])
    k = crossfit_k(full) if k is None else k
    folds = run_folds(full, splits, seed)
    if not folds or k < 1 or k > full // 2:
        raise ValueError(f"a cross-fitted policy needs k tries in the smaller half of the runs (k = {k}, {full} runs)")
    groups = np.zeros(len(runs), int) if groups is None else np.asarray(groups)
    fee = np.asarray(expert_usd, float)
    valued_on: dict[tuple[int, ...], PolicyCost] = {}  # each half is valued in one fold and read in-sample in the other

    def value(slots: np.ndarray) -> PolicyCost:
        if tuple(slots) not in valued_on:
            valued_on[tuple(slots)] = policy_cost(*_sub(usd, correct, runs, slots, full), fee, k)
        return valued_on[tuple(slots)]

    per_fold = [(expected_cost(*_sub(usd, correct, runs, a, full), fee, k, groups), value(a).total, value(b))
                for a, b in folds]
    out = []
    for options in option_sets:
        records, fail, chosen, inside, runs_failed = [], [], [], [], []
        for looks, own, valued in per_fold:
            here = looks[:, options]
            pick = np.where(np.isfinite(here).any(axis=1), np.argmin(here, axis=1), -1)
            rows, cols = np.arange(len(pick)), np.asarray(options)[np.maximum(pick, 0)]
            records.append(np.where(pick >= 0, valued.records[rows, cols], 0.0))
            fail.append(np.where(pick >= 0, valued.fail_all[rows, cols], 1.0))
            inside.append(np.where(pick >= 0, own[rows, cols], fee))
            runs_failed.append(np.where(pick >= 0, valued.fail_runs[rows, cols], 1.0))
            chosen.append(pick)
        fail_all = np.mean(fail, axis=0)
        out.append(CrossFitted(k, tuple(options), tuple(folds), np.mean(records, axis=0), fail_all, fail_all * fee,
                               np.array(chosen), np.mean(inside, axis=0), np.mean(runs_failed, axis=0)))
    return out


# ---- intervals --------------------------------------------------------------------------------------------------
def fee_interval(fail_all: np.ndarray, fee: np.ndarray, level: float, fail_runs: np.ndarray | None = None, k: int = 1
                 ) -> tuple[np.ndarray, np.ndarray]:
    """A ``level`` interval for Σ_i fee_i · f_i (USD), f_i = (1 − R_i)^k the chance that problem i's k tries all fail,
    from the estimates f̂_i ∈ [0, 1] (``fail_all`` (P, …): each trailing column a policy; ``fee`` (P,)): the gamma
    interval of a weighted sum of Poisson counts (Fay & Feuer 1997; Garwood's exact Poisson interval when every fee is
    equal). A sum of independent [0, 1] variables is less dispersed than the Poisson count of the same mean, so the
    interval holds also where only a few problems, or none, failed every try. With ``fail_runs`` (the share of each
    problem's runs that failed, unbiased for 1 − R_i), the upper end is also bounded by the failed runs themselves:
    Σ (1 − R_i)^k ≤ min(x, x^k) for x = Σ (1 − R_i), whose exact Poisson bound comes from k · Σ fail_runs failed runs
    (times the largest fee); the smaller of the two upper ends, each at 1 − (1 − level)/4 (Bonferroni), is taken.
    (low, high), each of ``fail_all``'s trailing shape."""
    from scipy.stats import gamma

    fail_all = np.asarray(fail_all, float)
    f = np.asarray(fee, float).reshape(-1, *[1] * (fail_all.ndim - 1))
    y, v = np.sum(f * fail_all, axis=0), np.sum(f**2 * fail_all, axis=0)
    w = float(np.max(fee)) if np.size(fee) else 0.0
    if w <= 0:
        return np.zeros_like(y), np.zeros_like(y)
    a = (1 - level) / 2 if fail_runs is None else (1 - level) / 4  # the upper tail's share of each bound
    with np.errstate(divide="ignore", invalid="ignore"):
        low = np.where(y > 0, gamma.ppf((1 - level) / 2, y**2 / v, scale=v / y), 0.0)
    high = gamma.ppf(1 - a, (y + w) ** 2 / (v + w**2), scale=(v + w**2) / (y + w))
    if fail_runs is not None:
        x = gamma.ppf(1 - a, k * np.sum(np.asarray(fail_runs, float), axis=0) + 1) / k  # bounds Σ (1 − R_i)
        high = np.minimum(high, w * np.minimum(x, x**k))
    return low, high


def policy_interval(records: np.ndarray, fail_all: np.ndarray, fee: np.ndarray, level: float = 0.95,
                    fail_runs: np.ndarray | None = None, k: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mean, low, high) USD per problem of a policy over a dataset's problems, ``records`` and ``fail_all`` (P, …)
    (each trailing column a policy), ``fee`` (P,): the records part's normal interval (its spread over problems,
    which is at least its spread over runs) plus the fee part's (``fee_interval``), each at 1 − (1 − level)/2, so
    that the sum holds at ``level`` whatever their dependence (Bonferroni); ``fail_runs`` and ``k`` bound the fee part
    by the failed runs too. Its truth is the mean policy cost of these problems; NaN in a column where a value is not
    identified."""
    from scipy.stats import norm

    records, fail_all, fee = (np.asarray(x, float) for x in (records, fail_all, fee))
    P = len(records)
    if P == 0:
        return tuple(np.full(records.shape[1:], np.nan) for _ in range(3))
    half = 1 - (1 - level) / 2
    sd = np.std(records, axis=0, ddof=1) if P > 1 else np.full(records.shape[1:], np.inf)
    spread = norm.ppf(1 - (1 - half) / 2) * sd / np.sqrt(P)
    rec = records.mean(axis=0)
    f_lo, f_hi = fee_interval(np.nan_to_num(fail_all), fee, half, None if fail_runs is None else np.nan_to_num(fail_runs), k)
    value = rec + np.mean(fee.reshape(-1, *[1] * (fail_all.ndim - 1)) * fail_all, axis=0)
    unknown = np.isnan(records).any(axis=0) | np.isnan(fail_all).any(axis=0)
    out = value, np.maximum(rec - spread, 0.0) + f_lo / P, rec + spread + f_hi / P
    return tuple(np.where(unknown, np.nan, x) for x in out)


def gain_interval(before: CrossFitted, after: CrossFitted, here: np.ndarray, fee: np.ndarray, level: float = 0.95
                  ) -> tuple[float, float, float]:
    """(gain, low, high), 0-1: the relative gain (B − A) / B of the cross-fitted frontier ``after`` over ``before``
    on the problems ``here`` (P,) bool, ``fee`` (P,) the expert's USD. The difference's interval adds the records
    part's normal interval (its spread over problems) to the fee parts' gamma intervals (``fee_interval``) of the
    problems where the two chose differently in some fold (elsewhere both, and their truths, are equal), B − A's
    extremes taken; dividing by the before-value's interval (``policy_interval``), the quotient's extremes are taken.
    Each of the four parts at 1 − (1 − level)/4 (Bonferroni): a fee that no valued run happened to charge, or one
    problem's lump of it in numerator and denominator, would otherwise look precise. A cross-fitted gain can be
    negative: more options to choose among on fewer runs can cost more."""
    from scipy.stats import norm

    fee = np.asarray(fee, float)[here]
    b_rec, b_fail, a_rec, a_fail = before.records[here], before.fail_all[here], after.records[here], after.fail_all[here]
    b_total, d_rec = b_rec + fee * b_fail, b_rec - a_rec
    P = len(fee)
    if P < 2 or np.isnan(b_total).any() or np.isnan(a_rec + a_fail).any() or not b_total.sum() > 0:
        return (np.nan,) * 3
    part = 1 - (1 - level) / 4
    spread = norm.ppf(1 - (1 - part) / 2) * float(np.std(d_rec, ddof=1)) / np.sqrt(P)
    differ = (before.strategies() != after.strategies()).any(axis=0)[here]
    (bf_lo, bf_hi), (af_lo, af_hi) = (fee_interval(x.fail_all[here][differ], fee[differ], part, x.fail_runs[here][differ], x.k)
                                      for x in (before, after))
    d = float(np.mean(b_total - a_rec - fee * a_fail))
    d_lo = d_rec.mean() - spread + (float(bf_lo) - float(af_hi)) / P
    d_hi = d_rec.mean() + spread + (float(bf_hi) - float(af_lo)) / P
    _, b_lo, b_hi = (float(x) for x in policy_interval(b_rec, b_fail, fee, part, before.fail_runs[here], before.k))
    with np.errstate(divide="ignore", invalid="ignore"):
        low = d_lo / (b_hi if d_lo >= 0 else b_lo) if b_lo > 0 or d_lo >= 0 else -np.inf
        high = d_hi / (b_lo if d_hi >= 0 else b_hi) if b_lo > 0 or d_hi < 0 else np.inf
    return d / float(b_total.mean()), float(low), float(high)


# ---- a set's policy statistics ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SetPolicy:
    """A set's policy estimates: each strategy alone with every run as a try (``single``, k = the fewest runs of a
    cell), the cross-fitted frontier of ``models`` (``frontier``, k = half that) and, per technique, the
    cross-fitted frontiers of the base models without and with it (``techniques``: method -> (before, after))."""

    single: PolicyCost
    frontier: CrossFitted | None
    techniques: dict[str, tuple[CrossFitted, CrossFitted]]


def technique_options(base: list[str], methods: list[str], strategies: list[str]) -> dict[str, tuple[list[int], list[int]]]:
    """Per technique recorded as its own runs: (indices of the ``base`` models' strategies, those and the technique's
    strategies on the base models), for its cross-fitted gain. A technique estimated from vanilla runs (best-of-k,
    majority vote; no runs of its own) is left out: one of its tries spends several runs."""
    from helpers.core.methods import get_method
    from helpers.grade.estimates import strategy_name

    out = {}
    for method in methods:
        treated = [strategy_name(m, method) for m in base]
        if method == "vanilla" or not get_method(method).is_collected or not set(treated + base) <= set(strategies):
            continue
        b = [strategies.index(m) for m in base]
        out[method] = (b, b + [strategies.index(s) for s in treated])
    return out


def set_policy(usd: np.ndarray, correct: np.ndarray, runs: np.ndarray, expert_usd: np.ndarray, groups: np.ndarray,
               models: list[int], techniques: dict[str, tuple[list[int], list[int]]], seed: int = 0) -> SetPolicy:
    """``SetPolicy`` of a cube's arrays (``usd``/``correct`` (P, S, n), ``runs`` (P, S)); ``models`` the strategy
    indices of the frontier, ``groups`` (P,) the task of each problem (a prior per task for the choice). The frontier
    and techniques need at least 2 runs per cell (else None / left out)."""
    k = largest_k(runs[:, models] if models else runs)  # the models' fewest runs: another strategy's do not lower it
    single = policy_cost(usd, correct, runs, expert_usd, k)
    half = crossfit_k(largest_k(runs[:, models])) if models else 0
    if half < 1:
        return SetPolicy(single, None, {})
    kept = {m: sets for m, sets in techniques.items() if crossfit_k(largest_k(runs[:, sets[1]])) >= half}
    fits = crossfit_many(usd, correct, runs, expert_usd, [models, *[x for sets in kept.values() for x in sets]], half,
                         seed=seed, groups=groups)
    return SetPolicy(single, fits[0], {m: (fits[1 + 2 * i], fits[2 + 2 * i]) for i, m in enumerate(kept)})


def policy_rows(sp: SetPolicy, expert_usd: np.ndarray, groups: np.ndarray, tasks: list[str], names: dict[int, str],
                level: float = 0.95) -> pd.DataFrame:
    """One row per (statistic, task): ``table1:<name>`` for each strategy index of ``names``, ``frontier:all models``
    and ``technique gain:<method>``, with value, low, high (USD per problem; gains 0-1), k, and for the USD values
    the records' part, the fee's part and the fee's share (%)."""
    rows = []

    def add(statistic, t, est, k, records=np.nan, fee=np.nan):
        share = 100 * fee / est[0] if est[0] and np.isfinite(fee) else np.nan
        rows.append({"statistic": statistic, "task": tasks[t], "value": est[0], "low": est[1], "high": est[2], "k": k,
                     "records_usd": records, "expert_usd": fee, "expert_share_pct": share})

    cols = list(names)
    for t in range(len(tasks)):
        here = groups == t
        single = sp.single
        est = policy_interval(single.records[here][:, cols], single.fail_all[here][:, cols], expert_usd[here], level,
                              single.fail_runs[here][:, cols], single.k)
        rec, fee = np.mean(sp.single.records[here][:, cols], axis=0), np.mean(sp.single.expert[here][:, cols], axis=0)
        for j, s in enumerate(cols):
            add(f"table1:{names[s]}", t, [float(x[j]) for x in est], sp.single.k, rec[j], fee[j])
        if sp.frontier is not None:
            f = sp.frontier
            est = [float(x) for x in policy_interval(f.records[here], f.fail_all[here], expert_usd[here], level,
                                                     f.fail_runs[here], f.k)]
            add("frontier:all models", t, est, f.k, np.mean(f.records[here]), np.mean(f.expert[here]))
        for method, (before, after) in sp.techniques.items():
            add(f"technique gain:{method}", t, gain_interval(before, after, here, expert_usd, level), after.k)
    return pd.DataFrame(rows)
