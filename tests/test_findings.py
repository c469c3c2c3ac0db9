"""Findings at a glance and the folded technique table: cells computed from the numbers they summarise."""

import numpy as np
import pandas as pd

from helpers.publish import findings, tables


def stats_frame():
    rows = [("frontier:all models", 0.5, 0.4, 0.7), ("table1:a", 2.0, 1.5, 2.5), ("table1:b", 0.8, 0.6, 1.1),
            ("family:small", 0.30, 0.10, 0.50), ("family:big", 0.60, 0.40, 0.80),
            ("technique gain:self_refine", 0.10, 0.0, 0.3), ("technique gain:vote", 0.20, 0.05, 0.35)]
    out = [{"statistic": s, "task": "t", "estimator": e, "value": v * k, "low": lo * k, "high": hi * k}
           for s, v, lo, hi in rows for e, k in (("model-based", 1.0), ("plug-in", 9.0))]
    return pd.DataFrame(out)


def test_findings_pick_the_extremes_with_their_intervals():
    halving = pd.DataFrame([{"task": "T", "estimator": "plug-in", "halving_months": 3.0, "halving_low": 2.0,
                             "halving_high": np.inf, "reliable": False}])
    row = findings.findings(stats_frame(), halving, ["t"], {"t": "T"}, {"b": "Model B"}, {"b": "small"}).iloc[0]
    assert row["dataset"] == "T"
    assert row["frontier of all models (USD)"] == "4.5 [3.6, 6.3]"  # the paper's plug-in leads
    assert row["cheapest single model (USD)"] == "Model B (small): 7.2 [5.4, 9.9]"
    assert row["most essential family (%)"] == "big: 540 [360, 720]"
    assert row["best technique (gain %)"] == "vote: 180 [45, 315]"
    assert row["halving time (months)"] == "unreliable (3 [2, ∞])"
    model = findings.findings(stats_frame(), None, ["t"], {}, {}, {}, estimator="model-based").iloc[0]
    assert model["frontier of all models (USD)"] == "0.5 [0.4, 0.7]"


def test_a_model_that_never_passed_is_never_named_cheapest():
    # the local set's case: the model-based estimate made a never-passed model cheapest; the plug-in with its range
    rows = [("table1:smol", 0.167, 0.167, 0.167, 0.02, 0.167, 100.0), ("table1:gemma", 0.158, 0.142, 0.167, 0.03, 0.158, 95.0),
            ("table1:qwen", 0.167, 0.167, 0.167, 0.025, 0.167, 100.0)]
    stats = pd.DataFrame([{"statistic": s, "task": "t", "estimator": "plug-in", "value": v, "low": lo, "high": hi,
                           "range_low": rl, "range_high": rh, "unseen_pct": u} for s, v, lo, hi, rl, rh, u in rows])
    cell = findings.findings(stats, None, ["t"], {}, {"smol": "SmolLM2"}, {"gemma": "g"})["cheapest single model (USD)"][0]
    # 95% of gemma's value is the fee on problems it never passed: the fee ranks them, not the records (issue 35)
    assert cell.startswith("none decided by the records: gemma is lowest at 0.158, 95% of it the assumed expert fee")
    assert cell.endswith("never passed here: SmolLM2, qwen")
    stats.loc[stats["statistic"] == "table1:gemma", "unseen_pct"] = 40.0  # the records decide most of it: named
    cell = findings.findings(stats, None, ["t"], {}, {"smol": "SmolLM2"}, {"gemma": "g"})["cheapest single model (USD)"][0]
    assert cell.startswith("gemma (g): 0.158 [0.142, 0.167]; range [0.03, 0.158] (not identified)")
    nobody = stats[stats["statistic"] != "table1:gemma"]
    cell = findings.findings(nobody, None, ["t"], {}, {}, {})["cheapest single model (USD)"][0]
    assert cell.startswith("none: no model passed a problem here")


def test_no_technique_gain_is_claimed_when_its_interval_reaches_zero():
    stats = stats_frame()
    stats = stats[stats["statistic"] != "technique gain:vote"]
    row = findings.findings(stats, None, ["t"], {}, {}, {}).iloc[0]
    assert row["best technique (gain %)"] == "none measurable (every interval reaches 0)"
    assert row["halving time (months)"] == "–"


def test_fold_methods_puts_each_models_methods_in_one_cell():
    long = pd.DataFrame({"model": ["A", "A", "B"], "method": ["vanilla", "vote", "vanilla"], "t": [50.0, 61.25, 7.0]})
    folded = tables.fold_methods(long, ["B", "A"], ["vanilla", "vote"], ["t"])
    assert folded.to_dict("records") == [{"model": "B", "t": "7 / –"}, {"model": "A", "t": "50 / 61.2"}]


def test_findings_in_sentences_say_what_a_category_shares_once():
    from helpers.publish.findings import COLUMNS, in_sentences

    glance = pd.DataFrame([["A", "1 [0, 2]", "m1 (light): 1 [0, 2]", "light: 90 [80, 95]", "none measurable", "unreliable"],
                           ["B", "3 [2, 4]", "m2 (light): 3 [2, 4]", "light: 70 [60, 80]", "none measurable", "2 [1, 3]"],
                           ["C", "5 [4, 6]", "m1 (light): 5 [4, 6]", "large: 60 [50, 70]", "vote: 9 [1, 12]", "4 [3, 5]"]],
                          columns=COLUMNS)
    text = in_sentences(glance, {"A": "basic", "B": "basic", "C": "complex"})
    basic, complex_ = text.split("\n\n")
    assert basic.startswith("**Basic** (A, B) — Frontier of all models (USD per problem): 1 [0, 2] on A; 3 [2, 4] on B.")
    assert "Most essential family: light on both." in basic and "Best technique: none measurable on both." in basic
    assert "Cheapest single model: m1 (light): 1 [0, 2] on A; m2 (light): 3 [2, 4] on B." in basic
    assert complex_.startswith("**Complex** (C) — ") and "Best technique: vote on C." in complex_


def test_main_findings_are_three_sentences_naming_datasets():
    glance = pd.DataFrame({findings.COLUMNS[0]: ["A", "B"],
                           findings.COLUMNS[1]: ["0.5 [0.4, 0.7]", "2 [1, 3]; range [0.1, 2]"],
                           findings.COLUMNS[2]: ["m1 (big): 0.6 [0.5, 0.7]", "m2 (small): 2.5 [2, 3]"],
                           findings.COLUMNS[3]: ["big: 50 [40, 60]", "big: 70 [60, 80]"],
                           findings.COLUMNS[4]: ["–", "–"], findings.COLUMNS[5]: ["no fit", "no fit"]})
    said = findings.main_findings(glance)
    assert len(said) == 3
    assert "0.5 [0.4, 0.7] USD per problem on A, up to 2 [1, 3] on B" in said[0]
    assert said[1].endswith("big on A and B.") and said[2].startswith("The cheapest single model")


def test_a_frontier_that_is_mostly_the_experts_fee_says_so_and_gives_no_interval():
    """Issue 35: on HumanEval 99.4% of the frontier is the fee on the 3 problems no model passed; printed as
    "v [lo, hi]" it read as an interval for the truth."""
    stats = stats_frame()
    stats["unseen_pct"] = np.where(stats["statistic"] == "frontier:all models", 99.4, 0.0)
    glance = findings.findings(stats, None, ["t"], {"t": "T"}, {}, {"a": "big", "b": "small"}, unpassed={"t": 3})
    cell = glance.iloc[0][findings.COLUMNS[1]]
    assert cell == "4.5: mostly the assumed expert fee (99.4% of it, on the 3 problems no model passed); the records " \
                   "decide 0.027" and "[" not in cell
    first = findings.main_findings(glance)[0]
    assert first == ("With every model and the human expert to choose from, a correct answer costs 4.5 USD per problem "
                     "on T — mostly the assumed expert fee (99.4% of it, on the 3 problems no model passed); the records "
                     "decide 0.027 (the frontier of all models).")
    stats["unseen_pct"] = 40.0  # less than half: the interval stays
    assert "[" in findings.findings(stats, None, ["t"], {"t": "T"}, {}, {}).iloc[0][findings.COLUMNS[1]]


def test_no_model_is_named_cheapest_when_the_fee_decides_the_ranking():
    stats = stats_frame()
    stats["unseen_pct"] = np.where(stats["statistic"].str.startswith("table1"), 98.7, 0.0)
    cell = findings.findings(stats, None, ["t"], {"t": "T"}, {"b": "B"}, {}).iloc[0][findings.COLUMNS[2]]
    assert cell == "none decided by the records: B is lowest at 7.2, 98.7% of it the assumed expert fee on problems " \
                   "it never passed"
