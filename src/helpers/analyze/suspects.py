"""Suspect items: problems whose pattern of answers fits a wrong reference answer better than a hard problem.

A wrong reference answer leaves two traces in the records (GSM8K and MATH-500 have known label errors): the
models' answers agree with each other but not with the reference (they give the true answer, which is graded
wrong), or the strong models fail the problem every time while weaker ones pass now and then (a wrong answer that
happens to equal the reference). Neither proves a label wrong — models share misconceptions, and a multiple-choice
guess passes by chance — so the table is a list to look at, with the agreed answer beside the reference.
"""

from __future__ import annotations

import numpy as np
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
    runs, given by ≥ ``AGREE_MODELS`` of the models, and at least twice as common as the reference) and/or "strong
    models fail, weak ones pass" (the strong half passed none of its runs, the weak half at least one)."""
    runs = attempts[(attempts["method"] == "vanilla") & attempts["complete"]]
    if runs.empty:
        return pd.DataFrame(columns=COLUMNS)
    per = _per_problem(runs)
    agree = ((per["share"] >= AGREE_SHARE) & (per["agreeing"] >= np.maximum(2, AGREE_MODELS * per["models"]))
             & (per["right"] < 0.5 * per["top"]))
    split = (per["strong_models"] >= 2) & per["has_strong"] & (per["strong_pass"] == 0) & (per["weak_pass"] > 0)
    why = np.where(agree & split, "models agree on another answer; strong models fail, weak ones pass",
                   np.where(agree, "models agree on another answer", "strong models fail, weak ones pass"))
    hit = per[agree | split].assign(why=why[(agree | split).to_numpy()])
    out = pd.DataFrame({
        "task": hit["task"], "problem_id": hit["problem_id"],
        "reference": [references.get(k, "") for k in zip(hit["task"], hit["problem_id"])],
        "agreed_answer": hit["agreed"], "agreed_pct": 100 * hit["share"], "agreeing_models": hit["agreeing"],
        "models": hit["models"], "strong_pass_pct": 100 * hit["strong_pass"], "weak_pass_pct": 100 * hit["weak_pass"],
        "why": hit["why"]}, columns=COLUMNS)
    return out.sort_values(["task", "agreed_pct"], ascending=[True, False], kind="stable").reset_index(drop=True)


def _per_problem(runs: pd.DataFrame) -> pd.DataFrame:
    """Per (task, problem) in first-seen order: answered runs, right ones, the most common wrong answer (``agreed``;
    ties: the first by answer) with its runs (``top``), share of the answered and models giving it, models, and the
    pass rates (0-1) of the dataset's strong half (by accuracy) and weak half of the models."""
    keys = ["task", "problem_id"]
    runs = runs.assign(correct=runs["correct"].astype(bool), task=runs["task"].astype(str),
                       problem_id=runs["problem_id"].astype(str), model=runs["model"].astype(str))
    accuracy = runs.groupby(["task", "model"], sort=False)["correct"].mean().reset_index()
    accuracy["rank"] = accuracy.sort_values("correct", ascending=False, kind="stable").groupby("task").cumcount()
    accuracy["strong"] = accuracy["rank"] < accuracy.groupby("task")["model"].transform("size") // 2
    runs = runs.merge(accuracy[["task", "model", "strong"]], on=["task", "model"], how="left")
    answered = runs["answer_key"].notna() & (runs["answer_key"] != NO_ANSWER)
    wrong = runs[answered & ~runs["correct"]]
    counts = wrong.groupby([*keys, "answer_key"], sort=True)["model"].agg(["size", "nunique"]).reset_index()
    top = counts.sort_values("size", ascending=False, kind="stable").drop_duplicates(keys)
    by = [runs[k] for k in keys]
    per = pd.DataFrame({"models": runs["model"].groupby(by, sort=False).nunique(),
                        "answered": answered.groupby(by, sort=False).sum(),
                        "right": (answered & runs["correct"]).groupby(by, sort=False).sum(),
                        "strong_pass": runs["correct"].where(runs["strong"]).groupby(by, sort=False).mean(),
                        "weak_pass": runs["correct"].where(~runs["strong"]).groupby(by, sort=False).mean(),
                        "has_strong": runs["strong"].groupby(by, sort=False).any()}).reset_index()
    per = per.merge(top.rename(columns={"answer_key": "agreed", "size": "top",
                                        "nunique": "agreeing"}), on=keys, how="left")
    per["top"] = per["top"].fillna(0).astype(int)
    per["agreeing"] = per["agreeing"].fillna(0).astype(int)
    per["share"] = np.where(per["top"] > 0, per["top"] / per["answered"].where(per["answered"] > 0, 1), 0.0)
    per["strong_models"] = per["task"].map(accuracy.groupby("task")["strong"].sum())
    return per


DOUBT_COLUMNS = ["task", "problem_id", "why"]


def doubtful_problems(suspects: pd.DataFrame | None, calls: pd.DataFrame | None) -> pd.DataFrame:
    """(``DOUBT_COLUMNS``) each problem whose verdicts are in doubt, with why (several reasons joined by "; "): a
    suspect item (``suspect_items``' rows: task, problem_id, why), a solution graded wrong because the grader's sandbox
    lacks a module it imports (graded ``calls``' ``grade_reason``), or a program near the CPU limit
    (``grade_cpu_s``, ``sandbox.near_limit``: another machine may judge it otherwise). Either input may be None."""
    from helpers.grade.sandbox import near_limit
    from helpers.grade.stage import MISSING_MODULE

    found = []
    if suspects is not None and len(suspects):
        found.append(suspects[["task", "problem_id"]].assign(why="suspect item: " + suspects["why"].astype(str)))
    if calls is not None and len(calls) and "grade_reason" in calls:
        module = calls["grade_reason"].astype("string").str.extract(MISSING_MODULE)[0]
        hit = calls[module.notna()]
        found.append(hit[["task", "problem_id"]].assign(why="the grader's sandbox lacks " + module[module.notna()]))
        if "grade_cpu_s" in calls:
            near = calls["grade_cpu_s"].astype("Float64").fillna(0.0).map(near_limit).astype(bool)
            found.append(calls.loc[near, ["task", "problem_id"]].assign(why="a program near the CPU limit"))
    if not found:
        return pd.DataFrame(columns=DOUBT_COLUMNS)
    d = pd.concat(found, ignore_index=True).astype(str).drop_duplicates()
    return d.groupby(["task", "problem_id"], sort=False)["why"].agg("; ".join).reset_index()[DOUBT_COLUMNS]
