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
from helpers.collect.budget import estimate_calls
from helpers.collect.collection import PRICED, CollectResult, collect, summarize
from helpers.collect.plan import Attempt, in_plan, plan_for
from helpers.collect.records import RecordStore
from helpers.core.context import Context
from helpers.core.errors import CostOfPassError
from helpers.core.experts import difficulties, expert_per_problem
from helpers.core.methods import collected_methods, get_method
from helpers.core.numbers import sig
from helpers.core.prices import cost_usd
from helpers.grade.answers import attempts_from_calls, grade_calls
from helpers.grade.estimates import strategy_name

CELL = ["task", "problem_id", "option"]


def option_of(a: Attempt) -> str:
    """An attempt's option: its strategy's name (``<model>`` or ``<model>+<method>``)."""
    return strategy_name(a.model.name, a.method.name)


def set_options(ctx: Context) -> dict[str, tuple[str, str]]:
    """Every option of the set: name -> (model, method), collected methods only."""
    return {strategy_name(m.name, me.name): (m.name, me.name) for m in ctx.models
            for me in collected_methods(ctx.params.methods)}


def protected_subsets(ctx: Context) -> list[frozenset[str]]:
    """The option subsets whose frontiers the set keeps exact (``racing.protect``;
    ``collect.racing.report_subsets``)."""
    return racing.report_subsets(set_options(ctx), {m.name: m.family for m in ctx.models},
                                 {m.name: m.release_date for m in ctx.models}, ctx.params.racing.protect)


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


def judged_cells(ctx: Context, attempts: list[Attempt]) -> pd.DataFrame:
    """The graded records of ``attempts`` as cells (``cells_of``): one row per (task, problem_id, option) with
    ``cost_usd`` (mean USD per complete attempt), ``passes`` and ``runs`` (complete attempts)."""
    p = ctx.params
    latest = RecordStore(p.records_path).latest(only={(a.problem.task, a.model.name) for a in attempts})
    calls = latest[in_plan(latest, attempts)].reset_index(drop=True)
    if calls.empty:
        return pd.DataFrame(columns=[*CELL, "cost_usd", "passes", "runs"])
    graded = grade_calls(calls, ctx.problems, p.extraction, p.fidelity.numeric_answers,
                         code_cache=p.graded_path / "sandbox_verdicts.jsonl",
                         unisolated_allowed=p.settings.unisolated_grading)
    done = attempts_from_calls(graded)
    done = done[done["complete"]].astype({"task": str, "problem_id": str, "model": str, "method": str})
    return cells_of(done.assign(usd=cost_usd(done, ctx.snapshot)))


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


def set_races(ctx: Context, sample_attempts: list[Attempt], sample_cells: pd.DataFrame) -> dict[str, racing.Race]:
    """Each dataset's race: its options by expected USD per attempt on the Table-1 sample's records (``sample_cells``:
    ``judged_cells`` of ``sample_attempts``, the sample's planned attempts); an option with no complete attempt there
    takes the ledger's estimate."""
    ledger = estimate_calls([(a, list(range(a.method.collected_calls))) for a in sample_attempts],
                            ctx.snapshot, ctx.params.sampling.model_dump())
    per_call = (ledger["usd"] / ledger["calls"]).set_axis(pd.MultiIndex.from_frame(ledger[["task", "model"]])).to_dict()
    subsets, options = protected_subsets(ctx), set_options(ctx)
    races = {}
    for task in ctx.problems:
        measured = racing.expected_usd(sample_cells[sample_cells["task"] == task]) if len(sample_cells) else {}
        expected = {o: measured.get(o, per_call.get((task, m), 0.0) * get_method(me).collected_calls)
                    for o, (m, me) in options.items()}
        races[task] = racing.make_race(expected, subsets, ctx.params.racing.margin)
    return races


def set_expert(ctx: Context) -> pd.Series:
    """The expert's USD per problem of every dataset, indexed (task, problem_id)."""
    index = pd.MultiIndex.from_tuples([(t, q.problem_id) for t, ps in ctx.problems.items() for q in ps],
                                      names=["task", "problem_id"])
    return expert_per_problem(index, ctx.params.expert_bound, rule=ctx.params.fidelity.expert_cost,
                              difficulty=difficulties(ctx.problems), given=ctx.params.expert_usd)


def cells_of(attempts: pd.DataFrame) -> pd.DataFrame:
    """Priced attempts (``task``, ``problem_id``, ``model``, ``method``, ``usd``, ``correct``, ``complete``) as cells:
    one row per (task, problem_id, option) with ``cost_usd`` (mean USD per complete attempt), ``passes`` and ``runs``
    (complete attempts)."""
    done = attempts[attempts["complete"].astype(bool)].astype({"task": str, "problem_id": str,
                                                               "model": str, "method": str})
    done = done.assign(option=[strategy_name(m, me) for m, me in zip(done["model"], done["method"])],
                       passes=done["correct"].astype(float))
    return (done.groupby(CELL).agg(cost_usd=("usd", "mean"), passes=("passes", "sum"), runs=("usd", "size"))
            .reset_index())


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

    if ctx.params.design != "racing":
        return run_collection(ctx, progress)
    result = collect_racing(ctx, progress)
    if result.pending_calls:
        raise CostOfPassError(
            f"budget reached: ${result.spent_now_usd:.4f} spent, {result.pending_calls} calls of this wave not made; "
            f"raise budget_usd in {ctx.params.source} and rerun to resume"
        )
    return result
