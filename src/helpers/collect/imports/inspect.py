"""Inspect logs (``format: inspect``): each sample of each epoch is one attempt of the log's model.

The logs are read and checked whole by ``core.inspect_logs`` (the verdict rules, could-not-finish samples, grading
usage, hostile files) before anything is imported. A sample becomes one record: run ``epoch - 1``, the solver's tokens
in their buckets (``prompt_tokens`` without cache reads and writes, ``cache_read_tokens``, ``cache_write_tokens``,
``completion_tokens`` with ``reasoning_tokens``), the log's service tier, ``source_correct`` its verdict (the task's
metric ``verdict`` takes it), ``source_usd`` Inspect's ``total_cost`` where the log has one; a sample that could not
finish is a failed call saying why. The report's caveats (``caveats``) give, per model, the samples that could not
finish, the grading models' usage and cost (never in cost-of-pass), and the computed cost beside Inspect's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from helpers.collect.imports.common import Imported
from helpers.core.inspect_logs import BUCKETS, InspectLog, read_logs
from helpers.core.models import ModelSpec
from helpers.core.params import Params
from helpers.core.runlogs.common import RunFile

TOKENS = "provider: the sample's usage as the Inspect log recorded it"


def source_of(log: InspectLog) -> str:
    """The provenance of a log's records: the file, its task and model, when it ran."""
    return f"Inspect log {log.path.name} (task {log.task}, model {log.model}, {log.created})"


def logs_of(params: Params, path: Path) -> list[InspectLog]:
    spec = params.import_from
    return read_logs(path, spec.scorer if spec else None, spec.threshold if spec else 1.0)


def read(params: Params, path: Path, models: dict[str, ModelSpec]) -> Iterator[Imported]:
    """One ``Imported`` per sample and epoch of the set's models' logs, in file order (the logs are checked whole
    first: one line naming the file and sample on anything wrong)."""
    for log in logs_of(params, path):
        if log.model not in models:
            continue  # another model's log in the folder: not in this set
        for i, s in enumerate(log.samples):
            yield Imported(
                "inspect", s.sample_id, models[log.model].name, s.run, s.response, s.tokens["prompt_tokens"],
                s.tokens["completion_tokens"], TOKENS, source_of(log), source_correct=s.verdict,
                finish_reason=None if s.failure else "stop", failure=s.failure,
                row=f"sample {s.sample_id} epoch {s.run + 1} ({log.path.name}, #{i})",
                cache_read_tokens=s.tokens["cache_read_tokens"], cache_write_tokens=s.tokens["cache_write_tokens"],
                reasoning_tokens=s.tokens["reasoning_tokens"], service_tier=log.service_tier,
                source_usd=s.total_cost, latency_s=s.latency_s)


def computed_usd(params: Params, log: InspectLog | RunFile, name: str, samples) -> float:
    """The set's price of ``samples`` of ``log`` (the solver's tokens, ``core.prices.cost_usd``; USD); an Inspect log
    or another run file (``core.runlogs``), whose attempts have the same ``tokens``."""
    import pandas as pd

    from helpers.core.context import set_prices
    from helpers.core.prices import cost_usd

    frame = pd.DataFrame([{"model": name, **s.tokens, "service_tier": log.service_tier} for s in samples])
    return float(cost_usd(frame, set_prices(params)).sum()) if len(frame) else 0.0


def agreement(params: Params, log: InspectLog, name: str) -> str:
    """Computed beside billed: the samples with Inspect's ``total_cost``, priced here and as Inspect billed them."""
    billed = [s for s in log.samples if s.total_cost is not None]
    if not billed:
        return (f"{name}: the log carries no billed cost (Inspect's total_cost is set only where prices were given "
                "at run time); the cost used is the one computed here")
    ours, theirs = computed_usd(params, log, name, billed), sum(s.total_cost or 0.0 for s in billed)
    ratio = f"{ours / theirs:.6f}" if theirs > 0 else "n/a"
    return (f"{name}: computed {ours:.6g} USD, Inspect's total_cost {theirs:.6g} USD on the {len(billed)} samples "
            f"that carry one (computed / billed = {ratio}); the cost used is the one computed here from the tokens "
            "and the set's prices (repriceable; Inspect prices no batch discount or long-context tier)")


def grading_line(params: Params, log: InspectLog, name: str) -> str | None:
    """The grading models' tokens of a log (judges, scorers' models), and their USD where the set prices them."""
    from helpers.core.context import set_prices

    totals: dict[str, dict[str, int]] = {}
    for s in log.samples:
        for model, tokens in s.grading.items():
            totals[model] = {b: totals.get(model, {}).get(b, 0) + tokens[b] for b in BUCKETS}
    if not totals:
        return None
    snapshot = set_prices(params)
    parts = []
    for model, t in sorted(totals.items()):
        priced = "" if model not in snapshot.prices else f", {grading_usd(snapshot, model, t):.6g} USD"
        parts.append(f"{model} {t['prompt_tokens'] + t['cache_read_tokens'] + t['cache_write_tokens']:,} input and "
                     f"{t['completion_tokens']:,} output tokens{priced}")
    return (f"{name}: grading (judge and scorer models, beside the solver's cost and never part of cost-of-pass): "
            + "; ".join(parts))


def grading_usd(snapshot, model: str, tokens: dict[str, int]) -> float:
    import pandas as pd

    from helpers.core.prices import cost_usd

    return float(cost_usd(pd.DataFrame([{"model": model, **tokens}]), snapshot).sum())


def caveats(params: Params, models: list[ModelSpec]) -> list[str]:
    """What the report's caveats say of an Inspect set, per model: samples that could not finish (errors, limits:
    counted apart, in neither R nor C), grading usage, and computed against billed cost."""
    from helpers.collect.imports import source_path

    names = {m.imported.name: m.name for m in models if m.imported}
    out = []
    for log in logs_of(params, source_path(params)):
        if log.model not in names:
            continue
        name = names[log.model]
        if failed := [s for s in log.samples if s.failure]:
            kinds = sorted({"error" if s.failure.startswith("could not finish: error") else
                            s.failure.removeprefix("could not finish: ") for s in failed if s.failure})
            out.append(f"{name}: {len(failed)} of {len(log.samples)} samples could not finish ({', '.join(kinds)}): "
                       "counted apart, as failed calls, in neither the success rate nor the cost per attempt")
        if line := grading_line(params, log, name):
            out.append(line)
        out.append(agreement(params, log, name))
    return out
