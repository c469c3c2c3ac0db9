"""The policy cost ("up to k tries, then the expert", issue 35): unbiased against exact enumeration."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from helpers.analyze.policy import attempt_weights, largest_k, policy_cost, policy_table


def truth(p: float, cost_pass: float, cost_fail: float, expert: float, k: int) -> float:
    """E[X] · Σ_{j<k} (1 − p)^j + e (1 − p)^k: attempt j is made when the j − 1 before it failed."""
    mean = p * cost_pass + (1 - p) * cost_fail
    return mean * sum((1 - p) ** j for j in range(k)) + expert * (1 - p) ** k


@pytest.mark.parametrize("r,k", [(1, 1), (3, 1), (3, 2), (4, 3), (5, 5), (6, 4)])
@pytest.mark.parametrize("p", [0.0, 0.07, 0.5, 0.93])
def test_the_estimator_is_unbiased_by_exact_enumeration(r, k, p):
    """Every pattern of r runs' passes, weighted by its chance: the estimator's mean is the policy's cost, also when a
    pass costs more than a fail (cost and outcome dependent)."""
    cost_pass, cost_fail, expert = 0.3, 0.1, 7.0
    patterns = np.array(list(itertools.product([False, True], repeat=r)))  # (2^r, r)
    chance = np.prod(np.where(patterns, p, 1 - p), axis=1)
    correct = patterns[:, None, :]  # each pattern a problem of one strategy
    usd = np.where(correct, cost_pass, cost_fail)
    est = policy_cost(usd, correct, np.full((len(patterns), 1), r), np.full(len(patterns), expert), k)
    mean = float(np.sum(chance * est.total[:, 0]))
    assert mean == pytest.approx(truth(p, cost_pass, cost_fail, expert, k), rel=1e-12, abs=1e-12)


def test_what_the_records_decide_and_what_the_fee_does():
    # one problem, 4 runs: fail, pass, fail, fail; k = 2
    correct = np.array([[[False, True, False, False]]])
    usd = np.array([[[1.0, 2.0, 1.0, 1.0]]])
    est = policy_cost(usd, correct, np.array([[4]]), np.array([10.0]), k=2)
    # all 12 ordered pairs of distinct runs: the policy's cost on each, averaged
    runs = list(range(4))
    costs = []
    for a, b in itertools.permutations(runs, 2):
        if correct[0, 0, a]:
            costs.append(usd[0, 0, a])
        elif correct[0, 0, b]:
            costs.append(usd[0, 0, a] + usd[0, 0, b])
        else:
            costs.append(usd[0, 0, a] + usd[0, 0, b] + 10.0)
    assert est.total[0, 0] == pytest.approx(np.mean(costs))
    assert est.fail_all[0, 0] == pytest.approx(6 / 12) and est.expert[0, 0] == pytest.approx(5.0)


def test_a_model_that_never_passed_pays_k_attempts_then_the_expert():
    correct = np.zeros((1, 1, 5), dtype=bool)
    est = policy_cost(np.full((1, 1, 5), 0.01), correct, np.array([[5]]), np.array([16.67]), k=5)
    assert est.records[0, 0] == pytest.approx(0.05) and est.expert[0, 0] == pytest.approx(16.67)


def test_fewer_runs_than_tries_leave_the_cell_unidentified():
    correct = np.array([[[True, False, False], [True, True, False]]])  # 2 strategies; the first has 2 runs
    usd = np.array([[[1.0, 1.0, np.nan], [1.0, 1.0, 1.0]]])
    runs = np.array([[2, 3]])
    w = attempt_weights(correct, runs, 3)
    assert np.isnan(w[0, 0]).all() and np.isfinite(w[0, 1]).all()
    est = policy_cost(usd, correct, runs, np.array([5.0]), k=3)
    assert np.isnan(est.total[0, 0]) and np.isfinite(est.total[0, 1])
    assert largest_k(runs) == 2 and largest_k(np.array([[0, 4]])) == 4
    table = policy_table(est, np.array([0]), ["t"], ["a", "b"])
    assert table.loc[0, "unidentified"] == 1 and np.isnan(table.loc[0, "policy_usd"])
    assert table.loc[1, "policy_usd"] == pytest.approx(table.loc[1, "records_usd"] + table.loc[1, "expert_usd"])


def test_weights_count_each_runs_expected_uses():
    """Σ_i w_i is the expected number of attempts, Σ_{j<k} C(f, j)/C(r, j)."""
    rng = np.random.default_rng(0)
    correct = rng.random((50, 3, 6)) < 0.4
    runs = np.full((50, 3), 6)
    for k in (1, 3, 6):
        w = attempt_weights(correct, runs, k)
        f = (~correct).sum(-1)
        expected = sum(np.prod([(f - t) / (6 - t) for t in range(j)], axis=0) if j else 1.0 for j in range(k))
        assert np.allclose(w.sum(-1), np.clip(expected, 0, None))
