"""HumanEval (Chen et al., 2021; MIT): complete a Python function; graded by running its hidden tests.

Problems are read from a file in the layout of the "AI Agents That Matter" runs (``collect.imports.agent_evals``:
one JSON line per problem with ``task_id``, ``prompt``, ``entry_point``, ``test``, ``given_tests``; plain or gzip),
by default the first ``simple`` run of GPT-4 (0613) under the data directory; task option ``file`` names another
(relative to the data directory, or absolute). The question is the source's own user prompt: the function's
signature and docstring after one of its public tests. Metric ``code``: the answer is the code of the response
(``grade.answers``), run with the hidden tests in the sandbox (``grade.sandbox``), never in this process.
"""

from __future__ import annotations

import ast
import gzip
import json
from pathlib import Path
from typing import Any, Iterator

from helpers.core.errors import CostOfPassError
from helpers.core.tasks.base import Problem, TaskSpec, missing_data, register

NAME = "humaneval"
DEFAULT_FILE = "agent_evals/simple/humaneval/gpt-4-0613/run1/probs._simple_10_gpt-4-0613_pass_at_1_seed_.jsonl.gz"
QUESTION = ("Complete the following task in Python. Remember to repeat all imports and function header. "
            # the source's user prompt (its system prompt: an expert programmer)
            "Here is a unit test:\n{test}\n\n{prompt}")


class SourceLineError(ValueError):
    """A malformed line: the message already names the file and line."""


MAX_LINE = 16 << 20  # characters of one JSON line (a HumanEval row or a log line is well under 1 MiB)
MAX_FILE = 256 << 20  # characters of one file, decompressed (a run's log is a few MiB)


def lines(path: Path) -> Iterator[tuple[int, str]]:
    """The non-blank lines of a JSON-lines file (plain or gzip) and their numbers, read as a stream: a line longer than
    ``MAX_LINE`` or a file longer than ``MAX_FILE`` (a decompression bomb) is a ``SourceLineError``, so memory and time
    stay bounded."""
    opener = gzip.open if path.name.endswith(".gz") else open
    total = 0
    with opener(path, "rt", encoding="utf-8") as fh:
        for number, line in enumerate(iter(lambda: fh.readline(MAX_LINE + 1), ""), start=1):
            total += len(line)
            if len(line) > MAX_LINE or total > MAX_FILE:
                limit = f"a line longer than {MAX_LINE >> 20} MiB" if len(line) > MAX_LINE else \
                    f"more than {MAX_FILE >> 20} MiB decompressed"
                raise SourceLineError(f"{path}: line {number}: {limit} (refused: not a source's file)")
            if line.strip():
                yield number, line


def json_object(path: Path, number: int, line: str) -> dict:
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise SourceLineError(f"{path}: line {number}: not JSON ({exc.msg})") from None
    if not isinstance(row, dict):
        raise SourceLineError(f"{path}: line {number}: expected a JSON object")
    return row


def read_jsonl(path: Path) -> tuple[list[dict[str, Any]], list[int]]:
    """The problems of a run's jsonl and each one's line number; raises ``SourceLineError`` on a bad row."""
    rows: list[dict[str, Any]] = []
    numbers: list[int] = []
    seen: dict[str, int] = {}
    for number, line in lines(path):
        row = json_object(path, number, line)
        missing = [k for k in ("task_id", "prompt", "entry_point", "test", "solution", "is_solved") if k not in row]
        if missing:
            raise SourceLineError(f"{path}: line {number}: no field(s) {', '.join(missing)}")
        if row["task_id"] in seen:
            raise SourceLineError(f"{path}: line {number}: task {row['task_id']} again (first "
                                  f"at line {seen[row['task_id']]})")
        if str(row["is_solved"]) not in ("True", "False", "true", "false"):
            raise SourceLineError(f"{path}: line {number}: is_solved is {row['is_solved']!r}, not True or False")
        seen[row["task_id"]] = number
        rows.append(row)
        numbers.append(number)
    return rows, numbers


def problem_id(task_id: str) -> str:
    """'HumanEval/12' -> 'humaneval-12'."""
    return "humaneval-" + str(task_id).rsplit("/", 1)[-1]


def first_test(given_tests: Any) -> str:
    """The first public test of a row (a list, or the string of one as the source writes it)."""
    tests = given_tests
    if isinstance(tests, str):
        try:
            tests = ast.literal_eval(tests)
        except (ValueError, SyntaxError):
            tests = [tests]
    return str(tests[0]) if tests else ""


def load(data_dir: Path, options: dict[str, Any]) -> list[Problem]:
    path = Path(options.get("file", DEFAULT_FILE))
    path = path if path.is_absolute() else data_dir / path
    if not path.is_file():
        raise missing_data(NAME, path)
    try:
        rows, _ = read_jsonl(path)
    except SourceLineError as exc:
        raise CostOfPassError(str(exc)) from None
    return [Problem(NAME, problem_id(r["task_id"]),
                    QUESTION.format(test=first_test(r.get("given_tests")), prompt=r["prompt"]),
                    str(r["entry_point"]), metadata={"test": r["test"], "entry_point": r["entry_point"],
                                                     "task_id": r["task_id"], "prompt": r["prompt"]})
            for r in rows]


register(TaskSpec(name=NAME, label="HumanEval", category="code", metric="code", load=load,
                  source="openai/human-eval (MIT), as recorded in "
                  "benediktstroebl/agent-evals LLMDebugger/output_data (MIT)",
                  files=(DEFAULT_FILE,)))
