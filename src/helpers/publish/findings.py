"""Findings at a glance: the report's answer to the paper's Figure 1, one row per dataset, every cell computed
from the set's own numbers with its 95% interval (``intervals.SetStatistics`` rows and the halving-time fits).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from helpers.publish import names
from helpers.publish.compare import PAPER_HALVING_MONTHS
from helpers.publish.tables import fmt_pct, fmt_usd, never_passed

COLUMNS = ["dataset", "frontier of all models (USD)", "cheapest single model (USD)", "most essential family (%)",
           "best technique (gain %)", "halving time (months)"]


def _cell(value: float, low: float, high: float, fmt) -> str:
    return f"{fmt(value)} [{fmt(low)}, {fmt(high)}]"


def _range(row, fmt, scale: float = 1.0) -> str:
    """"; range [lowest, highest]" where problems no strategy of the statistic passed leave room (else "")."""
    lo, hi = row.get("range_low", np.nan), row.get("range_high", np.nan)
    if not (np.isfinite(lo) and np.isfinite(hi)) or np.isclose(lo, hi, rtol=1e-9, atol=0):
        return ""
    return f"; range [{fmt(scale * lo)}, {fmt(scale * hi)}]"


def findings(stats: pd.DataFrame, halving: pd.DataFrame | None, tasks: list[str], task_labels: dict[str, str],
             model_labels: dict[str, str], families: dict[str, str], estimator: str = "plug-in",
             unpassed: dict[str, int] | None = None) -> pd.DataFrame:
    """One row per dataset of ``tasks`` (in that order), from the paper's plug-in estimator: the frontier of all
    models, the cheapest model alone with the human expert (Table 1), the family whose removal costs the frontier
    most (Figure 3), the technique with the largest gain (Table 2; "none measurable" when every interval reaches
    0) and the frontier's halving time (Eq. 11, beside the paper's where it published one; "unreliable" as
    ``trends`` flags it). Each number has its 95% interval and, where problems no strategy of it passed leave
    room, the range the records allow (``unseen``). No model is named cheapest that never passed a problem here
    ("never passed here"); a claim another model's or family's never-passed problems could overturn (its range
    reaches past the named one's value) is marked "not identified". Where more than half of the frontier's value is
    the expert's fee on problems no model passed (``unseen_pct``; ``unpassed``: their number per task), its cell says
    so in words, with the part the records decide, and gives no interval (``expert_cell``).

    ``stats``: ``SetStatistics.frame`` rows (statistic, task, estimator, value, low, high, range_low,
    range_high, unseen_pct); ``halving``: the ``figure2_halving_times`` table (task label, estimator,
    halving_months, halving_low, halving_high, reliable), or None."""
    mine = stats[stats["estimator"] == estimator]
    rows = []
    for task in tasks:
        here = mine[mine["task"] == task]
        kind, name = here["statistic"].str.split(":", n=1).str[0], here["statistic"].str.split(":", n=1).str[1]

        def part(prefix: str) -> pd.DataFrame:
            return here[kind == prefix].assign(name=name[kind == prefix])

        row = {"dataset": task_labels.get(task, task)}
        front = part("frontier")
        if front.empty:
            row[COLUMNS[1]] = "–"
        elif front.iloc[0].get("unseen_pct", 0) > 50:
            row[COLUMNS[1]] = expert_cell(front.iloc[0]["value"], front.iloc[0]["unseen_pct"],
                                          (unpassed or {}).get(task))
        else:
            row[COLUMNS[1]] = _cell(*front.iloc[0][["value", "low", "high"]], fmt_usd) + _range(front.iloc[0], fmt_usd)
        row[COLUMNS[2]] = _cheapest(part("table1"), model_labels, families)
        fams = part("family")
        if fams.empty:
            row[COLUMNS[3]] = "–"
        elif fams["value"].max() <= 0:
            row[COLUMNS[3]] = "none: no family lowers the frontier (never passed here)"
        else:
            fam = fams.loc[fams["value"].idxmax()]
            rivals = fams[fams["name"] != fam["name"]]
            open_ = rivals["range_high"].max() > fam["value"] if "range_high" in rivals and len(rivals) else False
            row[COLUMNS[3]] = (f"{fam['name']}: " + _cell(100 * fam["value"], 100 * fam["low"], 100 * fam["high"], fmt_pct)
                               + _range(fam, fmt_pct, 100.0) + (NOT_IDENTIFIED if open_ else ""))
        techs = part("technique gain")
        if techs.empty:
            row[COLUMNS[4]] = "–"
        else:
            tech = techs.loc[techs["value"].idxmax()]
            row[COLUMNS[4]] = ("none measurable (every interval reaches 0)" if tech["low"] <= 0 else f"{names.method(tech['name'])}: "
                               + _cell(100 * tech["value"], 100 * tech["low"], 100 * tech["high"], fmt_pct))
        row[COLUMNS[5]] = _halving(halving, task_labels.get(task, task), estimator, PAPER_HALVING_MONTHS.get(task))
        rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS)


NOT_IDENTIFIED = " (not identified)"  # another's never-passed problems allow a lower cost (a higher gain)
MOSTLY_FEE = "mostly the assumed expert fee"


def expert_cell(value: float, share_pct: float, problems: int | None) -> str:
    """A value that is more than half the expert's fee on problems no model passed, said in words: the value, the
    fee's share and the part the records decide; no interval, which would read as one for the truth (issue 35)."""
    on = f"on the {problems} problems no model passed" if problems is not None else "on problems no model passed"
    pct = ">99.9" if 99.95 <= share_pct < 100 else fmt_pct(share_pct)
    return (f"{fmt_usd(value)}: {MOSTLY_FEE} ({pct}% of it, {on}); the records decide "
            f"{fmt_usd(value * (1 - share_pct / 100))}")


def _cheapest(single: pd.DataFrame, model_labels: dict[str, str], families: dict[str, str]) -> str:
    """The cheapest-model cell: the lowest plug-in value among models that passed a problem here, "never passed
    here" when none did, "not identified" when another model's range reaches below it."""
    if single.empty:
        return "–"
    never_mask = single["unseen_pct"].map(never_passed) if "unseen_pct" in single else pd.Series(False, single.index)
    passed = single[~never_mask]
    if passed.empty:
        return "none: no model passed a problem here (never passed here; each costs the expert's price)"
    best = passed.loc[passed["value"].idxmin()]
    rivals = single[single["name"] != best["name"]]
    open_ = "range_low" in rivals and len(rivals) and rivals["range_low"].min() < best["value"]
    never = single[never_mask]["name"]
    tail = f"; never passed here: {', '.join(model_labels.get(m, m) for m in never)}" if len(never) else ""
    if best.get("unseen_pct", 0) > 50:  # the ranking is the fee's, on the problems each model never passed
        return (f"none decided by the records: {model_labels.get(best['name'], best['name'])} is lowest at "
                f"{fmt_usd(best['value'])}, {fmt_pct(best['unseen_pct'])}% of it the assumed expert fee on problems "
                "it never passed" + tail)
    return (f"{model_labels.get(best['name'], best['name'])} ({families.get(best['name'], '?')}): "
            + _cell(best["value"], best["low"], best["high"], fmt_usd) + _range(best, fmt_usd)
            + (NOT_IDENTIFIED if open_ else "") + tail)


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


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _by_name(glance: pd.DataFrame, column: str) -> str:
    """"a on X and Y; b on Z": the datasets grouped by the name their cell of ``column`` gives."""
    groups: dict[str, list[str]] = {}
    for dataset, cell in zip(glance["dataset"], glance[column]):
        if cell != "–":
            groups.setdefault(_name(cell), []).append(dataset)
    return "; ".join(f"{name} on {_listed(sets)}" for name, sets in groups.items())


def main_findings(glance: pd.DataFrame) -> list[str]:
    """The report's first screen: three sentences from the findings table (``findings``' cells), each naming
    datasets: the frontier's cheapest and dearest dataset, the most essential family, the best technique (the
    cheapest single model in a set without techniques)."""
    if glance.empty:
        return []
    frontier = glance[glance[COLUMNS[1]] != "–"]
    values = frontier[COLUMNS[1]].map(lambda c: float(re.match(r"[0-9.e+-]+", c).group()) if c[:1].isdigit() else np.nan)
    out = []
    if values.notna().any():
        lo, hi = values.idxmin(), values.idxmax()

        def stated(i, unit: str = "") -> str:  # "0.5 [0.4, 0.7] USD per problem on A", or the fee said in words
            cell, dataset = frontier.at[i, COLUMNS[1]], frontier.at[i, "dataset"]
            if MOSTLY_FEE in cell:
                number, words = cell.split(": ", 1)
                return f"{number}{unit} on {dataset} — {words} —"
            return f"{cell.split(';')[0]}{unit} on {dataset}"

        fee_only = all(MOSTLY_FEE in frontier.at[i, COLUMNS[1]] for i in {lo, hi})
        out.append(f"With every model and the human expert to choose from, a correct answer costs "
                   f"{stated(lo, ' USD per problem')}" + (f", up to {stated(hi)}" if hi != lo else "")
                   + (" (the frontier of all models)." if fee_only else " (the frontier of all models, 95% intervals)."))
        out[-1] = out[-1].replace(" — (", " (")
    if fams := _by_name(glance, COLUMNS[3]):
        out.append(f"The family the frontier could least do without: {fams}.")
    if techs := _by_name(glance, COLUMNS[4]):
        out.append(f"The inference-time technique with the largest gain: {techs.replace('none measurable (every interval reaches 0)', 'none measurable')}.")
    if len(out) < 3 and (cheapest := _by_name(glance, COLUMNS[2])):  # a set without techniques: its cheapest model
        out.append(f"The cheapest single model with the expert: {cheapest}.")
    return out[:3]
