"""What the sandbox runs for one solution: the candidate's code and, apart from it, the hidden tests that judge it.

HumanEval-style tests define ``check(candidate)`` and call ``candidate`` (the entry point) with plain arguments. They
run in ``split`` mode: the solution alone in the candidate process, ``check`` in the harness process, which calls the
candidate over a channel of plain data. A name the tests use is their own, a built-in, ``candidate``, a helper the
problem's prompt defines with a body (HumanEval/32's ``poly``, /38's ``encode_cyclic``: the harness takes those from the
prompt, never from the solution), or else a function only the solution defines (HumanEval/33 calls ``sort_third``
itself): the harness calls that one in the candidate process too, over the same channel (``CodeJob.calls``), so its
results are plain data the harness compares and no verdict is the program's to give. Only tests that do not parse or
define no ``check`` run in ``whole`` mode (solution, tests and ``check(entry_point)`` as one program, whose verdict
the program could forge; such verdicts say so): HumanEval has none.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal


@dataclass(frozen=True)
class CodeJob:
    """One program to judge: ``program`` (split: the solution; whole: solution + tests + check), ``mode``,
    ``entry_point``, the harness's part (``test``, ``prompt``; empty in whole mode) and ``calls``: the functions the
    harness may call in the candidate process, the entry point first, then each name the tests use that only the
    solution defines (split mode)."""

    program: str
    mode: Literal["split", "whole"]
    entry_point: str
    test: str = ""
    prompt: str = ""
    calls: tuple[str, ...] = ()


def whole_program(solution: str, test: str, entry_point: str) -> str:
    """A HumanEval-style program: the solution, its hidden tests, then ``check(entry_point)``."""
    return f"{solution}\n\n{test}\n\ncheck({entry_point})\n"


def _bound(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def _stub(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A function the model is asked to write: only a docstring, ``pass`` or ``...`` in its body."""
    return all(isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
               for s in node.body)


def prompt_helpers(prompt: str, entry_point: str) -> set[str] | None:
    """Names the prompt gives the tests: its imports, assignments and functions with a body (not the entry point,
    not a stub); None when the prompt does not parse."""
    try:
        tree = ast.parse(prompt)
    except (SyntaxError, ValueError):
        return None
    stubs = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and _stub(n)}
    return _bound(tree) - stubs - {entry_point}


@lru_cache(maxsize=4096)
def remote_calls(test: str, prompt: str, entry_point: str) -> tuple[str, ...] | None:
    """The functions the harness calls in the candidate process to run ``test`` apart from the solution: the entry
    point, then every name the tests use that is not their own, a built-in, ``candidate`` or a helper of the prompt
    (sorted); None where the tests do not parse or define no ``check`` (they cannot be run apart). Memoised: a set's
    thousands of solutions share a few hundred tests."""
    helpers = prompt_helpers(prompt, entry_point)
    try:
        tree = ast.parse(test)
    except (SyntaxError, ValueError):
        return None
    if helpers is None or not any(isinstance(n, ast.FunctionDef) and n.name == "check" for n in tree.body):
        return None
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    only_solution = used - _bound(tree) - helpers - set(dir(builtins)) - {"candidate"}
    return (entry_point, *sorted(only_solution - {entry_point}))


def split_mode(test: str, prompt: str, entry_point: str) -> bool:
    """Whether the tests can judge the solution from outside its process (``remote_calls`` is not None)."""
    return remote_calls(test, prompt, entry_point) is not None


def code_job(solution: str, test: str, entry_point: str, prompt: str = "") -> CodeJob:
    """The job for one solution: split where the tests can run apart (``remote_calls``), else whole."""
    calls = remote_calls(test, prompt or "", entry_point) if prompt is not None else None
    if calls is not None:
        return CodeJob(solution, "split", entry_point, test, prompt or "", calls)
    return CodeJob(whole_program(solution, test, entry_point), "whole", entry_point)
