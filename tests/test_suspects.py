"""Suspect items: a problem whose models agree on another answer, or that strong models fail while weak ones pass,
is listed with its agreed answer; an ordinary hard problem is not."""

import pandas as pd

from helpers.analyze.suspects import suspect_items


def attempts(rows):
    out = []
    for pid, model, answers, correct in rows:
        out += [{"task": "gsm8k", "problem_id": pid, "model": model, "method": "vanilla", "complete": True,
                 "answer_key": a, "correct": c} for a, c in zip(answers, correct)]
    return pd.DataFrame(out)


def test_agreement_and_reversal_are_flagged_and_a_hard_problem_is_not():
    f, t = False, True
    rows = [("easy", m, ["5"] * 4, [t] * 4) for m in ("a", "b", "c", "d")]  # sets the models' accuracy order: a best
    rows += [("x", "a", ["5"] * 4, [t] * 4), ("x", "b", ["5"] * 4, [t] * 3 + [f]), ("x", "c", ["1"] * 4, [f] * 4),
             ("x", "d", ["1"] * 4, [f] * 4)]
    rows += [("agreed", m, ["72"] * 4, [f] * 4) for m in ("a", "b", "c")] + [("agreed", "d", ["3", "4", "9", "8"], [f] * 4)]
    rows += [("reversed", "a", ["7"] * 4, [f] * 4), ("reversed", "b", ["8", "9", "7", "6"], [f] * 4),
             ("reversed", "c", ["70", "1", "2", "3"], [t, f, f, f]), ("reversed", "d", ["70", "4", "5", "6"], [t, f, f, f])]
    rows += [("hard", m, [str(i) + m for i in range(4)], [f] * 4) for m in ("a", "b", "c", "d")]  # wrong every way
    rows += [("silent", m, ["<no answer>"] * 4, [f] * 4) for m in ("a", "b", "c", "d")]  # no answer agrees on nothing
    out = suspect_items(attempts(rows), {("gsm8k", "agreed"): "27", ("gsm8k", "reversed"): "70"}).set_index("problem_id")
    assert set(out.index) == {"agreed", "reversed"}
    agreed = out.loc["agreed"]
    assert agreed["agreed_answer"] == "72" and agreed["reference"] == "27" and agreed["agreeing_models"] == 3
    assert agreed["agreed_pct"] == 75.0 and agreed["why"] == "models agree on another answer"
    rev = out.loc["reversed"]
    assert rev["why"] == "strong models fail, weak ones pass" and rev["strong_pass_pct"] == 0 and rev["weak_pass_pct"] == 25.0
