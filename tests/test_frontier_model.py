"""The model-based (item-response) frontier estimator: fits recover known parameters, and its
per-problem values follow the definitions by hand."""

import numpy as np
import pytest
from scipy import special
from tests.test_bootstrap import METHODS, synthetic_attempts

from helpers.analyze import bootstrap as bt
from helpers.analyze.frontier_model import ModelFrontier, fit_task, vote_polynomial, wrong_answer_classes
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


def test_a_strategy_that_always_passes_costs_its_mean_cost():
    attempts = synthetic_attempts(problems=6)
    attempts.loc[attempts["model"] == "a", "correct"] = True
    cube = bt.run_cube(attempts, METHODS)
    expert = np.full(len(cube.problems), 10.0)
    model = ModelFrontier(cube, expert)
    mean_cost = bt.point_estimate(cube, expert).cost[0, :, cube.all_strategies.index("a")]
    np.testing.assert_allclose(model.per_problem(["a"])[0], mean_cost, rtol=1e-4)
    assert np.all(model.per_problem(["a", "b"])[0] <= model.per_problem(["a"])[0] + 1e-12)
    draws = model.draws(np.ones((5, len(cube.problems))), seed=1)
    assert draws.frontier(["a", "b"]).shape == (5, len(cube.tasks))


def test_wrong_answers_spread_over_three_classes():
    attempts = synthetic_attempts(problems=30, runs=8)
    rng = np.random.default_rng(3)
    wrong = ~attempts["correct"].astype(bool)
    attempts.loc[wrong, "answer_key"] = rng.choice(["x", "y", "z"], wrong.sum())
    cube = bt.run_cube(attempts, METHODS)
    rows = slice(0, int(cube.task_starts[1]))
    assert wrong_answer_classes(cube, cube.strategies.index("b"), rows) == 3
