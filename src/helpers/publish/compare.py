"""Side-by-side comparisons with the paper's published tables (report/paper_tables/)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from helpers.core.numbers import sig
from helpers.core.paths import repo_root

PAPER_TABLES = {
    "table1": "paper_table1_frontier_cop_single_model.csv",
    "table2": "paper_table2_technique_gain_pct.csv",
    "table5": "paper_table5_accuracy_pct.csv",
    "table6": "paper_table6_cost_usd.csv",
}

PAPER_HALVING_MONTHS = {"math500": 2.6, "aime24": 7.1}  # the paper's halving times of Eq. 11 (its Figure 2 text)


def paper_table(name: str, folder: Path | None = None) -> pd.DataFrame:
    """A published table of the paper, as printed."""
    return pd.read_csv((folder or repo_root() / "report" / "paper_tables") / PAPER_TABLES[name])


def family_order(table1: pd.DataFrame, tasks: list[str]) -> pd.Series:
    """Per task, families ordered by their best (lowest) frontier cost-of-pass: 'large < lightweight < reasoning'."""
    out = {}
    for t in tasks:
        if t not in table1:
            continue
        best = table1.groupby("family")[t].min().sort_values(kind="stable")
        out[t] = " < ".join(best.index)
    return pd.Series(out, name="family order (best first)")


def family_order_comparison(ours: pd.DataFrame, paper: pd.DataFrame, tasks: list[str]) -> pd.DataFrame:
    """Family ordering per task in our Table 1 and the paper's, and whether the best family agrees."""
    shared = [t for t in tasks if t in paper.columns]
    a, b = family_order(ours, shared), family_order(paper, shared)
    df = pd.DataFrame({"ours": a, "paper": b}).dropna()
    if df.empty:
        return pd.DataFrame(columns=["task", "ours", "paper", "same best family", "same order"])
    df["same best family"] = [x.split(" < ")[0] == y.split(" < ")[0] for x, y in zip(df.ours, df.paper)]
    df["same order"] = df.ours == df.paper
    return df.rename_axis("task").reset_index()


def sign(x: float, tol: float = 0.05) -> str:
    """'+', '0' or '−' for a gain in percent (|x| <= tol counts as 0)."""
    if not np.isfinite(x):
        return "?"
    return "0" if abs(x) <= tol else ("+" if x > 0 else "−")


def technique_sign_comparison(ours: pd.DataFrame, paper: pd.DataFrame, tasks: list[str],
                              intervals: pd.DataFrame | None = None) -> pd.DataFrame:
    """Sign of each technique's gain per task, ours vs the paper's (published Table 2). With ``intervals`` (the
    ``table2_intervals`` rows: technique, task, estimator, range_ci_low, range_ci_high, in %), a gain whose band of
    the range the records allow reaches 0 has no sign here ("not shown: the records allow 0") and its comparison says
    "not shown" rather than "yes": the plug-in gain is never negative, so its sign alone agrees with any paper."""
    o = ours.set_index("technique")
    p = paper.set_index("technique")
    band = {} if intervals is None else {
        (r.technique, r.task): (r.range_ci_low, r.range_ci_high)
        for r in intervals[intervals["estimator"] == "plug-in"].itertuples(index=False)}
    rows = []
    for tech in o.index:
        if tech not in p.index:
            continue
        for t in tasks:
            if t in o and t in p:
                low, high = band.get((tech, t), (np.nan, np.nan))
                undecided = np.isfinite(low) and np.isfinite(high) and low <= 0 <= high
                ours_sign = "not shown: the records allow 0" if undecided else sign(o.loc[tech, t])
                rows.append({"technique": tech, "task": t, "ours_pct": o.loc[tech, t], "paper_pct": p.loc[tech, t],
                             "ours_sign": ours_sign, "paper_sign": sign(p.loc[tech, t])})
    df = pd.DataFrame(rows)
    if not df.empty:
        df["same sign"] = np.where(df["ours_sign"].str.startswith("not shown"), "not shown", np.where(
            df["ours_sign"] == df["paper_sign"], "yes", "no"))
    return df


def paper_model(label: str) -> str:
    """The paper's name of a model: a simulated twin's label without its ' (sim)'."""
    return label.removesuffix(" (sim)")


def beside_paper(ours: pd.DataFrame, paper: pd.DataFrame, tasks: list[str], task_labels: dict[str, str],
                 fmt=sig) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A table of the set (rows ``model``, a column per task) beside the paper's published one, over the models
    both have (matched by ``paper_model``).

    Returns (summary: per dataset the models compared, Spearman's rank correlation of the two columns and the
    model whose value differs most by ratio; wide: per model and dataset ``ours / paper``). Both empty when no
    model or dataset is shared."""
    from scipy import stats

    o = ours.assign(model=ours["model"].map(paper_model)).set_index("model")
    p = paper.set_index("model")
    models = [m for m in o.index if m in p.index]
    shared = [t for t in tasks if t in o.columns and t in p.columns]
    if not models or not shared:
        return pd.DataFrame(), pd.DataFrame()
    summary, wide = [], pd.DataFrame({"model": models})
    for t in shared:
        x, y = o.loc[models, t].astype(float), p.loc[models, t].astype(float)
        ok = np.isfinite(x) & np.isfinite(y)
        rho = stats.spearmanr(x[ok], y[ok]).statistic if ok.sum() >= 3 else np.nan
        with np.errstate(divide="ignore", invalid="ignore"):
            gap = np.abs(np.log(x / y)).where(ok & (x > 0) & (y > 0))
        top = gap.idxmax() if gap.notna().any() else None
        summary.append({"dataset": task_labels.get(t, t), "models": int(ok.sum()),
                        "Spearman ρ": "–" if not np.isfinite(rho) else f"{rho:.2f}",
                        "largest difference": "–" if top is None else
                        f"{top}: {fmt(x[top])} vs {fmt(y[top])} (×{sig(float(np.exp(gap[top])))})"})
        wide[task_labels.get(t, t)] = [f"{fmt(a)} / {fmt(b)}" for a, b in zip(x, y)]
    return pd.DataFrame(summary), wide
