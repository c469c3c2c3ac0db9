"""The HumanEval runs of "AI Agents That Matter" (Kapoor, Stroebl et al., 2024; benediktstroebl/agent-evals,
``LLMDebugger/output_data/<strategy>/humaneval/<group>/<run>/``, MIT): reading and checking them.

A run folder holds a ``*.jsonl`` (or ``.jsonl.gz``: one row per problem, ``task_id``, ``prompt``, ``entry_point``,
``test`` — the hidden tests —, ``given_tests``, ``solution`` — the final code —, ``is_solved``: the source's
verdict) and a ``*.log`` (or ``.log.gz``) of JSON lines, where ``api_call`` rows (``model_name``,
``prompt_tokens``, ``completion_tokens``, ``inference_time``, ``time``, ``temperature``, ``output_messages``) fall
between ``task_started`` and ``task_finished`` rows naming the task. Numbers may be strings; model names may carry a
deployment prefix (``azure_gpt-4-0613``), mapped to registry names by the set (``import_from.model_names``).

``read_run`` attributes every call to the task started before it and checks the log against the jsonl (the same
tasks in the same order). A task started twice (a restarted run) keeps the calls of both starts: both were billed,
and the run's ``notes`` say so. Anything that makes a run unreadable — no log, a log that does not match its jsonl,
a number that does not parse, a duplicate task id, an unknown model, a malformed line — is one line naming the file
and line in ``AgentRun.problem``; the run is then unusable (reported, never silently dropped).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

if TYPE_CHECKING:
    import pandas as pd

    from helpers.collect.imports.common import Dropped, Imported

from helpers.collect.imports.common import token_count
from helpers.collect.schema import AgentCall
from helpers.core.errors import CostOfPassError
from helpers.core.tasks.humaneval import SourceLineError, json_object, lines, read_jsonl

SOURCE = ('"AI Agents That Matter" (Kapoor, Stroebl et al., 2024): HumanEval runs, benediktstroebl/agent-evals '
          "LLMDebugger/output_data (commit 5ce7c0c5), MIT")
RUN_FOLDER = re.compile(r"^run(\d+)$")


@dataclass(frozen=True)
class LoggedCall:
    """One recorded API call: the source's model name, tokens, seconds, when, at what temperature, and its output."""

    model: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    time: str
    temperature: float | None
    output: str | None


@dataclass(frozen=True)
class AgentTask:
    """One problem of a run: the final code, the source's verdict, the calls the agent made for it (in order)."""

    task_id: str
    solution: str
    is_solved: bool
    calls: tuple[LoggedCall, ...]
    starts: int = 1  # task_started rows: 2 or more when the run restarted it (every start's calls were billed)


@dataclass
class AgentRun:
    """One run folder: ``strategy`` (``simple``, ``simple_repeat``, …), ``group`` (the folder under ``humaneval``),
    ``run`` (the run folder's name), its tasks, and ``problem``: why it is unusable (None when usable)."""

    strategy: str
    group: str
    run: str
    folder: Path
    tasks: list[AgentTask] = field(default_factory=list)
    problems: list[dict[str, Any]] = field(default_factory=list)  # per task: prompt, entry_point, test, given_tests
    problem: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def index(self) -> int | None:
        """The run's number from 0 (``run3`` → 2), or None for a folder not named ``run<k>``."""
        m = RUN_FOLDER.match(self.run)
        return int(m.group(1)) - 1 if m else None

    @property
    def usable(self) -> bool:
        return self.problem is None


def _number(value: Any, kind: type, path: Path, number: int, name: str, optional: bool = False):
    """``value`` (a number or its string) as ``kind``; None where ``optional`` and absent or 'None'. A token count that
    is not a plausible count (``common.token_count``) stops the import with one line: it would price the run."""
    if optional and (value is None or value == "None" or value == ""):
        return None
    if name.endswith("_tokens"):
        try:
            return token_count(value)
        except ValueError as exc:
            raise CostOfPassError(f"{path}: line {number}: field {name!r}: {exc}") from None
    try:
        out = kind(float(value)) if kind is int else kind(value)
    except (TypeError, ValueError, OverflowError):
        raise SourceLineError(f"{path}: line {number}: field {name!r} is not a number ({value!r})") from None
    if kind is int and float(value) != out or (out is not None and out < 0 and name != "temperature"):
        raise SourceLineError(f"{path}: line {number}: field {name!r} is not a count ({value!r})")
    return out


def _one(folder: Path, suffix: str) -> Path | None:
    found = sorted(p for p in folder.iterdir() if p.is_file()
                   and (p.name.endswith(suffix) or p.name.endswith(suffix + ".gz")))
    return found[0] if found else None


def read_log(path: Path, known: dict[str, str] | None = None) -> tuple[dict[str, list[LoggedCall]],
                                                                       list[str], dict[str, int]]:
    """Calls per task id, the task ids in the order the log first started them, and starts per task; a call's model
    must be a key of ``known`` when given. Raises ``SourceLineError`` naming the file and line."""
    calls: dict[str, list[LoggedCall]] = {}
    order: list[str] = []
    starts: dict[str, int] = {}
    current: str | None = None
    for number, line in lines(path):
        row = json_object(path, number, line)
        kind = row.get("type")
        if kind == "task_started":
            current = str(row.get("task_id"))
            if current not in starts:
                order.append(current)
                calls[current] = []
            starts[current] = starts.get(current, 0) + 1
        elif kind == "task_finished":
            if str(row.get("task_id")) != current:
                raise SourceLineError(f"{path}: line {number}: task_finished for {row.get('task_id')} while "
                                      f"{current or 'no task'} was started")
            current = None
        elif kind == "api_call":
            if current is None:
                raise SourceLineError(f"{path}: line {number}: an api_call outside any task")
            model = str(row.get("model_name") or "")
            if known is not None and model not in known:
                raise SourceLineError(f"{path}: line {number}: unknown model {model!r} (the set's "
                                      f"import_from.model_names knows: {', '.join(sorted(known)) or 'none'})")
            output = row.get("output_messages")
            calls[current].append(LoggedCall(
                model=model,
                prompt_tokens=_number(row.get("prompt_tokens"), int, path, number, "prompt_tokens"),
                completion_tokens=_number(row.get("completion_tokens"), int, path, number, "completion_tokens"),
                latency_s=_number(row.get("inference_time", 0), float, path, number, "inference_time"),
                time=str(row.get("time") or ""),
                temperature=_number(row.get("temperature"), float, path, number, "temperature", optional=True),
                output=output if isinstance(output, str) or output is None else json.dumps(output)))
    return calls, order, starts


def read_run(folder: Path, strategy: str, group: str, known: dict[str, str] | None = None) -> AgentRun:
    """One run folder, checked (``AgentRun.problem`` says why it is unusable)."""
    run = AgentRun(strategy, group, folder.name, folder)
    jsonl, log = _one(folder, ".jsonl"), _one(folder, ".log")
    if jsonl is None:
        run.problem = f"{folder}: no *.jsonl of problems"
        return run
    try:
        rows, numbers = read_jsonl(jsonl)
        run.problems = [{k: r.get(k) for k in ("task_id", "prompt", "entry_point", "test", "given_tests", "seed")}
                        for r in rows]
        if log is None:
            raise SourceLineError(f"{folder}: no call log (*.log or *.log.gz): its costs are unknown")
        calls, order, starts = read_log(log, known)
        ids = [r["task_id"] for r in rows]
        if order != ids:
            k = next((i for i, (a, b) in enumerate(zip(order, ids)) if a != b), min(len(order), len(ids)))
            raise SourceLineError(
                f"{log}: its tasks do not match {jsonl.name} ({len(order)} against {len(ids)} tasks; first difference "
                f"at task {k + 1}: log {order[k] if k < len(order) else 'none'}, jsonl line "
                f"{numbers[k] if k < len(numbers) else '-'} {ids[k] if k < len(ids) else 'none'})")
        for r in rows:
            tid = r["task_id"]
            run.tasks.append(AgentTask(tid, str(r["solution"]), str(r["is_solved"]).lower() == "true",
                                       tuple(calls[tid]), starts[tid]))
        restarted = [t.task_id for t in run.tasks if t.starts > 1]
        if restarted:
            run.notes.append(f"{len(restarted)} task(s) started more than once ({', '.join(restarted)}): the calls of "
                             "every start are counted, as they were billed")
        silent = [t.task_id for t in run.tasks if not t.calls]
        if silent:
            run.notes.append(f"{len(silent)} task(s) without a call ({', '.join(silent[:5])})")
    except SourceLineError as exc:
        run.problem, run.tasks = str(exc), []
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        run.problem, run.tasks = f"{folder}: unreadable ({type(exc).__name__}: {exc})", []
    return run


def run_folders(path: Path) -> Iterator[tuple[str, str, Path]]:
    """(strategy, group, folder) of every run under ``path``: the whole ``agent_evals`` folder, one strategy's
    folder, one group's, or one run's. A run folder is one that holds a ``*.jsonl`` or ``*.jsonl.gz``."""
    path = Path(path)
    folders = sorted({p.parent for p in path.rglob("*") if p.is_file() and re.search(r"\.jsonl(\.gz)?$", p.name)})
    for folder in folders:
        parts = folder.resolve().parts
        if "humaneval" in parts:
            i = len(parts) - 1 - parts[::-1].index("humaneval")
            strategy = parts[i - 1] if i >= 1 else "?"
            group = parts[i + 1] if i + 1 < len(parts) - 1 else folder.parent.name
        else:
            strategy, group = folder.parent.parent.name, folder.parent.name
        yield strategy, group, folder


def read_runs(path: Path, known: dict[str, str] | None = None, groups: set[str] | None = None) -> list[AgentRun]:
    """Every run under ``path`` (``run_folders``), read and checked; only ``groups`` ("strategy/group") when given."""
    return [read_run(folder, strategy, group, known) for strategy, group, folder in run_folders(path)
            if groups is None or f"{strategy}/{group}" in groups]


TOKENS = "the provider's usage, as the agent's log recorded it (every call of the attempt summed)"
REFLEXION = ("a Reflexion seed: the source records Reflexion's run totals only, no cost per problem, so the attempt's "
             "cost is unknown: not usable for cost")


def seeded_by(runs: dict, models: list[str]) -> dict[str, str]:
    """Strategy name -> the model whose attempts seed it, for the seeded strategies (``ldb_seed_*``) of a set's
    ``import_from.runs`` (group -> ``AgentGroup``): the model after ``+`` in the group's name
    (``ldb/<debugger>+<seed>``, as ``ldb_seeds`` reads it), where it is one of ``models`` and every group of that
    strategy names the same one."""
    found: dict[str, set[str]] = {}
    for group, run in runs.items():
        if run.method.startswith("ldb_seed_") and "+" in group:  # its strategy's name: "<model>+<method>"
            found.setdefault(f"{run.model}+{run.method}", set()).add(group.split("+", 1)[1])
    return {s: next(iter(m)) for s, m in found.items() if len(m) == 1 and next(iter(m)) in models}


def ldb_seeds(root: Path, run: AgentRun, known: dict[str, str], cache: dict) -> tuple[dict | None, str | None]:
    """An LDB run's seed calls per task id — the ``simple`` run of the same number of the model after ``+`` in its
    group (``<debugger>+<seed>``), whose solution must be the LDB row's ``seed`` — or why there are none (a Reflexion
    seed, an unusable seed run, a seed that is not that run's solution). ``root``: the ``agent_evals`` folder."""
    seed = run.group.split("+", 1)[1] if "+" in run.group else ""
    if seed == "reflexion":
        return None, REFLEXION
    key = (seed, run.run)
    if key not in cache:
        cache[key] = read_run(root / "simple" / "humaneval" / seed / run.run, "simple", seed, known)
    source = cache[key]
    if not seed or not source.usable:
        return (None, f"its seed run simple/{seed or '?'}/{run.run} is unusable "
                f"({source.problem if seed else 'no seed'})")
    solutions = {t.task_id: t for t in source.tasks}
    for row in run.problems:
        task = solutions.get(row["task_id"])
        if task is None or str(row.get("seed") or "").strip() != task.solution.strip():
            return None, (f"task {row['task_id']}: its seed is not the solution of simple/{seed}/{run.run} (the calls "
                          "that made it are unknown)")
    return {tid: t.calls for tid, t in solutions.items()}, None


def read(params, path: Path, models) -> Iterator["Imported | Dropped"]:
    """The set's recorded agent attempts (``collect.imports.Imported``), one per (group, problem, run) of the runs
    ``import_from.runs`` names; an unusable run is a ``Dropped`` (and listed by ``runs_table``). ``models`` (the set's
    imported models by source name) is not needed: each group names its registry model."""
    from helpers.collect.imports.common import Dropped, Imported, source_error
    from helpers.core.tasks.humaneval import NAME, problem_id

    spec = params.import_from
    if NAME not in params.tasks:
        raise source_error(path, "-", f"the agent runs answer HumanEval: add '{NAME}' to the set's tasks")
    for key, group in spec.runs.items():
        if group.model not in params.models:
            raise source_error(path, "-", f"import_from.runs[{key!r}]: model {group.model!r} "
                               "is not one of the set's models")
        if group.method not in params.methods:
            raise source_error(path, "-", f"import_from.runs[{key!r}]: method {group.method!r} "
                               "is not one of the set's methods")
    seed_runs: dict = {}
    for run in read_runs(path, spec.model_names, set(spec.runs)):
        seeds, why = ldb_seeds(path, run, spec.model_names,
                               seed_runs) if run.strategy == "ldb" and run.usable else ({}, None)
        if not run.usable or run.index is None or why or seeds is None:  # no seeds: ``why`` says why
            yield Dropped(f"{run.strategy}/{run.group}/{run.run}: {why or run.problem or 'a folder not named run<k>'}")
            continue
        group = spec.runs[f"{run.strategy}/{run.group}"]
        for task in run.tasks:
            calls = tuple(AgentCall(model=spec.model_names[c.model], source_model=c.model,
                                       prompt_tokens=c.prompt_tokens, completion_tokens=c.completion_tokens,
                                       latency_s=c.latency_s, time=c.time, temperature=c.temperature)
                          for c in (*seeds.get(task.task_id, ()), *task.calls))
            temperatures = sorted({c.temperature for c in task.calls if c.temperature is not None})
            yield Imported(NAME, problem_id(task.task_id), group.model, run.index, task.solution,
                           sum(c.prompt_tokens for c in calls), sum(c.completion_tokens for c in calls), TOKENS,
                           SOURCE, task.is_solved, method=group.method, agent_calls=calls,
                           sampling={"temperature": temperatures} if temperatures else {},
                           row=f"{run.folder.name}/{task.task_id}")


def runs_table(params) -> "pd.DataFrame":
    """Every run of the groups the set names (``import_from.runs``): strategy, group, the set's model and method, run,
    tasks, calls, the source's pass rate (%), and whether it is usable (else why not, one line)."""
    import pandas as pd

    spec = params.import_from
    rows: list[dict[str, Any]] = []
    seed_runs: dict = {}
    for run in read_runs(params.import_path, spec.model_names, set(spec.runs)):
        group = spec.runs[f"{run.strategy}/{run.group}"]
        if run.strategy == "ldb" and run.usable:  # an LDB run is usable only with its seed's calls
            run.problem = ldb_seeds(params.import_path, run, spec.model_names, seed_runs)[1]
        usable = run.usable and run.index is not None
        rows.append({"strategy": run.strategy, "group": run.group, "model": group.model, "method": group.method,
                     "run": run.run, "tasks": len(run.tasks), "calls": sum(len(t.calls) for t in run.tasks),
                     "source_pass_pct": 100 * sum(t.is_solved for t in run.tasks)
                     / len(run.tasks) if run.tasks else None,
                     "usable": usable,
                     "note": (run.problem or ("not named run<k>" if run.index is None
                                              else "; ".join(run.notes))).replace(
                         str(params.import_path), spec.path)})  # paths as the set names them, not this machine's
    return pd.DataFrame(rows + unnamed_runs(params))


def unnamed_runs(params) -> list[dict[str, Any]]:
    """Every run of the source in a folder the set does not import (not in ``import_from.runs``): a row as
    ``runs_table``'s, unusable, its note the set's reason (``import_from.left_out``) or that the set names no reason."""
    spec = params.import_from
    rows = []
    for strategy, group, folder in run_folders(params.import_path):
        key = f"{strategy}/{group}"
        if key in spec.runs:
            continue
        why = spec.left_out.get(key)
        rows.append({"strategy": strategy, "group": group, "model": "", "method": "", "run": folder.name, "tasks": None,
                     "calls": None, "source_pass_pct": None, "usable": False,
                     "note": f"left out by the set: {why}" if why else
                             "in no group of import_from.runs, and import_from.left_out gives no reason"})
    return rows


def caveats(params, models) -> list[str]:
    """The report's data caveat on the runs the import left out (the collect stage's notes: one ``dropped`` line per
    run, with its reason), counted by reason; each run is named in the runs table."""
    from helpers.core.notebooks import notes_path

    path = notes_path(params.output_path, params.stage_id("01_collect"))
    dropped = [line for line in path.read_text(encoding="utf-8").splitlines()
               if line.startswith("dropped ")] if path.is_file() else []
    left = unnamed_runs(params)
    if not dropped and not left:
        return []
    reasons = {"no call log": "with no call log, so no cost", "a Reflexion seed": "with a Reflexion seed, whose "
               "cost is unknown", "not named run<k>": "in an extra folder not named run<k>",
               "seed": "with a seed that is not its simple run's"}
    counts: dict[str, int] = {}
    for line in dropped:
        why = next((v for k, v in reasons.items() if k in line), "unreadable")
        counts[why] = counts.get(why, 0) + 1
    for row in left:
        why = ("left out by the set, each with its reason" if row["note"].startswith("left out")
               else "in a folder the set neither imports nor gives a reason for")
        counts[why] = counts.get(why, 0) + 1
    said = "; ".join(f"{n} {why}" for why, n in counts.items())
    n = len(dropped) + len(left)
    return [f"{n} run{' of the source was' if n == 1 else 's of the source were'} not imported ({said}); each is named "
            "in the runs table."]
