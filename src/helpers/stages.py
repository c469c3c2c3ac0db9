"""The pipeline's stages as the notebooks call them: read records, write results under ``results/<set>/``."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .collect import CollectResult, collect, in_plan, plan_for
from .errors import CostOfPassError
from .grading import attempts_from_calls, grade_calls
from .pipeline import Context
from .prices import cost_usd
from .records import RecordStore


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


def run_collection(ctx: Context, progress: bool = True) -> CollectResult:
    """Collect the set's missing calls; raise if the budget stopped it before the end."""
    result = collect(ctx.params, ctx.problems, ctx.models, ctx.snapshot, progress=progress)
    if result.pending_calls:
        raise CostOfPassError(
            f"budget reached: ${result.spent_now_usd:.4f} spent, {result.pending_calls} calls not made; "
            f"raise budget_usd in {ctx.params.source} and rerun to resume"
        )
    return result


def graded_paths(ctx: Context) -> tuple[Path, Path]:
    d = ctx.params.graded_path
    return d / "calls.parquet", d / "attempts.parquet"


def set_records(ctx: Context) -> tuple[pd.DataFrame, int]:
    """The latest record of each call of the set's sample, and how many other records were ignored.

    The sample is the set's tasks, models, methods, sampled problems and runs 0..n_runs-1, with
    fingerprints of its model ids, sampling and prompts: records of other sets or settings in the
    same output directory stay on disk and are not read into any number.
    """
    latest = RecordStore(ctx.params.records_path).latest()
    keep = in_plan(latest, plan_for(ctx.params, ctx.problems, ctx.models))
    return latest[keep].reset_index(drop=True), int((~keep).sum())


def run_grading(ctx: Context) -> pd.DataFrame:
    """Grade the set's recorded calls; write graded calls and attempts (parquet); return the attempts.

    ``attempts.attrs["ignored_records"]`` counts records in the output directory outside the set's sample.
    """
    calls, ignored = set_records(ctx)
    if calls.empty:
        raise CostOfPassError(f"no records of this set's sample under {ctx.params.records_path} "
                              f"({ignored} other records ignored); run 01_collect first")
    graded = grade_calls(calls, ctx.problems, ctx.params.extraction, ctx.params.fidelity.numeric_answers)
    attempts = attempts_from_calls(graded)
    calls_path, attempts_path = graded_paths(ctx)
    calls_path.parent.mkdir(parents=True, exist_ok=True)
    graded.drop(columns=["sampling"]).to_parquet(calls_path, index=False)
    attempts.to_parquet(attempts_path, index=False)
    attempts.attrs["ignored_records"] = ignored
    return attempts


def accuracy_table(attempts: pd.DataFrame, ctx: Context) -> pd.DataFrame:
    """Per task, model and method: attempts, failed attempts, accuracy (0-1) and mean USD per attempt."""
    df = attempts.assign(usd=cost_usd(attempts, ctx.snapshot))
    done = df[df["complete"]]
    out = done.groupby(["task", "model", "method"]).agg(
        attempts=("correct", "size"), accuracy=("correct", "mean"), usd_per_attempt=("usd", "mean")
    )
    out["failed_attempts"] = df[~df["complete"]].groupby(["task", "model", "method"]).size()
    return out.fillna({"failed_attempts": 0}).astype({"failed_attempts": int}).reset_index()
