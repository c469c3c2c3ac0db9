"""What the assumed expert fee decides in a set: the problems no model passed (charged the fee by the paper's frontier)
and the fee's share of each Table 1 value, and Table 1 and the frontier over a range of fees."""

from __future__ import annotations

import pandas as pd

from helpers.analyze import costofpass as cp
from helpers.analyze.estimates import Analysis


def unpassed_problems(an: Analysis) -> dict[str, int]:
    """Per task, the problems no model passed in any vanilla run: those the paper's frontier charges the
    expert's fee (a racing set's over every problem where it protects the frontier)."""
    an = an.scope("frontier")
    vanilla = an.attempts[an.attempts["complete"] & (an.attempts["method"] == "vanilla")
                          & an.attempts["model"].isin(an.models)]
    passed = vanilla.groupby(["task", "problem_id"])["correct"].any()
    return {t: int((~passed.loc[t]).sum()) if t in passed.index.get_level_values("task") else 0 for t in an.tasks}


def table1_fee_share(an: Analysis) -> dict[tuple[str, str], float]:
    """(task, model label) -> the share (%) of the paper's Table 1 value that is the assumed expert fee
    (``costofpass.expert_split``), the set's ``table1_only`` models included (labels as ``table1_frontier`` shows
    them)."""
    return {(r.task, part.labels.get(r.strategy, r.strategy) + suffix): 100 * r.expert_usd / r.value if r.value else 0.0
            for part, suffix in an.table1_parts() for r in cp.expert_split(*part.table1_records()).itertuples()}


def fee_curve(an: Analysis, frontier_line: str) -> tuple[pd.DataFrame, dict[str, float]]:
    """Table 1 (each model with the expert) and the paper's frontier (Eq. 9, the line ``frontier_line``) as the
    expert's fee varies (``costofpass.fee_curve``, lines named by model label), and the fee each task assumes (USD per
    problem, the mean over its problems)."""
    vanilla, expert, weights = an.table1_records()  # a racing set's: every problem's, Table 1 weighted
    models = list(vanilla.columns)
    lines = {an.labels[m]: [m] for m in models} | {frontier_line: models}
    by_line = None
    # the frontier at another fee: the race kept it exact at the set's fee only, so the sample's
    if weights is not None:
        from helpers.grade.racing import table1_sample

        sample = table1_sample(an.ctx)
        on_sample = [(str(t), str(p)) in sample for t, p in vanilla.index]
        by_line = {an.labels[m]: weights[m]
                   for m in models} | {frontier_line: pd.Series(on_sample, vanilla.index, float)}
    curve = cp.fee_curve(vanilla.rename(columns=an.labels), expert,
                         {k: [an.labels[m] for m in v] for k, v in lines.items()},
                         weights=by_line)
    return curve, expert.groupby(level="task").mean().to_dict()


def fee_switches(an: Analysis) -> pd.DataFrame:
    """Per task, the exact runs of expert fees over which each model (by label) is the cheapest alone with the expert
    (``costofpass.cheapest_by_fee``: task, model, from_usd, to_usd; over ``fee_curve``'s range of fees), each problem
    weighted as Table 1 weights it (a racing set's)."""
    vanilla, expert, weights = an.table1_records()
    return cp.cheapest_by_fee(vanilla.rename(columns=an.labels), expert,
                              None if weights is None else weights.rename(columns=an.labels))
