"""Findings at a glance: the report's answer to the paper's Figure 1, one row per dataset, every cell computed
from the set's own numbers with its 95% interval (``intervals.SetStatistics`` rows and the halving-time fits).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from helpers.analyze import claims
from helpers.analyze.policy import FRONTIER as HEADLINE_FRONTIER
from helpers.analyze.statistic import KEY_COLUMNS, TABLE1
from helpers.analyze.trends import MIN_RELEASES
from helpers.core.errors import CostOfPassError
from helpers.publish import names
from helpers.publish.compare import PAPER_HALVING_MONTHS
from helpers.publish.formats import dollars, fee_pct, fmt_pct, fmt_usd, gain_interval, one_problem

FRONTIER, PAPER, SINGLES, CHEAPEST, FAMILY, TECHNIQUE, HALVING = (
    "frontier of all models (USD)", "the paper's frontier (USD)", "each model alone (USD)",
    "cheapest single model (USD)",
    "most essential family (%)", "techniques that pay (gain %)", "halving time (months)")
COLUMNS = ["dataset", FRONTIER, PAPER, SINGLES, CHEAPEST, FAMILY, TECHNIQUE, HALVING]
# what each dataset's row claims, as booleans beside the words (the CSV's; ``at_a_glance`` reads them, never the words)
CLAIMS = ("frontier_estimated", "mostly_fee", "fee_may_be_most", "cheapest_named", "family_named",
          "family_only_chosen", "technique_named", "halving_reliable")
# of the frontier (three), cheapest model, family (two), technique and halving-time cells


def _cell(value: float, low: float, high: float, fmt) -> str:
    return f"{fmt(value)} [{fmt(low)}, {fmt(high)}]"


def tries_said(k: int) -> str:
    """k tries in words: "one try", "up to 4 tries"."""
    return "one try" if k == 1 else f"up to {k} tries"


def _k_said(k: int) -> str:
    """Why k tries, for the first screen: "" for one try, else "half the runs the records hold of every model, rounded
    down, " (the headline's k, ``policy.headline_k``; review 10, L4)."""
    return "" if k == 1 else "half the runs the records hold of every model, rounded down, "


def tries_counted(k: int) -> str:
    """k tries as a count: "one try", "4 tries"."""
    return "one try" if k == 1 else f"{k} tries"


def _range(row, fmt, scale: float = 1.0) -> str:
    """"; range [lowest, highest]" where problems no strategy of the statistic passed leave room (else ""): the range
    widened by every cell's sampling bounds (``range_ci_low``, ``range_ci_high``), which held the truth where the
    narrow one, which takes every passed rate as exact, did not (review 6, H1)."""
    lo, hi = row.get("range_ci_low", np.nan), row.get("range_ci_high", np.nan)
    if not (np.isfinite(lo) and np.isfinite(hi)) or np.isclose(lo, hi, rtol=1e-9, atol=0):
        return ""
    return f"; range [{fmt(scale * lo)}, {fmt(scale * hi)}]"


def findings(stats: pd.DataFrame, halving: pd.DataFrame | None, tasks: list[str], task_labels: dict[str, str],
             model_labels: dict[str, str], families: dict[str, str], policy: pd.DataFrame | None = None,
             estimator: str = "plug-in", unpassed: dict[str, int] | None = None,
             calls: dict[str, tuple[float, int]] | None = None, seeds: dict[str, str] | None = None) -> pd.DataFrame:
    """One row per dataset of ``tasks`` (in that order). The headline is the cost with up to k tries, then the
    expert (``policy``: ``intervals.policy_statistics`` rows, whose intervals the validity study checks): the
    frontier of all models (one model per problem, routed by a difficulty the models share read on half of its runs,
    valued on the other half), the cheapest model
    alone with the expert, named only when its paired difference with every other model lies below 0 (``_cheapest``),
    the family whose removal costs the frontier most, named only beyond doubt (``_family``), and the technique with the
    largest cross-fitted gain, named only when it lies above 0 with the dataset's others tested together. Beside them,
    from
    ``estimator``'s ``stats`` (``SetStatistics.frame`` rows: the paper's plug-in by default): the paper's frontier
    (said in words, with no interval, where more than half of it is the expert's fee on problems no model passed:
    ``expert_cell``; ``unpassed``: their number per task) and the frontier's halving time (Eq. 11, beside the paper's;
    only a finding where ``trends`` marks the fit reliable). ``halving``: the ``figure2_halving_times`` table, or
    None. The row's ``CLAIMS`` columns (bool) say which of those cells makes a claim: the fee is more than half of
    the frontier, a model / family / technique is named, the halving time is reliable."""
    mine = stats[stats["estimator"] == estimator]
    policy = pd.DataFrame(columns=[*KEY_COLUMNS, "task"]) if policy is None else policy
    rows = []
    for task in tasks:
        row: dict[str, str | bool] = {"dataset": task_labels.get(task, task)}
        here, ours = _parts(mine[mine["task"] == task]), _parts(policy[policy["task"] == task])
        front = ours(HEADLINE_FRONTIER.kind.name)
        row[FRONTIER], row["mostly_fee"], row["fee_may_be_most"], row["frontier_estimated"] = _policy_frontier(front)
        row[PAPER] = _paper_frontier(here("frontier"), (unpassed or {}).get(task))
        row[SINGLES] = _singles(ours("table1"), model_labels)
        row[CHEAPEST], row["cheapest_named"] = _cheapest(ours("table1"), model_labels, families)
        row[FAMILY], row["family_named"], row["family_only_chosen"] = _family(
            ours("family"), _levels(ours("table1"), ours(HEADLINE_FRONTIER.kind.name)), families, model_labels)
        row[TECHNIQUE], row["technique_named"] = _technique(_gains(ours, model_labels, calls, seeds),
                                                            here("technique gain"))
        row[HALVING], row["halving_reliable"] = _halving(halving, task_labels.get(task, task), estimator,
                                                         PAPER_HALVING_MONTHS.get(task))
        rows.append(row)
    return pd.DataFrame(rows, columns=[*COLUMNS, *CLAIMS]).astype({c: bool for c in CLAIMS})


def _gains(ours, model_labels: dict[str, str], calls: dict[str, tuple[float, int]] | None = None,
           seeds: dict[str, str] | None = None) -> pd.DataFrame:
    """One dataset's cross-fitted technique gains (over every model together) and agent strategies' gains (over their
    own model's single attempt, ``_strategies``), the rows the technique cell tests together; ``ours``: ``_parts``."""
    return pd.concat([ours("technique gain"), _strategies(ours("strategy gain"), model_labels, calls or {}, seeds,
                                                          ours("seed gain"),
                                                          _levels(ours("table1"), ours(HEADLINE_FRONTIER.kind.name)))])


def _pays(gains: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Which of ``_gains``' rows pay (shown above 0 with every other tested together, ``claims.techniques_that_pay``,
    and, for a seeded strategy, over its seed model's attempt too) and which pass that seed test (``beats_seed``)."""
    seed_ok = (gains["beats_seed"].fillna(True).astype(bool).to_numpy() if "beats_seed" in gains
               else np.ones(len(gains), bool))
    return claims.techniques_that_pay(gains["value"].to_numpy(float), gains["shown"].to_numpy(bool)) & seed_ok, seed_ok


def _is_strategy(gains: pd.DataFrame) -> np.ndarray:
    """Which of ``_gains``' rows are agent strategies (a model's, with its baseline), not a technique over every
    model."""
    return (gains["baseline"].map(lambda b: isinstance(b, str)).to_numpy(bool) if "baseline" in gains
            else np.zeros(len(gains), bool))


def _gain_name(gains: pd.DataFrame) -> list[str]:
    """Each row's name in words; where the rows hold agent strategies too, a technique's says it is over every model
    (review 10, M7: a bare "LDB" among "LDB by <model>" rows read as a typo)."""
    both = _is_strategy(gains).any()
    return [names.method(n) + (EVERY_MODEL if both and not strategy else "")
            for n, strategy in zip(gains["name"], _is_strategy(gains), strict=True)]


EVERY_MODEL = " over every model together (the frontier with it against without it)"


def shown_to_pay(policy: pd.DataFrame, tasks: list[str], model_labels: dict[str, str],
                 seeds: dict[str, str] | None = None) -> dict[str, str]:
    """Dataset -> what the technique cell of Findings at a glance names as paying, in words, for Table 2's reading
    (review 10, H1: it kept the techniques alone and said "none" where the cell named four strategies): how many
    were tested together, the strategies shown (each over its own model's single attempt, and whether any lowers the
    frontier), and each technique over every model, shown or not; datasets where nothing is shown are left out."""
    out = {}
    for task in tasks:
        gains = _gains(_parts(policy[policy["task"] == task]), model_labels, None, seeds)
        gains = gains[gains["value"].notna()].sort_values("value", ascending=False, kind="stable") if len(gains) \
            else gains  # largest first, as the Findings' cell lists them
        if gains.empty or not (pays := _pays(gains)[0]).any():
            continue
        strategy, said = _is_strategy(gains), _gain_name(gains)
        above = gains.get("above_frontier", pd.Series(False, gains.index)).fillna(False).astype(bool).to_numpy()
        parts = [", ".join(n for n, p, s in zip(said, pays, strategy, strict=True) if p and not s)]
        if (pays & strategy).any():
            parts.append(", ".join(n for n, p, s in zip(said, pays, strategy, strict=True) if p and s)
                         + " (each over its own model's single attempt, not over the frontier"
                         + ("; none lowers the frontier" if above[pays & strategy].all() else "") + ")")
        parts += [f"{n}: not shown" for n, p, s in zip(said, pays, strategy, strict=True) if strategy.any()
                  and not p and not s]
        many = "techniques and strategies" if strategy.any() else "techniques"
        out[task] = f"{_together(len(gains), 'technique', many, _never(gains))}: " + "; ".join(
            p for p in parts if p)
    return out


def _parts(frame: pd.DataFrame):
    """``part(kind)``: the rows of ``frame`` whose statistic is of the kind named ``kind``, with its item as
    ``name``."""
    return lambda kind: frame[frame["kind"] == kind].assign(name=frame["item"][frame["kind"] == kind])


def fee_of_change(row) -> str:
    """"; x% of it the assumed expert fee" where the fee decides more than half of a gain's change of cost
    (``expert_share_pct`` of a policy row; above 100: the attempts' part moves the other way), else ""."""
    share = row.get("expert_share_pct", np.nan)
    if not (isinstance(share, (int, float)) and np.isfinite(share) and share > 50):
        return ""
    if share > 100 + 1e-9:  # review 3, L3: the two parts, not a share above all of it
        records, fee = float(row.get("records_usd", np.nan)), float(row.get("expert_usd", np.nan))
        if np.isfinite(records) and np.isfinite(fee):
            return (f"; it saves {fmt_usd(fee)} USD per problem of the assumed expert fee, and its attempts cost "
                    f"{fmt_usd(-records)} USD per problem more")
        return "; more than all of it the assumed expert fee (the attempts cost more with it)"
    return f"; {fee_pct(share)}% of it the assumed expert fee"


def carried(row) -> str:
    """``formats.one_problem`` of a policy row: its most influential problem's share of the value (of the change, for a
    gain: ``policy.influence``'s ``top_share_pct``, ``top_problem``)."""
    return one_problem(row.get("top_share_pct", np.nan), row.get("top_problem", ""))


def fee_share_high(row) -> float:
    """The largest share (%) of a policy row's cost its interval leaves to the assumed expert fee: its high end less
    the records' part (``records_usd``), over the high end. The point share reads 0 where no valued run failed every
    try, though the truth may lie near the high end and be mostly fee (review 6, H3: `sim` GSM8K, 0% by the estimate,
    about three quarters of the truth)."""
    high, records = float(row["high"]), float(row.get("records_usd", np.nan))
    return 100 * max(high - records, 0.0) / high if high > 0 and np.isfinite(records) else np.nan


def _policy_frontier(front: pd.DataFrame) -> tuple[str, bool, bool, bool]:
    """"v [low, high]; x% of it the assumed expert fee" of the cross-fitted frontier, or why there is none; whether
    that fee is more than half of it; whether its interval allows that where the estimate does not
    (``fee_share_high``); and whether there is one."""
    if front.empty or not np.isfinite(front.iloc[0]["value"]):
        return "not identified (a dataset needs 2 problems or more to choose on the others)", False, False, False
    f = front.iloc[0]
    most, most_high = bool(f["expert_share_pct"] > 50), fee_share_high(f)
    may = not most and most_high > 50
    allows = f" (its interval allows up to {fee_pct(most_high)}%)" if may else ""
    share = f"{fee_pct(f['expert_share_pct'])}% of it the assumed expert fee{allows}"
    if may and f["expert_share_pct"] == 0:  # review 8: 0% is the estimate's, where no valued run failed every try
        share = (f"the assumed expert fee 0% of it by the estimate (no problem failed all its tries on these runs), "
                 f"up to {fee_pct(most_high)}% by its interval")
    return (f"{_cell(f['value'], f['low'], f['high'], fmt_usd)} with {tries_said(int(f['k']))}; {share}{carried(f)}",
            most, may, True)


def _paper_frontier(front: pd.DataFrame, unpassed: int | None) -> str:
    """The paper's frontier: in words where the fee is most of it (``expert_cell``), else its value and the range the
    records allow; no interval (the paper's bootstrap interval held the truth far less often than 95% on most of
    the validity study's generators: docs/statistics.md)."""
    if front.empty:
        return "–"
    f = front.iloc[0]
    if f.get("unseen_pct", 0) > 50:
        return expert_cell(f["value"], f["unseen_pct"], unpassed)
    return fmt_usd(f["value"]) + _range(f, fmt_usd)


def _family(fams: pd.DataFrame, levels: dict[str, float] | None = None, families: dict[str, str] | None = None,
            model_labels: dict[str, str] | None = None) -> tuple[str, bool, bool]:
    """The most essential family under the policy (cross-fitted ``family:<g>`` rows of one dataset), named only
    beyond doubt: its gain shown above 0 with every family tested together (``shown``) and its interval above every
    other family's; else the families shown to lower the
    frontier (above 0 with every family tested together: ``shown``), or none; whether it names one; and whether
    the one named is the only family the frontier chose (the others' gains 0, never chosen: review 9, M5, then said
    without a superlative). A maximum over noisy gains is not a finding by itself. Where the frontier without a family
    named reads above the other families' best model alone (``_against_alone``), that, and the gain over that model.
    """
    fams = fams[np.isfinite(fams["value"].astype(float))] if len(fams) else fams
    if fams.empty:
        return "–", False, False
    def said(f, only: str = "") -> str:
        return (f"{f['name']}: " + gain_interval(100 * f["value"], 100 * f["low"], 100 * f["high"]) + only
                + fee_of_change(f) + carried(f) + _against_alone(f, levels or {}, families or {}, model_labels or {}))

    value, low, high = (fams[c].to_numpy(float) for c in ("value", "low", "high"))
    named = int(claims.most_essential(value, low, high, fams["shown"].to_numpy(bool)))
    if named != claims.NONE:
        rest = fams.drop(index=fams.index[named])
        if len(rest) and ((rest["value"] == 0) & (rest["low"] == 0) & (rest["high"] == 0)).all():  # review 9, M5
            return said(fams.iloc[named], "% cheaper with it than without it, the only family the frontier chose ("
                        + ", ".join(rest["name"]) + ": not chosen on any problem)"), True, True
        return said(fams.iloc[named]), True, False
    shown = fams[fams["shown"].astype(bool)]
    if shown.empty:
        alone = fams[low > 0]  # review 7: above 0 on its own interval, not with the others (Holm)
        why = ("its interval reaches 0" if len(fams) == 1
               else f"{_together(len(fams), 'family', 'families', _never(fams))}, none shown above 0" + "".join(
                   f"; {f['name']} {gain_interval(100 * f['value'], 100 * f['low'], 100 * f['high'])} is above 0 "
                   "on its own interval but not with the others" for _, f in alone.iterrows()))
        return f"none shown to matter ({why})", False, False
    return (f"none beyond doubt; lowering the frontier ({_together(len(fams), 'family', 'families', _never(fams))}): "
            + ", ".join(said(f) for _, f in shown.iterrows())), False, False


def _against_alone(fam: pd.Series, levels: dict[str, float], families: dict[str, str],
                   model_labels: dict[str, str]) -> str:
    """Review 10, M6 (HumanEval: GPT-4 "68.4% cheaper", against a frontier without it that reads 4.54, above each
    GPT-3.5 model alone, 3.81-4.04): where the frontier without family ``fam`` (its value over 1 − its gain, from the
    frontier's ``levels[""]``) reads above the best model alone of the other families (``levels``: model -> USD;
    ``families``: model -> family), "; without it the frontier of the other families reads v, above …; over the best
    of them alone it is x% cheaper"; else ""."""
    front, gain = levels.get("", np.nan), float(fam["value"])
    rest = {m: v for m, v in levels.items() if m and families.get(m) not in (None, fam["name"]) and np.isfinite(v)}
    if not (rest and np.isfinite(front) and gain < 1):
        return ""
    without, best = front / (1 - gain), min(rest, key=rest.__getitem__)
    if without <= rest[best] or fmt_usd(without) == fmt_usd(rest[best]):
        return ""
    values = sorted(rest.values())
    above = (f"each of their models alone ({fmt_usd(values[0])}–{fmt_usd(values[-1])})" if without > values[-1]
             and len(values) > 1 else f"the best of their models alone ({fmt_usd(rest[best])})")
    return (f"; without it the frontier of the other families reads {fmt_usd(without)} USD per problem, above {above}, "
            f"as the rule's choices cost more than its best member; over the best of them alone "
            f"({model_labels.get(best, best)}) it is {fmt_pct(100 * (1 - front / rest[best]))}% cheaper")


def _together(m: int, one: str, many: str, never: int = 0) -> str:
    """"the m <many> tested together" (one: "one <one> tested"): how many claims a finding's intervals hold for at once
    (``policy.holm_shown``: each family's claims on a dataset at 95% together), and how many of them were never
    chosen (``never``: their gain is 0 by construction, yet they count among the m; review 11, L1)."""
    said = f"one {one} tested" if m == 1 else f"the {m} {many} tested together"
    return said + (f", {never} of them never chosen (a gain of 0 by construction)" if never and m > 1 else "")


def _never(gains: pd.DataFrame) -> int:
    """How many of ``gains`` (value, low, high) were chosen on no problem: 0 [0, 0], the same frontier with and
    without them."""
    if not len(gains) or "high" not in gains:
        return 0
    return int(((gains["value"] == 0) & (gains["low"] == 0) & (gains["high"] == 0)).sum())


def _levels(alone: pd.DataFrame, frontier: pd.DataFrame) -> dict[str, float]:
    """Each model's cost alone (``alone``: table1 rows, ``name`` the model) and the frontier's (key ""), USD per
    problem."""
    out = dict(zip(alone["name"], alone["value"].astype(float), strict=True)) if "value" in alone else {}
    if len(frontier) and "value" in frontier:
        out[""] = float(frontier["value"].iloc[0])
    return out


def _with_it(model: str, gain: float, levels: dict[str, float]) -> str:
    """Reviews 3 and 4 (M5, N4): "; with it, x USD per problem" — the strategy's model with it (its cost alone
    ``levels[model]`` times 1 − ``gain``) — and where that is still above the frontier (``levels[""]``), that it does
    not lower the frontier; else (the frontier is of the models' own attempts) that the two are not compared here;
    "" where the records do not say."""
    before, front = levels.get(model, np.nan), levels.get("", np.nan)
    after = before * (1 - gain)
    if not np.isfinite(after):
        return ""
    if not np.isfinite(front):
        return f"; with it, {fmt_usd(after)} USD per problem"
    if after > front:
        return (f"; with it, {fmt_usd(after)} USD per problem, still above the frontier's {fmt_usd(front)}: it "
                "does not lower the frontier")
    if np.isclose(before, front, rtol=1e-9, atol=0):  # review 5, N11: the frontier chose this very model throughout
        return (f"; with it, {fmt_usd(after)} USD per problem instead of the frontier's {fmt_usd(front)}: its model is "
                "the one the frontier chose on every problem, so this gain is over the frontier itself")
    return (f"; with it, {fmt_usd(after)} USD per problem (the frontier of the models' own attempts reads "
            f"{fmt_usd(front)}; the two are not compared here)")


def _strategies(gains: pd.DataFrame, model_labels: dict[str, str], calls: dict[str, tuple[float, int]],
                seeds: dict[str, str] | None = None, over_seed: pd.DataFrame | None = None,
                levels: dict[str, float] | None = None) -> pd.DataFrame:
    """Agent strategies' cross-fitted gains over their model's single attempt, named "<strategy> by <model>", with
    that baseline in words (``baseline``) and what a try of each spends (``_calls``: ``calls`` per strategy name,
    the mean and most calls per attempt); ``seeds``: strategy name -> the model whose attempts seed it, where known,
    and ``over_seed``: the ``seed gain`` rows (name: the strategy), each such strategy's gain over that model's own
    attempt; ``beats_seed``: False where that gain's interval reaches 0 (the strategy is then not named as paying: its
    gain may be the seed's answer, not the debugging; intersection-union, no further correction); ``levels``
    (``_levels``): where the model with the strategy still costs more than the frontier, the baseline says so."""
    model, _, method = gains["name"].str.partition("+").values.T if len(gains) else ([], "", [])
    seeds = seeds or {}
    over = {} if over_seed is None else {r["name"]: r for _, r in over_seed.iterrows()}
    beats_seed = [f"{m}+{x}" not in over or float(over[f"{m}+{x}"]["low"]) > 0 for m, x in zip(model, method)]
    def seed(m: str, x: str) -> str | None:
        return model_labels.get(s, s) if (s := seeds.get(f"{m}+{x}")) else None

    return gains.assign(name=[f"{names.method(x, seed(m, x))} by {model_labels.get(m, m)}"
                              for m, x in zip(model, method)], method=list(method), beats_seed=beats_seed,
                        baseline=[f"over {model_labels.get(m, m)}'s own single attempt"
                                  + _seeded(x, model_labels, seeds.get(f"{m}+{x}"), over.get(f"{m}+{x}"))
                                  + _calls(calls.get(f"{m}+{x}"), calls.get(m), k)
                                  + _with_it(m, float(g), levels or {})
                                  for m, x, g, k in zip(model, method,
                                                        gains.get("value", pd.Series(np.nan, gains.index)),
                                                        gains.get("k", pd.Series(np.nan, gains.index)))],
                        with_it=[_with_it(m, float(g), levels or {}).removeprefix("; ")
                                 for m, g in zip(model, gains.get("value", pd.Series(np.nan, gains.index)))],
                        above_frontier=[(levels or {}).get(m, np.nan) * (1 - float(g)) > (levels or {}).get("", np.nan)
                                        for m, g in zip(model, gains.get("value", pd.Series(np.nan, gains.index)))])


def _calls(strategy: tuple | None, single: tuple | None, k: float = np.nan) -> str:
    """" (a try of it: 1.70 calls on average, at most 5; of the single attempt: 1)": the gain compares tries of unlike
    size, both billed (review H3); "" where the records do not say. ``strategy`` and ``single``: (mean calls, most
    calls[, runs per problem]) (``tables.calls_per_try``); where the strategy's runs are no more than the ``k`` tries,
    every run is a try and its fee part the lump the Methods describe (reviews 10 and 11, L4)."""
    if strategy is None:
        return ""
    mean, most = strategy[:2]
    base = "" if single is None else f"; of the single attempt: {single[0]:.3g}"
    runs = strategy[2] if len(strategy) > 2 else None
    lump = ("" if runs is None or runs < 2 or not np.isfinite(k) or runs > k else
            f"; its {runs} runs per problem are all tries (k = {int(k)}): whether a problem needs the expert is read "
            "from one ordering of them, a lump of the fee (the Methods), which the validity studies measured with "
            "every run a try only at k = 1")
    return f" (a try of it: {mean:.2f} calls on average, at most {most}{base}{lump})"


def _seeded(method: str, model_labels: dict[str, str], seed_model: str | None = None, over=None) -> str:
    """Where a strategy's every attempt starts from another model's billed attempt (``ldb_seed_<name>``), that the
    gain includes that model's answer (``seed_model``, where the set's runs name it; else the method's own name for
    it), and its cross-fitted gain over that model's own attempt (``over``: its ``seed gain`` row), or that it is not
    tested here."""
    if not method.startswith("ldb_seed_"):
        return ""
    seed = model_labels.get(seed_model, seed_model) if seed_model else f"a {method.removeprefix('ldb_seed_')} model"
    if over is not None and np.isfinite(float(over["value"])):
        where = "its interval above 0" if float(over["low"]) > 0 else "its interval reaching 0"
        return (f" (each attempt starts from {seed}'s, billed: the gain includes that answer; over {seed}'s own "
                f"single attempt it is {gain_interval(100 * over['value'], 100 * over['low'], 100 * over['high'])}%, "
                f"{where})")
    return (f" (each attempt starts from {seed}'s, billed: the gain includes that answer; over {seed}'s own attempt "
            "it is not tested here)")


def _technique(crossfitted: pd.DataFrame, plug_in: pd.DataFrame) -> tuple[str, bool]:
    """The techniques (and agent strategies) shown to pay: each whose cross-fitted gain is shown above 0 with every
    other of the dataset tested together (``shown``, ``claims.techniques_that_pay``), largest first, each with its
    baseline and, where its attempts cost more, the fee it breaks even at (``_break_even``), none called the best;
    those whose own interval lies above 0 but not with the others tested, and seeded strategies not shown over their
    seed model's attempt (``beats_seed``), named as such; and whether any pays. A technique over every model is
    listed before the strategies and said to be so (``_gain_name``).
    Techniques not cross-fitted over every model (estimated from vanilla runs, or too few runs on some model) are
    named as such, never as paying."""
    if crossfitted.empty and plug_in.empty:
        return "–", False
    raw = set(crossfitted["name"])
    crossfitted = crossfitted.iloc[np.argsort(_is_strategy(crossfitted), kind="stable")]  # techniques first (M7)
    crossfitted = crossfitted.assign(name=_gain_name(crossfitted))
    tested = set(crossfitted["method"].dropna()) if "method" in crossfitted else set()  # as some model's strategy
    unchecked = [names.method(n) + (" over every model together (each model's runs of it are tested as its strategy)"
                                    if n in tested else "")  # review 7
                 for n in plug_in["name"] if n not in raw]
    tail = ("; not tested as paying (estimated from vanilla runs, or some model has fewer runs of it than the k tries; "
            f"the paper's plug-in gain is in Table 2): {', '.join(unchecked)}" if unchecked else "")  # review H12
    if crossfitted.empty or not crossfitted["value"].notna().any():
        return "none checked (no technique with runs of its own)" + tail, False
    pays, seed_ok = _pays(crossfitted)
    m = int(crossfitted["value"].notna().sum())
    together = _together(m, "technique", "techniques and strategies", _never(crossfitted))
    tail = _not_named(crossfitted, pays, seed_ok) + tail
    if not pays.any():
        why = (together if (crossfitted["shown"].astype(bool).to_numpy() & ~seed_ok).any()
               else "its cross-fitted interval reaches 0" if m == 1
               else f"{together}, none shown above 0")  # shown but not over its seed: the tail says why
        return f"none shown to pay ({why}: {', '.join(crossfitted['name'])})" + tail, False
    shown = crossfitted[pays].sort_values("value", ascending=False, kind="stable")
    said = []
    for _, tech in shown.iterrows():
        baseline = tech.get("baseline")
        baseline = baseline if isinstance(baseline, str) else "over the frontier of the same models without it"
        said.append(f"{tech['name']}: "
                    f"{gain_interval(100 * tech['value'], 100 * tech['low'], 100 * tech['high'])}% "
                    f"{baseline}{fee_of_change(tech)}{_break_even(tech)}{carried(tech)}")
    return f"shown to pay ({together}): " + "; ".join(said) + tail, True


def _not_named(crossfitted: pd.DataFrame, pays: np.ndarray, seed_ok: np.ndarray) -> str:
    """The technique cell's gains not named as paying though some interval says so: seeded strategies shown over
    their model's attempt but not over their seed's (with the gain over the seed's attempt that keeps them unnamed:
    review 12, M1), and gains above 0 on their own interval only (``name`` in words), each with its cross-fitted gain
    and interval (%; review 11, M2: LDB over every model had no number)."""
    tail = ""
    alone = crossfitted[~pays & seed_ok & (crossfitted["low"] > 0)]
    if len(alone):
        tail = ("; above 0 on its own interval but not with the others tested together, so not named: "
                + ", ".join(f"{n}: {gain_interval(100 * r['value'], 100 * r['low'], 100 * r['high'])}%"
                            f"{_aside(r.get('with_it'))}" for n, (_, r) in zip(alone["name"], alone.iterrows())))
    seed_only = crossfitted[crossfitted["shown"].astype(bool).to_numpy() & ~seed_ok]
    if len(seed_only):  # each with its gain and baseline, which holds the gain over the seed's attempt (``_seeded``)
        tail = ("; shown over the debugging model's own attempt but not over the attempt of the model it starts "
                "from, so not named: " + ", ".join(
                    f"{n}: {gain_interval(100 * r['value'], 100 * r['low'], 100 * r['high'])}%"
                    + (f" {r['baseline']}" if isinstance(r.get("baseline"), str) else "")
                    for n, (_, r) in zip(seed_only["name"], seed_only.iterrows())) + tail)
    return tail


def _aside(text) -> str:
    """" (text)" where ``text`` is a non-empty string (a strategy's ``with_it``), else ""."""
    return f" ({text})" if isinstance(text, str) and text else ""


def _break_even(row) -> str:
    """"; it pays while the fee is above x% of the assumed one" where a gain's attempts cost more (``records_usd``,
    the change of the records part, below 0) and it saves fee (``expert_usd`` above 0): the fee, scaled on every
    problem alike, at which the two parts cancel, the choices made at the assumed fee held (the expert-fee curve
    moves them too); else ""."""
    records, fee = float(row.get("records_usd", np.nan)), float(row.get("expert_usd", np.nan))
    if not (np.isfinite(records) and np.isfinite(fee) and records < 0 < fee):
        return ""
    return f"; it pays while the fee is above {fmt_pct(100 * -records / fee)}% of the assumed one (the same choices)"


MOSTLY_FEE = "mostly the assumed expert fee"


def expert_cell(value: float, share_pct: float, problems: int | None) -> str:
    """A value that is more than half the expert's fee on problems no model passed, said in words: the value, the
    fee's share and the part the records decide; no interval, which would read as one for the truth (issue 35)."""
    on = (f"on the {problems} problem{'' if problems == 1 else 's'} no model passed in any run of its single attempt"
          if problems is not None else "on problems no model passed in any run of its single attempt")
    return (f"{fmt_usd(value)}: {MOSTLY_FEE} ({fee_pct(share_pct)}% of it, {on}); the records decide "
            f"{fmt_usd(value * (1 - share_pct / 100))} USD")  # review 4, L5: the unit


def _identified(single: pd.DataFrame) -> pd.DataFrame:
    """The models' policy rows that have a value (the records identify it)."""
    return single[np.isfinite(single["value"].astype(float))] if len(single) else single


def _singles(single: pd.DataFrame, model_labels: dict[str, str]) -> str:
    """"lowest v [low, high] (model) to highest v [low, high] (model) with up to k tries": the span of the models'
    policy costs, each with its interval and what ties each end, by the test that says so (``_tied_end``: review 9,
    M4; review 10, M3); where every model's paired difference with the lowest reaches 0, that, once."""
    single = _identified(single)
    if single.empty:
        return "–"
    ends = [single.loc[single["value"].idxmin()], single.loc[single["value"].idxmax()]]
    others = single[single["name"] != ends[0]["name"]]
    every = (len(others) > 0 and "ties_lowest" in others
             and bool(others["ties_lowest"].fillna(False).astype(bool).all()))
    said = [f"{_cell(r['value'], r['low'], r['high'], fmt_usd)} ("
            + (model_labels.get(r["name"], r["name"]) if every else _tied_end(single, r, i == 0, model_labels)) + ")"
            for i, r in enumerate(ends)]
    k = int(ends[0]["k"])
    return ((said[0] if len(single) == 1 else " to ".join(said)) + f" with {tries_said(k)}"
            + ("; no model is told apart from the lowest (each paired difference with it reaches 0)" if every else ""))


def _tied_end(single: pd.DataFrame, end: pd.Series, lowest: bool, model_labels: dict[str, str]) -> str:
    """Who is at one end of the models' span, and what ties it, naming the test: at the low end the models whose
    paired difference with the lowest reaches 0 (``ties_lowest``); at the high end, the models whose value lies
    inside the end's own interval, unpaired, which is no test (review 10, M3: the two read as one "tie" and
    disagreed)."""
    others = single[single["name"] != end["name"]]
    if lowest and "ties_lowest" in others:
        tied = others[others["ties_lowest"].fillna(False).astype(bool)]
    else:
        tied = others[(others["value"] >= end["low"]) & (others["value"] <= end["high"])]
    tied = tied.sort_values("value", ascending=lowest, kind="stable")
    label, named = model_labels.get(end["name"], end["name"]), [model_labels.get(m, m) for m in tied["name"]]
    if not named:
        return label
    if lowest:
        who = (" or ".join(named) if len(named) <= 2 else
               f"each of {len(named)} other models (among them {', '.join(named[:3])})" if len(named) > 3 else
               f"{', '.join(named[:-1])} or {named[-1]}")
        return f"{label}; its paired difference with {who} reaches 0"
    who = (" and ".join(f"{n}'s" for n in named) if len(named) <= 2 else
           f"{len(named)} other models' (among them {', '.join(named[:3])})")
    lies = "value lies" if len(named) == 1 else "values lie"
    return f"{label}; {who} {lies} inside its interval, unpaired: not a test"


def _cheapest(single: pd.DataFrame, model_labels: dict[str, str], families: dict[str, str]) -> tuple[str, bool]:
    """The cheapest-model cell from the models' policy costs: the model the rows mark ``cheapest`` (its paired
    difference with every other model, on the same problems and runs, below 0: ``differences.cheapest_beyond_doubt``;
    a ranking the records and the assumed fee decide, not the luck of the runs); else the lowest, said to be no finding;
    and whether it names one."""
    single = _identified(single)
    if single.empty:
        return "–", False
    def label(r):
        return model_labels.get(r["name"], r["name"])
    named = int(claims.cheapest_model(single["cheapest"].to_numpy(bool))) if "cheapest" in single else claims.NONE
    if named != claims.NONE:
        best = single.iloc[named]
        return (f"{label(best)} ({families.get(best['name'], '?')}): "
                + _cell(best["value"], best["low"], best["high"], fmt_usd)
                + f"; {fee_pct(best['expert_share_pct'])}% of it the assumed expert fee{carried(best)}; cheaper than "
                "every other model paired on the same problems"), True
    best = single.loc[single["value"].idxmin()]
    return (f"none beyond doubt: {label(best)} reads lowest on these records, "
            f"{_cell(best['value'], best['low'], best['high'], fmt_usd)}, but its difference with "
            f"{tied_with(single, 'name', model_labels)}, paired on the same problems, reaches 0"), False


def _halving(halving: pd.DataFrame | None, label: str, estimator: str, paper: float | None) -> tuple[str, bool]:
    """The halving-time cell of a dataset: estimate [interval] where the fit is reliable, else no halving time (a
    fit ``trends`` flags is not a finding) and the log-linear trend's factor per year with its 90% interval only where
    it may be shown (``trends.loglinear_shown``: its validity study holds, 5 release dates or more), with the paper's
    beside it; and whether the halving time is reliable (a finding)."""
    beside = f" (paper: {paper:g})" if paper is not None else ""
    if halving is None:
        return "–" + beside, False
    fit = halving[(halving["task"] == label) & (halving["estimator"] == estimator)]
    if fit.empty:
        return "no fit" + beside, False
    f = fit.iloc[0]
    if not pd.notna(f["halving_months"]):  # the figure's title still gives the log-linear trend: so does the cell
        return "no fit" + _loglinear(f) + beside, False
    if not bool(f["reliable"]):
        dates = f.get("release_dates", np.nan)
        few = (f": {int(dates)} release dates (at least {MIN_RELEASES} needed)"
               if pd.notna(dates) and dates < MIN_RELEASES else "")
        return f"unreliable fit: not a finding{few}" + _loglinear(f, said=bool(few)) + beside, False
    return _cell(f["halving_months"], f["halving_low"], f["halving_high"], fmt_pct) + beside, True


def _loglinear(f: pd.Series, said: bool = False) -> str:
    """"; log-linear trend ÷x per year [low, high]" of a halving-time row where it may be shown
    (``trends.loglinear_shown``), else "; <why not>" ("; no log-linear trend either" where the cell already ``said``
    the reason: too few release dates); "" without a trend."""
    from helpers.analyze.trends import loglinear_shown

    rate = f.get("factor_per_year", np.nan)
    if not np.isfinite(rate):
        return ""
    shown, why = loglinear_shown(int(f.get("release_dates", 0)))
    if shown:
        return f"; log-linear trend ÷{fmt_pct(rate)} per year [{fmt_pct(f['factor_low'])}, {fmt_pct(f['factor_high'])}]"
    return "; no log-linear trend either" if said else f"; {why}"


def at_a_glance(glance: pd.DataFrame) -> str:
    """The findings table's lead: what holds across its datasets, each said once with the datasets it holds on —
    where the assumed expert fee is more than half of the frontier's cost, and on which datasets the records support
    each claim (a cheapest single model, a most essential family, a technique that pays, a reliable halving time),
    from the table's ``CLAIMS`` columns. Every number stays in the table below it, with its interval."""
    names = list(glance["dataset"])

    def on(claim: str) -> str:
        found = [d for d, yes in zip(names, glance[claim].astype(bool), strict=True) if yes]
        return _listed(found) if found else "none"

    every = f"Across its {len(names)} datasets" if len(names) > 1 else "On its one dataset"
    may = (f" (by the estimate; its interval allows more than half on {on('fee_may_be_most')} too)"
           if "fee_may_be_most" in glance and glance["fee_may_be_most"].astype(bool).any() else "")
    fee = (f"the assumed expert fee is more than half of the frontier's cost (up to k tries, then the expert) on "
           f"{on('mostly_fee')}{may}" if glance["frontier_estimated"].astype(bool).any() else
           "the frontier of all models is not estimated (it needs 2 problems or more)")
    ran = (glance[TECHNIQUE].astype(str) != "–").any() if TECHNIQUE in glance else True
    techniques = (f"a technique or strategy that pays over its baseline (its cell names it: a strategy's is its own "
                  f"model's single attempt, not the frontier) on {on('technique_named')}, " if ran else "")  # review R2
    return (f"{every}, {fee}. The records name a cheapest single model beyond doubt on "
            f"{on('cheapest_named')}, {_families_said(glance)}, {techniques}and a reliable "
            f"halving time on {on('halving_reliable')}.{'' if ran else ' The set runs no technique.'} Every number, "
            "with its interval, is in the table.")


def _families_said(glance: pd.DataFrame) -> str:
    """The lead's family clause: "a most essential family on …"; where the family named is the only one the frontier
    chose (``family_only_chosen``), no superlative: "a family the frontier is shown to need, the only one it chose,
    on …" (review 9, M5: HumanEval's two families)."""
    named = glance["family_named"].astype(bool)
    only = (glance["family_only_chosen"].astype(bool) if "family_only_chosen" in glance
            else pd.Series(False, glance.index)) & named

    def listed(mask: pd.Series) -> str:
        found = [d for d, yes in zip(glance["dataset"], mask, strict=True) if yes]
        return _listed(found) if found else "none"

    if not only.any():
        return f"a most essential family on {listed(named)}"
    most = f"a most essential family on {listed(named & ~only)}, " if (named & ~only).any() else ""
    return most + f"a family the frontier is shown to need, the only one it chose, on {listed(only)}"


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _frontier_rows(policy: pd.DataFrame) -> pd.Series:
    """Which of ``policy_cost``'s rows is the frontier of all models: by its statistic's kind, never by a label."""
    return _kind_column(policy) == HEADLINE_FRONTIER.kind.name


def _kind_column(frame: pd.DataFrame) -> pd.Series:
    """The ``kind`` column of a CSV of statistic rows the pipeline wrote (``policy_cost``, ``policy_truth``); one line
    where the CSV is older than that column."""
    if len(frame) and "kind" not in frame:
        raise CostOfPassError("a table of statistics without its 'kind' column was written by an older version of the "
                              "pipeline: run the set's analysis again")
    return frame["kind"] if len(frame) else pd.Series(dtype=object, index=frame.index)


def in_short(policy: pd.DataFrame, task_labels: dict[str, str], truth: pd.DataFrame | None = None,
             labels: dict[str, str] | None = None, strategies: bool = False, fees: dict[str, str] | None = None,
             alone_usd: dict[str, float] | None = None) -> list[str]:
    """The report's first screen, as a list of sentences (three to seven, several with more than one number) about
    the dataset where a correct answer costs most under "up to k tries, then the expert" (``policy_cost``'s rows:
    ``task``, ``model``, ``policy_usd`` with its ``policy_low`` / ``policy_high``, ``k``, ``expert_share_pct``,
    ``cheapest``, ``chosen``): what the frontier (the model the records choose for each problem, with the expert)
    costs there, with its 95% interval, which the validity study checks; where it is no cheaper than the expert alone
    (``alone_usd``: task -> USD per problem), that; how much of it is the assumed expert fee (``fees``: task -> the
    fee in words, ``about.fee_levels``), or what the records decide; the cheapest model alone there, named cheapest
    only where its paired difference with every other model lies below 0; and where that model alone reads below the
    frontier, why (``_alone_below``), or where the frontier chose one model throughout, why its interval is the wider
    (``_one_model_chosen``). With ``truth`` (a simulated set's ``policy_truth`` rows: statistic, task, truth, covers;
    ``labels``: model id -> label), whether the simulator's truth lies in the interval, where the named cheapest model
    is not the truly cheapest one, and the truth of the frontier and of the models alone; with ``strategies`` (a set
    of agent runs), that the frontier is of the models' own attempts, the strategies compared apart. A set with no
    frontier row gets ``_in_short_alone``'s sentences instead."""
    front = policy[_frontier_rows(policy)]
    if front.empty or not np.isfinite(front["policy_usd"]).any():
        return _in_short_alone(policy, task_labels)
    top = front.loc[front["policy_usd"].idxmax()]
    where = _dearest(task_labels.get(top["task"], top["task"]), front["policy_usd"])
    own = (" (its own attempts, no agent strategy: those are compared with their models in Findings at a glance)"
           if strategies else "")
    out = [f"{where} a correct answer costs {dollars(top['policy_usd'])} per problem with the model the records "
           f"choose for each problem{own} and the human expert ({tries_said(int(top['k']))} of the chosen model, "
           f"{_k_said(int(top['k']))}then the expert; 95% interval for these problems "
           f"{dollars(top['policy_low'])} to {dollars(top['policy_high'])})."]
    if said := _no_cheaper(top, (alone_usd or {}).get(top["task"], np.inf)):
        out.append(said)
    share = float(top["expert_share_pct"])
    fee = f" ({fees[top['task']]} here)" if fees and top["task"] in fees else ""
    checked = (" (a failure the benchmark's own tests or answer key find, at no cost counted here: a deployment "
               "without such a check pays for one, or cannot stop at the first pass)")  # reviews 3, M3 and 6, M8
    out.append(f"{fee_pct(share)}% of that is the assumed expert fee{fee}, paid where every try failed{checked}: its "
               "level scales with the fee assumed for the expert (the row 'human expert' in the settings of this run), "
               "while how often the expert is needed is measured by the records." if share >= 50 else
               f"The records decide {fmt_pct(100 - share)}% of it; the rest is the assumed expert fee{fee}, paid "
               f"where every try failed{checked}.")
    if truth is not None and len(hit := truth[(_kind_column(truth) == HEADLINE_FRONTIER.kind.name)
                                              & (truth["task"] == top["task"])]):
        out.append(f"The simulator's truth on this set's problems is {dollars(hit['truth'].iloc[0])}: "
                   + ("inside that interval." if bool(hit["covers"].iloc[0])
                      else "outside that interval, which misses it."))
    alone = policy[(policy["task"] == top["task"]) & ~_frontier_rows(policy)].dropna(subset=["policy_usd"])
    if len(alone):
        best = alone.loc[alone["policy_usd"].idxmin()]
        out.append(_cheapest_alone(alone, _truly_cheapest(truth, top["task"], best["model"], labels or {})))
        if best["policy_usd"] < top["policy_usd"] * (1 - 1e-9):  # not where the rule chose that model throughout
            truly = _truths_said(truth, top["task"], best["model"], labels or {})
            out.append(_alone_below(best, top, bool(truly)) + truly)
        elif said := _one_model_chosen(alone, top):
            out.append(said)
    return out


def _no_cheaper(top: pd.Series, expert: float) -> str:
    """Review 8 (`local`): where the frontier (``top``, a ``policy_cost`` row) reads no cheaper than the expert alone
    (``expert``, USD per problem), that; a finding only where its interval's low end is at or above it, else a reading
    the interval leaves open (review 10, M2), with what the models' tries add (``records_usd``) and, where the fee is
    paid on every problem (``expert_usd`` the whole of it), that the models the rule chose passed none; "" where it
    reads cheaper."""
    if not top["policy_usd"] >= expert * (1 - 1e-9):
        return ""
    if top["policy_low"] >= expert * (1 - 1e-9):
        return (f"That is no cheaper than the human expert alone ({dollars(expert)} per problem; its whole interval "
                "lies at or above it): on this dataset the models' tries add cost.")
    records, fee = float(top.get("records_usd", np.nan)), float(top.get("expert_usd", np.nan))
    every = (" the expert's fee is paid on every problem (the models the rule chose passed none), and"
             if np.isclose(fee, expert, rtol=1e-6, atol=0) else "")
    add = f":{every} the models' tries add {dollars(records)} per problem" if np.isfinite(records) else ""
    return (f"That reads no cheaper than the human expert alone ({dollars(expert)} per problem), but its interval "
            f"reaches {dollars(top['policy_low'])}, so that is not shown{add}; a model alone may read cheaper (below).")


def _one_model_chosen(alone: pd.DataFrame, top: pd.Series) -> str:
    """Review R7: where the frontier (``top``, a ``policy_cost`` row with ``chosen``, e.g. "Claude 4.5 Opus (100%)",
    and its interval) chose one model on every problem, its value is that model's (a row of ``alone``) and two
    intervals stand for one number: say why the frontier's is the wider one, or that they are one. "" otherwise."""
    chosen = top.get("chosen") if isinstance(top.get("chosen"), str) else ""
    if not chosen.endswith(" (100%)"):
        return ""
    model = chosen.removesuffix(" (100%)")
    row = alone[alone["model"] == model]
    if row.empty:
        return ""
    r = row.iloc[0]
    said = (f"The records chose {model} on every problem, so the frontier's cost is that model's own ({model} alone: "
            f"{dollars(r['policy_usd'])}, 95% interval {dollars(r['policy_low'])} to {dollars(r['policy_high'])})")
    low, high = top.get("policy_low"), top.get("policy_high")
    if (isinstance(low, float) and isinstance(high, float) and np.isclose(low, r["policy_low"])
            and np.isclose(high, r["policy_high"])):
        return (f"{said}, and so is its interval: the records tell {model} from every other model, so no luck of "
                "theirs made the choice.")
    if bool(top.get("halved", False)):  # routed: the per-problem interval alone, the all-fail mass read below 1
        return (f"{said}; the frontier's interval is its own: it reads the problems whose runs all failed as failing "
                "at the rate the pooled runs allow rather than always, because a choice routed problem by problem "
                "gathers the problems a model nearly always fails onto it.")
    return (f"{said}; the frontier's interval is the wider one: it is the union of the per-problem interval and "
            f"{model}'s own interval at a level that holds at once for every model the records cannot tell from the "
            "cheapest, because the records also made the choice.")  # review 10, L8


def _alone_below(best: pd.Series, top: pd.Series, truth_known: bool = False) -> str:
    """Why a model alone (``best``, a ``policy_cost`` row) reads cheaper than the frontier (``top``): the frontier's
    rule chose otherwise (its ``chosen`` column, where given): where its ``halved`` column says so, by a difficulty the
    models share read on half of each problem's runs; else on the dataset's other problems (each model's shrunk
    estimate there, or with one run per problem its cost there), and whether the gap is a finding (``best`` named the
    cheapest beyond doubt) or not; without a simulator's truth (``truth_known``), that the records cannot tell the
    choice's real cost from the estimate's noise."""
    chose = top.get("chosen") if isinstance(top.get("chosen"), str) and top.get("chosen") else ""
    halved = bool(top.get("halved", False))
    how = ("a difficulty the models share (item-response curves fitted on the dataset's other problems, the problem "
           "placed on them by half of its runs of every model; valued on the other half, every split of its runs "
           "averaged)" if halved else
           "each model's cost on the dataset's other problems" if int(top["k"]) == 1 else  # one run: no shrinkage
           "each model's shrunk estimate on the dataset's other problems")
    rule = (f"the frontier's rule, which chooses each problem's model from {how}, chose {chose}" if chose else
            f"the frontier chooses each problem's model from {how}")
    if not chose.endswith(" (100%)"):  # review 9, M1: on `sim` the choices truly cost more, not a reading's luck
        rule += (" (a model chosen for each problem on other runs than those that value it can truly cost more than "
                 "one model alone where models are near-tied there)")
    verdict = (f"{best['model']} is cheaper than every other model beyond doubt, so the rule's choice costs more than "
               f"choosing {best['model']} would have" if bool(best.get("cheapest", False)) else
               "the records name no model the cheapest beyond doubt (above), and the gap between the two is not "
               "tested on its own" + ("" if truth_known else ": these records cannot tell whether it is the choice's "
                                      "real cost or the estimate's noise"))
    return (f"{best['model']} alone reads cheaper than the frontier, with the same {tries_counted(int(top['k']))}: "
            f"{rule}; {verdict}.")


def _dearest(label: str, values: pd.Series) -> str:
    """"On <label>," with where it stands among the datasets' ``values`` (one per dataset; ``label``'s is the
    largest): "the dearest of its n datasets", or "one of the dearest" where another reads the same."""
    if len(values) < 2:
        return f"On {label},"
    shown = [fmt_usd(v) for v in values]
    tied = shown.count(fmt_usd(values.max())) > 1
    return f"On {label}, {'one of the dearest' if tied else 'the dearest'} of its {len(values)} datasets,"


def _cheapest_alone(alone: pd.DataFrame, caveat: str = "") -> str:
    """The sentence on the cheapest model alone with the expert among ``alone`` (one dataset's ``policy_cost`` rows of
    single models), named cheapest only where the rows mark it ``cheapest`` (its paired difference with every other
    model below 0; then ``caveat`` follows)."""
    best = alone.loc[alone["policy_usd"].idxmin()]
    named = alone[alone["cheapest"].astype(bool)] if "cheapest" in alone else alone.iloc[:0]
    k = int(best["k"])
    tries = tries_said(k)
    if len(named):
        best = named.iloc[0]
        return (f"Alone with the expert ({tries}), {best['model']} is the cheapest model there beyond doubt, at "
                f"{dollars(best['policy_usd'])} per problem, cheaper than every other model paired on the same "
                f"problems{caveat}.")
    return (f"Alone with the expert ({tries}), no model is the cheapest there beyond doubt: {best['model']} reads "
            f"lowest on these records, {dollars(best['policy_usd'])} per problem, but its difference with "
            f"{tied_with(alone, 'model')}, paired on the same problems, reaches 0.")


def tied_with(rows: pd.DataFrame, label: str, labels: dict[str, str] | None = None) -> str:
    """Review 3, M8: the models whose paired difference with the lowest one reaches 0 (``ties_lowest``, from
    ``differences.against_lowest``; ``label`` the column naming them, mapped through ``labels``), lowest first, in
    words: "X", "X or Y", "3 other models (X, Y, Z)", "9 other models (among them X, Y, Z)"; "another model" where the
    rows do not say."""
    if "ties_lowest" not in rows:
        return "another model"
    value = "policy_usd" if "policy_usd" in rows else "value"
    tied = rows[rows["ties_lowest"].fillna(False).astype(bool)].sort_values(value, kind="stable")
    named = [(labels or {}).get(x, x) for x in tied[label]]
    if not named:
        return "another model"
    if len(named) <= 2:
        return " or ".join(named)
    return (f"{len(named)} other models ({', '.join(named)})" if len(named) <= 4 else
            f"{len(named)} other models (among them {', '.join(named[:3])})")


def _in_short_alone(policy: pd.DataFrame, task_labels: dict[str, str]) -> list[str]:
    """``in_short`` for a set with no frontier row (a dataset of one problem: the frontier chooses each problem's model
    on the dataset's other problems): on the dataset whose median model alone costs most, why, the range of what
    each model alone costs with how much of each end is the assumed expert fee, and whether one model is cheapest beyond
    doubt. No interval is given for the least cost: a minimum over noisy estimates valued on the runs that chose it
    is biased low (the winner's curse); each model's own interval is in Table 1."""
    alone = policy[~_frontier_rows(policy)].dropna(subset=["policy_usd"])
    if alone.empty:
        return []
    task = alone.groupby("task")["policy_usd"].median().idxmax()
    rows = alone[alone["task"] == task]
    low, high = rows.loc[rows["policy_usd"].idxmin()], rows.loc[rows["policy_usd"].idxmax()]
    where = _dearest(task_labels.get(task, task), alone.groupby("task")["policy_usd"].median())
    k = int(low["k"])
    tries = "its one try fails" if k == 1 else f"its {k} tries fail"
    spread = (f"Each of its {len(rows)} models alone, with the human expert where {tries}, costs from "
              f"{dollars(low['policy_usd'])} to {dollars(high['policy_usd'])} per problem" if len(rows) > 1 else
              f"Its one model alone, with the human expert where {tries}, costs "
              f"{dollars(low['policy_usd'])} per problem")
    return [f"{where} the frontier of every model, up to k tries then the expert, is not estimated: it chooses each "
            "problem's model on the dataset's other problems, and this set has too few problems or models for that "
            "(the paper's frontier, which needs no such split, is in Figure 2 below).",
            f"{spread}; {_fee_words(rows['expert_share_pct'])} (each model's 95% interval is in Table 1).",
            _cheapest_alone(rows)]


def _fee_words(shares: pd.Series) -> str:
    """How much of each model's cost alone is the assumed expert fee, from ``shares`` (% per model)."""
    lo, hi = float(shares.min()), float(shares.max())
    span = f"{fee_pct(lo)}%" if fee_pct(lo) == fee_pct(hi) else f"{fee_pct(lo)}% to {fee_pct(hi)}%"
    verdict = ("mostly scaled by the fee assumed for the expert; how often it is needed, the records measure"
               if lo >= 50 else
               "decided by the records" if hi < 50 else "set by the records for some "
               "models, by the assumed fee for others")
    return f"the assumed expert fee is {span} of these, so they are {verdict}"


def _truths_said(truth: pd.DataFrame | None, task: str, best: str, labels: dict[str, str]) -> str:
    """Review 7: where a model alone (labelled ``best``) reads below the frontier on a simulated set, what the
    simulator's truth says of both and of the truly cheapest model alone (``truth``: policy_truth rows of ``task``;
    ``labels``: model id -> label); "" without a truth."""
    rows = None if truth is None else truth[truth["task"] == task]
    if rows is None or rows.empty or not (front := rows[_kind_column(rows) == HEADLINE_FRONTIER.kind.name]).size:
        return ""
    alone = rows[_kind_column(rows) == TABLE1.name]
    truths = {labels.get(m, m): float(v) for m, v in zip(alone["item"], alone["truth"])}
    cheapest = min(truths, key=truths.__getitem__) if truths else best
    said = [f"the frontier {dollars(front['truth'].iloc[0])}"] + [
        f"{m} alone {dollars(truths[m])}" for m in dict.fromkeys((best, cheapest)) if m in truths]
    verdict = ("" if best not in truths else  # review 9, M1: the rule's choices truly cost more, or the gap is noise
               f": the rule's choices truly cost more than {best} alone" if front["truth"].iloc[0] > truths[best] else
               f": {best} alone is truly no cheaper than the frontier, so the gap is the estimate's")
    return (f" By the simulator's truth on these problems: {', '.join(said)}"
            + ("" if cheapest == best else f" (the truly cheapest model alone: {cheapest})") + verdict + ".")


def _truly_cheapest(truth: pd.DataFrame | None, task: str, named: str, labels: dict[str, str]) -> str:
    """"" where the simulator's truth agrees that the model labelled ``named`` is the cheapest alone on ``task`` (or
    there is no truth); else the words that say which model truly is. ``truth``: policy_truth rows
    (``table1:<model id>``); ``labels``: model id -> label."""
    rows = None if truth is None else truth[(truth["task"] == task) & (_kind_column(truth) == TABLE1.name)]
    if rows is None or rows.empty:
        return ""
    truly = rows["item"].iloc[int(np.argmin(rows["truth"].to_numpy()))]
    truly = labels.get(truly, truly)
    return "" if truly == named else f" (but by the simulator's truth {truly} is cheaper: this claim is wrong here)"


def reprice_changes(before: pd.DataFrame, after: pd.DataFrame, task_labels: dict[str, str]) -> pd.DataFrame:
    """What a reprice changed: the headline (``policy_cost``'s policy_usd: the frontier of all models and each
    model alone with the expert) of the set at its own prices (``before``) and at the repriced date's (``after``),
    one row per dataset and model with both (USD per problem, formatted) and the change (%, signed)."""
    keys = ["task", "model"]
    both = before[keys + ["policy_usd"]].merge(after[keys + ["policy_usd"]], on=keys, suffixes=("_before", "_after"))
    change = 100 * (both["policy_usd_after"] - both["policy_usd_before"]) / both["policy_usd_before"]
    return pd.DataFrame({"dataset": both["task"].map(lambda t: task_labels.get(t, t)), "model": both["model"],
                         "at its own prices (USD)": both["policy_usd_before"].map(fmt_usd),
                         "repriced (USD)": both["policy_usd_after"].map(fmt_usd),
                         "change (%)": [signed_pct(c) for c in change]})


def signed_pct(x: float) -> str:
    """A change in % with its sign (``+12.3``, ``-4``, ``0``); ``–`` where it is not a number."""
    if not np.isfinite(x):
        return "–"
    text = fmt_pct(x)
    return f"+{text}" if x > 0 and not text.startswith(("<", ">")) else text
