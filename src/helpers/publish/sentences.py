"""The report's sentences made from its tables: a policy cost and the paper's value in words, the lead of the validity
study's tables, the price-change sentence (numbers in, one string out)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from helpers.analyze.statistic import POLICY_FRONTIER, POLICY_LABELS, short_label
from helpers.analyze.validity import CROSSFIT_ROUTING
from helpers.core.numbers import sig
from helpers.publish.formats import fee_pct, fmt_usd


def policy_said(value: float, low: float, high: float, share: float, unidentified: float = 0, k: float = 0) -> str:
    """A policy cost in words: "v [low, high]; x% of it the assumed expert fee" (the interval holds the truth for
    the fee assumed: the validity study's check), or why there is none."""
    if unidentified and unidentified > 0:
        return f"not identified ({int(unidentified)} problems with fewer than {int(k)} runs)"
    if not np.isfinite(value):
        return "not identified (fewer than 2 problems)"
    return f"{fmt_usd(value)} [{fmt_usd(low)}, {fmt_usd(high)}]; {fee_pct(share)}% of it the assumed expert fee"


def fee_said(value: float, records: float, share: float) -> str:
    """The paper's value in words: "v (expert fee x%)", or, where the fee is more than half of it, "v: mostly the
    assumed expert fee (x%; the records decide r)"."""
    pct = fee_pct(share)
    if share > 50:
        return f"{fmt_usd(value)}: mostly the assumed expert fee ({pct}%; the records decide {fmt_usd(records)} USD)"
    return f"{fmt_usd(value)} (expert fee {pct}%)"


def tail_sentence(share: float, carried: np.ndarray, tasks: list[str], labels: dict[str, str]) -> str:
    """Where the population value of the frontier lies (``known_truth.tail_share``: the share of problems harder than
    z = 2, and the share of each dataset's frontier of all models they carry), as the lead of the study's summary."""
    parts = "; ".join(f"{labels.get(t, t)} {c:.0%}" for t, c in zip(tasks, carried))
    return (f"In this set's population truth the hardest {share:.1%} of problems (difficulty z > 2, where the "
            f"frontier is costliest) carry this share of the frontier of all models: {parts}. A set of this size "
            "seldom holds such problems, so no interval computed from one set covers the population value as often as "
            "promised (last column); each set is judged against the value of its own problems.")


def _family(statistic: str) -> str:
    """A statistic family's short name: 'Table 1: one model and the expert (USD)' -> 'Table 1'."""
    return short_label(statistic)


def generators_lead(table: pd.DataFrame, target: float = 93.0, range_target: float = 95.0) -> str:
    """What the generator study says of the report's numbers, in sentences made from its table
    (``policy_study.study`` and ``validity.generator_study`` rows): the headline interval's coverage per statistic
    family over the generators, with the sets per generator; how often a technique was named as paying though its
    true gain was not positive; the generators on which each other estimator covers at least ``target`` for every
    family; those on which none does, and whether the range the records allow holds the truth at least
    ``range_target`` there; the cross-fitted routing envelope's coverage over the generators."""
    route = table[(table["statistic"] == CROSSFIT_ROUTING) & table["coverage_pct"].notna()]
    d = table[table["coverage_pct"].notna() & (table["statistic"] != CROSSFIT_ROUTING)]
    head = d[d["headline"]]
    spans = "; ".join(f"{_family(s)} {g['coverage_pct'].min():.1f}–{g['coverage_pct'].max():.1f}%"
                      for s, g in head.groupby("statistic", sort=False))
    sets = f", {int(head['sets'].min())} sets per generator" if "sets" in head and head["sets"].notna().any() else ""
    worst = d.groupby(["generator", "estimator"], sort=False)["coverage_pct"].min().unstack()
    sentences = [f"The headline interval (the cost with up to k tries, then the expert) covers at least {target:g}% in "
                 f"{int((head['coverage_pct'] >= target).sum())} of {len(head)} (generator, statistic) cells; "
                 f"over the {head['generator'].nunique()} generators{sets}: {spans}"]
    for label, what in ((POLICY_LABELS["technique gain"], "A technique was named as paying (its cross-fitted "
                         "gain shown above 0 with the others tested together) while its true gain was not positive"),
                        (POLICY_LABELS["family"], "A family was named the most essential (its gain's interval above 0 "
                         "and above every other family's) while another's true gain was larger"),
                        (POLICY_LABELS["table1"], "A model was named the cheapest alone with the expert (its paired "
                         "difference with every other model below 0) while another truly cost less")):
        f = d[(d["statistic"] == label) & d["false_findings_pct"].notna()] if "false_findings_pct" in d else d.iloc[:0]
        if len(f):
            lo, hi = f["false_findings_pct"].min(), f["false_findings_pct"].max()
            sentences.append(f"{what} in {f'{lo:.1f}–{hi:.1f}%' if hi > lo else f'{lo:.1f}%'} of the datasets"
                             f"{'' if hi > lo else ' on every generator'}")
    sentences += _comparison_sentences(d)
    head_estimators = set(head["estimator"])
    for est in worst.columns:
        if est in head_estimators:
            continue
        e = d[d["estimator"] == est]
        low = e.loc[e.groupby("generator", sort=False)["coverage_pct"].idxmin()].sort_values("coverage_pct",
                                                                                                ascending=False)
        sentences.append(f"The {est} interval's lowest coverage over the statistics, per generator: " + ", ".join(
            f"{g} {c:.1f}% ({_family(s)})" for g, s, c in zip(low["generator"], low["statistic"], low["coverage_pct"])))
    nobody = [g for g in worst.index if not (worst.loc[g] >= target).any()]
    if nobody:
        rng = d[d["generator"].isin(nobody) & d["headline"]]
        short = rng[rng["range_coverage_pct"] < range_target]
        sentences.append(f"No estimator covers at least {target:g}% for every statistic on: {', '.join(nobody)}; there "
                         + (f"the range the records allow held the truth at least {range_target:g}% of the time for "
                            "every statistic" if short.empty else
                            "the range the records allow fell short in " + ", ".join(
                                f"{g} {_family(s)} {c:.0f}%" for g, s, c in
                                zip(short["generator"], short["statistic"], short["range_coverage_pct"]))))
    sentences += _routing_sentence(route)
    se = pd.concat([d, route])["coverage_se_pct"].max()
    return ". ".join(sentences) + (f" (Monte-Carlo standard errors up to {se:.0f} points)." if np.isfinite(se) else ".")


def _span(values: pd.Series, digits: int = 0, unit: str = "%") -> str:
    """"lo–hi<unit>" of ``values`` to ``digits`` decimals (one number where both ends print alike); a share (%) below
    100 that would print as 100 gets the decimals that keep it below (review 11, L3: a power of 99.72% read "100%")."""
    lo, hi = values.min(), values.max()
    def f(x: float) -> str:
        more = next((d for d in range(digits, digits + 4) if unit != "%" or x >= 100 or round(x, d) < 100),
                    digits + 3)
        return f"{x:.{more}f}"
    return f"{f(lo)}–{f(hi)}{unit}" if f(hi) != f(lo) else f"{f(lo)}{unit}"


def _comparison_sentences(d: pd.DataFrame) -> list[str]:
    """What the paired comparisons of the models alone (``policy_study.PAIRS`` rows) found, and the frontier's truth
    against the best single model's (its ``vs_best_single``), over the generators; none without those columns."""
    from helpers.analyze.policy_study import PAIRS

    out = []
    pairs = d[d["statistic"] == PAIRS] if "power_pct" in d else d.iloc[:0]
    if len(pairs):
        out.append(f"Paired on the same problems and runs, two models alone were told apart where one truly costs at "
                   f"most half the other in {_span(pairs['power_pct'])} of the pairs, on the wrong side in "
                   f"{_span(pairs['false_findings_pct'], 1)}; their intervals were "
                   f"{_span(pairs['width_vs_oracle'], 1, '')} times the narrowest valid ones")
    front = d[(d["statistic"] == POLICY_FRONTIER.label) & d["vs_best_single"].notna()] if "vs_best_single" in d \
        else d.iloc[:0]
    if len(front):
        out.append("The frontier (each problem routed to one model by a difficulty the models share, read on half "
                   f"of its runs) truly cost {_span(front['vs_best_single'], 2, '')} times the best single model at "
                   "the same k over all datasets together "
                   f"({_span(front['vs_best_single_worst'], 2, '')} on the worst dataset"
                   + (f"; {int(front['sets'].iloc[0])} sets per generator)" if "sets" in front else ")"))  # L5
    return out


def _routing_sentence(route: pd.DataFrame) -> list[str]:
    """The cross-fitted routing envelope's coverage over the generators (``CROSSFIT_ROUTING`` rows), if any."""
    if route.empty:
        return []
    lo, hi = route["coverage_pct"].min(), route["coverage_pct"].max()
    return ["The cross-fitted routing envelope's 95% interval held what its choices truly reach in "
            f"{f'{lo:.1f}–{hi:.1f}%' if hi > lo else f'{lo:.1f}%'} of (set, budget) pairs over the "
            f"{route['generator'].nunique()} generators"]


PER_PROBLEM_MIN = ("each problem's cheapest model on its recorded runs, which reads lower the more models and runs "
                   "there are; the headline figure shows the headline's frontier")


def price_change_sentence(split: pd.DataFrame, task_labels: dict[str, str], billed: bool = False,
                          price_dates: list[str] | None = None) -> str | None:
    """One sentence in place of the new-models / prices figure when no price changed between its dates (the figure
    would show empty price bars) or the split is not identifiable, else ``None``. ``split``: ``Analysis.price_change``
    rows; ``billed``: the set's records carry USD as billed (``Params.billed``): no record can be repriced, so a price
    cut made before a run is inside its bill and the split cannot be told; ``price_dates`` (ISO dates,
    ``Analysis.price_dates``): where none is at or before the start, no earlier price exists to reprice to, and "no
    price changed" would be true by construction (review 11, M4)."""
    if split.empty:
        return None
    changes = "; ".join(f"{task_labels.get(t, t)} {sig(v)}%" for t, v in zip(split["task"], split["change_pct"]))
    start, end = split["start"].iloc[0], split["end"].iloc[0]
    changed = (f"The paper's frontier changed between {start} and {end} ({changes}; {PER_PROBLEM_MIN}), but how much "
               "of that came from new models and how much from")
    if billed:
        return (f"{changed} price cuts is not identifiable here: the records carry the USD each run was "
                "billed when its source ran it, not tokens, so none can be repriced to the prices of an earlier date, "
                "and a price cut made before a run is inside its bill.")
    if price_dates and min(price_dates) > str(start):
        held = "one price date" if len(price_dates) == 1 else f"{len(price_dates)} price dates"
        return (f"{changed} prices is not identifiable here: the price ledger holds {held} for the set's models "
                f"({', '.join(price_dates)}), none at or before {start}, so no earlier price exists to reprice to: "
                "every model is priced as of its first date, and no price can change.")
    if not np.allclose(split["prices_pct"].to_numpy(float), 0.0):
        return None
    return (f"No price of the models of this set changed between {start} and {end} in its price ledger (a price cut "
            "the ledger does not hold, such as one after its last snapshot, is not seen): the whole change of the "
            "paper's "
            f"frontier over that time ({changes}; {PER_PROBLEM_MIN}) came from the models added by then (a newer "
            "snapshot at a lower price counts as a new model here), as the table below itemises.")


def fee_reading(switches: pd.DataFrame, fees: dict[str, float], tasks: list[str], task_labels: dict[str, str],
                varies: frozenset[str] = frozenset()) -> str:
    """The expert-fee curve's reading: per dataset in ``tasks``' order (the panels'), which model is the cheapest alone
    with the expert over which fees (``switches``: ``costofpass.cheapest_by_fee`` rows, exact switches, said to three
    significant figures), and the fee the set assumes there (USD per problem; for ``varies``' tasks, whose problems
    have fees of their own, a mean over them). Where no try passes a problem for less than the fee (``at_fee``), every
    model costs the fee itself: a tie, said as such, so a model that never passed is never named the cheapest there
    by a tie-break (review 9, M10)."""
    parts = []
    by_task = dict(tuple(switches.groupby("task", sort=False)))
    for task in [t for t in tasks if t in by_task]:
        d = by_task[task]
        cuts = [sig(float(x), 3) for x in d["to_usd"].iloc[:-1]]
        spans = [f"up to {cuts[0]}", *(f"of {lo}–{hi}" for lo, hi in zip(cuts[:-1], cuts[1:])),
                 f"above {cuts[-1]}"] if cuts else []
        tie = d["at_fee"].fillna(False).astype(bool) if "at_fee" in d else pd.Series(False, d.index)
        said = [(f"every model costs the fee itself for fees {span} USD (no try passes a problem for less: a tie, "
                 "no model the cheapest)" if at else f"{model} for fees {span} USD")
                for model, span, at in zip(d["model"], spans, tie, strict=True)] if cuts else []
        assumed = (f"a mean fee of {fmt_usd(fees[task])} USD over its problems' own fees; the curve scales them "
                   "together, so each fee here is a mean" if task in varies else f"{fmt_usd(fees[task])} USD")
        parts.append(f"on {task_labels.get(task, task)} (the set assumes {assumed}), "
                     + ("; ".join(said) if said else
                        f"{d['model'].iloc[0]} at every fee from {fmt_usd(d['from_usd'].iloc[0])} to "
                        f"{fmt_usd(d['to_usd'].iloc[-1])} USD"))
    return ("**Reading.** The cheapest model alone with the expert, by the expert's fee per problem (the paper's point "
            "estimates, not findings beyond doubt: another draw of problems or runs can move a switch or swap two "
            "close models; each switch is where two models' values cross, found exactly): " + " — ".join(parts) + ".")


def same_day_said(credit: pd.DataFrame, labels: dict[str, str], task_labels: dict[str, str]) -> str | None:
    """Figure 4's lead where models released on one day are credited in list order (``Analysis.same_day_credit``
    rows): each such model's gain over the orders of its day, per dataset; None where no two models share a day."""
    if credit.empty:
        return None
    parts = []
    for (task, date), day in credit.groupby(["task", "date"], sort=False):
        ranges = [f"{labels.get(r.model, r.model)} "
                  f"{_pct_range(min(r.first_pct, r.last_pct), max(r.first_pct, r.last_pct))}"
                  for r in day.itertuples()]  # relative to the frontier before it: last can read more than first
        parts.append(f"{task_labels.get(task, task)}, {pd.Timestamp(date):%Y-%m-%d}: " + ", ".join(ranges))
    return ("**Same-day releases.** Models released on one day are credited here one at a time in the set's list "
            "order, as the paper's reference code does, so each one's bar depends on that order; over every order of "
            "its day a model's gain spans (the setting fidelity.release_steps: one_date credits the day as one step): "
            + "; ".join(parts) + ".")


def _pct_range(low: float, high: float) -> str:
    """``low``–``high``% (one number where they agree to the shown precision)."""
    return f"{sig(low)}%" if sig(low) == sig(high) else f"{sig(low)}–{sig(high)}%"
