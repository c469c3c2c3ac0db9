"""The model-based estimate as a sensitivity analysis (issue 35, item 6): the item-response model's Table 1, frontier
and technique gains, kept out of the paper's tables and the findings, each number marked by what speaks against it:
the model's checks on this dataset, and the generators of the validity study on which its interval under-covers.
"""

from __future__ import annotations

import pandas as pd

from helpers.analyze import intervals
from helpers.analyze.estimates import Analysis
from helpers.analyze.statistic import FAMILY_LABELS, FRONTIER, KEY_COLUMNS, TABLE1, TECHNIQUE_GAIN
from helpers.publish.formats import NEVER_PASSED, fmt_usd, gain_interval, never_passed, with_interval

KINDS = (TABLE1.name, FRONTIER.name, TECHNIQUE_GAIN.name)  # the statistics shown, in this order
ESTIMATOR = "model-based"



NEVER_LOWERS = "0 (never lowers the frontier on these runs: no interval)"  # not "0 [0, 0]%", a measured null


def under_coverage(generators: pd.DataFrame | None, target: float = 93.0) -> dict[str, str]:
    """Statistic kind -> what the validity study says of the model-based interval: "under 93% on n of N generators
    (lowest x%)", "at least 93% on every generator (N)", or, without a study (``generators`` None: the set's records
    are not simulated), that it was not checked here and where the simulated sets' study measures it.
    ``generators``: the ``validity_generators`` rows."""
    out = {}
    for kind in KINDS:
        if generators is None:  # review 9, M14: never one generic sentence, and no number typed from another set
            out[kind] = ("not checked on these records (no known truth); the `sim` set's report measures this "
                         f"statistic's model-based interval ({FAMILY_LABELS[kind]}) generator by generator (section "
                         "\"Validity on known truth\")")
            continue
        d = generators[(generators["estimator"] == ESTIMATOR) & (generators["statistic"] == FAMILY_LABELS[kind])]
        d = d[d["coverage_pct"].notna()]
        if d.empty:
            out[kind] = "not in the study"
            continue
        low = d[d["coverage_pct"] < target]
        out[kind] = (f"under {target:g}% on {len(low)} of {len(d)} generators (lowest {d['coverage_pct'].min():.0f}%)"
                     if len(low) else f"at least {target:g}% on every generator ({len(d)})")
    return out


def model_based_table(an: Analysis, st: intervals.SetStatistics, generators: pd.DataFrame | None
                      ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(numbers: per statistic and dataset the model-based value, low, high (USD per problem; gains 0-1), the model's
    checks on the dataset and the validity study's verdict on the statistic's interval; shown: a row per statistic,
    a ``value [low, high]`` cell per dataset, marked ✗ where the model's checks reject it, and the study's
    verdict; "never passed here" where the model passed no problem of the dataset)."""
    verdicts = st.model_verdicts()
    said = under_coverage(generators)
    rows = st.frame[st.frame["estimator"] == ESTIMATOR]
    rows = rows[rows["kind"].isin(KINDS)]
    rows = rows[[k != TABLE1.name or item in an.models for k, item in zip(rows["kind"], rows["item"])]]
    plug = st.frame[st.frame["estimator"] == "plug-in"].set_index(["statistic", "task"])
    unseen = plug["unseen_pct"] if "unseen_pct" in plug else pd.Series(dtype=float)
    numbers = rows[[*KEY_COLUMNS, "task", "value", "low", "high"]].assign(
        checks=rows["task"].map(lambda t: verdicts.get(t) or "pass"), validity=rows["kind"].map(said),
        never_passed=[never_passed(unseen.get((s, t), 0.0)) for s, t in zip(rows["statistic"], rows["task"])])

    def name(k: str, item: str) -> str:
        return {TABLE1.name: an.labels.get(item, item), FRONTIER.name: "the paper's frontier"}.get(
            k, f"technique gain: {item}")

    def cell(r) -> str:
        gain = r["kind"] == TECHNIQUE_GAIN.name
        text = (NEVER_LOWERS if gain and r["value"] == r["low"] == r["high"] == 0 else  # review 10, L9
                gain_interval(100 * r["value"], 100 * r["low"], 100 * r["high"]) + "%" if gain
                else with_interval(r["value"], r["low"], r["high"], fmt_usd))
        text += f" · {NEVER_PASSED}" if r["never_passed"] else ""  # a value below the fee for a model that never passed
        return text + (" ✗ checks reject" if r["checks"] != "pass" else "")

    if numbers.empty:
        return numbers, pd.DataFrame(columns=["statistic", *an.tasks, "validity study"])
    shown = numbers.assign(cell=[cell(r) for _, r in numbers.iterrows()]).pivot_table(
        index="statistic", columns="task", values="cell", aggfunc="first", sort=False)
    shown = shown.reindex(columns=[t for t in an.tasks if t in shown.columns]).reset_index()
    kind_of_row = dict(zip(numbers["statistic"], numbers["kind"]))  # each shown row's statistic, by its name
    shown.insert(len(shown.columns), "validity study", shown["statistic"].map(kind_of_row).map(said))
    shown["statistic"] = shown["statistic"].map({s: name(k, item) for s, k, item in
                                                 zip(numbers["statistic"], numbers["kind"], numbers["item"])})
    return numbers.reset_index(drop=True), shown


def checks_sentence(st: intervals.SetStatistics, task_labels: dict[str, str], runs: int | None = None) -> str:
    """The model's checks in one sentence: the datasets where they reject it, or that they pass everywhere; with one
    run per cell (``runs``), that they raise no alarm but can hardly see one (not calibrated at that shape: review
    R5)."""
    bad = {t: v for t, v in st.model_verdicts().items() if v}
    if not bad and runs == 1:
        return ("The item-response model's checks raise no alarm on any dataset of this set, but with one run per cell "
                "they have little to compare and are not calibrated at this shape: the model-based values rest on the "
                "item-response model's assumptions, not on what the records show.")
    if not bad:
        return "The item-response model's checks pass on every dataset of this set."
    return "The item-response model's checks reject it on " + "; ".join(
        f"{task_labels.get(t, t)} ({v})" for t, v in bad.items()) + "."
