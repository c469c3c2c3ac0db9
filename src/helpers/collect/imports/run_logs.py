"""Others' run files (``format: mini_swe_agent``, ``arc_prize``, ``hal``, ``openai_evals``): each attempt of the files'
model is one record.

The files are read and checked whole by ``core.runlogs`` (the verdict and run rules, could-not-finish attempts,
hostile files) before anything is imported. An attempt becomes one record: its run, its tokens in their buckets
(``prompt_tokens`` without cache reads and writes, ``cache_read_tokens``, ``cache_write_tokens``, ``completion_tokens``
with ``reasoning_tokens``; zero where the file has no complete count), ``source_correct`` its verdict (the task's
metric ``verdict`` takes it), ``billed_usd`` the USD billed where the format's cost is billed (mini-SWE-agent and
SWE-agent: ``instance_cost``, the cost used), ``source_usd`` the USD the source computed where it did (ARC's
``total_cost``: compared, never used); an attempt that could not finish is a failed call saying why. The report's
caveats (``caveats``) give, per model, the attempts that could not finish, the computed cost beside the billed or the
source's, and the source's own totals.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Iterator

from helpers.collect.imports.common import Imported, import_spec
from helpers.core.models import ModelSpec
from helpers.core.params import Params
from helpers.core.runlogs.common import BUCKETS, RunFile

MAX_RESPONSE = 100_000  # characters of an answer kept in its record (a patch can be a whole diff)
TOKENS = {"mini_swe_agent": "trajectory: the agent's own count, beside the USD billed (the cost used)",
          "arc_prize": "provider: each attempt's usage as the ARC harness recorded it",
          "hal": "provider: the task's logged calls' usage (Weave), summed",
          "openai_evals": "provider: the sample's sampling events' usage, summed"}


def runs_of(params: Params, path: Path) -> list[RunFile]:
    """The set's run files, read with its options (``import_from``: ``results``, ``solutions``)."""
    from helpers.core.runlogs import read_runs
    from helpers.core.tasks.run_logs import located

    fmt = import_spec(params)[0].format
    _, options = located(fmt, params.data_path, params.task_options.get(fmt, {}))
    return read_runs(fmt, path, options)


def source_of(run: RunFile) -> str:
    """The provenance of a run's records: the file or folder, its task and model, when it ran."""
    return f"{run.path.name} ({run.task}, model {run.model}, {run.created[:10]})"


def read(params: Params, path: Path, models: dict[str, ModelSpec]) -> Iterator[Imported]:
    """One ``Imported`` per attempt of the set's model, in file order (the files are checked whole first: one line
    naming the file and item on anything wrong)."""
    fmt = import_spec(params)[0].format
    for run in runs_of(params, path):
        if run.model not in models:
            continue
        for i, a in enumerate(run.samples):
            t = a.tokens or dict.fromkeys(BUCKETS, 0)
            yield Imported(
                fmt, a.sample_id, models[run.model].name, a.run, a.response[:MAX_RESPONSE], t["prompt_tokens"],
                t["completion_tokens"], TOKENS[fmt], source_of(run), source_correct=a.verdict,
                finish_reason=None if a.failure else "stop", failure=a.failure,
                row=f"{a.sample_id} run {a.run + 1} ({run.path.name}, #{i})", cache_read_tokens=t["cache_read_tokens"],
                cache_write_tokens=t["cache_write_tokens"], reasoning_tokens=t["reasoning_tokens"],
                service_tier=run.service_tier, source_usd=a.source_usd, billed_usd=a.billed_usd,
                billed_calls=a.calls if a.billed_usd is not None else None, latency_s=a.latency_s)


def agreement(params: Params, run: RunFile, name: str, samples: list) -> str:
    """Computed beside billed (or the source's computed USD): on the attempts that carry both tokens and a USD."""
    from helpers.collect.imports.inspect import computed_usd
    from helpers.core.context import set_prices

    billed = [a for a in samples if a.billed_usd is not None]
    theirs_of = (lambda a: a.billed_usd) if billed else (lambda a: a.source_usd)
    pairs = [a for a in samples if a.tokens is not None and theirs_of(a) is not None]
    word = "billed" if billed else "the source's"
    used = ("the cost used is the USD billed (as the SWE-bench bash-only board's; not repriceable)" if billed else
            "the cost used is the one computed here from the tokens and the set's prices (repriceable)")
    if not pairs:
        return f"{name}: {used}; no attempt carries both tokens and {word} USD to compare"
    if name not in set_prices(params).prices:
        return f"{name}: {used}; the set's snapshot has no price for {name}, so no computed cost is compared"
    ours, theirs = computed_usd(params, run, name, pairs), sum(theirs_of(a) for a in pairs)
    ratio = f"{ours / theirs:.6f}" if theirs > 0 else "n/a"
    return (f"{name}: computed {ours:.6g} USD, {word} {theirs:.6g} USD on the {len(pairs)} attempts that carry both "
            f"(computed / {'billed' if billed else 'source'} = {ratio}); {used}")


def failures(run_samples: list, name: str) -> str | None:
    """The attempts that could not finish, by kind (counted apart: in neither R nor C)."""
    failed = [a for a in run_samples if a.failure]
    if not failed:
        return None
    kinds = sorted({"error" if a.failure.startswith("could not finish: error") else
                    a.failure.removeprefix("could not finish: ") for a in failed})
    return (f"{name}: {len(failed)} of {len(run_samples)} attempts could not finish ({', '.join(kinds)}): counted "
            "apart, as failed calls, in neither the success rate nor the cost per attempt")


def caveats(params: Params, models: list[ModelSpec]) -> list[str]:
    """What the report's caveats say of a set of others' run files, per model: attempts that could not finish, the
    computed cost beside the billed or the source's, how agents' runs ended, and the source's own totals."""
    from helpers.collect.imports import source_path

    names = {m.imported.name: m.name for m in models if m.imported}
    runs = [r for r in runs_of(params, source_path(params)) if r.model in names]
    out: list[str] = []
    for model in dict.fromkeys(r.model for r in runs):
        name, mine = names[model], [r for r in runs if r.model == model]
        samples = [a for r in mine for a in r.samples]
        if line := failures(samples, name):
            out.append(line)
        out.append(agreement(params, mine[0], name, samples))
        if statuses := Counter(a.status for a in samples if a.status):
            out.append(f"{name}: how the agent's runs ended: " + ", ".join(f"{s} {n}" for s, n in
                                                                            statuses.most_common()) +
                       " (every trajectory is an attempt, judged by the SWE-bench report)")
        out += [f"{name}: {note}" for r in mine for note in r.notes]
    return out
