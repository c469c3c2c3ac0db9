"""The frontier on runs it never saw: by hand, and on known truth (the winner's curse it should find)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from helpers.analyze.bootstrap import run_cube
from helpers.analyze.holdout import holdout_frontier, split_frontier


def test_split_frontier_by_hand():
    # one problem, two strategies, four runs; the expert costs 10; choose on runs 0-1, read the choice on runs 2-3
    usd = np.array([[[1.0, 1.0, 1.0, 1.0], [0.1, 0.1, 0.1, 0.1]]])
    correct = np.array([[[1, 1, 1, 1], [1, 1, 0, 0]]], float)  # strategy 1 lucky on runs 0-1, fails on 2-3
    inside, held = split_frontier(usd, correct, np.array([10.0]), [0, 1], [2, 3])
    assert inside[0] == pytest.approx(0.1) and held[0] == 10.0  # chosen at 0.1, never passes after: the expert
    inside, held = split_frontier(usd, correct, np.array([10.0]), [2, 3], [0, 1])
    assert inside[0] == pytest.approx(1.0) and held[0] == pytest.approx(1.0)


def _cube(rate: np.ndarray, n: int, rng, cost: float = 1.0):
    """Attempts of S strategies on P problems with true success rates ``rate`` (P, S), ``n`` runs each."""
    P, S = rate.shape
    rows = [(("t", f"p{p}", f"m{s}", "vanilla", k, bool(rng.random() < rate[p, s]), cost, "a"))
            for p in range(P) for s in range(S) for k in range(n)]
    attempts = pd.DataFrame(rows, columns=["task", "problem_id", "model", "method", "run", "correct", "usd", "answer_key"])
    return run_cube(attempts, ["vanilla"])


def test_the_held_out_frontier_finds_the_winners_curse_on_known_truth():
    rng = np.random.default_rng(3)
    P, S, n = 400, 6, 5
    cube = _cube(np.full((P, S), 0.5), n, rng)  # every strategy the same: R = 0.5, C = 1 everywhere
    out = holdout_frontier(cube, np.full(P, 50.0), cube.strategies, seed=1)
    row = out.iloc[0]
    assert (row["runs"], row["half"], row["strategies"]) == (5, 2, S)
    # on 2 fresh runs the plug-in of any one strategy is 1 (both pass, 1/4), 2 (one, 1/2) or the expert's 50 (1/4)
    assert row["held_out_usd"] == pytest.approx(0.25 * 1 + 0.5 * 2 + 0.25 * 50, rel=0.1)
    assert row["in_sample_usd"] < 1.5  # the minimum over six such readings: some strategy passed both runs
    assert row["optimism_high"] < 0 and row["optimism_low"] <= row["optimism_usd"] <= row["optimism_high"]
    assert row["bootstrap_bias_half_usd"] < 0  # the bootstrap sees a bias of the same sign


def test_no_selection_no_optimism_and_too_few_runs_say_so():
    rng = np.random.default_rng(0)
    cube = _cube(np.ones((50, 1)), 4, rng)  # one strategy that always passes: nothing to be lucky about
    out = holdout_frontier(cube, np.full(50, 5.0), cube.strategies)
    assert out.loc[0, "optimism_usd"] == 0 and out.loc[0, "held_out_usd"] == pytest.approx(1.0)
    assert out.loc[0, "bootstrap_bias_half_usd"] == 0
    few = holdout_frontier(_cube(np.ones((10, 2)), 3, rng), np.full(10, 5.0), ["m0", "m1"])
    assert np.isnan(few.loc[0, "optimism_usd"]) and "n >= 4 runs" in few.loc[0, "note"]


def test_strategy_specs_pair_each_agent_strategy_with_its_model():
    from helpers.analyze.headline import Gain, Level, strategy_specs

    specs = strategy_specs(["a", "b"], ["vanilla", "retry_k5", "self_refine"], available={"a", "b", "a+retry_k5"})
    assert specs == {"strategy:a+retry_k5": Level(("a+retry_k5",)), "strategy gain:a+retry_k5": Gain(("a",), ("a+retry_k5",))}


def test_pareto_keeps_the_points_no_other_beats():
    from helpers.publish.figures import pareto

    cost = np.array([1.0, 2.0, 3.0, 2.5, 0.5])
    acc = np.array([70.0, 80.0, 90.0, 75.0, 60.0])
    assert pareto(cost, acc).tolist() == [4, 0, 1, 2]
