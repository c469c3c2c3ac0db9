"""Records others made: published responses imported into the record store instead of collected.

A set with ``import_from`` (``params.ImportSource``) has models whose registry entry is ``imported``: nothing
calls them. Its collection stage reads the source file instead (``routellm``, ``feval_ttc`` or ``generic``),
matches each response to a problem of the set's sample and to a planned attempt (vanilla runs), and appends
one record per response with its provenance: ``source`` (publication, file, licence), ``source_correct`` (the
source's own correctness label, compared with the project's grade in the report) and ``token_counts`` (how the
tokens were counted or estimated). Importing again adds nothing: a record whose key and fingerprint are in the
store already is skipped. A malformed source row is one error line naming the file and the row, before any
record is written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from helpers.collect.imports.common import Dropped, import_spec, source_error
from helpers.collect.records import CallRecord, RecordStore, key_strings
from helpers.core.errors import CostOfPassError, MissingData
from helpers.core.models import ModelSpec
from helpers.core.params import Params


@dataclass
class ImportResult:
    """Counts of one import: responses read from the source, records appended now, already in the store,
    outside the set's sample (other problems, runs or models), and planned attempts the source has no response for."""

    read: int = 0
    imported: int = 0
    present: int = 0
    outside: int = 0
    missing: int = 0
    by_model: dict[str, int] = field(default_factory=dict)
    dropped: list[str] = field(default_factory=list)  # parts of the source not used: file, line and why (``Dropped``)

    def describe(self) -> str:
        """One line: what the import did."""
        per_model = f" ({', '.join(f'{m} {n}' for m, n in sorted(self.by_model.items()))})" if self.by_model else ""
        n = len(self.dropped)
        dropped = f"; {n} run{'' if n == 1 else 's'} of the source dropped (each named below)" if n else ""
        return (f"imported {self.imported} responses{per_model} of {self.read} read ({self.present} already in the "
                f"store, {self.outside} outside the set's sample); {self.missing} planned attempts have no response "
                f"in the source{dropped}")


def by_source_name(models: list[ModelSpec]) -> dict[str, ModelSpec]:
    """The set's imported models by their name in the source."""
    return {m.imported.name: m for m in models if m.imported}


SOURCES = {"swebench_bash_only": ("SWE-bench bash-only", "the SWE-bench bash-only leaderboard's per-instance results "
                                  "(SWE-bench/swe-bench.github.io data/leaderboards.json, CC BY-NC 4.0)"),
           "routellm": ("RouteLLM", "RouteLLM's recorded GSM8K responses (Apache-2.0)"),
           "feval_ttc": ("FEval-TTC", "FEval-TTC's recorded responses (ODbL)"),
           "agent_evals": ("AI Agents That Matter", "the HumanEval runs of 'AI Agents That Matter' (Kapoor, Stroebl "
                           "et al., 2024; benediktstroebl/agent-evals, MIT)"),
           "inspect": ("Inspect logs", "Inspect evaluation logs (inspect-ai .eval/.json), each sample's usage as "
                       "the log recorded it"),
           "mini_swe_agent": ("SWE-agent trajectories", "mini-SWE-agent or SWE-agent trajectories, each instance's "
                              "billed instance_cost, judged by the SWE-bench harness's report"),
           "arc_prize": ("ARC Prize attempts", "ARC Prize attempt files (arc-agi-benchmarking), each attempt's usage"),
           "hal": ("HAL runs", "HAL (Holistic Agent Leaderboard) upload files, each task's logged calls' usage"),
           "openai_evals": ("OpenAI evals logs", "OpenAI evals record logs, each sample's sampling usage and match "
                            "verdict")}  # format: (short name, long name)
RUN_FILES = ("inspect", "mini_swe_agent", "arc_prize", "hal", "openai_evals")  # a path that is a file or a folder


def source_name(params: Params, long: bool = False) -> str:
    """How captions (short) and the about box (``long``) name an imported set's source."""
    spec, _ = import_spec(params)
    names = SOURCES.get(spec.format)
    return names[long] if names else spec.source or Path(spec.path).name


def source_path(params: Params) -> Path:
    """The imported set's source file; raises one line when the set is not imported or the file is absent."""
    spec, path = import_spec(params)
    if not (path.is_dir() if spec.format == "agent_evals" else path.exists() if spec.format in RUN_FILES
            else path.is_file()):
        hint = (" (FEval-TTC's api_responses.zip is downloaded by hand from the link in the FEval-TTC repository's "
                "README; see docs/data.md, 'Imported records')" if spec.format == "feval_ttc" else "")
        raise MissingData(f"{params.source}: field 'import_from.path': no file at {path}{hint}")
    return path


def counts_in_source(params: Params) -> bool:
    """Whether the source gives every response's token counts (FEval-TTC's estimates, or a generic file's columns)."""
    spec = params.import_from
    return spec is not None and (spec.format in ("feval_ttc", "agent_evals", *RUN_FILES) or (
        spec.format == "generic" and {"prompt_tokens", "completion_tokens"} <= set(spec.columns)))


def estimated_tokens(params: Params, models: list[ModelSpec]) -> list[str]:
    """The models of an imported set whose token counts this project estimated (no counts in the source and no
    tokenizer of their own offline); FEval-TTC's counts are the source's own estimates, said once for all."""
    if params.import_from is None or counts_in_source(params) or params.billed:
        return []
    return [m.name for m in models if m.imported and not m.imported.tokenizer]


def short_provenance(params: Params, models: list[ModelSpec]) -> str:
    """What each caption of an imported set says: IMPORTED, from where, and whose token counts are estimated
    (empty for a collected set; the about box has the whole of ``provenance``)."""
    spec = params.import_from
    if spec is None:
        return ""
    source = source_name(params)
    names = [m.label for m in models if m.name in estimated_tokens(params, models)]
    estimated = ("token counts FEval-TTC's word-count estimates" if spec.format == "feval_ttc" else
                 "USD as billed" + ("" if spec.format in RUN_FILES else ", no token counts") if params.billed else
                 f"token counts **estimated** for {', '.join(names)}" if names else "")
    return f"**IMPORTED** responses ({source}{'; ' + estimated if estimated else ''})."


def provenance(params: Params, models: list[ModelSpec]) -> str:
    """One sentence for the about box: where an imported set's responses come from and how their tokens were
    counted (empty for a collected set)."""
    spec = params.import_from
    if spec is None:
        return ""
    source = source_name(params, long=True)
    if params.billed:
        counts = ("its tokens, where the trajectory counts them, are compared with it in the caveats" if
                  spec.format in RUN_FILES else "no token counts")
        return (f"**IMPORTED** records, made by others: {source}; each attempt's cost is the USD its run was "
                f"billed, as the source reports it, with its API calls ({counts}; the set cannot be repriced); the "
                "verdict is the source's harness's.")
    if spec.format == "feval_ttc":
        tokens = "FEval-TTC's own approximation, round(1.365 × words)"
    elif spec.format == "agent_evals":
        tokens = ("the providers' usage as the agents' logs recorded it, every call of an attempt "
                  "billed at its own model's price")
    elif spec.format == "inspect":
        tokens = ("each sample's usage as the log recorded it (uncached input, cache reads and writes, output with "
                  "reasoning), each bucket at its own price; judge and scorer models' usage kept apart as grading "
                  "cost; the verdict is the log's scorer's")
    elif spec.format in RUN_FILES:
        tokens = ("each attempt's usage as the run files recorded it, each bucket at its own price (the cost "
                  "computed here; the source's own figures are compared in the caveats); the verdict is the source's")
    elif counts_in_source(params):
        tokens = "the source's"
    else:
        guessed = estimated_tokens(params, models)
        counted = [m.label for m in models if m.imported and m.name not in guessed]
        estimated = [m.label for m in models if m.name in guessed]
        tokens = "; ".join(x for x in (counted and f"{', '.join(counted)} counted with its own tokenizer",
                                       estimated and f"{', '.join(estimated)} **estimated** (cl100k_base)") if x)
        tokens += ", prompts as the question alone (the source's prompt is not recorded)"
    return f"**IMPORTED** responses, recorded by others: {source}; token counts: {tokens}."


# format (``params.IMPORT_FORMATS``) -> "module:function" of its reader: read(params, path, models by source name)
# -> Iterator[Imported], in file order, one line naming the file and row on a malformed one (imported when used); a
# reader that skips part of its source yields a ``common.Dropped`` for it
READERS = {"swebench_bash_only": "helpers.collect.imports.swebench_bash_only:read",
           "routellm": "helpers.collect.imports.routellm:read", "feval_ttc": "helpers.collect.imports.feval_ttc:read",
           "generic": "helpers.collect.imports.generic:read", "agent_evals": "helpers.collect.imports.agent_evals:read",
           "inspect": "helpers.collect.imports.inspect:read",
           **{f: "helpers.collect.imports.run_logs:read" for f in RUN_FILES[1:]}}


CAVEATS = {"swebench_bash_only": "helpers.collect.imports.swebench_bash_only:caveats",
           "agent_evals": "helpers.collect.imports.agent_evals:caveats",
           "inspect": "helpers.collect.imports.inspect:caveats",
           **{f: "helpers.collect.imports.run_logs:caveats" for f in RUN_FILES[1:]}}  # format -> "module:function"
# (params, models) -> lines for the report's data caveats: what the source itself gets wrong


def source_caveats(params: Params, models: list[ModelSpec]) -> list[str]:
    """The caveats an imported set's source calls for (none for a format without ``CAVEATS``)."""
    import importlib

    if params.import_from is None or params.import_from.format not in CAVEATS:
        return []
    module, _, function = CAVEATS[params.import_from.format].partition(":")
    return getattr(importlib.import_module(module), function)(params, models)


def read_source(params: Params, models: list[ModelSpec]):
    """The source's responses (``Imported``), in file order; raises one line on a malformed row or file."""
    import importlib

    path = source_path(params)
    module, _, function = READERS[import_spec(params)[0].format].partition(":")
    return getattr(importlib.import_module(module), function)(params, path, by_source_name(models))


def record_of(r, a) -> CallRecord:
    """The record of an imported response ``r`` (``common.Imported``) for its planned attempt ``a``."""
    return CallRecord(
        task=r.task, problem_id=r.problem_id, model=r.model, method=r.method, run=r.run, call=0,
        litellm_model=a.model.litellm_id, prompt_hash="", fingerprint=a.fingerprints[0],
        status="error" if r.failure else "ok", response=r.response, finish_reason=r.finish_reason,
        prompt_tokens=r.prompt_tokens, completion_tokens=r.completion_tokens, tries=1, error=r.failure,
        unusable=bool(r.failure), sampling=r.sampling, source=r.source, source_correct=r.source_correct,
        token_counts=r.token_counts, created_at="", agent_calls=r.agent_calls or None,
        latency_s=sum(c.latency_s for c in r.agent_calls) if r.latency_s is None else r.latency_s,
        billed_usd=r.billed_usd, billed_calls=r.billed_calls, cache_read_tokens=r.cache_read_tokens,
        cache_write_tokens=r.cache_write_tokens, reasoning_tokens=r.reasoning_tokens, service_tier=r.service_tier,
        source_usd=r.source_usd)


def import_records(params: Params, attempts: list, store: RecordStore) -> ImportResult:
    """Append the source's responses for the set's planned attempts (``plan.Attempt``) of imported models
    (their vanilla runs, and the attempts of agent strategies recorded by others; others are ignored); idempotent."""
    attempts = [a for a in attempts if a.model.imported and (a.method.name == "vanilla" or a.method.recorded_by_others)]
    imported = list({a.model.name: a.model for a in attempts}.values())
    planned = {(a.problem.task, a.problem.problem_id, a.model.name, a.method.name, a.run): a for a in attempts}
    done = set(key_strings(store.done())) if store.shards() else set()
    # the whole file is read and checked before anything is written; only the sample's responses are kept
    result, rows = ImportResult(), []
    first: dict[tuple, int | str] = {}  # key -> the row of its first response
    for r in read_source(params, imported):
        if isinstance(r, Dropped):
            result.dropped.append(r.where)
            continue
        result.read += 1
        k = (r.task, r.problem_id, r.model, r.method, r.run)
        if k not in planned:
            result.outside += 1
            continue
        if k in first:
            raise source_error(import_spec(params)[1], r.row, f"a second response of {r.model} ({r.method}) to "
                               f"{r.problem_id} run {r.run} (the first is row {first[k]})")
        first[k] = r.row
        rows.append(r)
    if result.read == 0 and not result.dropped:
        raise CostOfPassError(f"{params.import_path}: no responses to import (an empty file, or no usable row or run)")
    if empty := [m.name for m in imported if not any(r.model == m.name for r in rows)]:
        raise CostOfPassError(f"{params.source}: field 'models': {', '.join(empty)} "
                              f"{'has' if len(empty) == 1 else 'have'} no usable response in "
                              f"{params.import_path}{' (' + '; '.join(result.dropped) + ')' if result.dropped else ''}")
    for r in rows:
        record = record_of(r, planned[(r.task, r.problem_id, r.model, r.method, r.run)])
        if "\x1f".join(map(str, record.key)) in done:
            result.present += 1
            continue
        store.append(record)
        result.imported += 1
        result.by_model[r.model] = result.by_model.get(r.model, 0) + 1
    result.missing = len(planned) - len(first)
    return result
