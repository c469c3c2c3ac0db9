"""Hand-computed examples for every equation, and properties (hypothesis)."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers.analyze import costofpass as cp
from helpers.analyze.trends import fit_decay
from helpers.grade.estimates import per_problem

INF = math.inf


def matrix(rows: dict[tuple[str, str], dict[str, float]]) -> pd.DataFrame:
    df = pd.DataFrame.from_dict(rows, orient="index")
    df.index = pd.MultiIndex.from_tuples(df.index, names=["task", "problem_id"])
    return df


def test_eq3_cost_of_pass():
    assert cp.cost_of_pass([0.02, 0.02, 0.0], [0.5, 0.0, 0.25]).tolist() == [0.04, INF, 0.0]


def test_per_problem_means_over_complete_attempts():
    attempts = pd.DataFrame({
        "task": "t", "problem_id": ["p"] * 4, "strategy": "m", "usd": [0.01, 0.03, 0.02, 9.0],
        "correct": [True, False, True, pd.NA], "complete": [True, True, True, False]})
    (row,) = per_problem(attempts).itertuples()
    assert row.cost_usd == pytest.approx(0.02) and row.pass_rate == pytest.approx(2 / 3) and row.n == 3


# two problems, three models; v in USD
COP = matrix({
    ("t", "p1"): {"a": 1.0, "b": 4.0, "never": INF},
    ("t", "p2"): {"a": 6.0, "b": 2.0, "never": INF},
})
EXPERT = pd.Series([5.0, 5.0], index=COP.index)


def test_eq4_to_9_min_per_problem_then_mean():
    assert cp.frontier_per_problem(COP, ["a", "b"]).tolist() == [1.0, 2.0]
    assert cp.frontier(COP, ["a", "b"])["t"] == 1.5  # not min(mean a, mean b) = 3.0
    assert cp.frontier(COP, ["never"])["t"] == INF  # a model that never passes: infinite without the expert
    assert cp.frontier(COP, ["never"], EXPERT)["t"] == 5.0  # the expert wins
    assert cp.frontier(COP, ["a"], EXPERT)["t"] == (1.0 + 5.0) / 2  # expert wins on p2 only
    assert cp.frontier(COP, [], EXPERT)["t"] == 5.0


def test_ties_do_not_change_the_frontier():
    tied = matrix({("t", "p1"): {"a": 2.0, "b": 2.0}})
    assert cp.frontier(tied, ["a", "b"])["t"] == 2.0 == cp.frontier(tied, ["a"])["t"]
    assert cp.gain(tied, ["b"], ["a"])["t"] == 0.0


def test_eq8_10_gain():
    # V(a ∪ E) per problem = [1, 5]; adding b: [1, 2] -> gain [0, 3], mean 1.5
    assert cp.gain(COP, ["b"], ["a"], EXPERT)["t"] == 1.5
    assert cp.gain(COP, ["never"], [])["t"] == 0.0  # inf - inf counts as no gain


def test_eq7_15_frontier_over_time():
    releases = pd.Series({"a": "2024-01-01", "b": "2024-03-01", "never": "2024-03-01"})
    trend = cp.frontier_over_time(COP, releases, EXPERT, one_model=False)
    assert trend.frontier_usd.tolist() == [5.0, 3.0, 1.5]
    assert trend.released.tolist() == ["(expert only)", "a", "b, never"]
    assert trend.relative_gain.tolist() == pytest.approx([0.0, 2 / 5, 1.5 / 3])
    assert trend.normalized_pct.tolist() == pytest.approx([100, 60, 30])
    # the reference's loop: one model per step, a same-day tie in the order given
    steps = cp.frontier_over_time(COP, releases, EXPERT)
    assert steps.released.tolist() == ["(expert only)", "a", "b", "never"]
    assert steps.frontier_usd.tolist() == [5.0, 3.0, 1.5, 1.5]


def test_eq12_by_hand():
    families = pd.Series({"a": "light", "b": "large", "never": "reasoning"})
    out = cp.family_counterfactual(COP, families, EXPERT, denominator="all").loc["t"]
    # V(M_T) = 1.5; without light: per problem min(b, E) = [4, 2] -> 3.0; gain 1.5; 1.5 / 1.5 = 1.0
    assert out["light"] == pytest.approx(1.0)
    # without large: min(a, E) = [1, 5] -> 3.0; gain 1.5 -> 1.0
    assert out["large"] == pytest.approx(1.0)
    assert out["reasoning"] == 0.0  # a family that never passes is not essential
    # the reference divides by the frontier without the family: 1.5 / 3.0
    ref = cp.family_counterfactual(COP, families, EXPERT).loc["t"]
    assert ref["light"] == pytest.approx(0.5) and ref["large"] == pytest.approx(0.5) and ref["reasoning"] == 0.0


def test_eq16_single_model_counterfactual():
    out = cp.single_model_counterfactual(COP, ["a", "b", "never"], EXPERT).loc["t"]
    # without a: [4, 2] -> 3; with: 1.5; gain 1.5 / 3 = 0.5
    assert out["a"] == pytest.approx(0.5) and out["b"] == pytest.approx(0.5) and out["never"] == 0.0


def test_eq13_technique_gain():
    cop = matrix({("t", "p1"): {"a": 2.0, "a+sr": 1.0}, ("t", "p2"): {"a": 2.0, "a+sr": 3.0}})
    expert = pd.Series([10.0, 10.0], index=cop.index)
    # V(M_L) = 2; V(M_L ∪ M_L*) = mean(1, 2) = 1.5; gain 0.5 / 2 = 25%
    assert cp.technique_gain(cop, ["a"], ["a+sr"], expert)["t"] == pytest.approx(0.25)


def test_single_model_table_is_table1():
    t1 = cp.single_model_frontier(COP, EXPERT)
    assert t1.loc["t"].to_dict() == {"a": 3.0, "b": 3.0, "never": 5.0}  # b: [min(4, 5), min(2, 5)]


def test_decay_fit_recovers_halving_time_and_refuses_too_few_points():
    t = np.array([0, 1, 2, 3, 5, 7, 9], dtype=float)
    v = 80 * np.exp(-np.log(2) / 2.6 * t) + 5
    fit = fit_decay(t, v)
    assert fit.identified and fit.halving_months == pytest.approx(2.6, rel=1e-3)
    assert not fit_decay([0, 1, 2], [3, 2, 1]).identified and "at least 4" in fit_decay([0, 1, 2], [3, 2, 1]).message
    assert "does not change" in fit_decay([0, 1, 2, 3], [5, 5, 5, 5]).message


# ---- properties -----------------------------------------------------------------------------------
costs = st.floats(0.001, 100.0, allow_nan=False)
rates = st.sampled_from([0.0, 0.125, 0.25, 0.5, 0.875, 1.0])


@st.composite
def worlds(draw):
    n_models = draw(st.integers(1, 5))
    n_problems = draw(st.integers(1, 6))
    rows = []
    for p in range(n_problems):
        for m in range(n_models):
            rows.append({"task": "t", "problem_id": f"p{p}", "strategy": f"m{m}",
                         "cost_usd": draw(costs), "pass_rate": draw(rates)})
    est = pd.DataFrame(rows)
    cop = cp.cop_matrix(est)
    expert = pd.Series(draw(st.floats(0.01, 200.0)), index=cop.index)
    dates = {f"m{m}": f"2024-{draw(st.integers(1, 12)):02d}-01" for m in range(n_models)}
    return est, cop, expert, pd.Series(dates)


@settings(max_examples=60, deadline=None)
@given(worlds(), worlds())
def test_frontier_over_time_never_rises(world, other):
    """On every task of a set (two here: the second world's problems as task "u", with the first world's models; one
    it lacks never passes there), each release step's frontier is at most the one before."""
    _, cop, expert, dates = world
    _, cop2, expert2, _ = other
    cop = pd.concat([cop, cop2.rename(index={"t": "u"}, level="task").reindex(columns=cop.columns, fill_value=np.inf)])
    expert = pd.concat([expert, expert2.rename(index={"t": "u"}, level="task")])
    trend = cp.frontier_over_time(cop, dates, expert)
    assert set(trend["task"]) == {"t", "u"}
    for _, steps in trend.groupby("task", sort=False):
        assert np.all(np.diff(steps.frontier_usd.to_numpy()) <= 1e-12)


@settings(max_examples=60, deadline=None)
@given(worlds(), st.data())
def test_adding_a_model_never_raises_the_frontier(world, data):
    _, cop, expert, _ = world
    cols = list(cop.columns)
    subset = data.draw(st.lists(st.sampled_from(cols), unique=True))
    extra = data.draw(st.sampled_from(cols))
    for e in (expert, None):
        before = cp.frontier(cop, subset, e)["t"]
        after = cp.frontier(cop, list(dict.fromkeys(subset + [extra])), e)["t"]
        assert after <= before or (math.isinf(after) and math.isinf(before))


@settings(max_examples=60, deadline=None)
@given(worlds())
def test_counterfactuals_are_non_negative_and_expert_bounds_the_frontier(world):
    _, cop, expert, _ = world
    cols = list(cop.columns)
    families = pd.Series({c: ["light", "large"][i % 2] for i, c in enumerate(cols)})
    assert (cp.family_counterfactual(cop, families, expert).to_numpy() >= -1e-12).all()
    assert (cp.single_model_counterfactual(cop, cols, expert).to_numpy() >= -1e-12).all()
    assert cp.frontier(cop, cols, expert)["t"] <= expert.iloc[0] + 1e-12


@settings(max_examples=60, deadline=None)
@given(worlds(), st.floats(0.01, 100.0))
def test_relative_gains_are_invariant_to_scaling_every_price(world, factor):
    est, _, expert, dates = world
    scaled = est.assign(cost_usd=est.cost_usd * factor)
    a = cp.frontier_over_time(cp.cop_matrix(est), dates, expert)
    b = cp.frontier_over_time(cp.cop_matrix(scaled), dates, expert * factor)
    assert np.allclose(a.relative_gain, b.relative_gain, rtol=1e-9, atol=1e-12)
    assert np.allclose(a.normalized_pct, b.normalized_pct, rtol=1e-9)


def test_top_three_marks_only_where_more_than_three_compete():
    from helpers.publish.formats import top3_marks

    df = pd.DataFrame({"few": [3.0, 1.0, 2.0, None, None], "many": [5.0, 1.0, 4.0, 2.0, 3.0]})
    marks = top3_marks(df, ["few", "many"])
    assert marks["few"].tolist() == [0, 0, 0, 0, 0]  # three values: no top three to show
    assert marks["many"].tolist() == [0, 1, 0, 2, 3]
    assert top3_marks(df, ["many"], lowest=False)["many"].tolist() == [1, 0, 2, 0, 3]
    aside = pd.Series([True, False, True, True, True])  # the cheapest row takes no part (a Table-1-only model)
    assert top3_marks(df, ["many"], ranked=aside)["many"].tolist() == [0, 0, 3, 1, 2]


def test_expert_table_has_no_nan_or_degenerate_ranges():
    from helpers.core.experts import expert_table

    table = expert_table(["two_digit_addition", "two_digit_multiplication"])
    text = table.to_markdown(index=False)
    assert "nan" not in text and table["dataset"].tolist() == ["Two Digit Addition", "Two Digit Multiplication"]
    assert table["paper's USD"].tolist() == ["0.02", "–"]  # the paper prices no multiplication
    for rate in table["hourly rate (USD)"]:
        low, _, high = rate.partition("–")
        assert not high or low != high


def test_beside_paper_by_hand():
    from helpers.publish.compare import beside_paper

    ours = pd.DataFrame({"model": ["A (sim)", "B (sim)", "C (sim)", "D (sim)"], "family": "x",
                         "t": [1.0, 2.0, 3.0, 40.0], "u": [1.0, 1.0, 1.0, 1.0]})
    paper = pd.DataFrame({"model": ["A", "B", "C", "D", "E"], "family": "x", "t": [2.0, 4.0, 6.0, 10.0, 1.0]})
    summary, wide = beside_paper(ours, paper, ["t", "u"], {"t": "T"})
    assert summary.to_dict("records") == [{"dataset": "T", "models": 4, "Spearman ρ": "1.00",
                                           "largest difference": "D: 40 vs 10 (×4)"}]  # ratios 0.5, 0.5, 0.5, 4
    assert wide["T"].tolist() == ["1 / 2", "2 / 4", "3 / 6", "40 / 10"] and wide["model"].tolist() == list("ABCD")
    assert all(frame.empty for frame in beside_paper(ours.assign(model=list("WXYZ")), paper, ["t"], {}))


def test_the_expert_split_names_what_decides_table_1():
    """Each single-model value = the part paid to the model (problems where it beats the expert) + the part charged
    to the expert's fee (never passed, or passed too rarely to beat it)."""
    from helpers.analyze.costofpass import expert_split

    idx = pd.MultiIndex.from_tuples([("t", "p1"), ("t", "p2"), ("t", "p3"), ("t", "p4")], names=["task", "problem_id"])
    cop = pd.DataFrame({"a": [0.5, np.inf, 20.0, 1.0], "b": [0.1, 0.2, 0.3, 0.4]}, index=idx)
    expert = pd.Series([10.0, 10.0, 10.0, 10.0], index=idx)
    split = expert_split(cop, expert).set_index("strategy")
    assert split.loc["a", "model_usd"] == pytest.approx((0.5 + 1.0) / 4)
    assert split.loc["a", "expert_usd"] == pytest.approx(20.0 / 4) and split.loc["a", "expert_problems"] == 2
    assert split.loc["b", "expert_usd"] == 0 and split.loc["b", "value"] == pytest.approx(0.25)
    table1 = cp.single_model_frontier(cop, expert)
    assert np.allclose(split["value"].to_numpy(), [table1["a"].mean(), table1["b"].mean()])


def test_the_fee_curve_is_table_1_at_the_assumed_fee_and_names_where_the_cheapest_model_flips():
    idx = pd.MultiIndex.from_tuples([("t", "p1"), ("t", "p2")], names=["task", "problem_id"])
    # a: cheap, never passed p2; b: dearer, passed both
    cop = pd.DataFrame({"a": [0.01, np.inf], "b": [0.5, 0.5]}, index=idx)
    expert = pd.Series([2.0, 2.0], index=idx)
    curve = cp.fee_curve(cop, expert, {"a": ["a"], "b": ["b"], "all": ["a", "b"]}, np.array([0.01, 0.1, 1.0, 10.0]))
    at = curve[curve["scale"] == 1.0].set_index("line")["value"]
    table1 = cp.single_model_frontier(cop, expert)
    assert np.isclose(at["a"], table1["a"].iloc[0]) and np.isclose(at["b"], table1["b"].iloc[0])
    assert np.isclose(at["all"], cp.frontier(cop, ["a", "b"], expert).iloc[0])
    b = curve[curve["line"] == "b"]["value"].to_numpy()
    assert np.allclose(b[2:], 0.5)  # once the fee is above b's cost-of-pass, the records decide b's value
    flips = cp.cheapest_by_fee(cop, expert, scales=(0.01, 10.0))
    assert list(flips["model"]) == ["a", "b"]  # a while the fee on p2 is cheap; b once it is dear
    # exactly where they cross: a = (0.01 + f) / 2, b = 0.5 while f >= 0.5, so f = 0.99 USD
    assert flips["to_usd"].iloc[0] == pytest.approx(0.99) and flips["from_usd"].iloc[1] == pytest.approx(0.99)
    assert flips["from_usd"].iloc[0] == pytest.approx(0.02) and flips["to_usd"].iloc[1] == pytest.approx(20.0)
    from helpers.publish.sentences import fee_reading

    said = fee_reading(flips, {"t": 2.0}, ["t"], {"t": "Task"})
    assert "a for fees up to 0.99 USD; b for fees above 0.99 USD" in said and "the set assumes 2" in said
    assert "point estimates, not findings beyond doubt" in said  # a switch by point values, as every reading
    alone = fee_reading(cp.cheapest_by_fee(cop[["b"]], expert, scales=(0.01, 10.0)), {"t": 2.0}, ["t"], {"t": "Task"})
    assert "b at every fee from 0.02 to 20 USD" in alone  # one model: no switch


def test_the_exact_switches_match_a_fine_grid_and_weights_count():
    rng = np.random.default_rng(3)
    idx = pd.MultiIndex.from_product([["t", "u"], [f"p{i}" for i in range(60)]], names=["task", "problem_id"])
    c = np.where(rng.random((120, 6)) < 0.4, np.inf, rng.lognormal(-1, 1.5, (120, 6)) * rng.lognormal(0, 1, 6))
    cop, expert = pd.DataFrame(c, index=idx, columns=list("abcdef")), pd.Series(rng.lognormal(3, 1, 120), index=idx)
    w = pd.DataFrame(rng.integers(0, 3, (120, 6)).astype(float), index=idx, columns=cop.columns)
    for weights in (None, w):
        flips = cp.cheapest_by_fee(cop, expert, weights)
        scales = np.logspace(-3, 2, 161)
        curve = cp.fee_curve(cop, expert, {m: [m] for m in cop.columns}, scales,
                             None if weights is None else {m: weights[m] for m in cop.columns})
        for (task, fee), d in curve.groupby(["task", "fee_usd"]):
            lowest = set(d.loc[np.isclose(d["value"], d["value"].min(), rtol=1e-12), "line"])
            mine = flips[(flips["task"] == task) & (flips["from_usd"] <= fee * (1 + 1e-9))
                         & (flips["to_usd"] >= fee * (1 - 1e-9))]
            assert set(mine["model"]) & lowest, (task, fee)
        assert (flips.groupby("task")["from_usd"].shift(-1).dropna().to_numpy()
                == flips.groupby("task")["to_usd"].apply(lambda x: x.iloc[:-1]).to_numpy()).all()  # the runs meet


def test_weighted_table1_reads_each_problem_by_its_weight():
    """A racing set's Table 1 (``weights``): each problem's min(cost-of-pass, expert) weighted, weight 0 never read
    (a cell not recorded: NaN), and with no weights the paper's plain mean, in Table 1, its expert split and its fee
    curve alike."""
    import numpy as np
    import pandas as pd

    from helpers.analyze import costofpass as cp

    idx = pd.MultiIndex.from_tuples([("t", "a"), ("t", "b"), ("t", "c")], names=["task", "problem_id"])
    cop = pd.DataFrame({"m": [1.0, np.nan, 8.0]}, index=idx)
    expert = pd.Series([4.0, 4.0, 4.0], index=idx)
    w = pd.DataFrame({"m": [1.0, 0.0, 3.0]}, index=idx)
    by_hand = (1.0 * 1 + 4.0 * 3) / 4  # problem c charged to the expert (8 > 4), b not recorded
    assert cp.single_model_frontier(cop, expert, w).loc["t", "m"] == by_hand
    split = cp.expert_split(cop, expert, w).iloc[0]
    assert (split["value"], split["model_usd"], split["expert_usd"],
            split["expert_problems"]) == (by_hand, 0.25, 3.0, 3)
    curve = cp.fee_curve(cop, expert, {"m": ["m"]}, np.array([1.0]), weights={"m": w["m"]})
    assert curve["value"].iloc[0] == by_hand
    full = cop.fillna(2.0)
    assert cp.single_model_frontier(full, expert).loc["t", "m"] == cp.frontier(full, ["m"],
                                                                               expert).loc["t"] == (1 + 2 + 4) / 3


def test_same_day_releases_get_the_range_over_their_orders():
    """Issue 62: o3 and o4-mini came out on one day; list order gave o3 35.3% and o4-mini 8.5%, the other order 23.9%
    and 22.2%. Each model's gain first and last of its day, and the sentence that says so."""
    idx = pd.MultiIndex.from_product([["t"], ["p1", "p2", "p3"]], names=["task", "problem_id"])
    # old passes nothing; a and b (same day) each pass p1 cheaply; only b passes p2
    cop = pd.DataFrame({"old": [np.inf] * 3, "a": [1.0, np.inf, np.inf], "b": [2.0, 3.0, np.inf]}, index=idx)
    expert = pd.Series(10.0, index=idx)
    releases = pd.Series(pd.to_datetime(["2024-01-01", "2024-06-01", "2024-06-01"]), index=["old", "a", "b"])
    credit = cp.same_day_credit(cop, releases, expert).set_index("model")
    assert list(credit.index) == ["a", "b"] and (credit["date"] == pd.Timestamp("2024-06-01")).all()
    assert credit.loc["a", "first_pct"] == pytest.approx(100 * 9 / 30)  # 30 -> 21 with a alone
    assert credit.loc["a", "last_pct"] == pytest.approx(100 * 1 / 15)  # b first: 15 -> 14
    assert (credit.loc["b", "first_pct"] == pytest.approx(100 * 15 / 30)
            and credit.loc["b", "last_pct"] == pytest.approx(100 * 7 / 21))
    from helpers.publish.sentences import same_day_said

    said = same_day_said(credit.reset_index(), {"a": "A", "b": "B"}, {"t": "Task"})
    assert ("Task, 2024-06-01: A 6.67–30%, B 33.3–50%" in said and "fidelity.release_steps: one_date "
            "credits" in said and "`" not in said)
    assert same_day_said(cp.same_day_credit(cop, releases.drop("b"), expert), {}, {}) is None  # no shared day
