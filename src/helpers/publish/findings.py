"""Findings at a glance: the report's answer to the paper's Figure 1, one row per dataset, every cell computed
from the set's own numbers with its 95% interval (``intervals.SetStatistics`` rows and the halving-time fits).
"""

from __future__ import annotations

import pandas as pd

from helpers.publish.compare import PAPER_HALVING_MONTHS
from helpers.publish.tables import fmt_pct, fmt_usd

COLUMNS = ["dataset", "frontier of all models (USD)", "cheapest single model (USD)", "most essential family (%)",
           "best technique (gain %)", "halving time (months)"]


def _cell(value: float, low: float, high: float, fmt) -> str:
    return f"{fmt(value)} [{fmt(low)}, {fmt(high)}]"


def findings(stats: pd.DataFrame, halving: pd.DataFrame | None, tasks: list[str], task_labels: dict[str, str],
             model_labels: dict[str, str], families: dict[str, str], estimator: str = "model-based") -> pd.DataFrame:
    """One row per dataset of ``tasks`` (in that order): the frontier of all models, the cheapest model alone with
    the human expert (Table 1), the family whose removal costs the frontier most (Figure 3), the technique with
    the largest gain (Table 2; "none measurable" when every interval reaches 0) and the frontier's halving time
    (Eq. 11, beside the paper's where it published one; "unreliable" as ``trends`` flags it).

    ``stats``: ``SetStatistics.frame`` rows (statistic, task, estimator, value, low, high); ``halving``: the
    ``figure2_halving_times`` table (task label, estimator, halving_months, halving_low, halving_high,
    reliable), or None."""
    mine = stats[stats["estimator"] == estimator]
    rows = []
    for task in tasks:
        here = mine[mine["task"] == task]
        kind, name = here["statistic"].str.split(":", n=1).str[0], here["statistic"].str.split(":", n=1).str[1]

        def best(prefix: str, lowest: bool):
            part = here[kind == prefix].assign(name=name[kind == prefix])
            return None if part.empty else part.loc[part["value"].idxmin() if lowest else part["value"].idxmax()]

        row = {"dataset": task_labels.get(task, task)}
        front = best("frontier", True)
        row[COLUMNS[1]] = "–" if front is None else _cell(front["value"], front["low"], front["high"], fmt_usd)
        single = best("table1", True)
        row[COLUMNS[2]] = "–" if single is None else (
            f"{model_labels.get(single['name'], single['name'])} ({families.get(single['name'], '?')}): "
            + _cell(single["value"], single["low"], single["high"], fmt_usd))
        fam = best("family", False)
        row[COLUMNS[3]] = "–" if fam is None else f"{fam['name']}: " + _cell(
            100 * fam["value"], 100 * fam["low"], 100 * fam["high"], fmt_pct)
        tech = best("technique gain", False)
        if tech is None:
            row[COLUMNS[4]] = "–"
        elif tech["low"] <= 0:
            row[COLUMNS[4]] = "none measurable (every interval reaches 0)"
        else:
            row[COLUMNS[4]] = f"{tech['name']}: " + _cell(100 * tech["value"], 100 * tech["low"], 100 * tech["high"], fmt_pct)
        row[COLUMNS[5]] = _halving(halving, task_labels.get(task, task), estimator, PAPER_HALVING_MONTHS.get(task))
        rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS)


def _halving(halving: pd.DataFrame | None, label: str, estimator: str, paper: float | None) -> str:
    """The halving-time cell of a dataset: estimate [interval], or 'unreliable', with the paper's beside it."""
    beside = f" (paper: {paper:g})" if paper is not None else ""
    if halving is None:
        return "–" + beside
    fit = halving[(halving["task"] == label) & (halving["estimator"] == estimator)]
    if fit.empty or not pd.notna(fit["halving_months"].iloc[0]):
        return "no fit" + beside
    f = fit.iloc[0]
    text = _cell(f["halving_months"], f["halving_low"], f["halving_high"], fmt_pct)
    return (text if bool(f["reliable"]) else f"unreliable ({text})") + beside


def _name(cell: str) -> str:
    """What a findings cell names, without its numbers: 'lightweight: 93.4 [..]' -> 'lightweight'."""
    return cell.split(":")[0].split(" [")[0].strip()


def in_sentences(glance: pd.DataFrame, categories: dict[str, str]) -> str:
    """The findings table as one short paragraph per category (``categories``: dataset label -> category, in the
    table's order), each sentence made from the table's cells: what is common to the category's datasets is said
    once, what differs is said per dataset."""
    paragraphs = []
    for category in dict.fromkeys(categories[d] for d in glance["dataset"]):
        rows = glance[glance["dataset"].map(categories) == category]
        names = list(rows["dataset"])
        every = "both" if len(names) == 2 else f"all {len(names)}" if len(names) > 2 else names[0]

        def said(column: str, what: str, by_name: bool = True) -> str:
            cells = list(rows[column])
            if by_name and len({_name(c) for c in cells}) == 1:
                return f"{what}: {_name(cells[0])} on {every}"
            return f"{what}: " + "; ".join(f"{c} on {d}" for d, c in zip(names, cells))

        sentences = [said(COLUMNS[1], "frontier of all models (USD per problem)", by_name=False),
                     said(COLUMNS[2], "cheapest single model"), said(COLUMNS[3], "most essential family"),
                     said(COLUMNS[4], "best technique"), said(COLUMNS[5], "halving time (months)", by_name=False)]
        paragraphs.append(f"**{category.capitalize()}** ({', '.join(names)}) — " + ". ".join(
            s[0].upper() + s[1:] for s in sentences) + ".")
    return "\n\n".join(paragraphs)
