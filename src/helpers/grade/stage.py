"""The grading stage: the set's records in, graded calls and attempts out (``results/<set>/graded/``)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pandas as pd

from helpers.collect.plan import in_plan, plan_for
from helpers.collect.records import RecordStore
from helpers.core.context import Context
from helpers.core.errors import CostOfPassError
from helpers.core.prices import agent_cost_usd, cost_usd
from helpers.grade.answers import attempts_from_calls, grade_calls
from helpers.grade.estimates import estimates_from_attempts

GRADED = ("calls", "attempts", "estimates")  # the stage's artifacts: graded/<name>.parquet
MANIFEST = "manifest.json"


def graded_paths(ctx: Context) -> dict[str, Path]:
    """Where the grading stage writes: one parquet file per artifact, and the manifest."""
    d = ctx.params.graded_path
    return {**{name: d / f"{name}.parquet" for name in GRADED}, "manifest": d / MANIFEST}


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
    """Grade the set's recorded calls; write graded calls, priced attempts and the per-problem
    estimates of every strategy (parquet) with a manifest; return the attempts.

    ``attempts.attrs["ignored_records"]`` counts records in the output directory outside the set's sample;
    ``attempts.attrs["code_grading"]`` says what judging model-written code took, against its bound (code tasks only).
    """
    from helpers.core.locking import output_lock

    # the records' owner may be collecting them now (another run, or the set a repriced copy reads): grading waits for
    # no one and reads no half-collected set — it takes the owner's lock, or refuses in one line naming the holder
    with output_lock(ctx.params.records_path.parent, ctx.params.settings.part):
        calls, ignored = set_records(ctx)
    if calls.empty:
        raise CostOfPassError(f"no records of this set's sample under {ctx.params.records_path} "
                              f"({ignored} other records ignored); run 01_collect first")
    p = ctx.params
    graded = grade_calls(calls, ctx.problems, p.extraction, p.fidelity.numeric_answers, progress=True,
                         code_cache=p.graded_path / "sandbox_verdicts.jsonl",
                         unisolated_allowed=p.settings.unisolated_grading)
    judged = graded.attrs.pop("code_grading", None)  # not into the parquet file's metadata
    attempts = attempts_from_calls(graded)
    attempts = bill_agent_attempts(attempts.assign(usd=attempt_usd(attempts, graded, ctx.snapshot)), graded,
                                   ctx.snapshot)
    estimates = estimates_from_attempts(attempts, p.methods, p.seed)
    paths = graded_paths(ctx)
    paths["calls"].parent.mkdir(parents=True, exist_ok=True)
    frames = {"calls": graded.drop(columns=["sampling"]), "attempts": attempts, "estimates": estimates}
    for name, df in frames.items():
        df.to_parquet(paths[name], index=False)
    manifest = {
        "set": p.name, "params": str(p.source), "price_snapshot": ctx.snapshot.name,
        "records": {"read": len(calls) + ignored, "in_set": len(calls), "ignored": ignored,
                    "fingerprints_sha256": digest(sorted(set(calls["fingerprint"])))},
        "counts": {name: len(df) for name, df in frames.items()},
        "code_grading": code_grading(graded),
        "sha256": {name: file_sha256(paths[name]) for name in GRADED},
    }
    write_json(paths["manifest"], manifest)
    attempts.attrs["ignored_records"] = ignored
    if judged is not None:
        attempts.attrs["code_grading"] = judged.describe()
    return attempts


def code_grading(graded: pd.DataFrame) -> dict[str, dict[str, int]]:
    """How each code task's programs were judged: per task, the counts of graded calls by harness (``split``: outside
    the program's process; ``whole``: inside it) and isolation (``bwrap``; ``none``: no kernel boundary). Empty for
    sets without code."""
    if "grade_harness" not in graded:
        return {}
    out = {}
    for task, rows in graded[graded["grade_harness"].notna()].groupby("task", observed=True):
        counts = {**rows["grade_harness"].value_counts().to_dict(), **rows["grade_isolation"].value_counts().to_dict()}
        out[str(task)] = {str(k): int(v) for k, v in counts.items()}
    return out


MISSING_MODULE = r"ModuleNotFoundError: No module named '([A-Za-z_][A-Za-z0-9_.]{0,59})'"  # identifiers only


def grading_caveats(ctx: Context) -> list[str]:
    """What a reader must know about a code set's verdicts (none for other sets), from its graded calls: programs that
    import a module the sandbox does not have (graded wrong here, though the source's environment may have had it),
    programs that could not be graded (killed from outside the grader each time: counted failed, apart) and programs
    stopped at the CPU limit (a verdict that can depend on the machine's speed)."""
    import pyarrow.parquet as pq

    path = graded_paths(ctx)["calls"]
    if not path.is_file() or "grade_reason" not in pq.read_schema(path).names:
        return []
    names = pq.read_schema(path).names
    cpu = pd.read_parquet(path, columns=["problem_id", "correct", "grade_cpu_s"]) if "grade_cpu_s" in names else None
    calls = pd.read_parquet(path, columns=["problem_id", "grade_reason"]).dropna()
    out = []
    missing = calls.assign(module=calls["grade_reason"].str.extract(MISSING_MODULE)[0]).dropna(subset=["module"])
    for module, rows in missing.groupby("module"):
        problems = ", ".join(sorted(rows["problem_id"].unique()))
        out.append(f"{len(rows)} graded solution(s) import {module}, which the grader's sandbox does not have "
                   f"({problems}): graded wrong here, though the source's environment may have had it.")
    from helpers.grade.sandbox import UNGRADED

    ungraded = calls[calls["grade_reason"].str.startswith(UNGRADED)]
    if len(ungraded):
        out.append(f"{len(ungraded)} solution(s) on {ungraded['problem_id'].nunique()} problem(s) could not be graded: "
                   "something outside the grader (the kernel's out-of-memory killer, an operator) killed them "
                   "each time they were judged. They count as failed here and are not cached: "
                   "run the set again to judge them.")
    from helpers.grade.sandbox import CPU_S, near_limit

    near = (cpu[cpu["grade_cpu_s"].astype("Float64").fillna(0.0).map(near_limit).astype(bool)] if cpu is not None
            else pd.DataFrame(columns=["problem_id", "correct"]))
    if len(near):
        passed = int(near["correct"].fillna(False).astype(bool).sum())
        out.append(f"{len(near)} graded solution(s) on {near['problem_id'].nunique()} problem(s) used at least two "
                   f"thirds of the {CPU_S} s CPU limit ({passed} passed, {len(near) - passed} did not): one program's "
                   "CPU time varies by a fifth or more between runs on a shared machine, so these verdicts can differ "
                   "when the set is graded on another machine or run.")
    return out


def attempt_usd(attempts: pd.DataFrame, graded: pd.DataFrame, snapshot) -> pd.Series:
    """USD of each attempt (``core.prices.cost_usd``): priced on its summed tokens, or, where the snapshot has a
    long-context tier (which each call crosses or not on its own prompt), call by call and summed. Returns a float
    Series on ``attempts``' index."""
    if not any(p.long_context for p in snapshot.prices.values()) or graded.empty:
        return cost_usd(attempts, snapshot)
    key = ["task", "problem_id", "model", "method", "run"]
    as_text = {k: str for k in key[:-1]}
    per_call = graded[key].astype(as_text).assign(usd=cost_usd(graded, snapshot).to_numpy())
    summed = per_call.groupby(key, sort=False, as_index=False)["usd"].sum()
    merged = attempts[key].astype(as_text).merge(summed, how="left", on=key)
    return pd.Series(merged["usd"].to_numpy(), index=attempts.index)


def bill_agent_attempts(attempts: pd.DataFrame, graded: pd.DataFrame, snapshot) -> pd.DataFrame:
    """Attempts whose one record is an imported agent attempt (``CallRecord.agent_calls``) take the sum of their
    calls, each at its own model's price (``core.prices.agent_cost_usd``), and ``calls`` the number of API calls."""
    has_calls = graded["agent_calls"].map(lambda a: isinstance(a, str)
                                          and a.startswith("[")) if "agent_calls" in graded \
        else pd.Series(False, index=graded.index)
    if not has_calls.any():
        return attempts
    import numpy as np

    rows = graded[has_calls]
    key = ["task", "problem_id", "model", "method", "run"]
    as_text = {k: str for k in key[:-1]}
    billed = rows[key].astype(as_text).assign(
        agent_usd=agent_cost_usd(rows["agent_calls"], snapshot).to_numpy(),
        agent_n=[len(json.loads(t)) for t in rows["agent_calls"]])
    merged = attempts[key].astype(as_text).merge(billed, how="left", on=key)
    has = merged["agent_usd"].notna().to_numpy()
    out = attempts.copy()
    out["usd"] = np.where(has, merged["agent_usd"].to_numpy(), out["usd"].to_numpy())
    out["calls"] = np.where(has, merged["agent_n"].fillna(0).to_numpy(), out["calls"].to_numpy()).astype(np.int64)
    return out


def read_graded(ctx: Context, name: str) -> pd.DataFrame:
    """One artifact of the grading stage (``attempts``, ``estimates`` or ``calls``), checked against its manifest."""
    paths = graded_paths(ctx)
    if not paths["manifest"].is_file():
        raise CostOfPassError(f"no graded results for '{ctx.params.name}' under "
                              f"{paths['manifest'].parent}; run 02_grade first")
    manifest = json.loads(paths["manifest"].read_text())
    if manifest.get("sha256", {}).get(name) != file_sha256(paths[name]):
        raise CostOfPassError(f"{paths[name]} does not match its manifest (changed after grading); run 02_grade again")
    return pd.read_parquet(paths[name])


def digest(items: list[str]) -> str:
    return hashlib.sha256("\n".join(items).encode()).hexdigest()


def file_sha256(path: Path) -> str | None:
    if not path.is_file():
        return None
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_json(path: Path, data: dict) -> None:
    """Write JSON atomically, keys sorted (the same content gives the same bytes)."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, path)
