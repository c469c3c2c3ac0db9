"""The racing collection design's rule (issue 37): it skips only options that cannot change a reported frontier, and
it decides the same way whatever order the records come in."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import beta

from helpers.analyze import expert_fee
from helpers.collect import racing


def test_jeffreys_lower_bound_and_cost_upper_bound():
    assert racing.pass_rate_lower([0, 3, 8], [8, 8, 8]) == pytest.approx([0.0, beta.ppf(0.025, 3.5, 5.5),
                                                                          beta.ppf(0.025, 8.5, 0.5)])
    assert racing.pass_rate_lower(0, 0) == 0.0
    upper = racing.cost_per_pass_upper([2.0, 2.0], [0, 4], [4, 4])
    assert upper[0] == np.inf and upper[1] == pytest.approx(2.0 / beta.ppf(0.025, 4.5, 0.5))
    # the bound is above the point estimate C / (s / n) wherever something passed
    s = np.arange(1, 9)
    assert np.all(racing.cost_per_pass_upper(1.0, s, 8) >= 8 / s)


def test_race_order_and_subsets():
    race = racing.make_race({"b": 2.0, "a": 2.0, "c": 0.5}, [{"a", "b"}, {"c"}, {"c"}, {"x"}])
    assert race.options == ("c", "a", "b")  # cheapest first, ties by name
    assert race.subsets.shape == (2, 3)  # repeated and foreign subsets dropped


def test_report_subsets():
    options = {"m1": ("m1", "vanilla"), "m2": ("m2", "vanilla"), "m3": ("m3", "vanilla"), "m1+sr": ("m1", "sr")}
    releases = {"m2": "2024-01-01", "m1": "2024-01-01", "m3": "2023-06-01"}
    subsets = set(racing.report_subsets(options, {"m1": "A", "m2": "A", "m3": "B"}, releases))
    base = frozenset({"m1", "m2", "m3"})
    assert frozenset(options) in subsets and base in subsets
    assert {frozenset({"m3"}), frozenset({"m3", "m2"})} <= subsets  # releases in date order, then as the set lists
    assert frozenset({"m1", "m2"}) in subsets  # without family B (= without m3)
    assert {base - {m} for m in base} <= subsets
    assert base | {"m1+sr"} in subsets


def test_first_option_runs_everywhere_and_expert_bounds_it():
    race = racing.make_race({"a": 1.0, "b": 100.0}, [{"a", "b"}])
    cost = np.array([[1.0, 100.0], [1.0, 100.0]])
    passes = np.array([[8, 8], [0, 8]])
    ran = racing.run_race(race, cost, passes, np.full((2, 2), 8), np.array([10.0, 10.0]))
    # a runs on both; b's half price (50) exceeds the expert's 10 USD: never needed
    assert ran.tolist() == [[True, False], [True, False]]
    ran = racing.run_race(race, cost, passes, np.full((2, 2), 8), np.array([1000.0, 1000.0]))
    assert ran.tolist() == [[False, False], [True, True]][0:0] or ran[:, 0].all()
    assert ran[1, 1] and not ran[0, 1]  # b runs only where a passed nothing


def _frontiers(cost, passes, runs, ran, expert, race):
    """Per subset and problem: the min cost-of-pass over the subset's options that ran, with the expert."""
    with np.errstate(divide="ignore", invalid="ignore"):
        v = np.where(passes > 0, cost / np.maximum(passes, 1) * runs, np.inf)
    v = np.where(ran, v, np.inf)
    return np.stack([np.minimum(np.where(s[None], v, np.inf).min(axis=1), expert) for s in race.subsets])


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), n_options=st.integers(2, 6), n_runs=st.integers(1, 8))
def test_racing_keeps_every_reported_frontier(seed, n_options, n_runs):
    """On random sets, every reported subset's per-problem frontier from the racing records equals the one from all
    records wherever the rule's premise holds (a skipped option's runs cost at least margin x its expected USD)."""
    rng = np.random.default_rng(seed)
    P = 30
    price = np.exp(rng.uniform(-6, 1, n_options))
    names = [f"o{i}" for i in range(n_options)]
    subsets = [set(names)] + [set(rng.choice(names, rng.integers(1, n_options + 1), replace=False)) for _ in range(4)]
    race = racing.make_race(dict(zip(names, price)), subsets)
    order = [names.index(o) for o in race.options]
    cost = (price[None, :] * rng.uniform(0.3, 2.0, (P, n_options)))[:, order]
    passes = rng.binomial(n_runs, rng.beta(0.5, 0.5, (P, n_options)))[:, order]
    runs = np.full((P, n_options), n_runs)
    expert = rng.uniform(0.5, 20, P)
    ran = racing.run_race(race, cost, passes, runs, expert)
    premise = ran | (cost >= race.margin * race.expected_usd[None, :])
    ok = premise.all(axis=1)
    assert ok.any()
    everything = np.ones_like(ran)
    np.testing.assert_array_equal(_frontiers(cost, passes, runs, ran, expert, race)[:, ok],
                                  _frontiers(cost, passes, runs, everything, expert, race)[:, ok])


def _cells(seed=0, n=40):
    rng = np.random.default_rng(seed)
    rows = []
    for p in range(n):
        for o, price, rate in (("cheap", 0.001, 0.9), ("mid", 0.01, 0.7), ("dear", 0.5, 0.95)):
            runs = 4
            rows.append(("t", f"p{p}", o, price * rng.uniform(0.8, 1.2), rng.binomial(runs, rate), runs))
    return pd.DataFrame(rows, columns=["task", "problem_id", "option", "cost_usd", "passes", "runs"])


def test_replay_is_deterministic_and_order_free():
    cells = _cells()
    expert = pd.Series(5.0, index=pd.MultiIndex.from_frame(cells[["task", "problem_id"]].drop_duplicates()))
    subsets = [frozenset({"cheap", "mid", "dear"}), frozenset({"mid", "dear"})]
    one = racing.replay(cells, expert, subsets, 0.1, seed=3)
    shuffled = racing.replay(cells.sample(frac=1, random_state=1), expert, subsets, 0.1, seed=3)
    key = ["task", "problem_id", "option"]
    pd.testing.assert_frame_equal(one.sort_values(key).reset_index(drop=True),
                                  shuffled.sort_values(key).reset_index(drop=True))
    sample = racing.table1_problems(cells["problem_id"].unique(), 0.1, 3, "t")
    assert len(sample) == 4 and one[one["problem_id"].isin(sample)]["ran"].all()
    assert not one["ran"].all()  # the dear option is skipped somewhere
    assert one[one["option"] == "cheap"]["ran"].all()


def test_table1_sample_does_not_depend_on_order():
    ids = [f"p{i}" for i in range(50)]
    assert racing.table1_problems(ids, 0.2, 0, "t") == racing.table1_problems(ids[::-1], 0.2, 0, "t")
    assert len(racing.table1_problems(ids, 0.2, 0, "t")) == 10
    assert racing.table1_problems(ids[:1], 0.2, 0, "t") == ["p0"]
    assert racing.table1_problems(ids, 0.2, 0, "t") != racing.table1_problems(ids, 0.2, 1, "t")


# ---- the design end to end: collection in graded waves, a resumed run, the analysis ---------------------------------
RACE = {"design": "racing", "methods": ["vanilla"], "n_problems": 40,
        "racing": {"table1_share": 0.1, "protect": ["frontier", "releases"]}}


def _racing_set(write_set, out, **over):
    from conftest import sim_set

    return sim_set(write_set, over.pop("name", "race"), out, **{**RACE, **over})


def _keys(params):
    from helpers.collect.records import RecordStore

    done = RecordStore(params.records_path).done()
    return set(map(tuple, done[["task", "problem_id", "model", "method", "run", "call"]].astype(str).to_numpy()))


def test_racing_collects_fewer_calls_and_a_resumed_run_makes_the_same(write_set, tmp_path):
    from helpers.collect.preflight import preflight
    from helpers.core.errors import CostOfPassError
    from helpers.grade.racing import run_design

    whole = _racing_set(write_set, tmp_path / "whole")
    result = run_design(preflight(whole), progress=False)
    assert 0 < result.made_calls < 40 * 2 * 4 and result.notes[0].startswith("design racing")
    assert run_design(preflight(whole), progress=False).made_calls == 0  # a repeated run: nothing new
    spent = result.spent_now_usd
    broken = _racing_set(write_set, tmp_path / "broken", budget_usd=spent * 0.8)  # above the least racing bill
    with pytest.raises(CostOfPassError, match="budget"):
        run_design(preflight(broken), progress=False)
    assert 0 < len(_keys(broken)) < len(_keys(whole))
    resumed = _racing_set(write_set, tmp_path / "broken", budget_usd=5.0)
    run_design(preflight(resumed), progress=False)
    assert _keys(resumed) == _keys(whole)  # resumed after the budget stopped it: exactly the same calls


def test_racing_protected_frontiers_equal_the_uniform_designs(write_set, tmp_path):
    from helpers.analyze import costofpass as cp
    from helpers.analyze import intervals
    from helpers.analyze.estimates import load_analysis
    from helpers.collect.preflight import preflight
    from helpers.grade.racing import run_design
    from helpers.grade.stage import run_grading

    def analysed(params):
        ctx = preflight(params)
        run_design(ctx, progress=False)
        run_grading(ctx)
        return load_analysis(ctx)

    race = analysed(_racing_set(write_set, tmp_path / "race"))
    uniform = analysed(_racing_set(write_set, tmp_path / "uniform", name="uniform", design="uniform"))
    models = race.models
    assert len(race.full.attempts) < len(uniform.attempts)  # calls were skipped
    from helpers.analyze.race_replay import raced_bill
    from helpers.publish.about import design_text

    spent, uniform_usd = raced_bill(race)  # the report's USD share: the race's bill, and the uniform one estimated
    assert spent == pytest.approx(race.full.attempts["usd"].sum()) and spent < uniform_usd
    assert uniform_usd == pytest.approx(uniform.attempts["usd"].sum(), rel=0.15)  # 0.243 estimated, 0.222 paid
    assert f"({spent / uniform_usd:.0%}; the attempts not made at" in design_text(race)
    pd.testing.assert_series_equal(cp.frontier(race.full.cop, models, race.full.expert),
                                   cp.frontier(uniform.cop, models, uniform.expert))
    pd.testing.assert_frame_equal(race.frontier_over_time(), uniform.frontier_over_time())

    # the frontier's words: every problem
    assert expert_fee.unpassed_problems(race) == expert_fee.unpassed_problems(uniform)
    # everything else is the Table-1 sample's: every option made every run there
    assert race.cop.notna().all().all() and len(race.cop) == 4  # 10% of 40 problems
    rows, curve = intervals.every_problem_statistics(race, 50, 0.95)
    assert set(rows["statistic"]) >= {"frontier:all models", "release frontier:0", "release gain:1"}
    assert not rows["statistic"].str.startswith(("family", "essential")).any()
    value = rows.set_index(["statistic", "task"])["value"]
    for task, v in cp.frontier(uniform.cop, models, uniform.expert).items():
        assert value[("frontier:all models", task)] == pytest.approx(v, rel=1e-12)
    assert curve.shape[1] == 2  # Figure 2's two release steps, from every problem

    # Table 1 from every problem: each recorded cell weighted by the inverse of its chance of being recorded
    from helpers.grade.racing import raced_cells

    cells = raced_cells(race.ctx, race.full.attempts).set_index(["task", "problem_id", "option"])
    assert cells["raced"].groupby("option").all().any()  # the cheapest option runs everywhere
    assert not (cells["raced"] | cells["in_sample"]).all()  # and some cells were never recorded
    per_task = cells["in_sample"].groupby("task").mean()
    for m in models:
        raced, sample = (cells.xs(m, level="option")[k] for k in ("raced", "in_sample"))
        alone = np.minimum(race.full.cop[m].fillna(np.inf), race.full.expert)
        alone.index = alone.index.map(lambda k: (str(k[0]), str(k[1])))
        h = np.where(raced, 1.0, np.where(sample,
                                          1 / per_task.reindex(raced.index.get_level_values("task")).to_numpy(), 0.0))
        h = pd.Series(h, index=raced.index)
        by_hand = (h * alone.reindex(h.index).fillna(0.0)).groupby("task").sum() / h.groupby("task").sum()
        for task, v in by_hand.items():
            assert value[(f"table1:{m}", task)] == pytest.approx(v, rel=1e-12)
        if raced.all():  # a model the race ran everywhere: its Table 1 is the uniform design's
            for task, v in cp.frontier(uniform.cop, [m], uniform.expert).items():
                assert value[(f"table1:{m}", task)] == pytest.approx(v, rel=1e-12)

    # the report's Table 1, its expert's share and its curve over the fee read the same weighted records
    from helpers.publish import tables

    shown = tables.table1_frontier(race).set_index("model")
    curve = expert_fee.fee_curve(race, "frontier")[0]
    at_fee = curve[np.isclose(curve["scale"], 1.0)].set_index(["line", "task"])["value"]
    split = expert_fee.table1_fee_share(race)
    fitted = intervals.set_policy(race)
    beside = tables.policy_cost(race, fitted, intervals.policy_statistics(race, fitted))[0].set_index(["model", "task"])
    for m in models:
        for task in race.tasks:
            v = value[(f"table1:{m}", task)]
            assert beside.loc[(race.labels[m], task), "paper_usd"] == pytest.approx(v, rel=1e-12)
            assert shown.loc[race.labels[m], task] == pytest.approx(v, rel=1e-12)
            assert at_fee[(race.labels[m], task)] == pytest.approx(v, rel=1e-12)
            assert 0 <= split[(task, race.labels[m])] <= 100


def test_inclusion_weights_make_table1_unbiased_over_the_samples():
    """Averaged over every sample the design could draw, the inverse-chance weighted total of a model's per-problem
    values is the uniform design's total: a cell the race runs counts once, any other counts N/k times when drawn."""
    from itertools import combinations

    from helpers.analyze.inclusion import inclusion_weights

    rng = np.random.default_rng(0)
    values, raced = rng.random((7, 2)), rng.random((7, 2)) < 0.4
    totals = []
    for drawn in combinations(range(7), 3):
        sample = np.isin(np.arange(7), drawn)
        h = inclusion_weights(raced, sample, np.array([0]))
        assert ((h > 0) == (raced | sample[:, None])).all()  # weight exactly where the cell is recorded
        totals.append((h * values).sum(axis=0))
    np.testing.assert_allclose(np.mean(totals, axis=0), values.sum(axis=0), rtol=1e-12)


def test_racing_on_an_imported_set_replays_the_rule_on_its_records(write_set, tmp_path):
    """An imported set makes no call: ``design: racing`` there replays the race on its records (issue 66, item 4;
    ``tests/test_racing_replay.py``) instead of being refused."""
    params = _racing_set(write_set, tmp_path / "x", import_from={"format": "generic", "path": "x.csv"})
    assert params.replays_race and not params.collects_by_race


def test_dry_run_prints_both_bills(write_set, tmp_path):
    from helpers.collect.preflight import estimate, format_estimate
    from helpers.core.context import prepare

    ctx = prepare(_racing_set(write_set, tmp_path / "dry"))
    text = format_estimate(ctx, estimate(ctx))
    assert "uniform design: 320 calls" in text and "racing design (this set's): at least" in text
    floor = int(text.split("at least ")[1].split(" calls")[0])
    assert 0 < floor < 320  # the sample (every option) and the cheapest option elsewhere


def test_the_race_protects_exactly_the_frontiers_the_report_computes():
    """Every option subset a protected statistic of the report evaluates (``headline.all_specs``; a derived strategy
    such as a majority vote stands on its model's vanilla runs) is one the race keeps exact."""
    from helpers.analyze import headline
    from helpers.analyze.intervals import PROTECTED_BY
    from helpers.core.methods import get_method
    from helpers.grade.estimates import strategy_name

    models = ["a", "b", "c", "d"]
    families = {"a": "lightweight", "b": "large", "c": "reasoning", "d": "large"}
    releases = {"a": "2024-01-01", "b": "2024-01-01", "c": "2023-05-01", "d": "2025-02-01"}
    methods = ["vanilla", "self_refine", "majority_vote_k3"]
    options = {strategy_name(m, me): (m, me) for m in models for me in methods if get_method(me).is_collected}
    steps = [["c"], ["a"], ["b"], ["d"]]
    specs = headline.all_specs(models, families, methods, steps)

    def collected(strategies):
        return frozenset(s if s in options else s.split("+")[0] for s in strategies)

    for kind in racing.PROTECTED:
        kept = set(racing.report_subsets(options, families, releases, [kind]))
        for name, spec in specs.items():
            if PROTECTED_BY.get(name.kind) != kind:
                continue
            sets = [spec.strategies] if isinstance(spec, headline.Level) else [spec.base, spec.base + spec.added]
            for s in sets:
                assert not s or collected(s) in kept, (kind, name, s)


def test_the_racing_study_weighs_table1_and_shows_the_sample_alone_beside_it(write_set, shared_data):
    """The validity study of the racing design (``racing_study``): Table 1 from every problem, weighted, judged against
    the truth beside Table 1 from the Table-1 sample alone; its intervals are narrower (it reads more records)."""
    from pathlib import Path

    import yaml

    from helpers.analyze import known_truth as kt
    from helpers.analyze.racing_study import racing_study
    from helpers.collect.preflight import preflight
    from helpers.core.params import Racing, load_params

    registry = Path(__file__).resolve().parents[1] / "params/registry/sim_paper.yaml"
    models = list(yaml.safe_load(registry.read_text())["models"])[:4]
    path = write_set({"name": "study", "tasks": ["gsm8k"], "models": models, "models_file": str(registry),
                      "n_problems": 60, "n_runs": 3, "price_snapshot": "sim_paper_table4_2025-04", "budget_usd": 100.0,
                      "data_dir": str(shared_data)})
    gm = kt.generative_model(preflight(load_params(path)))
    df = racing_study(gm, [kt.GENERATORS[0]], Racing(table1_share=0.1), repetitions=2, replicates=30)
    table1 = df[df["statistic"] == "table1"].set_index("design")
    assert list(table1.index) == ["uniform", "racing", "sample"]
    assert table1.loc["racing", "from"] == "every problem, weighted" and table1.loc["sample",
                                                                                    "from"] == "Table-1 sample"
    assert table1.loc["racing", "mean_width"] < table1.loc["sample", "mean_width"]
    assert (df[df["statistic"] == "frontier"]["from"] == "every problem").all()
