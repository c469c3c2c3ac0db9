"""ARC Prize attempt files, as arcprize/arc-agi-benchmarking writes them (``main.py``'s ``ARCTester`` and
``schemas.py``, read at commit 0b4dc4f): one ``<task_id>.json`` per task, a list with one entry per test input (its
``pair_index``), each ``{"attempt_1": {...}, "attempt_2": {...}}`` (``null`` where every retry of that attempt failed).
The fields read per attempt: ``answer`` (a grid), ``correct`` (where present), ``metadata.model`` and ``provider``,
``metadata.usage`` (``prompt_tokens``, ``completion_tokens``, ``total_tokens``, ``completion_tokens_details.
reasoning_tokens``), ``metadata.cost.total_cost`` (USD: the harness's own price of the tokens, compared with the cost
computed here and never used), ``metadata.start_timestamp``/``end_timestamp``, ``metadata.task_id`` and ``pair_index``
(checked against the file and the position).

**Runs**: each attempt key is one run: ``attempt_1`` of every test input of a task is run 1, ``attempt_2`` run 2. The
harness makes the two with the same prompt, independently (``num_attempts`` calls, each its own), so each is one
attempt in the paper's sense: cost-of-pass is the expected cost of one attempt over its success probability (the
paper's Eq. 3), and ARC's pass@2 (a test input counts when either attempt is right) is a two-try policy that pays both
tries, not one attempt; the caveats print ARC's own score beside the import's numbers.

**Verdict**: a run passes a task when its attempt is right on every test input: the answer equals the solution of
``--solutions`` (``{task_id: [grid, ...]}``, one grid per test input, as ARC-AGI's ``*_solutions.json``), else the
attempt's own ``correct`` (refused where neither is there). ARC's scorer gives a task with several test inputs partial
credit (the share of inputs right); a pass here is all of them. **Tokens** as the harness bills them: the prompt at the
input rate, the completion with reasoning at the output rate (where ``prompt_tokens + completion_tokens`` is below
``total_tokens``, the reasoning is outside ``completion_tokens`` and added to it, as the harness's cost does).
A ``null`` attempt is a run that could not finish that task (counted apart).
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from helpers.core.errors import CostOfPassError
from helpers.core.runlogs.common import Attempt as Try
from helpers.core.runlogs.common import (
    RunFile,
    count,
    field,
    file_error,
    files_at,
    one_model,
    read_json,
    usd,
)

TASK = "ARC-AGI"


def task_files(path: Path, options: dict[str, Any]) -> list[Path]:
    """The attempt files: the file, or a folder's ``*.json`` but its ``results.json`` (the scorer's) and the
    solutions file."""
    solutions = Path(options["solutions"]).resolve() if options.get("solutions") else None
    files = [f for f in files_at(path, ("*.json",), "ARC attempt file")
             if f.name != "results.json" and f.resolve() != solutions]
    if not files:
        raise CostOfPassError(f"{path}: no ARC attempt file (<task_id>.json) there")
    return files


def inputs(path: Path, options: dict[str, Any]) -> list[Path]:
    """Every file the import reads: the attempt files and the solutions."""
    return task_files(path, options) + ([Path(options["solutions"])] if options.get("solutions") else [])


def solutions_of(options: dict[str, Any]) -> dict[str, list[Any]] | None:
    """The solutions file's grids per task (None without one); one line when it is not ``{task_id: [grid, ...]}``."""
    if not options.get("solutions"):
        return None
    path = Path(options["solutions"])
    data = read_json(path, "ARC solutions file")
    if not isinstance(data, dict) or not all(isinstance(v, list) for v in data.values()):
        raise file_error(path, "-", "not ARC solutions ({task_id: [grid, ...]})")
    return data


def grid(answer: Any) -> Any:
    """An answer as a grid: a JSON string parsed (the schema allows one), anything else as it is."""
    if isinstance(answer, str):
        try:
            return json.loads(answer)
        except ValueError:
            return answer
    return answer


def tokens(path: Path, where: str, usage: Any) -> dict[str, int]:
    """An attempt's usage in the buckets, as the harness bills it (reasoning outside ``completion_tokens`` added)."""
    prompt = count(path, where, "usage.prompt_tokens", field(path, where, {"u": usage}, "u", "prompt_tokens"))
    completion = count(path, where, "usage.completion_tokens", usage.get("completion_tokens"))
    total = count(path, where, "usage.total_tokens", usage.get("total_tokens"), 0)
    reasoning = count(path, where, "reasoning_tokens",
                      (usage.get("completion_tokens_details") or {}).get("reasoning_tokens"), 0)
    if total and prompt + completion > total:
        raise file_error(path, where, f"prompt ({prompt}) and completion ({completion}) tokens exceed total_tokens "
                         f"({total})")
    if total and prompt + completion < total:  # reasoning billed apart from the completion (the harness's case B)
        reasoning = reasoning or total - prompt - completion
        completion += reasoning
    return {"prompt_tokens": prompt, "cache_read_tokens": 0, "cache_write_tokens": 0,
            "completion_tokens": completion, "reasoning_tokens": reasoning}


def seconds(meta: dict[str, Any]) -> float:
    try:
        start = dt.datetime.fromisoformat(str(meta.get("start_timestamp")))
        end = dt.datetime.fromisoformat(str(meta.get("end_timestamp")))
    except ValueError:
        return 0.0
    return max((end - start).total_seconds(), 0.0)


def attempt(path: Path, where: str, task: str, pair: int, data: Any, solution: Any) -> dict[str, Any]:
    """One attempt at one test input, checked: its model, verdict, tokens, USD (the harness's), seconds, answer."""
    if not isinstance(data, dict):
        raise file_error(path, where, "not an attempt object")
    meta = field(path, where, data, "metadata")
    if meta.get("task_id") not in (None, task):
        raise file_error(path, where, f"metadata.task_id {meta.get('task_id')!r} is not the file's task {task!r}")
    if meta.get("pair_index") not in (None, pair):
        raise file_error(path, where, f"metadata.pair_index {meta.get('pair_index')!r} is not its position {pair}")
    answer = grid(data.get("answer"))
    if solution is not None:
        right = answer == solution
    elif isinstance(data.get("correct"), bool):
        right = data["correct"]
    else:
        raise file_error(path, where, "no verdict: give --solutions (the task's grids), or attempts with 'correct'")
    model = field(path, where, meta, "model")
    if not isinstance(model, str) or not model:
        raise file_error(path, where, f"metadata.model {model!r} is not a model name")
    cost = usd(path, where, "cost.total_cost", field(path, where, meta, "cost", "total_cost"))
    return {"model": model, "provider": str(meta.get("provider") or ""), "right": right,
            "tokens": tokens(path, where, field(path, where, meta, "usage")), "usd": cost, "seconds": seconds(meta),
            "answer": answer, "start": str(meta.get("start_timestamp") or "")}


def pairs_of(path: Path, data: Any, solutions: list[Any] | None) -> tuple[list[dict[str, Any]], int]:
    """A task file's test inputs (each ``{attempt_k: ...}``) and the number of attempts (runs), checked."""
    if not isinstance(data, list) or not data:
        raise file_error(path, "-", "not an ARC attempt file (a list with one entry per test input)")
    if solutions is not None and len(solutions) != len(data):
        raise file_error(path, "-", f"{len(data)} test inputs, but the solutions give {len(solutions)}")
    pairs = [{f"attempt_{i + 1}": a for i, a in enumerate(p)} if isinstance(p, list) else p for p in data]
    for i, p in enumerate(pairs):
        if not isinstance(p, dict) or not p or any(not k.startswith("attempt_") for k in p):
            raise file_error(path, f"test input {i}", "expected {attempt_1: ..., attempt_2: ...}")
    keys = {frozenset(p) for p in pairs}
    if len(keys) > 1:
        raise file_error(path, "-", "test inputs with different attempts (every input has the same attempt_k)")
    n = len(pairs[0])
    if set(pairs[0]) != {f"attempt_{k + 1}" for k in range(n)}:
        raise file_error(path, "-", f"attempts {sorted(pairs[0])} are not attempt_1 .. attempt_{n}")
    return pairs, n


def task_attempts(path: Path, solutions: dict[str, list[Any]] | None) -> tuple[list[Try], set[str], list[str], float]:
    """One task file's attempts (one per run), the models named, the start times, and ARC's own score of the task
    (the share of its test inputs that some attempt gets right)."""
    task = path.stem
    if solutions is not None and task not in solutions:
        raise file_error(path, "-", f"task {task} is not in the solutions file")
    grids = solutions[task] if solutions is not None else None
    pairs, n = pairs_of(path, read_json(path, "ARC attempt file"), grids)
    out, models, starts, right = [], set(), [], [False] * len(pairs)
    for k in range(n):
        tried = [None if p[f"attempt_{k + 1}"] is None else
                 attempt(path, f"test input {i} attempt_{k + 1}", task, i, p[f"attempt_{k + 1}"],
                         grids[i] if grids is not None else None) for i, p in enumerate(pairs)]
        done = [t for t in tried if t is not None]
        right = [r or (t is not None and t["right"]) for r, t in zip(right, tried)]
        models |= {t["model"] for t in done}
        starts += [t["start"] for t in done if t["start"]]
        failure = None if len(done) == len(tried) else "could not finish: an attempt is null (every retry failed)"
        total = {b: sum(t["tokens"][b] for t in done) for b in done[0]["tokens"]} if done else None
        out.append(Try(task, k, f"ARC task {task}: {len(pairs)} test input(s)",
                       json.dumps(grids) if grids is not None else "",
                       json.dumps([t["answer"] if t else None for t in tried]),
                       None if failure else all(t["right"] for t in done), failure, total,
                       source_usd=sum(t["usd"] for t in done), calls=len(done),
                       latency_s=sum(t["seconds"] for t in done)))
    return out, models, starts, sum(right) / len(right)


def read(path: Path, options: dict[str, Any]) -> list[RunFile]:
    """The attempts of every task file at ``path``, one model in all; one line on anything wrong."""
    solutions = solutions_of(options)
    attempts: list[Try] = []
    models: dict[str, Path] = {}
    starts: list[str] = []
    score = 0.0
    files = task_files(path, options)
    for file in files:
        a, m, s, credit = task_attempts(file, solutions)
        attempts += a
        models.update({name: file for name in sorted(m) if name not in models})
        starts += s
        score += credit
    model = one_model(path, "-", models)
    runs = 1 + max(a.run for a in attempts)
    note = (f"ARC's own score (pass@{runs}: a test input is right when any of its {runs} attempts is, a task scores "
            f"the share of its inputs right) is {score:g} of {len(files)} tasks ({100 * score / len(files):.1f}%); "
            "here each attempt is one run, a run passes a task only when right on every input, and the success rate "
            "is one attempt's")
    created = min(starts) if starts else dt.date.today().isoformat()
    return [RunFile(path, TASK, model, created, tuple(attempts), notes=(note,))]
