"""Preflight checks and the pipeline runner.

``cost-of-pass run params/<set>.yaml [--dry-run]`` (or ``python -m helpers.pipeline``) validates everything that can
fail before money is spent (parameters, models, prices, data, API keys, budget), then executes
the notebooks in order with papermill, writing executed copies to ``results/<set>/notebooks/``.
It stops at the first failing notebook with a non-zero exit and that notebook's path.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .errors import CostOfPassError, run_command
from .models import ModelSpec, resolve_models
from .params import Params, load_params
from .paths import repo_root
from .prices import PriceSnapshot, load_snapshot
from .redaction import protect
from .tasks import Problem, get_task, load_problems

NOTEBOOKS = ["01_collect", "02_grade", "03_frontier", "04_trends", "05_counterfactual", "06_techniques"]
KERNEL = "cost-of-pass"


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
    from .collect import estimate_calls, pending, plan_for
    from .records import RecordStore

    todo = pending(plan_for(ctx.params, ctx.problems, ctx.models), RecordStore(ctx.params.records_path).done())
    return estimate_calls(todo, ctx.snapshot, ctx.params.sampling.model_dump())


def format_estimate(ctx: Context, est: pd.DataFrame) -> str:
    p = ctx.params
    lines = [
        f"dry run of '{p.name}' ({p.source}): {len(p.tasks)} tasks x {len(p.models)} models x "
        f"{len(p.methods)} methods x {p.n_runs} runs, up to {p.n_problems} problems per task",
        f"prices: snapshot '{ctx.snapshot.name}' of {ctx.snapshot.date} ({ctx.snapshot.source})",
    ]
    if est.empty:
        lines.append("calls: 0 (everything is already recorded); estimated USD: $0.00")
        return "\n".join(lines)
    by_model = est.groupby("model", sort=False)[["calls", "usd"]].sum()
    for name, row in by_model.iterrows():
        lines.append(f"  {name:<28} {int(row.calls):>8} calls  ${row.usd:>10.4f}")
    lines.append(f"calls: {int(est.calls.sum())}; estimated USD: ${est.usd.sum():.2f} (budget ${p.budget_usd:g})")
    lines.extend(f"note: {c}" for c in ctx.caveats)
    return "\n".join(lines)


def check_local_runtime(ctx: Context, est: pd.DataFrame) -> None:
    """Local models with calls to make need llama.cpp and their verified weights (not when all is recorded)."""
    pending = set(est["model"]) if not est.empty else set()
    local = [m for m in ctx.models if m.local and m.name in pending]
    if not local:
        return
    from importlib.util import find_spec

    from .backends.local import weights_path

    if find_spec("llama_cpp") is None:
        raise CostOfPassError(f"local model(s) {', '.join(m.name for m in local)} have calls to make and "
                              "llama-cpp-python is not installed; run `make setup-local`")
    for m in local:
        weights_path(m.local)


def move_records_aside(params: Params) -> Path | None:
    """Before a re-collection: move the set's records to ``records.previous/`` (replacing an older copy)."""
    import shutil

    from .locking import output_lock

    src = params.records_path
    if not src.is_dir():
        return None
    dst = src.with_name("records.previous")
    with output_lock(params.output_path):  # not while another run collects into them
        shutil.rmtree(dst, ignore_errors=True)
        src.rename(dst)
    return dst


def preflight(params: Params) -> Context:
    """All checks that must pass before any call: the context, API keys, and the budget."""
    ctx = prepare(params)
    check_keys(ctx)
    from .collect import check_budget, recorded_spend_usd

    est = estimate(ctx)
    check_local_runtime(ctx, est)
    check_budget(params, recorded_spend_usd(params, ctx.snapshot), est)
    return ctx


def execute_notebook(src: Path, dst: Path, params_path: Path, log_output: bool = False) -> None:
    """Execute one notebook with papermill for a parameter set; raise one line naming the executed copy.

    Like ``papermill -f params/<set>.yaml``: the set's keys are the notebook's parameters (plus
    ``params_file``, where they came from). The kernel is ``cost-of-pass`` from this environment.
    """
    import logging

    import papermill as pm
    import yaml

    logging.getLogger("papermill").setLevel(logging.ERROR)  # the set's keys are all passed, by design
    os.environ.setdefault("JUPYTER_PATH", str(Path(sys.prefix) / "share" / "jupyter"))
    parameters = {**yaml.safe_load(params_path.read_text()), "params_file": str(params_path)}
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        pm.execute_notebook(str(src), str(dst), parameters=parameters, cwd=str(repo_root()), kernel_name=KERNEL,
                            log_output=log_output, progress_bar=False)
    except pm.PapermillExecutionError as err:
        raise CostOfPassError(f"notebook {src.stem} failed ({err.ename}: {err.evalue}); see {dst}") from None
    except Exception as err:
        raise CostOfPassError(f"notebook {src.stem} failed ({type(err).__name__}: {err}); see {dst}") from None


def shown(path: Path) -> Path:
    root = repo_root()
    return path.relative_to(root) if path.is_relative_to(root) else path


def run_notebooks(params_path: Path, params: Params, names: list[str] | None = None, log_output: bool = False) -> list[Path]:
    """Execute the notebooks in order; stop at the first that fails (its executed copy is named)."""
    done = []
    for name in names or NOTEBOOKS:
        dst = params.output_path / "notebooks" / f"{name}.ipynb"
        execute_notebook(repo_root() / "notebooks" / f"{name}.ipynb", dst, params_path, log_output)
        done.append(dst)
        print(f"ok  {name}  -> {shown(dst)}", flush=True)
    return done


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="cost-of-pass", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="preflight, then execute the notebooks for a parameter set")
    run.add_argument("params", help="params/<set>.yaml")
    run.add_argument("--dry-run", action="store_true", help="print pending calls and estimated USD, call nothing")
    run.add_argument("--only", help="comma-separated notebook names (default: all, in order)")
    run.add_argument("--log-output", action="store_true", help="stream notebook output")
    run.add_argument("--no-report", action="store_true", help="skip the offline HTML report")
    run.add_argument("--recollect", action="store_true",
                     help="collect every call again (the previous records move to records.previous/)")
    check = sub.add_parser("check", help="validate a parameter set and print its estimate")
    check.add_argument("params")
    report = sub.add_parser("report", help="re-render the offline HTML report of a set from its results")
    report.add_argument("params")
    args = ap.parse_args(argv)
    return run_command(lambda: command(args))


def command(args: argparse.Namespace) -> None:
    """What ``main`` does with parsed arguments: check, dry run, or run (with re-collection)."""
    params = load_params(args.params)
    if args.command == "report":
        from .report import render_offline

        print(f"ok  report  -> {shown(render_offline(Path(args.params).resolve(), params))}")
        return
    if args.command == "check" or args.dry_run:
        ctx = prepare(params)
        print(format_estimate(ctx, estimate(ctx)))
        return
    names = args.only.split(",") if args.only else None
    unknown = [n for n in names or [] if n not in NOTEBOOKS]
    if unknown:
        raise CostOfPassError(f"unknown notebook(s) {', '.join(unknown)} (known: {', '.join(NOTEBOOKS)})")
    if args.recollect:
        prepare(params)  # a bad set fails before its records are moved
        if moved := move_records_aside(params):
            print(f"previous records moved to {moved}")
    preflight(params)
    run_notebooks(Path(args.params).resolve(), params, names, args.log_output)
    if not names and not args.no_report:
        from .report import render_offline

        print(f"ok  report  -> {shown(render_offline(Path(args.params).resolve(), params))}")


if __name__ == "__main__":
    sys.exit(main())
