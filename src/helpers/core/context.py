"""The run context: a parameter set resolved into its tasks, problems, models and prices, checked
before anything runs (every problem is one line)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

from helpers.core.errors import CostOfPassError
from helpers.core.experts import check_experts
from helpers.core.models import ModelSpec, resolve_models
from helpers.core.params import Params
from helpers.core.prices import PriceSnapshot, load_snapshot
from helpers.core.redaction import protect
from helpers.core.tasks import Problem, get_task, load_problems


@dataclass
class Context:
    """Everything a stage needs, resolved and validated from a parameter set."""

    params: Params
    models: list[ModelSpec]
    snapshot: PriceSnapshot
    problems: dict[str, list[Problem]]
    caveats: list[str] = field(default_factory=list)

    @property
    def simulated(self) -> bool:
        return any(m.simulated for m in self.models)

    def split(self) -> tuple["Context", "Context | None"]:
        """This context with the set's headline models only, and one with its ``table1_only`` models (None when it
        names none): the analysis keeps the second out of every statistic but Table 1."""
        only = set(self.params.table1_only)
        aside = [m for m in self.models if m.name in only]
        if not aside:  # none named, or this context is already the headline's
            return self, None
        return replace(self, models=[m for m in self.models if m.name not in only]), replace(self, models=aside)


def prepare(params: Params) -> Context:
    """Resolve tasks, models, prices and problems; any problem is one line, before any call."""
    models = resolve_set_models(params)
    check_experts(params.tasks, params.source, params.expert_usd)
    check_imported(params, models)
    protect(*(m.api_key_env for m in models))  # their values never reach records, tables or logs
    snapshot = set_prices(params)
    problems, caveats = set_problems(params)
    check_output_dir(params)
    return Context(params, models, snapshot, problems, caveats)


def resolve_set_models(params: Params) -> list[ModelSpec]:
    """The set's tasks checked and its models resolved from the registry; a simulated model needs a profile with
    an accuracy for every task."""
    for t in params.tasks:
        try:
            get_task(t)
        except CostOfPassError as err:
            raise CostOfPassError(f"{params.source}: field 'tasks': {err}") from None
    try:
        models = resolve_models(params.models, params.models_path)
    except CostOfPassError as err:
        raise CostOfPassError(f"{params.source}: field 'models': {err}") from None
    for m in models:
        if m.simulated and m.sim is None:
            raise CostOfPassError(f"model '{m.name}' is simulated (sim/...) but has no 'sim' profile")
        if m.sim and (missing := [t for t in params.tasks if t not in m.sim.accuracy]):
            raise CostOfPassError(f"simulated model '{m.name}' has no accuracy for task(s) {', '.join(missing)}")
    return models


def set_prices(params: Params) -> PriceSnapshot:
    """The prices (USD per token) the set is priced at: the ledger as of ``prices.as_of``, or its snapshot file;
    every priced model must have one."""
    if params.prices is not None:
        from helpers.core.ledger import prices_as_of

        try:
            snapshot = prices_as_of(params.priced_models, params.prices.as_of)
        except CostOfPassError as err:
            raise CostOfPassError(f"{params.source}: field 'prices.as_of': {err}") from None
    else:
        snapshot = load_snapshot(params.price_path, source=f"{params.source}: field 'price_snapshot'")
    snapshot.require(params.priced_models)
    return snapshot


def set_problems(params: Params) -> tuple[dict[str, list[Problem]], list[str]]:
    """Each task's drawn problems, and the caveats a reader must see (a task's own, fewer problems than asked,
    one run per problem)."""
    problems, caveats = {}, []
    for t in params.tasks:
        options = params.task_options.get(t, {})
        problems[t] = load_problems(t, params.data_path, params.n_problems, params.seed, options, params.sampler)
        spec = get_task(t)
        if spec.caveat and (note := spec.caveat(params.data_path, options)):
            caveats.append(note)
        if len(problems[t]) < params.n_problems:
            caveats.append(f"{spec.label}: {len(problems[t])} problems available, fewer than "
                           f"n_problems = {params.n_problems}.")
    if params.n_runs == 1:
        caveats.append("One run per model and problem: each problem's success rate R is 0 or 1, so its plug-in "
                       "cost-of-pass is its one attempt's cost or infinite (the expert's cost). The bootstrap "
                       "resamples problems only (a problem's one run carries the run-to-run noise, which resampling "
                       "problems includes), and the model-based estimator leans on its "
                       "item-response assumptions for R.")
    return problems, caveats


def check_imported(params: Params, models: list[ModelSpec]) -> None:
    """A set imports its records (``import_from``) for imported models only, and only as vanilla runs: others
    recorded one response per run, so a technique that makes its own calls (self-refine) has nothing to read."""
    from helpers.core.methods import collected_methods

    imported = [m.name for m in models if m.imported]
    by_others = [m.name for m in collected_methods(params.methods) if m.recorded_by_others]
    if by_others and (params.import_from is None or params.import_from.format != "agent_evals"):
        raise CostOfPassError(f"{params.source}: field 'methods': {', '.join(by_others)} are agent strategies this "
                              "project does not run; their records are imported (import_from format agent_evals)")
    if params.import_from is None:
        if imported:
            raise CostOfPassError(f"{params.source}: model(s) {', '.join(imported)} are imported (registry field "
                                  "'imported'): a set with them needs 'import_from'")
        return
    called = [m.name for m in models if not m.imported]
    if called:
        raise CostOfPassError(f"{params.source}: field 'import_from': model(s) {', '.join(called)} have no 'imported' "
                              "entry in the registry (an imported set calls no model)")
    calling = [m.name for m in collected_methods(params.methods) if m.name != "vanilla" and not m.recorded_by_others]
    if calling:
        raise CostOfPassError(f"{params.source}: field 'methods': {', '.join(calling)} make(s) calls of their own; "
                              "imported records are vanilla runs (majority vote and best-of-N are estimated from them)")


def check_output_dir(params: Params) -> None:
    """The set's output directory is inside ``results/`` (``params.check_confined``) and writable, or can be made
    where the nearest folder above it that exists is writable (one line if not). Nothing is made here: a dry run, or
    a set refused later, leaves no folder behind; the stages make it."""
    from helpers.core.params import check_confined

    check_confined(params)
    out = params.output_path
    try:
        there = next(p for p in (out, *out.parents) if p.exists())
        if not there.is_dir():
            raise NotADirectoryError(20, "Not a directory")
        probe = there / f".write-probe-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as err:
        raise CostOfPassError(f"{params.source}: field 'output_dir': cannot write to {out} "
                              f"({err.strerror or type(err).__name__})") from None


def banner(ctx: Context) -> str:
    """A Markdown line saying what a run is: the set, its counts, its prices, simulated or not."""
    p = ctx.params
    n = sum(len(v) for v in ctx.problems.values())
    kind = "**SIMULATED** models (not real LLMs) — " if ctx.simulated else ""
    return (
        f"{kind}parameter set **{p.name}**: {len(p.tasks)} tasks, {n} problems, {len(ctx.models)} models, "
        f"{p.n_runs} runs, methods {', '.join(p.methods)}; prices '{ctx.snapshot.name}' ({ctx.snapshot.date}); "
        f"extraction {p.extraction}."
    )


