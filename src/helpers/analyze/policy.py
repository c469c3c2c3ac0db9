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

from dataclasses import dataclass

import numpy as np
import pandas as pd


def _all_fail_chance(failed: np.ndarray, runs: np.ndarray, draws: int) -> np.ndarray:
    """C(failed, draws) / C(runs, draws): the chance that ``draws`` runs taken without replacement all failed.
    Arrays broadcast; needs runs >= draws (NaN elsewhere)."""
    failed, runs = np.asarray(failed, dtype=float), np.asarray(runs, dtype=float)
    out = np.ones(np.broadcast(failed, runs).shape)
    for t in range(draws):
        with np.errstate(divide="ignore", invalid="ignore"):
            out = out * np.clip(failed - t, 0, None) / (runs - t)
    return np.where(runs >= draws, out, np.nan)


def attempt_weights(correct: np.ndarray, runs: np.ndarray, k: int) -> np.ndarray:
    """Each run's expected number of uses under the policy, (P, S, n): (1/r) Σ_{j<k} C(f_{−i}, j) / C(r − 1, j).

    ``correct`` (P, S, n) bool, ``runs`` (P, S) complete runs of each cell (its first ``runs`` slots); NaN in cells
    with fewer than k runs, 0 in the slots past a cell's runs."""
    if k < 1:
        raise ValueError(f"k must be at least 1 (got {k})")
    n = correct.shape[-1]
    live = np.arange(n) < runs[..., None]
    failed = (live & ~correct).sum(axis=-1)
    others_failed = failed[..., None] - (live & ~correct)
    r = runs[..., None].astype(float)
    total = np.zeros(correct.shape)
    for j in range(k):
        total += _all_fail_chance(others_failed, r - 1, j) if j else 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(live, total / r, 0.0)
    return np.where(r >= k, w, np.nan)


@dataclass(frozen=True)
class PolicyCost:
    """Per (problem, strategy) USD of "up to k tries, then the expert": ``records`` paid for attempts, ``expert`` the
    fee times the estimated chance that all k fail, ``fail_all`` that chance; NaN where a cell has fewer than k runs
    (the records do not identify the policy there). Arrays (P, S)."""

    k: int
    records: np.ndarray
    expert: np.ndarray
    fail_all: np.ndarray

    @property
    def total(self) -> np.ndarray:
        return self.records + self.expert


def policy_cost(usd: np.ndarray, correct: np.ndarray, runs: np.ndarray, expert_usd: np.ndarray, k: int) -> PolicyCost:
    """The unbiased estimate of each cell's policy cost (module docstring). ``usd`` (P, S, n) USD per attempt (NaN
    past a cell's runs), ``correct`` (P, S, n), ``runs`` (P, S), ``expert_usd`` (P,) the expert's fee per problem."""
    w = attempt_weights(correct, runs, k)
    records = np.nansum(np.where(w > 0, w * np.nan_to_num(usd), 0.0), axis=-1)
    live = np.arange(correct.shape[-1]) < runs[..., None]
    fail_all = _all_fail_chance((live & ~correct).sum(axis=-1), runs, k)
    identified = runs >= k
    return PolicyCost(k, np.where(identified, records, np.nan), fail_all * np.asarray(expert_usd, float)[:, None],
                      fail_all)


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
