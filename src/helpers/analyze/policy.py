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

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from math import comb

import numpy as np
import pandas as pd

from helpers.analyze import difficulty_routing, fee_prior, split_variance
from helpers.analyze.differences import against_lowest, bonferroni, fee_gaps, paired, room, unseen_fee
from helpers.analyze.headline import Gain, Level, Spec
from helpers.analyze.means import beta_moments
from helpers.analyze.statistic import (
    ALL_MODELS,
    FAMILY,
    HEADLINE_FRONTIER,
    RELEASE_GAIN,
    STRATEGY,
    STRATEGY_GAIN,
    TABLE1,
    TECHNIQUE_GAIN,
    Key,
    Kind,
)


@lru_cache(maxsize=64)
def _use_table(n: int, k: int) -> np.ndarray:
    """``use[r, g]`` over r ≤ n runs = (1/r) Σ_{j<k} C(g, j) / C(r − 1, j): a run's expected uses when g of the r − 1
    others failed; NaN where r < k (not identified)."""
    use = np.full((n + 1, n + 1), np.nan)
    for r in range(max(k, 1), n + 1):
        for g in range(r):
            use[r, g] = sum(comb(g, j) / comb(r - 1, j) for j in range(k)) / r
    return use


def _all_fail_chance(failed: np.ndarray, runs: np.ndarray, draws: int) -> np.ndarray:
    """C(failed, draws) / C(runs, draws): the chance that ``draws`` runs taken without replacement all failed.
    Integer arrays of one shape; NaN where runs < draws."""
    runs = np.asarray(runs, dtype=np.int64)
    return fee_prior.all_fail_table(int(runs.max(initial=0)), draws)[runs, np.asarray(failed, dtype=np.int64)]


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
    use = _use_table(max(int(runs.max(initial=0)), n), k)
    w = np.where(live, use[np.broadcast_to(runs[..., None], correct.shape), others_failed], 0.0)
    return np.where(runs[..., None] >= k, w, np.nan)


@dataclass(frozen=True)
class PolicyCost:
    """Per (problem, strategy) USD of "up to k tries, then the expert": ``records`` paid for attempts, ``expert`` the
    fee times the estimated chance that all k fail, ``fail_all`` that chance, ``fail_runs`` the share of the cell's
    runs that failed (unbiased for 1 − R: what bounds the chance of k fails where none was seen, ``fee_interval``; in
    a truth, 1 − R itself); NaN where a cell has fewer than k runs (the records do not identify the policy there);
    ``runs`` the runs each cell's estimate read (None in a truth, which reads none). Arrays (P, S)."""

    k: int
    records: np.ndarray
    expert: np.ndarray
    fail_all: np.ndarray
    fail_runs: np.ndarray
    runs: np.ndarray | None = None  # (P, S) the runs of each cell the estimate read

    @property
    def total(self) -> np.ndarray:
        return self.records + self.expert

    def columns(self, idx) -> PolicyCost:
        """The strategies ``idx`` (indices into S, repeats allowed) as their own ``PolicyCost``, (P, len(idx))."""
        def pick(x):
            return None if x is None else np.asarray(x)[:, idx]
        return PolicyCost(self.k, pick(self.records), pick(self.expert), pick(self.fail_all), pick(self.fail_runs),
                          pick(self.runs))


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
                      fail_all, share, np.asarray(runs))


def largest_k(runs: np.ndarray) -> int:
    """The most tries every cell's records identify: the fewest complete runs of any cell that has some (>= 1)."""
    some = runs[runs > 0]
    return int(some.min()) if some.size else 1


def headline_k(runs: np.ndarray) -> int:
    """The tries of the headline's policy, "up to k tries, then the expert": half the fewest runs of any cell (at least
    1). The records identify every k up to ``largest_k``, but at k = r runs the only unbiased estimate of the chance
    that k tries all fail is whether all r failed, one lump of the expert's fee per problem where they did; at k = r/2
    it averages C(r, k) orderings, so a problem that failed most of its runs carries its share of the fee instead of all
    or nothing. Measured on the validity study's 13 generators (100 sets of 128 problems × 8 runs each,
    benchmarks/results/comparison_power.txt against its k = 8 run): the power to tell apart two models one of which
    costs at most half the other rose from 46-94% to 78-100%, a true self-refine gain was named on BBQ in 39% of sets
    instead of 20% and on MATH-500 in 98% instead of 76%, with every interval's coverage at 97% or more."""
    return max(1, largest_k(runs) // 2)


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
    return PolicyCost(k, np.asarray(cost, float) * sum(q**j for j in range(k)),
                      fail * np.asarray(expert_usd, float)[:, None],
                      fail, q)


# ---- the frontier: the option the other problems' records choose, valued on each problem's own runs ------------
@dataclass(frozen=True)
class CrossFitted:
    """The cheapest policy the records choose among ``options`` (strategy indices): per group of problems (a dataset)
    one option, "up to k tries of it, then the expert", chosen for each problem on the *other* problems of its group
    (``loo_criterion``) and valued on the problem's own runs by ``policy_cost`` (k = the options' fewest runs, as each
    model alone): per problem (P,) the records part (USD), the estimated chance that the chosen option's k tries all
    fail, and the expert part (that chance times the fee); ``chosen`` (R, P) the position in ``options`` chosen for
    each problem (−1: no option had runs, the expert alone), a row per way the choice was made (here one;
    ``crossfit_halves``, the headline's, which averages over splits of each problem's runs, keeps a row per split, and
    ``truth`` averages them; a routed choice keeps each split's parts too, for ``routed_gain_interval``);
    ``in_sample`` (P,) USD: the
    option that looks cheapest on every problem's runs, chosen and read on the same runs (flattered by their luck);
    ``fail_runs`` (P,) the share of the chosen option's runs that failed."""

    k: int
    options: tuple[int, ...]
    records: np.ndarray
    fail_all: np.ndarray
    expert: np.ndarray
    chosen: np.ndarray
    in_sample: np.ndarray
    fail_runs: np.ndarray
    runs: np.ndarray  # (P,) the runs of the chosen option's cell (k for the expert alone)
    split: split_variance.SplitParts | None = None  # a routed choice's parts of each split

    @property
    def routed(self) -> bool:
        """Whether the options were routed by a difficulty they share (``crossfit_halves`` with ``own_weights=()``, on
        the problems whose runs it splits; where it splits none, e.g. one run per cell, it is not): such a choice keeps
        each split's parts (``split``)."""
        return self.split is not None

    @property
    def total(self) -> np.ndarray:
        return self.records + self.expert

    def strategies(self) -> np.ndarray:
        """(R, P) the strategy index chosen for each problem (−1: the expert alone), a row per way of choosing."""
        return np.asarray([*self.options, -1])[np.where(self.chosen >= 0, self.chosen, len(self.options))]

    @property
    def halved(self) -> bool:
        """Whether some problem's option was chosen on half of its runs, one choice per split (``crossfit_halves``)."""
        return self.chosen.shape[0] > 1

    @property
    def modal(self) -> np.ndarray:
        """(P,) the strategy index most of each problem's ways of choosing chose (−1: the expert alone; a tie: the
        first of ``options``)."""
        picked = self.strategies()
        values = np.asarray([*self.options, -1])
        counts = (picked[None, :, :] == values[:, None, None]).sum(axis=1)  # (O + 1, P)
        return values[np.argmax(counts, axis=0)]

    def truth(self, true: PolicyCost, expert_usd: np.ndarray) -> PolicyCost:
        """What the options chosen here truly cost under the policy, per problem (P,): ``true`` the exact (P, S) policy
        cost of every strategy (``true_policy``, same k), ``expert_usd`` (P,) the fee (paid whole where no option had
        runs)."""
        rows = np.arange(self.chosen.shape[1])

        def pick(a, fallback):
            return np.where(self.chosen >= 0, a[:, [*self.options, 0]][rows, np.maximum(self.chosen, 0)], fallback
                            ).mean(axis=0)

        return PolicyCost(true.k, pick(true.records, 0.0), pick(true.expert, np.asarray(expert_usd, float)),
                          pick(true.fail_all, 1.0), pick(true.fail_runs, 1.0))


def _loo_priors(passed: np.ndarray, tried: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(α, β) (P, S): ``means.beta_prior`` fitted on every problem but each one in turn (the moments' sums less its
    own)."""
    ok = tried > 0
    x = np.where(ok, passed / np.where(ok, tried, 1), 0.0)
    inv = np.where(ok, 1 / np.where(ok, tried, 1), 0.0)
    count = ok.sum(axis=0)[None, :] - ok  # (P, S): the others' problems with tries
    with np.errstate(invalid="ignore", divide="ignore"):
        m = (x.sum(axis=0) - x) / count
        v = ((x**2).sum(axis=0) - x**2 - count * m**2) / (count - 1)
        noise = m * (1 - m) * (inv.sum(axis=0) - inv) / count
    s, n = np.where(ok, passed, 0), np.where(ok, tried, 0)
    return beta_moments(m, v, noise, count, s.sum(axis=0) - s, n.sum(axis=0) - n)


CHUNK = 64  # priors whose expected costs are computed at once in ``loo_criterion``


def _expected_costs(A: np.ndarray, B: np.ndarray, s: np.ndarray, f: np.ndarray, c: np.ndarray, fee: np.ndarray,
                    has: np.ndarray, k: int) -> np.ndarray:
    """(U, n, S) USD: every problem j's expected cost under "up to k tries, then the expert" given its ``s`` passes and
    ``f`` fails (n, S), under each of U Beta priors (``A``/``B`` (U, S)): c_j · E[Σ_{i<k} (1 − R)^i] + fee_j ·
    E[(1 − R)^k]; 0 where a cell has no runs (``has``); NaN under a prior that is NaN (never read)."""
    moment, geometric = np.ones((len(A), *s.shape)), np.zeros((len(A), *s.shape))
    with np.errstate(invalid="ignore"):
        for t in range(k):
            geometric += moment
            moment = moment * (B[:, None] + f[None] + t) / (A[:, None] + B[:, None] + s[None] + f[None] + t)
        return np.where(has[None], c[None] * geometric + moment * fee[None, :, None], 0.0)


def loo_criterion(usd: np.ndarray, correct: np.ndarray, runs: np.ndarray, expert_usd: np.ndarray, k: int,
                  groups: np.ndarray) -> np.ndarray:
    """(P, S) what each option looks like it costs under "up to k tries, then the expert" on the problems of each
    problem's group *other than itself*: the mean over them of the cost expected given their runs (the mean USD per
    attempt times Σ_{j<k} E[(1 − R)^j], plus the fee times E[(1 − R)^k], R under the Beta posterior from the problem's
    passes and a prior fitted per strategy on the same other problems, ``_loo_priors``): a shrunk guess that decides a
    choice and is never reported. It uses no run of the problem itself, so that problem's runs value the choice without
    bias. ∞ where an option has no runs on the other problems (or the group has one problem).

    Where every cell of a group has one run, the prior's spread between problems is not identified (one run cannot
    tell a hard problem from an unlucky try), so the posterior of each problem would be its option's mean rate and
    every failure would weigh as the *mean* fee, whichever problem failed: on SWE-bench bash-only that chose a model
    failing the dear problems over one failing the cheap ones. There the criterion is each option's unbiased cost
    (``policy_cost``) averaged over the other problems: what its runs cost, and the fee of each problem it failed."""
    fee = np.asarray(expert_usd, float)
    others, count, _, _ = _loo_parts(usd, correct, runs, fee, k, groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(count > 0, others / count, np.inf)  # the problem's own runs take no part
    for g in np.unique(groups):
        idx = np.flatnonzero(groups == g)
        if (runs[idx] <= 1).all():
            out[idx] = _loo_means(policy_cost(usd[idx], correct[idx], runs[idx], fee[idx], k).total)
    return out


def _cell_counts(usd: np.ndarray, correct: np.ndarray, runs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per cell, (..., S) each: the passes and fails of its first ``runs`` runs and their mean USD per attempt."""
    live = np.arange(correct.shape[-1]) < runs[..., None]
    s, f = (live & correct).sum(-1).astype(float), (live & ~correct).sum(-1).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        c = np.where(runs > 0, np.nansum(np.where(live, usd, 0.0), -1) / np.where(runs > 0, runs, 1), 0.0)
    return s, f, c


def _loo_parts(usd: np.ndarray, correct: np.ndarray, runs: np.ndarray, fee: np.ndarray, k: int,
               groups: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``loo_criterion``'s parts, (P, S) each: the sum over each problem's group's *other* problems of their expected
    cost (USD) under the problem's own leave-one-out prior (``_loo_priors``), how many they are, and that prior's
    (α, β). A group whose cells all hold at most one run is left out (sum NaN, count 0)."""
    s, f, c = _cell_counts(usd, correct, runs)
    others, count = np.full(runs.shape, np.nan), np.zeros(runs.shape)
    alpha, beta = np.full(runs.shape, np.nan), np.full(runs.shape, np.nan)
    S = runs.shape[1]
    for g in np.unique(groups):
        idx = np.flatnonzero(groups == g)
        if (runs[idx] <= 1).all():
            continue
        a, b = _loo_priors(s[idx], s[idx] + f[idx])  # (n, S): a problem's prior depends on it only by its own counts
        has = runs[idx] > 0  # (n, S)
        key = s[idx] * (correct.shape[-1] + 1) + f[idx]  # (n, S): the counts that decide each problem's prior
        keys = np.unique(key)
        # one prior per distinct key and column (the prior of any problem with that key there; NaN where none has it)
        A, B = np.full((len(keys), S), np.nan), np.full((len(keys), S), np.nan)
        slot = np.searchsorted(keys, key)  # (n, S)
        A[slot, np.arange(S)[None, :]], B[slot, np.arange(S)[None, :]] = a, b
        total, own = np.zeros((len(keys), S)), np.zeros((len(idx), S))  # every problem's sum, the problem's own term
        for lo in range(0, len(keys), CHUNK):  # CHUNK priors at once (memory: CHUNK × group size × strategies)
            u = slice(lo, lo + CHUNK)
            each = _expected_costs(A[u], B[u], s[idx], f[idx], c[idx], fee[idx], has, k)  # (chunk, n, S)
            total[u] = each.sum(axis=1)
            here = (slot >= lo) & (slot < lo + CHUNK)  # (n, S): problems whose prior is in this chunk
            rows, cols = np.nonzero(here)
            own[rows, cols] = each[slot[rows, cols] - lo, rows, cols]
        others[idx] = total[slot, np.arange(S)[None, :]] - own
        count[idx], alpha[idx], beta[idx] = has.sum(axis=0)[None] - has, a, b
    return others, count, alpha, beta


def _loo_means(total: np.ndarray) -> np.ndarray:
    """(n, S): each column's mean over the other rows of ``total`` (NaN: a cell without runs, left out); ∞ where no
    other row has a value."""
    has = np.isfinite(total)
    value = np.where(has, total, 0.0)
    count = has.sum(axis=0)[None] - has
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, (value.sum(axis=0)[None] - value) / count, np.inf)


def crossfit_frontier(usd: np.ndarray, correct: np.ndarray, runs: np.ndarray, expert_usd: np.ndarray,
                      options: list[int], k: int | None = None, groups: np.ndarray | None = None) -> CrossFitted:
    """The cross-fitted value of the cheapest policy the records choose among ``options``: per group of problems
    (``groups`` (P,), e.g. a task's) one option, "up to k tries of it, then the expert" (k default: the options' fewest
    runs, as each option alone). For each problem the option is the one that looks cheapest on the group's *other*
    problems (``loo_criterion``), and it is valued without bias on the problem's own runs (``policy_cost``). Unbiased,
    problem by problem, for what the chosen options truly cost (``CrossFitted.truth``): no winner's curse, as an option
    chosen and valued on the same runs would have; and as the choice is one option per group, never below the best
    single option's truth, near it wherever the records can tell the options apart. ``usd``/``correct`` (P, S, n),
    ``runs`` (P, S)."""
    return crossfit_many(usd, correct, runs, expert_usd, [options], k, groups)[0]


def crossfit_many(usd: np.ndarray, correct: np.ndarray, runs: np.ndarray, expert_usd: np.ndarray,
                  option_sets: list[list[int]], k: int | None = None, groups: np.ndarray | None = None
                  ) -> list[CrossFitted]:
    """``crossfit_frontier`` of each option set at one k (default: the most the runs identify, the fewest runs of
    any cell of any set; a set's headline passes ``headline_k``), every
    problem's criterion computed once."""
    used = sorted({o for options in option_sets for o in options})
    k = largest_k(runs[:, used]) if k is None else k
    if k < 1 or (used and k > largest_k(runs[:, used])):
        raise ValueError(f"a chosen policy needs k tries in every option's runs (k = {k}, "
                         f"{largest_k(runs[:, used])} runs)")
    codes = np.zeros(len(runs), int) if groups is None else np.asarray(groups)
    fee = np.asarray(expert_usd, float)
    looks = loo_criterion(usd, correct, runs, fee, k, codes)
    cost = policy_cost(usd, correct, runs, fee, k)
    onehot = (codes[None, :] == np.unique(codes)[:, None]).astype(float)
    member = np.argmax(onehot, axis=0)
    rows = np.arange(len(runs))
    out = []
    for options in option_sets:
        if options:
            mine = np.where(np.isnan(cost.total[:, options]), np.inf, looks[:, options])  # only options with runs here
            pick = np.where(np.isfinite(mine).any(axis=1), np.argmin(mine, axis=1), -1)
            own = cost.total[:, options]
            with np.errstate(invalid="ignore", divide="ignore"):
                seen = onehot @ ~np.isnan(own)
                mean = np.where(seen > 0, (onehot @ np.nan_to_num(own)) / seen, np.inf)  # (T, O)
            inside = np.where(np.isnan(own), np.inf, mean[member])
            in_pick = np.where(np.isfinite(inside).any(axis=1), np.argmin(inside, axis=1), -1)
        else:
            pick = in_pick = np.full(len(runs), -1)  # no option: the expert alone
        cols = np.asarray([*options, 0])[np.maximum(pick, 0)]  # 0: unused (no pick)
        in_cols = np.asarray([*options, 0])[np.maximum(in_pick, 0)]
        fail_all = np.where(pick >= 0, cost.fail_all[rows, cols], 1.0)
        out.append(CrossFitted(k, tuple(options), np.where(pick >= 0, cost.records[rows, cols], 0.0), fail_all,
                               fail_all * fee, pick[None, :], np.where(in_pick >= 0, cost.total[rows, in_cols], fee),
                               np.where(pick >= 0, cost.fail_runs[rows, cols], 1.0),
                               np.where(pick >= 0, runs[rows, cols], k)))
    return out


# The headline's ways of choosing (``set_policy``): no own weight (each problem routed by the difficulty every option
# shares alone), the curves fitted without the problem's fold of 5.
HEADLINE_WEIGHTS: tuple[float, ...] = ()
HEADLINE_FOLDS = 5
MAX_SPLITS = 256  # the most splits of a problem's runs ``crossfit_halves`` enumerates (C(8, 4) = 70, C(10, 5) = 252)


def crossfit_halves(usd: np.ndarray, correct: np.ndarray, runs: np.ndarray, expert_usd: np.ndarray,
                    option_sets: list[list[int]], k: int | None = None, groups: np.ndarray | None = None,
                    own_weights: tuple[float, ...] = (1.0,), difficulty_folds: int = 0) -> list[CrossFitted]:
    """``crossfit_many`` with half of each problem's own runs in its choice. Leaving a problem out tips the choice,
    where options nearly tie, toward the option whose runs did worse on it (``unsettled``); here, on a problem whose
    options (with runs) all hold r ≥ 2k runs, every split of its run positions into r // 2 that choose and the rest
    that value (the same positions for every option; C(r, r // 2) ≤ ``MAX_SPLITS``) chooses the option whose expected
    cost is lowest over the group's other problems' runs (``loo_criterion``'s) and the choosing half (under the same
    leave-one-out prior), and values it on the other half by ``policy_cost``; the problem's value is the mean over the
    splits. Each split's value is unbiased for what its choice truly costs (the halves are independent), so the mean
    is for the mean of those (``CrossFitted.truth`` averages ``chosen``'s rows, one per split), and no seed is drawn.
    Elsewhere the leave-one-out choice. With ``own_weights=(1.0,)`` the headline's rule until 2026-12-02; measured
    beside the headline's (``set_policy``: ``HEADLINE_WEIGHTS``, ``HEADLINE_FOLDS``), leave-one-out and others
    (``benchmarks/frontier_choice.py``).

    ``own_weights``: how many of the other problems the choosing half weighs as. With several,
    each problem takes the weight whose choices cost least on the held-out halves of the other problems of its group
    (``_weighed_picks``): more weight routes each problem by its own runs, which pays where models differ problem by
    problem and costs where they do not; measured in ``benchmarks/frontier_choice.py`` and not the headline's, as it
    widens the frontier's interval (more models chosen somewhere, ``chosen_interval``). ``difficulty_folds`` ≥ 2
    adds one more way of choosing to that held-out contest (or, with no weights, is the only one, the headline's
    way): each problem routed by a difficulty every strategy shares, curves fitted without the problem's fold of that
    many (``difficulty_routing``); 0: none. The contest is not free: a problem's valuing half reaches the other
    problems' choices (through ``loo_criterion``'s sums and the curves), so the others' held-out values and its own lean
    together, and choosing the way that did best on them picks its luck too (benchmarks/HISTORY.md, "Routing each
    problem by a difficulty the models share")."""
    _check_ways(own_weights, difficulty_folds)
    fits = crossfit_many(usd, correct, runs, expert_usd, option_sets, k, groups)
    used = sorted({o for options in option_sets for o in options})
    if not fits or not used:
        return fits
    k, fee = fits[0].k, np.asarray(expert_usd, float)
    codes = np.zeros(len(runs), int) if groups is None else np.asarray(groups)
    cells = runs[:, used]
    r_of = cells.max(axis=1)
    fit_here = ((cells == r_of[:, None]) | (cells == 0)).all(axis=1) & (r_of >= 2 * k)
    splits, rows = _split_counts(r_of[fit_here])
    out = [dict(records=f.records.copy(), fail_all=f.fail_all.copy(), fail_runs=f.fail_runs.copy(),
                chosen=np.tile(f.chosen[0].astype(np.int16), (rows, 1)),
                split=np.tile(f.records, (rows, 1)), split_fee=np.tile(f.expert, (rows, 1))) for f in fits]
    others, count, alpha, beta = _loo_parts(usd, correct, runs, fee, k, codes)
    full = policy_cost(usd, correct, runs, fee, k)
    for g in np.unique(codes):
        members = np.flatnonzero(codes == g)
        curves = _group_curves(usd[members][:, used], correct[members][:, used], cells[members], difficulty_folds)
        for r, n_splits in splits.items():
            idx = np.flatnonzero((codes == g) & fit_here & (r_of == r))
            if not len(idx):
                continue
            loo = (others[idx][:, used], count[idx][:, used], alpha[idx][:, used], beta[idx][:, used])
            own, records, fail_all = _split_halves(usd[idx][:, used, :r], correct[idx][:, used, :r], fee[idx], k, loo)
            routed = None if curves is None else _routed(curves, np.searchsorted(members, idx),
                                                         correct[idx][:, used, :r], cells[idx] > 0, fee[idx], k)
            for mine, options in zip(out, option_sets):
                at = np.searchsorted(used, options)  # the options' columns among ``used``
                has = cells[idx][:, at] > 0
                some = has.any(axis=1)
                if not some.any():
                    continue
                extra = () if routed is None else (_lowest(routed[..., at], has),)
                pick = _weighed_picks(own[:, at], has, (loo[0][:, at], loo[1][:, at]),
                                      (records[..., at], fail_all[..., at]), fee[idx], np.asarray(some),
                                      own_weights, extra)  # (n, C)
                col = at[pick]
                here, sel = idx[some], (np.arange(len(idx))[some, None], np.arange(n_splits)[None, :], col[some])
                _keep(mine, here, pick[some], records[sel], fail_all[sel],
                      full.fail_runs[here[:, None], np.asarray(options)[pick[some]]], fee[here], rows)
    by_curves = not own_weights and bool(fit_here.any())  # some problem routed: one run per cell routes none
    parts = _split_parts(correct[:, used], cells, np.where(fit_here, r_of, 0), splits, k, codes) if by_curves else None
    return _fitted(fits, out, fee, parts, used)


def _keep(mine: dict, here: np.ndarray, pick: np.ndarray, records: np.ndarray, fail_all: np.ndarray,
          fail_runs: np.ndarray, fee: np.ndarray, rows: int) -> None:
    """Write n problems (``here`` (n,)) into ``crossfit_halves``' per-fit arrays ``mine``: each split's choice
    ``pick``, records part ``records`` (USD), chance that k tries all fail ``fail_all`` and the chosen option's share
    of failed runs ``fail_runs``, (n, C) each over the C splits (``fee`` (n,) USD); their means are the problems'
    values, and the splits are tiled over the ``rows`` of ``chosen``."""
    tiles = (rows // pick.shape[1], 1)
    mine["split"][:, here] = np.tile(records.T, tiles)
    mine["split_fee"][:, here] = np.tile((fee[:, None] * fail_all).T, tiles)
    mine["records"][here], mine["fail_all"][here] = records.mean(axis=1), fail_all.mean(axis=1)
    mine["fail_runs"][here] = fail_runs.mean(axis=1)
    mine["chosen"][:, here] = np.tile(pick.T, tiles)


def _fitted(fits: list[CrossFitted], out: list[dict], fee: np.ndarray, parts: tuple[np.ndarray, np.ndarray] | None,
            used: list[int]) -> list[CrossFitted]:
    """``crossfit_halves``' fits from its per-split arrays ``out``; routed (with their ``split_variance.SplitParts``)
    where ``parts`` (``_split_parts``' powers of the ``used`` strategies and runs split) is given."""
    def split(f: CrossFitted, m: dict) -> split_variance.SplitParts | None:
        return None if parts is None else split_variance.SplitParts(
            m["split"], m["split_fee"], parts[0][:, np.searchsorted(used, f.options)], parts[1])
    return [CrossFitted(f.k, f.options, m["records"], m["fail_all"], m["fail_all"] * fee, m["chosen"], f.in_sample,
                        m["fail_runs"], f.runs, split(f, m)) for f, m in zip(fits, out)]


def _split_parts(correct: np.ndarray, cells: np.ndarray, r_of: np.ndarray, splits: dict[int, int], k: int,
                 codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A routed choice's run-level parts (``split_variance``): (P, U, k + 1) the posterior E[q^(k + e)], e = 0..k, of
    each strategy's failure rate on each problem (``fee_prior.power_moments``, its group's prior, the top read at the
    pooled Jeffreys rate), ``correct`` (P, U, n) and ``cells`` (P, U) the runs of each; and (P,) the runs split per
    problem where r is even (an odd r's splits have no complement) and the valuing half holds k runs or more (0
    elsewhere: ``r_of`` 0 where not split; ``splits``: those enumerated)."""
    live = np.arange(correct.shape[-1]) < cells[..., None]
    groups = np.unique(codes)
    G = (codes[None, :] == groups[:, None]).astype(float)
    powers = fee_prior.power_moments((live & ~correct).sum(-1), cells, k, G, np.arange(k, 2 * k + 1), "jeffreys")
    even = np.isin(r_of, list(splits)) & (r_of % 2 == 0) & (r_of - r_of // 2 >= k)  # odd r: no complementary split
    return powers[np.searchsorted(groups, codes), np.arange(len(codes))], np.where(even, r_of, 0)


def _check_ways(own_weights: tuple[float, ...], difficulty_folds: int) -> None:
    """``crossfit_halves``' ways of choosing, checked before any work: positive weights, at least one way."""
    if min(own_weights, default=1.0) <= 0 or not (own_weights or difficulty_folds >= 2):
        raise ValueError(f"own_weights must hold positive weights, one or more without difficulty_folds, "
                         f"got {own_weights!r}")


def _split_counts(r_of: np.ndarray) -> tuple[dict[int, int], int]:
    """For problems holding ``r_of`` runs per cell: {r: the splits C(r, r // 2) of r runs}, those ≤ ``MAX_SPLITS``,
    and the rows of ``CrossFitted.chosen`` that hold every one a whole number of times (their least common multiple)."""
    splits = {int(r): comb(int(r), int(r) // 2) for r in np.unique(r_of)}
    splits = {r: n for r, n in splits.items() if n <= MAX_SPLITS}
    return splits, int(np.lcm.reduce(list(splits.values()))) if splits else 1


def _group_curves(usd: np.ndarray, correct: np.ndarray, cells: np.ndarray, folds: int
                  ) -> difficulty_routing.FoldCurves | None:
    """``difficulty_routing.fold_curves`` of one dataset's problems (``usd``/``correct`` (n, U, r) their runs of the
    strategies in use, ``cells`` (n, U) how many); None where ``folds`` < 2 (no routing by difficulty)."""
    if folds < 2:
        return None
    passes, _, per_run = _cell_counts(usd, correct, cells)
    return difficulty_routing.fold_curves(passes, cells, per_run * cells, folds)


def _routed(curves: difficulty_routing.FoldCurves, at: np.ndarray, correct: np.ndarray, has: np.ndarray,
            fee: np.ndarray, k: int) -> np.ndarray:
    """(n, C, U) USD: ``difficulty_routing.expected_costs`` of n problems at positions ``at`` of their dataset, each of
    the C splits of their r runs (``correct`` (n, U, r), ``has`` (n, U) the cells with runs) choosing on its half."""
    r = correct.shape[2]
    choosing = np.einsum("nur,cr->ncu", correct.astype(float), _halves(r))
    return difficulty_routing.expected_costs(curves, at, choosing, r // 2, has, fee, k)


def _split_halves(usd: np.ndarray, correct: np.ndarray, fee: np.ndarray, k: int, loo: tuple[np.ndarray, ...]
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every split of r runs into r // 2 that choose and the rest that value, for n problems whose cells all hold r
    runs (``usd``/``correct`` (n, U, r); ``loo`` ``_loo_parts``' four (n, U) arrays): each option's cost expected
    from the choosing half under the problem's leave-one-out prior, USD (n, U, C); and its records part and chance
    that k tries all fail on the valuing half (``policy_cost``'s), (n, C, U) each."""
    n, U, r = correct.shape
    h = r // 2
    choose = _halves(r)
    a, b = loo[2][..., None], loo[3][..., None]
    s = np.einsum("nur,cr->nuc", correct.astype(float), choose)
    f, cost = h - s, np.einsum("nur,cr->nuc", np.nan_to_num(usd), choose) / h
    moment, geometric = np.ones_like(s), np.zeros_like(s)
    for t in range(k):  # the choosing half's expected cost under the problem's leave-one-out prior
        geometric += moment
        moment = moment * (b + f + t) / (a + b + s + f + t)
    own = cost * geometric + moment * fee[:, None, None]
    # on the valuing half (m runs), as ``policy_cost``: a run's expected uses given how many of the others failed
    m, fail, cash = r - h, (~correct).astype(float), np.nan_to_num(usd)
    failed = np.rint(np.einsum("nur,cr->nuc", fail, 1 - choose)).astype(np.int64)  # (n, U, C)
    use = _use_table(m, k)
    records = (use[m, np.maximum(failed - 1, 0)] * np.einsum("nur,cr->nuc", cash * fail, 1 - choose)
               + use[m, np.minimum(failed, m - 1)] * np.einsum("nur,cr->nuc", cash * (1 - fail), 1 - choose))
    fail_all = _all_fail_chance(failed, np.full(failed.shape, m), k)
    return own, records.transpose(0, 2, 1), fail_all.transpose(0, 2, 1)


@lru_cache(maxsize=16)
def _halves(r: int) -> np.ndarray:
    """(C, r) 0/1: every split of r run positions into r // 2 that choose (1) and the rest that value, C = C(r, r // 2),
    in ``itertools.combinations`` order (every caller's split c is the same split)."""
    out = np.array([[i in c for i in range(r)] for c in combinations(range(r), r // 2)], float)
    out.setflags(write=False)  # one array for every caller
    return out


def _lowest(expected: np.ndarray, has: np.ndarray) -> np.ndarray:
    """(n, C) the column of ``expected`` (n, C, O) lowest for each problem and split, among options with runs there
    (``has`` (n, O)) and a finite value (the first where none)."""
    mine = np.where(has[:, None, :] & np.isfinite(expected), expected, np.inf)
    return np.argmin(mine, axis=2)


def _weighed_picks(own: np.ndarray, has: np.ndarray, others: tuple[np.ndarray, np.ndarray],
                   valued: tuple[np.ndarray, np.ndarray], fee: np.ndarray, some: np.ndarray,
                   weights: tuple[float, ...], extra: tuple[np.ndarray, ...] = ()) -> np.ndarray:
    """(n, C) the option (a column of ``own``) each split chooses for each of n problems: the lowest of what it looks
    like it costs, (the other problems' expected costs + w × the choosing half's ``own`` (n, U, C)) / (their number
    + w), ∞ without runs (``has`` (n, U); ``others`` their sum and number, (n, U) each). With several ``weights``,
    each problem's w is the one whose choices cost least, over the splits, on the valuing halves (``valued``: records
    part and all-fail chance, (n, C, U) each; ``fee`` (n,) USD) of the other problems among ``some`` (n,) bool (a tie,
    or no other problem: the first); ``extra``: more ways of choosing, (n, C) picks each, in that contest too. Its
    own runs reach that choice only as one of the many problems the others' own choices weigh (``loo_criterion``'s
    sums): the validity study measures what that leaves."""
    total, count = np.nan_to_num(others[0])[..., None], others[1][..., None]
    with np.errstate(invalid="ignore", divide="ignore"):  # a cell without runs: NaN, never chosen
        picks = np.stack([np.argmin(np.where(has[..., None], (total + w * own) / (count + w), np.inf), axis=1)
                          for w in weights] + list(extra))  # (W, n, C)
    if len(picks) == 1:
        return picks[0]
    rows, splits = np.arange(own.shape[0])[:, None], np.arange(own.shape[2])[None, :]
    value = (valued[0][rows, splits, picks] + valued[1][rows, splits, picks] * fee[:, None]).mean(axis=2)  # (W, n)
    value = np.where(some[None], value, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        elsewhere = (value.sum(axis=1, keepdims=True) - value) / (some.sum() - some)  # (W, n)
    best = np.where(some.sum() - some > 0, np.argmin(np.nan_to_num(elsewhere, nan=np.inf), axis=0), 0)
    return picks[best, np.arange(own.shape[0])]


# ---- intervals --------------------------------------------------------------------------------------------------
# Each interval is over the problems of a group (a dataset): ``groups`` (T, P) 0/1 rows, one interval per row, all
# groups at once (the validity study computes some 10^5 of them); None: one group of every problem.
def _gamma_ppf(q: float, shape, scale):
    """The gamma distribution's quantile (``scipy.stats.gamma.ppf(q, shape, scale=scale)``) as the bare ufunc: the
    distribution object's argument checks cost 20× the arithmetic."""
    from scipy.special import gammaincinv

    return np.asarray(scale, float) * gammaincinv(shape, q)


def _normal_ppf(q: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(q))


def _grouping(P: int, groups: np.ndarray | None) -> np.ndarray:
    """(T, P) float 0/1 rows: ``groups`` as given, or one row of every problem."""
    return np.ones((1, P)) if groups is None else np.asarray(groups, float).reshape(-1, P)


def _per_group(x: np.ndarray, groups: np.ndarray | None, shape: tuple[int, ...]) -> np.ndarray:
    """(T, C) back to (T, *shape), or to ``shape`` where no groups were given."""
    x = x.reshape(len(x), *shape)
    return x[0] if groups is None else x


def fee_interval(fail_all: np.ndarray, fee: np.ndarray, level: float, fail_runs: np.ndarray | None = None, k: int = 1,
                 groups: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A ``level`` interval for Σ_i fee_i · f_i (USD), f_i = (1 − R_i)^k the chance that problem i's k tries all fail,
    from the estimates f̂_i ∈ [0, 1] (``fail_all`` (P, …): each trailing column a policy; ``fee`` (P,)): the gamma
    interval of a weighted sum of Poisson counts (Fay & Feuer 1997; Garwood's exact Poisson interval when every fee is
    equal). A sum of independent [0, 1] variables is less dispersed than the Poisson count of the same mean, so the
    interval holds also where only a few problems, or none, failed every try. With ``fail_runs`` (the share of each
    problem's runs that failed, unbiased for 1 − R_i), the upper end is also bounded by the failed runs themselves:
    Σ (1 − R_i)^k ≤ min(x, x^k) for x = Σ (1 − R_i), whose exact Poisson bound comes from k · Σ fail_runs failed runs
    (times the largest fee); the smaller of the two upper ends, each at 1 − (1 − level)/4 (Bonferroni), is taken.
    (low, high), each of ``fail_all``'s trailing shape; with ``groups`` (T, P), the sums over each group's problems
    (leading axis T; a group without problems: 0)."""
    fail_all, fee = np.asarray(fail_all, float), np.asarray(fee, float)
    P, shape = len(fee), fail_all.shape[1:]
    G, flat = _grouping(P, groups), fail_all.reshape(P, -1)
    y, v = G @ (fee[:, None] * flat), G @ (fee[:, None] ** 2 * flat)  # (T, C)
    w = np.max(np.where(G > 0, fee, 0.0), axis=1, initial=0.0)[:, None]  # the largest fee of each group
    a = (1 - level) / 2 if fail_runs is None else (1 - level) / 4  # the upper tail's share of each bound
    with np.errstate(divide="ignore", invalid="ignore"):
        low = np.where(y > 0, _gamma_ppf((1 - level) / 2, y**2 / v, v / y), 0.0)
        high = _gamma_ppf(1 - a, (y + w) ** 2 / (v + w**2), (v + w**2) / (y + w))
        if fail_runs is not None:
            failed = G @ np.asarray(fail_runs, float).reshape(P, -1)
            x = _gamma_ppf(1 - a, k * failed + 1, 1.0) / k  # bounds Σ (1 − R_i)
            high = np.minimum(high, w * np.minimum(x, x**k))
    low, high = np.where(w > 0, low, 0.0), np.where(w > 0, high, 0.0)
    return _per_group(low, groups, shape), _per_group(high, groups, shape)


def _fee_bounds(F0: np.ndarray, fee: np.ndarray, level: float, shares: np.ndarray | None, k: int, G: np.ndarray,
                runs: np.ndarray | None, top: fee_prior.Top = "one") -> tuple[np.ndarray, np.ndarray]:
    """(low, high), each (T, C) USD summed over each group's problems (``G`` (T, P) 0/1): the fee part's interval of
    ``F0`` (P, C) all-fail chances: from each problem's runs where they identify it (``fee_prior``), elsewhere the
    weighted Poisson one bounded by the failed runs and ``unseen_fee``; ``shares`` (P, C) the share of runs that
    failed and ``runs`` (P, …) the runs each value read, or None (then the Poisson one alone); ``top``: how the prior's
    mass at "every run fails" is read (``fee_prior.moments``)."""
    P = len(fee)
    if runs is None or shares is None:
        return fee_interval(F0, fee, level, shares, k, G)
    runs = runs.reshape(P, -1)
    enough = fee_prior.identified(runs, k, G)
    if enough.any():
        p_lo, p_hi = fee_prior.fee_interval(F0, fee, level, shares, runs, k, G, top)
        if enough.all():
            return p_lo, p_hi
    f_lo, f_hi = fee_interval(F0, fee, level, shares, k, G)
    f_hi = np.minimum(f_hi, G @ (fee[:, None] * F0) + unseen_fee(F0, shares, runs, k, fee, G, 1 - (1 - level) / 2))
    if not enough.any():
        return f_lo, f_hi
    return np.where(enough, p_lo, f_lo), np.where(enough, p_hi, f_hi)


def policy_interval(records: np.ndarray, fail_all: np.ndarray, fee: np.ndarray, level: float = 0.95,
                    fail_runs: np.ndarray | None = None, k: int = 1, groups: np.ndarray | None = None,
                    runs: np.ndarray | None = None, top: fee_prior.Top = "one"
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mean, low, high) USD per problem of a policy over a dataset's problems, ``records`` and ``fail_all`` (P, …)
    (each trailing column a policy), ``fee`` (P,): the records part's normal interval (its spread over problems,
    which is at least its spread over runs) and the fee part's (``fee_interval``), each at ``level``, combined side
    by side by the root of the sum of their squared margins (MOVER: Zou & Donner 2008, exact for independent normal
    parts; the validity study measures the whole on every generator: ``policy_study``,
    ``benchmarks/comparison_power.py``, ``benchmarks/fee_interval_study.py``). With ``fail_runs``, ``k`` and ``runs``
    (the runs each value read, shaped as ``records``) the fee part's interval is what each problem's runs say
    (``fee_prior.fee_interval``) where every problem read enough runs (2k and 4: ``fee_prior.identified``);
    elsewhere (and without them) the weighted Poisson one, bounded by the failed runs and by what each problem's runs
    allow (``differences.unseen_fee``: Jeffreys posteriors of every problem's failure rate, where smaller):
    ``_fee_bounds``. Its truth is the mean policy cost of these problems; NaN in a column where a value is not
    identified. ``groups`` (T, P): one interval per group of problems (leading axis T), each group's on its own;
    ``top``: ``_fee_bounds``'."""
    records, fail_all, fee = (np.asarray(x, float) for x in (records, fail_all, fee))
    P, shape = len(records), records.shape[1:]
    if P == 0:
        return np.full(shape, np.nan), np.full(shape, np.nan), np.full(shape, np.nan)
    G = _grouping(P, groups)
    R, F = records.reshape(P, -1), fail_all.reshape(P, -1)
    n = G.sum(axis=1)[:, None]
    unknown = (G @ np.isnan(R) + G @ np.isnan(F)) > 0
    R0, F0 = np.nan_to_num(R), np.nan_to_num(F)
    half = level  # each part at the level: MOVER combines them (docstring)
    with np.errstate(divide="ignore", invalid="ignore"):
        rec = G @ R0 / n
        dev = (R0 - G.T @ rec) * (G.sum(axis=0) > 0)[:, None]  # each problem from its group's mean (two passes)
        sd = np.where(n > 1, np.sqrt(G @ dev**2 / (n - 1)), np.inf)
        spread = _normal_ppf(1 - (1 - half) / 2) * sd / np.sqrt(n)
        shares = None if fail_runs is None else np.nan_to_num(np.asarray(fail_runs, float)).reshape(P, -1)
        f_lo, f_hi = _fee_bounds(F0, fee, half, shares, k, G, None if runs is None else np.asarray(runs, float), top)
        fee_mean = G @ (fee[:, None] * F0) / n
        value = rec + fee_mean
        down = np.sqrt(np.minimum(spread, rec) ** 2 + (fee_mean - f_lo / n) ** 2)  # each part's margin below its value
        up = np.sqrt(spread**2 + (f_hi / n - fee_mean) ** 2)
        out = value, np.maximum(value - down, 0.0), value + up
    value, low, high = (_per_group(np.where(unknown, np.nan, x), groups, shape) for x in out)
    return value, low, high


def unsettled(before: CrossFitted, after: CrossFitted, G: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(down, up), (T,) USD per problem each: how far the paired difference B − A of two chosen policies widens below
    and above on each group's problems (``G`` (T, P) 0/1) for the problems where a choice is not settled: where
    ``before``'s (``after``'s) choice differs from the one it makes on most problems of the group, the mean of |B − A|
    over those problems (before's widen below, after's above; a problem's choice: the one most of its splits made,
    ``CrossFitted.modal``). Where options tie, leaving one problem out tips the
    choice toward the option whose runs did worse on that problem (the criterion is the group's sum less the problem's
    own term), so there the chosen policy's estimate is drawn high: B − A reads low where after's choice tips, high
    where before's does. Problem by problem the difference stays unbiased over draws, but Student's t, which takes the
    problems as independent, misses that the tipped problems are picked by their own runs (technique gains held 83-93%
    of 40-60 sets at k = 4 without it on four generators, 96-99% with it on all 13: ``headline_k``)."""
    d = np.abs(np.nan_to_num(before.total - after.total))
    out = []
    for fit in (before, after):
        chosen = fit.modal
        off = np.zeros(G.shape, bool)
        for t, row in enumerate(G > 0):
            if row.any():
                values, counts = np.unique(chosen[row], return_counts=True)
                off[t] = row & (chosen != values[np.argmax(counts)])
        out.append(off @ d / np.maximum(G.sum(axis=1), 1))
    return out[0], out[1]


def _one_column(fit: CrossFitted) -> PolicyCost:
    """A chosen policy's per-problem values as one strategy's column, (P, 1) each."""
    def col(x):
        return np.asarray(x, float).reshape(-1, 1)
    return PolicyCost(fit.k, col(fit.records), col(fit.expert), col(fit.fail_all), col(fit.fail_runs), col(fit.runs))


def gain_interval(before: CrossFitted, after: CrossFitted, here: np.ndarray, fee: np.ndarray, level: float = 0.95,
                  over_after: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(gain, low, high), each (T,), 0-1: the relative gain (B − A) / B of the chosen policy ``after`` over ``before``
    (or (B − A) / A with ``over_after``, Eq. 12 as printed) on the problems of each row of ``here`` (T, P) bool (a
    (P,) row: T = 1); ``fee`` (P,) the expert's USD. The difference B − A is paired, problem by problem on the same runs
    (``differences.paired``; on the problems where the two chose differently, where each read at least 2k and 4 runs, by
    its parts: the records' paired t and each policy's fee part from its runs there, ``differences.room``; elsewhere
    Student's t over the problems, each end at least what the fee lumps and the runs allow, ``differences.fee_gaps``
    over the problems where the two chose differently; where they chose alike both, and their truths, are equal),
    widened by the problems whose choice is not settled (``unsettled``); dividing by the denominator's interval
    (``policy_interval``), the quotient's extremes are taken, each of the two at 1 − (1 − level)/2 (Bonferroni). A
    cross-fitted gain can be negative: a choice made on other problems can cost more with more options. Divided by B,
    the upper end is at most 1 (A ≥ 0). NaN where a group has under 2 problems, an unidentified value or a denominator
    of 0. Two routed choices (``CrossFitted.routed``) whose problems were all split take ``routed_gain_interval``
    instead."""
    fee = np.asarray(fee, float)
    G = np.asarray(here, bool).reshape(-1, len(fee)).astype(float)
    base = after if over_after else before
    if before.split is not None and after.split is not None and not (G @ (before.split.runs == 0)).any():
        return routed_gain_interval(before, after, G, fee, level, over_after)
    base_total = base.records + fee * base.fail_all
    n = G.sum(axis=1)
    part = 1 - (1 - level) / 2
    differ = (before.strategies() != after.strategies()).any(axis=0)
    gaps = (fee_gaps(before, fee, G, 1 - (1 - part) / 4, differ)[:, 0],
            fee_gaps(after, fee, G, 1 - (1 - part) / 4, differ)[:, 0])
    apart = G * differ[None, :]  # where the two differ: their runs are each option's own, independent
    rooms = (room(_one_column(before), apart, fee, part, n), room(_one_column(after), apart, fee, part, n))
    d, d_lo, d_hi = (x[:, 0] for x in paired(before.total[:, None], after.total[:, None], G, fee, part,
                                                 (gaps[0][:, None], gaps[1][:, None]), rooms))
    down, up = unsettled(before, after, G)
    d_lo, d_hi = d_lo - down, d_hi + up
    _, b_lo, b_hi = policy_interval(base.records, base.fail_all, fee, part, base.fail_runs, base.k, G, base.runs)
    with np.errstate(divide="ignore", invalid="ignore"):
        bad = ((n < 2) | (G @ np.isnan(before.total) > 0) | (G @ np.isnan(after.total) > 0)
               | ~(G @ np.nan_to_num(base_total) > 0))
        low = np.where(d_lo >= 0, d_lo / b_hi, np.where(b_lo > 0, d_lo / b_lo, -np.inf))
        high = np.where(d_hi < 0, d_hi / b_hi, np.where(b_lo > 0, d_hi / b_lo, np.inf))
        if not over_after:  # (B − A) / B ≤ 1 for any A ≥ 0: the truth's own bound
            high = np.minimum(high, 1.0)
        gain = d / (G @ np.nan_to_num(base_total) / n)
    gain, low, high = (np.where(bad, np.nan, x) for x in (gain, low, high))
    return gain, low, high


def routed_gain_interval(before: CrossFitted, after: CrossFitted, G: np.ndarray, fee: np.ndarray, level: float = 0.95,
                         over_after: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``gain_interval`` of two routed choices (``CrossFitted.routed``, every problem split) on each group of ``G``
    (T, P) 0/1, each (T,) 0-1: the ``level`` interval of (B − A) / B (or / A with ``over_after``) by the delta method
    at its estimate (``split_variance.delta_ratio``) from each problem's run-level variance (``run_variances``), under
    the larger of its two readings (the union of their two intervals). Fieller's interval, taken before, was unbounded
    wherever B's own normal interval reached 0, a frontier made mostly of the expert's fee times rare failures: up to
    46% of Figure 5's gains (benchmarks/HISTORY.md, "Routed gains by the delta method"). Under routing the problems'
    paired differences spread far more than their runs' noise, all the set's own truth differs by: Student's t over
    the problems (``gain_interval``) held it at 2-18 × the oracle's width (``benchmarks/routed_gains.py``). NaN where a
    group has under 2 problems, an unidentified value or a denominator of 0."""
    base = after if over_after else before
    V = run_variances([((1.0, before), (-1.0, after)), ((1.0, base),)], [(0, 0), (0, 1), (1, 1)], G, fee)
    n = G.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = G @ np.nan_to_num(before.total - after.total) / n
        b = G @ np.nan_to_num(base.total) / n
        z = _normal_ppf(1 - (1 - level) / 2)
        (l0, h0), (l1, h1) = (split_variance.delta_ratio(d, b, (v[0], v[1], v[2]), z, over_after) for v in V)
        low, high = np.minimum(l0, l1), np.maximum(h0, h1)  # the union of the two readings' intervals
        gain = d / b
    bad = (n < 2) | ~(b > 0) | (G @ np.isnan(before.total) > 0) | (G @ np.isnan(after.total) > 0)
    return np.where(bad, np.nan, gain), np.where(bad, np.nan, low), np.where(bad, np.nan, high)


Combo = tuple[tuple[float, CrossFitted], ...]  # a signed sum of routed choices' values, e.g. B − A: ((1, B), (−1, A))


def run_variances(combos: list[Combo], pairs: list[tuple[int, int]], G: np.ndarray, fee: np.ndarray) -> np.ndarray:
    """(2, len(pairs), T) USD²: for each pair (a, b) of ``combos`` (signed sums of the routed choices of one
    ``crossfit_halves`` call, every problem split), the covariance of their means over each group of ``G`` (T, P)
    0/1 as each problem's runs vary (``split_variance``), read two ways: [0] by the split pairs, the fee part's gaps
    scaled by ``split_variance.held_scale`` on the splits where every choice holds; [1] the records parts and their
    covariance with the fee parts by the split pairs, the fee parts by the prior's covariance with the choices held.
    The first errs wide where choices move between splits, the second missed part of the spread under problem × model
    interactions (``split_variance``'s docstring); ``fee`` (P,) USD."""
    fits = [f for combo in combos for _, f in combo]
    strategies = np.unique(np.concatenate([np.asarray(f.options, int) for f in fits]))
    P, k = len(fee), fits[0].k
    powers = np.zeros((P, len(strategies), k + 1))
    for f in fits:
        powers[:, np.searchsorted(strategies, f.options)] = _parts(f).powers
    rec = [np.sum([s * _parts(f).records for s, f in combo], axis=0) for combo in combos]  # (R, P) each
    fees = [np.sum([s * _parts(f).fees for s, f in combo], axis=0) for combo in combos]
    picks = [[(s, f.strategies()) for s, f in combo] for combo in combos]  # each fit's (R, P) strategy per split
    holds = np.all([c == c[::-1] for combo in picks for _, c in combo], axis=0)  # (R, P): with the complement's
    scale = np.ones((len(combos), P))  # each combo's ``held_scale`` per problem
    prior = np.zeros((len(pairs), P))  # the fee parts' covariance by the prior (``split_variance.fee_products``)
    runs = _parts(fits[0]).runs
    for r in np.unique(runs[runs > 0]):
        idx, C, m = np.flatnonzero(runs == r), comb(int(r), int(r) // 2), int(r) - int(r) // 2
        J = split_variance.overlaps(int(r), _halves(int(r)).tobytes())
        chose = [np.asarray(sum(s * (c[:C, idx].T[:, None, :] == strategies[None, :, None]) for s, c in combo), float)
                 for combo in picks]  # (n, O, C): each option's weight
        for row, (a, b) in enumerate(pairs):
            prior[row, idx] = fee[idx] ** 2 * split_variance.fee_products(chose[a], chose[b], powers[idx], J, m)
        for a, x in enumerate(chose):
            scale[a, idx] = split_variance.held_scale(x, powers[idx], J, m)
    pp = split_variance.pair_products
    gaps = [rec[a] + np.where(holds, scale[a] * fees[a], fees[a]) for a in range(len(combos))]
    seen = np.stack([pp(gaps[a], gaps[b]) for a, b in pairs])
    records = np.stack([pp(rec[a], rec[b]) + pp(rec[a], fees[b]) + pp(fees[a], rec[b]) for a, b in pairs])
    n2 = G.sum(axis=1) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.stack([(G @ np.nan_to_num(x).T).T / n2 for x in (seen, records + prior)])


def _parts(fit: CrossFitted) -> split_variance.SplitParts:
    """A routed choice's ``split``; an error for one that is not routed."""
    if fit.split is None:
        raise ValueError("needs routed choices (crossfit_halves with own_weights=())")
    return fit.split


# ---- a set's policy statistics ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SetPolicy:
    """A set's policy estimates: each strategy alone, each run one try (``single``, k = half the fewest runs of a
    cell: ``headline_k``), and the statistics ``specs`` (``headline.Level``/``Gain`` over strategy indices: the
    frontier of all models, Table 2's technique gains, Figures 2-5) from the chosen policies of their option sets
    (``fits``, keyed by the sorted strategy indices, () the expert alone; the same k))."""

    single: PolicyCost
    specs: dict[Key, Spec]
    fits: dict[tuple[int, ...], CrossFitted]

    def fit(self, strategies: tuple[int, ...]) -> CrossFitted:
        """The cross-fitted frontier of a set of strategy indices."""
        return self.fits[tuple(sorted(strategies))]

    @property
    def frontier(self) -> CrossFitted | None:
        """The chosen policy over all models (None where the set has no models)."""
        spec = self.specs.get(FRONTIER)
        return self.fit(spec.strategies) if isinstance(spec, Level) else None

    def gains(self, kind: Kind) -> dict[str, tuple[CrossFitted, CrossFitted]]:
        """Per gain of ``kind``: (before, after) cross-fitted frontiers, keyed by its item."""
        return {key.item: (self.fit(g.base), self.fit(g.base + g.added)) for key, g in self.specs.items()
                if key.kind == kind and isinstance(g, Gain)}

    @property
    def techniques(self) -> dict[str, tuple[CrossFitted, CrossFitted]]:
        """Per technique: the cross-fitted frontiers of the base models without and with it."""
        return self.gains(TECHNIQUE_GAIN)


FRONTIER = HEADLINE_FRONTIER  # the headline's: each problem's model chosen on other problems and half of its runs


def crossfit_specs(specs: dict[Key, Spec], strategies: list[str], methods: dict[str, bool]) -> dict[Key, Spec]:
    """The statistics of ``specs`` (``headline.all_specs``, over strategy names) a cross-fitted policy estimates,
    over strategy indices: the frontier (the paper's frontier's key becomes ``FRONTIER``, the headline's: another
    quantity), Table 2's technique gains, each agent strategy's gain over its model's single
    attempt (``strategy gain``) and Figures 2-5. Left out: Table 1 and each agent strategy alone (every run a try,
    ``SetPolicy.single``), statistics over strategies without runs, and techniques estimated from vanilla runs
    (``methods[m]`` False: best-of-k, majority vote; a try spends several runs)."""
    index = {s: i for i, s in enumerate(strategies)}
    out: dict[Key, Spec] = {}
    for key, spec in specs.items():
        if key.kind in (TABLE1, STRATEGY):
            continue
        if key.kind == TECHNIQUE_GAIN and not methods.get(key.item, False):
            continue
        parts = (spec.strategies,) if isinstance(spec, Level) else (spec.base, spec.added)
        if not all(s in index for p in parts for s in p):
            continue
        mine = FRONTIER if key == ALL_MODELS else key
        out[mine] = (Level(tuple(index[s] for s in spec.strategies), spec.factor, spec.relative)
                     if isinstance(spec, Level)
                     else Gain(tuple(index[s] for s in spec.base),
                               tuple(index[s] for s in spec.added), spec.over_after))
    return out


def _option_sets(spec: Spec) -> list[tuple[int, ...]]:
    sets = [spec.strategies] if isinstance(spec, Level) else [spec.base, spec.base + spec.added]
    return [tuple(sorted(x)) for x in sets]


def set_policy(usd: np.ndarray, correct: np.ndarray, runs: np.ndarray, expert_usd: np.ndarray, groups: np.ndarray,
               models: list[int], specs: dict[Key, Spec]) -> SetPolicy:
    """``SetPolicy`` of a cube's arrays (``usd``/``correct`` (P, S, n), ``runs`` (P, S)); ``models`` the strategy
    indices of the models (half their fewest runs is k, ``headline_k``, for each model alone and every chosen policy
    alike), ``specs`` the chosen policies' statistics (``crossfit_specs``), ``groups`` (P,) the task of each problem
    (one option chosen per task), each chosen policy by ``crossfit_halves`` with the headline's ways of choosing
    (``HEADLINE_WEIGHTS``, ``HEADLINE_FOLDS``: each problem routed by a difficulty the options share, curves fitted
    without its fold, half of its runs placing it on them, the other half valuing, every split averaged; where its runs
    are not split, the other problems choose). A statistic whose strategies have fewer than k runs is left out."""
    k = headline_k(runs[:, models] if models else runs)  # the models' runs: another strategy's do not lower it
    single = policy_cost(usd, correct, runs, expert_usd, k)
    if not models:
        return SetPolicy(single, {}, {})
    kept = {key: spec for key, spec in specs.items()
            if all(not x or largest_k(runs[:, list(x)]) >= k for x in _option_sets(spec))}
    sets = list(dict.fromkeys(x for spec in kept.values() for x in _option_sets(spec)))
    fits = crossfit_halves(usd, correct, runs, expert_usd, [list(x) for x in sets], k, groups=groups,
                           own_weights=HEADLINE_WEIGHTS, difficulty_folds=HEADLINE_FOLDS)
    return SetPolicy(single, kept, dict(zip(sets, fits, strict=True)))


def chosen_interval(fit: CrossFitted, single: PolicyCost, fee: np.ndarray, groups: np.ndarray, level: float = 0.95,
                    many: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(value, low, high), each (T,) USD per problem, of a chosen policy ``fit`` on each group of problems (``groups``
    (T, P) 0/1): its value with the union of two intervals — ``policy_interval`` of its per-problem values, and the
    interval of every option most splits chose on some problem of the group (``CrossFitted.modal``), each over the
    group's problems at the level that holds at once for the options the records cannot tell from the cheapest
    (``contenders``; ``single`` the options alone, at the same k). Where the other problems choose one option for all,
    the value is that option's own and its truth that option's: picked among its contenders on these same records, it
    leans low the more of them there are (a winner's curse), and the second interval holds it whichever contender the
    records picked; options the paired differences show dearer than the cheapest are not picked for luck and take no
    share of the level. Where they choose different options, the first. The union holds in both. (Both ends: where
    options tie, leaving a problem out tips the choice toward the option whose runs did worse on it (``unsettled``),
    so the estimate can lean high too.) Measured beside every option at once and the per-problem interval alone, on
    the validity study's generators and on six tied options: ``benchmarks/frontier_interval.py``. ``many`` (T,): the
    contenders where the caller has counted them (``policy_rows``, from Table 1's paired differences), else counted.
    A routed choice (``CrossFitted.routed``: each problem its own option, by a difficulty the options share) takes the
    per-problem interval alone, its fee part's mass at "every run fails" read at the rate the pooled runs allow
    (``fee_prior.top_moments``): the union would hold the interval of nearly every option (4-41 × the oracle's width),
    and read at 1 the problems a weak, cheap option fails nearly always shut it (benchmarks/frontier_choice.py,
    benchmarks/HISTORY.md "The fee part at q = 1")."""
    if fit.routed:
        return policy_interval(fit.records, fit.fail_all, fee, level, fit.fail_runs, fit.k, groups, fit.runs,
                               top="jeffreys")
    value, low, high = policy_interval(fit.records, fit.fail_all, fee, level, fit.fail_runs, fit.k, groups, fit.runs)
    G = np.asarray(groups, float).reshape(-1, len(fee))
    picked = fit.modal
    used = sorted({int(s) for s in np.unique(picked) if s >= 0})
    if not used:
        return value, low, high
    many = contenders(single, list(fit.options), fee, G, level) if many is None else many  # (T,)
    runs = None if single.runs is None else single.runs[:, used]
    lo, hi = np.full((len(G), len(used)), np.nan), np.full((len(G), len(used)), np.nan)
    for m in np.unique(many):
        _, lo_m, hi_m = policy_interval(single.records[:, used], single.fail_all[:, used], fee, bonferroni(level, m),
                                        single.fail_runs[:, used], single.k, G, runs)  # (T, U)
        lo[many == m], hi[many == m] = lo_m[many == m], hi_m[many == m]
    chosen = np.stack([(G @ (picked == s)) > 0 for s in used], axis=1)  # (T, U): chosen there
    low = np.fmin(low, np.min(np.where(chosen, lo, np.inf), axis=1))
    high = np.fmax(high, np.max(np.where(chosen, hi, -np.inf), axis=1))
    return value, low, high


def contenders(single: PolicyCost, options: list[int], fee: np.ndarray, G: np.ndarray, level: float = 0.95
               ) -> np.ndarray:
    """(T,) int: per group of problems (``G`` (T, P) 0/1), how many of ``options`` (strategy indices of ``single``)
    the records cannot tell from the cheapest: the lowest, and every option whose paired difference with it, on the
    same problems and runs, reaches 0, their upper ends holding at once at ``level`` (``differences.against_lowest``
    with ``simultaneous``: a set that holds the truly cheapest option at that level, Gupta's subset selection); at
    least 1."""
    if len(options) < 2:
        return np.ones(len(G), int)
    mine = single.columns(options)
    _, reaches = against_lowest(mine.total, G, fee, level, single_caps(mine, fee, G, level), mine, simultaneous=True)
    return 1 + reaches.sum(axis=1)


def spec_value(sp: SetPolicy, spec: Spec, groups: np.ndarray, expert_usd: np.ndarray, level: float = 0.95,
               ties: dict[tuple[int, ...], np.ndarray] | None = None
               ) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], np.ndarray, np.ndarray, np.ndarray]:
    """A cross-fitted statistic on each group of problems (``groups`` (T, P) 0/1): ((value, low, high), records
    part, fee part), each (T,), and what each problem adds to it, (P,) USD (``influence`` reads it). A ``Level`` in
    USD per problem (its parts too; ``relative``: value and interval as ``factor`` × the share of the expert alone,
    whose cost, the mean fee, is known); a ``Gain`` 0-1 (``gain_interval``) with the change of the records part and
    of the fee part (USD per problem, before − after). ``ties``: the contenders (T,) of an option set (its sorted
    strategy indices) already counted at ``level`` (``chosen_interval``'s ``many``), or None."""
    fee = np.asarray(expert_usd, float)
    n = groups.sum(axis=1)
    def mean(x):
        return groups @ x / n
    if isinstance(spec, Level):
        f = sp.fit(spec.strategies)
        est = chosen_interval(f, sp.single, fee, groups, level, (ties or {}).get(tuple(sorted(f.options))))
        scale = spec.factor / mean(fee) if spec.relative else spec.factor
        value, low, high = est
        return (scale * value, scale * low, scale * high), mean(f.records), mean(f.expert), f.total
    before, after = sp.fit(spec.base), sp.fit(spec.base + spec.added)
    est = gain_interval(before, after, groups, fee, level, spec.over_after)
    return est, mean(before.records - after.records), mean(before.expert - after.expert), before.total - after.total


def choices_against(fit: CrossFitted, single: PolicyCost, best: int,
                    members: np.ndarray) -> tuple[dict[int, int], int, int]:
    """How a chosen policy ``fit`` chose over the problems ``members`` (P,) bool, against one option ``best`` (a
    strategy index among ``fit.options``; ``single`` the options alone at the same k; each problem's choice the one most
    of its splits made, ``CrossFitted.modal``): (problems per chosen strategy index (−1: the expert alone), the problems
    where it chose another option than ``best``, and of those the problems where the chosen option's own estimate costs
    more than ``best``'s (``single.total``)). Where two options are near-tied on the other problems, leaving a problem
    out tips the choice toward the one that did worse on it: then the last two counts are equal and the estimate reads
    above ``best`` alone on these records (it stays unbiased over draws of them)."""
    picked = fit.modal[np.asarray(members, bool)]
    values, counts = np.unique(picked, return_counts=True)
    rows = np.flatnonzero(members)
    other = picked != best
    where = rows[other]
    chosen = picked[other]
    dearer = int(np.sum(np.where(chosen >= 0, single.total[where, np.maximum(chosen, 0)], np.inf)
                        > single.total[where, best]))
    return {int(v): int(c) for v, c in zip(values, counts, strict=True)}, int(other.sum()), dearer


def influence(per_problem: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(share (T,) 0-1, position (T,)) per group of problems (``groups`` (T, P) 0/1): the problem that adds most to
    a sum over the group's problems (``per_problem`` (P,): a cost, or a gain's change of cost) and its share of that
    sum; NaN (position −1) where the sum is not above 0 or not known. A share above one half: one problem decides the
    number, whatever the others do."""
    x = np.where(np.asarray(groups, float) > 0, np.asarray(per_problem, float)[None, :], -np.inf)  # (T, P)
    known = ~np.isnan(x).any(axis=1)
    x = np.nan_to_num(x, nan=-np.inf, neginf=-np.inf)
    top = np.argmax(x, axis=1)
    total = np.where(np.isfinite(x), x, 0.0).sum(axis=1)
    ok = known & (total > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(ok, x[np.arange(len(top)), top] / total, np.nan), np.where(ok, top, -1)


# the gains a finding names several of on one dataset, each family tested together: the techniques and agent strategies
# that pay, the releases whose gain is established, the families shown to lower the frontier
CLAIMED_GAINS = ((TECHNIQUE_GAIN, STRATEGY_GAIN), (RELEASE_GAIN,), (FAMILY,))


def holm_shown(low_at, identified: np.ndarray, level: float = 0.95) -> np.ndarray:
    """(T, N) bool: which of N gains per group (a dataset) are shown above 0 with Holm's step-down at family-wise
    ``level``: among the m identified gains of a group (``identified`` (T, N)), those whose interval at 1 − (1 −
    level)/m lies above 0 are shown; the level of the rest is then set by the m − r not yet shown, and so on until a
    step shows none. ``low_at(each)`` -> (T, N): the intervals' low ends at the level ``each`` of one interval. All N
    claims on a group hold at once with probability ``level`` or more (Holm 1979, by the intervals' duality with tests),
    never fewer shown than with Bonferroni, and none shown that the interval at ``level`` alone would not show."""
    identified = np.asarray(identified, bool)
    shown = np.zeros_like(identified)
    lows: dict[float, np.ndarray] = {}
    while True:
        left = (identified & ~shown).sum(axis=1)  # (T,)
        new = np.zeros_like(shown)
        for r in np.unique(left[left > 0]):
            each = bonferroni(level, int(r))
            if each not in lows:
                lows[each] = np.asarray(low_at(each), float)
            new |= (left == r)[:, None] & identified & ~shown & (lows[each] > 0)
        if not new.any():
            return shown
        shown |= new


def _shown(sp: SetPolicy, G: np.ndarray, fee: np.ndarray, level: float,
           at_level: dict[Key, tuple[np.ndarray, np.ndarray]],
           claimed: tuple[tuple[Kind, ...], ...] = CLAIMED_GAINS) -> dict[Key, np.ndarray]:
    """Per gain statistic of the families ``claimed`` (statistic -> (T,) bool): shown above 0 among its family on each
    group of problems (``holm_shown``); ``at_level`` the (value, low) (T,) each of every statistic at ``level``, reused
    where a family has one identified gain."""
    out: dict[Key, np.ndarray] = {}
    for family in claimed:
        specs = {key: spec for key, spec in sp.specs.items() if key.kind in family and isinstance(spec, Gain)}
        if not specs:
            continue
        def low_at(each: float, specs=specs) -> np.ndarray:
            if np.isclose(each, level, rtol=0, atol=1e-12):
                return np.stack([at_level[key][1] for key in specs], axis=1)
            return np.stack([spec_value(sp, spec, G, fee, each)[0][1] for spec in specs.values()], axis=1)

        identified = np.stack([np.isfinite(at_level[key][0]) for key in specs], axis=1)
        out.update(zip(specs, holm_shown(low_at, identified, level).T, strict=True))
    return out


def single_caps(single: PolicyCost, fee: np.ndarray, G: np.ndarray, level: float = 0.95) -> np.ndarray:
    """(T, S) USD per problem: how far each strategy's fee part alone could lie above its estimate by what its runs
    allow (``differences.fee_gaps``) at one-sided 1 − (1 − level)/4 (half of one end's share: the paired interval takes
    the smaller of this and the lump count's bound, each at half)."""
    return fee_gaps(single, fee, G, 1 - (1 - level) / 4)


def policy_rows(sp: SetPolicy, expert_usd: np.ndarray, groups: np.ndarray,
                tasks: list[str] | list[int], names: dict[int, str],
                level: float = 0.95, problem_ids: Sequence[str] | None = None,
                claimed: tuple[tuple[Kind, ...], ...] = CLAIMED_GAINS) -> pd.DataFrame:
    """One row per (statistic, task), named by its key (``Key.row``: statistic, kind, item): ``table1:<name>`` for each
    strategy index of ``names`` (every run a try), then each cross-fitted statistic of ``sp.specs`` (``spec_value``: the
    frontier, technique gains, Figures 2-5), with value, low, high (USD per problem; gains 0-1; Figure 2's levels % of
    the expert alone), k, the records' part and the fee's part (USD per problem; for a gain, their change) and the fee's
    share (%) of the value (of the change, for a gain), and ``cheapest``: True on the one model alone per task named the
    cheapest beyond doubt (``differences.cheapest_beyond_doubt``: its paired difference with every other model below 0,
    each at ``level``), and ``ties_lowest``: True on each other model alone whose paired difference with the lowest
    one reaches 0 at ``level`` (``differences.against_lowest``); ``top_share_pct`` and ``top_problem``: the share (%)
    of the value (of the change, for a gain) its most influential problem carries, and that problem (its id in
    ``problem_ids`` (P,), else its position; "" or −1: none); ``shown``: True on a gain of the families ``claimed``
    (default ``CLAIMED_GAINS``) shown above 0 among its family on the task, all the family's claims holding at once
    at ``level`` (``holm_shown``; a technique named as paying, a release's gain established), False on every other
    row. ``groups`` (P,) the task index of each problem."""
    G = (np.asarray(groups)[None, :] == np.arange(len(tasks))[:, None]).astype(float)  # (T, P)
    n, fee = G.sum(axis=1), np.asarray(expert_usd, float)
    # (statistic, (value, low, high), records, expert, per problem, k (NaN: none cross-fitted), cheapest, ties_lowest)
    parts: list[tuple[Key, tuple, np.ndarray, np.ndarray, np.ndarray, int | float, np.ndarray, np.ndarray]] = []
    cols = list(names)
    single = sp.single
    est = policy_interval(single.records[:, cols], single.fail_all[:, cols], fee, level, single.fail_runs[:, cols],
                          single.k, G, None if single.runs is None else single.runs[:, cols])  # (T, C) each
    rec, exp = G @ single.records[:, cols] / n[:, None], G @ single.expert[:, cols] / n[:, None]
    mine = single.columns(cols)
    cheapest_col, reaches = (against_lowest(mine.total, G, fee, level, single_caps(mine, fee, G, level), mine)
                             if cols else (np.full(len(tasks), -1), np.zeros((len(tasks), 0), bool)))
    ties = {tuple(sorted(cols)): contenders(single, cols, fee, G, level)}  # the frontier of them all
    for j, s in enumerate(cols):
        parts.append((Key(TABLE1, names[s]), tuple(x[:, j] for x in est), rec[:, j], exp[:, j],
                      single.total[:, s], single.k, cheapest_col == j, reaches[:, j]))
    k_chosen = next(iter(sp.fits.values())).k if sp.fits else np.nan
    for key, spec in sp.specs.items():
        parts.append((key, *spec_value(sp, spec, G, fee, level, ties), k_chosen, np.zeros(len(tasks), bool),
                      np.zeros(len(tasks), bool)))
    shown = _shown(sp, G, fee, level, {part[0]: (part[1][0], part[1][1]) for part in parts}, claimed)
    tops = [influence(part[4], G) for part in parts]  # (share, position), (T,) each
    rows = []
    for t in range(len(tasks)):
        for (statistic, (value, low, high), records, expert, _, k, cheapest, tied), (top_share,
                                                                                     top) in zip(parts, tops):
            total = records[t] + expert[t]
            share = 100 * expert[t] / total if np.isfinite(expert[t]) and total and np.isfinite(total) else np.nan
            rows.append({**statistic.row(), "task": tasks[t], "value": float(value[t]), "low": float(low[t]),
                         "high": float(high[t]), "k": k, "records_usd": float(records[t]),
                         "expert_usd": float(expert[t]),
                         "expert_share_pct": share, "cheapest": bool(cheapest[t]), "ties_lowest": bool(tied[t]),
                         "shown": bool(shown[statistic][t]) if statistic in shown else False,
                         "top_share_pct": 100 * top_share[t],
                         "top_problem": int(top[t]) if problem_ids is None else (str(problem_ids[top[t]]) if top[t] >= 0
                                                                                 else "")})
    return pd.DataFrame(rows)
