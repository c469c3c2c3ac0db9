"""The racing design's collection (``design: racing``): waves of calls, each graded before the next is chosen.

Wave 0 makes every option's runs (an option: a model with a collected method) on each dataset's Table-1 sample
(``collect.racing.table1_problems``); from those records each option's expected USD per attempt orders the options of
the dataset (``collect.racing.make_race``). Wave j makes the j-th option's runs on every other problem where
``Race.needed`` says it could still change a frontier the set protects, judged from the graded records of the options
before it. Grading between waves is why this driver sits in ``grade``: collection itself never grades. Every decision
is a function of the records, so a resumed or repeated run makes exactly the same calls.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from helpers.collect import racing
from helpers.collect.collection import PRICED, CollectResult, collect, summarize
from helpers.collect.plan import Attempt, in_plan, plan_for
from helpers.collect.records import RecordStore
from helpers.core.context import Context
from helpers.core.errors import CostOfPassError
from helpers.core.numbers import sig
from helpers.grade.race_cells import (
    CELL,
    cells_of,
    judged_cells,
    option_of,
    set_expert,
    set_options,
    set_races,
)


def table1_sample(ctx: Context) -> set[tuple[str, str]]:
    """(task, problem_id) of every dataset's Table-1 sample: every option makes every run there."""
    ids = {t: [q.problem_id for q in ps] for t, ps in ctx.problems.items()}
    return racing.table1_sample(ids, table1_share(ctx), ctx.params.seed)


def table1_share(ctx: Context) -> float:
    """The set's Table-1 share: ``racing.table1_share``, or the one ``budget: {target_usd}`` sizes
    (``grade.forecast.sized_share``)."""
    if ctx.params.budget is None:
        return ctx.params.racing.table1_share
    from helpers.grade.forecast import sized_share

    return sized_share(ctx)



@dataclass
class Waves:
    """The racing plan of a set: its planned attempts by cell, the Table-1 sample, each dataset's race and the expert's
    USD per problem."""

    ctx: Context
    by_cell: dict[tuple[str, str, str], list[Attempt]]
    sample: set[tuple[str, str]]
    races: dict[str, racing.Race]
    expert: pd.Series

    def wave(self, j: int, cells: pd.DataFrame) -> list[Attempt]:
        """The attempts of wave ``j`` (>= 1): each dataset's ``j-1``-th option where it is needed, from ``cells``."""
        out = []
        for task, race in self.races.items():
            if j - 1 >= len(race.options):
                continue
            problems = [q.problem_id for q in self.ctx.problems[task] if (task, q.problem_id) not in self.sample]
            mine = cells[cells["task"] == task]
            grid = {k: mine.pivot(index="problem_id", columns="option", values=k)
                    .reindex(index=problems, columns=list(race.options[: j - 1])).to_numpy(dtype=float)
                    for k in ("cost_usd", "passes", "runs")}
            upper = racing.cost_per_pass_upper(grid["cost_usd"], np.nan_to_num(grid["passes"]),
                                               np.nan_to_num(grid["runs"]), self.ctx.params.racing.alpha)
            fee = self.expert.reindex([(task, p) for p in problems]).to_numpy(dtype=float)
            needed = race.needed(j - 1, upper, fee)
            option = race.options[j - 1]
            out += [a for p, yes in zip(problems, needed) if yes for a in self.by_cell.get((task, p, option), [])]
        return out


def plan_waves(ctx: Context, attempts: list[Attempt], sample: set[tuple[str, str]],
               sample_cells: pd.DataFrame) -> Waves:
    """Each dataset's race from its Table-1 sample's records (``sample``: ``table1_sample``; ``set_races``)."""
    by_cell: dict[tuple[str, str, str], list[Attempt]] = {}
    for a in attempts:
        by_cell.setdefault((a.problem.task, a.problem.problem_id, option_of(a)), []).append(a)
    races = set_races(ctx, [a for a in attempts if (a.problem.task, a.problem.problem_id) in sample], sample_cells)
    return Waves(ctx, by_cell, sample, races, set_expert(ctx))



def raced_cells(ctx: Context, attempts: pd.DataFrame) -> pd.DataFrame:
    """Every (task, problem_id, option) of a racing set with ``raced``: whether its race runs the cell, decided from the
    records as the collection decided it (``collect.racing.race_decisions``) — on the Table-1 sample too, where every
    option ran anyway — and ``in_sample``. ``attempts``: the set's priced attempts (``cells_of``)."""
    cells, sample, options = cells_of(attempts), table1_sample(ctx), list(set_options(ctx))
    keys = pd.MultiIndex.from_tuples([(t, q.problem_id, o) for t, ps in ctx.problems.items() for q in ps
                                      for o in options], names=CELL)
    cells = cells.set_index(CELL).reindex(keys).reset_index().fillna({"passes": 0.0, "runs": 0.0})
    in_sample = np.array([(t, p) in sample for t, p in zip(cells["task"], cells["problem_id"])], dtype=bool)
    planned = plan_for(ctx.params,
                       {t: [q for q in ps if (t, q.problem_id) in sample] for t, ps in ctx.problems.items()},
                       ctx.models)
    races, expert = set_races(ctx, planned, cells[in_sample & (cells["runs"] > 0)]), set_expert(ctx)
    raced = np.zeros(len(cells), dtype=bool)
    for task, rows in cells.groupby("task", sort=False):
        raced[rows.index.to_numpy()] = racing.race_decisions(races[task], rows, expert, ctx.params.racing.alpha)
    return cells.assign(raced=raced, in_sample=in_sample)


def collect_racing(ctx: Context, progress: bool = True) -> CollectResult:
    """Collect a racing set wave by wave (module docstring); stops at the first wave the budget stops. The result
    counts every wave's calls, and ``notes`` say how the race was set (the calibration, per dataset)."""
    params = ctx.params
    attempts = plan_for(params, ctx.problems, ctx.models)
    sample = table1_sample(ctx)
    first = [a for a in attempts if (a.problem.task, a.problem.problem_id) in sample]
    done, total = [first], collect(params, ctx.problems, ctx.models, ctx.snapshot, progress, attempts=first)
    cells = judged_cells(ctx, first)
    waves = plan_waves(ctx, attempts, sample, cells)
    for j in range(1, 1 + max(len(r.options) for r in waves.races.values())):
        if total.pending_calls:
            break
        todo = waves.wave(j, cells)
        if not todo:
            continue
        result = collect(params, ctx.problems, ctx.models, ctx.snapshot, progress, attempts=todo)
        _add(total, result)
        done.append(todo)
        cells = pd.concat([cells, judged_cells(ctx, todo)], ignore_index=True)
    everything = [a for wave in done for a in wave]
    latest = RecordStore(params.records_path).latest(PRICED, sort=False)
    total.summary = summarize(latest[in_plan(latest, everything)], ctx.snapshot)
    total.notes = race_notes(waves, len(everything), len(attempts))
    return total


def _add(total: CollectResult, result: CollectResult) -> None:
    total.planned_calls += result.planned_calls
    total.made_calls += result.made_calls
    total.failed_calls += result.failed_calls
    total.unusable_replies += result.unusable_replies
    total.spent_now_usd, total.stopped_by_budget = result.spent_now_usd, result.stopped_by_budget
    total.pending_calls = result.pending_calls


def race_notes(waves: Waves, made: int, planned: int) -> list[str]:
    """What the race was: the Table-1 sample, each dataset's order with its expected USD per attempt, and the share of
    the uniform design's attempts it planned."""
    r = waves.ctx.params.racing
    notes = [f"design racing: every option on every run of {len(waves.sample)} problems (the Table-1 sample, "
             f"{table1_share(waves.ctx):.0%} of each dataset's, seed {waves.ctx.params.seed}); elsewhere each option "
             "only where "
             f"{r.margin:g} x its expected USD per attempt does not exceed the least upper bound (Jeffreys, "
             f"{r.alpha:.1%}) on a protected frontier ({', '.join(r.protect)}): {made:,} of the uniform design's "
             f"{planned:,} attempts"]
    for task, race in waves.races.items():
        order = ", ".join(f"{o} {sig(u)}" for o, u in zip(race.options, race.expected_usd))
        notes.append(f"{task}: options by expected USD per attempt on its Table-1 sample: {order}")
    return notes


def run_design(ctx: Context, progress: bool = True) -> CollectResult:
    """Collect the set's missing calls as its ``design`` says (``uniform``: ``collect.collection.run_collection``);
    raise if the budget stopped it before the end."""
    from helpers.collect.collection import run_collection

    if not ctx.params.collects_by_race:
        return run_collection(ctx, progress)
    if ctx.params.settings.part:  # the command line refuses it first (``cli.shards.refuse``); a notebook run by hand
        raise CostOfPassError(f"--shard {ctx.params.settings.shard}: a racing set's waves are chosen from every "
                              "option's graded records; run it without --shard")
    result = collect_racing(ctx, progress)
    if result.pending_calls:
        raise CostOfPassError(
            f"budget reached: ${result.spent_now_usd:.4f} spent, {result.pending_calls} calls of this wave not made; "
            f"raise budget_usd in {ctx.params.source} and rerun to resume"
        )
    return result
