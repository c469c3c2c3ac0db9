"""Quarto cannot run here: check the project statically (YAML parses; named files, kernel and labels exist)."""

import json
import re

import pytest
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
        catalogued = [a.label for a in catalog.CATALOG.values()]  # ReportParts.block gives each artifact its label
        for ref in re.findall(r"@(s?(?:fig|tbl)-[a-z0-9-]+)", text + catalog_text()):
            assert ref in labels + catalogued, f"{page}: cross-reference @{ref} has no label"
        assert "prepare(" not in text and "load_analysis(" not in text  # artifacts only: no data reload
        # the report names no artifact of its own: it walks the catalog (csv reads for the appendix excepted)
        assert "parts.outline(run)" in text
        assert not re.findall(r'parts\.(?:markdown|figure)\("', text)
        for name in re.findall(r'parts\.csv\("([a-z0-9_]+)"\)', text):
            assert name in catalog.CATALOG, f"report reads {name}, which is not in the artifact catalog"


def test_quarto_cache_is_keyed_on_the_results(tmp_path):
    """`cost-of-pass quarto` passes the digest of the results the report reads: new results, a new cache key."""
    from helpers.core.params import params_from_mapping
    from helpers.publish.report import inputs_digest, quarto_command

    params = params_from_mapping({"name": "q", "tasks": ["gsm8k"], "models": ["gpt-4o"], "n_problems": 1, "n_runs": 1,
                                  "price_snapshot": "paper_table4_2025-04", "budget_usd": 1,
                                  "output_dir": str(tmp_path)})
    params.tables_path.mkdir(parents=True)
    (params.tables_path / "table6_cost.csv").write_text("model,gsm8k\na,1\n")
    before = quarto_command("params/q.yaml", params)
    assert before[:5] == ["quarto", "render", "report", "--execute", "--cache"]
    assert before[5:] == ["-P", "params_file:params/q.yaml", "-P", f"inputs_digest:{inputs_digest(params)}"]
    (params.tables_path / "table6_cost.csv").write_text("model,gsm8k\na,2\n")
    assert quarto_command("params/q.yaml", params)[-1] != before[-1]
    nb = json.loads((REPORT / "index.ipynb").read_text())
    parameters = next(c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", []))
    assert 'inputs_digest = ""' in "".join(parameters["source"])
    project = yaml.safe_load((REPORT / "_quarto.yml").read_text())
    assert project["execute"]["cache"] is False  # a plain `quarto render` never serves a stale report


def catalog_text() -> str:
    """Every caption, section note and the methods text the report shows."""
    from helpers.publish import text

    return " ".join([*(a.caption for a in catalog.CATALOG.values()), *text.section_notes().values(), text.methods()])


NUMBERED = re.compile(r"^\W*(figure|fig\.|table|tbl\.)s?\s*\d", re.IGNORECASE)


def test_captions_leave_numbering_to_quarto():
    """Quarto numbers labelled figures and tables itself: a caption of its own 'Figure 2.' would read 'Figure 1: Figure
    2.'"""
    for a in catalog.CATALOG.values():
        assert not NUMBERED.match(a.caption), f"{a.name}: caption starts with its own number: {a.caption[:30]}"
        assert re.fullmatch(r"s?(fig|tbl)-[a-z0-9-]+", a.label)  # Quarto's prefixes or the custom kinds; no underscores
    labels = [a.label for a in catalog.CATALOG.values()]
    assert len(labels) == len(set(labels))
    assert (NUMBERED.match("Figure 2. Frontier") and NUMBERED.match("**Table 1**: x")
            and not NUMBERED.match("The paper's Table 1"))


def test_the_papers_artifacts_come_first_in_its_order_so_quarto_numbers_them_as_the_paper_does():
    """Quarto numbers fig-/tbl- floats in order of appearance: the paper's own artifacts (and its Tables 3 and 4, from
    the run's context) must appear in the paper's order with nothing else of those kinds between them."""
    from helpers.publish.report import CONTEXT_TABLES

    order = [a for a in catalog.CATALOG.values() if a.paper]
    appendix_start = next(i for i, a in enumerate(order) if a.name == "table5_accuracy")
    order[appendix_start:appendix_start] = [CONTEXT_TABLES["expert"], CONTEXT_TABLES["prices"]]  # the appendix's first
    for kind, prefix in (("figure", "Figure"), ("table", "Table")):
        numbers = [int(a.paper.split()[1]) for a in order if a.float_kind == kind]
        assert numbers == list(range(1, len(numbers) + 1)), (kind, numbers)
        assert all(a.paper.startswith(prefix) for a in order if a.float_kind == kind)
    project = yaml.safe_load((REPORT / "_quarto.yml").read_text())
    kinds = {c["key"]: c["reference-prefix"] for c in project["crossref"]["custom"]}
    assert kinds == {"stbl": "Table S", "sfig": "Figure S"}
    assert {a.label.split("-")[0] for a in catalog.CATALOG.values() if not a.paper} <= set(kinds)


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


def test_no_notebook_writes_its_own_prose():
    """Issue 62: the words a reader sees are made in ``helpers`` (``publish``, ``core.notebooks.found``), never typed
    in a notebook: no code cell hands ``Markdown`` a string literal with words in it."""
    from helpers.core.notebooks import NO_TRUTH, found

    for nb in sorted((ROOT / "notebooks").glob("0*.ipynb")):
        code = "".join("".join(c["source"]) for c in json.loads(nb.read_text())["cells"] if c["cell_type"] == "code")
        assert not re.findall(r'Markdown\(\s*f?"[^"{]*[A-Za-z]{3,}', code), nb.name
    assert found("  ") == "" and found(NO_TRUTH) == f"**What it found.** {NO_TRUTH}"
    assert found("\n\n1. one\n2. two") == "**What it found.**\n\n1. one\n2. two"  # a list keeps its own lines


def test_paper_tables_are_the_published_ones():
    for name in ("paper_table1_frontier_cop_single_model.csv", "paper_table2_technique_gain_pct.csv"):
        shared = ROOT.parent / "shared" / "paper_tables" / name
        if shared.is_file():
            assert (REPORT / "paper_tables" / name).read_text() == shared.read_text()


def test_report_blocks_label_for_quarto_and_number_offline(tmp_path):
    from types import SimpleNamespace

    from helpers.publish.report import ReportParts

    params = SimpleNamespace(name="t", figures_path=tmp_path / "figures", tables_path=tmp_path / "tables")
    params.figures_path.mkdir()
    params.tables_path.mkdir()
    fig, tbl, sup = (catalog.entry("figure3_family_counterfactual"), catalog.entry("table6_cost"),
                     catalog.entry("table1_expert_only"))
    (params.figures_path / f"{fig.name}.png").write_bytes(b"\x89PNG fake")
    (params.figures_path / f"{fig.name}.caption.md").write_text("Families [with intervals].\n")
    for t in (tbl, sup):
        (params.tables_path / f"{t.name}.md").write_text("| a |\n|---|\n| 1 |\n")
        (params.tables_path / f"{t.name}.caption.md").write_text(f"Caption of {t.name}.\n")
    quarto = ReportParts(params, "quarto")
    block = quarto.block(fig)
    assert block.startswith("::: {#fig-figure3-family-counterfactual}\n\n![](data:image/png;base64,")
    assert block.endswith("Families [with intervals].\n\n:::")
    assert quarto.block(tbl) == "::: {#tbl-table6-cost}\n\n| a |\n|---|\n| 1 |\n\nCaption of table6_cost.\n\n:::"
    assert quarto.block(sup).startswith("::: {#stbl-table1-expert-only}")
    offline = ReportParts(params, "offline")
    assert offline.block(fig).endswith("**Figure 3.** Families [with intervals].")  # the paper's number
    assert 'style="max-width: 100%"' in offline.block(fig)  # a file that is no PNG: its width unknown
    import struct  # a lone panel's 960 px PNG is shown at 70%: its text reads at a grid's size, not twice it

    (params.figures_path / f"{fig.name}.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
                                                          + struct.pack(">II", 960, 720))
    assert 'style="width: min(100%, 672px)"' in offline.block(fig)
    (params.figures_path / f"{fig.name}.caption.md").write_text("The paper&#39;s families.\n")  # as captions are saved
    assert 'alt="The paper&#x27;s families."' in ReportParts(params, "offline").block(fig)  # not &amp;#39;
    assert offline.block(sup).startswith("**Table S1.** Caption of table1_expert_only.")
    assert offline.block(tbl).startswith("**Table 6.** Caption of table6_cost.")
    assert offline.placeholder(catalog.entry("table2_technique_gain"), "No rows.").startswith("**Table 2.** ")
    title = catalog.entry("table2_technique_gain").title()  # its placeholder opened a parenthesis: "(; the paper"
    assert "M_L (the paper: its lightweight and large models)" in title and "(;" not in title and "()" not in title
    with pytest.raises(Exception, match="renderer"):
        ReportParts(params, "html")


def test_a_long_table_is_folded_with_its_caption_in_view():
    from helpers.publish.report import COLLAPSE_ROWS, folded

    short = "| a |\n|---|\n" + "| 1 |\n" * COLLAPSE_ROWS
    assert folded(short) == short
    long = short + "| 2 |\n"
    assert folded(long).startswith(f"<details><summary>Show the table ({COLLAPSE_ROWS + 1} rows)</summary>")


def test_cross_references_name_what_each_renderer_numbers(tmp_path):
    from types import SimpleNamespace

    from helpers.publish.report import ReportParts

    params = SimpleNamespace(name="t", figures_path=tmp_path, tables_path=tmp_path)
    (tmp_path / "headline_truth.md").write_text("| a |\n|---|\n| 1 |\n")
    (tmp_path / "headline_truth.caption.md").write_text("Truth.\n")
    assert ReportParts(params, "quarto").ref("headline_truth") == "@stbl-headline-truth"
    offline = ReportParts(params, "offline")
    offline.block(catalog.entry("headline_truth"))
    assert offline.ref("headline_truth") == "Table S1"


def test_the_report_prose_lives_in_report_text_and_fills_its_numbers():
    from helpers.analyze.bootstrap import DEFAULT_REPLICATES
    from helpers.publish import catalog, text

    methods = text.methods()
    assert f"{DEFAULT_REPLICATES:,} replicates" in methods and "{" not in methods and "<!--" not in methods
    notes = text.section_notes()
    sections = {title for part in catalog.PARTS.values() for title in part}
    assert notes and set(notes) <= sections, f"notes for sections the report does not have: {set(notes) - sections}"
    assert all(n.strip() for n in notes.values())
    assert set(text.captions()) == set(catalog.CATALOG), "a caption without its artifact, or an artifact without one"


def test_the_quarto_website_has_a_page_per_set_and_the_index_as_its_home(tmp_path):
    """Issue 38 item 6: `cost-of-pass quarto-site` writes a Quarto website project (checked statically: no Quarto)."""
    from helpers.publish.quarto_site import OUTPUT_DIR, SITE_DIR, write_site

    root = write_site(["params/local.yaml", "params/sim.yaml"], tmp_path / "site")
    project = yaml.safe_load((root / "_quarto.yml").read_text())
    assert project["project"]["type"] == "website" and project["project"]["output-dir"] == OUTPUT_DIR
    pages = project["project"]["render"]
    assert pages == ["index.qmd", "local.ipynb", "sim.ipynb"] and all((root / p).is_file() for p in pages)
    assert [i["href"] for i in project["website"]["navbar"]["left"]] == pages and project["execute"]["enabled"] is True
    home = (root / "index.qmd").read_text()
    assert "[local](local.ipynb)" in home and "[sim](sim.ipynb)" in home
    template = json.loads((REPORT / "index.ipynb").read_text())
    for name in ("local", "sim"):
        nb = json.loads((root / f"{name}.ipynb").read_text())
        assert len(nb["cells"]) == len(template["cells"]) and nb["metadata"] == template["metadata"]
        cell = next(c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", []))
        text = "".join(cell["source"])
        assert f'params_file = "params/{name}.yaml"' in text and f'page_dir = "{SITE_DIR}/{OUTPUT_DIR}"' in text
        front = yaml.safe_load("".join(nb["cells"][0]["source"]).strip().strip("-"))
        assert front["title"] == f"Cost-of-Pass report: {name}" and front["jupyter"] == "cost-of-pass"


def test_a_note_on_a_method_the_set_lacks_is_not_shown():
    """Issue 38 item 3: the local set (no self-refine) carried the self-refine note."""
    from helpers.publish.text import section_notes

    local = section_notes(["vanilla", "majority_vote_k3"])["Inference-time techniques"]
    assert "Majority vote" in local and "Self-refine" not in local and "[when" not in local
    assert "Inference-time techniques" not in section_notes(["vanilla"])
    assert "Self-refine" in section_notes()["Inference-time techniques"]  # every paragraph without a set
