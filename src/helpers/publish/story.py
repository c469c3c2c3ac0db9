"""What each of the paper's results says, in one short paragraph computed from the numbers just published: the
reading the report shows before the result (its lead) and the stage notebook's closing "What it found". The
paper's plug-in estimator throughout; the report gives every interval."""

from __future__ import annotations

import numpy as np
import pandas as pd

from helpers.core.numbers import sig
from helpers.publish.formats import NOT_CHOSEN, fee_pct, fmt_usd, gain_interval, gain_said, one_problem
from helpers.publish.text import one_run_gains

BEYOND_DOUBT = "Findings at a glance names one only where its interval says so"  # a reading's caveat


def _listed(parts: list[str]) -> str:
    return "; ".join(parts) if parts else "nothing to report"


def table1_found(table1: pd.DataFrame, tasks: list[str], task_labels: dict[str, str], expert: dict[str, float],
                 fee_share: dict[tuple[str, str], float] | None = None, one_run: bool = False,
                 lowest: dict[tuple[str, str], float] | None = None,
                 truth: dict[tuple[str, str], float] | None = None) -> str:
    """The model with the lowest value of the paper's Table 1 per dataset (``table1``: model, family, a column per
    task, USD), whether it beats the expert alone (``expert``: task -> USD), and, where more than half of that value
    is the assumed expert fee (``fee_share``: (task, model label) -> %), that the fee sets the level there (on
    problems the model never passed; with ``one_run`` per cell no passed problem can cost more than the fee).
    ``lowest`` ((task, model label) -> USD: the lowest value the records allow each model, ``table1_lowest``): where
    another model's reaches below the one named, which model is lowest is not settled by the records, and that is
    said (review 11, M1); ``truth`` ((task, model label) -> USD, a simulated set's, ``table1_truths``): the
    simulator's truth beside each value said, and which model it puts lowest."""
    parts = []
    for task in tasks:
        if task not in table1 or table1[task].isna().all():
            continue
        best = table1.loc[table1[task].idxmin()]
        beats = best[task] < expert.get(task, np.inf) * (1 - 1e-9)
        share = (fee_share or {}).get((task, best["model"]), 0.0)
        rivals = _rivals(table1, task, best, lowest or {}, truth or {})
        parts.append(f"{task_labels.get(task, task)}: {best['model']} at {fmt_usd(best[task])} USD"
                     + _usd_truth((truth or {}).get((task, best["model"])), " (",
                                  ", the lowest)" if _truly_lowest(table1, task, truth or {}) == best["model"] else ")")
                     + ("" if beats else " (no model beats the expert alone)")
                     + (f", {fee_pct(share)}% of it the assumed expert fee on problems it never passed"
                        + ("" if one_run else " or passed too rarely to beat the fee")
                        + (" (the fee sets the level)" if rivals else
                           " (the fee sets the level; which model is lowest rests on the problems each never passed: "
                           "the expert-fee curve shows from which fee on)") if share > 50 else "") + rivals)
    return ("The lowest value of the paper's Table 1, per dataset (a point estimate, not a finding beyond doubt: "
            f"{BEYOND_DOUBT}; the paper's cost-of-pass divides the mean cost of a try by the pass rate, the "
            "headline counts the tries until the first pass, then the expert, so the two differ either way): "
            + _listed(parts) + ".")


def _rivals(table1: pd.DataFrame, task: str, best: pd.Series, lowest: dict[tuple[str, str], float],
            truth: dict[tuple[str, str], float]) -> str:
    """"; X reads v, but the records allow it as low as l, on problems it never passed …: which model is lowest rests
    on the problems the others never passed …" where the lowest value the records allow some other model of
    ``table1`` on ``task`` (``lowest``, USD) lies below ``best``'s value: the model the simulator's ``truth`` puts
    lowest where it is one of them, else the one allowed lowest, and how many more; else "" (the simulator's truth
    beside, where given)."""
    value = float(best[task])
    below = table1[[m != best["model"] and lowest.get((task, m), np.inf) < value * (1 - 1e-9)
                    for m in table1["model"]]]
    if below.empty:
        return ""
    true = {m: truth[(task, m)] for m in table1["model"] if np.isfinite(truth.get((task, m), np.nan))}
    first = _truly_lowest(table1, task, truth)
    row = (below[below["model"] == first] if first in set(below["model"]) else
           below.loc[[min(below.index, key=lambda i: lowest[(task, below.at[i, "model"])])]]).iloc[0]
    m, more = row["model"], len(below) - 1
    return (f"; {m} reads {fmt_usd(row[task])}, but the records allow it as low as {fmt_usd(lowest[(task, m)])}, on "
            "problems it never passed" + (f", and its truth, {fmt_usd(true[m])}, is the lowest" if m == first else "")
            + _aside(_usd_truth(true.get(m)) if m != first else "",
                     f"{more} other model{'s' if more > 1 else ''} the records allow below it too" if more else "")
            + ": which model is lowest rests on the problems the others never passed (the expert-fee curve shows "
              "from which fee on)")


def _truly_lowest(table1: pd.DataFrame, task: str, truth: dict[tuple[str, str], float]) -> str | None:
    """The model of ``table1`` whose simulator's ``truth`` on ``task`` is the lowest; None without a truth."""
    true = {m: truth[(task, m)] for m in table1["model"] if np.isfinite(truth.get((task, m), np.nan))}
    return min(true, key=lambda m: true[m]) if true else None


def _usd_truth(truth: float | None, before: str = "", after: str = "") -> str:
    """"the simulator's truth: x" of a USD value said on a simulated set (``truth``), between ``before`` and
    ``after``; else ""."""
    if truth is None or not np.isfinite(truth):
        return ""
    return f"{before}the simulator's truth: {fmt_usd(truth)}{after}"


def table1_lowest(st, labels: dict[str, str]) -> dict[tuple[str, str], float]:
    """(task, model label) -> the lowest value of the paper's Table 1 the records allow (USD per problem: the range's
    low end, its never-passed problems at their lowest cost-of-pass) from ``st`` (``intervals.SetStatistics``)."""
    from helpers.analyze.statistic import TABLE1

    rows = st.of(TABLE1)
    rows = rows[rows["estimator"] == "plug-in"]
    return {(r.task, labels.get(r.statistic, r.statistic)): float(r.range_low) for r in rows.itertuples()
            if np.isfinite(r.range_low)}


def table1_truths(truths: dict | None, tasks: list[str], labels: dict[str, str]) -> dict[tuple[str, str], float]:
    """(task, model label) -> the simulator's truth of the paper's Table 1 value (USD per problem) from ``truths``
    (``known_truth.set_truths``: statistic key -> (T,) values in ``tasks``' order); {} without a truth."""
    return {(task, labels.get(key.item, key.item)): float(v[i]) for key, v in (truths or {}).items()
            if key.kind.name == "table1" for i, task in enumerate(tasks)}


def trends_found(halving: pd.DataFrame, estimator: str = "plug-in") -> str:
    """The frontier's halving time per dataset (``halving``: the ``figure2_halving_times`` table, task labels)."""
    parts = []
    for _, r in halving[halving["estimator"] == estimator].iterrows():
        if not np.isfinite(r["halving_months"]):
            parts.append(f"{r['task']}: no fit")
            continue
        parts.append(f"{r['task']}: " + (f"{sig(r['halving_months'])} months [{sig(r['halving_low'])}, "
                                         f"{sig(r['halving_high'])}]" if r["reliable"] else
                                         "not shown (an unreliable fit: the fits of Eq. 11 say why)"))
    return "The frontier's halving time (Eq. 11), per dataset: " + _listed(parts) + "."


def families_found(values: pd.DataFrame, headline: dict[str, dict[str, tuple[float, str]]] | None = None) -> str:
    """The family whose removal costs the frontier most, per dataset (``values``: task rows × family columns, %), by
    the paper's point estimates; beside it, where ``headline`` (task label -> family -> (gain %, words), largest first,
    ``family_headline``) holds the dataset, the same family under the headline's cost, so the two numbers are read
    together (review H11), and the headline's largest where it is another family whose gain reads above 0 (review 8;
    review 9, M7: a family never chosen, 0, is not "the largest" because the others read below 0)."""
    parts = []
    for task, row in values.iterrows():
        theirs = (headline or {}).get(task, {})
        if row.isna().all() or row.max() <= 0:
            top = next(iter(theirs.values()), (0.0, ""))
            parts.append(f"{task}: none lowers the frontier" + (f"; {top[1]}" if top[1] and top[0] > 0 else ""))
            continue
        family = row.idxmax()
        same = f"; {theirs[family][1]}" if family in theirs else ""
        first = next(iter(theirs), family)
        other = (f"; the highest there by its point estimate {theirs[first][1]}"
                 if first != family and theirs[first][0] > 0 else
                 "; under the headline's cost no family's gain reads above 0" if first != family else "")
        parts.append(f"{task}: {family} ({sig(row.max())}%){same}{other}")
    return ("The family the frontier could least do without, per dataset, by the paper's point estimates (not a "
            f"finding beyond doubt: {BEYOND_DOUBT}): " + _listed(parts) + ".")


def family_headline(numbers: pd.DataFrame, task_labels: dict[str, str]) -> dict[str, dict[str, tuple[float, str]]]:
    """Per dataset label, each family's gain under the headline's frontier (``numbers``: ``policy_views
    .counterfactuals``' family rows: task id, what, item, value, low, high, shown; gains 0-1) as (gain %, words),
    largest first: "under the headline's cost (cross-fitted), GPT-4: 62 [21.6, 100 (max)]%, shown with every family
    tested together" (or "not shown: …", or, where the interval lies wholly below 0, that the frontier is dearer with
    it; a family never chosen, 0 [0, 0], said in words: ``formats.gain_said``); no
    dataset where no family's gain is a number."""
    fams = numbers[(numbers["what"] == "family") & np.isfinite(numbers["value"].astype(float))]
    out: dict[str, dict[str, tuple[float, str]]] = {}
    for task, g in fams.groupby("task", sort=False):
        for _, r in g.sort_values("value", ascending=False, kind="stable").iterrows():
            shown = ("shown with every family tested together" if bool(r["shown"]) else
                     "its own interval lies wholly below 0: under the headline's cost the frontier is dearer with it"
                     if r["high"] < 0 else  # review 10, M5: not a weak "not shown" of the plug-in's claim
                     "not shown with every family tested together")
            interval = gain_said(100 * r["value"], 100 * r["low"], 100 * r["high"])
            out.setdefault(task_labels.get(task, task), {})[r["item"]] = (100 * float(r["value"]), (
                f"under the headline's cost (cross-fitted), {r['item']}: {interval}" + (
                    "" if interval.startswith(NOT_CHOSEN) else f", {shown}")))
    return out


def techniques_found(table2: pd.DataFrame, tasks: list[str], task_labels: dict[str, str],
                     shown: dict[str, str] | None = None, truth: dict[tuple[str, str], float] | None = None,
                     strategies: bool = False) -> str:
    """Table 2's reading: the paper's plug-in gains above 0 (``table2``: technique, a column per task, %), per dataset,
    as the paper's point estimates, none called the largest (review 9, H1: on `sim` every named gain was truly 0);
    where one problem carries more than half of a gain (``table2.attrs["influence"]``, ``table2_techniques``), its
    share and name. ``shown`` (task -> words, ``findings.shown_to_pay``): the techniques and agent strategies the
    headline's validated test shows to pay (cross-fitted, tested together), as Findings at a glance names them, said
    first (review 10, H1: the strategies it names too); ``truth`` ((technique, task) -> %, a
    simulated set's ``known_truth.set_truths``): the simulator's truth beside each gain named; ``strategies``: the set
    has agent strategies, in a table of their own."""
    from helpers.publish.names import method

    influence = table2.attrs.get("influence")
    parts = []
    for task in tasks:
        if task not in table2 or table2[task].isna().all():
            continue
        above = table2[table2[task] > 0].sort_values(task, ascending=False, kind="stable")
        said = [f"{method(r['technique'])} +{sig(r[task])}%" + _aside(
            _carried(influence, r["technique"], task).removeprefix("; "),
            _truth_beside((truth or {}).get((r["technique"], task)))) for _, r in above.iterrows()]
        parts.append(f"{task_labels.get(task, task)}: " + (", ".join(said) if said else "none above 0"))
    where = "Table 2" + ("; the agent strategies, each beside its own model, are in their own table" if strategies
                         else "")
    tested = [f"{task_labels.get(t, t)}, {(shown or {})[t]}" for t in tasks if (shown or {}).get(t)]
    none = "none of the techniques or strategies, on any dataset" if strategies else "none, on any dataset"
    test = ("" if shown is None else
            "Shown to pay by the headline's test (cross-fitted, every technique"
            + (" and strategy" if strategies else "")
            + f" of a dataset tested together; Findings at a glance): {'; '.join(tested) if tested else none}. ")
    return (f"{test}The paper's plug-in gains above 0 ({where}), per dataset: point estimates, not findings "
            f"({BEYOND_DOUBT}; a technique applied to every model adds as many independently estimated strategies, "
            "so its plug-in gain reads above 0 even where it has no effect): " + _listed(parts) + ".")


def technique_truths(truths: dict | None, tasks: list[str]) -> dict[tuple[str, str], float] | None:
    """(technique, task) -> the simulator's truth of the paper's technique gain (%) from ``truths``
    (``known_truth.set_truths``: statistic key -> (T,) values in ``tasks``' order); None without a truth."""
    if truths is None:
        return None
    return {(key.item, task): 100 * float(v[i]) for key, v in truths.items() if key.kind.name == "technique gain"
            for i, task in enumerate(tasks)}


def _truth_beside(truth: float | None) -> str:
    """"the simulator's truth: x%" of a gain named on a simulated set (``truth`` in %), else ""."""
    if truth is None or not np.isfinite(truth):
        return ""
    return f"the simulator's truth: {'0' if abs(truth) < 5e-7 else sig(truth)}%"


def _aside(*parts: str) -> str:
    """" (a; b)" of the non-empty ``parts``, else ""."""
    said = [p for p in parts if p]
    return f" ({'; '.join(said)})" if said else ""


def _carried(influence: pd.DataFrame | None, technique: str, task: str) -> str:
    """", <share>% of it from one problem, <id>" where one problem carries more than half of a gain; else ""."""
    if influence is None or influence.empty:
        return ""
    row = influence[(influence["technique"] == technique) & (influence["task"] == task)]
    return "" if row.empty else one_problem(100 * row["share"].iloc[0], row["problem_id"].iloc[0])


def numbered(sentences: list[str]) -> str:
    """Sentences as a numbered Markdown list."""
    return "\n".join(f"{i}. {text}" for i, text in enumerate(sentences, 1))


def _passes_worth(row: dict) -> str:
    """Review 3, M6: what the cheapest passes of an ``about.what_it_shows`` row are worth together, the part of the
    paper's frontier (``end_usd``) that is not the expert's fee (``expert_pct``)."""
    records = row["end_usd"] * (1 - row["expert_pct"] / 100)
    return (f"those passes together are worth {fmt_usd(records)} USD per problem, {fee_pct(100 - row['expert_pct'])}% "
            "of that frontier")


def set_found(rows: list[dict], source: str = "") -> str:
    """What a real set shows, one sentence per dataset, from ``about.what_it_shows`` rows: models and their release
    span (once where every dataset shares them), the paper's frontier at the first release and now (USD per problem),
    the share of today's frontier that is the expert's fee on problems no model passed, and the models cheapest most
    often on the problems some model passed (% of those problems); then, once, where the expert's fee is a project
    estimate; ``source``: where the records come from and their licence."""
    same = len({(r["models"], r["first"], r["last"]) for r in rows}) == 1
    said = []
    for i, r in enumerate(rows):
        cheapest = ", ".join(f"{m} ({pct:.0f}%)" for m, pct in r["cheapest"])
        fell = _fell(r)
        last = "its last value" if r.get("headline") else "today's"  # the paper's frontier now, as the sentence ends
        said.append(
            (f"On {r['label']} it {fell}" if same and i else
             f"Across {r['models']} models released between {r['first']} and {r['last']}, the frontier cost of a "
             f"correct answer on {r['label']} {fell}")
            + f"; {fee_pct(r['expert_pct'])}% of {last} is the expert's fee on the {r['unsolved']} "
            f"problem{'' if r['unsolved'] == 1 else 's'} no model passed in any run of its single "
            f"attempt ({r['unsolved_pct']:.1f}%)"
            + (f", and on the {r['solved']} problem{'' if r['solved'] == 1 else 's'} some model passed the cheapest "
               f"recorded pass is most often {cheapest} (in these records, not a ranking beyond them; "
               + _passes_worth(r) + ")" if cheapest else "") + ".")
    billed = (["Every record's USD is what its run was billed when the source ran it, not at its model's release, "
               "through the providers, caching and agent limits the source used (a failure its step or cost limit cut "
               "off cost less than it would have run on), so the fall compares the models the source ran, not the "
               "prices of their time, and where the first date has few models its start says more about which models "
               "the source covers than about that date."]
              if any(r.get("billed") for r in rows) else [])
    return " ".join(said + billed + _estimated_fee(rows)) + (f" Records: {source}." if source and said else "")


def _fell(r: dict) -> str:
    """How the frontier moved over the releases of one ``what_it_shows`` row: the headline's (up to k tries, then the
    expert; cross-fitted, with its 95% intervals) where the row holds it, the paper's estimator's beside it; else the
    paper's alone, named as such."""
    paper = f"{fmt_usd(r['start_usd'])}{_start(r)} to {fmt_usd(r['end_usd'])} USD per problem"
    h = r.get("headline")
    if not h:
        return f"went from {paper} (the paper's estimator)"
    (a, a_lo, a_hi), (b, b_lo, b_hi) = h["start"], h["end"]
    tries = "one try" if h["k"] == 1 else f"up to {h['k']} tries"
    shown, gains, named = h.get("gains_shown", 0), h.get("gains", 0), h.get("gains_named", [])
    which = f": {'; '.join(named)}" if named and len(named) == shown else ""
    settled = ("" if not gains else "; no single release after the first has a gain shown, all tested "
               f"together{_losses_said(h)}, and the change from the first date to the last is not tested as a whole"
               if not shown else
               f"; {shown} of the {gains} releases after the first {'has' if shown == 1 else 'have'} a gain "
               f"shown, all tested together{which}"
               + (", each over the imported models released before it, not over every model of its time (models "
                  "the source gives no per-problem records of, and models kept to Table 1, named in its caveats, "
                  "are in no frontier: where few came before, a release's gain says more about which models the source "
                  "ran than about that release)" if r.get("imported") else ""))
    settled += f"; {one_run_gains()}" if gains and r.get("runs") == 1 else ""  # review 11, M3
    usd = _distinct(a, b)
    return (f"went from {usd(a)} [{usd(a_lo)}, {usd(a_hi)}] to {usd(b)} [{usd(b_lo)}, "
            f"{usd(b_hi)}] USD per problem with {tries} of the model the records choose for each problem, then "
            "the expert (95% "
            f"intervals{settled}); the paper's estimator (each problem's cheapest model, read on the same runs) reads "
            f"{paper}")


def _distinct(a: float, b: float):
    """A USD format for two values said as a change: ``fmt_usd``, or more figures where it prints two different values
    alike (review 9, M9: "from 0.167 to 0.167" was a rise from 0.1668 to 0.1672)."""
    if a == b or fmt_usd(a) != fmt_usd(b) or not (np.isfinite(a) and np.isfinite(b)):
        return fmt_usd
    digits = next((d for d in range(4, 8) if sig(a, d) != sig(b, d)), 8)
    return lambda x: sig(x, digits)


def _losses_said(h: dict) -> str:
    """"; the release of X made it dearer, its gain … wholly below 0 on its own interval" for the headline's releases
    whose gain's interval lies below 0 (``losses`` of ``about._headline_fall``; review 9, M9), else ""."""
    losses = h.get("losses") or []
    if not losses:
        return ""
    said = " and ".join(f"{label} ({gain_interval(v, lo, hi)}%)" for label, v, lo, hi in losses)
    one = len(losses) == 1
    return (f"; the release{'' if one else 's'} of {said} made it dearer: {'its' if one else 'each'} gain's own "
            "interval lies wholly below 0")


def _start(r: dict) -> str:
    """Who sets the trend's start where one or two models were released on the first date (``start_models``: label
    and % of problems passed), in words after the start's USD; else ""."""
    first = r.get("start_models") or []
    if not first or len(first) > 2:
        return ""
    n = r.get("problems")
    names = " and ".join(label for label, _ in first)
    pcts = " and ".join(f"{round(pct * n / 100)} of {n} ({pct:.0f}%)" if n else f"{pct:.0f}%" for _, pct in first)
    once = "" if r.get("runs") == 1 else " at least once"  # one run a cell: passed is passed once
    return (f" (on {r['first']} only {names} {'was' if len(first) == 1 else 'were'} out; "
            f"{'it' if len(first) == 1 else 'they'} passed {pcts}{'' if n else ' of problems'}{once})")


def _estimated_fee(rows: list[dict]) -> list[str]:
    """Once: the expert's mean fee where it is a project estimate (``fee_usd`` of ``what_it_shows`` rows)."""
    fees = [(r["label"], fmt_usd(r["fee_usd"])) for r in rows if r.get("fee_usd") is not None]
    if not fees:
        return []
    mean = " on average" if any(r.get("fee_varies") for r in rows if r.get("fee_usd") is not None) else ""
    amounts = (f"{fees[0][1]} USD per problem{mean}" if len({f for _, f in fees}) == 1 else
               "; ".join(f"{f} USD per problem on {label}" for label, f in fees))
    where = "" if len(fees) == len(rows) or len({f for _, f in fees}) > 1 else \
        f" on {' and '.join(label for label, _ in fees)}"  # the others' fees have a published source
    return [f"The expert's fee{where} ({amounts}) is a project estimate, not a published figure: the expert-fee curve "
            "shows where each finding would change."]
