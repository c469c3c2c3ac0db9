"""A racing set's forecast bill (``collect.forecast`` simulates it) and the Table-1 share ``budget: {target_usd}``
sizes. Assembles the simulation's inputs from the set: its plan, the token model and prices (``collect.budget``), the
race each dataset runs (``grade.race_cells.set_races``: the collection's order) and, where the Table-1 sample is
recorded, its graded records (the pilot). Sits in ``grade`` because the pilot is graded to be read.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from helpers.collect import forecast as fc
from helpers.collect import racing
from helpers.collect.budget import call_rows, recorded_spend_usd
from helpers.collect.plan import Attempt, pending, plan_for, to_call
from helpers.collect.records import RecordStore
from helpers.core.context import Context
from helpers.core.errors import CostOfPassError
from helpers.core.params import Params
from helpers.grade.race_cells import CELL, judged_cells, option_of, set_expert, set_races

SHARES = (0.01, 0.02, 0.03, 0.05, 0.07, 0.1, 0.15, 0.2, 0.3, 0.5, 0.7, 1.0)  # the Table-1 shares sizing tries
_SIZED: dict[tuple[str, str], float] = {}  # (the set's parameters, prices) -> its sized share


def cell_usd(ctx: Context, attempts: list[Attempt], fresh: bool = False) -> pd.DataFrame:
    """The token model's USD per cell (``CELL``): ``attempt_usd`` (USD of one attempt, all its calls) and
    ``pending_usd`` (USD of its calls not yet recorded; ``fresh``: as if nothing were)."""
    p = ctx.params
    sampling = p.sampling.model_dump()
    firsts = [a for a in attempts if a.run == 0]
    one = call_rows([(a, list(range(a.method.collected_calls))) for a in firsts], ctx.snapshot, sampling,
                    p.service_tier)  # batch mode: at the ledger's batch discount
    per = one.groupby("attempt")["usd"].sum()
    cells = pd.DataFrame({"task": [a.problem.task for a in firsts],
                          "problem_id": [a.problem.problem_id for a in firsts],
                          "option": [option_of(a) for a in firsts],
                          "attempt_usd": per.reindex(range(len(firsts))).to_numpy()})
    done = pd.DataFrame() if fresh else RecordStore(p.records_path).done()
    if not len(done):  # every call pending: each run's attempt costs the same
        runs = pd.Series([0.0 if a.model.imported else float(p.n_runs) for a in firsts])
        return cells.assign(pending_usd=cells["attempt_usd"] * runs).set_index(CELL)
    todo = to_call(pending(attempts, done))
    rows = call_rows(todo, ctx.snapshot, sampling, p.service_tier)
    keys = pd.DataFrame([(a.problem.task, a.problem.problem_id, option_of(a)) for a, _ in todo], columns=CELL)
    owed = keys.iloc[rows["attempt"].to_numpy()].assign(usd=rows["usd"].to_numpy()).groupby(CELL)["usd"].sum()
    return cells.set_index(CELL).assign(pending_usd=owed).fillna({"pending_usd": 0.0})


def task_case(ctx: Context, task: str, race: racing.Race, usd: pd.DataFrame, cells: pd.DataFrame,
              sample: set[tuple[str, str]], expert: pd.Series) -> fc.TaskCase:
    """One dataset's ``collect.forecast.TaskCase``; its pilot where every option has complete attempts on every problem
    of the sample (``cells``: ``judged_cells`` of the sample), else None (the prior)."""
    ids = [q.problem_id for q in ctx.problems[task]]
    raced = [p for p in ids if (task, p) not in sample]
    drawn = [p for p in ids if (task, p) in sample]
    options = list(race.options)
    mine = usd.loc[task]

    def grid(frame: pd.DataFrame, column: str, problems: list[str]) -> np.ndarray:
        wide = frame.reset_index().pivot(index="problem_id", columns="option", values=column)
        return wide.reindex(index=problems, columns=options).to_numpy(dtype=float)

    attempt, owed = (np.nan_to_num(grid(mine, c, raced)) for c in ("attempt_usd", "pending_usd"))
    sample_usd = np.nan_to_num(grid(mine, "pending_usd", drawn)).sum(axis=0)
    fee = expert.reindex([(task, p) for p in raced]).to_numpy(dtype=float)
    pilot = None
    here = cells[cells["task"] == task].set_index(["problem_id", "option"]) if len(cells) else pd.DataFrame()
    if len(here) and (runs := grid(here, "runs", drawn)).min(initial=np.inf) > 0:
        pilot = fc.Pilot(grid(here, "passes", drawn), runs, grid(here, "cost_usd", drawn),
                         np.nan_to_num(grid(mine, "attempt_usd", drawn)))
    return fc.TaskCase(race, attempt, owed, fee, ctx.params.n_runs, sample_usd, pilot)


def set_forecast(ctx: Context, share: float | None = None, draws: int = fc.DRAWS, fresh: bool = False) -> fc.Forecast:
    """The racing design's forecast bill of a set with its Table-1 share ``share`` (default: the set's). ``fresh``:
    as if nothing were recorded (the prior, no spend): what sizing reads, so it never changes once records exist."""
    p = ctx.params
    share = p.racing.table1_share if share is None else share
    attempts = plan_for(p, ctx.problems, ctx.models)
    sample = racing.table1_sample({t: [q.problem_id for q in ps] for t, ps in ctx.problems.items()}, share, p.seed)
    first = [a for a in attempts if (a.problem.task, a.problem.problem_id) in sample]
    cells = pd.DataFrame(columns=[*CELL, "cost_usd", "passes", "runs"]) if fresh else judged_cells(ctx, first)
    races, usd, expert = set_races(ctx, first, cells), cell_usd(ctx, attempts, fresh), set_expert(ctx)
    cases = [task_case(ctx, t, races[t], usd, cells, sample, expert) for t in ctx.problems]
    spent = 0.0 if fresh else recorded_spend_usd(p, ctx.snapshot)
    bills = fc.simulate(cases, draws, p.seed, p.racing.alpha)
    return fc.Forecast(bills, spent, spent + float(usd["pending_usd"].sum()), fc.source_of(cases, list(ctx.problems)),
                       share)


def sized_share(ctx: Context) -> float:
    """The Table-1 share of a racing set with ``budget: {target_usd: X}``: the largest of ``SHARES`` (and the set's own
    ``racing.table1_share``, which caps it) whose fresh forecast (``set_forecast``: the prior, read from no record, so
    the same share before and after the collection) has its 95th percentile at most X. One line if none has."""
    p = ctx.params
    if p.budget is None:
        return p.racing.table1_share
    key = (p.model_dump_json(), ctx.snapshot.name)
    if key not in _SIZED:
        _SIZED[key] = _size(ctx, p.budget.target_usd)
    return _SIZED[key]


def _size(ctx: Context, target: float) -> float:
    """Bisection over the candidate shares (the forecast grows with the share: the sample is every option's)."""
    cap = ctx.params.racing.table1_share
    shares = sorted({s for s in SHARES if s < cap} | {cap})
    highs: dict[float, float] = {}

    def fits(i: int) -> bool:
        highs[shares[i]] = set_forecast(ctx, shares[i], fresh=True).high
        return highs[shares[i]] <= target

    if not fits(0):
        raise CostOfPassError(f"budget.target_usd ${target:,.2f} in {ctx.params.source} is below the smallest "
                              f"forecast possible: ${highs[shares[0]]:,.2f} (95th percentile, Table-1 share "
                              f"{shares[0]:.0%}); raise it, or drop models, methods or problems")
    lo, hi = 0, len(shares) - 1  # shares[lo] fits
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid - 1)
    return shares[lo]


def sized(params: Params, ctx: Context) -> tuple[Params, Context]:
    """The set as it collects: with ``budget.target_usd``, its ``racing.table1_share`` the sized one."""
    if params.budget is None or not params.collects_by_race:
        return params, ctx
    share = sized_share(ctx)
    params = params.model_copy(update={"racing": params.racing.model_copy(update={"table1_share": share})})
    _SIZED[(params.model_dump_json(), ctx.snapshot.name)] = share  # sized already: its cap is its share
    return params, dataclasses.replace(ctx, params=params)
