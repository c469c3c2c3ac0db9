"""A statistic is a typed key (``helpers.analyze.statistic``): its kind and its item; its name, written beside them."""

from helpers.analyze import statistic as st


def test_a_key_is_its_kind_and_item_and_its_row_writes_all_three():
    key = st.Key(st.TECHNIQUE_GAIN, "self_refine")
    assert str(key) == "technique gain:self_refine"
    assert key.row() == {"statistic": "technique gain:self_refine", "kind": "technique gain", "item": "self_refine"}
    assert list(key.row()) == st.KEY_COLUMNS
    assert st.Key(st.TABLE1, "m:with:colons").row()["item"] == "m:with:colons"  # never split from the name
    assert {st.Key(st.TABLE1, "a"): 1}[st.Key(st.TABLE1, "a")] == 1  # hashable: a dict's key


def test_a_shown_cell_is_read_back_at_the_one_boundary():
    key = st.Key.parse("technique gain:self_refine")
    assert key == st.Key(st.TECHNIQUE_GAIN, "self_refine") and key.kind is st.TECHNIQUE_GAIN
    assert st.Key.parse("table1:m:with:colons").item == "m:with:colons"  # only the first colon separates
    unknown = st.Key.parse("routing:3")
    assert unknown.kind.name == "routing" and not unknown.kind.level  # kept, never taken for a level


def test_the_papers_frontier_and_the_headlines_are_two_names_for_two_quantities():
    """Issue 61 item 6: one name, one quantity, in memory and in every CSV."""
    assert str(st.ALL_MODELS) == "frontier:all models" and str(st.HEADLINE_FRONTIER) == "policy frontier:all models"
    assert st.ALL_MODELS != st.HEADLINE_FRONTIER
    assert st.POLICY_KINDS["policy frontier"] is st.POLICY_FRONTIER and st.KINDS["frontier"] is st.FRONTIER
    assert "frontier" not in st.POLICY_KINDS and "policy frontier" not in st.KINDS
    assert st.Key.parse("policy frontier:all models") == st.HEADLINE_FRONTIER


def test_the_kinds_labels():
    assert [k.level for k in (st.TABLE1, st.FRONTIER, st.RELEASE_FRONTIER, st.STRATEGY)] == [True] * 4
    assert not any(k.level for k in (st.TECHNIQUE_GAIN, st.RELEASE_GAIN, st.FAMILY, st.ESSENTIAL, st.STRATEGY_GAIN))
    assert st.short_label(st.TABLE1.label) == "Table 1" and st.short_label(st.POLICY_FRONTIER.label) == \
        "Frontier of all models"
    assert (st.short_label("Oracle routing, cross-fitted: accuracy at [0.1] budgets (0-1)")
            == "Oracle routing, cross-fitted")
    assert st.FRONTIER.label != st.POLICY_FRONTIER.label  # one name per quantity
    assert st.POLICY_LABELS["policy frontier"] == st.POLICY_FRONTIER.label
    assert st.FAMILY_LABELS["frontier"] == st.FRONTIER.label
