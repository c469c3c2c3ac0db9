import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers.core.methods.majority_vote import majority_vote_estimates
from helpers.core.methods.vote_math import (
    any_pass_probability,
    any_pass_true,
    pattern_codes,
    vote_probability,
    vote_rates,
)
from helpers.core.tasks import get_task
from helpers.grade.answers import NO_ANSWER, canonical_answer


def vote_success(answers: list[str], correct: list[bool], subset: tuple[int, ...]) -> float:
    """Reference rule, one vote at a time: the largest answer group wins, ties split evenly (0-1)."""
    counts: dict[str, int] = {}
    ok: dict[str, bool] = {}
    for i in subset:
        counts[answers[i]] = counts.get(answers[i], 0) + 1
        ok[answers[i]] = ok.get(answers[i], False) or bool(correct[i])
    top = max(counts.values())
    winners = [a for a, c in counts.items() if c == top]
    return sum(ok[a] for a in winners) / len(winners)


def enumerate_subsets(answers, correct, k) -> float:
    return float(np.mean([vote_success(answers, correct, s) for s in itertools.combinations(range(len(answers)), k)]))


def keyed(vanilla: pd.DataFrame, numeric_rule: str = "number") -> pd.DataFrame:
    """Vanilla attempts with the vote key grading gives them (``grade_calls`` adds it to records)."""
    return vanilla.assign(answer_key=[canonical_answer(a if isinstance(a, str) else None,
                                                       get_task(t).metric, 4, numeric_rule)
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
    """The estimator (closed form per distinct pattern, all problems at once) equals enumerating each
    problem's k-subsets, also where there are many (C(12, 4) = 495)."""
    rng = np.random.default_rng(k)
    rows = []
    for p in range(60):
        for m in ("a", "b"):
            n = int(rng.integers(1, 13))  # some below k
            for _ in range(n):
                answer = str(rng.integers(0, 3))
                rows.append({"task": "gsm8k", "problem_id": f"p{p}", "model": m, "answer_key": answer,
                             "correct": answer == "0", "usd": float(rng.random())})  # one verdict per answer
    vanilla = pd.DataFrame(rows).sample(frac=1, random_state=0)  # problems interleaved
    got = majority_vote_estimates(vanilla, k).set_index(["problem_id", "model"])
    for (pid, m), g in vanilla.groupby(["problem_id", "model"], sort=False):
        if len(g) < k:
            assert (pid, m) not in got.index
            continue
        expected = enumerate_subsets(g["answer_key"].tolist(), g["correct"].tolist(), k)
        assert got.loc[(pid, m), "pass_rate"] == pytest.approx(expected)
        assert got.loc[(pid, m), "cost_usd"] == pytest.approx(k * g["usd"].mean())
        assert got.loc[(pid, m), "n"] == math.comb(len(g), k)


classes = st.lists(st.tuples(st.integers(1, 5), st.booleans()), min_size=1, max_size=5)


@settings(max_examples=150, deadline=None)
@given(classes, st.integers(1, 6))
def test_closed_form_equals_enumeration_over_subsets(pattern, k):
    answers = [str(i) for i, (n, _) in enumerate(pattern) for _ in range(n)]
    correct = [ok for n, ok in pattern for _ in range(n)]
    if len(answers) < k:
        with pytest.raises(ValueError):
            vote_probability(tuple(pattern), k)
        return
    assert vote_probability(tuple(pattern), k) == pytest.approx(enumerate_subsets(answers, correct, k), abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(0.01, 1.0), st.booleans()), min_size=1, max_size=4), st.integers(1, 5))
def test_closed_form_with_replacement_equals_enumeration_over_vote_tuples(raw, k):
    total = sum(w for w, _ in raw)
    pattern = tuple((w / total, ok) for w, ok in raw)
    answers, correct = [str(i) for i in range(len(pattern))], [ok for _, ok in pattern]
    expected = sum(math.prod(pattern[i][0] for i in votes) * vote_success(answers, correct, votes)
                   for votes in itertools.product(range(len(pattern)), repeat=k))
    assert vote_probability(pattern, k, replacement=True) == pytest.approx(expected, abs=1e-12)


def test_vote_closed_form_by_hand():
    # binary case of the CPSP note: p = 0.6 correct, one wrong answer; k = 3 wins with >= 2 correct votes
    assert vote_probability(((0.6, True), (0.4, False)), 3,
                            replacement=True) == pytest.approx(0.6**3 + 3 * 0.6**2 * 0.4)
    # k = 2 of 2 runs, one right one wrong: a tie, split
    assert vote_probability(((1, True), (1, False)), 2) == 0.5
    assert vote_probability(((3, False), (2, False)), 3) == 0.0
    assert any_pass_true(0.5, 2) == pytest.approx(0.75) and any_pass_probability(4, 2, 2) == pytest.approx(5 / 6)


def test_pattern_codes_ignore_class_order_and_rates_vectorise():
    sizes = np.array([[2, 1, 0], [1, 0, 2], [0, 0, 2]])
    ok = np.array([[True, False, False], [False, False, True], [False, False, True]])
    codes, _ = pattern_codes(sizes, ok)
    assert codes[0] == codes[1] != codes[2]
    rates = vote_rates(sizes, ok, 3)
    assert rates[0] == pytest.approx(1.0) and np.isnan(rates[2])  # 2 runs cannot make a 3-vote
