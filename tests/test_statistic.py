"""A statistic's name read into its kind and item (``helpers.analyze.statistic``), and back."""

import pandas as pd

from helpers.analyze import statistic as st


def test_a_name_is_its_kind_and_item_and_back():
    key = st.Key.parse("technique gain:self_refine")
    assert key.kind is st.TECHNIQUE_GAIN and key.item == "self_refine" and str(key) == "technique gain:self_refine"
    assert st.named(st.TABLE1, "m:with:colons") == "table1:m:with:colons"
    assert st.item_of("table1:m:with:colons") == "m:with:colons"  # only the first colon separates
    assert st.ALL_MODELS == "frontier:all models" and st.kind_of(st.ALL_MODELS) == "frontier"
    unknown = st.Key.parse("routing:3")
    assert unknown.kind.name == "routing" and not unknown.kind.level  # kept, never taken for a level
    assert st.Key.parse("frontier").item == "" and st.Key.parse("frontier").kind.level


def test_series_of_names_and_the_kinds_labels():
    names = pd.Series(["table1:a", "release gain:2", "x"], index=[5, 6, 7])
    assert st.kinds(names).tolist() == ["table1", "release gain", "x"] and list(st.kinds(names).index) == [5, 6, 7]
    assert st.items(names).tolist() == ["a", "2", ""] and st.kinds(names.iloc[:0]).empty
    assert [k.level for k in (st.TABLE1, st.FRONTIER, st.RELEASE_FRONTIER, st.STRATEGY)] == [True] * 4
    assert not any(k.level for k in (st.TECHNIQUE_GAIN, st.RELEASE_GAIN, st.FAMILY, st.ESSENTIAL, st.STRATEGY_GAIN))
    assert st.short_label(st.TABLE1.label) == "Table 1" and st.short_label(st.POLICY_FRONTIER.label) == \
        "Frontier of all models"
    assert (st.short_label("Oracle routing, cross-fitted: accuracy at [0.1] budgets (0-1)")
            == "Oracle routing, cross-fitted")
    assert st.FRONTIER.label != st.POLICY_FRONTIER.label  # one name per quantity
