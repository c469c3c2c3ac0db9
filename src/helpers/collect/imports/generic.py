"""Any table of recorded responses, CSV or JSONL, read through a column mapping (``import_from.columns``).

Fields (each maps to a column of the file): ``model`` and ``response`` (required); ``problem_id`` (the task's
own ids) or ``question`` (matched to the task's problems by normalised text); ``task`` (else every row is
``import_from.task``); ``run`` (else the row's order among those of its problem and model: 0, 1, ...);
``prompt_tokens`` and ``completion_tokens`` (else counted with the model's tokenizer or estimated, and
labelled so); ``correct`` (the source's label: true/false, 1/0, yes/no). ``model`` values are the registry's
``imported.name``; rows of registered models not in the set are skipped, and rows of a model no registry entry
imports are refused (one line listing them).
"""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path
from typing import Any, Iterator

from helpers.collect.imports.common import Imported, import_spec, normalize_text, source_error, text_index, token_count
from helpers.collect.imports.tokens import counter
from helpers.core.errors import CostOfPassError
from helpers.core.models import ModelSpec, load_registry
from helpers.core.params import Params
from helpers.core.tasks import get_task

FIELDS = ("model", "response", "problem_id", "question", "task", "run", "prompt_tokens", "completion_tokens", "correct")
TRUE, FALSE = {"true", "1", "yes", "correct"}, {"false", "0", "no", "incorrect", "wrong"}


def rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(row number, row) of a CSV (header is row 1) or JSONL (line numbers) file; text that is not UTF-8 or a CSV
    field over the size limit is one line naming the file and the row."""
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        with path.open("rb") as fh:
            for i, raw in enumerate(fh, start=1):
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as err:
                    raise source_error(path, i, f"not UTF-8 text (byte {err.start} of the line)") from None
                if line.strip():
                    try:
                        row = json.loads(line)
                    except json.JSONDecodeError as err:
                        raise source_error(path, i, f"not JSON ({err.msg})") from None
                    if not isinstance(row, dict):
                        raise source_error(path, i, "not a JSON object")
                    yield i, row
        return
    if path.suffix.lower() != ".csv":
        raise CostOfPassError(f"{path}: a generic import reads .csv or .jsonl files, not {path.suffix or 'no suffix'}")
    csv.field_size_limit(1 << 26)
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        number = 1
        try:
            for number, row in enumerate(reader, start=2):
                yield number, row
        except UnicodeDecodeError as err:
            raise source_error(path, number + 1, f"not UTF-8 text (byte {err.start} of a block)") from None
        except csv.Error as err:
            raise source_error(path, reader.line_num, str(err)) from None


def as_label(value: Any) -> bool | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in TRUE or text in FALSE:
        return text in TRUE
    raise ValueError(f"expected a correctness label (true/false, 1/0, yes/no), got {value!r}")


def read(params: Params, path: Path, models: dict[str, ModelSpec]) -> Iterator[Imported]:
    """The file's rows as imported responses of the set's models and tasks (see the module's docstring)."""
    spec, _ = import_spec(params)
    cols = spec.columns
    check_columns(params)
    source = "; ".join(x for x in (spec.source or f"imported from {path.name}",
                                   spec.licence and f"licence: {spec.licence}") if x)
    problems = {t: get_task(t).load(params.data_path, params.task_options.get(t, {})) for t in params.tasks}
    by_id = {t: {p.problem_id: p for p in ps} for t, ps in problems.items()}
    texts = {t: text_index(ps) for t, ps in problems.items()} if "question" in cols else {}
    # all are (by_source_name)
    counters = {name: counter(m.imported.tokenizer) for name, m in models.items() if m.imported}
    runs: dict[tuple, int] = {}
    registered = {m.imported.name for m in load_registry(params.models_path).values() if m.imported}
    unknown: Counter[str] = Counter()  # rows of a model no registry entry imports: refused at the end, listed
    for number, row in rows(path):
        if missing := [c for c in cols.values() if c not in row]:
            raise source_error(path, number, f"no column(s) {', '.join(missing)}")
        name = str(row[cols["model"]])
        task = str(row[cols["task"]]) if "task" in cols else spec.task
        if name not in models:
            if name not in registered:
                unknown[name] += 1
            continue
        if task not in params.tasks:
            continue
        problem = find_problem(row, cols, task, by_id[task], texts.get(task), path, number)
        response = row[cols["response"]]
        run, label, counts = row_values(row, cols, runs.get((task, problem.problem_id, name), 0), path, number)
        runs[(task, problem.problem_id, name)] = run + 1
        if counts is None:
            count, how = counters[name]
            counts = count(problem.question), count(response)
            how += "; prompt: the question alone (source's prompt not recorded)"
        else:
            how = "the source's counts"
        yield Imported(task, problem.problem_id, models[name].name, run, None if response is None else str(response),
                       *counts, how, source, label, row=number)
    if unknown:
        listed = ", ".join(f"{n!r} ({k} rows)" for n, k in unknown.most_common(5)) + (" …" if len(unknown) > 5 else "")
        raise CostOfPassError(f"{path}: rows of model(s) no registry entry imports: {listed}; add them to "
                              f"{params.models_file} (field imported.name) or remove the rows")


def check_columns(params: Params) -> None:
    """Refuse a column mapping that names an unknown field, misses a required one, or cannot place a row's task."""
    spec, _ = import_spec(params)
    cols = spec.columns
    if unknown := sorted(set(cols) - set(FIELDS)):
        raise CostOfPassError(f"{params.source}: field 'import_from.columns': unknown field(s) {', '.join(unknown)} "
                              f"(fields: {', '.join(FIELDS)})")
    for needed in ("model", "response"):
        if needed not in cols:
            raise CostOfPassError(f"{params.source}: field 'import_from.columns': '{needed}' is required")
    if ("problem_id" in cols) == ("question" in cols):
        raise CostOfPassError(f"{params.source}: field 'import_from.columns': map exactly one of problem_id, question")
    if "task" not in cols and spec.task not in params.tasks:
        raise CostOfPassError(f"{params.source}: field 'import_from.task': one of the set's tasks "
                              f"({', '.join(params.tasks)}) or a 'task' column is needed")


def find_problem(row: dict, cols: dict[str, str], task: str, by_id: dict, texts: dict | None, path: Path, number: int):
    """The problem of ``task`` a row answers: by its ``problem_id`` column, else by its normalised question text."""
    if "problem_id" in cols:
        pid = str(row[cols["problem_id"]])
        if (problem := by_id.get(pid)) is None:
            raise source_error(path, number, f"problem id {pid!r} is not a problem of {task}")
        return problem
    assert texts is not None  # a question column (check_columns): ``read`` indexed the questions
    if (problem := texts.get(normalize_text(str(row[cols["question"]] or "")))) is None:
        raise source_error(path, number, f"its question matches no problem of {task}")
    return problem


def row_values(row: dict, cols: dict[str, str], next_run: int, path: Path,
               number: int) -> tuple[int, bool | None, tuple[int, int] | None]:
    """A row's run (its column, else ``next_run``), the source's label and its (prompt, completion) token counts
    (None when the file has none); a value that does not parse is one line naming the file and the row."""
    try:
        run = int(row[cols["run"]]) if "run" in cols else next_run
        label = as_label(row[cols["correct"]]) if "correct" in cols else None
        counts = ((token_count(row[cols["prompt_tokens"]]), token_count(row[cols["completion_tokens"]]))
                  if "prompt_tokens" in cols and "completion_tokens" in cols else None)
    except (TypeError, ValueError) as err:
        raise source_error(path, number, str(err)) from None
    return run, label, counts
