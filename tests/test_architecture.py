"""docs/architecture.md stays true: every file, folder, module, notebook and registry it names exists, and every recipe
has its worked example in tests/test_recipes.py."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEXT = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
CODE = re.findall(r"`([^`]+)`", TEXT)


def test_every_path_it_names_exists():
    paths = [c for c in CODE if re.match(r"^(src|tests|params|report|notebooks)/", c) and "<" not in c]
    assert len(paths) > 30
    missing = [p for p in paths if not (ROOT / p.split(" ")[0]).exists()]
    assert not missing, f"docs/architecture.md names what is not there: {missing}"


def test_every_module_and_notebook_it_names_exists():
    modules = sorted({c for c in CODE if re.fullmatch(r"helpers(\.[a-z_]+)+", c)})
    assert modules, "the stage table names the packages"
    for name in modules:
        importlib.import_module(name)
    notebooks = set(re.findall(r"`(0\d_[a-z_]+)`", TEXT))
    assert {p.stem for p in (ROOT / "notebooks").glob("0*.ipynb")} >= notebooks and len(notebooks) >= 4


def test_the_registries_it_tells_a_reader_to_edit_exist():
    from helpers.collect import backends, imports
    from helpers.core import models, params
    from helpers.core.methods import base
    from helpers.publish import catalog

    assert {"sim", "local"} <= set(backends.BACKENDS) and {"sim", "local"} <= models.LOCAL_PROVIDERS
    assert set(imports.READERS) == set(params.IMPORT_FORMATS)
    assert callable(base.register) and callable(base.register_k)
    assert catalog.PARTS and catalog.Artifact and callable(catalog.publish_figure)


def test_every_recipe_has_its_worked_example():
    examples = set(re.findall(r"Worked example: `(test_recipe_[a-z_]+)`", TEXT))
    recipes = re.findall(r"^\*\*Add (?:a|an) ([a-z]+)", TEXT, flags=re.M)
    assert len(examples) == len(recipes) == 7
    tests = (ROOT / "tests" / "test_recipes.py").read_text(encoding="utf-8")
    assert all(f"def {name}(" in tests for name in examples)


def test_the_benchmarks_section_is_generated_from_saved_outputs():
    """The measured figures are not typed: docs/benchmarks.md holds exactly what
    benchmarks/readme_figures.py builds from benchmarks/results/, and every benchmark script is one of its runs."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("readme_figures", ROOT / "benchmarks" / "readme_figures.py")
    figures = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = figures  # its dataclasses look their module up there
    spec.loader.exec_module(figures)
    text = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    assert figures.section() in text, "docs/benchmarks.md differs from `readme_figures.py --readme-only`"
    for (page, name), block in figures.doc_blocks().items():  # a measured table another page prints (statistics.md)
        assert block in (ROOT / page).read_text(encoding="utf-8"), f"{page}#{name} differs from its saved output"
    scripts = {p.name for p in (ROOT / "benchmarks").glob("*.py")} - {"readme_figures.py"}
    assert scripts == {r.args[0].split("/")[-1] for r in figures.RUNS if r.args[0].startswith("benchmarks/")}
    for run in figures.RUNS:
        found = figures.saved(run)
        assert found is None or {"date", "machine", "command", "wall"} <= set(found[0]), run.id


# the genuine reads of a "<a>:<b>" string in src/helpers that are not a statistic's name: (file, the line's code) ->
# why it may stay
NOT_A_STATISTIC = {
    ("collect/imports/__init__.py", 'CAVEATS[params.import_from.format].partition(":")'):
        'a reader\'s "module:function" path',
    ("collect/imports/__init__.py", 'READERS[import_spec(params)[0].format].partition(":")'):
        'a reader\'s "module:function" path',
    ("cli/local_prices.py", 'line.split(":", 1)'): "an Ollama modelfile's 'key: value' line",
    ("cli/skipping.py", 'node.value.split(":")'): 'a notebook\'s "module:function" string constant',
    ("analyze/statistic.py", 'self.label.split(" (")[0].split(":")'): "a kind's label shortened to its first words",
    ("analyze/statistic.py", 'label.split(" (")[0].split(":")'): "a label no kind has, shortened alike",
    ("analyze/statistic.py", 'str(name).partition(":")'): "Key.parse itself: the one boundary (a shown cell's text)",
    ("publish/names.py", "Key.parse(v)"): "the one boundary: a shown table's cell text, where only the words remain",
}


def test_a_statistics_kind_is_never_read_back_from_its_name():
    """Issue 61, item 8: a statistic is a typed key (``statistic.Key``); a frame carries its ``kind`` and ``item``
    columns beside its name. Nothing in src/helpers reads a kind or an item back from a name: no helper that did
    (``kind_of``, ``item_of``, ``kinds``, ``items``), no split or partition at a colon, no prefix match on a kind's
    name, no spelled frontier name, and ``Key.parse`` only at its one boundary (``NOT_A_STATISTIC`` lists, with a
    reason each, the reads of a colon that are not a statistic's)."""
    from helpers.analyze.statistic import KINDS

    kinds = "|".join(re.escape(k) for k in KINDS)
    patterns = [r"(?<![\w.])(kind_of|item_of|kinds|items)\(", r"\.r?split\(\s*['\"]:['\"]",
                r"\.r?partition\(\s*['\"]:['\"]", rf"startswith\(\s*\(?\s*['\"]({kinds})",
                r"['\"]frontier:all models['\"]", r"Key\.parse\("]
    src = ROOT / "src" / "helpers"
    found, used = [], set()
    for f in sorted(src.rglob("*.py")):
        rel = f.relative_to(src).as_posix()
        for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#")[0]
            if not any(re.search(p, code) for p in patterns):
                continue
            allowed = [k for k in NOT_A_STATISTIC if k[0] == rel and k[1] in code]
            used.update(allowed)
            if not allowed:
                found.append(f"src/helpers/{rel}:{i}: {line.strip()}")
    assert found == []
    assert used == set(NOT_A_STATISTIC), f"allowed but no longer there: {set(NOT_A_STATISTIC) - used}"
