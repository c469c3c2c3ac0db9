"""Which published numbers are levels — a cost, a price, a fee, an accuracy, a share — and a check that none is
negative. Differences (a gain, a change of cost, an optimism, a bias) may be negative and are not listed.

A level below 0 on a page is a bug or an estimator that left its range (a bias-corrected cost of −0.0339 USD was
once printed); ``negative_levels`` names each such cell so that a test over every set's tables can fail on it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from helpers.analyze.statistic import POLICY_KINDS
from helpers.core.errors import CostOfPassError

# table (CSV stem) -> its level columns, on every row
LEVEL_COLUMNS: dict[str, tuple[str, ...]] = {
    "table1_intervals": ("value", "range_low", "range_high"),  # the paper's value and the range (no interval)
    "table5_6_intervals": ("value", "low", "high"),  # accuracy (0-1) and cost per attempt (USD)
    "cost_accuracy": ("value", "low", "high"),
    "precision_runs": ("value", "width_pct", "problems_pct", "runs_pct"),
    "expert_fee_curve": ("fee_usd", "value"),
    "figure2_frontier_over_time": ("frontier_usd", "expert_only_usd", "normalized_pct"),
    "holdout_frontier": ("in_sample_usd", "held_out_usd"),
    "policy_cost": ("policy_usd", "policy_low", "policy_high", "records_usd", "expert_usd", "paper_usd",
                    "paper_records_usd", "paper_expert_usd"),
    "price_change": ("start_usd", "end_usd"),
    "price_change_split": ("start_usd", "end_usd"),
    "routing_frontier": ("budget_usd", "value", "low", "high"),
    "validity_routing": ("budget_usd", "truth"),
    "findings": ("frontier of all models (USD)", "the paper's frontier (USD)", "each model alone (USD)",
                 "cheapest single model (USD)"),
}
# table -> its level columns on the rows whose ``statistic`` is a level (its kind's ``level``: Table 1, the frontier, a
# release's frontier, an agent strategy alone)
LEVEL_ROWS: dict[str, tuple[str, ...]] = {
    "headline_truth": ("value", "low", "high", "truth", "range_low", "range_high"),
    "model_based_sensitivity": ("value", "low", "high"),
    "policy_truth": ("value", "low", "high", "truth", "records_usd", "expert_usd"),
}
TOLERANCE = 1e-12  # sums of parts that cancel leave rounding noise below 0


_NUMBER = r"([-−]?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?)"
_LEAD = re.compile(rf"\$?{_NUMBER}")  # a cell's leading number
_INTERVAL = re.compile(rf"{_NUMBER}\s*(?:;\s*range\s*)?\[{_NUMBER},\s*{_NUMBER}\]")  # value [low, high]


def stated_numbers(text: str) -> list[float]:
    """The numbers a formatted cell states as levels: its leading number and every ``value [low, high]`` in it
    (``findings.csv``'s cells: "0.00231 [0.0014, 0.053] with up to 8 tries; …"); never a number inside a name
    ("Llama-3.1-405B", "aime24-89")."""
    text = str(text)
    lead, intervals = _LEAD.match(text), list(_INTERVAL.finditer(text))
    found = [lead.group(1)] if lead and not (intervals and intervals[0].start(1) == lead.start(1)) else []
    found += [x for m in intervals for x in m.groups()]
    return [float(x.replace("−", "-").replace(",", "")) for x in found]


def _negative(frame: pd.DataFrame, columns: tuple[str, ...], table: str) -> list[str]:
    out = []
    for column in columns:
        if column not in frame:
            continue
        values = pd.to_numeric(frame[column], errors="coerce")
        for i in frame.index:
            found = [values[i]] if pd.notna(values[i]) else stated_numbers(frame.at[i, column])  # a formatted cell
            out += [f"{table}.csv row {i}: {column} = {v:.6g}" for v in found if v < -TOLERANCE]
    return out


def negative_levels(tables: Path) -> list[str]:
    """Every level cell below 0 in the CSVs of ``tables`` (``results/<set>/tables/``): "table.csv row i: column = v"."""
    found: list[str] = []
    for table, columns in LEVEL_COLUMNS.items():
        if (tables / f"{table}.csv").is_file():
            found += _negative(pd.read_csv(tables / f"{table}.csv"), columns, table)
    for table, columns in LEVEL_ROWS.items():
        if (tables / f"{table}.csv").is_file():
            frame = pd.read_csv(tables / f"{table}.csv")
            found += _negative(frame[_is_level(frame, table)], columns, table)
    return found


def _is_level(frame: pd.DataFrame, table: str) -> list[bool]:
    """Per row of a table of statistics: whether its kind (its ``kind`` column) is a level; an unknown kind is not.
    One line where the table is older than that column."""
    if "kind" not in frame:
        raise CostOfPassError(f"{table}.csv has no 'kind' column (written by an older version of the pipeline): "
                              "run the set's analysis again")
    return [POLICY_KINDS[k].level if k in POLICY_KINDS else False for k in frame["kind"].astype(str)]
