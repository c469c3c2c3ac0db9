"""mini-SWE-agent and SWE-agent trajectories, with the SWE-bench harness's report as the verdict.

Read as mini-swe-agent 2.4.6 writes them (``DefaultAgent.serialize``; ``run/benchmarks/swebench.py`` saves
``<instance_id>/<instance_id>.traj.json``) and as SWE-agent 1.x does (``sweagent/agent/agents.py``:
``<instance_id>.traj`` with ``info.model_stats`` an ``InstanceStats``). One trajectory is one attempt at one instance;
the fields read:

- ``info.model_stats.instance_cost`` (USD, the run's own litellm cost of every call: **the cost used**, billed USD as
  the SWE-bench bash-only board publishes it) and ``info.model_stats.api_calls``;
- ``info.exit_status`` (kept for the caveats; an attempt that hit a limit still cost what it cost and is judged by the
  report like any other) and ``info.submission`` (the patch, shown as the answer);
- the model: ``info.config.model.model_name`` (mini-SWE-agent; ``info.config.model`` where it is a string) or
  ``replay_config``'s ``agent.model.name`` (SWE-agent); one model per import;
- the instance: the top-level ``instance_id``, else the file's name less ``.traj.json`` / ``.traj``;
- tokens, beside the bill (for the computed-against-billed line only): mini-SWE-agent's ``messages[].extra.response.
  usage`` (``prompt_tokens`` with ``prompt_tokens_details.cached_tokens`` and ``cache_creation_input_tokens``,
  ``completion_tokens`` with ``completion_tokens_details.reasoning_tokens``), counted only where every API call left
  one; SWE-agent's ``model_stats.tokens_sent`` and ``tokens_received``.

**Verdicts** (``--results``, ``import_from.results``): a trajectory carries none. A results file is either the
harness's run report (``run_evaluation``'s ``<model>.<run_id>.json``: an instance is resolved when it is in
``resolved_ids``, unresolved otherwise; where the report lists ``submitted_ids``, an instance outside them has no
verdict and is refused) or a per-instance report (``{instance_id: {"resolved": true|false, ...}}``, the harness's
``report.json``, or several merged: an instance not in it is refused). **Runs**: one results file without a name is one
run of every trajectory under the path; ``RUN=FILE`` items name the path's subfolders, each one run with its own
report, in the order given (run 1 the first); an instance twice in one run is refused.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers.core.errors import CostOfPassError
from helpers.core.runlogs.common import (
    Attempt,
    RunFile,
    calls,
    count,
    created_of,
    field,
    file_error,
    files_at,
    one_model,
    read_json,
    text_of,
    usd,
)

PATTERNS = ("*.traj.json", "*.traj")
TASK = "SWE-bench"


def results_of(options: dict[str, Any]) -> list[tuple[str | None, Path]]:
    """The results items: (run folder or None, report file); one line when they are missing or mixed."""
    items = options.get("results") or []
    if not items:
        raise CostOfPassError("trajectories carry no verdict: give --results, the SWE-bench harness's report (one "
                              "file, or RUN=FILE per run folder)")
    out = [(None, Path(i)) if "=" not in i else (i.split("=", 1)[0], Path(i.split("=", 1)[1])) for i in items]
    if len(out) > 1 and any(run is None for run, _ in out):
        raise CostOfPassError("several --results: name each run's folder (RUN=FILE)")
    return out


def inputs(path: Path, options: dict[str, Any]) -> list[Path]:
    """Every file the import reads: the trajectories and the reports."""
    return files_at(path, PATTERNS, "trajectory", recursive=True) + [p for _, p in results_of(options)]


def verdicts(path: Path) -> tuple[dict[str, bool], bool]:
    """A report's verdicts by instance, and whether an instance it does not name is unresolved (a run report without
    ``submitted_ids``) rather than without a verdict."""
    data = read_json(path, "SWE-bench report")
    if isinstance(data, dict) and isinstance(data.get("resolved_ids"), list):
        known = {str(i): True for i in data["resolved_ids"]}
        submitted = data.get("submitted_ids")
        if isinstance(submitted, list):
            known.update({str(i): False for i in submitted if str(i) not in known})
        return known, not isinstance(submitted, list)
    if isinstance(data, dict) and data and all(isinstance(v, dict) for v in data.values()):
        for iid, v in data.items():
            if not isinstance(v.get("resolved"), bool):
                raise file_error(path, f"instance {str(iid)[:80]}", "no boolean 'resolved'")
        return {str(i): v["resolved"] for i, v in data.items()}, False
    raise file_error(path, "-", "not a SWE-bench report (neither resolved_ids nor {instance_id: {resolved: ...}})")


def model_of(path: Path, data: dict[str, Any]) -> str:
    """The trajectory's model: mini-SWE-agent's ``info.config.model`` or SWE-agent's ``replay_config``."""
    model = (data.get("info") or {}).get("config", {}).get("model") if isinstance(data.get("info"), dict) else None
    if isinstance(model, dict):
        model = model.get("model_name")
    if model is None and data.get("replay_config"):
        replay = data["replay_config"]
        try:
            replay = json.loads(replay) if isinstance(replay, str) else replay
            model = replay["agent"]["model"]["name"]
        except (ValueError, KeyError, TypeError):
            model = None
    if not isinstance(model, str) or not model:
        raise file_error(path, "-", "no model name (info.config.model.model_name or replay_config's agent.model.name)")
    return model


def usage_tokens(path: Path, where: str, usage: Any) -> dict[str, int]:
    """One call's usage (litellm's, OpenAI-style) in the buckets: uncached prompt, cache reads and writes, completion
    with reasoning, reasoning."""
    if not isinstance(usage, dict):
        raise file_error(path, where, f"usage {str(usage)[:60]!r} is not an object")
    prompt = count(path, where, "usage.prompt_tokens", usage.get("prompt_tokens"))
    cached = count(path, where, "cached_tokens", (usage.get("prompt_tokens_details") or {}).get("cached_tokens"), 0)
    written = count(path, where, "cache_creation_input_tokens", usage.get("cache_creation_input_tokens"), 0)
    if cached + written > prompt:
        raise file_error(path, where, f"cache reads and writes ({cached + written}) exceed the prompt ({prompt})")
    completion = count(path, where, "usage.completion_tokens", usage.get("completion_tokens"))
    reasoning = count(path, where, "reasoning_tokens",
                      (usage.get("completion_tokens_details") or {}).get("reasoning_tokens"), 0)
    return {"prompt_tokens": prompt - cached - written, "cache_read_tokens": cached, "cache_write_tokens": written,
            "completion_tokens": completion, "reasoning_tokens": reasoning}


def tokens_of(path: Path, data: dict[str, Any], stats: dict[str, Any], n_calls: int) -> dict[str, int] | None:
    """The trajectory's tokens: SWE-agent's ``tokens_sent``/``tokens_received``, or the sum of mini-SWE-agent's
    per-call usage where every API call left one (None otherwise: the bill is used either way)."""
    if "tokens_sent" in stats or "tokens_received" in stats:
        sent = count(path, "info.model_stats", "tokens_sent", stats.get("tokens_sent"))
        received = count(path, "info.model_stats", "tokens_received", stats.get("tokens_received"))
        return {"prompt_tokens": sent, "cache_read_tokens": 0, "cache_write_tokens": 0,
                "completion_tokens": received, "reasoning_tokens": 0}
    usages = [(i, m["extra"]["response"]["usage"]) for i, m in enumerate(data.get("messages") or [])
              if isinstance(m, dict) and isinstance(m.get("extra"), dict)
              and isinstance(m["extra"].get("response"), dict) and "usage" in m["extra"]["response"]]
    if not usages or len(usages) < n_calls:
        return None
    total = dict.fromkeys(("prompt_tokens", "cache_read_tokens", "cache_write_tokens", "completion_tokens",
                           "reasoning_tokens"), 0)
    for i, usage in usages:
        for bucket, n in usage_tokens(path, f"message {i}", usage).items():
            total[bucket] += n
    return total


def first_user(data: dict[str, Any]) -> str:
    """The first user message (the instance's task as the agent saw it)."""
    for m in data.get("messages") or data.get("history") or []:
        if isinstance(m, dict) and m.get("role") == "user":
            return text_of(m.get("content"))
    return ""


def instance_of(path: Path, data: dict[str, Any]) -> str:
    iid = data.get("instance_id")
    if isinstance(iid, str) and iid:
        return iid
    return path.name.removesuffix(".traj.json").removesuffix(".traj")


def trajectory(path: Path, run: int, known: dict[str, bool], others: bool) -> tuple[str, Attempt]:
    """(model, attempt) of one trajectory file, checked."""
    data = read_json(path, "trajectory")
    if not isinstance(data, dict) or not isinstance(data.get("info"), dict):
        raise file_error(path, "-", "not a mini-SWE-agent or SWE-agent trajectory (no info object)")
    stats = field(path, "-", data, "info", "model_stats")
    bill = usd(path, "info.model_stats", "instance_cost", stats.get("instance_cost") if isinstance(stats, dict)
               else None)
    n_calls = calls(path, "info.model_stats", "api_calls", stats.get("api_calls"))
    iid = instance_of(path, data)
    if iid not in known and not others:
        raise file_error(path, f"instance {iid[:80]}", "no verdict in the SWE-bench report given for its run")
    info = data["info"]
    status = str(info.get("exit_status") or "")
    return model_of(path, data), Attempt(
        iid, run, first_user(data), "", text_of(info.get("submission")), known.get(iid, False), None,
        tokens_of(path, data, stats, n_calls), billed_usd=bill, calls=n_calls, status=status)


def run_folders(path: Path, options: dict[str, Any]) -> list[tuple[Path, Path]]:
    """(folder, report) per run: the path itself with the one report, or each named subfolder with its own."""
    results = results_of(options)
    if results[0][0] is None:
        return [(path, results[0][1])]
    folders = [(path / str(run), report) for run, report in results]
    if missing := [str(f) for f, _ in folders if not f.is_dir()]:
        raise CostOfPassError(f"{path}: no run folder {', '.join(missing)} (--results RUN=FILE names a subfolder)")
    inside = {f for folder, _ in folders for f in files_at(folder, PATTERNS, "trajectory", recursive=True)}
    if stray := [f for f in files_at(path, PATTERNS, "trajectory", recursive=True) if f not in inside]:
        raise file_error(stray[0], "-", "a trajectory outside the run folders --results names")
    return folders


def read(path: Path, options: dict[str, Any]) -> list[RunFile]:
    """One run per run folder of the trajectories at ``path``, one model in all; one line on anything wrong."""
    out: list[RunFile] = []
    models: dict[str, Path] = {}
    for run, (folder, report) in enumerate(run_folders(path, options)):
        known, others = verdicts(report)
        attempts: list[Attempt] = []
        seen: dict[str, Path] = {}
        for file in files_at(folder, PATTERNS, "trajectory", recursive=True):
            model, attempt = trajectory(file, run, known, others)
            if attempt.sample_id in seen:
                raise file_error(file, f"instance {attempt.sample_id}", f"a second trajectory in run {run + 1} (the "
                                 f"first is {seen[attempt.sample_id]})")
            seen[attempt.sample_id] = file
            models.setdefault(model, file)
            attempts.append(attempt)
        first = min(seen.values(), key=lambda f: f.stat().st_mtime)
        out.append(RunFile(folder, TASK, "", created_of(first, None), tuple(attempts),
                           notes=(f"run {run + 1}: {folder.name or folder}, verdicts from {report.name}",)))
    model = one_model(path, "-", models)
    return [RunFile(r.path, r.task, model, r.created, r.samples, r.notes) for r in out]
