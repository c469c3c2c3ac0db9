"""Intervals on a set's numbers: the estimate of each row is the point estimate, its interval the
replicates' percentiles."""

import numpy as np
import pandas as pd
import pytest

from conftest import SYNTHETIC_METHODS as METHODS
from conftest import synthetic_attempts
from helpers.analyze import bootstrap as bt
from helpers.analyze import intervals
from helpers.analyze.frontier_model import ModelFrontier
from helpers.analyze.headline import Level, release_specs, technique_specs
from helpers.analyze.statistic import ACCURACY, RELEASE_FRONTIER, TABLE1, TECHNIQUE_GAIN, Key


def fits(replicates=200):
    cube = bt.run_cube(synthetic_attempts(problems=20), METHODS)
    expert = np.where(cube.problems.get_level_values("task") == "gsm8k", 3.5, 0.1)
    point, reps = bt.bootstrap(cube, expert, replicates, seed=0)
    model = ModelFrontier(cube, expert)
    return point, reps, model, model.benchmark_draws(50, seed=0, costs=reps.cost[:50, :, :len(cube.strategies)])


def test_rows_hold_the_point_estimate_and_the_replicates_percentiles():
    # compute_statistics in one process: one plug-in share (stream 0) on problem_weights, as set_statistics does
    cube = bt.run_cube(synthetic_attempts(problems=20), METHODS)
    expert = np.where(cube.problems.get_level_values("task") == "gsm8k", 3.5, 0.1)
    steps = [["a"], ["b", "c"]]
    gain = Key(TECHNIQUE_GAIN, "self_refine")
    stats = {Key(TABLE1, "a"): Level(("a",)), gain: technique_specs(["a", "b"], ["self_refine"])[gain],
             **release_specs(steps)}
    st = intervals.compute_statistics(cube, expert, stats, ["a", "b", "c"], steps, replicates=200,
                                      draws=50, seed=3, workers=1)
    point, reps = bt.bootstrap(cube, expert, 200, seed=3, weights=bt.problem_weights(cube, 200, 3))
    plug = st.frame[(st.frame["estimator"] == "plug-in") & (st.frame["statistic"] == "table1:a")].set_index("task")
    assert (plug["kind"] == "table1").all() and (plug["item"] == "a").all()  # its name's parts, beside it
    np.testing.assert_allclose(plug["value"].to_numpy(), point.frontier(["a"])[0])
    lo, hi = np.percentile(reps.frontier(["a"]), [2.5, 97.5], axis=0)
    np.testing.assert_allclose(plug["low"].to_numpy(), lo, rtol=1e-6)
    np.testing.assert_allclose(plug["high"].to_numpy(), hi, rtol=1e-6)
    mb = st.frame[st.frame["estimator"] == "model-based"]
    assert (mb["low"] <= mb["high"]).all()
    np.testing.assert_allclose(mb[mb["statistic"] == "table1:a"]["value"].to_numpy(),
                               ModelFrontier(cube, expert).frontier(["a"])[0])
    acc = st.accuracy_cost  # Tables 5-6 and the cost-accuracy figure: every strategy, both quantities, in intervals
    assert set(acc["statistic"]) == {"accuracy", "cost_usd"} and set(acc["strategy"]) == set(cube.all_strategies)
    assert {"a", "b", "c"} <= set(acc["strategy"])
    own = acc["strategy"].isin(cube.strategies)  # runs of its own: an interval (``means``); derived methods: none
    mine = acc[own]
    assert ((mine["low"] <= mine["value"] + 1e-12) & (mine["value"] <= mine["high"] + 1e-12)).all()
    assert acc.loc[~own, ["low", "high"]].isna().all().all() and acc.loc[~own, "value"].notna().all()


def test_an_interval_never_leaves_the_values_its_statistic_can_take():
    """A replicate of problems with unequal fees can cost more than the dataset's expert alone, a gain's replicate
    more than 1: each end is kept within what the statistic can be (``statistic.possible_range``), the point inside."""
    t1, gain, front, acc = Key(TABLE1, "a"), Key(TECHNIQUE_GAIN, "x"), Key(RELEASE_FRONTIER, "0"), Key(ACCURACY, "a")
    values = {t1: np.array([0.9, 0.1]), gain: np.array([0.2, 0.95]), front: np.array([50.0, 99.0]),
              acc: np.array([0.5, 0.99])}
    wide = np.linspace(-2, 2, 201)[:, None]
    spread = {t1: values[t1] + wide, gain: values[gain] + wide, front: values[front] + 60 * wide,
              acc: values[acc] + wide}
    loose = intervals._rows("plug-in", values, spread, ["t1", "t2"], 0.95).set_index(["statistic", "task"])
    assert (loose.loc["table1:a", "high"] > 1.0).all()  # what the replicates alone say: impossible values
    rows = intervals._rows("plug-in", values, spread, ["t1", "t2"], 0.95,
                           expert_alone=np.array([1.0, 0.2])).set_index(["statistic", "task"])
    assert list(rows.loc["table1:a", "high"]) == [1.0, 0.2] and (rows.loc["table1:a", "low"] == 0).all()
    assert (rows.loc["technique gain:x", "high"] == 1.0).all() and (rows.loc["technique gain:x", "low"] < -0.9).all()
    assert list(rows.loc["release frontier:0",
                         "high"]) == [100.0, 100.0] and (rows.loc["release frontier:0", "low"] == 0).all()
    assert (rows.loc["accuracy:a", "high"] == 1.0).all() and (rows.loc["accuracy:a", "low"] == 0).all()
    assert ((rows["low"] <= rows["value"]) & (rows["value"] <= rows["high"])).all()


def test_model_draws_carry_the_resampled_costs():
    point, reps, model, draws = fits()
    from helpers.analyze.frontier_model import shrunk_costs

    a = point.strategies.index("a")
    expected = np.concatenate([shrunk_costs(reps.cost[:50, r, a:a + 1].astype(float), lam[[a]])
                               for r, lam in zip(model.rows, model.shrinkage)], axis=1)[..., 0]
    assert np.allclose(draws.cost[:, :, a], expected, equal_nan=True)  # each replicate's costs, shrunk alike
    assert draws.frontier(["a"]).std(axis=0).min() > 0


def test_set_statistics_agree_with_the_paper_functions_and_are_kept_on_disk(write_set, tmp_path):
    from conftest import sim_set
    from helpers.analyze import costofpass as cp
    from helpers.analyze.estimates import load_analysis
    from helpers.collect.collection import run_collection
    from helpers.collect.preflight import preflight
    from helpers.grade.stage import run_grading

    params = sim_set(write_set, "stats", tmp_path / "out", models=["sim-lightweight", "sim-reasoning"],
                     n_problems=10, n_runs=3)
    ctx = preflight(params)
    run_collection(ctx, progress=False)
    run_grading(ctx)
    an = load_analysis(ctx)
    st = intervals.set_statistics(an, replicates=40, draws=10)
    plug = st.frame[st.frame["estimator"] == "plug-in"].set_index(["statistic", "task"])["value"]
    t1 = cp.single_model_frontier(an.vanilla_cop(), an.expert)
    for m in an.models:
        assert plug[(f"table1:{m}", "two_digit_addition")] == pytest.approx(t1.loc["two_digit_addition", m])
    trend = an.frontier_over_time().dropna(subset=["date"]).reset_index(drop=True)
    for i, row in trend.iterrows():
        assert plug[(f"release gain:{i}", row.task)] == pytest.approx(row.relative_gain)
        assert plug[(f"release frontier:{i}", row.task)] == pytest.approx(row.normalized_pct)
        assert st.curves["plug-in"][0, i, 0] == pytest.approx(row.normalized_pct)
    fam = cp.family_counterfactual(an.vanilla_cop(), an.families, an.expert)
    single = cp.single_model_counterfactual(an.vanilla_cop(), an.models, an.expert)
    for g in fam.columns:
        assert plug[(f"family:{g}", "two_digit_addition")] == pytest.approx(fam.loc["two_digit_addition", g])
    for m in an.models:
        assert plug[(f"essential:{m}", "two_digit_addition")] == pytest.approx(single.loc["two_digit_addition", m])
    assert st.curves["plug-in"].shape == (41, 2, 1) and st.curves["model-based"].shape == (11, 2, 1)
    assert (tmp_path / "out" / "intervals" / "key.txt").is_file()
    again = intervals.set_statistics(an, replicates=40, draws=10)  # read back, not recomputed
    pd.testing.assert_frame_equal(again.frame, st.frame)
    np.testing.assert_array_equal(again.curves["plug-in"], st.curves["plug-in"])


def test_headline_numbers_sit_beside_the_truth_and_misses_are_marked():
    from types import SimpleNamespace

    from helpers.publish.tables import headline_with_truth

    frame = pd.DataFrame([("table1:a", "t", "plug-in", 5.0, 4.0, 6.0), ("table1:a", "t", "model-based", 2.1, 1.9, 2.3),
                          ("technique gain:self_refine", "t", "plug-in", 0.3, 0.1, 0.5),
                          ("release gain:0", "t", "plug-in", 0.5, 0.4, 0.6)],
                         columns=["statistic", "task", "estimator", "value", "low", "high"])
    parts = [Key.parse(s) for s in frame["statistic"]]
    frame = frame.assign(kind=[k.kind.name for k in parts], item=[k.item for k in parts])
    st = intervals.SetStatistics(frame, pd.DataFrame(), {}, 10, 5, 0.95, pd.DataFrame(), pd.DataFrame(), pd.DataFrame())
    an = SimpleNamespace(tasks=["t"], labels={"a": "Model A"}, task_labels={"t": "Task"})
    truth = {Key(TABLE1, "a"): np.array([2.0]), Key(TECHNIQUE_GAIN, "self_refine"): np.array([0.0])}
    numbers, shown = headline_with_truth(an, st, truth)
    assert numbers["covers"].tolist() == [False, True, False]  # release gains are not headline numbers
    assert shown.loc[0, "plug-in"] == "5 [4, 6] ✗" and shown.loc[0, "model-based"] == "2.1 [1.9, 2.3]"
    assert shown.loc[1, "number"] == "Technique gains of Table 2: self_refine (%)" and shown.loc[1, "truth"] == "0"
