"""The report's claims, decided once (``analyze.claims``): the rules the findings word and the validity study measures."""

import numpy as np

from helpers.analyze import claims


def test_each_technique_is_named_only_where_its_interval_lies_above_zero():
    value = np.array([[0.1, 0.3, np.nan], [0.1, 0.3, 0.2]])
    low = np.array([[0.05, -0.1, np.nan], [0.05, 0.01, 0.1]])
    assert claims.techniques_that_pay(value, low).tolist() == [[True, False, False], [True, True, True]]
    assert not claims.techniques_that_pay(np.full((2, 3), np.nan), np.ones((2, 3))).any()  # no estimate: no claim


def test_a_family_is_named_only_above_every_other_interval():
    value, low = np.array([0.6, 0.3]), np.array([0.55, 0.1])
    assert claims.most_essential(value, low, np.array([0.8, 0.5])) == 0
    assert claims.most_essential(value, low, np.array([0.8, 0.56])) == claims.NONE  # the other's interval reaches it
    stacked = claims.most_essential(np.stack([value, value]), np.stack([low, low]), np.array([[0.8, 0.5], [0.8, 0.6]]))
    assert stacked.tolist() == [0, claims.NONE]  # the same rule over sets, as the validity study applies it


def test_the_cheapest_model_is_the_one_marked():
    assert claims.cheapest_model(np.array([[False, True], [False, False]])).tolist() == [1, claims.NONE]


def test_the_findings_and_the_validity_study_apply_the_same_rule():
    """The false-findings rate is measured for the rule the report uses: both call ``claims``."""
    import inspect

    from helpers.analyze import policy_study
    from helpers.publish import findings

    for rule in ("techniques_that_pay", "most_essential", "cheapest_model"):
        assert f"claims.{rule}(" in inspect.getsource(findings) and f"claims.{rule}(" in inspect.getsource(policy_study)
