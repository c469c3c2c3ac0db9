"""The model-based (item-response) frontier estimator: fits recover known parameters, and its
per-problem values follow the definitions by hand."""

import numpy as np
import pytest
from scipy import special

from conftest import SYNTHETIC_METHODS as METHODS
from conftest import synthetic_attempts
from helpers.analyze import bootstrap as bt
from helpers.analyze.frontier_model import (
    ModelFrontier,
    chibar_threshold,
    cost_shrinkage,
    fit_task,
    fit_tested,
    shrunk_costs,
    vote_polynomial,
    wrong_answer_classes,
)
from helpers.core.methods.vote_math import vote_probability


def test_fit_recovers_known_parameters():
    # R = c + (1 - c) sigmoid(a - b z); the third strategy has a floor (a refinement's R + g (1 - R), or guessing)
    rng = np.random.default_rng(0)
    a, b, c = np.array([2.0, 0.0, -1.5]), np.array([1.5, 1.0, 2.0]), np.array([0.0, 0.0, 0.4])
    z = rng.standard_normal(3000)
    n = np.full((3000, 3), 8)
    k = rng.binomial(n, c + (1 - c) * special.expit(a - b * z[:, None]))
    fit = fit_task(k, n)
    np.testing.assert_allclose(fit.a, a, atol=0.2)
    np.testing.assert_allclose(fit.b, b, atol=0.2)
    np.testing.assert_allclose(fit.c, c, atol=0.03)
    se = np.sqrt(np.diag(fit.covariance))[:6]  # of a and b
    assert np.all(se > 0.01) and np.all(se < 0.25)


def test_vote_polynomial_is_the_closed_form():
    for k, d in [(3, 1), (4, 6), (5, 2)]:
        for x in (0.0, 0.13, 0.5, 0.97):
            expected = vote_probability(((x, True), *[((1 - x) / d, False)] * d), k, True)
            assert np.polyval(vote_polynomial(k, d), x) == pytest.approx(expected, abs=1e-9)
    # with a no-answer class (a reply without a tagged answer): 5% of replies, the rest split as before
    for k, d in [(3, 6), (4, 3)]:
        for x in (0.0, 0.4, 0.95):
            expected = vote_probability(((x, True), *[((0.95 - x) / d, False)] * d, (0.05, False)), k, True)
            assert np.polyval(vote_polynomial(k, d, 0.05), x) == pytest.approx(expected, abs=1e-9)


def test_a_strategy_that_always_passes_costs_about_its_mean_cost():
    # 48 passes of 48 runs: R(z) near 1 wherever the problems' posteriors sit, not exactly 1 (the curves' penalty
    # keeps its logit near the other strategies' instead of at the bound), so cost-of-pass a little above C
    attempts = synthetic_attempts(problems=6)
    attempts.loc[attempts["model"] == "a", "correct"] = True
    cube = bt.run_cube(attempts, METHODS)
    expert = np.full(len(cube.problems), 10.0)
    model = ModelFrontier(cube, expert)
    mean_cost = bt.point_estimate(cube, expert).cost[0, :, cube.all_strategies.index("a")]
    s, rows = cube.strategies.index("a"), model.rows[0]
    shrunk = shrunk_costs(mean_cost[rows, None], model.shrinkage[0][[s]])[:, 0]
    values = model.per_problem(["a"])[0][rows]
    assert np.all(values >= shrunk * (1 - 1e-9)) and np.all(values <= shrunk * 1.05)
    assert model.frontier(["a"])[0, 0] == pytest.approx(mean_cost[rows].mean(), rel=0.05)  # shrinking keeps the mean
    assert np.all(model.per_problem(["a", "b"])[0] <= model.per_problem(["a"])[0] + 1e-12)
    draws = model.benchmark_draws(5, seed=1)
    assert draws.frontier(["a", "b"]).shape == (5, len(cube.tasks))


def test_wrong_answers_spread_over_three_classes():
    attempts = synthetic_attempts(problems=30, runs=8)
    rng = np.random.default_rng(3)
    wrong = ~attempts["correct"].astype(bool)
    attempts.loc[wrong, "answer_key"] = rng.choice(["x", "y", "z"], wrong.sum())
    cube = bt.run_cube(attempts, METHODS)
    rows = slice(0, int(cube.task_starts[1]))
    assert wrong_answer_classes(cube, cube.strategies.index("b"), rows) == 3


def test_chibar_threshold_by_hand():
    # one floor: half the mass at 0, half chi2(1): P(chi2_1 > x) = 0.10 at x = 2.7055 (tables)
    assert chibar_threshold(1, 0.05) == pytest.approx(2.7055, abs=1e-3)
    # two floors: 1/4 chi2_0 + 1/2 chi2_1 + 1/4 chi2_2 exceeds the threshold with probability 0.05
    from scipy import stats

    x = chibar_threshold(2, 0.05)
    assert 0.5 * stats.chi2.sf(x, 1) + 0.25 * stats.chi2.sf(x, 2) == pytest.approx(0.05, abs=1e-9)


def _counts(a, b, c, problems, seed):
    rng = np.random.default_rng(seed)
    z = rng.standard_normal(problems)
    n = np.full((problems, len(a)), 8)
    return rng.binomial(n, c + (1 - c) * special.expit(a - b * z[:, None])), n


def test_floors_only_where_the_data_call_for_them():
    a, b = np.array([1.0, -0.5, 0.5, -1.0]), np.array([1.5, 2.0, 1.5, 2.0])
    groups = np.array(["vanilla", "vanilla", "self_refine", "self_refine"])
    k, n = _counts(a, b, np.zeros(4), 400, seed=1)  # no floors anywhere: a two-parameter fit
    fit = fit_tested(k, n, groups)
    assert np.all(fit.c == 0) and np.all(fit.floor_max == 0)
    k, n = _counts(a, b, np.array([0.0, 0.0, 0.3, 0.5]), 400, seed=2)  # the technique lifts every curve
    fit = fit_tested(k, n, groups)
    np.testing.assert_array_equal(fit.floor_max > 0, [False, False, True, True])
    np.testing.assert_allclose(fit.c[2:], [0.3, 0.5], atol=0.08)
    assert np.all(fit.c[:2] == 0)


def test_floor_tests_keep_their_level():
    # with no floors in truth, a group gets floors in few data sets (the test's level is 1%), not every time
    a, b = np.array([0.5, -0.5, 1.0]), np.array([1.5, 1.5, 2.0])
    floored = [fit_tested(*_counts(a, b, np.zeros(3), 128, seed), np.array(["v"] * 3)).floor_max.max() > 0
               for seed in range(40)]
    assert sum(floored) <= 4


def test_cost_shrinkage_by_hand():
    # two problems, two runs each: means 1 and 3 (between-problem variance 1), within variances 0 and 2
    usd = np.array([[[1.0, 1.0]], [[2.0, 4.0]]])
    runs = np.array([[2], [2]])
    noise = (0 / 2 + 2 / 2) / 2  # the mean of within-variance / runs
    lam = (1.0 - noise) / 1.0  # between = var(means) - noise; lam = between / (between + noise)
    assert cost_shrinkage(usd, runs)[0] == pytest.approx(lam)
    assert cost_shrinkage(np.array([[[1.0, 1.0]], [[3.0, 3.0]]]), runs)[0] == 1.0  # no run noise: trusted
    assert cost_shrinkage(np.array([[[1.0, 3.0]], [[3.0, 1.0]]]), runs)[0] == 0.0  # all noise: the mean
    # shrunk halfway toward the mean over problems with runs, m = (1 + 3) / 2 = 2
    np.testing.assert_allclose(shrunk_costs(np.array([[1.0], [3.0], [np.nan]]), np.array([0.5])),
                               [[1.5], [2.5], [np.nan]])


def test_random_effect_by_hand():
    from helpers.analyze.frontier_model import random_effect

    assert random_effect(np.array([1.0, 2.0, 3.0]), np.ones(3)) == pytest.approx((2.0, 0.0))  # Q = 2 = S - 1: no spread
    # x = (0, 4), variances 1: mean 2, Q = 8, tau^2 = (8 - 1) / (2 - 2 / 2) = 7
    assert random_effect(np.array([0.0, 4.0]), np.ones(2)) == pytest.approx((2.0, np.sqrt(7.0)))
    # a value without a variance (a flat direction of the fit) is left out
    assert random_effect(np.array([0.0, 4.0, 99.0]), np.array([1.0, 1.0, 0.0])) == pytest.approx((2.0, np.sqrt(7.0)))


def test_the_difficulty_grid_integrates_a_sharp_posterior():
    # 20 strategies of 8 runs pin a problem's difficulty to about +-0.12: the marginal likelihood over z ~ N(0, 1)
    # must still come out right (64 Gauss-Hermite nodes, 0.38 apart near 0, were off by a factor of 1.7 here)
    from scipy import integrate

    from helpers.analyze.frontier_model import _loglik_terms

    a, b = np.linspace(-3.0, 4.0, 20), np.full(20, 2.0)
    n = np.full((1, 20), 8.0)
    k = np.round(8 * special.expit(a - b * 0.37))[None]
    theta = np.r_[a, b, np.zeros(20)][None]
    grid = _loglik_terms(theta, k, n)[2][0]

    def density(z):
        r = special.expit(a - b * z)
        return np.exp((k[0] * np.log(r) + (8 - k[0]) * np.log1p(-r)).sum() - z**2 / 2) / np.sqrt(2 * np.pi)
    exact = np.log(integrate.quad(density, -8, 8, points=[0.37], limit=200, epsabs=0)[0])
    assert grid == pytest.approx(exact, abs=0.01)  # within 1%


def test_a_strategy_that_always_passes_gets_a_finite_curve():
    # every run of the first strategy passed: without the penalty its logit runs to the bound (25)
    rng = np.random.default_rng(2)
    z = rng.standard_normal(60)
    n = np.full((60, 4), 8)
    k = rng.binomial(n, special.expit(np.array([1.0, 0.0, -1.0, 0.5]) - 1.5 * z[:, None]))
    k[:, 0] = 8
    fit = fit_tested(k, n, np.array(["vanilla"] * 4))
    assert fit.a[0] < 15 and np.isfinite(fit.covariance).all() and fit.covariance[0, 0] > 0
    assert fit.a[0] > fit.a[1:].max()  # still the strongest
