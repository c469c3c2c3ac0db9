"""Quarto cannot run here: check the project statically (YAML parses; named files, kernel and labels exist)."""

import json
import re

import yaml

from conftest import ROOT
from helpers.publish import catalog

REPORT = ROOT / "report"


def test_quarto_project_is_consistent():
    project = yaml.safe_load((REPORT / "_quarto.yml").read_text())
    pages = project["project"]["render"]
    assert pages and all((REPORT / p).is_file() for p in pages)
    assert project["execute"]["enabled"] is True  # Quarto does not execute .ipynb files otherwise
    for page in pages:
        nb = json.loads((REPORT / page).read_text())
        raw = nb["cells"][0]
        assert raw["cell_type"] == "raw"
        front = yaml.safe_load("".join(raw["source"]).strip().strip("-"))
        assert front["jupyter"] == "cost-of-pass" == nb["metadata"]["kernelspec"]["name"]
        code = [c for c in nb["cells"] if c["cell_type"] == "code"]
        assert any("parameters" in c.get("metadata", {}).get("tags", []) for c in code)
        assert all(not c.get("outputs") and not c.get("execution_count") for c in code)
        text = "".join("".join(c["source"]) for c in nb["cells"])
        labels = re.findall(r"#\| label: (\S+)", text)
        assert len(labels) == len(set(labels)) and all(re.match(r"^(fig|tbl)-[a-z0-9-]+$", x) for x in labels)
        for cell in code:
            src = "".join(cell["source"])
            if "#| label: fig-" in src:
                assert "#| fig-cap:" in src
            if "#| label: tbl-" in src:
                assert "#| tbl-cap:" in src
        for ref in re.findall(r"@((?:fig|tbl)-[a-z0-9-]+)", text):
            assert ref in labels, f"{page}: cross-reference @{ref} has no label"
        # the report names no artifact of its own: it walks the catalog (csv reads for the appendix excepted)
        assert "catalog.SECTIONS" in text
        assert not re.findall(r'parts\.(?:markdown|figure)\("', text)
        for name in re.findall(r'parts\.csv\("([a-z0-9_]+)"\)', text):
            assert name in catalog.CATALOG, f"report reads {name}, which is not in the artifact catalog"


def test_every_catalogued_artifact_is_published_by_its_notebook_and_only_those():
    """One entry per table and figure: its stage notebook publishes it by name, through the catalog."""
    published = {}
    for nb in sorted((ROOT / "notebooks").glob("0*.ipynb")):
        code = "".join("".join(c["source"]) for c in json.loads(nb.read_text())["cells"] if c["cell_type"] == "code")
        assert "save_table(" not in code and "save_figure(" not in code and ".caption(" not in code, nb.name
        for name in re.findall(r'catalog\.publish_(?:table|figure)\(an, "([a-z0-9_]+)"', code):
            published[name] = nb.stem
    assert published == {name: a.stage for name, a in catalog.CATALOG.items()}
    captions = [a.caption for a in catalog.CATALOG.values()]
    assert len(set(captions)) == len(captions)


def test_paper_tables_are_the_published_ones():
    for name in ("paper_table1_frontier_cop_single_model.csv", "paper_table2_technique_gain_pct.csv"):
        shared = ROOT.parent / "shared" / "paper_tables" / name
        if shared.is_file():
            assert (REPORT / "paper_tables" / name).read_text() == shared.read_text()
