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


def test_a_statistics_kind_is_read_from_its_name_in_one_place_only():
    """Issue 61, item 8: a statistic's name ("<kind>:<item>") is read back into its kind and item by
    ``helpers.analyze.statistic`` alone; nothing in the analysis, the publishing or the library splits a name at its
    colon, prefix-matches a kind, or spells the frontier's name."""
    from helpers.analyze.statistic import KINDS

    patterns = [re.escape('split(":"'), re.escape('partition(":")'), re.escape('"frontier:all models"'),
                *(re.escape(f'startswith("{k}') for k in KINDS), *(re.escape(f"startswith('{k}") for k in KINDS)]
    src = ROOT / "src" / "helpers"
    files = [*sorted((src / "analyze").glob("*.py")), *sorted((src / "publish").glob("*.py")), src / "api.py"]
    found = [f"{f.relative_to(ROOT)}:{i}: {line.strip()}" for f in files if f.name != "statistic.py"
             for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)
             if any(re.search(p, line) for p in patterns)]
    assert found == []
