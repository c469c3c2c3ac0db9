"""The package is shaped like the pipeline: every import points to ``core`` or an earlier stage, and
no module imports itself back through others (every import counts, those inside functions too)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
STAGES = ["core", "collect", "grade", "analyze", "publish", "cli", "api"]  # in pipeline order; api: the library facade


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted((SRC / "helpers").rglob("*.py"))}


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The ``helpers`` modules a module imports, wherever the import statement is."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("helpers"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if not source.startswith("helpers"):
                continue
            for alias in node.names:  # ``from P import m`` names module P.m when it is one
                out.add(f"{source}.{alias.name}" if f"{source}.{alias.name}" in known else source)
    return out - {name}


def stage(name: str) -> int:
    parts = name.split(".")
    if len(parts) < 2:
        return -1  # the package root: env defaults only
    assert parts[1] in STAGES, f"{name} is in no stage: put it under one of {STAGES}"
    return STAGES.index(parts[1])


def graph() -> dict[str, set[str]]:
    mods = modules()
    return {name: imports(name, path, set(mods)) for name, path in mods.items()}


def test_every_module_is_in_a_stage():
    for name in modules():
        stage(name)


def test_imports_point_to_core_or_an_earlier_stage():
    upward = [f"{a} imports {b}" for a, targets in graph().items() for b in sorted(targets) if stage(b) > stage(a)]
    assert not upward, "upward imports:\n" + "\n".join(upward)


def test_the_root_package_imports_no_stage():
    assert not graph()["helpers"]


def find_cycle(g: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as a list of modules, or None."""
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(g.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state and (c := visit(m)):
                return c
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(g):
        if n not in state and (c := visit(n)):
            return c
    return None


def test_no_import_cycles():
    cycle = find_cycle(graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


@pytest.mark.parametrize("g, cyclic", [({"a": {"b"}, "b": {"c"}, "c": set()}, False),
                                       ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, True),
                                       ({"a": {"a2"}, "a2": set(), "b": {"b"}}, True)])
def test_the_cycle_finder_finds_cycles(g, cyclic):
    assert (find_cycle(g) is not None) is cyclic


def test_an_upward_import_is_caught(tmp_path):
    """The walker sees imports inside functions and relative ones."""
    pkg = tmp_path / "helpers" / "core"
    pkg.mkdir(parents=True)
    mod = pkg / "x.py"
    mod.write_text("def f():\n    from ..publish import tables\n    import helpers.cli.runner\n")
    found = imports("helpers.core.x", mod, {"helpers.publish.tables"})
    assert found == {"helpers.publish.tables", "helpers.cli.runner"}
    assert max(stage(b) for b in found) > stage("helpers.core.x")


def test_the_files_that_run_inside_the_boundary_import_only_the_standard_library():
    """``sandbox_server.py``, ``kernel.py`` and ``plain.py`` are copied into the sandbox, which has the standard library
    and nothing else (``grade.boundary.FILES``): each imports the standard library and the other two only."""
    import sys

    from helpers.grade.boundary import FILES

    shipped = {Path(f).stem for f in FILES}
    for name in FILES:
        tree = ast.parse((SRC / "helpers" / "grade" / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            for imported in names:
                top = imported.split(".")[0]
                assert top in sys.stdlib_module_names or top in shipped or top == "__future__", (name, imported)


def test_a_lone_panel_keeps_room_for_its_bars_and_a_squeezed_one_is_named():
    """Issue 38 item 3: a 30 px panel in RouteLLM's Figure 4, its release names taking the width."""
    import matplotlib.pyplot as plt
    import pandas as pd

    from helpers.publish.figures import bars, style

    frame = pd.DataFrame({"task": ["GSM8K", "GSM8K"], "item": ["2023-11-06 GPT-4 Turbo (1106 preview)",
                                                               "2023-12-11 Mixtral-8x7B-Instruct (tokens estimated)"],
                          "value": [88.0, 44.0], "low": [86.0, 36.0], "high": [90.0, 53.0]})
    fig = bars.interval_bars(frame, "item", "gain", False, {})
    assert not any(p.startswith("panel squeezed") for p in style.layout_problems(fig))
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(1.2, 2))
    ax.plot([0, 1], [0, 1])
    assert any(p.startswith("panel squeezed") for p in style.layout_problems(fig))
    plt.close(fig)
