"""Figures 2-5 under the report's headline, the cost with up to k tries, then the expert (``analyze.policy``;
issue 35): the frontier over releases with each release's gain, and the counterfactual frontiers without a family
or a model, each cross-fitted (chosen for each problem on the other problems, valued on its own runs) with the interval the
validity study checks. Frames for ``figures.interval_bars`` and the tables beside them; rows come from
``intervals.policy_statistics``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from helpers.analyze.estimates import Analysis
from helpers.analyze.statistic import items, kinds
from helpers.core.numbers import signed
from helpers.core.tasks import in_category_order
from helpers.publish import appearance
from helpers.publish.formats import GAIN_FLOOR_PCT, fee_pct, fmt_pct, fmt_usd, gain_interval


def policy_frame(an: Analysis, rows: pd.DataFrame, prefix: str, names: dict[str, str]) -> pd.DataFrame:
    """Rows (task label, item label, value, low, high in %, expert_share_pct) of the policy statistics
    ``<prefix>:<key>`` (gains 0-1 become %, Figure 2's levels are % already), items in the order of ``names``
    (key -> label), tasks by category as the paper orders them; empty where the set has none. A gain's low end is
    drawn from at most ``GAIN_FLOOR_PCT`` (its table gives it whole)."""
    mine = rows[kinds(rows["statistic"]) == prefix]
    mine = mine.assign(key=items(mine["statistic"]))
    mine = mine[mine["key"].isin(names)]
    scale = 1.0 if prefix == "release frontier" else 100.0
    order, task_order = {k: i for i, k in enumerate(names)}, {t: i for i, t in enumerate(in_category_order(an.tasks))}
    mine = mine.assign(o=mine["key"].map(order), t=mine["task"].map(task_order)).sort_values(["t", "o"])
    low = scale * mine["low"] if prefix == "release frontier" else np.maximum(scale * mine["low"], GAIN_FLOOR_PCT)
    return pd.DataFrame({"task": mine["task"].map(an.task_labels), "item": mine["key"].map(names),
                         "value": scale * mine["value"], "low": low, "high": scale * mine["high"],
                         "expert_share_pct": mine["expert_share_pct"]}).reset_index(drop=True)


def _interval_said(value: float, low: float, high: float, unit: str = "%", floor: float = GAIN_FLOOR_PCT) -> str:
    """"v [low, high]%"; a low end below ``floor`` (a gain's −100%: the records cannot rule out that the option
    doubles the cost) is said as "< floor", not as a long number that reads as a measurement."""
    if not np.isfinite(value):
        return "not identified"
    if value == low == high == 0 and unit == "%":  # the frontier's choice is the same with it and without it
        return "0 (never chosen: the frontier is the same without it)"
    if floor == GAIN_FLOOR_PCT:
        return gain_interval(value, low, high) + unit
    lo = f"< {fmt_pct(floor)}" if low < floor else fmt_pct(low)
    return f"{fmt_pct(value)} [{lo}, {fmt_pct(high)}]{unit}"


def _change_said(records: float, fee: float) -> str:
    """A gain's change of cost split into its parts (USD per problem): the attempts paid and the expert's fee."""
    if not (np.isfinite(records) and np.isfinite(fee)):
        return "–"
    return f"attempts {signed(records)}, expert fee {signed(fee)}"


def _numbers(an: Analysis, rows: pd.DataFrame, parts: dict[str, tuple[str, dict[str, str]]]) -> pd.DataFrame:
    """The long table of ``parts`` (prefix -> (what it is, names)): task, what, item, value, low, high, the records'
    and the fee's parts (USD per problem; their change for a gain), the fee's share (%), k, and ``shown``: a gain
    shown above 0 with the others of its kind on the dataset tested together (``policy.holm_shown``)."""
    out = []
    for prefix, (what, names) in parts.items():
        mine = rows[(kinds(rows["statistic"]) == prefix) & items(rows["statistic"]).isin(names)]
        out.append(mine.assign(what=what, item=items(mine["statistic"]).map(names)))
    if not any(len(x) for x in out):
        return pd.DataFrame(columns=["task", "what", "item", "value", "low", "high", "records_usd", "expert_usd",
                                     "expert_share_pct", "k", "shown"])
    d = pd.concat(out, ignore_index=True)
    d = d.assign(t=d["task"].map({t: i for i, t in enumerate(in_category_order(an.tasks))})).sort_values("t", kind="stable")
    return d[["task", "what", "item", "value", "low", "high", "records_usd", "expert_usd", "expert_share_pct",
              "k", "shown"]].reset_index(drop=True)


def releases(an: Analysis, rows: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Figures 2 and 4 under the policy: (the figure's frame of the frontier over releases in % of the expert alone,
    the table's numbers, the table in words: per dataset and release the frontier with its interval, its USD and
    the fee's share, and the release's gain with its interval)."""
    names = appearance.release_names(an)
    frame = policy_frame(an, rows, "release frontier", names)
    numbers = _numbers(an, rows, {"release frontier": ("frontier (% of the expert alone)", names),
                                  "release gain": ("gain of the release (0-1)", names)})
    level, gain = (numbers[numbers["what"].str.startswith(w)].set_index(["task", "item"]) for w in ("frontier", "gain"))
    shown = pd.DataFrame([{
        "dataset": an.task_labels[task], "models up to": item,
        "frontier, % of the expert alone (95% interval)": _interval_said(r["value"], r["low"], r["high"]),
        "frontier (USD per problem); fee's share": (f"{fmt_usd(r['records_usd'] + r['expert_usd'])}; "
                                                    + ("mostly " if r["expert_share_pct"] > 50 else "")
                                                    + f"the assumed expert fee ({fee_pct(r['expert_share_pct'])}%)"),
        "gain of this release (%, 95% interval)": (_interval_said(*(100 * gain.loc[(task, item), c] for c in
                                                                    ("value", "low", "high")))
                                                   + ("; established" if gain.loc[(task, item), "shown"] else "")
                                                   if (task, item) in gain.index else "–")}
        for (task, item), r in level.iterrows()])
    return frame, numbers, shown


def counterfactuals(an: Analysis, rows: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Figures 3 and 5 under the policy: (the figure's frame of each family's gain in %, the table's numbers, the
    table in words: per dataset, each family and each model, how much cheaper the frontier is with it, with its
    interval and the change split into attempts and the expert's fee)."""
    families = {f: f for f in dict.fromkeys(an.families)}
    frame = policy_frame(an, rows, "family", families)
    numbers = _numbers(an, rows, {"family": ("family", families), "essential": ("model", appearance.models_by_family(an))})
    shown = pd.DataFrame({
        "dataset": numbers["task"].map(an.task_labels), "without": numbers["what"] + " " + numbers["item"],
        "the frontier's gain from it (%, 95% interval)": [_interval_said(100 * v, 100 * lo, 100 * hi)
                                                          + ("; shown, with every family tested together" if s else "")
                                                          for v, lo, hi, s in zip(numbers["value"], numbers["low"],
                                                                                  numbers["high"], numbers["shown"])],
        "change of cost (USD per problem)": [_change_said(r, f) for r, f in zip(numbers["records_usd"], numbers["expert_usd"])]})
    return frame, numbers, shown

