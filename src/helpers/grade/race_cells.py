"""The cells of a racing set, shared by its collection (``grade.racing``) and its bill's forecast
(``grade.forecast``): its options (a model with a collected method), the subsets whose frontiers it protects, the
graded records of an option on a problem as one cell (mean USD per complete attempt, passes, runs), each dataset's
race from the Table-1 sample's records, and the expert's USD per problem.
"""

from __future__ import annotations

import pandas as pd

from helpers.collect import racing
from helpers.collect.budget import estimate_calls
from helpers.collect.plan import Attempt, in_plan
from helpers.collect.records import RecordStore
from helpers.core.context import Context
from helpers.core.experts import difficulties, expert_per_problem
from helpers.core.methods import collected_methods, get_method
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
