"""Quarto cannot run here: check the project statically (YAML parses, named files and kernel exist)."""

import re

import yaml
from conftest import ROOT

REPORT = ROOT / "report"


def test_quarto_project_is_consistent():
    project = yaml.safe_load((REPORT / "_quarto.yml").read_text())
    pages = project["project"]["render"]
    assert pages and all((REPORT / p).is_file() for p in pages)
    for page in pages:
        text = (REPORT / page).read_text()
        front = yaml.safe_load(text.split("---")[1])
        assert front["jupyter"] == "cost-of-pass"  # the kernel `make setup` registers
        assert "#| tags: [parameters]" in text
        labels = re.findall(r"#\| label: (\S+)", text)
        assert len(labels) == len(set(labels)) and all(re.match(r"^(fig|tbl)-[a-z0-9-]+$", lab) for lab in labels)
        for ref in re.findall(r"@((?:fig|tbl)-[a-z0-9-]+)", text):
            assert ref in labels, f"{page}: cross-reference @{ref} has no label"
