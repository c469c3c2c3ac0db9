"""Suspect items: problems whose pattern of answers fits a wrong reference answer better than a hard problem.

A wrong reference answer leaves two traces in the records (GSM8K and MATH-500 have known label errors): the
models' answers agree with each other but not with the reference (they give the true answer, which is graded
wrong), or the strong models fail the problem every time while weaker ones pass now and then (a wrong answer that
happens to equal the reference). Neither proves a label wrong — models share misconceptions, and a multiple-choice
guess passes by chance — so the table is a list to look at, with the agreed answer beside the reference.
"""

from __future__ import annotations

import pandas as pd

from helpers.grade.answers import NO_ANSWER

AGREE_SHARE = 0.5  # the agreed wrong answer is at least this share of all answered vanilla runs ...
AGREE_MODELS = 0.5  # ... given by at least this share of the models (and at least two)
COLUMNS = ["task", "problem_id", "reference", "agreed_answer", "agreed_pct", "agreeing_models", "models",
           "strong_pass_pct", "weak_pass_pct", "why"]


def suspect_items(attempts: pd.DataFrame, references: dict[tuple[str, str], str]) -> pd.DataFrame:
    """One row per suspect problem (``COLUMNS``), most agreed first: from the graded vanilla ``attempts`` (task,
    problem_id, model, method, complete, correct, answer_key) and each problem's reference answer (``references``:
    (task, problem_id) -> text). Strong models: the better half by the dataset's accuracy.

    ``why``: "models agree on another answer" (the most common wrong answer is ≥ ``AGREE_SHARE`` of the answered
    runs, given by ≥ ``AGREE_MODELS`` of the models, and at least twice as common as the reference) and/or "strong models fail, weak ones pass" (the strong half
    passed none of its runs, the weak half at least one)."""
    runs = attempts[(attempts["method"] == "vanilla") & attempts["complete"]]
    if runs.empty:
        return pd.DataFrame(columns=COLUMNS)
    rows = []
    for task, here in runs.groupby("task", sort=False):
        accuracy = here.groupby("model")["correct"].mean().sort_values(ascending=False)
        strong = set(accuracy.index[: len(accuracy) // 2])
        for pid, p in here.groupby("problem_id", sort=False):
            answered = p[p["answer_key"].notna() & (p["answer_key"] != NO_ANSWER)]
            wrong = answered[~answered["correct"].astype(bool)]
            counts = wrong.groupby("answer_key")["model"].agg(["size", "nunique"]).sort_values("size", ascending=False)
            agreed = counts.index[0] if len(counts) else None
            n_models = p["model"].nunique()
            share = counts["size"].iloc[0] / len(answered) if len(counts) else 0.0
            agreeing = int(counts["nunique"].iloc[0]) if len(counts) else 0
            is_strong = p["model"].isin(strong)
            strong_pass, weak_pass = p.loc[is_strong, "correct"].mean(), p.loc[~is_strong, "correct"].mean()
            why = []
            right = int(answered["correct"].astype(bool).sum())
            if share >= AGREE_SHARE and agreeing >= max(2, AGREE_MODELS * n_models) and right < 0.5 * counts["size"].iloc[0]:
                why.append("models agree on another answer")
            if len(strong) >= 2 and is_strong.any() and strong_pass == 0 and weak_pass > 0:
                why.append("strong models fail, weak ones pass")
            if why:
                rows.append({"task": task, "problem_id": pid, "reference": references.get((task, pid), ""),
                             "agreed_answer": agreed, "agreed_pct": 100 * share, "agreeing_models": agreeing,
                             "models": n_models, "strong_pass_pct": 100 * strong_pass, "weak_pass_pct": 100 * weak_pass,
                             "why": "; ".join(why)})
    out = pd.DataFrame(rows, columns=COLUMNS)
    return out.sort_values(["task", "agreed_pct"], ascending=[True, False], kind="stable").reset_index(drop=True)
