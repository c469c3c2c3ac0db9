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
    attempts = pd.DataFrame(rows, columns=["task", "problem_id", "model", "method", "run", "correct", "usd", "answer_key"])
    return run_cube(attempts, ["vanilla"])


def _holdout(cube, fee: float):
    expert = np.full(len(cube.problems), fee)
    fit = policy.crossfit_frontier(cube.usd, cube.correct, cube.runs, expert, list(range(len(cube.strategies))),
                                   groups=cube.task_codes) if cube.runs.min() >= 2 else None
    return holdout_frontier(fit, expert, cube.task_codes, cube.tasks)


def test_the_held_out_frontier_finds_the_winners_curse_on_known_truth():
    rng = np.random.default_rng(3)
    P, S, n = 400, 6, 5
    cube = _cube(np.full((P, S), 0.5), n, rng)  # every strategy the same: R = 0.5, C = 1 everywhere
    row = _holdout(cube, 50.0).iloc[0]
    assert (row["k"], row["problems"]) == (2, P)
    truth = 1 * (1 + 0.5) + 50 * 0.5**2  # whichever model is chosen: up to 2 tries, then the expert
    assert row["held_out_low"] <= truth <= row["held_out_high"]
    assert row["held_out_usd"] == pytest.approx(truth, rel=0.15)
    assert row["in_sample_usd"] < 0.5 * truth  # read on its own runs, the model that looked best looks far cheaper
    assert row["optimism_usd"] == pytest.approx(row["in_sample_usd"] - row["held_out_usd"]) and row["optimism_pct"] < -50


def test_no_selection_no_optimism_and_too_few_runs_give_no_rows():
    rng = np.random.default_rng(0)
    row = _holdout(_cube(np.ones((50, 1)), 4, rng), 5.0).iloc[0]  # one strategy that always passes
    assert row["optimism_usd"] == 0 and row["held_out_usd"] == pytest.approx(1.0)
    assert _holdout(_cube(np.ones((10, 2)), 1, rng), 5.0).empty


def test_strategy_specs_pair_each_agent_strategy_with_its_model():
    from helpers.analyze.headline import Gain, Level, strategy_specs

    specs = strategy_specs(["a", "b"], ["vanilla", "retry_k5", "self_refine"], available={"a", "b", "a+retry_k5"})
    assert specs == {"strategy:a+retry_k5": Level(("a+retry_k5",)), "strategy gain:a+retry_k5": Gain(("a",), ("a+retry_k5",))}


def test_pareto_keeps_the_points_no_other_beats():
    from helpers.analyze.costofpass import pareto

    cost = np.array([1.0, 2.0, 3.0, 2.5, 0.5])
    acc = np.array([70.0, 80.0, 90.0, 75.0, 60.0])
    assert pareto(cost, acc).tolist() == [4, 0, 1, 2]
