"""The grading stage: the set's records in, graded calls and attempts out (``results/<set>/graded/``)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from helpers.collect.collection import in_plan, plan_for
from helpers.collect.records import RecordStore
from helpers.core.context import Context
from helpers.core.errors import CostOfPassError
from helpers.grade.answers import attempts_from_calls, grade_calls


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


