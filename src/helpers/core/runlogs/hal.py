"""HAL (Holistic Agent Leaderboard) upload files, as princeton-pli/hal-harness writes them
(``hal/benchmarks/base_benchmark.py``'s ``process_results`` and ``hal/utils/weave_utils.py``, read at commit 004b6b9):
one ``<run_id>_UPLOAD.json`` per run of one agent on one benchmark. The fields read:

- ``config.benchmark_name`` (the task), ``config.agent_name`` (named in the caveats), ``config.date``;
- ``results.successful_tasks`` and ``results.failed_tasks`` (the task ids: **the verdict**, the benchmark's own
  evaluation); ``results.accuracy`` and ``results.total_cost`` (HAL's own price of the run) are printed beside the
  import's numbers, never used;
- ``raw_logging_results``, each task's LLM calls and their usage: in the list form (one Weave call per item, its task in
  ``weave_task_id`` or ``attributes.weave_task_id``), ``summary.usage`` (``{model: usage}``) of each call that is no
  other call's parent (Weave rolls a call's usage up into its parents: only the leaves are counted, nothing twice),
  else the call's ``output.usage`` with ``output.model``; in the newer form (``{task_id: {"call_metadata": [{"usage":
  ...}], "model": ...}}``) each call's usage. A usage is OpenAI's (``prompt_tokens`` with
  ``prompt_tokens_details.cached_tokens``, ``completion_tokens`` with ``completion_tokens_details.reasoning_tokens``),
  Anthropic's (``input_tokens`` uncached, ``cache_read_input_tokens``, ``cache_creation_input_tokens``,
  ``output_tokens``) or Bedrock's (``inputTokens`` uncached, ``cacheReadInputTokens``, ``cacheWriteInputTokens``,
  ``outputTokens``), as HAL's ``_normalize_usage`` reads them. **Each task's cost is computed here** from its calls'
  tokens and the set's prices (HAL records no per-task cost);
- ``task_prompts`` (the question shown) and ``results.latencies[task].total_time`` (or ``wall_clock_times``).

``raw_eval_results`` is not read (its shape is each benchmark's own). **Runs**: each upload file is one run (run 1 the
first by file name); the files must be of one benchmark and one model. A task with calls but no verdict (not in
``successful_tasks`` nor ``failed_tasks``) could not finish (counted apart); a task with a verdict but no logged usage
is refused, as is a call of another model (mixed models), a task in both lists, or a file without usage.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from helpers.core.runlogs.common import (
    BUCKETS,
    Attempt,
    RunFile,
    count,
    created_of,
    field,
    file_error,
    files_at,
    obj,
    one_model,
    read_json,
    text_of,
)

PATTERNS = ("*_UPLOAD.json",)


def inputs(path: Path, options: dict[str, Any]) -> list[Path]:
    """The upload files: the file, or a folder's ``*_UPLOAD.json``."""
    return files_at(path, PATTERNS, "HAL upload file")


def tokens(path: Path, where: str, usage: Any) -> dict[str, int]:
    """One usage record in the buckets, by its style (OpenAI, Anthropic, Bedrock); one line when it has none."""
    if not isinstance(usage, dict):
        raise file_error(path, where, f"usage {str(usage)[:60]!r} is not an object")
    if "prompt_tokens" in usage or "completion_tokens" in usage:
        prompt = count(path, where, "prompt_tokens", usage.get("prompt_tokens"))
        cached = count(path, where, "cached_tokens", (usage.get("prompt_tokens_details") or {}).get("cached_tokens"), 0)
        if cached > prompt:
            raise file_error(path, where, f"cached_tokens ({cached}) exceed prompt_tokens ({prompt})")
        fresh, read, written = prompt - cached, cached, 0
        out = count(path, where, "completion_tokens", usage.get("completion_tokens"))
    elif "input_tokens" in usage or "output_tokens" in usage:
        fresh = count(path, where, "input_tokens", usage.get("input_tokens"))
        read = count(path, where, "cache_read_input_tokens", usage.get("cache_read_input_tokens"), 0)
        written = count(path, where, "cache_creation_input_tokens", usage.get("cache_creation_input_tokens"), 0)
        out = count(path, where, "output_tokens", usage.get("output_tokens"))
    elif "inputTokens" in usage or "outputTokens" in usage:
        fresh = count(path, where, "inputTokens", usage.get("inputTokens"))
        read = count(path, where, "cacheReadInputTokens", usage.get("cacheReadInputTokens"), 0)
        written = count(path, where, "cacheWriteInputTokens", usage.get("cacheWriteInputTokens"), 0)
        out = count(path, where, "outputTokens", usage.get("outputTokens"))
    else:
        raise file_error(path, where, f"usage without token counts (keys: {', '.join(sorted(usage))[:120]})")
    reasoning = count(path, where, "reasoning_tokens",
                      (usage.get("completion_tokens_details") or {}).get("reasoning_tokens"), 0)
    return {"prompt_tokens": fresh, "cache_read_tokens": read, "cache_write_tokens": written,
            "completion_tokens": out, "reasoning_tokens": reasoning}


def list_calls(path: Path, calls: list[Any]) -> Iterator[tuple[str, str, Any, str]]:
    """(task, model, usage, where) of each counted call of the list form: a leaf's ``summary.usage`` per model, else
    its ``output.usage``."""
    parents = {c.get("parent_id") for c in calls if isinstance(c, dict)} - {None}
    for i, call in enumerate(calls):
        if not isinstance(call, dict):
            raise file_error(path, f"raw_logging_results[{i}]", "not a call object")
        task = call.get("weave_task_id") or (call.get("attributes") or {}).get("weave_task_id")
        if task is None or (call.get("id") is not None and call.get("id") in parents):
            continue  # a call of no task (HAL's own), or a parent whose usage is its children's
        summary = (call.get("summary") or {}).get("usage")
        output = obj(call.get("output"))
        if isinstance(summary, dict) and summary:
            for model, usage in summary.items():
                yield str(task), str(model), usage, f"raw_logging_results[{i}] (task {task})"
        elif output.get("usage"):
            model = output.get("model") or (call.get("inputs") or {}).get("model")
            yield str(task), str(model), output["usage"], f"raw_logging_results[{i}] (task {task})"


def dict_calls(path: Path, tasks: dict[str, Any]) -> Iterator[tuple[str, str, Any, str]]:
    """(task, model, usage, where) of each call of the newer form ``{task: {call_metadata: [...], model}}``."""
    for task, entry in tasks.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("call_metadata"), list):
            raise file_error(path, f"raw_logging_results[{str(task)[:80]!r}]", "expected {call_metadata: [...], model}")
        for i, call in enumerate(entry["call_metadata"]):
            usage = call.get("usage") if isinstance(call, dict) else None
            yield str(task), str(entry.get("model")), usage, f"raw_logging_results[{task!r}].call_metadata[{i}]"


def usage_by_task(path: Path, data: dict[str, Any]) -> tuple[dict[str, dict[str, int]], dict[str, int], set[str]]:
    """Each task's tokens summed over its calls, its calls, and the models that made them."""
    raw = data.get("raw_logging_results")
    found = list_calls(path, raw) if isinstance(raw, list) else dict_calls(path, raw) if isinstance(raw, dict) else []
    totals: dict[str, dict[str, int]] = {}
    n: dict[str, int] = {}
    models: set[str] = set()
    for task, model, usage, where in found:
        models.add(model)
        for bucket, value in tokens(path, where, usage).items():
            totals.setdefault(task, dict.fromkeys(BUCKETS, 0))[bucket] += value
        n[task] = n.get(task, 0) + 1
    if not totals:
        raise file_error(path, "raw_logging_results", "no call with usage (missing usage: token counts are needed)")
    return totals, n, models


def verdicts(path: Path, results: Any) -> dict[str, bool]:
    """``successful_tasks`` (True) and ``failed_tasks`` (False) by task; one line when a task is in both."""
    ok = field(path, "results", {"results": results}, "results", "successful_tasks")
    bad = field(path, "results", {"results": results}, "results", "failed_tasks")
    if not isinstance(ok, list) or not isinstance(bad, list):
        raise file_error(path, "results", "successful_tasks and failed_tasks are not lists of task ids")
    if both := sorted({str(t) for t in ok} & {str(t) for t in bad}):
        raise file_error(path, f"task {both[0][:80]}", "in both successful_tasks and failed_tasks")
    return {**{str(t): True for t in ok}, **{str(t): False for t in bad}}


def seconds(data: dict[str, Any], task: str) -> float | None:
    latency = obj(data["results"].get("latencies") or data.get("latencies")).get(task)
    value = latency.get("total_time") if isinstance(latency, dict) else (data.get("wall_clock_times") or {}).get(task)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0 else None


def upload(path: Path, run: int) -> tuple[str, set[str], RunFile]:
    """One upload file: its benchmark, the models of its calls, and its run (the model filled in by ``read``)."""
    data = read_json(path, "HAL upload file")
    if not isinstance(data, dict) or not isinstance(data.get("config"), dict) or \
            not isinstance(data.get("results"), dict):
        raise file_error(path, "-", "not a HAL upload file (no config and results objects)")
    benchmark = field(path, "config", data, "config", "benchmark_name")
    verdict = verdicts(path, data["results"])
    totals, n, models = usage_by_task(path, data)
    if missing := sorted(set(verdict) - set(totals)):
        raise file_error(path, f"task {missing[0][:80]}", "a verdict but no logged call with usage (missing usage)")
    prompts = obj(data.get("task_prompts"))
    attempts = tuple(Attempt(
        task, run, text_of(prompts.get(task, "")), "", "", verdict.get(task),
        None if task in verdict else "could not finish: no verdict in results (the task was not evaluated)",
        totals[task], calls=n[task], latency_s=seconds(data, task)) for task in sorted(totals))
    results = data["results"]
    note = (f"run {run + 1} ({path.name}, agent {data['config'].get('agent_name')!r}): HAL's accuracy "
            f"{results.get('accuracy')!r} and total_cost {results.get('total_cost')!r} USD (HAL's own prices), "
            f"{len(verdict)} tasks with a verdict")
    created = created_of(path, data["config"].get("date"))
    return str(benchmark), models, RunFile(path, str(benchmark), "", created, attempts, notes=(note,))


def read(path: Path, options: dict[str, Any]) -> list[RunFile]:
    """One run per upload file at ``path``, of one benchmark and one model; one line on anything wrong."""
    runs: list[RunFile] = []
    benchmarks: set[str] = set()
    models: dict[str, Path] = {}
    for k, file in enumerate(inputs(path, options)):
        benchmark, used, run = upload(file, k)
        one_model(file, "raw_logging_results", used)
        benchmarks.add(benchmark)
        models.update({name: file for name in sorted(used) if name not in models})
        runs.append(run)
    if len(benchmarks) > 1:
        raise file_error(path, "-", f"runs of several benchmarks ({', '.join(sorted(benchmarks))}): import one at a "
                         "time")
    model = one_model(path, "-", models)
    return [RunFile(r.path, r.task, model, r.created, r.samples, r.notes) for r in runs]
