"""The two-level bootstrap engine: its point estimate is the analyses' own, and its replicates resample
as documented (hand-computed distributions)."""

import numpy as np
import pandas as pd
import pytest

from conftest import SYNTHETIC_METHODS as METHODS
from conftest import synthetic_attempts
from helpers.analyze import bootstrap as bt
from helpers.analyze import costofpass as cp
from helpers.grade.estimates import estimates_from_attempts


def test_point_estimate_equals_the_estimates_of_the_grading_stage():
    attempts = synthetic_attempts()
    cube = bt.run_cube(attempts, METHODS)
    expert = np.where(cube.problems.get_level_values("task") == "gsm8k", 3.5, 0.1)
    point = bt.point_estimate(cube, expert)
    reference = cp.cop_matrix(estimates_from_attempts(attempts, METHODS)).reindex(index=cube.problems,
                                                                                  columns=cube.all_strategies)
    assert set(cube.all_strategies) == set(reference.columns) and len(cube.all_strategies) == 3 * 2 + 3 * 2
    np.testing.assert_allclose(point.cop[0], reference.fillna(np.inf).to_numpy(), rtol=1e-12)
    e = pd.Series(expert, index=cube.problems)
    for cols in (["a"], ["a", "b+self_refine"], cube.all_strategies, []):
        np.testing.assert_allclose(point.frontier(cols)[0],
                                   cp.frontier(reference, cols, e).reindex(cube.tasks).to_numpy())


def test_runs_resampled_within_a_cell_follow_the_binomial():
    # one problem, one strategy, runs (pass, 1 USD) and (fail, 1 USD): R* is 0, 1/2 or 1 with
    # probabilities 1/4, 1/2, 1/4, so the frontier with a 10 USD expert is 10, 2 or 1 USD
    attempts = pd.DataFrame({"task": "gsm8k", "problem_id": "p", "model": "m", "method": "vanilla", "run": [0, 1],
                             "correct": [True, False], "answer_key": ["1", "2"], "complete": True, "usd": 1.0})
    cube = bt.run_cube(attempts, ["vanilla"])
    _, reps = bt.bootstrap(cube, np.array([10.0]), replicates=4000, seed=1)
    values, counts = np.unique(reps.frontier(["m"])[:, 0], return_counts=True)
    assert values.tolist() == [1.0, 2.0, 10.0]
    np.testing.assert_allclose(counts / 4000, [0.25, 0.5, 0.25], atol=0.025)


def test_problems_resampled_within_each_dataset():
    cube = bt.run_cube(synthetic_attempts(problems=7), METHODS)
    _, reps = bt.bootstrap(cube, np.ones(len(cube.problems)), replicates=30, seed=2)
    per_task = np.add.reduceat(reps.weights, cube.task_starts, axis=1)
    assert (per_task == 7).all() and reps.weights.std() > 0
    _, runs_only = bt.bootstrap(cube, np.ones(len(cube.problems)), replicates=5, seed=2, levels="runs")
    assert (runs_only.weights == 1).all()


def test_accuracy_and_cost_per_task_skip_cells_without_runs():
    attempts = synthetic_attempts()
    cube = bt.run_cube(attempts, METHODS)
    point = bt.point_estimate(cube, np.ones(len(cube.problems)))
    acc = point.mean_per_task(point.rate.astype(float))[0]
    col = cube.all_strategies.index("b")
    est = estimates_from_attempts(attempts, METHODS)
    expected = est[est["strategy"] == "b"].groupby("task")["pass_rate"].mean().reindex(cube.tasks)
    np.testing.assert_allclose(acc[:, col], expected.to_numpy(), rtol=1e-6)


def test_same_seed_same_replicates():
    cube = bt.run_cube(synthetic_attempts(), METHODS)
    a = bt.bootstrap(cube, np.ones(len(cube.problems)), 20, seed=3)[1].frontier(["a", "b"])
    b = bt.bootstrap(cube, np.ones(len(cube.problems)), 20, seed=3)[1].frontier(["a", "b"])
    assert np.array_equal(a, b)
    with pytest.raises(KeyError):
        bt.point_estimate(cube, np.ones(len(cube.problems))).frontier(["nope"])


def cost_per_pass_delta(cost: np.ndarray, rate: np.ndarray, level: float = 0.95) -> tuple[float, float, float]:
    """The reference the bootstrap is checked against (the test's own): a dataset's cost per pass, mean USD per
    attempt over mean success rate (the CPSP note's statistic), and its delta-method interval: Var ≈ Var[c̄]/a² +
    c̄²·Var[a]/a⁴ − 2·c̄·Cov[c̄, a]/a³ (the note's formula plus the covariance term). ``cost``, ``rate``: (P,) each
    problem's mean USD per attempt and success rate (0-1); the means' (co)variances are those over independent
    problems. Returns (value, low, high) USD."""
    from scipy import stats

    c, r = np.asarray(cost, float), np.asarray(rate, float)
    n = c.size
    c_bar, a = c.mean(), r.mean()
    if a <= 0:
        return float("inf"), float("inf"), float("inf")
    cov = np.cov(c, r, ddof=1) / n
    var = cov[0, 0] / a**2 + c_bar**2 * cov[1, 1] / a**4 - 2 * c_bar * cov[0, 1] / a**3
    half = stats.norm.ppf(0.5 + level / 2) * np.sqrt(max(var, 0.0))
    return c_bar / a, c_bar / a - half, c_bar / a + half

def test_bootstrap_interval_of_cost_per_pass_agrees_with_the_delta_method():
    rng = np.random.default_rng(7)
    rows = []
    for p in range(300):  # success rates spread over problems, costs independent of them
        skill = rng.beta(4, 2)
        for r in range(8):
            rows.append({"task": "gsm8k", "problem_id": f"p{p}", "model": "a", "method": "vanilla", "run": r,
                         "correct": rng.random() < skill, "answer_key": "x", "complete": True,
                         "usd": float(rng.gamma(2.0, 0.001))})
    cube = bt.run_cube(pd.DataFrame(rows), ["vanilla"])
    point, reps = bt.bootstrap(cube, np.full(len(cube.problems), 5.0), 2000, seed=1)
    ratio = reps.mean_per_task(reps.cost)[:, 0, 0] / reps.mean_per_task(reps.rate)[:, 0, 0]
    value, low, high = cost_per_pass_delta(point.cost[0, :, 0], point.rate[0, :, 0])
    assert value == pytest.approx(point.mean_per_task(point.cost)[0, 0, 0] / point.mean_per_task(point.rate)[0, 0, 0],
                                  rel=1e-5)
    b_low, b_high = np.percentile(ratio, [2.5, 97.5])
    # same centre; the two-level bootstrap resamples runs within the resampled problems, so it counts the run
    # noise twice for this population statistic and is wider (here by about 40%), never narrower
    assert b_low == pytest.approx(low, rel=0.03) and b_high == pytest.approx(high, rel=0.03)
    assert (b_low + b_high) / 2 == pytest.approx(value, rel=0.01) and (b_high - b_low) >= (high - low)


def test_each_level_alone_and_fewer_runs():
    """``levels="problems"`` keeps every cell's runs as recorded (only the problems' weights move), ``"runs"`` keeps
    the problems; ``first_runs`` is what fewer paid runs would have recorded; ``precision`` splits the variance."""
    from helpers.analyze.precision import precision

    cube = bt.run_cube(synthetic_attempts(runs=5), METHODS)
    expert = np.full(len(cube.problems), 2.0)
    point, reps = bt.bootstrap(cube, expert, 30, seed=1, levels="problems")
    np.testing.assert_array_equal(reps.cost, np.broadcast_to(point.cost, reps.cost.shape))
    assert reps.weights.std(axis=0).max() > 0 and (reps.weights.sum(axis=1) == len(cube.problems)).all()
    _, runs_only = bt.bootstrap(cube, expert, 30, seed=1, levels="runs")
    assert (runs_only.weights == 1).all() and runs_only.cost.std(axis=0).max() > 0
    two = cube.first_runs(2)
    assert two.usd.shape[-1] == 2 and two.runs.max() == 2
    np.testing.assert_array_equal(two.correct, cube.correct[..., :2])
    table = precision(cube, expert, ["a", "b", "c"], replicates=40, ks=(1, 2))
    assert sorted(set(table["runs"])) == [1, 2, 5] and table["recorded"].sum() == len(cube.tasks)
    np.testing.assert_allclose(table["problems_pct"] + table["runs_pct"], 100)
    np.testing.assert_allclose(table.loc[table["runs"] == 1, "problems_pct"], 100)  # one run: its variation is unseen
    assert (table["low"] <= table["value"]).all() and (table["value"] <= table["high"]).all()
