"""The report's claims, decided once (``analyze.claims``): the rules the findings word and the validity study
measures."""

import numpy as np

from helpers.analyze import claims


def test_each_technique_is_named_only_where_it_is_shown_with_the_others_tested_together():
    value = np.array([[0.1, 0.3, np.nan], [0.1, 0.3, 0.2]])
    shown = np.array([[True, False, True], [True, True, True]])  # an unidentified gain is never named
    assert claims.techniques_that_pay(value, shown).tolist() == [[True, False, False], [True, True, True]]


def _lows(table: dict[int, list[float]]):
    """``low_at`` of ``policy.holm_shown`` for one group: the low ends by how many intervals share the level."""
    from helpers.analyze.differences import bonferroni

    return lambda each: np.array([next(v for m, v in table.items() if np.isclose(each, bonferroni(0.95, m)))])


def test_holms_step_down_shows_what_bonferroni_shows_and_more_never_what_one_interval_alone_would_not():
    """Review H2: "techniques that pay" named 4 of 15 at 95% each. Holm's step-down: the first step at 1 − 0.05/3
    shows gain 0; the next, at 1 − 0.05/2, gain 1; the last, at 95%, not gain 2 (its low end ≤ 0)."""
    from helpers.analyze.policy import holm_shown

    lows = {3: [0.2, -0.1, -0.5], 2: [0.25, 0.01, -0.3], 1: [0.3, 0.05, -0.01]}
    assert holm_shown(_lows(lows), np.ones((1, 3), bool)).tolist() == [[True, True, False]]
    lows[2][1] = -0.01  # nothing new at the second step: the procedure stops, gain 1 not shown though above 0 alone
    assert holm_shown(_lows(lows), np.ones((1, 3), bool)).tolist() == [[True, False, False]]
    lows[3][0] = -0.01  # nothing at the first step: nothing at all
    assert holm_shown(_lows(lows), np.ones((1, 3), bool)).tolist() == [[False, False, False]]
    # an unidentified gain does not count among the m tested, and is never shown
    assert holm_shown(_lows({2: [0.1, 0.1, 0.1], 1: [0.1, 0.1, 0.1]}), np.array([[True, True, False]])).tolist() == [
        [True, True, False]]
    assert not claims.techniques_that_pay(np.full((2, 3), np.nan), np.ones((2, 3))).any()  # no estimate: no claim


def test_a_family_is_named_only_above_every_other_interval():
    value, low, shown = np.array([0.6, 0.3]), np.array([0.55, 0.1]), np.array([True, True])
    assert claims.most_essential(value, low, np.array([0.8, 0.5]), shown) == 0
    assert claims.most_essential(value, low, np.array([0.8, 0.56]), shown) == claims.NONE  # the other's reaches it
    stacked = claims.most_essential(np.stack([value, value]), np.stack([low, low]), np.array([[0.8, 0.5], [0.8, 0.6]]),
                                    np.stack([shown, shown]))
    assert stacked.tolist() == [0, claims.NONE]  # the same rule over sets, as the validity study applies it
    # review 6, H2: above 0 on its own interval but not with the other families tested together (Holm): the tables
    # said "not shown" where the findings named it
    assert claims.most_essential(value, low, np.array([0.8, 0.5]), np.array([False, True])) == claims.NONE


def test_the_cheapest_model_is_the_one_marked():
    assert claims.cheapest_model(np.array([[False, True], [False, False]])).tolist() == [1, claims.NONE]


def test_the_findings_and_the_validity_study_apply_the_same_rule():
    """The false-findings rate is measured for the rule the report uses: both call ``claims``."""
    import inspect

    from helpers.analyze import policy_study
    from helpers.publish import findings

    for rule in ("techniques_that_pay", "most_essential", "cheapest_model"):
        assert f"claims.{rule}(" in inspect.getsource(findings) and f"claims.{rule}(" in inspect.getsource(policy_study)
