"""How the project's grade of imported responses agrees with the source's own correctness label."""

from __future__ import annotations

import pandas as pd


def grader_agreement(calls: pd.DataFrame) -> pd.DataFrame:
    """Per task and model, over graded calls that carry a source label (``source_correct``): responses compared,
    the source's and the project's accuracy (%), agreement (%), and the responses only the project passes
    (``project_only``) or only the source passes (``source_only``). Empty when no call has a source label."""
    cols = ["task", "model", "responses", "source_pct", "project_pct", "agree_pct", "project_only", "source_only"]
    if "source_correct" not in calls:
        return pd.DataFrame(columns=cols)
    d = calls[calls["source_correct"].notna() & calls["correct"].notna()]
    if d.empty:
        return pd.DataFrame(columns=cols)
    ours, theirs = d["correct"].astype(bool), d["source_correct"].astype(bool)
    frame = pd.DataFrame({"task": d["task"].astype(str), "model": d["model"].astype(str), "ours": ours,
                          "theirs": theirs, "agree": ours == theirs, "project_only": ours & ~theirs,
                          "source_only": ~ours & theirs})
    g = frame.groupby(["task", "model"], sort=False)
    out = pd.DataFrame({"responses": g.size(), "source_pct": 100 * g["theirs"].mean(), "project_pct": 100 * g["ours"].mean(),
                        "agree_pct": 100 * g["agree"].mean(), "project_only": g["project_only"].sum(),
                        "source_only": g["source_only"].sum()}).reset_index()
    return out[cols]
