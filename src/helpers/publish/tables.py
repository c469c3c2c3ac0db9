"""The paper's tables and the report's other tables from an Analysis: one function per table, numbers in (a long
frame of full precision) and the shown table out (its cells in words, ``formats``; sentences, ``sentences``); how a set
is shown, ``display``; ``catalog`` names and writes them."""

from __future__ import annotations

import numpy as np
import pandas as pd

from helpers.analyze import costofpass as cp
from helpers.analyze import expert_fee, headline, intervals, policy
from helpers.analyze.estimates import Analysis
from helpers.analyze.statistic import (
    FRONTIER,
    KEY_COLUMNS,
    KINDS,
    POLICY_KINDS,
    STRATEGY,
    STRATEGY_GAIN,
    TABLE1,
    TECHNIQUE_GAIN,
    Key,
    of_kind,
)
from helpers.core.numbers import sig
from helpers.core.tasks import in_category_order
from helpers.grade.estimates import strategy_name, strategy_names
from helpers.publish import names
from helpers.publish.formats import (
    ESTIMATOR_LABELS,
    fmt_pct,
    fmt_tries,
    fmt_usd,
    gain_interval,
    near_zero,
    range_cell,
    whole_pct,
    with_interval,
)
from helpers.publish.sentences import fee_reading, fee_said, policy_said


def _model_frame(an: Analysis, values: dict[str, pd.Series]) -> pd.DataFrame:
    """Rows = models (label, family), columns = tasks."""
    df = pd.DataFrame(values).T.reindex(columns=an.tasks)
    df.insert(0, "family", [an.families[m] for m in df.index])
    df.insert(0, "model", [an.labels[m] for m in df.index])
    return df.reset_index(drop=True)


def table1_frontier(an: Analysis) -> pd.DataFrame:
    """Table 1: V_{p~D}({m} ∪ {expert}) per model and task (USD per problem; a racing set's from every problem's
    records, weighted: ``Analysis.table1_records``); the set's ``table1_only`` models last, marked."""
    frames = []
    for part, suffix in an.table1_parts():
        per_model = cp.single_model_frontier(*part.table1_records())
        frame = _model_frame(part, {m: per_model[m] for m in per_model.columns})
        frames.append(frame.assign(model=frame["model"] + suffix))
    return pd.concat(frames, ignore_index=True)


def expert_only(an: Analysis) -> pd.DataFrame:
    """The human expert alone, V_{p~D}({expert}) per task (USD): the row models are compared with."""
    row = cp.frontier(an.cop, [], an.expert).reindex(an.tasks)
    return pd.DataFrame([{"model": "Human expert", "family": "expert", **row.to_dict()}])


# a strategy's cross-fitted gain
NOT_CHOSEN = "0 (not chosen on any problem: the single attempt looks cheaper on the others)"
FRONTIER_LINE = "frontier of all models"  # the headline's frontier: each problem's model routed by a difficulty the
# models share, read on half of its runs (``policy.crossfit_halves``, ``policy.set_policy``)
# the paper's Eq. 9: per problem the cheapest model or the expert (plug-in)
PAPER_FRONTIER_LINE = "the paper's frontier"


def fee_curve(an: Analysis) -> tuple[pd.DataFrame, dict[str, float], str]:
    """Table 1 and the paper's frontier as the expert's fee varies (``expert_fee.fee_curve``), the fee each task
    assumes (USD per problem), and the reading (``sentences.fee_reading``)."""
    curve, fees = expert_fee.fee_curve(an, PAPER_FRONTIER_LINE)
    varies = frozenset(t for t in an.tasks if an.expert.xs(t, level="task").nunique() > 1)  # fees per problem
    return curve, fees, fee_reading(expert_fee.fee_switches(an), fees, in_category_order(an.tasks),
                                    an.task_labels, varies)  # the panels' order


def policy_cost(an: Analysis, fitted: intervals.PolicyFit, rows: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Each model, and the frontier of all models, under "up to k tries, then the expert" (``analyze.policy``; rows:
    ``intervals.policy_statistics``) beside the paper's Table 1 and frontier, each split into what the records decide
    and what the expert's fee decides: the policy's unbiased USD per problem with its 95% interval (attempts paid to
    the model; the fee times the estimated chance that all k tries fail) and the paper's value (problems where the
    model beats the expert; problems charged the fee). The frontier is one model per problem, routed by a difficulty the
    models share read on half of its runs, valued on the other half (every split averaged; the same k). ``fitted``:
    ``intervals.set_policy(an)``; ``rows``: its ``intervals.policy_statistics``. (numbers: one row per model or frontier
    and dataset; shown: the same rows in words.)"""
    sp, cube = fitted.policy, fitted.cube
    long = policy.policy_table(sp.single, cube.task_codes, cube.tasks, cube.strategies)
    long = long[long["strategy"].isin(an.models)]
    # the paper's values as Table 1 shows them (a racing set's: weighted)
    vanilla, expert, weights = an.table1_records()
    paper = pd.concat([cp.expert_split(vanilla, expert, weights),
                       cp.expert_split(vanilla.min(axis=1).to_frame(FRONTIER_LINE), expert)]).rename(columns={
        "value": "paper_usd", "model_usd": "paper_records_usd", "expert_usd": "paper_expert_usd",
        "expert_problems": "paper_expert_problems"})
    front_kind = policy.FRONTIER.kind
    mine = rows[of_kind(rows, TABLE1) | of_kind(rows, front_kind)]
    mine = mine.assign(strategy=mine["item"].where(~of_kind(mine, front_kind), FRONTIER_LINE))
    mine = mine.rename(columns={"value": "policy_usd", "low": "policy_low", "high": "policy_high"})
    front = mine[mine["strategy"] == FRONTIER_LINE]
    long = pd.concat([long[["task", "strategy", "problems", "mostly_failed", "unidentified"]],
                      front[["task", "strategy"]]])
    long = long.merge(mine.drop(columns=[*KEY_COLUMNS, "shown"]), on=["task", "strategy"], how="left").merge(
        paper, on=["task", "strategy"], how="left")
    long["paper_expert_share_pct"] = 100 * long["paper_expert_usd"] / long["paper_usd"]
    long = long.rename(columns={"strategy": "model"})
    order = {m: i for i, m in enumerate([*an.models, FRONTIER_LINE])}
    long = long.sort_values(["task", "model"], key=lambda c: c.map(order) if c.name == "model" else
                            c.map({t: i for i, t in enumerate(an.tasks)})).reset_index(drop=True)
    long.insert(1, "family", long["model"].map(an.families))
    keys = pd.DataFrame([(policy.FRONTIER if m == FRONTIER_LINE else Key(TABLE1, m)).row() for m in long["model"]],
                        columns=KEY_COLUMNS, index=long.index)
    for i, column in enumerate(KEY_COLUMNS):
        long.insert(2 + i, column, keys[column])
    chosen = frontier_choices(an, fitted)
    long["chosen"] = [chosen.get(t, "") if m == FRONTIER_LINE else "" for t, m in zip(long["task"], long["model"])]
    long["halved"] = long["model"].eq(FRONTIER_LINE) & bool(sp.frontier is not None and sp.frontier.halved)
    long["cheapest"] = long["cheapest"].fillna(False).astype(bool)  # the frontier's row names no model
    long["model"] = long["model"].map(lambda m: an.labels.get(m, m))
    shown = pd.DataFrame({
        "model": long["model"], "family": long["family"].fillna(""), "dataset": long["task"].map(an.task_labels),
        "tries": long["k"].map(fmt_tries),
        "cost with those tries, then the expert (USD, 95% interval)": [
            policy_said(r.policy_usd, r.policy_low, r.policy_high, r.expert_share_pct, r.unidentified, r.k)
            for r in long.itertuples()],
        "the paper's cost-of-pass (USD)": [
            ("the paper's frontier: " if r.model == FRONTIER_LINE else "")  # review 10, L5: not the headline's
            + fee_said(r.paper_usd, r.paper_records_usd, r.paper_expert_share_pct)
            + f"; {r.paper_expert_problems} problem{'' if r.paper_expert_problems == 1 else 's'} charged the fee"
            for r in long.itertuples()]})
    return long, shown


def frontier_choices(an: Analysis, fitted: intervals.PolicyFit) -> dict[str, str]:
    """Per task, what the frontier of all models chose: the model it chose most often and on what share of the
    problems, each problem counted as the share of its splits that chose it (each problem's model is routed by a
    difficulty the models share, read on half of its runs, once per split; "(100%)": every split of every problem),
    e.g. "Gemini 3 Pro Preview (100%)"."""
    front, cube = fitted.policy.frontier, fitted.cube
    if front is None:
        return {}
    picked = front.strategies()  # (R, P): a row per split
    out = {}
    for j, task in enumerate(cube.tasks):
        mine = picked[:, cube.task_codes == j].ravel()
        if not len(mine):
            continue
        values, counts = np.unique(mine, return_counts=True)
        top = values[np.argmax(counts)]
        name = "the expert alone" if top < 0 else an.labels.get(cube.strategies[top], cube.strategies[top])
        share = 100 * counts.max() / len(mine)
        out[task] = f"{name} ({'>99' if 99.5 <= share < 100 else f'{share:.0f}'}%)"  # "100%": every split
    return out


def headline_drawn(an: Analysis, numbers: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, float]]:
    """What ``figures.costs.headline_costs`` draws, from ``policy_cost``'s ``numbers``: (task, model, policy_usd,
    policy_low, policy_high, expert_alone_usd) and the expert alone per dataset (dataset id -> USD per problem)."""
    alone = {t: float(v) for t, v in expert_only(an).iloc[0].items() if t in an.tasks}
    drawn = numbers[["task", "model", "policy_usd", "policy_low", "policy_high"]].assign(
        expert_alone_usd=numbers["task"].map(alone))
    return drawn, alone


def policy_tries(rows: pd.DataFrame, runs: int | None = None) -> dict[str, str]:
    """The tries of ``intervals.policy_statistics`` rows for captions: ``k`` (each model alone), ``k_half`` (the
    cross-fitted frontier, the same k; where a set has none, words that say why) and ``k_why``, why k is what it is
    (``policy.headline_k``; ``runs``: the runs the set plans per cell; review 10, M4: "k = 4 (every run)" where the
    records hold 8)."""
    def said(d, none):
        return str(int(d["k"].iloc[0])) if len(d) else none
    k = said(rows[of_kind(rows, TABLE1)], "–")
    return {"k": k, "k_half": said(rows[of_kind(rows, policy.FRONTIER.kind)],
                                   "half the models' fewest runs (not here: this set's frontier is not estimated)"),
            "k_why": tries_why(int(k) if k.isdigit() else 0, runs)}


def tries_why(k: int, runs: int | None) -> str:
    """Why the headline plays k tries, in words: "its one run", "half the 8 runs the records hold of every model,
    rounded down", or, where the fewest runs of a model's cell are not the runs planned, half those."""
    if runs == 1 and k == 1:
        return "its one run"
    if runs is not None and k == max(1, runs // 2):
        return f"half the {runs} runs the records hold of every model{', rounded down' if runs % 2 else ''}"
    return "half the fewest runs the records hold of any model's cell, rounded down, at least one"


def table5_accuracy(an: Analysis) -> pd.DataFrame:
    """Table 5: accuracy R_m(p~D) in percent (vanilla attempts)."""
    e = an.estimates[an.estimates["method"] == "vanilla"]
    acc = e.groupby(["model", "task"])["pass_rate"].mean().unstack() * 100
    return _model_frame(an, {m: acc.loc[m] for m in an.models if m in acc.index})


def table6_cost(an: Analysis) -> pd.DataFrame:
    """Table 6: mean cost per attempt C_m(p~D) in USD (vanilla attempts)."""
    e = an.estimates[an.estimates["method"] == "vanilla"]
    cost = e.groupby(["model", "task"])["cost_usd"].mean().unstack()
    return _model_frame(an, {m: cost.loc[m] for m in an.models if m in cost.index})


def technique_base(an: Analysis) -> list[str]:
    """M_L of the set (``headline.technique_base``) among the models with estimates."""
    models = [m for m in an.models if m in an.cop.columns]
    return headline.technique_base(an.families.to_dict(), models)


def table2_techniques(an: Analysis) -> pd.DataFrame:
    """Table 2: relative frontier gain (%) of each technique applied to every model of M_L (technique_base); a racing
    set's from every problem where it protects the techniques. ``attrs["influence"]``: per technique and task the
    problem carrying most of its gain and its share (``costofpass.most_influential``: technique, task, problem_id,
    share)."""
    an = an.scope("techniques")
    base = technique_base(an)
    rows, influence = {}, []
    for method in an.ctx.params.methods:
        if method == "vanilla":
            continue
        treated = [strategy_name(m, method) for m in base if strategy_name(m, method) in an.cop.columns]
        if len(treated) < len(base):
            continue
        rows[method] = 100 * cp.technique_gain(an.cop, base, treated, an.expert).reindex(an.tasks)
        influence.append(cp.most_influential(an.cop, treated, base, an.expert).assign(technique=method))
    out = pd.DataFrame(rows).T
    out.index.name = "technique"
    out = out.reset_index()
    out.attrs["influence"] = pd.concat(influence, ignore_index=True) if influence else pd.DataFrame(
        columns=["task", "problem_id", "share", "technique"])
    return out


PLUGIN_INTERVAL = ("low", "high", "widened", "spread_mean")  # the paper's bootstrap interval: never published


def _interval_table(an: Analysis, long: pd.DataFrame, key: str, labels: dict[str, str], fmt, scale: float = 1.0
                    ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The paper's plug-in rows ``long`` (``_paper_estimator``) as (numbers: one row per key and task; shown: rows key x
    (the plug-in, its range), a cell per dataset: the value alone, the range). The plug-in's own interval is left out,
    in both: its two-level bootstrap held the truth far less often than 95% on most of the validity study's
    generators (issue 61; docs/statistics.md)."""
    cols = ("value", "range_low", "range_high", "range_ci_low", "range_ci_high")
    numbers = long.rename(columns={"statistic": key}).drop(columns=[c for c in PLUGIN_INTERVAL if c in long]).assign(
        **{c: long[c] * scale for c in cols if c in long})
    if numbers.empty:  # e.g. a set without techniques
        return numbers, pd.DataFrame(columns=[key, "estimator", *an.tasks])
    cells = numbers.assign(cell=numbers["value"].map(fmt))
    if "range_ci_low" in numbers:  # the range widened by every cell's sampling bounds: the narrow one missed the
        # truth in 34 of 84 `sim` cells (review 6, H1), the widened one in none
        ranges = numbers.assign(estimator="range", cell=[range_cell(lo, hi, u, fmt) for lo, hi, u in
                                                         zip(numbers["range_ci_low"], numbers["range_ci_high"],
                                                             numbers["unseen_pct"])])
        cells = pd.concat([cells, ranges], ignore_index=True)
    order = {e: i for i, e in enumerate(ESTIMATOR_LABELS)}
    keys = {k: i for i, k in enumerate(dict.fromkeys(numbers[key]))}
    cells = cells.sort_values([key, "estimator"], key=lambda c: c.map(keys if c.name == key else order), kind="stable")
    shown = cells.pivot_table(index=[key, "estimator"], columns="task", values="cell", aggfunc="first", sort=False)
    shown = shown.reindex(columns=[t for t in an.tasks if t in shown.columns]).reset_index()
    shown[key] = shown[key].map(labels).fillna(shown[key])
    shown["estimator"] = shown["estimator"].map(ESTIMATOR_LABELS)
    return numbers, shown


def _paper_estimator(rows: pd.DataFrame) -> pd.DataFrame:
    """The paper's plug-in rows of ``SetStatistics.of``: the model-based estimate is a sensitivity analysis, in a
    table of its own (``publish.sensitivity``)."""
    return rows[rows["estimator"] == "plug-in"]


def table1_intervals(an: Analysis, st: intervals.SetStatistics) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Table 1 with 95% intervals (USD per problem): the paper's plug-in and the range its never-passed problems
    allow: (numbers, shown)."""
    return _interval_table(an, _paper_estimator(st.of(TABLE1)), "model", an.labels, fmt_usd)


def table56_intervals(an: Analysis, st: intervals.SetStatistics) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Tables 5 and 6 with 95% intervals (``intervals.accuracy_cost``, checked by the validity study): accuracy (%)
    and mean USD per attempt of each model's vanilla attempts, (numbers, shown: rows model x quantity, a
    ``value [low, high]`` cell per dataset)."""
    long = st.accuracy_cost[st.accuracy_cost["strategy"].isin(an.models)].copy()
    pct = long["statistic"] == "accuracy"
    long.loc[pct, ["value", "low", "high"]] *= 100
    long["statistic"] = long["statistic"].map({"accuracy": "accuracy %", "cost_usd": "USD per attempt"})
    cells = long.assign(cell=[with_interval(v, lo, hi, fmt_pct if q == "accuracy %" else fmt_usd)
                              for v, lo, hi, q in zip(long["value"], long["low"], long["high"], long["statistic"])])
    shown = cells.pivot_table(index=["strategy", "statistic"], columns="task", values="cell",
                              aggfunc="first", sort=False)
    shown = shown.reindex(columns=[t for t in an.tasks if t in shown.columns]).reset_index()
    shown["strategy"] = shown["strategy"].map(an.labels).fillna(shown["strategy"])
    return long.rename(columns={"strategy": "model", "statistic": "quantity"}), shown.rename(
        columns={"strategy": "model", "statistic": "quantity"})


def table2_intervals(an: Analysis, st: intervals.SetStatistics, policy_rows: pd.DataFrame | None = None
                     ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Table 2 with 95% intervals (relative gain, %), as ``table1_intervals``, and (``policy_rows``:
    ``intervals.policy_statistics``) each technique's cross-fitted gain under "up to k tries, then the expert" with
    its 95% interval, a row (``CROSSFITTED_ROW``) after its plug-in and range (%; review 11, M2: the gain the findings
    test had no table): (numbers, shown; the numbers' rows of it: estimator "policy", %)."""
    numbers, shown = _interval_table(an, _paper_estimator(st.of(TECHNIQUE_GAIN)), "technique", {}, fmt_pct,
                                     scale=100.0)
    crossed = policy_rows[of_kind(policy_rows, TECHNIQUE_GAIN)] if policy_rows is not None else None
    if crossed is None or crossed.empty or numbers.empty:
        return numbers, shown
    cell = {(r.item, r.task): (NOT_CHOSEN if r.value == r.low == r.high == 0 else
                               gain_interval(100 * r.value, 100 * r.low, 100 * r.high)) for r in crossed.itertuples()}
    techniques = list(dict.fromkeys(shown["technique"]))
    rows = pd.DataFrame([{"technique": t, "estimator": CROSSFITTED_ROW,
                          **{c: cell.get((t, c), "–") for c in shown.columns if c in an.tasks}} for t in techniques])
    order = {t: i for i, t in enumerate(techniques)}
    shown = pd.concat([shown, rows], ignore_index=True).sort_values(
        "technique", key=lambda c: c.map(order), kind="stable").reset_index(drop=True)
    percent = crossed.assign(technique=crossed["item"], estimator="policy",
                             **{c: 100 * crossed[c] for c in ("value", "low", "high")})  # the column's unit, %
    numbers = pd.concat([numbers, percent[["technique", "task", "estimator", "value", "low", "high"]]],
                        ignore_index=True)
    return numbers, shown


def grader_disagreements(an) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every response the project's grader and the source judge differently, with the grader's reason
    (``grade.agreement.disagreements``): (numbers, shown with labels)."""
    from helpers.grade.agreement import disagreements
    from helpers.grade.stage import read_graded

    numbers = disagreements(read_graded(an.ctx, "calls"))
    shown = numbers.assign(task=numbers["task"].map(an.task_labels), model=numbers["model"].map(an.set_labels),
                           reason=numbers["reason"].map(lambda r: r if len(r) <= 120 else r[:117] + "…"))
    return numbers, shown.rename(columns={"task": "dataset", "problem_id": "problem", "source": "source's label",
                                          "project": "project's grade"})


def agent_runs(an) -> pd.DataFrame:
    """Every run folder of recorded agent runs the set names, usable or not and why (``agent_evals.runs_table``)."""
    from helpers.collect.imports.agent_evals import runs_table

    runs = runs_table(an.ctx.params)
    return runs.assign(model=runs["model"].map(an.set_labels).fillna(runs["model"]),
                       source_pass_pct=runs["source_pass_pct"].map(lambda x: "–" if pd.isna(x) else f"{x:.1f}"),
                       usable=runs["usable"].map({True: "yes", False: "**no**"}))


def holdout_table(an: Analysis, fitted: intervals.PolicyFit) -> tuple[pd.DataFrame, pd.DataFrame]:
    """"If I use the models chosen on my runs, what will they cost on new runs?" (``holdout.holdout_frontier``): the
    frontier of all models under "up to k tries, then the expert": the model chosen and read on the same runs
    (in-sample), and each problem's model routed by a difficulty the models share read on half of its runs, read on the
    other half, every split averaged (held-out, with
    its 95% interval), and in-sample − held-out (not the winner's curse alone: the two choose by different rules)
    (``fitted``: ``intervals.set_policy(an)``): (numbers, shown; USD per problem)."""
    from helpers.analyze.holdout import holdout_frontier

    cube = fitted.cube
    numbers = holdout_frontier(fitted.policy.frontier, fitted.fee, cube.task_codes, cube.tasks,
                               single=fitted.policy.single)
    rank = {t: i for i, t in enumerate(in_category_order(an.tasks))}
    numbers = numbers.sort_values("task", key=lambda c: c.map(rank)).reset_index(drop=True)
    shown = pd.DataFrame({
        "dataset": numbers["task"].map(an.task_labels), "tries": numbers["k"].map(fmt_tries),
        "chosen and read on the same runs (in-sample)": numbers["in_sample_usd"].map(fmt_usd),
        "routed by a shared difficulty on half of its runs, valued on the other half (held-out) [95%]": [
            with_interval(v, lo, hi, fmt_usd) for v, lo, hi in
            zip(numbers["held_out_usd"], numbers["held_out_low"], numbers["held_out_high"])],
        "in-sample − held-out (USD; % of the held-out value)": [
            _optimism_said(v, p) for v, p in zip(numbers["optimism_usd"], numbers["optimism_pct"])]})
    return numbers, shown


def _optimism_said(usd: float, pct: float) -> str:
    """The optimism cell: its USD (and %); exactly 0 where every problem's routed choice (on each half of its runs) is
    the choice on all of them, so held-out equals in-sample by construction (review 4, N2: not a sign
    that choosing is free)."""
    if usd == 0:
        return ("0 (by construction: the model routed to every problem on every split of its runs is the one chosen "
                "on all of its runs, so held-out equals in-sample; this does not show that the choice is free of the "
                "winner's curse)")
    if said := near_zero(usd):  # review 10, L6: ">-0.000001 (>-0.000001%)" hid the sign and the size
        return said
    return f"{fmt_usd(usd)} ({'+' * (pct > 0)}{fmt_pct(pct)}%)" if np.isfinite(pct) else fmt_usd(usd)


def precision_table(an: Analysis) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Where the frontier's precision comes from, and what fewer paid runs would have given (``analyze.precision``):
    per dataset and runs per problem, the paper's frontier of every model, its bootstrap interval's width in % of the
    value and the shares of it the problems and the runs carry (a racing set: from every problem's records where it
    protects the frontier): (numbers, shown). The interval itself is not published: it compares widths across k, and
    beside the value it would read as a claim about the truth, which it does not hold (issue 61)."""
    from helpers.analyze.precision import precision

    source = an.scope("frontier")
    cube, expert = intervals.set_cube(source)
    numbers = precision(cube, expert, [m for m in source.models if m in cube.strategies], seed=an.ctx.params.seed)
    rank = {t: i for i, t in enumerate(in_category_order(an.tasks))}
    numbers = numbers.sort_values(["task", "runs"], key=lambda c: c.map(rank) if c.name == "task" else c,
                                  kind="stable").drop(columns=["low", "high"]).reset_index(drop=True)
    shown = pd.DataFrame({
        "dataset": numbers["task"].map(an.task_labels),
        "runs per problem": [f"{k} (recorded)" if r else str(k) for k, r in zip(numbers["runs"], numbers["recorded"])],
        "the paper's frontier (USD)": numbers["value"].map(fmt_usd),
        "bootstrap width (% of the value)": numbers["width_pct"].map(lambda x: f"{x:,.0f}%" if np.isfinite(x) else "–"),
        "of its variance: problems": numbers["problems_pct"].map(whole_pct),
        "of its variance: runs": numbers["runs_pct"].map(whole_pct)})
    return numbers, shown


def strategy_calls(an: Analysis) -> pd.DataFrame:
    """Per strategy name (index; a model's single attempt under its own id): ``runs`` (distinct runs), ``mean_calls``
    and ``most_calls`` (model calls per attempt)."""
    a = an.attempts.assign(strategy=strategy_names(an.attempts["model"], an.attempts["method"]).astype(str))
    return a.groupby("strategy", observed=True).agg(runs=("run", "nunique"), mean_calls=("calls", "mean"),
                                                    most_calls=("calls", "max"))


def seed_models(an: Analysis) -> dict[str, str]:
    """Strategy name -> the model whose attempts seed it (``agent_evals.seeded_by`` of the set's runs)."""
    from helpers.collect.imports.agent_evals import seeded_by

    import_from = an.ctx.params.import_from
    return seeded_by(import_from.runs, list(an.models)) if import_from is not None else {}


def calls_per_try(an: Analysis) -> dict[str, tuple[float, int, int]]:
    """``strategy_calls`` as findings reads it: strategy name -> (mean, most) calls per attempt and its runs per
    problem (where they are no more than the k tries, every run is a try: ``findings._calls``)."""
    calls = strategy_calls(an)
    return {str(s): (float(r.mean_calls), int(r.most_calls), int(r.runs)) for s, r in calls.iterrows()}


def strategy_table(an: Analysis, st: intervals.SetStatistics, policy_rows: pd.DataFrame | None = None
                   ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Table 2's analogue for agent strategies (``headline.strategy_specs``): per strategy beside its model, how
    many runs each problem's cell rests on and the calls per attempt (mean, most), its cost-of-pass with the expert
    (USD) and the gain of adding it to the model's single attempt (%, never negative: the paper's G), each by
    estimator with its 95% interval, and (``policy_rows``: ``intervals.policy_statistics``) its cross-fitted gain
    under "up to k tries, then the expert" (%, can be negative; "–" where the strategy has fewer runs than the models):
    (numbers, shown)."""
    cost, cost_shown = _interval_table(an, _paper_estimator(st.of(STRATEGY)), "strategy", {}, fmt_usd)
    gain, gain_shown = _interval_table(an, _paper_estimator(st.of(STRATEGY_GAIN)), "strategy",
                                       {}, fmt_pct, scale=100.0)
    if cost.empty:
        return cost, cost_shown
    numbers = pd.concat([cost.assign(quantity="cost-of-pass (USD)"),
                         gain.assign(quantity="gain of adding it to the single attempt (%)")],
                        ignore_index=True)
    calls = strategy_calls(an)
    shown = cost_shown.rename(columns={t: f"{an.task_labels.get(t, t)}: cost-of-pass (USD)" for t in an.tasks}).merge(
        gain_shown.rename(columns={t: f"{an.task_labels.get(t, t)}: gain of adding it to the single attempt (%, ≥ 0)"
                                   for t in an.tasks}),
        on=["strategy", "estimator"], how="left")
    strategy = shown["strategy"]
    shown.insert(1, "runs per problem", strategy.map(calls["runs"]).astype("Int64"))
    shown.insert(2, "calls per attempt (mean, most)", [f"{calls.loc[s, 'mean_calls']:.2f}, {calls.loc[s, 'most_calls']}"
                                                      if s in calls.index else "–" for s in strategy])
    if policy_rows is not None:  # the headline's answer: does the strategy pay beyond the luck of these runs?
        numbers, shown = _crossfitted(an, numbers, shown, policy_rows[of_kind(policy_rows, STRATEGY_GAIN)], "strategy")
    model, _, method = strategy.str.partition("+").values.T
    shown["strategy"] = [f"{an.labels.get(m, m)} · {names.method(x)}" for m, x in zip(model, method)]
    return numbers, shown


CROSSFITTED = "cross-fitted gain, up to k tries then the expert (%, 95% interval)"  # its column, after the dataset
CROSSFITTED_ROW = "cross-fitted, up to k tries then the expert (95% interval)"  # Table 2's row of that gain


def _crossfitted(an: Analysis, numbers: pd.DataFrame, shown: pd.DataFrame, rows: pd.DataFrame, key: str
                 ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``numbers`` and ``shown`` (``_interval_table``'s, rows ``key`` x estimator) with the cross-fitted gain of each
    ``key`` under the headline's cost (``rows``: ``intervals.policy_statistics`` rows of one gain kind, item = the
    key; 0-1): a column per dataset, "value [low, high]" in % on each key's first row ("–" where none; a gain never
    chosen in words, ``NOT_CHOSEN``), and the numbers' rows (estimator "policy", quantity "cross-fitted gain
    (0-1)")."""
    for t in an.tasks:
        mine = rows[rows["task"] == t].assign(**{key: lambda d: d["item"]})
        cell = {r.item: (NOT_CHOSEN if r.value == r.low == r.high == 0 else  # review R10
                         gain_interval(100 * r.value, 100 * r.low, 100 * r.high)) for r in mine.itertuples()}
        shown[f"{an.task_labels.get(t, t)}: {CROSSFITTED}"] = [
            cell.get(s, "–") if e == shown["estimator"].iloc[0] else "" for s, e in zip(shown[key], shown["estimator"])]
        numbers = pd.concat([numbers, mine.assign(estimator="policy", quantity="cross-fitted gain (0-1)")[
            [key, "task", "estimator", "value", "low", "high", "quantity"]]], ignore_index=True)
    return numbers, shown


def halving_shown(fits: pd.DataFrame, task_labels: dict[str, str]) -> pd.DataFrame:
    """The halving-time table for reading: per dataset and estimator the halving time (months) with its profile
    interval, the delta method's ± and the bootstrap-refit interval (what the reliability rules read) where the fit
    is reliable (else none of them: the CSV keeps them), the reduction factor per year with its 90% interval where
    it may be shown (``trends.loglinear_shown``), the release dates and whether the fit is reliable
    (``trends.set_trends``' table, the CSV, has every number)."""
    from helpers.analyze.trends import loglinear_shown

    def num(x):
        return "∞" if np.isinf(x) else "–" if not np.isfinite(x) else sig(x)

    rows = []
    for _, r in fits.iterrows():
        shown = loglinear_shown(int(r["release_dates"]))[0]
        rows.append({"dataset": task_labels.get(r["task"], r["task"]), "estimator": r["estimator"],
                     "halving (months)": (f"{num(r['halving_months'])} "
                                          f"[{num(r['halving_low'])}, {num(r['halving_high'])}]"
                                          if r["reliable"] else "not shown (unreliable)"),
                     "delta method ±": num(r["halving_se_months"]) if r["reliable"] else "–",  # of a number not shown
                     "bootstrap refit": f"[{num(r['refit_low'])}, {num(r['refit_high'])}]" if r["reliable"] else "–",
                     "÷ per year (90%)": (f"{num(r['factor_per_year'])} "
                                          f"[{num(r['factor_low'])}, {num(r['factor_high'])}]"
                                          if shown else "not shown"),
                     "release dates": int(r["release_dates"]),
                     "reliable": "yes" if r["reliable"] else "no"
                     + (" (not identified)" if not np.isfinite(r["b_per_month"]) else "")})
    return pd.DataFrame(rows)


HEADLINE = (TABLE1.name, policy.FRONTIER.kind.name, TECHNIQUE_GAIN.name)  # the kinds a truth table shows


def doubtful_problems(an: Analysis, suspects: pd.DataFrame | None) -> pd.DataFrame:
    """The set's problems whose verdicts are in doubt (``analyze.suspects.doubtful_problems``: suspect items, a
    module the grader's sandbox lacks, programs near the CPU limit), task ids as the records have them. ``suspects``:
    ``suspect_items(an)`` (datasets by label)."""
    from helpers.analyze.suspects import doubtful_problems as doubtful
    from helpers.grade.stage import read_graded

    ids = {label: t for t, label in an.task_labels.items()}
    own = None if suspects is None else suspects.assign(task=suspects["dataset"].map(ids).fillna(suspects["dataset"]))
    calls = read_graded(an.ctx, "calls") if an.imported or an.agent_runs else None  # graded code carries the reasons
    return doubtful(own, calls)


def doubtful_fee(an: Analysis, fitted: intervals.PolicyFit, doubtful: pd.DataFrame) -> str:
    """A reading of the headline's frontier: per dataset, the share of its fee part (the fee times the estimated
    chance that every try fails) on problems whose verdicts are in doubt (``doubtful_problems``), naming them and
    their reasons, and the frontier's value on the dataset's other problems; "" where no fee falls on such a problem
    (review H10: two of the twelve problems HumanEval's frontier leaves to the expert are suspect items). Plain
    text: ``catalog.publish_table`` escapes a lead where it enters the report (problem ids come from the records)."""
    front, cube = fitted.policy.frontier, fitted.cube
    if front is None or doubtful.empty:
        return ""
    keys = list(zip(cube.problems.get_level_values("task"), cube.problems.get_level_values("problem_id"), strict=True))
    why = {(str(t), str(p)): w for t, p, w in doubtful.itertuples(index=False)}
    flagged = np.array([(str(t), str(p)) in why for t, p in keys])
    said = []
    for code, task in enumerate(cube.tasks):
        here = cube.task_codes == code
        fee_part = front.expert[here]
        on = flagged[here] & (fee_part > 0)
        if not on.any() or fee_part.sum() <= 0:
            continue
        named = "; ".join(f"{keys[i][1]} ({why[(str(keys[i][0]), str(keys[i][1]))]})" for i in np.flatnonzero(here)[on])
        rest = front.total[here][~on]  # without the problems named
        spared = [keys[i][1] for i in np.flatnonzero(here)[flagged[here] & ~on]]
        none = ("" if not spared
                else f" (the other problem in doubt, {spared[0]}, carries none of it)" if len(spared) == 1
                else f" (the other {len(spared)} in doubt, {', '.join(spared)}, carry none of it)")
        said.append(f"on {an.task_labels.get(task, task)}, {fmt_pct(100 * fee_part[on].sum() / fee_part.sum())}% "
                    f"of the frontier's fee part falls on {on.sum()} problem{'' if on.sum() == 1 else 's'} a check "
                    f"flags as possibly mis-graded (flags, not verdicts: none is re-examined here): {named}{none}; "
                    f"without {'it' if on.sum() == 1 else 'them'} (left out, not charged 0) the frontier reads "
                    f"{fmt_usd(rest.mean())} USD per problem")  # review 6, L3
    return ("Verdicts in doubt: " + "; ".join(said) + ".") if said else ""


def suspect_items(an: Analysis) -> pd.DataFrame | None:
    """The set's suspect items (``analyze.suspects``), datasets by their labels; None where every dataset's verdicts
    are imported (metric ``verdict``: a pass or a fail, no answer to compare with the reference), and those datasets'
    rows are never looked at."""
    from helpers.analyze.suspects import suspect_items as suspects
    from helpers.core.tasks import get_task

    answered = [t for t in an.tasks if get_task(t).metric != "verdict"]
    if not answered:
        return None
    references = {(t, p.problem_id): p.target for t, problems in an.ctx.problems.items() for p in problems}
    out = suspects(an.attempts[an.attempts["task"].astype(str).isin(answered)], references)
    return out.assign(task=out["task"].map(an.task_labels).fillna(out["task"])).rename(columns={"task": "dataset"})


def _against(r) -> str:
    """A check's p-value against the critical value it rejects at (calibrated: review 6, M5, a ✗ at p = 0.199 and none
    at p = 0.003 read as a contradiction where the two checks' critical values differ): " ≤ c ✗" or " > c"; "" where
    none applies (the interaction row)."""
    c = r.get("critical", np.nan)
    if not (isinstance(c, (int, float)) and np.isfinite(c)):
        return " ✗" if r["rejects"] else ""
    return f" ≤ {c:.3g} ✗" if r["rejects"] else f" > {c:.3g}"


def model_checks_shown(checks: pd.DataFrame, task_labels: dict[str, str]) -> pd.DataFrame:
    """The checks table for reading: one row per dataset, per check ``statistic (expected) p = … ≤ critical ✗`` where
    it rejects (``> critical`` where not: ``_against``), and the verdict."""
    from helpers.analyze.model_checks import verdicts

    said = verdicts(checks)
    order = {t: i for i, t in enumerate(task_labels)}
    rows = []
    for task, g in sorted(checks.groupby("task", sort=False), key=lambda tg: order.get(tg[0], len(order))):
        row = {"dataset": task_labels.get(task, task)}
        for _, r in g.iterrows():
            stat = "–" if not np.isfinite(r["statistic"]) else f"{sig(r['statistic'])} ({sig(r['expected'])})"
            row[r["check"]] = f"{stat} p = {r['p_value']:.3f}" + _against(r)
        row["model"] = said[task] or "not rejected"  # review 4, L6: a check that passes shows no more than that
        rows.append(row)
    return pd.DataFrame(rows)


def headline_with_truth(an: Analysis, st: intervals.SetStatistics, truth: dict[Key, np.ndarray]
                        ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Each paper number of a simulated set (Table 1, the paper's frontier, Table 2's gains) by both
    estimators with their intervals beside the simulator's truth (``known_truth.true_statistics``: statistic -> (T,)).

    Returns (numbers: one row per statistic, task and estimator with value, low, high, truth and whether the
    interval covers it; shown: one row per statistic and dataset, ``value [low, high]`` per estimator, the
    truth, USD or %)."""
    keys = [Key(KINDS[k], item) for k, item in zip(st.frame["kind"], st.frame["item"])]
    paper = (TABLE1.name, FRONTIER.name, TECHNIQUE_GAIN.name)  # the paper's frontier, not the headline's (M11)
    rows = st.frame[st.frame["kind"].isin(paper) & np.array([k in truth for k in keys], bool)]
    tasks = {t: j for j, t in enumerate(an.tasks)}
    numbers = rows.assign(truth=[float(truth[Key(KINDS[k], i)][tasks[t]])
                                 for k, i, t in zip(rows["kind"], rows["item"], rows["task"])])
    numbers["covers"] = (numbers["low"] <= numbers["truth"]) & (numbers["truth"] <= numbers["high"])
    order = {s: i for i, s in enumerate(dict.fromkeys(numbers["statistic"]))}
    numbers = numbers.sort_values(["statistic", "task"], key=lambda c: c.map(order if c.name == "statistic" else tasks),
                                  kind="stable")
    shown = []
    for (kind_name, name, task), g in numbers.groupby(["kind", "item", "task"], sort=False):
        kind = KINDS[kind_name]
        pct = kind == TECHNIQUE_GAIN
        fmt, scale = (fmt_pct, 100.0) if pct else (fmt_usd, 1.0)
        row = {"number": f"{kind.short}: {an.labels.get(name, name)}" + (" (%)" if pct else " (USD)"),
               "dataset": an.task_labels.get(task, task)}
        for _, r in g.iterrows():
            mark = "" if r["covers"] else " ✗"
            row[r["estimator"]] = (gain_interval(scale * r["value"], scale * r["low"], scale * r["high"]) if pct else
                                   with_interval(r["value"], r["low"], r["high"], fmt)) + mark
        row["truth"] = fmt(scale * g["truth"].iloc[0])
        shown.append(row)
    return numbers.reset_index(drop=True), pd.DataFrame(shown)


def policy_truth_table(an: Analysis, rows: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The headline under "up to k tries, then the expert" beside the simulator's truth of this set's problems
    (``policy_study.own_truth`` rows). Returns (numbers: every statistic with value, low, high, k, truth, covers;
    shown: Table 1, the frontier of all models and Table 2's gains, one row each per dataset, ``value [low, high]``
    with ✗ where the interval misses, and the truth; USD per problem, gains in %)."""
    tasks = {t: j for j, t in enumerate(an.tasks)}
    numbers = rows.sort_values("task", key=lambda c: c.map(tasks), kind="stable").reset_index(drop=True)
    shown = []
    for r in numbers[numbers["kind"].isin(HEADLINE)].itertuples(index=False):
        kind, name = POLICY_KINDS[r.kind], r.item  # the headline's frontier: a choice, not the paper's
        pct = kind == TECHNIQUE_GAIN
        fmt, scale = (fmt_pct, 100.0) if pct else (fmt_usd, 1.0)
        shown.append({"number": f"{kind.short}: {an.labels.get(name, name)}" + (" (%)" if pct else " (USD)"),
                      "dataset": an.task_labels.get(r.task, r.task), "tries": fmt_tries(r.k),
                      "up to k tries, then the expert": (gain_interval(scale * r.value, scale * r.low, scale * r.high)
                                                         if pct else with_interval(r.value, r.low, r.high, fmt))
                      + ("" if r.covers else " ✗"), "truth": fmt(scale * r.truth)})
    return numbers, pd.DataFrame(shown)


def figure_frame(an: Analysis, st: intervals.SetStatistics, prefix: str, names: dict[str, str],
                 estimator: str = "plug-in") -> pd.DataFrame:
    """Rows (task label, item label, value and, for the plug-in, range_ci_low, range_ci_high: the range its
    never-passed problems allow widened by its 95% interval, unseen_pct) in % of the statistics ``<prefix>:<key>`` of
    one estimator, items in the order of ``names`` (key -> label), tasks by category as the paper orders them. The
    plug-in's own interval is left out: its two-level bootstrap held the truth far less often than 95% on most of
    the validity study's generators (issue 61); the model-based estimator keeps low and high."""
    rows = st.of(KINDS[prefix])
    rows = rows[(rows["estimator"] == estimator) & rows["statistic"].isin(names)]
    order = {k: i for i, k in enumerate(names)}
    rows = rows.assign(o=rows["statistic"].map(order),
                       t=rows["task"].map({t: i for i, t in enumerate(in_category_order(an.tasks))}))
    rows = rows.sort_values(["t", "o"])
    shown = [c for c in ("value", "low", "high", "range_ci_low", "range_ci_high")
             if c in rows and (estimator != "plug-in" or c not in ("low", "high"))]
    out = pd.DataFrame({"task": rows["task"].map(an.task_labels), "item": rows["statistic"].map(names),
                        **{c: 100 * rows[c] for c in shown},
                        **({"unseen_pct": rows["unseen_pct"]} if "unseen_pct" in rows else {})})
    return out.reset_index(drop=True)


def technique_accuracy(an: Analysis) -> pd.DataFrame:
    """Accuracy (%) per model and method: mean over problems of the estimated success rate."""
    acc = an.estimates.groupby(["model", "method", "task"])["pass_rate"].mean().unstack() * 100
    acc = acc.reindex(columns=an.tasks).reset_index()
    acc["model"] = acc["model"].map(an.labels)
    return acc


def fold_methods(long: pd.DataFrame, models: list[str], methods: list[str], tasks: list[str]) -> pd.DataFrame:
    """A (model, method) x dataset table folded wide: one row per model (in ``models`` order), each dataset's cell
    the methods' values in ``methods`` order, "a / b / c" (``fmt_pct``; "–" where a method has no value)."""
    cells = long.set_index(["model", "method"])
    rows = []
    for m in models:
        row = {"model": m}
        for t in tasks:
            row[t] = " / ".join(fmt_pct(cells.at[(m, me), t]) if (m, me) in cells.index
                                and pd.notna(cells.at[(m, me), t])
                                else "–" for me in methods)
        rows.append(row)
    return pd.DataFrame(rows, columns=["model", *tasks])


def grader_agreement(an) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The grader-agreement table of an imported set (``grade.agreement``): numbers, and the shown table with
    dataset and model labels, percentages to one decimal and counts as whole numbers. Datasets whose verdicts are the
    source's (metric ``verdict``) are left out: the project does not grade them, so there is nothing to agree on."""
    from helpers.core.tasks import get_task
    from helpers.grade.agreement import grader_agreement as agreement
    from helpers.grade.stage import read_graded

    numbers = agreement(read_graded(an.ctx, "calls"))
    graded = np.array([get_task(t).metric != "verdict" for t in numbers["task"]], dtype=bool)  # a mask even when empty
    numbers = numbers[graded].reset_index(drop=True)
    shown = numbers.assign(task=numbers["task"].map(an.task_labels), model=numbers["model"].map(an.set_labels))
    if set(numbers["method"]) <= {"vanilla"}:
        shown = shown.drop(columns="method")
    for c in ("source_pct", "project_pct", "agree_pct"):
        shown[c] = shown[c].map(lambda x: f"{x:.1f}")
    shown = shown.rename(columns={"task": "dataset", "source_pct": "source's label %",
                                  "project_pct": "project's grade %",
                                  "agree_pct": "agree %", "project_only": "only the project passes",
                                  "source_only": "only the source passes", "near_limit": "near the CPU limit",
                                  "near_limit_passed": "near the limit, passed"})
    return numbers, shown


def racing_replay(replay) -> tuple[tuple[pd.DataFrame, pd.DataFrame], tuple[pd.DataFrame, pd.DataFrame]]:
    """The race replayed on a set's records (``analyze.race_replay.Replay``): (numbers, shown) of its bill and of its
    figures' verdicts; the shown ones with calls as whole numbers, USD and differences to three significant figures,
    shares to one decimal and each figure by its label."""
    bill = replay.bill
    bill_shown = pd.DataFrame({"design": bill["design"], "calls": bill["calls"].map("{:,.0f}".format),
                               "USD": bill["usd"].map(fmt_usd),
                               "% of the calls": bill["calls_pct"].map("{:.1f}".format),
                               "% of the USD": bill["usd_pct"].map("{:.1f}".format)})
    fig = replay.figures
    fig_shown = pd.DataFrame({"figure": fig["label"], "protected": fig["protected"], "read from": fig["from"],
                              "values": fig["values"].map(str), "identical": fig["identical"],
                              "differing": fig["differing"].map(str),
                              "largest difference": fig["largest_difference"].map(fmt_pct),
                              "largest difference, % of the value": fig["largest_relative_pct"].map(fmt_pct)})
    return (bill, bill_shown), (fig, fig_shown)
