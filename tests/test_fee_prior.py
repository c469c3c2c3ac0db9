"""The fee part's interval from what each problem's runs say (``fee_prior``): it holds the truth of the set's own
problems at about its level where the Poisson one it replaced was 2-3x too wide, keeps the point masses of problems
that always fail, and is used only where the all-fail estimate's own variance is identified (>= 2k runs)."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.analyze import differences, fee_prior, policy


def _draw(rng: np.random.Generator, q: np.ndarray, runs: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(all-fail estimates, failed shares), each q's shape: ``runs`` runs of failure rate ``q`` per cell."""
    failed = rng.binomial(runs, q)
    return np.nan_to_num(fee_prior.all_fail_table(runs, k))[runs, failed], failed / runs


@pytest.mark.parametrize("shape", ["beta", "cliffs"])
def test_the_fee_interval_holds_its_own_problems_truth_at_its_level_and_is_narrower_than_poissons(shape):
    rng = np.random.default_rng(3)
    P, C, k, r = 128, 300, 4, 8  # 300 sets of the paper's scale, one per column
    q = rng.beta(0.6, 1.8, (P, C))
    if shape == "cliffs":
        q = np.where(rng.random((P, C)) < 0.2, 1.0, q * 0.5)
    fee = rng.uniform(0.5, 2.0, P)
    truth = fee @ q**k
    fail_all, shares = _draw(rng, q, r, k)
    G = np.ones((1, P))
    low, high = fee_prior.fee_interval(fail_all, fee, 0.95, shares, np.full((P, C), r), k, G)
    covered = np.mean((low[0] <= truth) & (truth <= high[0]))
    assert 0.92 <= covered <= 0.99
    p_low, p_high = policy.fee_interval(fail_all, fee, 0.95, shares, k, G)
    assert np.median((high - low) / (p_high - p_low)) < 0.75


def test_problems_that_fail_every_run_are_a_point_mass_not_a_spread():
    P, k, r = 64, 4, 8
    fail_all = np.r_[np.ones(P // 2), np.zeros(P // 2)][:, None]  # half fail every run, half pass every run
    shares = fail_all.copy()
    low, high = fee_prior.fee_interval(fail_all, np.ones(P), 0.95, shares, np.full((P, 1), r), k, np.ones((1, P)))
    assert low[0, 0] == pytest.approx(P / 2, rel=1e-6) and high[0, 0] == pytest.approx(P / 2, rel=1e-3)


def test_a_cluster_that_fails_nearly_every_run_is_read_below_one_where_asked():
    """Broken items routed to a cheap, weak option: 6 problems of 128 where it passes 1.7% of runs (k = 4 tries all
    fail 93% of the time), the rest passed nearly always. Most sets show no pass on the six: read at q = 1 (the
    default) the interval shuts above the truth in each of them; read at the pooled Jeffreys rate (``top``
    "jeffreys", ``top_moments``) it holds."""
    rng = np.random.default_rng(7)
    P, C, k, r = 128, 400, 4, 8
    q = np.r_[np.full(6, 0.983), np.full(P - 6, 0.002)][:, None] * np.ones((1, C))
    fee = np.full(P, 0.02)
    truth = fee @ q**k
    fail_all, shares = _draw(rng, q, r, k)
    covered = {}
    for top in ("jeffreys", "one"):
        low, high = fee_prior.fee_interval(fail_all, fee, 0.95, shares, np.full((P, C), r), k, np.ones((1, P)), top)
        covered[top] = np.mean((low[0] <= truth) & (truth <= high[0]))
    assert covered["jeffreys"] >= 0.93 and covered["one"] < 0.7
    with pytest.raises(ValueError, match="top must be one of"):
        fee_prior.fee_interval(fail_all, fee, 0.95, shares, np.full((P, C), r), k, np.ones((1, P)), "half")


def test_fewer_than_2k_runs_keep_the_poisson_interval():
    rng = np.random.default_rng(0)
    P, k = 40, 4
    fail_all, shares = _draw(rng, rng.beta(1, 2, (P, 2)), 6, k)  # 6 < 2k runs: the variance is not identified
    records, fee = rng.uniform(0, 0.01, (P, 2)), np.ones(P)
    runs = np.full((P, 2), 6.0)
    got = policy.policy_interval(records, fail_all, fee, 0.95, shares, k, None, runs)
    try:
        fee_prior.METHOD = "poisson"
        want = policy.policy_interval(records, fail_all, fee, 0.95, shares, k, None, runs)
    finally:
        fee_prior.METHOD = "prior"
    np.testing.assert_array_equal(np.array(got), np.array(want))


def test_a_paired_difference_by_its_parts_holds_its_own_problems_truth_and_is_narrower_than_students_t():
    rng = np.random.default_rng(5)
    P, C, k, r = 128, 300, 4, 8
    hard = rng.normal(0, 1.5, (P, C))  # what the two models share: a problem's difficulty
    q_a, q_b = (1 / (1 + np.exp(-(hard + shift + rng.normal(0, 0.5, (P, C)))) ) for shift in (-1.0, -0.3))
    fee = rng.uniform(0.5, 2.0, P)
    parts, totals = [], []
    for q, usd in ((q_a, 0.01), (q_b, 0.004)):
        fail_all, shares = _draw(rng, q, r, k)
        cost = policy.PolicyCost(k, np.full((P, C), usd), fee[:, None] * fail_all, fail_all, shares, np.full((P, C), r))
        parts.append(cost)
        totals.append(cost.total)
    truth = 0.006 + fee @ (q_a**k - q_b**k) / P
    G = np.ones((1, P))
    rooms = tuple(differences.room(p, G, fee, 0.95) for p in parts)
    _, low, high = differences.paired(totals[0], totals[1], G, fee, 0.95, rooms=rooms)
    _, t_low, t_high = differences.paired(totals[0], totals[1], G, fee, 0.95)
    assert 0.92 <= np.mean((low[0] <= truth) & (truth <= high[0])) <= 0.99
    assert np.median((high - low) / (t_high - t_low)) < 0.8


def test_the_prior_reads_problems_of_different_run_counts_and_many_runs():
    """Each (runs, failed) cell its own likelihood: problems with 6 and 8 runs in one group, and 400 runs a problem
    (tables per run count, not per (runs, failed) square)."""
    rng = np.random.default_rng(2)
    for runs in (np.r_[np.full(20, 6), np.full(40, 8)], np.full(60, 400)):
        q = rng.beta(1.0, 3.0, 60)
        failed = rng.binomial(runs, q)
        fail_all = np.array([fee_prior.all_fail_table(int(r), 4)[int(r), int(f)] for r, f in zip(runs, failed)])
        fee = np.full(60, 2.0)
        low, high = fee_prior.fee_interval(fail_all[:, None], fee, 0.95, (failed / runs)[:, None], runs[:, None].astype(
            float), 4, np.ones((1, 60)))
        seen = fee @ fail_all
        assert 0 <= low[0, 0] <= seen <= high[0, 0] < np.inf
