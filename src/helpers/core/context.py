"""The run context: a parameter set resolved into its tasks, problems, models and prices, checked
before anything runs (every problem is one line)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from helpers.core.errors import CostOfPassError
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


def prepare(params: Params) -> Context:
    """Resolve tasks, models, prices and problems; any problem is one line, before any call."""
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
        if m.sim:
            missing = [t for t in params.tasks if t not in m.sim.accuracy]
            if missing:
                raise CostOfPassError(f"simulated model '{m.name}' has no accuracy for task(s) {', '.join(missing)}")
    protect(*(m.api_key_env for m in models))  # their values never reach records, tables or logs
    snapshot = load_snapshot(params.price_path, source=f"{params.source}: field 'price_snapshot'")
    snapshot.require(params.models)
    problems, caveats = {}, []
    for t in params.tasks:
        options = params.task_options.get(t, {})
        problems[t] = load_problems(t, params.data_path, params.n_problems, params.seed, options, params.sampler)
        spec = get_task(t)
        if spec.caveat and (note := spec.caveat(params.data_path, options)):
            caveats.append(note)
        if len(problems[t]) < params.n_problems:
            caveats.append(f"{spec.label}: {len(problems[t])} problems available, fewer than n_problems = {params.n_problems}.")
    check_output_dir(params)
    return Context(params, models, snapshot, problems, caveats)


def check_output_dir(params: Params) -> None:
    """The set's output directory exists or can be made, and is writable (one line if not)."""
    out = params.output_path
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / f".write-probe-{os.getpid()}"
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


