"""The validity study's generative model: its draws agree with its exact values, and known truths hold."""

import numpy as np
import pytest

from helpers.analyze import bootstrap as bt
from helpers.analyze import known_truth as kt
from helpers.analyze import statistic
from helpers.analyze import validity as va
from helpers.analyze import validity_tables as vt
from helpers.analyze.statistic import TABLE1, TECHNIQUE_GAIN, Key


def tiny_model(refine_gain=0.0, problems=40, runs=8) -> kt.GenerativeModel:
    tasks = [kt.TaskModel("gsm8k", np.full(problems, 120), np.full(problems, 200), np.array([1.5, -0.5]),
                          np.array([2.0, 1.0]), np.array([200.0, 900.0]), 6, 3.5),
             kt.TaskModel("bbq", np.arange(problems) + 60, np.arange(problems) + 90, np.array([0.0, 2.0]),
                          np.array([1.0, 2.0]), np.array([100.0, 300.0]), 2, 0.1)]
    return kt.GenerativeModel(["a", "b"], {"a": "lightweight", "b": "large"},
                              ["vanilla", "self_refine", "majority_vote_k3", "best_of_k2"],
                              np.array([0.15, 2.5]) / 1e6, np.array([0.6, 10.0]) / 1e6, np.zeros(2),
                              np.full(2, refine_gain), np.array([0.0, 0.05]), tasks, runs)


def test_draws_agree_with_the_exact_accuracy_and_cost():
    gm = tiny_model()
    true = kt.truth(gm)
    true_acc = true.mean_per_task(true.rate.astype(float))[0]
    true_cost = true.mean_per_task(true.cost.astype(float))[0]
    rng = np.random.default_rng(0)
    acc, cost = [], []
    for _ in range(60):
        cube, expert = kt.draw_cube(gm, rng)
        point = bt.point_estimate(cube, expert)
        assert point.cube.all_strategies == true.cube.all_strategies
        acc.append(point.mean_per_task(point.rate.astype(float))[0])
        cost.append(point.mean_per_task(point.cost.astype(float))[0])
    acc, cost = np.array(acc), np.array(cost)
    se_acc = acc.std(axis=0) / np.sqrt(len(acc)) + 1e-9
    assert np.all(np.abs(acc.mean(axis=0) - true_acc) < 4.5 * se_acc)  # majority vote and best-of-2 included
    np.testing.assert_allclose(cost.mean(axis=0), true_cost, rtol=0.02)


def test_self_refine_gain_is_zero_without_an_effect_and_positive_with_one():
    none = kt.true_statistics(tiny_model(0.0))[Key(TECHNIQUE_GAIN, "self_refine")]
    assert np.all(none == 0)
    some = kt.true_statistics(tiny_model(0.9))[Key(TECHNIQUE_GAIN, "self_refine")]
    assert np.all(some >= 0) and some.max() > 0.01
    # one expert-only frontier is the expert's cost; a frontier can only fall as strategies are added
    t = kt.truth(tiny_model())
    np.testing.assert_allclose(t.frontier([])[0], [3.5, 0.1])  # tasks in the generative model's order
    assert np.all(t.frontier(["a", "b"]) <= t.frontier(["a"]) + 1e-15)


def test_study_reports_bias_and_coverage_per_estimator():
    result = va.study(tiny_model(problems=12), repetitions=4, replicates=20, seed=1)
    out = result.table
    assert set(out["estimator"]) == set(va.ESTIMATORS)
    assert {"truth", "bias", "rmse", "coverage", "coverage_se"} <= set(out.columns)
    assert out["coverage"].between(0, 1).all() and out["coverage_population"].between(0, 1).all()
    assert result.repetitions == 4 and "population_coverage_pct" in vt.summary(result)
    assert out.loc[out["statistic"] == "table1:a", "truth"].gt(0).all()
    assert {"truth", "plug-in mean", "model-based rmse"} <= set(result.routing.columns)


@pytest.mark.parametrize("workers", [2])
def test_study_on_forked_workers_equals_one_process(workers):
    gm = tiny_model(problems=8)
    a = va.study(gm, repetitions=4, replicates=10, seed=2).table
    b = va.study(gm, repetitions=4, replicates=10, seed=2, workers=workers).table
    assert a.sort_values(["statistic", "task", "estimator"]).reset_index(drop=True).equals(
        b.sort_values(["statistic", "task", "estimator"]).reset_index(drop=True))


def test_model_based_frontier_recovers_what_eight_runs_cannot_see():
    # model "b" on gsm8k: A = -0.5, s = 1: many problems pass in under 1 of 8 runs, so the plug-in falls
    # back on the 3.5 USD expert where the true cost-of-pass is a few cents
    from helpers.analyze.frontier_model import ModelFrontier

    gm = tiny_model(problems=200)
    truth = kt.true_statistics(gm)[Key(TABLE1, "b")][0]
    rng = np.random.default_rng(4)
    plug, model = [], []
    for _ in range(6):
        cube, expert = kt.draw_cube(gm, rng)
        plug.append(bt.point_estimate(cube, expert).frontier(["b"])[0, 0])
        model.append(ModelFrontier(cube, expert).frontier(["b"])[0, 0])
    assert abs(np.mean(model) - truth) < 0.25 * abs(np.mean(plug) - truth)


def test_distractors_per_problem_follow_the_simulator():
    from helpers.core.simulation import distractor, n_distractors
    from helpers.core.tasks.base import Problem

    for target, n_choices in (("42", 0), ("1,234", 0), ("\\frac{1}{2}", 0), ("B", 4)):
        p = Problem(task="t", problem_id="p", question="q", target=target, n_choices=n_choices)
        wrong = {distractor(target, n_choices, u) for u in np.linspace(0, 0.999, 500)}
        assert n_distractors(p.target, p.n_choices) == len(wrong)


def test_benchmark_truth_by_hand():
    # one problem per prompt at given difficulties: the frontier of model "a" alone is the mean over the problems
    # of min(C / R, expert), with R = sigmoid(A − s·z) and C = prompt tokens × input price + completion × output price
    gm = tiny_model(problems=3)
    z = np.array([-1.0, 0.5, 8.0])
    problems = [(np.arange(3), z), (np.arange(3), z)]
    got = kt.truth(gm, problems).frontier(["a"])[0]
    r = 1 / (1 + np.exp(-(1.5 - 2.0 * z)))  # gsm8k, model a: A = 1.5, s = 2, no format errors
    c = 120 * 0.15e-6 + 200 * 0.6e-6
    np.testing.assert_allclose(got[0], np.mean(np.minimum(c / r, 3.5)), rtol=1e-12)
    assert kt.truth(gm, problems).frontier([])[0] == pytest.approx([3.5, 0.1])


def test_model_based_interval_covers_the_benchmark_truth():
    # the posterior interval (benchmark_draws) against the true value of each simulated set's own problems
    from helpers.analyze.frontier_model import ModelFrontier

    gm = tiny_model(problems=60)
    covered, n = 0, 0
    for seed in range(10):
        rng = np.random.default_rng(seed)
        problems = kt.draw_problems(gm, rng)
        cube, expert = kt.draw_cube(gm, rng, problems)
        true = kt.truth(gm, problems)
        model = ModelFrontier(cube, expert)
        draws = model.benchmark_draws(200, seed=seed).frontier(["a", "b"])
        lo, hi = np.percentile(draws, [2.5, 97.5], axis=0)
        t = true.frontier(["a", "b"])[0]
        covered += int(((lo <= t) & (t <= hi)).sum())
        n += len(t)
    assert covered >= 0.8 * n  # 95% nominal; 20 intervals, seeded


def test_sampled_nodes_follow_the_posterior():
    from helpers.analyze.frontier_model import sampled_nodes

    post = np.zeros((4000, 2, 3))
    post[:, 0, 1] = 1.0  # all mass on one node
    post[:, 1] = [0.2, 0.0, 0.8]
    picks = sampled_nodes(post, np.random.default_rng(0))  # (B, P) node indices
    assert picks.shape == (4000, 2) and np.all(picks[:, 0] == 1) and not np.any(picks[:, 1] == 1)
    assert (picks[:, 1] == 2).mean() == pytest.approx(0.8, abs=0.03)


def test_pooled_rate_by_hand():
    hits = np.array([[True, False, True], [True, True, False]])
    mask = np.array([[True, True, False], [True, True, True]])
    rate, se = va.pooled_rate(hits, mask)
    assert rate == pytest.approx(3 / 5)  # set 1: 1 of 2 masked cells; set 2: 2 of 3
    dev = np.array([1 - 0.6 * 2, 2 - 0.6 * 3])
    assert se == pytest.approx(np.sqrt((dev**2).sum()) / 5)
    assert np.isnan(va.pooled_rate(hits, np.zeros_like(mask))[0])


def test_tail_share_by_hand():
    from scipy import stats

    gm = tiny_model()
    share, carried = kt.tail_share(gm, z=2.0)
    assert share == pytest.approx(stats.norm.sf(2.0), abs=0.005)  # the quadrature's tail mass
    assert np.all((carried > share) & (carried < 1))  # the hardest problems cost more than their share
    all_share, all_carried = kt.tail_share(gm, z=-50.0)
    assert all_share == pytest.approx(1.0) and np.allclose(all_carried, 1.0)


def test_generators_lead_says_which_estimator_covers_where():
    import pandas as pd

    from helpers.publish.sentences import generators_lead

    rows = []
    for gen, plug, model, rng in [("own", 60.0, 95.0, 100.0), ("cliffs", 70.0, 40.0, 100.0),
                                  ("broken", 50.0, 30.0, 90.0)]:
        for stat in ("Table 1: one model and the expert (USD)", "Figure 3: families (0-1)"):
            rows.append(dict(generator=gen, statistic=stat, estimator="plug-in", headline=True, coverage_pct=plug,
                             coverage_se_pct=4.0, range_coverage_pct=rng))
            rows.append(dict(generator=gen, statistic=stat, estimator="model-based", headline=False,
                             coverage_pct=model, coverage_se_pct=3.0, range_coverage_pct=np.nan))
    rows += [dict(generator=gen, statistic=va.CROSSFIT_ROUTING, estimator="cross-fitted", headline=False,
                  coverage_pct=cov, coverage_se_pct=0.5, range_coverage_pct=np.nan)
             for gen, cov in (("own", 99.5), ("cliffs", 100.0), ("broken", 97.0))]  # not an estimator of every family
    lead = generators_lead(pd.DataFrame(rows))
    assert "covers at least 93% in 0 of 6" in lead and "Table 1 50.0–70.0%" in lead
    assert "own 95.0% (Table 1)" in lead and "cliffs 40.0%" in lead
    assert "No estimator covers at least 93% for every statistic on: cliffs, broken" in lead
    assert "fell short in broken Table 1 90%, broken Figure 3 90%" in lead and "up to 4 points" in lead
    assert "routing envelope's 95% interval held what its choices truly reach in 97.0–100.0% of (set, budget) pairs " \
           "over the 3 generators" in lead and "cross-fitted interval's lowest" not in lead


def test_the_headline_study_covers_and_counts_false_findings():
    """The policy cost's study (issue 35): per generator, Table 1, the frontier and the technique gains, each judged
    against its own truth, with the rate of techniques named best though they do not pay (no effect here)."""
    from helpers.analyze import policy_study

    gm = tiny_model(refine_gain=0.0)
    table = policy_study.study(gm, kt.GENERATORS[:2], repetitions=8, seed=1)
    assert list(table.columns) == policy_study.COLUMNS
    assert set(table["generator"]) == {g.name for g in kt.GENERATORS[:2]} and (table["sets"] == 8).all()
    head = table[table["headline"]]  # every statistic of the policy is the report's headline
    assert {statistic.POLICY_LABELS["table1"],
            statistic.POLICY_FRONTIER.label} <= set(head["statistic"]) and head.equals(table)
    assert (head["coverage_pct"] >= 85).all(), head  # ≥ 93% over 40 sets per generator: results/sim validity_generators
    gains = table[table["statistic"] == statistic.FAMILY_LABELS["technique gain"]]
    assert len(gains) == 2 and (gains["false_findings_pct"] <= 25).all()
    means = table["statistic"].isin([statistic.FAMILY_LABELS["accuracy"], statistic.FAMILY_LABELS["cost per attempt"]])
    assert (table.loc[means, "k"] == 8).all() and (table.loc[~means, "k"] == 4).all()  # the policy: half the 8 runs
    # Tables 5-6
    assert {statistic.FAMILY_LABELS["accuracy"], statistic.FAMILY_LABELS["cost per attempt"]} <= set(table["statistic"])
    figures_ = table[table["statistic"].str.startswith("Figure")]  # Figures 3, 5 under the policy (no release steps)
    assert len(figures_) == 4 and (figures_["coverage_pct"] >= 85).all(), figures_
    families = table[table["statistic"] == statistic.FAMILY_LABELS["family"]]  # a family named most essential, wrongly
    assert families["false_findings_pct"].notna().all() and (families["false_findings_pct"] <= 25).all()
    cheapest = table[table["statistic"] == statistic.FAMILY_LABELS["table1"]]  # a model named the cheapest, wrongly
    assert cheapest["false_findings_pct"].notna().all() and (cheapest["false_findings_pct"] <= 25).all()
    assert (cheapest["unbounded_pct"] == 0).all() and table["unbounded_pct"].dropna().between(0, 100).all()  # a cost
    # is bounded; the pairs' row has none


def test_an_unbounded_interval_is_counted_not_averaged():
    """``unbounded_pct`` counts the estimates whose interval has an infinite end (a ratio the records cannot bound),
    which the width over the oracle's leaves out; estimates without a value count in neither part."""
    from helpers.analyze import policy_study

    value = np.array([[0.1, 0.2, np.nan], [0.3, -0.1, 0.2]])
    low = np.array([[-np.inf, 0.0, np.nan], [0.1, -0.5, 0.1]])
    high = np.array([[1.0, 0.4, np.nan], [0.5, np.inf, 0.3]])
    assert policy_study.unbounded_pct(value, low, high) == 40.0
    assert np.isnan(policy_study.unbounded_pct(np.full(2, np.nan), low[0, :2], high[0, :2]))
    value, low, high = (np.c_[x, [0.2, 0.25]] for x in (value, low, high))  # a fourth cell, bounded in both sets
    low[:, 3], high[:, 3] = [0.1, 0.1], [0.3, 0.3]
    truth = value + 0.01 * np.array([[1, -1, 0, 1], [-1, 1, 1, -1]])
    ratio = 0.2 / (3.92 * 0.01)  # the fourth cell's alone (errors ∓0.01): the others are unbounded or without spread
    assert policy_study._oracle_ratio(value, truth, low, high) == pytest.approx(ratio)


def test_the_effect_table_reads_a_gain_and_the_paired_difference_that_names_it():
    """A true self-refine effect: the gain, and the paired difference B − A (the gain times its denominator, each with
    its truth) whose interval decides whether the gain is named; without an effect, neither finds one."""
    from helpers.analyze import policy_study

    strong = policy_study.effect_table(tiny_model(refine_gain=0.9), 6, seed=0)
    assert list(strong.columns) == policy_study.EFFECT_COLUMNS
    assert (strong["true gain %"] > 90).all() and (strong["named best %"] == 100).all(), strong
    assert (strong["difference oracle named %"] == 100).all() and (strong["oracle named %"] == 100).all()
    none = policy_study.effect_table(tiny_model(refine_gain=0.0), 6, seed=0)
    assert (none["true gain %"].abs() < 10).all() and (none["difference oracle named %"] == 0).all(), none
    rep = policy_study.repetition(tiny_model(refine_gain=0.9), 5, None, 0.95, (TECHNIQUE_GAIN,))
    gains = [v for key, v in rep.items() if key.kind == TECHNIQUE_GAIN]
    assert gains and all((v["base"] > 0).all() and (v["base_truth"] > 0).all() for v in gains)


def test_the_cross_fitted_routing_interval_holds_its_own_truth_on_every_generator():
    """Issue 35 item 3: the cross-fitted routing envelope's interval (problem draws, with a Clopper–Pearson bound
    where they collapse) judged against what its choices truly reach, per generator, at a small scale."""
    table = va.generator_study(tiny_model(problems=30), kt.GENERATORS[:3], repetitions=6, replicates=40, seed=1)
    crossed = table[table["statistic"] == va.CROSSFIT_ROUTING]
    assert len(crossed) == 3 and (crossed["estimator"] == "cross-fitted").all() and not crossed["headline"].any()
    assert crossed["coverage_pct"].min() >= 90 and crossed["mean_width"].between(0, 1).all()
