"""Tables 5 and 6's intervals (``analyze.means``): exact on hand-made runs, and never outside the possible values."""

import numpy as np
import pytest
from scipy import stats

from helpers.analyze import means


def one_group(P: int) -> np.ndarray:
    return np.ones((1, P))


def test_the_accuracy_interval_is_jeffreys_for_the_pooled_count():
    rng = np.random.default_rng(0)
    correct = rng.random((40, 2, 8)) < np.array([0.3, 0.9])[None, :, None]
    runs = np.full((40, 2), 8)
    value, low, high = means.accuracy_interval(correct, runs, one_group(40))
    passed = correct.sum(axis=(0, 2))
    np.testing.assert_allclose(value[0], passed / 320)
    np.testing.assert_allclose(low[0], stats.beta.ppf(0.025, passed + 0.5, 320 - passed + 0.5))
    np.testing.assert_allclose(high[0], stats.beta.ppf(0.975, passed + 0.5, 320 - passed + 0.5))


def test_the_accuracy_interval_stays_in_0_1_and_reaches_the_edges_it_saw():
    correct = np.zeros((30, 2, 4), bool)
    correct[:, 1] = True  # the second strategy passed every run, the first none
    value, low, high = means.accuracy_interval(correct, np.full((30, 2), 4), one_group(30))
    assert value[0].tolist() == [0.0, 1.0] and low[0, 0] == 0.0 and high[0, 1] == 1.0
    assert 0 < high[0, 0] < 0.05 and 0.95 < low[0, 1] < 1  # 120 runs each: neither end is certain


def test_unequal_runs_count_as_the_harmonic_number_of_runs():
    correct = np.zeros((2, 1, 8), bool)
    correct[0, 0, :2] = True  # 2 of 8 on the first problem, 1 of 2 on the second
    correct[1, 0, 0] = True
    runs = np.array([[8], [2]])
    value, low, high = means.accuracy_interval(correct, runs, one_group(2))
    n_eff = 4 / (1 / 8 + 1 / 2)
    assert value[0, 0] == pytest.approx((0.25 + 0.5) / 2)
    assert low[0, 0] == pytest.approx(stats.beta.ppf(0.025, value[0, 0] * n_eff + 0.5, (1 - value[0, 0]) * n_eff + 0.5))


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
