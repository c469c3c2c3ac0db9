"""How the project's grade of imported responses agrees with the source's own correctness label."""

from __future__ import annotations

import pandas as pd


def grader_agreement(calls: pd.DataFrame) -> pd.DataFrame:
    """Per task, model and method, over graded calls that carry a source label (``source_correct``): responses compared,
    the source's and the project's accuracy (%), agreement (%), and the responses only the project passes
    (``project_only``) or only the source passes (``source_only``), and the programs whose verdict was decided near the
    CPU limit (``near_limit``: used at least ``sandbox.NEAR_LIMIT`` of it, from ``grade_cpu_s``; 0 without it) and of
    them those that passed (``near_limit_passed``). Empty when no call has a source label."""
    from helpers.grade.sandbox import near_limit

    cols = ["task", "model", "method", "responses", "source_pct", "project_pct", "agree_pct",
            "project_only", "source_only",
            "near_limit", "near_limit_passed"]
    if "source_correct" not in calls:
        return pd.DataFrame(columns=cols)
    d = calls[calls["source_correct"].notna() & calls["correct"].notna()]
    if d.empty:
        return pd.DataFrame(columns=cols)
    ours, theirs = d["correct"].astype(bool), d["source_correct"].astype(bool)
    cpu = d["grade_cpu_s"].astype("Float64").fillna(0.0) if "grade_cpu_s" in d else pd.Series(0.0, index=d.index)
    near = cpu.map(near_limit).astype(bool)
    frame = pd.DataFrame({"task": d["task"].astype(str), "model": d["model"].astype(str),
                          "method": d["method"].astype(str) if "method" in d else "vanilla", "ours": ours,
                          "theirs": theirs, "agree": ours == theirs, "project_only": ours & ~theirs,
                          "source_only": ~ours & theirs, "near": near, "near_passed": near & ours})
    g = frame.groupby(["task", "model", "method"], sort=False)
    out = pd.DataFrame({"responses": g.size(), "source_pct": 100 * g["theirs"].mean(),
                        "project_pct": 100 * g["ours"].mean(),
                        "agree_pct": 100 * g["agree"].mean(), "project_only": g["project_only"].sum(),
                        "source_only": g["source_only"].sum(), "near_limit": g["near"].sum(),
                        "near_limit_passed": g["near_passed"].sum()}).reset_index()
    return out[cols]


def disagreements(calls: pd.DataFrame) -> pd.DataFrame:
    """Every graded call whose grade differs from the source's label: task, model, method, problem, run, the
    source's label, the project's grade and why the project's grader decided so (``grade_reason`` of code tasks:
    the test that failed, a time-out, an import error …; else the extracted answer)."""
    cols = ["task", "model", "method", "problem_id", "run", "source", "project", "reason"]
    if "source_correct" not in calls:
        return pd.DataFrame(columns=cols)
    d = calls[calls["source_correct"].notna() & calls["correct"].notna()]
    d = d[d["correct"].astype(bool) != d["source_correct"].astype(bool)]
    reason = d["grade_reason"] if "grade_reason" in d else d["extracted"]
    out = pd.DataFrame({"task": d["task"].astype(str), "model": d["model"].astype(str),
                        "method": d["method"].astype(str),
                        "problem_id": d["problem_id"].astype(str), "run": d["run"].astype(int),
                        "source": d["source_correct"].map({True: "pass", False: "fail"}),
                        "project": d["correct"].map({True: "pass", False: "fail"}),
                        "reason": reason.fillna("passed every hidden test" if "grade_reason" in d else "").astype(str)})
    return out.sort_values(["task", "model", "method", "problem_id", "run"]).reset_index(drop=True)[cols]
