"""The frontier on runs it never saw: by hand, and on known truth (the winner's curse it should find)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from helpers.analyze import policy
from helpers.analyze.bootstrap import run_cube
from helpers.analyze.holdout import holdout_frontier


def _cube(rate: np.ndarray, n: int, rng, cost: float = 1.0):
    """Attempts of S strategies on P problems with true success rates ``rate`` (P, S), ``n`` runs each."""
    P, S = rate.shape
    rows = [(("t", f"p{p}", f"m{s}", "vanilla", k, bool(rng.random() < rate[p, s]), cost, "a"))
            for p in range(P) for s in range(S) for k in range(n)]
    attempts = pd.DataFrame(rows, columns=["task", "problem_id", "model", "method", "run",
                                           "correct", "usd", "answer_key"])
    return run_cube(attempts, ["vanilla"])


def _holdout(cube, fee: float):
    expert = np.full(len(cube.problems), fee)
    # the headline's rule (``policy.set_policy``): k = half the runs, each problem routed by a difficulty the options
    # share read on half of its runs, valued on the other half, every split averaged
    if not len(cube.strategies):
        return holdout_frontier(None, expert, cube.task_codes, cube.tasks)
    fit = policy.crossfit_halves(cube.usd, cube.correct, cube.runs, expert, [list(range(len(cube.strategies)))],
                                 policy.headline_k(cube.runs), groups=cube.task_codes,
                                 own_weights=policy.HEADLINE_WEIGHTS, difficulty_folds=policy.HEADLINE_FOLDS)[0]
    single = policy.policy_cost(cube.usd, cube.correct, cube.runs, expert, fit.k)
    return holdout_frontier(fit, expert, cube.task_codes, cube.tasks, single=single)


def test_the_held_out_frontier_finds_the_winners_curse_on_known_truth():
    """Six equal options (R = 0.5, C = 1 everywhere): whichever is chosen truly costs the same. Over 30 sets the
    held-out value is unbiased and its interval holds the truth (``policy.chosen_interval``: where every problem's
    choice is one option, the value is that option's own, picked on these same records, and only an interval that holds
    for every option holds it: 22 of these 30 sets with the held-out values' own interval, ``policy_interval``, when
    measured); the option chosen and read on the same runs reads cheaper (the winner's curse)."""
    P, S, n, k, fee = 400, 6, 5, 2, 50.0
    # whichever model is chosen: up to k = 2 tries (half the 5 runs, as each model alone), then the expert
    truth = 1 * sum(0.5**j for j in range(k)) + fee * 0.5**k
    cubes = [_cube(np.full((P, S), 0.5), n, np.random.default_rng(seed)) for seed in range(30)]
    rows = pd.DataFrame([_holdout(cube, fee).iloc[0] for cube in cubes])
    assert (rows["k"] == k).all() and (rows["problems"] == P).all()  # as many tries as each model alone
    held, inside = rows["held_out_usd"], rows["in_sample_usd"]
    assert abs(held.mean() - truth) < 3 * held.std() / np.sqrt(len(rows))  # unbiased
    assert ((rows["held_out_low"] <= truth) & (truth <= rows["held_out_high"])).mean() >= 0.9
    own = []  # the per-problem interval alone: not enough where the records picked the option they are read on
    for cube in cubes:
        expert = np.full(P, fee)
        fit = policy.crossfit_halves(cube.usd, cube.correct, cube.runs, expert, [list(range(S))], k,
                                     groups=cube.task_codes)[0]
        _, low, high = policy.policy_interval(fit.records, fit.fail_all, expert, 0.95, fit.fail_runs, k,
                                              np.ones((1, P)), fit.runs)
        own.append(low[0] <= truth <= high[0])
    assert sum(own) < 27  # under 90%: 22 of the 30 on 2026-11-30
    assert inside.mean() < truth - 0.3  # read on its own runs, the option that looks cheapest reads cheaper
    assert np.allclose(rows["optimism_usd"], inside - held)


def test_no_selection_no_optimism_one_run_is_enough_and_no_fit_gives_no_rows():
    rng = np.random.default_rng(0)
    row = _holdout(_cube(np.ones((50, 1)), 4, rng), 5.0).iloc[0]  # one strategy that always passes
    assert row["optimism_usd"] == 0 and row["held_out_usd"] == pytest.approx(1.0)
    one_run = _holdout(_cube(np.ones((10, 2)), 1, rng), 5.0).iloc[0]  # chosen on the other problems: one try each
    assert one_run["k"] == 1 and one_run["held_out_usd"] == pytest.approx(1.0)
    assert holdout_frontier(None, np.ones(3), np.zeros(3, int), ["t"]).empty


def test_strategy_specs_pair_each_agent_strategy_with_its_model():
    from helpers.analyze.headline import Gain, Level, strategy_specs
    from helpers.analyze.statistic import STRATEGY, STRATEGY_GAIN, Key

    specs = strategy_specs(["a", "b"], ["vanilla", "retry_k5", "self_refine"], available={"a", "b", "a+retry_k5"})
    assert specs == {Key(STRATEGY, "a+retry_k5"): Level(("a+retry_k5",)),
                     Key(STRATEGY_GAIN, "a+retry_k5"): Gain(("a",), ("a+retry_k5",))}


def test_pareto_keeps_the_points_no_other_beats():
    from helpers.analyze.costofpass import pareto

    cost = np.array([1.0, 2.0, 3.0, 2.5, 0.5])
    acc = np.array([70.0, 80.0, 90.0, 75.0, 60.0])
    assert pareto(cost, acc).tolist() == [4, 0, 1, 2]
