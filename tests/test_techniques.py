import math

import pandas as pd
import pytest

from helpers.core.methods.majority_vote import majority_vote_estimates, subsets, vote_success
from helpers.core.tasks import get_task
from helpers.grade.answers import NO_ANSWER, canonical_answer


def keyed(vanilla: pd.DataFrame, numeric_rule: str = "number") -> pd.DataFrame:
    """Vanilla attempts with the vote key grading gives them (``grade_calls`` adds it to records)."""
    return vanilla.assign(answer_key=[canonical_answer(a if isinstance(a, str) else None, get_task(t).metric, 4, numeric_rule)
                                      for a, t in zip(vanilla["extracted"], vanilla["task"])])


def test_vote_success_by_hand():
    assert vote_success(["1", "1", "2"], [True, True, False], (0, 1, 2)) == 1.0
    assert vote_success(["1", "2"], [True, False], (0, 1)) == 0.5  # a tie is split evenly
    assert vote_success([NO_ANSWER, NO_ANSWER], [False, False], (0, 1)) == 0.0
    # attempts without an answer vote "no answer", which wins 2 to 1 and scores 0 (as in the reference)
    assert vote_success(["1", NO_ANSWER, NO_ANSWER], [True, False, False], (0, 1, 2)) == 0.0


def test_majority_vote_from_recorded_runs_by_hand():
    vanilla = pd.DataFrame({
        "task": "gsm8k", "problem_id": "p", "model": "m",
        "extracted": ["5", "5.0", "6", None], "correct": [True, True, False, False], "usd": [0.1, 0.2, 0.3, 0.4]})
    (row,) = majority_vote_estimates(keyed(vanilla), 3).itertuples()
    # subsets of 3 of 4: {5,5,6} 1, {5,5,-} 1, {5,6,-} 1/3, {5,6,-} 1/3 ("5" and "5.0" are one answer;
    # "-", no answer, is a vote of its own, so the last two are three-way ties)
    assert row.pass_rate == pytest.approx((1 + 1 + 1 / 3 + 1 / 3) / 4) and row.n == 4
    assert row.cost_usd == pytest.approx(3 * 0.25)  # a 3-vote attempt pays for 3 generations
    assert majority_vote_estimates(keyed(vanilla), 5).empty  # fewer runs than votes


def test_letters_group_by_choice():
    vanilla = pd.DataFrame({"task": "bbq", "problem_id": "p", "model": "m", "extracted": ["(B)", "B", "C"],
                            "correct": [True, True, False], "usd": 0.01})
    assert majority_vote_estimates(keyed(vanilla), 3).pass_rate.iloc[0] == 1.0


def test_subsets_are_all_or_a_seeded_sample():
    assert len(subsets(8, 4, 256, 0)) == 70
    assert subsets(30, 5, 50, 1) == subsets(30, 5, 50, 1) and len(subsets(30, 5, 50, 1)) == 50


def test_votes_group_as_grading_judges():
    # "60 + 59" is graded wrong for a numeric target, so it is not the vote "119"
    vanilla = pd.DataFrame({"task": "two_digit_addition", "problem_id": "p", "model": "m",
                            "extracted": ["60 + 59", "60+59", "119"], "correct": [False, False, True], "usd": 0.01})
    assert majority_vote_estimates(keyed(vanilla), 3).pass_rate.iloc[0] == 0.0
    # under the reference rule the expressions are graded correct, and they are one vote with "119"
    reference = vanilla.assign(correct=True)
    assert majority_vote_estimates(keyed(reference, "expression"), 3).pass_rate.iloc[0] == 1.0


@pytest.mark.parametrize("k", [1, 3, 4])
def test_many_problems_at_once_equal_one_by_one_enumeration(k):
    """The vectorised estimator (patterns found for all problems at once; sampled subsets where there are
    too many) equals enumerating each problem's subsets directly."""
    import itertools

    import numpy as np

    rng = np.random.default_rng(k)
    rows = []
    for p in range(60):
        for m in ("a", "b"):
            n = int(rng.integers(1, 13))  # some below k; C(12, 4) = 495 > 256: sampled subsets
            for _ in range(n):
                answer = str(rng.integers(0, 3))
                rows.append({"task": "gsm8k", "problem_id": f"p{p}", "model": m, "answer_key": answer,
                             "correct": answer == "0", "usd": float(rng.random())})  # one verdict per answer
    vanilla = pd.DataFrame(rows).sample(frac=1, random_state=0)  # problems interleaved
    got = majority_vote_estimates(vanilla, k).set_index(["problem_id", "model"])
    for (pid, m), g in vanilla.groupby(["problem_id", "model"], sort=False):
        # (rows in the frame's order, as the estimator's stable sort keeps them: sampled subsets index runs)
        if len(g) < k:
            assert (pid, m) not in got.index
            continue
        answers, correct = g["answer_key"].tolist(), g["correct"].tolist()
        chosen = subsets(len(g), k, 256, 0)
        if len(chosen) == math.comb(len(g), k):
            assert chosen == list(itertools.combinations(range(len(g)), k))
        expected = np.mean([vote_success(answers, correct, s) for s in chosen])
        assert got.loc[(pid, m), "pass_rate"] == pytest.approx(expected)
        assert got.loc[(pid, m), "cost_usd"] == pytest.approx(k * g["usd"].mean())
        assert got.loc[(pid, m), "n"] == len(chosen)
