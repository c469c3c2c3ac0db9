import pandas as pd
import pytest

from helpers.techniques import majority_vote_estimates, subsets, vote_success


def test_vote_success_by_hand():
    assert vote_success(["1", "1", "2"], [True, True, False], (0, 1, 2)) == 1.0
    assert vote_success(["1", "2"], [True, False], (0, 1)) == 0.5  # a tie is split evenly
    assert vote_success([None, None], [False, False], (0, 1)) == 0.0
    assert vote_success(["1", None, None], [True, False, False], (0, 1, 2)) == 1.0  # no answer casts no vote


def test_majority_vote_from_recorded_runs_by_hand():
    vanilla = pd.DataFrame({
        "task": "gsm8k", "problem_id": "p", "model": "m",
        "extracted": ["5", "5.0", "6", None], "correct": [True, True, False, False], "usd": [0.1, 0.2, 0.3, 0.4]})
    (row,) = majority_vote_estimates(vanilla, 3).itertuples()
    # subsets of 3 of 4: {5,5,6} 1, {5,5,-} 1, {5,6,-} .5, {5,6,-} .5 ("5" and "5.0" are one answer)
    assert row.pass_rate == pytest.approx(0.75) and row.n == 4
    assert row.cost_usd == pytest.approx(3 * 0.25)  # a 3-vote attempt pays for 3 generations
    assert majority_vote_estimates(vanilla, 5).empty  # fewer runs than votes


def test_letters_group_by_choice():
    vanilla = pd.DataFrame({"task": "bbq", "problem_id": "p", "model": "m", "extracted": ["(B)", "B", "C"],
                            "correct": [True, True, False], "usd": 0.01})
    assert majority_vote_estimates(vanilla, 3).pass_rate.iloc[0] == 1.0


def test_subsets_are_all_or_a_seeded_sample():
    assert len(subsets(8, 4, 256, 0)) == 70
    assert subsets(30, 5, 50, 1) == subsets(30, 5, 50, 1) and len(subsets(30, 5, 50, 1)) == 50
