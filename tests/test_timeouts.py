"""Every wait a test makes ends before the test's own pytest timeout (issue 60).

pytest-timeout ends a test that outlives its limit by ending its whole pytest-xdist worker ("thread": math-verify
sets SIGALRM itself and would cancel the "signal" method's timer), so the worker's later tests are lost and what
the test started runs on. A test's own, shorter limit fails that test alone, with the command's output
(``conftest.run_in_session`` kills what it started). So no ``timeout=`` in a test may reach the test's pytest
timeout: ``make all`` ran 18-20 minutes in the suite on a 2-core Xeon and was ended at the 15-minute pytest limit,
while its own limit of 25 minutes never came.
"""

from __future__ import annotations

import ast
import re
import sys
import time
import tomllib

import pytest

from conftest import ROOT, run_in_session

MARGIN_S = 60  # a test's own limit ends at least this long before its pytest timeout (its cleanup, the report)


def _number(node: ast.AST, names: dict[str, float]) -> float | None:
    """The value of a constant expression (numbers, module constants, + - *), or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
        left, right = _number(node.left, names), _number(node.right, names)
        if left is None or right is None:
            return None
        return left + right if isinstance(node.op, ast.Add) else left - right if isinstance(node.op,
                                                                                            ast.Sub) else left * right
    return None


def _mark_timeout(fn: ast.FunctionDef, names: dict[str, float]) -> float | None:
    for deco in fn.decorator_list:
        if isinstance(deco, ast.Call) and ast.unparse(deco.func) == "pytest.mark.timeout" and deco.args:
            return _number(deco.args[0], names)
    return None


def waits_past_their_timeout(source: str, default_s: float) -> list[str]:
    """``timeout=`` arguments of a test module's functions that do not end ``MARGIN_S`` before the pytest timeout of
    the function they are in (its ``pytest.mark.timeout`` or ``default_s``): "function: value >= limit"."""
    tree = ast.parse(source)
    names = {t.id: v for node in tree.body if isinstance(node, ast.Assign) for t in node.targets
             if isinstance(t, ast.Name) and (v := _number(node.value, {})) is not None}
    late = []
    # methods of test classes too
    tops = [n for c in tree.body for n in (c.body if isinstance(c, ast.ClassDef) else [c])]
    for fn in (n for n in tops if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        limit = _mark_timeout(fn, names) or default_s
        for call in (n for n in ast.walk(fn) if isinstance(n, ast.Call)):
            for kw in call.keywords:
                value = _number(kw.value, names) if kw.arg in ("timeout", "timeout_s") else None
                if value is not None and value > limit - MARGIN_S:
                    late.append(f"{fn.name}: {value:g} s >= {limit:g} s - {MARGIN_S} s")
    return late


def default_timeout_s() -> float:
    ini = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    return float(ini["timeout"])


def test_no_test_waits_past_its_pytest_timeout():
    default = default_timeout_s()
    late = {p.relative_to(ROOT).as_posix(): found for p in sorted((ROOT / "tests").rglob("*.py"))
            if (found := waits_past_their_timeout(p.read_text(encoding="utf-8"), default))}
    assert not late, late


def test_the_check_finds_a_wait_past_the_limit():
    """What issue 60 found: a 1500-s command in a test under the 900-s default, and a mark that makes room."""
    plain = "def test_x():\n    run('make all', timeout=1500)\n"
    marked = "import pytest\nS = 1500\n@pytest.mark.timeout(S + 300)\ndef test_x():\n    run('make all', timeout_s=S)\n"
    assert waits_past_their_timeout(plain, 900) == ["test_x: 1500 s >= 900 s - 60 s"]
    readme = (ROOT / "tests" / "test_readme.py").read_text(encoding="utf-8")  # the README commands' own limit is seen
    assert waits_past_their_timeout(readme.replace("timeout(COMMAND_S + 300)", "timeout(COMMAND_S)"), 900)
    assert waits_past_their_timeout(marked, 900) == []


def test_a_command_past_its_limit_fails_its_test_and_nothing_it_started_runs_on():
    with pytest.raises(pytest.fail.Exception) as failed:
        run_in_session(["sh", "-c", "sleep 300 & echo $!; wait"], timeout_s=2)
    assert "did not end within 2 s" in str(failed.value)
    child = int(re.findall(r"^(\d+)$", str(failed.value), flags=re.M)[0])
    deadline = time.monotonic() + 10  # SIGKILL is sent; a loaded machine may take a moment to schedule the death
    while True:
        try:
            name, _, rest = open(f"/proc/{child}/stat").read().partition(" (")[2].rpartition(")")
            # ours is `sleep` (or the shell's fork before its exec); another name: the pid was reused, ours is gone
            state = rest.split()[0] if name in ("sleep", "sh") else "gone"
        except OSError:
            state = "gone"
        if state in ("gone", "Z") or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert state in ("gone", "Z"), "the command's own child outlived its session's kill"
    done = run_in_session([sys.executable, "-c", "print('ok')"], timeout_s=60)
    assert done.returncode == 0 and done.stdout == "ok\n"
