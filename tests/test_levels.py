"""No level (a cost, a price, an accuracy) is published below 0; differences (gains, changes) may be."""

import pandas as pd

from helpers.publish.levels import negative_levels


def test_a_negative_level_is_named_and_a_negative_difference_is_not(tmp_path):
    pd.DataFrame({"model": ["a", "b"], "task": ["t", "t"], "value": [0.5, 0.2], "low": [-0.0339, 0.1],
                  "high": [0.9, 0.3]}).to_csv(tmp_path / "table5_6_intervals.csv", index=False)
    pd.DataFrame({"statistic": ["table1:a", "release gain:1", "frontier", "essential:a"],
                  "kind": ["table1", "release gain", "frontier", "essential"], "task": ["t"] * 4,
                  "value": [0.1, -0.2, 0.3, -0.4], "low": [0.0, -5.0, -1e-15, -9.0], "high": [1.0] * 4,
                  "truth": [0.1, -0.1, 0.2, -0.3]}).to_csv(tmp_path / "policy_truth.csv", index=False)
    pd.DataFrame({"task": ["t"], "start_usd": [1.0], "end_usd": [0.5], "change_usd": [-0.5]}).to_csv(
        tmp_path / "price_change.csv", index=False)
    assert negative_levels(tmp_path) == ["table5_6_intervals.csv row 0: low = -0.0339"]
    pd.DataFrame({"dataset": ["t", "u"], "frontier of all models (USD)": ["$0.31 [0.002, 0.71]", "–"],
                  "cheapest single model (USD)": ["none beyond doubt: Llama-3.1-405B reads lowest, 0.00153 "
                                                  "[−0.0001, 0.0386]; 97% of it from one problem, aime24-89", "–"]}
                 ).to_csv(tmp_path / "findings.csv", index=False)  # formatted cells: their stated numbers are read
    assert negative_levels(tmp_path)[1:] == ["findings.csv row 0: cheapest single model (USD) = -0.0001"]


def test_a_formatted_cell_states_its_lead_and_its_intervals_not_the_numbers_in_names():
    from helpers.publish.levels import stated_numbers

    assert stated_numbers("0.307: mostly the assumed expert fee (99.3% of it …)") == [0.307]
    assert stated_numbers("0.000139; range [0.000112, 0.000139]") == [0.000139, 0.000112, 0.000139]
    assert stated_numbers("0.00153 [0.00144, 0.0386] (Llama-3.1-405B (sim)) to 0.192 [0.0771, 0.327] (Llama-3.1-8B)") \
        == [0.00153, 0.00144, 0.0386, 0.192, 0.0771, 0.327]
    assert stated_numbers("none beyond doubt: GPT-4o mini reads lowest, aime24-89") == []


def test_a_table_of_statistics_older_than_its_kind_column_is_refused_in_one_line(tmp_path):
    """A statistic's kind is read from its ``kind`` column, never from its name: a CSV written before that column
    existed is refused, with what to do."""
    import pytest

    from helpers.core.errors import CostOfPassError

    pd.DataFrame({"statistic": ["table1:a"], "task": ["t"], "value": [0.1], "low": [0.0], "high": [1.0],
                  "truth": [0.1]}).to_csv(tmp_path / "policy_truth.csv", index=False)
    with pytest.raises(CostOfPassError, match="'kind' column"):
        negative_levels(tmp_path)
