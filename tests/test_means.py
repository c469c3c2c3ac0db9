"""Tables 5 and 6's intervals (``analyze.means``): exact on hand-made runs, and never outside the possible values."""

import numpy as np
import pytest
from scipy import stats

from helpers.analyze import means


def one_group(P: int) -> np.ndarray:
    return np.ones((1, P))


def jeffreys(value: float, n_eff: float) -> tuple[float, float]:
    x = value * n_eff
    return stats.beta.ppf(0.025, x + 0.5, n_eff - x + 0.5), stats.beta.ppf(0.975, x + 0.5, n_eff - x + 0.5)


def test_the_accuracy_interval_reads_each_problems_own_spread_under_the_datasets_prior():
    """Half the problems passed every run, half none: the runs' own noise is small (the truth is these problems'
    rates), so the interval is far narrower than the pooled count's, Jeffreys' at n_eff = R̄(1 − R̄) / Σ w_i/n_i/P²
    with w_i each problem's posterior mean of R(1 − R) under the dataset's fitted Beta prior."""
    correct = np.zeros((40, 1, 8), bool)
    correct[:20] = True
    runs = np.full((40, 1), 8)
    value, low, high = means.accuracy_interval(correct, runs, one_group(40))
    a, b = means.beta_prior(correct.sum(-1), runs)
    s = correct.sum(-1)[:, 0]
    post_a, post_b = a[0] + s, b[0] + 8 - s
    w = post_a * post_b / ((post_a + post_b) * (post_a + post_b + 1))
    n_eff = 0.25 / (w / 8).sum() * 40**2
    assert value[0, 0] == 0.5 and n_eff > 10 * 320
    assert (low[0, 0], high[0, 0]) == pytest.approx(jeffreys(0.5, n_eff))


def test_where_problems_share_one_rate_it_is_the_pooled_counts_at_most():
    """Problems alike: the prior is tight, each problem's spread the rate's, and the interval Jeffreys' for the pooled
    count of every run (within 2% of its width), never wider."""
    rng = np.random.default_rng(0)
    correct = rng.random((40, 2, 8)) < np.array([0.3, 0.9])[None, :, None]
    runs = np.full((40, 2), 8)
    value, low, high = means.accuracy_interval(correct, runs, one_group(40))
    passed = correct.sum(axis=(0, 2))
    np.testing.assert_allclose(value[0], passed / 320)
    for j in range(2):
        pooled = jeffreys(passed[j] / 320, 320)
        assert high[0, j] - low[0, j] <= pooled[1] - pooled[0] + 1e-12
        assert high[0, j] - low[0, j] == pytest.approx(pooled[1] - pooled[0], rel=0.02)


def test_the_accuracy_interval_stays_in_0_1_and_reaches_the_edges_it_saw():
    correct = np.zeros((30, 2, 4), bool)
    correct[:, 1] = True  # the second strategy passed every run, the first none
    value, low, high = means.accuracy_interval(correct, np.full((30, 2), 4), one_group(30))
    assert value[0].tolist() == [0.0, 1.0] and low[0, 0] == 0.0 and high[0, 1] == 1.0
    assert 0 < high[0, 0] < 0.05 and 0.95 < low[0, 1] < 1  # 120 runs each: neither end is certain


def test_a_dataset_with_a_problem_of_one_run_takes_the_pooled_count_of_its_harmonic_number_of_runs():
    """One run tells nothing of a problem's own spread: the bound every dataset obeys, n_eff = P² / Σ 1/n_i."""
    correct = np.zeros((2, 1, 8), bool)
    correct[0, 0, :2] = True  # 2 of 8 on the first problem, 1 of 1 on the second
    correct[1, 0, 0] = True
    runs = np.array([[8], [1]])
    value, low, high = means.accuracy_interval(correct, runs, one_group(2))
    n_eff = 4 / (1 / 8 + 1 / 1)
    assert value[0, 0] == pytest.approx((0.25 + 1.0) / 2)
    assert (low[0, 0], high[0, 0]) == pytest.approx(jeffreys(value[0, 0], n_eff))


def test_the_cost_interval_is_t_over_the_runs_own_spread():
    usd = np.array([[[1.0, 3.0]], [[2.0, 2.0]], [[4.0, 6.0]]])  # (P, S, n)
    runs = np.full((3, 1), 2)
    value, low, high = means.cost_interval(usd, runs, one_group(3))
    var = (2.0 / 2 + 0.0 / 2 + 2.0 / 2) / 9  # each problem's sample variance over its runs / its runs, over P²
    df = (2.0 / 2 + 2.0 / 2) ** 2 / ((2.0 / 2) ** 2 + (2.0 / 2) ** 2)  # Welch–Satterthwaite, one df per problem
    half = stats.t.ppf(0.975, df) * np.sqrt(var)
    assert value[0, 0] == pytest.approx(3.0) and high[0, 0] == pytest.approx(3.0 + half)
    assert low[0, 0] == pytest.approx(max(3.0 - half, 0.0))


def test_a_problem_with_one_run_takes_the_spread_between_problems_and_no_cost_goes_below_0():
    usd = np.array([[[0.1, np.nan]], [[5.0, np.nan]], [[0.2, np.nan]]])
    runs = np.full((3, 1), 1)
    value, low, high = means.cost_interval(usd, runs, one_group(3))
    between = np.var([0.1, 5.0, 0.2], ddof=1) / 3
    assert high[0, 0] == pytest.approx(value[0, 0] + stats.t.ppf(0.975, 2) * np.sqrt(between))
    assert low[0, 0] == 0.0


def test_a_group_without_runs_of_a_strategy_has_no_value():
    correct, usd = np.zeros((4, 2, 2), bool), np.ones((4, 2, 2))
    runs = np.array([[2, 0], [2, 0], [2, 2], [2, 2]])
    groups = np.array([[1, 1, 0, 0], [0, 0, 1, 1]], float)
    for value, low, high in (means.accuracy_interval(correct, runs, groups), means.cost_interval(usd, runs, groups)):
        assert np.isnan([value[0, 1], low[0, 1], high[0, 1]]).all() and np.isfinite(value[1]).all()
