"""Quarto cannot run here: check the project statically (YAML parses; named files, kernel and labels exist)."""

import json
import re

import yaml

from conftest import ROOT

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
        # every table and figure the report shows is one the notebooks write
        written = "".join((ROOT / "notebooks" / f).read_text() for f in sorted((ROOT / "notebooks").glob("0*.ipynb")))
        for name in re.findall(r'parts\.(?:markdown|figure|csv)\("([a-z0-9_]+)"\)', text):
            assert f'\\"{name}\\"' in written, f"report shows {name}, which no notebook writes"


def test_paper_tables_are_the_published_ones():
    for name in ("paper_table1_frontier_cop_single_model.csv", "paper_table2_technique_gain_pct.csv"):
        shared = ROOT.parent / "shared" / "paper_tables" / name
        if shared.is_file():
            assert (REPORT / "paper_tables" / name).read_text() == shared.read_text()
