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
    rows += [("agreed", m, ["72"] * 4, [f] * 4)
             for m in ("a", "b", "c")] + [("agreed", "d", ["3", "4", "9", "8"], [f] * 4)]
    rows += [("reversed", "a", ["7"] * 4, [f] * 4), ("reversed", "b", ["8", "9", "7", "6"], [f] * 4),
             ("reversed", "c", ["70", "1", "2", "3"], [t, f, f, f]),
             ("reversed", "d", ["70", "4", "5", "6"], [t, f, f, f])]
    rows += [("hard", m, [str(i) + m for i in range(4)], [f] * 4) for m in ("a", "b", "c", "d")]  # wrong every way
    rows += [("silent", m, ["<no answer>"] * 4, [f] * 4) for m in ("a", "b", "c", "d")]  # no answer agrees on nothing
    out = suspect_items(attempts(rows),
                        {("gsm8k", "agreed"): "27", ("gsm8k", "reversed"): "70"}).set_index("problem_id")
    assert set(out.index) == {"agreed", "reversed"}
    agreed = out.loc["agreed"]
    assert agreed["agreed_answer"] == "72" and agreed["reference"] == "27" and agreed["agreeing_models"] == 3
    assert agreed["agreed_pct"] == 75.0 and agreed["why"] == "models agree on another answer"
    rev = out.loc["reversed"]
    assert (rev["why"] == "strong models fail, weak ones pass" and rev["strong_pass_pct"] == 0
            and rev["weak_pass_pct"] == 25.0)


def test_verdicts_in_doubt_gather_suspects_missing_modules_and_programs_near_the_cpu_limit():
    """Review H10: the problems a frontier leaves to the expert can be a grader's artefact or a suspect item; each
    problem whose verdicts are in doubt is listed once, with every reason."""
    from helpers.analyze.suspects import doubtful_problems

    suspects = pd.DataFrame({"task": ["t"], "problem_id": ["p1"], "why": ["strong models fail, weak ones pass"]})
    calls = pd.DataFrame({"task": ["t"] * 4, "problem_id": ["p2", "p2", "p3", "p4"],
                          "grade_reason": ["ModuleNotFoundError: No module named 'sympy'", "ModuleNotFoundError: No "
                                           "module named 'sympy'", "CPU time limit", "a hidden test failed"],
                          "grade_cpu_s": [0.1, 0.1, 19.0, 0.2]})
    d = doubtful_problems(suspects, calls)
    assert d.to_dict("records") == [
        {"task": "t", "problem_id": "p1", "why": "suspect item: strong models fail, weak ones pass"},
        {"task": "t", "problem_id": "p2", "why": "the grader's sandbox lacks sympy"},
        {"task": "t", "problem_id": "p3", "why": "a program near the CPU limit"}]
    assert doubtful_problems(None, None).empty and list(doubtful_problems(None, calls)["problem_id"]) == ["p2", "p3"]


def test_the_frontiers_fee_on_verdicts_in_doubt_is_said_with_its_share():
    from types import SimpleNamespace

    import numpy as np

    from helpers.publish.tables import doubtful_fee

    problems = pd.MultiIndex.from_tuples([("t", "p1"), ("t", "p2"), ("t", "p3"), ("t", "p4")],
                                         names=["task", "problem_id"])
    front = SimpleNamespace(expert=np.array([1.0, 0.0, 3.0, 0.0]), total=np.array([1.0, 0.5, 3.0, 0.5]))
    fitted = SimpleNamespace(policy=SimpleNamespace(frontier=front),
                             cube=SimpleNamespace(problems=problems, tasks=["t"], task_codes=np.zeros(4, int)))
    an = SimpleNamespace(task_labels={"t": "T <b>"})
    doubt = pd.DataFrame({"task": ["t", "t"], "problem_id": ["p1", "p2"], "why": ["a program near the CPU limit"] * 2})
    said = doubtful_fee(an, fitted, doubt)
    assert said == ("Verdicts in doubt: on T <b>, 25% of the frontier's fee part falls on 1 problem a check flags as "
                    "possibly mis-graded (flags, not verdicts: none is re-examined here): p1 (a program near the CPU "
                    "limit) (the other problem in doubt, p2, carries none of it); without it (left out, not charged "
                    "0) the frontier reads 1.33 USD per problem."), said
    # plain text (the lead is escaped where published)
    assert doubtful_fee(an, fitted, doubt.iloc[:0]) == ""
