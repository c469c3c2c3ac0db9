"""Intervals on a set's numbers: the estimate of each row is the point estimate, its interval the
replicates' percentiles."""

import numpy as np
from tests.test_bootstrap import METHODS, synthetic_attempts

from helpers.analyze import bootstrap as bt
from helpers.analyze import intervals
from helpers.analyze.frontier_model import ModelFrontier
from helpers.analyze.headline import technique_gains


def set_intervals(replicates=200):
    cube = bt.run_cube(synthetic_attempts(problems=20), METHODS)
    expert = np.where(cube.problems.get_level_values("task") == "gsm8k", 3.5, 0.1)
    point, reps = bt.bootstrap(cube, expert, replicates, seed=0)
    model = ModelFrontier(cube, expert)
    return intervals.SetIntervals(point, reps, model, model.draws(reps.weights[:50], seed=0), 0.95)


def test_rows_hold_the_point_estimate_and_the_replicates_percentiles():
    iv = set_intervals()
    long = intervals.long_frame(iv, lambda F: {"a": F(["a"]), "gain": technique_gains(F, ["a", "b"], ["self_refine"])["self_refine"]})
    plug = long[(long["estimator"] == "plug-in") & (long["statistic"] == "a")].set_index("task")
    np.testing.assert_allclose(plug["value"].to_numpy(), iv.point.frontier(["a"])[0])
    lo, hi = np.percentile(iv.replicates.frontier(["a"]), [2.5, 97.5], axis=0)
    np.testing.assert_allclose(plug["low"].to_numpy(), lo)
    np.testing.assert_allclose(plug["high"].to_numpy(), hi)
    assert set(long["estimator"]) == {"plug-in", "model-based"} and (long["low"] <= long["high"]).all()


def test_accuracy_and_cost_intervals_bracket_their_estimates():
    iv = set_intervals()
    frame = intervals.accuracy_cost_frame(iv, ["a", "b+self_refine"])
    assert set(frame["statistic"]) == {"accuracy", "cost_usd"}
    inside = (frame["low"] <= frame["value"] + 1e-12) & (frame["value"] <= frame["high"] + 1e-12)
    assert inside.mean() > 0.9
