"""Figures 2-5 under the report's headline, the cost with up to k tries, then the expert (``analyze.policy``; issue 35):
the frontier over releases with each release's gain, and the counterfactual frontiers without a family or a model, each
cross-fitted (each problem routed by a difficulty the models share, read on half of its runs, valued on the other
half) with the interval the validity study checks. Frames for ``figures.bars.interval_bars`` and the tables beside
them; rows come from ``intervals.policy_statistics``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from helpers.analyze import intervals
from helpers.analyze.estimates import Analysis
from helpers.analyze.intervals import PolicyFit
from helpers.analyze.policy import Level, choices_against
from helpers.analyze.statistic import RELEASE_FRONTIER, TABLE1, Key, of_kind
from helpers.core.numbers import signed
from helpers.core.tasks import in_category_order
from helpers.publish import appearance
from helpers.publish.findings import tries_counted
from helpers.publish.formats import (
    GAIN_FLOOR_PCT,
    fee_pct,
    fmt_pct,
    fmt_usd,
    gain_interval,
    gain_said,
    level_interval,
    near_zero,
)


def policy_frame(an: Analysis, rows: pd.DataFrame, prefix: str, names: dict[str, str]) -> pd.DataFrame:
    """Rows (task label, item label, value, low, high in %, expert_share_pct) of the policy statistics
    ``<prefix>:<key>`` (gains 0-1 become %, Figure 2's levels are % already), items in the order of ``names``
    (key -> label), tasks by category as the paper orders them; empty where the set has none. A gain's low end is
    drawn from at most ``GAIN_FLOOR_PCT`` (its table gives it whole)."""
    mine = rows[rows["kind"] == prefix]
    mine = mine.assign(key=mine["item"])
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
    if floor == GAIN_FLOOR_PCT and unit == "%":  # never chosen: the frontier's choice is the same with it and without
        return gain_said(value, low, high)
    if floor == GAIN_FLOOR_PCT:
        return gain_interval(value, low, high) + unit
    said, lo, hi = level_interval(value, low, high)
    return f"{said} [{f'< {fmt_pct(floor)}' if low < floor else lo}, {hi}]{unit}"


def _held(row: pd.Series, shown: str, not_shown: str) -> str:
    """What a gain's row (``shown``, ``low``) says after its interval: "; <shown>" where it holds with the others of its
    kind tested together (``policy.holm_shown``); where only its own interval lies above 0 (review R11), that it is
    "<not_shown>" and why; else nothing."""
    if bool(row["shown"]):
        return f"; {shown}"
    if np.isfinite(row["low"]) and row["low"] > 0:
        return f"; above 0 on its own interval but not with the others tested together, so {not_shown}"
    return ""


def _change_said(records: float, fee: float) -> str:
    """A gain's change of cost split into its parts (USD per problem): the attempts paid and the expert's fee."""
    if not (np.isfinite(records) and np.isfinite(fee)):
        return "–"
    return f"attempts {near_zero(records) or signed(records)}, expert fee {near_zero(fee) or signed(fee)}"


def _numbers(an: Analysis, rows: pd.DataFrame, parts: dict[str, tuple[str, dict[str, str]]]) -> pd.DataFrame:
    """The long table of ``parts`` (prefix -> (what it is, names)): task, what, item, value, low, high, the records'
    and the fee's parts (USD per problem; their change for a gain), the fee's share (%), k, and ``shown``: a gain
    shown above 0 with the others of its kind on the dataset tested together (``policy.holm_shown``)."""
    out = []
    for prefix, (what, names) in parts.items():
        mine = rows[(rows["kind"] == prefix) & rows["item"].isin(names)]
        out.append(mine.assign(what=what, item=mine["item"].map(names)))
    if not any(len(x) for x in out):
        return pd.DataFrame(columns=["task", "what", "item", "value", "low", "high", "records_usd", "expert_usd",
                                     "expert_share_pct", "k", "shown"])
    d = pd.concat(out, ignore_index=True)
    d = d.assign(t=d["task"].map({t: i
                                  for i, t in enumerate(in_category_order(an.tasks))})).sort_values("t", kind="stable")
    return d[["task", "what", "item", "value", "low", "high", "records_usd", "expert_usd", "expert_share_pct",
              "k", "shown"]].reset_index(drop=True)


def releases(an: Analysis, rows: pd.DataFrame, flagged: dict[str, list[Above]] | None = None
             ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Figures 2 and 4 under the policy: (the figure's frame of the frontier over releases in % of the expert alone,
    the table's numbers, the table in words: per dataset and release the frontier with its interval, its USD and
    the fee's share, and the release's gain with its interval). With ``flagged`` (``flag_releases`` of ``rows``), a
    gain whose frontier, or the one before it, reads above a model alone says so (review 4, N3; the table's lead,
    ``above_alone``, says why)."""
    names = appearance.release_names(an)
    marked = {(task, a.item) for task, runs in (flagged or {}).items() for a in runs}
    order = list(names.values())

    def near_tie(task: str, item: str) -> str:
        i = order.index(item) if item in order else -1
        g = gain.loc[(task, item)]
        if g["value"] == g["low"] == g["high"] == 0:  # never chosen: the frontiers on both sides are the same
            return ""
        if (task, item) in marked or (i > 0 and (task, order[i - 1]) in marked):
            return ("; its frontier, or the one before it, reads above a model alone (see above): "
                    "not a gain over the best model's")
        return ""

    frame = policy_frame(an, rows, "release frontier", names)
    numbers = _numbers(an, rows, {"release frontier": ("frontier (% of the expert alone)", names),
                                  "release gain": ("gain of the release (0-1)", names)})
    level, gain = (numbers[numbers["what"].str.startswith(w)].set_index(["task", "item"]) for w in ("frontier", "gain"))
    shown = pd.DataFrame([{
        "dataset": an.task_labels[task], "models up to": item,
        "frontier, % of the expert alone (95% interval)": _interval_said(r["value"], r["low"], r["high"],
                                                                         floor=0.0),  # a level: no "(max)" (review 8)
        "frontier (USD per problem); fee's share": (f"{fmt_usd(r['records_usd'] + r['expert_usd'])}; "
                                                    + ("mostly " if r["expert_share_pct"] > 50 else "")
                                                    + f"the assumed expert fee ({fee_pct(r['expert_share_pct'])}%)"),
        "gain of this release (%, 95% interval)": (_interval_said(*(100 * gain.loc[(task, item), c] for c in
                                                                    ("value", "low", "high")))
                                                   + _held(gain.loc[(task, item)], "shown", "not shown")
                                                   + near_tie(task, item)
                                                   if (task, item) in gain.index else "–")}
        for (task, item), r in level.iterrows()])
    return frame, numbers, shown


def counterfactuals(an: Analysis, rows: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Figures 3 and 5 under the policy: (the figure's frame of each family's gain in %, the table's numbers, the
    table in words: per dataset, each family and each model, how much cheaper the frontier is with it, with its
    interval and the change split into attempts and the expert's fee)."""
    families = {f: f for f in dict.fromkeys(an.families)}
    frame = policy_frame(an, rows, "family", families)
    numbers = _numbers(an, rows, {"family": ("family", families),
                                  "essential": ("model", appearance.models_by_family(an))})
    shown = pd.DataFrame({
        "dataset": numbers["task"].map(an.task_labels), "without": numbers["what"] + " " + numbers["item"],
        "the frontier's gain from it (%, 95% interval)": [
            _interval_said(100 * r["value"], 100 * r["low"], 100 * r["high"])
            + (_held(r, "shown, with every family tested together", "not shown") if r["what"] == "family" else "")
            for _, r in numbers.iterrows()],
        "change of cost (USD per problem)": [_change_said(r, f)
                                             for r, f in zip(numbers["records_usd"], numbers["expert_usd"])]})
    return frame, numbers, shown


def above_alone(an: Analysis, rows: pd.DataFrame, flagged: dict[str, list[Above]],
                truth: pd.DataFrame | None = None) -> str:
    """Review R1: why the releases ``flagged`` (``flag_releases`` of ``rows``: ``intervals.policy_statistics``) read
    above a model released by then alone, at the same k (each problem's model is routed by a difficulty the models
    share, ``policy.choices_against``): one sentence per run of such releases on a dataset; "" where none does.
    With ``truth`` (a simulated set's ``policy_study.set_own_truth`` of ``rows``), the simulator's truth of both and
    which is truly cheaper; without it, that the records cannot tell the choice's real cost from the estimate's noise
    (review 9, H2: on `sim` the rule's choices truly cost more than the model alone)."""
    alone = _alone_costs(rows)
    return " ".join(said for task, runs in flagged.items() for said in _above_said(an, task, runs, alone, truth))


def _alone_costs(rows: pd.DataFrame) -> dict[tuple[str, str], float]:
    """(task, model) -> each model alone's cost (USD per problem) from policy ``rows``."""
    mine = rows[of_kind(rows, TABLE1)]
    return dict(zip(zip(mine["task"], mine["item"]), mine["value"], strict=True))


def flag_releases(an: Analysis, rows: pd.DataFrame, fitted: PolicyFit) -> dict[str, list[Above]]:
    """Per dataset, the releases whose frontier reads above a model released by then alone (``Above``, in release
    order): ``above_alone`` says why, and ``releases`` marks their gains and the next release's."""
    sp, cube = fitted.policy, fitted.cube
    alone = _alone_costs(rows)
    names, steps = appearance.release_names(an), intervals.set_steps(an)
    out: dict[str, list[Above]] = {}
    for t, task in enumerate(cube.tasks):
        members = np.asarray(cube.task_codes) == t
        for i in range(len(steps)):
            key = Key(RELEASE_FRONTIER, str(i))
            row = rows[(rows["statistic"] == str(key)) & (rows["task"] == task)]
            spec = sp.specs.get(key)
            by_now = [m for _, ms in steps[:i + 1] for m in ms if np.isfinite(alone.get((task, m), np.nan))]
            if row.empty or not isinstance(spec, Level) or not by_now:
                continue
            value = float(row["records_usd"].iloc[0] + row["expert_usd"].iloc[0])
            best = min(by_now, key=lambda m: alone[(task, m)])
            if value <= alone[(task, best)] or fmt_usd(value) == fmt_usd(alone[(task, best)]):
                continue
            fit = sp.fit(spec.strategies)
            counts, other, dearer = choices_against(fit, sp.single, cube.strategies.index(best), members)
            chose = {("" if s < 0 else cube.strategies[s]): c for s, c in counts.items()}
            out.setdefault(task, []).append(Above(names[str(i)][:10], value, best, chose, other, dearer,
                                                  int(row["k"].iloc[0]), int(members.sum()), names[str(i)], str(i),
                                                  fit.halved))
    return out


def _share_said(values: list[float], truths: list[float], read: float, alone_truth: float) -> str:
    """Review 10, M1: how much of the gap read between flagged frontiers (``values``, USD) and a model alone
    (``read``) the true gap (``truths`` against ``alone_truth``) is: where it is at least half of every gap read, not
    the luck of these records; else the share and that the rest is these records' noise; "" where the gap read is
    not a number."""
    gaps = [v - read for v in values]
    if not np.isfinite(read) or min(gaps) <= 0:
        return ""
    shares = [100 * (t - alone_truth) / g for t, g in zip(truths, gaps, strict=True)]
    part = f"{_span(shares, fmt_pct)}% of the {_span(gaps, fmt_usd)} USD read here"
    if min(shares) >= 50:
        return f", {part}: most of the gap, not the luck of these records"
    return (f", but only {part}; the rest is these records' noise" if max(shares) < 50 else
            f"; that is {part}, the rest these records' noise")


@dataclass(frozen=True)
class Above:
    """A release whose frontier reads above a model alone: its date (YYYY-MM-DD), the frontier (USD per problem),
    the model cheaper alone, problems per chosen model ("": the expert alone; most of a problem's splits' choice), the
    problems that chose another model than it and of those the ones where that model's records cost more, k, the
    dataset's problems, and whether the choices were made on half of each problem's runs (``CrossFitted.halved``)."""

    date: str
    value: float
    best: str
    chose: dict[str, int]
    other: int
    dearer: int
    k: int
    n: int
    item: str = ""  # its release label (``appearance.release_names``)
    step: str = ""  # its release step (the statistic's item: ``release frontier:<step>``)
    halved: bool = False


def _span(values: list[float], fmt) -> str:
    """"a" or "a–b": the range of ``values`` as ``fmt`` prints them."""
    shown = list(dict.fromkeys(fmt(v) for v in sorted(values)))
    return shown[0] if len(shown) == 1 else f"{shown[0]}–{shown[-1]}"


def _above_said(an: Analysis, task: str, flagged: list[Above], alone: dict[tuple[str, str], float],
                truth: pd.DataFrame | None = None) -> list[str]:
    """``above_alone``'s sentences on one dataset: consecutive ``flagged`` releases that read above the same model
    said once, each with what the records cannot tell, or the simulator's ``truth`` (``_truth_said``)."""
    runs: list[list[Above]] = []
    for f in flagged:
        if runs and runs[-1][-1].best == f.best:
            runs[-1].append(f)
        else:
            runs.append([f])

    def label(m: str) -> str:
        return an.labels.get(m, m) if m else "the expert alone"

    out = []
    for run in runs:
        a, last = run[0], run[-1]
        when = a.date if len(run) == 1 else f"{a.date} to {last.date}"
        others = list(dict.fromkeys(m for f in run for m in f.chose if m and m != a.best))
        each = ", ".join(f"{label(m)} {fmt_usd(alone[(task, m)])}" for m in others)
        out.append(f"On {an.task_labels[task]}, from the release of {when} the headline's frontier (up to k tries, "
                   f"then the expert) reads {_span([f.value for f in run], fmt_usd)} USD per problem, above "
                   f"{label(a.best)} alone ({fmt_usd(alone[(task, a.best)])}) with the same {tries_counted(a.k)}. "
                   + _rule_said(run, label(a.best), each)
                   + _truth_said(task, run, a.best, label(a.best), truth, alone[(task, a.best)]))
    return out


def _rule_said(run: list[Above], best: str, each: str) -> str:
    """What the frontier's rule chose on a ``run`` of flagged releases, against the model ``best`` (its label) alone
    (``each``: the other models chosen, with their cost alone): on how many problems it chose another model, and on
    how many of those that model's own runs cost more. Routed (``Above.halved``) and choosing ``best`` on most splits
    of every problem: the gap is the other splits' (their mean with ``best`` everywhere would be ``best``'s own)."""
    a = run[0]
    how = ("The rule, which chooses each problem's model by a difficulty the models share (curves fitted on the "
           "dataset's other problems, the problem placed on them by half of its runs, valued on the other half, every "
           "split of its runs averaged), chose " if a.halved else
           "The rule, which chooses each problem's model on the dataset's other problems, chose ")
    if a.halved and all(f.other == 0 for f in run):
        return (f"{how}{best} on most splits of every one of the {a.n} problems: the gap is what the splits that "
                f"chose another model cost (were every split's choice {best}, the frontier would read {best}'s own "
                "value). ")
    every = all(f.dearer == f.other for f in run)
    where = "on every one of them" if every else f"on {_span([f.dearer for f in run], str)} of them"
    splits = "most splits of " if a.halved else ""
    return (f"{how}another model than {best} on {splits}{_span([f.other for f in run], str)} of {a.n} problems "
            f"(alone: {each}), and {where} the chosen model's own runs there cost more than {best}'s. ")


def _truth_said(task: str, run: list[Above], model: str, best: str, truth: pd.DataFrame | None,
                read: float = np.nan) -> str:
    """What the gap between a run of flagged release frontiers and the ``model`` alone (labelled ``best``; ``read``:
    its cost alone on these records) is: with a simulated set's ``truth`` (``policy_study.set_own_truth`` rows), the
    truth of both (USD per problem), which is truly cheaper and how much of the gap read the true gap is
    (``_share_said``); else that these records cannot tell the choice's real cost from the estimate's noise."""
    rows = (pd.DataFrame(columns=["truth", "value"]) if truth is None
            else truth[truth["task"] == task].set_index("statistic"))
    fronts = [(f, rows.loc[str(Key(RELEASE_FRONTIER, f.step))]) for f in run
              if str(Key(RELEASE_FRONTIER, f.step)) in rows.index]
    alone = str(Key(TABLE1, model))
    if len(fronts) < len(run) or not len(fronts) or alone not in rows.index:
        return ("These records cannot tell whether the gap is the choice's real cost or the estimate's noise: where "
                "models are near-tied, a model chosen for each problem on other runs than those that value it can "
                "truly cost more than one model alone. The gap is not tested.")
    truths = [f.value * float(r["truth"]) / float(r["value"]) for f, r in fronts]  # % of the expert alone -> USD
    alone_truth = float(rows.loc[alone, "truth"])
    dearer = [t > alone_truth for t in truths]
    verdict = (f"the rule's choices truly cost {_span([t - alone_truth for t in truths], fmt_usd)} USD "
               f"({_span([100 * (t / alone_truth - 1) for t in truths], fmt_pct)}%) more than {best} alone, a real "
               "cost of the rule" + _share_said([f.value for f in run], truths, read, alone_truth) if all(dearer) else
               f"{best} alone is truly no cheaper: the gap is the estimate's" if not any(dearer) else
               f"the rule's choices truly cost more than {best} alone on some of these releases, not on others")
    return (f"By the simulator's truth on these problems, that frontier costs {_span(truths, fmt_usd)} USD per "
            f"problem and {best} alone {fmt_usd(alone_truth)}: {verdict}.")
