"""OpenAI evals record logs, as ``evals`` 3.0.1.post1 writes them (``evals/record.py``'s ``LocalRecorder`` and
``RecorderBase``; ``evals/completion_fns/openai.py`` and the solvers' ``record_sampling``): a JSONL file whose first
line is ``{"spec": {"completion_fns": [...], "eval_name", "run_id", "created_at", ...}}``, then one event per line
(``{"run_id", "event_id", "sample_id", "type", "data", "created_by", "created_at"}``), and last
``{"final_report": {...}}``. The events read:

- ``sampling``: ``data.prompt`` (the question shown), ``data.sampled``, ``data.model`` (the model that answered) and
  ``data.usage`` (``prompt_tokens`` with ``prompt_tokens_details.cached_tokens``, ``completion_tokens`` with
  ``completion_tokens_details.reasoning_tokens``; evals records it since its completion functions pass
  ``usage=result.raw_data.usage``): **the cost is computed here** from these tokens and the set's prices;
- ``match``: ``data.correct`` (**the verdict**), ``data.expected`` (the target), ``data.picked`` (the answer);
- ``error``: a sample that ended in an error before any match could not finish (counted apart).

Other events (``metrics``, ``embedding``, ``extra``, ...) are not read. **Attempts and runs**: a sample's events in
``event_id`` order; each ``match`` closes one attempt, whose cost is the sampling events since the sample's previous
match. A sample's attempts are its runs (run 1 the first), across the files of a folder in file order, so several
samples with one ``sample_id`` (several matches in one log, or several logs of one eval) are several runs. Refused in
one line naming the file and the line or sample: no ``spec`` line first, no ``final_report`` line last (a truncated
log), an event of another ``run_id``, several completion functions, a sampling without usage, sampling events after
a sample's last match or a sample with neither a match nor an error (an eval that records no ``match`` verdict, a
model-graded eval, cannot be imported), mixed models, logs of several evals.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers.core.runlogs.common import (
    BUCKETS,
    Attempt,
    RunFile,
    count,
    created_of,
    file_error,
    files_at,
    json_lines,
    obj,
    one_model,
    text_of,
)

PATTERNS = ("*.jsonl",)


def inputs(path: Path, options: dict[str, Any]) -> list[Path]:
    """The record logs: the file, or a folder's ``*.jsonl``."""
    return files_at(path, PATTERNS, "OpenAI evals record log")


def usage_tokens(path: Path, where: str, usage: Any) -> dict[str, int]:
    """A sampling event's usage in the buckets; one line when it has none."""
    if not isinstance(usage, dict):
        raise file_error(path, where, "sampling without usage (missing usage: evals records it with its completion "
                         "functions' usage; token counts are needed)")
    prompt = count(path, where, "usage.prompt_tokens", usage.get("prompt_tokens"))
    cached = count(path, where, "cached_tokens", (usage.get("prompt_tokens_details") or {}).get("cached_tokens"), 0)
    if cached > prompt:
        raise file_error(path, where, f"cached_tokens ({cached}) exceed prompt_tokens ({prompt})")
    return {"prompt_tokens": prompt - cached, "cache_read_tokens": cached, "cache_write_tokens": 0,
            "completion_tokens": count(path, where, "usage.completion_tokens", usage.get("completion_tokens")),
            "reasoning_tokens": count(path, where, "reasoning_tokens",
                                      (usage.get("completion_tokens_details") or {}).get("reasoning_tokens"), 0)}


def log_lines(path: Path) -> tuple[dict[str, Any], list[tuple[int, dict[str, Any]]], dict[str, Any]]:
    """The spec, the events (line, event) and the final report of one log, checked as a whole."""
    lines = list(json_lines(path, "evals record"))
    if not lines or not isinstance(lines[0][1], dict) or not isinstance(lines[0][1].get("spec"), dict):
        raise file_error(path, "line 1", "not an OpenAI evals record log (no {\"spec\": ...} line first)")
    if len(lines) < 2 or not isinstance(lines[-1][1], dict) or "final_report" not in lines[-1][1]:
        raise file_error(path, f"line {lines[-1][0]}", "no final_report line last (a truncated log: the run did "
                         "not finish)")
    spec = lines[0][1]["spec"]
    fns = spec.get("completion_fns")
    if not isinstance(fns, list) or len(fns) != 1:
        raise file_error(path, "line 1", f"completion_fns {fns!r}: one completion function per log is imported")
    events = []
    for number, event in lines[1:-1]:
        if not isinstance(event, dict) or not isinstance(event.get("type"), str) or event.get("sample_id") is None:
            raise file_error(path, f"line {number}", "not an evals event (type, sample_id, data)")
        if event.get("run_id") != spec.get("run_id"):
            raise file_error(path, f"line {number}", f"run_id {event.get('run_id')!r} is not the spec's "
                             f"{spec.get('run_id')!r} (logs of several runs in one file)")
        events.append((number, event))
    return spec, events, lines[-1][1]["final_report"]


def sample_attempts(path: Path, sid: str, events: list[tuple[int, dict[str, Any]]], models: set[str]) -> list[dict]:
    """One sample's attempts (each closed by a match event), in event order; its models added to ``models``."""
    out, tokens, prompt, sampled, error = [], dict.fromkeys(BUCKETS, 0), None, "", None
    for number, event in sorted(events, key=lambda e: (e[1].get("event_id", 0), e[0])):
        data = obj(event.get("data"))
        where = f"line {number} (sample {sid[:80]})"
        if event["type"] == "sampling":
            for bucket, n in usage_tokens(path, where, data.get("usage")).items():
                tokens[bucket] += n
            if data.get("model"):
                models.add(str(data["model"]))
            prompt = text_of(data.get("prompt")) if prompt is None else prompt
            sampled = text_of(data.get("sampled"))
        elif event["type"] == "match":
            if not isinstance(data.get("correct"), bool):
                raise file_error(path, where, f"match without a boolean 'correct' ({data.get('correct')!r})")
            out.append({"verdict": data["correct"], "tokens": tokens, "question": prompt or "",
                        "target": text_of(data.get("expected")), "response": text_of(data.get("picked")) or sampled})
            tokens, prompt, sampled = dict.fromkeys(BUCKETS, 0), None, ""
        elif event["type"] == "error":
            error = text_of(data.get("message"))[:200] or "error"
    if prompt is not None and error is None:
        raise file_error(path, f"sample {sid[:80]}", "sampling events after its last match event, or no match at all "
                         "(only evals that record match verdicts can be imported)")
    if prompt is not None or (not out and error is not None):
        out.append({"verdict": None, "tokens": tokens, "question": prompt or "", "target": "", "response": sampled,
                    "failure": f"could not finish: error: {error}"})
    return out


def read_log(path: Path, done: dict[str, int]) -> tuple[str, set[str], RunFile]:
    """One log: its eval, its models, and its attempts (numbered after ``done``, each sample's attempts so far)."""
    spec, events, report = log_lines(path)
    by_sample: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for number, event in events:
        by_sample.setdefault(str(event["sample_id"]), []).append((number, event))
    models: set[str] = set()
    attempts = []
    for sid, sample_events in by_sample.items():
        for a in sample_attempts(path, sid, sample_events, models):
            attempts.append(Attempt(sid, done.get(sid, 0), a["question"], a["target"], a["response"], a["verdict"],
                                    a.get("failure"), a["tokens"], calls=None))
            done[sid] = done.get(sid, 0) + 1
    models = models or {str(spec["completion_fns"][0])}
    one_model(path, "-", models)
    accuracy = report.get("accuracy") if isinstance(report, dict) else None
    note = f"{path.name}: the eval's final_report accuracy {accuracy!r}" if accuracy is not None else ""
    run = RunFile(path, str(spec.get("eval_name") or spec.get("base_eval") or "eval"), "",
                  created_of(path, spec.get("created_at")), tuple(attempts), notes=(note,) if note else ())
    return run.task, models, run


def read(path: Path, options: dict[str, Any]) -> list[RunFile]:
    """The attempts of every log at ``path``, of one eval and one model; one line on anything wrong."""
    runs: list[RunFile] = []
    evals: set[str] = set()
    models: dict[str, Path] = {}
    done: dict[str, int] = {}  # sample -> its attempts so far
    for file in inputs(path, options):
        name, used, run = read_log(file, done)
        evals.add(name)
        models.update({name: file for name in sorted(used) if name not in models})
        runs.append(run)
    if len(evals) > 1:
        raise file_error(path, "-", f"logs of several evals ({', '.join(sorted(evals))}): import one at a time")
    model = one_model(path, "-", models)
    return [RunFile(r.path, r.task, model, r.created, r.samples, r.notes) for r in runs]
