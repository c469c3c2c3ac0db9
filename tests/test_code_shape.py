"""The package's functions stay small: at most ``MAX_LINES`` lines of body (docstring excluded) and a McCabe
complexity of at most ``MAX_COMPLEXITY`` (the ``mccabe`` package, flake8's checker), unless the line above the
``def`` (or its first decorator) says why not: ``# long: <reason>``. Every module opens with a docstring."""

from __future__ import annotations

import ast
from pathlib import Path

import mccabe

SRC = Path(__file__).resolve().parents[1] / "src" / "helpers"
MAX_LINES, MAX_COMPLEXITY = 45, 15


def function_shapes(path: Path) -> list[tuple[str, int, int, bool]]:
    """(name, body lines, complexity, has a ``# long:`` reason) of every function and method in a file."""
    text = path.read_text(encoding="utf-8")
    tree, lines = ast.parse(text), text.splitlines()
    visitor = mccabe.PathGraphingAstVisitor()
    visitor.preorder(tree, visitor)
    complexity: dict[int, int] = {}
    for graph in visitor.graphs.values():
        complexity[graph.lineno] = max(complexity.get(graph.lineno, 0), graph.complexity())
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        body = node.body
        docstring = isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
            and isinstance(body[0].value.value, str)
        first = body[1].lineno if docstring and len(body) > 1 else body[0].lineno
        top = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        reason = top >= 2 and lines[top - 2].strip().startswith("# long:")
        out.append((node.name, node.end_lineno - first + 1, complexity.get(node.lineno, 1), reason))
    return out


def test_no_function_is_long_or_branchy_without_a_reason():
    too_big = [f"{path.relative_to(SRC.parent)}: {name} ({n} lines, complexity {c})"
               for path in sorted(SRC.rglob("*.py")) for name, n, c, reason in function_shapes(path)
               if (n > MAX_LINES or c > MAX_COMPLEXITY) and not reason]
    assert not too_big, "split these into named steps, or say why not in a '# long:' line above the def:\n" + \
        "\n".join(too_big)


def test_the_shape_check_sees_a_long_function_and_its_reason(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_LINES + 1))
    branches = "\n".join(f"    if x == {i}:\n        return {i}" for i in range(MAX_COMPLEXITY + 1))
    (tmp_path / "m.py").write_text(f'def long():\n    """Doc."""\n{body}\n\n\n# long: a table written out\n'
                                   f"def excused():\n{body}\n\n\ndef branchy(x):\n{branches}\n")
    shapes = {name: (n, c, reason) for name, n, c, reason in function_shapes(tmp_path / "m.py")}
    assert shapes["long"] == (MAX_LINES + 1, 1, False)
    assert shapes["excused"] == (MAX_LINES + 1, 1, True)
    assert shapes["branchy"][1] == MAX_COMPLEXITY + 2 and not shapes["branchy"][2]


def test_every_module_says_what_it_holds():
    silent = [str(p.relative_to(SRC.parent)) for p in sorted(SRC.rglob("*.py"))
              if p.stat().st_size and ast.get_docstring(ast.parse(p.read_text(encoding="utf-8"))) is None]
    assert not silent, "modules without a docstring: " + ", ".join(silent)


def test_no_test_imports_another_test_module():
    """Shared test helpers live in conftest.py (or a helper module such as loopback.py), so a plain ``pytest`` of
    any one file works."""
    tests = Path(__file__).resolve().parent
    offenders = []
    for path in sorted(tests.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            offenders += [f"{path.relative_to(tests)}: {n}" for n in names
                          if n.startswith("tests") or n.split(".")[-1].startswith("test_")]
    assert not offenders, offenders


def test_every_stage_says_what_it_owns_and_what_it_must_not_import():
    for stage in ("core", "collect", "grade", "analyze", "publish"):
        doc = ast.get_docstring(ast.parse((SRC / stage / "__init__.py").read_text(encoding="utf-8"))) or ""
        assert doc.startswith("Stage ") and "must not import" in doc.lower(), stage
    assert "nothing imports it" in (ast.get_docstring(ast.parse((SRC / "cli" / "__init__.py").read_text())) or "")
