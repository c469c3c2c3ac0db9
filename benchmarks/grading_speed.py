"""Grading and majority votes at simulated scale: memoised paths against per-row ones, in one run.

    .venv/bin/python benchmarks/grading_speed.py [PROBLEMS_PER_TASK]

Builds simulated records (10 models x 2 generated tasks x PROBLEMS_PER_TASK problems x 8 runs,
default 128: 20,480 calls, an eighth of the paper's 160,800) straight from the simulator, then
times (1) per-row extraction + math-verify, as grading did before, against ``grade_calls`` (once per
distinct response and per distinct (target, answer), plain numerals compared exactly); (2) majority votes
k = 3 with a canonical answer per attempt and every subset enumerated per problem, against
``majority_vote_estimates`` on the vote keys grading wrote (``answer_key``): one closed form per
distinct vote pattern). Both sides must agree; the script says so.
"""

from __future__ import annotations

import itertools
import sys
import time

import numpy as np
import pandas as pd

from helpers.collect.backends import sim
from helpers.core.methods.majority_vote import majority_vote_estimates
from helpers.core.tasks import get_task
from helpers.core.tasks.two_digit_addition import generate
from helpers.grade.answers import as_number, attempts_from_calls, extract_answer, grade_calls, math_equal

N = int(sys.argv[1]) if len(sys.argv) > 1 else 128
RUNS, MODELS = 8, 10


def records() -> tuple[pd.DataFrame, dict]:
    problems = {"two_digit_addition": generate(N, seed=0),
                "multi_step_arithmetic": get_task("multi_step_arithmetic").load(None, {"n": N, "seed": 0})[:N]}
    rows = []
    for m in range(MODELS):
        profile = sim.SimProfile(accuracy={t: 0.3 + 0.06 * m for t in problems},
                                 completion_tokens={t: 200 for t in problems})
        for task, ps in problems.items():
            for p in ps:
                for run in range(RUNS):
                    out = sim.simulate(profile, model=f"m{m}", seed=0, task=task,
                                       problem_id=p.problem_id, target=p.target,
                                       n_choices=0, method="vanilla", run=run, call=0, prompt_chars=400)
                    rows.append((task, p.problem_id, f"m{m}", "vanilla", run, 0, "ok",
                                 out["text"], out["prompt_tokens"],
                                 out["completion_tokens"], 0, True))
    cols = ["task", "problem_id", "model", "method", "run", "call", "status", "response", "prompt_tokens",
            "completion_tokens", "reasoning_tokens", "simulated"]
    return pd.DataFrame(rows, columns=cols), problems


def per_row(calls: pd.DataFrame, problems: dict) -> list[bool]:
    lookup = {(p.task, p.problem_id): p for ps in problems.values() for p in ps}
    out = []
    for row in calls.itertuples(index=False):
        p, metric = lookup[(row.task, row.problem_id)], get_task(row.task).metric
        out.append(math_equal(p.target, as_number(extract_answer(row.response, metric, "strict"))))
    return out


def vote_success(answers: list[str], correct: list[bool], subset: tuple[int, ...]) -> float:
    """One subset's vote, counted one run at a time: the largest group wins, ties split (0-1)."""
    counts, ok = {}, {}
    for i in subset:
        counts[answers[i]] = counts.get(answers[i], 0) + 1
        ok[answers[i]] = ok.get(answers[i], False) or correct[i]
    winners = [a for a, c in counts.items() if c == max(counts.values())]
    return sum(ok[a] for a in winners) / len(winners)


def votes_per_problem(vanilla: pd.DataFrame, k: int) -> list[float]:
    from helpers.grade.answers import canonical_answer

    rates = []
    for (task, _, _), g in vanilla.groupby(["task", "problem_id", "model"], sort=True):
        answers = [canonical_answer.__wrapped__(a if isinstance(a, str) else None, get_task(task).metric,
                                                10) for a in g["extracted"]]
        correct = [bool(c) for c in g["correct"]]
        rates.append(float(np.mean([vote_success(answers, correct, s)
                                    for s in itertools.combinations(range(len(g)), k)])))
    return rates


def timed(fn):
    """(fn(), seconds), each side starting from cold caches."""
    from helpers.core.methods.vote_math import vote_probability
    from helpers.grade.answers import canonical_answer, parse_math

    for cached in (parse_math, canonical_answer, vote_probability):
        cached.cache_clear()
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


if __name__ == "__main__":
    calls, problems = records()
    print(f"{len(calls):,} simulated calls ({MODELS} models x 2 tasks x {N} problems x {RUNS} runs)")
    naive, t_naive = timed(lambda: per_row(calls, problems))
    graded, t_graded = timed(lambda: grade_calls(calls, problems))
    assert graded["correct"].astype(bool).tolist() == naive, "memoised grading disagrees with per-row grading"
    attempts, t_attempts = timed(lambda: attempts_from_calls(graded))
    vanilla = attempts.assign(usd=1e-4)
    slow, t_slow = timed(lambda: votes_per_problem(vanilla, 3))
    fast, t_fast = timed(lambda: majority_vote_estimates(vanilla, 3))
    assert np.allclose(fast["pass_rate"].to_numpy(), slow), "closed-form votes disagree with enumeration"
    print(f"grading, per row (extract + math-verify each call)    {t_naive:7.2f} s")
    print(f"grading, grade_calls (memoised)                       {t_graded:7.2f} s   "
          f"x{t_naive / t_graded:6.1f} faster")
    print(f"attempts_from_calls                                   {t_attempts:7.2f} s")
    print(f"majority vote k=3, enumerated per problem             {t_slow:7.2f} s")
    print(f"majority vote k=3, majority_vote_estimates (closed)   {t_fast:7.2f} s   x{t_slow / t_fast:6.1f} faster")
    print("both sides agree")
