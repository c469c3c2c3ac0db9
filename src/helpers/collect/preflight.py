"""What must pass before any call is made: API keys, local runtimes, and the budget against the
estimated cost of the pending calls."""

from __future__ import annotations

import pandas as pd

from helpers.core.context import Context, prepare
from helpers.core.errors import CostOfPassError
from helpers.core.models import ModelSpec
from helpers.core.params import Params


def missing_keys(models: list[ModelSpec]) -> dict[str, list[str]]:
    """Environment variables each model needs and lacks (names only)."""
    out: dict[str, list[str]] = {}
    for m in models:
        for key in m.required_env_keys():
            out.setdefault(key, []).append(m.name)
    return out


def check_keys(ctx: Context) -> None:
    missing = missing_keys(ctx.models)
    if missing:
        parts = "; ".join(f"{k} (for {', '.join(v)})" for k, v in missing.items())
        raise CostOfPassError(f"missing API key(s) in the environment: {parts}; export them, or run with --dry-run")


def estimate(ctx: Context) -> pd.DataFrame:
    """Pending calls and estimated USD per task and model (see collect.estimate_calls)."""
    from helpers.collect.budget import estimate_calls
    from helpers.collect.plan import pending, plan_for, to_call
    from helpers.collect.records import RecordStore

    todo = to_call(pending(plan_for(ctx.params, ctx.problems, ctx.models), RecordStore(ctx.params.records_path).done()))
    return estimate_calls(todo, ctx.snapshot, ctx.params.sampling.model_dump(), ctx.params.service_tier)


def racing_floor(ctx: Context) -> pd.DataFrame:
    """``estimate`` of the pending calls the racing design makes whatever the records say: every option on the Table-1
    sample (``collect.racing.table1_problems``), and on every other problem the option the ledger expects cheapest per
    attempt (it runs first, and only the expert can bound it). The racing bill lies between this and the uniform one."""
    from helpers.collect import racing
    from helpers.collect.budget import estimate_calls
    from helpers.collect.plan import pending, plan_for, to_call
    from helpers.collect.records import RecordStore

    p = ctx.params
    attempts = plan_for(p, ctx.problems, ctx.models)
    sample = racing.table1_sample({t: [q.problem_id for q in ps] for t, ps in ctx.problems.items()},
                                  p.racing.table1_share, p.seed)
    per_attempt = estimate_calls([(a, list(range(a.method.collected_calls))) for a in attempts], ctx.snapshot,
                                 p.sampling.model_dump(), p.service_tier)
    per_attempt = per_attempt.assign(usd=per_attempt["usd"] / per_attempt["calls"])
    cheapest = per_attempt.sort_values(["usd", "model"]).drop_duplicates("task").set_index("task")["model"]
    first = {(a.problem.task, a.model.name, a.method.name) for a in attempts if a.method.name == "vanilla"}
    floor = [a for a in attempts if (a.problem.task, a.problem.problem_id) in sample
             or (a.model.name == cheapest.get(a.problem.task)
                 and (a.problem.task, a.model.name, a.method.name) in first)]
    todo = to_call(pending(floor, RecordStore(p.records_path).done()))
    return estimate_calls(todo, ctx.snapshot, p.sampling.model_dump(), p.service_tier)


def format_estimate(ctx: Context, est: pd.DataFrame, forecast=None) -> str:
    """The dry run's bill: per model, the uniform design's; a racing set's floor beside it and its ``forecast``
    (``collect.forecast.Forecast``, from ``grade.forecast.set_forecast``)."""
    p = ctx.params
    lines = [
        f"dry run of '{p.name}' ({p.source}): {len(p.tasks)} tasks x {len(p.models)} models x "
        f"{len(p.methods)} methods x {p.n_runs} runs, up to {p.n_problems} problems per task",
        f"prices: snapshot '{ctx.snapshot.name}' of {ctx.snapshot.date} ({ctx.snapshot.source})"
        + (" at each model's batch discount (collection mode batch)" if p.batch_mode else ""),
    ]
    if p.replays_race:  # design racing on records already there
        lines.append("design racing on the records already there: no call is made; the race is replayed on them "
                     "(03_frontier: what it would have spent, and which figures it would have kept; docs/racing.md)")
    if est.empty:
        lines.append("calls: 0 (everything is already recorded); estimated USD: $0.00")
        return "\n".join(lines)
    by_model = est.groupby("model", sort=False)[["calls", "usd"]].sum()
    if p.collects_by_race:
        return "\n".join(lines + _both_bills(ctx, by_model, forecast) + [f"note: {c}" for c in ctx.caveats])
    for name, row in by_model.iterrows():
        lines.append(f"  {name:<28} {int(row.calls):>8} calls  ${row.usd:>10.4f}")
    lines.append(f"calls: {int(est.calls.sum())}; estimated USD: ${est.usd.sum():.2f} (budget ${p.budget_usd:g})")
    if p.import_from is None:  # what the other design would cost: a line, so a user can choose before paying
        floor = racing_floor(ctx)
        lines.append(f"with design: racing this set would make at least {int(floor.calls.sum())} calls, "
                     f"${floor.usd.sum():.2f}, and at most the above (docs/racing.md)")
    lines.extend(f"note: {c}" for c in ctx.caveats)
    return "\n".join(lines)


def _both_bills(ctx: Context, uniform: pd.DataFrame, forecast=None) -> list[str]:
    """The dry run's two bills, per model: the uniform design's, and the least the racing design makes; then the
    racing design's forecast (``forecast``), what the budget is checked against."""
    p = ctx.params
    floor = racing_floor(ctx).groupby("model", sort=False)[["calls", "usd"]].sum().reindex(uniform.index).fillna(0)
    lines = [f"  {'model':<28} {'uniform: calls':>14} {'USD':>11}   {'racing, at least: calls':>23} {'USD':>11}"]
    for name, row in uniform.iterrows():
        lines.append(f"  {name:<28} {int(row.calls):>14} {row.usd:>11.4f}   {int(floor.at[name, 'calls']):>23} "
                     f"{floor.at[name, 'usd']:>11.4f}")
    lines.append(f"uniform design: {int(uniform.calls.sum())} calls, estimated USD ${uniform.usd.sum():.2f}")
    lines.append(f"racing design (this set's): at least {int(floor.calls.sum())} calls, ${floor.usd.sum():.2f} (every "
                 f"option on the Table-1 sample, {p.racing.table1_share:.0%} of each dataset's problems, and the "
                 "option the prices make cheapest on the others): a floor, not a forecast; the rest depends on what "
                 "the cheaper options pass")
    if forecast is not None:
        lines.append(forecast.line())
        lines.append(f"budget ${p.budget_usd:g}: checked against the forecast's range now, and before each wave "
                     "against its estimate (docs/racing.md, Forecast and budget)")
    return lines


def check_local_runtime(ctx: Context, est: pd.DataFrame) -> None:
    """Local models with calls to make need llama.cpp and their verified weights (not when all is recorded)."""
    pending = set(est["model"]) if not est.empty else set()
    local = [m for m in ctx.models if m.local and m.name in pending]
    if not local:
        return
    from importlib.util import find_spec

    from helpers.collect.backends.local import weights_path

    if find_spec("llama_cpp") is None:
        raise CostOfPassError(f"local model(s) {', '.join(m.name for m in local)} have calls to make and "
                              "llama-cpp-python is not installed; run `make setup-local`")
    for weights in (m.local for m in local if m.local):  # every one has its weights
        weights_path(weights)


def check_replay_recorded(ctx: Context, est: pd.DataFrame) -> None:
    """A set replaying the race on records it has (``racing.replay``, ``analyze.race_replay``) makes no call: every
    call of the uniform design must already be recorded (an imported set's are read from its source)."""
    p = ctx.params
    if p.replays_race and p.import_from is None and not est.empty:
        from helpers.core.paths import shown

        raise CostOfPassError(f"{p.source}: racing.replay replays the race on the records already there, and "
                              f"{int(est['calls'].sum()):,} calls of the uniform design are not in "
                              f"{shown(p.records_path)}: collect them with design: uniform, or point records_dir at a "
                              "uniform set's records")


def check_import_source(ctx: Context) -> None:
    """An imported set's source file exists (read in full by the collection stage)."""
    if ctx.params.import_from is not None:
        from helpers.collect.imports import source_path

        source_path(ctx.params)


def check_remote_hosts(ctx: Context, offline: bool = False) -> list[str]:
    """One warning line per model whose ``api_base`` is another machine (``models.remote_host``), said before any
    call (its key, if it has one, goes there); ``offline`` (``cost-of-pass run --offline``, or ``COP_OFFLINE=1``:
    ``params.settings``) refuses them instead."""
    from helpers.core.models import remote_host

    lines = []
    for m in ctx.models:
        if (host := remote_host(m)) is None:
            continue
        key = f" and its key ({m.api_key_env})" if m.api_key_env else ""
        if offline:
            raise CostOfPassError(f"model '{m.name}': api_base {m.api_base} is another machine ({host}) and this "
                                  "run is offline (--offline / COP_OFFLINE=1)")
        lines.append(f"warning: model '{m.name}' sends its prompts{key} to {host} (api_base "
                     f"{m.api_base}), not this machine")
    return lines


def preflight(params: Params) -> Context:
    """All checks that must pass before any call: the context, API keys, and the budget."""
    return preflight_estimate(params)[0]


def preflight_estimate(params: Params) -> tuple[Context, pd.DataFrame]:
    """``preflight``, also returning the estimate of the pending calls (see ``estimate``)."""
    ctx = prepare(params)
    import sys

    for line in check_remote_hosts(ctx, offline=params.settings.offline):
        print(line, file=sys.stderr)
    check_keys(ctx)
    check_import_source(ctx)
    if params.batch_mode:
        from helpers.collect.batch import check_batchable

        check_batchable(ctx.models)
    from helpers.collect.budget import check_budget, recorded_spend_usd

    est = estimate(ctx)
    check_replay_recorded(ctx, est)
    check_local_runtime(ctx, est)
    check_budget(params, recorded_spend_usd(params, ctx.snapshot),
                 racing_floor(ctx) if params.collects_by_race else est)
    return ctx, est


