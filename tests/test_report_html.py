"""The offline HTML report: made by the whole pipeline on a small simulated set, opened in headless Chromium."""

import json
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT
from helpers.cli import runner
from helpers.publish import browser, names

pytestmark = pytest.mark.slow  # runs a set through the pipeline and opens its report in Chromium

FIGURES = ["headline_costs", "routing_frontier", "figure2_frontier_over_time", "figure4_relative_gain_per_release",
           "figure3_family_counterfactual", "figure5_model_counterfactual",
           "validity_generators_heatmap", "cost_accuracy",
           "expert_fee_curve", "release_policy", "counterfactual_policy"]
NOTES = ["price_change"]  # one sentence instead of a figure of empty price bars: no price of this set before its start
NO_EARLIER_PRICE = ("how much of that came from new models and how much from prices is not identifiable here: the "
                    "price ledger holds")
TABLES = ["as the paper's Table 1", "(the paper's Table 2)", "as the paper's Table 5", "as the paper's Table 6",
          "Human expert alone"]
@pytest.fixture(scope="module")
def report(small_sim_set):
    """The session's small simulated set (``conftest.small_sim_set``), with its report."""
    return small_sim_set


def test_every_table_and_figure_is_written_and_labelled_simulated(report):
    for name in FIGURES:
        assert (report.figures_path / f"{name}.png").stat().st_size > 1000
        assert (report.figures_path / f"{name}.svg").is_file()
    from helpers.publish.catalog import CATALOG

    for name, artifact in CATALOG.items():  # every catalogued artifact, its caption beside it
        if artifact.imported_only or artifact.agent_only or artifact.replay_only:  # simulated, uniform: not these
            assert not (report.tables_path / f"{name}.csv").exists(), name
            continue
        folder = report.figures_path if artifact.kind == "figure" else report.tables_path
        if name in NOTES:
            assert NO_EARLIER_PRICE in (folder / f"{name}.note.md").read_text()
            assert not (folder / f"{name}.png").exists() and (report.tables_path / f"{name}.csv").is_file()
            continue
        caption = (folder / f"{name}.caption.md").read_text()
        assert caption.startswith(artifact.caption.split(" ")[0]) and "SIMULATED" in caption, name
        assert (report.tables_path / f"{name}.csv").is_file()  # a figure's numbers too
    for name in ("table1_frontier_cop", "table2_technique_gain", "table5_accuracy", "table6_cost"):
        assert (report.tables_path / f"{name}.csv").is_file()


def test_tables_name_datasets_and_mark_a_top_three_only_among_more_than_three(report):
    table1 = (report.tables_path / "table1_frontier_cop.md").read_text()
    assert "Two Digit Addition" in table1.splitlines()[0] and "two_digit_addition" not in table1  # labels, not ids
    assert table1.count("¹") == 1 and "**" in table1  # ten models: a top three per column
    assert "two_digit_addition" in (report.tables_path / "table1_frontier_cop.csv").read_text()  # the CSV keeps ids
    assert "¹" in (report.tables_path / "table5_accuracy.md").read_text()


def test_the_holdout_table_reads_one_estimand_in_sample_and_held_out(report):
    """Issue 35, item 4: the models chosen on some runs, read on those runs and on the others, under one estimand at
    one k; the held-out value is the headline's frontier, with its interval."""
    import numpy as np
    import pandas as pd

    t = pd.read_csv(report.tables_path / "holdout_frontier.csv")
    assert len(t) and np.allclose(t.optimism_usd, t.in_sample_usd - t.held_out_usd)
    assert ((t.held_out_low <= t.held_out_usd) & (t.held_out_usd <= t.held_out_high)).all()
    policy = pd.read_csv(report.tables_path / "policy_cost.csv")
    front = policy[policy["model"] == "frontier of all models"].set_index("task")
    assert np.allclose(front.loc[t.task, "policy_usd"], t.held_out_usd) and (front.loc[t.task, "k"] == t.k.values).all()
    header = (report.tables_path / "holdout_frontier.md").read_text().splitlines()[0]
    assert "held-out" in header and "bootstrap" not in header


def test_html_is_self_contained_and_complete(report):
    html = (report.output_path / "report/index.html").read_text()
    assert len(re.findall(r'<img[^>]+src="data:image/png;base64,', html)) == len(FIGURES) + 1  # + the first screen's
    assert not re.search(r'(src|href)="https?://', html)
    for caption in TABLES:
        assert caption.replace("'", "&#x27;") in html or caption in html
    # nbconvert does not number: the offline path gives the paper's artifacts the paper's numbers, the rest S numbers
    for number in ("Figure 1", "Figure 2", "Figure 3", "Figure 4", "Figure 5", "Figure S1", "Table 1", "Table 2",
                   "Table 3", "Table 4", "Table 5", "Table 6", "Table S1"):
        assert f"<strong>{number}.</strong>" in html, number
    at = [html.index(f"<strong>{n}.</strong>") for n in ("Figure 1", "Table 1", "Figure 2", "Figure 3", "Table 2",
                                                           "Table 3", "Table 4", "Table 5",
                                                           "Table 6", "Figure 4", "Figure 5")]
    assert at == sorted(at)  # the paper's order: its main text, then (after what it lacks) its appendix
    assert not re.search(r"Figure \d+[.:] Figure", html)
    assert html.count("<h1") == 1  # one title
    assert "SIMULATED" in html and "Comparison with the paper" in html
    assert NO_EARLIER_PRICE in html
    assert "<summary>Settings and provenance of this run</summary>" in html and "In short." in html
    assert html.count("About this run") == 1 and html.count("Two Digit Addition (12 problems)") == 1  # provenance once
    assert "Set 'htmlcheck'" not in html  # captions say what their artifact shows, not the set again
    text = re.sub(r'data:image/png;base64,[A-Za-z0-9+/=]+', "", html)  # (base64 can spell anything)
    assert "deserted-untie-orchid" not in text and "canary" not in text.lower()


def test_the_page_navigates_and_links_its_data(report):
    """Issue 38 item 2: contents, a way back to the site, a readable measure, the glossary linked from first uses, and
    under every table and figure its CSV and its columns in the set's data dictionary, which describes every column."""
    from helpers.publish.dictionary import undescribed
    from helpers.publish.site import broken_links

    html = (report.output_path / "report/index.html").read_text()
    assert 'id="cop-contents"' in html and 'href="../../index.html"' in html and 'id="Glossary"' in html
    assert len(re.findall(r'class="cop-term"', html)) >= 8
    shown = re.findall(r'href="../tables/([a-z0-9_]+)\.csv"', html)
    assert len(shown) >= len(FIGURES) + 10 and all((report.tables_path / f"{n}.csv").is_file() for n in shown)
    assert undescribed(report.tables_path) == []
    assert (report.output_path / "explorer/index.html").is_file() and 'href="../explorer/index.html"' in html
    assert html.count('class="cop-chart"') == 2 and "window.vegaEmbed=" in html  # cost-accuracy and Figure 2, offline
    assert len(list((report.output_path / "explorer/p").glob("*.html"))) == report.n_problems  # one page per problem
    assert broken_links(report.output_path.parent) == []  # the report, its data page and the index link to what exists


def test_the_site_publishes_to_a_folder_that_opens_offline(report, tmp_path):
    """Issue 38 item 6: `cost-of-pass publish DIR` copies pages, CSVs and figures (no records) with working links."""
    out = subprocess.run([sys.executable, "-m", "helpers.cli.runner", "publish", str(tmp_path / "site"), "--results",
                          str(report.output_path.parent)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    site = tmp_path / "site"
    folder = site / report.output_path.name  # the set's folder keeps its name in the site
    assert (site / "index.html").is_file() and (folder / "tables/index.html").is_file()
    assert ((folder / "explorer/index.html").is_file()
            and len(list((folder / "explorer/p").glob("*.html"))) == report.n_problems)
    assert (not list(site.rglob("*.jsonl"))
            and {p.suffix for p in site.rglob("*") if p.is_file()} <= {".html", ".csv", ".png", ".svg"})
    if browser.chromium() is not None:
        measured = browser.inspect(folder / "report/index.html", tmp_path / "w")
        assert browser.problems(measured, names.internal(report.tasks)) == []


def _browser_or_skip():
    if browser.chromium() is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing in CI: `make test` installs Debian's chromium")
        pytest.skip("chromium not installed (make test installs it where apt-get is usable)")


@pytest.mark.browser
def test_report_opens_in_headless_chromium(report, tmp_path):
    """Issue 27 item 7: no console error, every figure loads and draws and fits, no internal name in the text, no
    value outside its own interval, no overlapping label or empty panel in any figure; screenshots of every figure
    are saved under the set's results (``screenshots/``)."""
    _browser_or_skip()
    page = report.output_path / "report/index.html"
    measured = browser.inspect(page, tmp_path)
    # + the first screen's figure and len(measured["text"]) > 2000
    assert measured["images"] == len(FIGURES) + 1 and measured["tables"] >= 10
    assert browser.problems(measured, names.internal(report.tasks)) == []
    shots = browser.screenshots(measured, report.output_path / "screenshots", tmp_path)
    assert len(shots) == len(FIGURES) + 1 and all(p.stat().st_size > 2000 for p in shots)
    for name in FIGURES:  # what matplotlib knows of each figure: overlapping labels, empty panels, width
        assert json.loads((report.figures_path / f"{name}.layout.json").read_text())["problems"] == [], name


@pytest.mark.browser
def test_the_checks_catch_what_they_are_for(tmp_path):
    """The browser check fails on each defect it names: a script error, an internal name, a value outside its
    interval, a number in e-notation (and passes the same page without them)."""
    _browser_or_skip()
    good = ("<html><head></head><body><p>Two Digit Addition: 0.5 [0.4, 0.7]; 1,234 [1,200, 1,300]; 0.0000455; "
            "SmolLM2-135M; 4.4 × 10⁻⁸; code commit 0696089584e9</p></body></html>")  # a hex commit is no number
    bad = ("<html><head></head><body><p>two_digit_addition: 0.9 [0.4, 0.7]; 4.55e-05</p>"
           "<script>null.boom()</script></body></html>")
    for html, expected in ((good, 0), (bad, 4)):
        page = tmp_path / f"{expected}.html"
        page.write_text(html)
        found = browser.problems(browser.inspect(page, tmp_path / f"w{expected}"),
                                 names.internal(["two_digit_addition"]))
        assert len(found) == expected, found


@pytest.mark.browser
@pytest.mark.parametrize("set_name", ["local", "sim", "humaneval_agents", "routellm_gsm8k", "swebench_bash_only"])
def test_the_reports_on_disk_pass_the_browser_check(set_name, tmp_path):
    """After the README's commands (test_readme.py runs before this file: `make all`, `make humaneval`, `make swebench`,
    the RouteLLM set), their reports are checked too (and their explorers' list and first row), and their figures'
    screenshots saved under results/<set>/screenshots/ (skipped where that set has no report yet)."""
    out = ROOT / "results" / set_name
    if not (out / "report" / "index.html").is_file():
        pytest.skip(f"no report of {set_name} yet (make all)")
    _browser_or_skip()
    context = json.loads((out / "tables" / "run_context.json").read_text())
    found = browser.check_report(out / "report" / "index.html", names.internal(context["tasks"]), out / "screenshots",
                                 tmp_path)
    assert found == []
    for page in (out / "explorer" / "index.html", out / "explorer" / "p" / "0.html"):  # its explorer: the list, a row
        measured = browser.inspect(page, tmp_path / page.stem)
        assert browser.problems(measured, names.internal(context["tasks"])) == [], page
    from helpers.publish.dictionary import undescribed

    assert undescribed(out / "tables") == []  # every column of its CSVs is in the data dictionary
    from helpers.publish.levels import negative_levels

    assert negative_levels(out / "tables") == []  # no cost, price or accuracy below 0
    for layout in sorted((out / "figures").glob("*.layout.json")):
        assert json.loads(layout.read_text())["problems"] == [], layout.name


def test_the_readme_reprice_moved_only_the_cost_whose_price_changed():
    """After the README's reprice of the RouteLLM set (test_readme.py runs it before this file): accuracy unchanged,
    only Mixtral's cost moved (its price differs on 2025-07-01), records read in place."""
    from conftest import repriced_only_costs

    before, after = ROOT / "results/routellm_gsm8k", ROOT / "results/routellm_gsm8k_as_of_2025-07-01"
    if not (after / "report" / "index.html").is_file():
        pytest.skip("the README's reprice of routellm_gsm8k has not run (the RouteLLM data is not here)")
    repriced_only_costs(before, after, "Mixtral-8x7B-Instruct (tokens estimated)")


def test_executed_notebooks_tell_the_story(report):
    """Issue 27 item 5: each executed notebook opens with what it computes and an equation, shows its figures inline,
    ends with what it found, and holds no stray output (a bare value, a progress bar, a warning on stderr)."""
    from helpers.publish.catalog import CATALOG

    for name in runner.NOTEBOOKS:
        nb = json.loads((report.output_path / "notebooks" / f"{name}.ipynb").read_text())
        cells = nb["cells"]
        assert cells[0]["cell_type"] == "markdown" and "$$" in "".join(cells[0]["source"]), name
        outputs = [o for c in cells if c["cell_type"] == "code" for o in c["outputs"]]
        assert not [o for o in outputs if o.get("name") == "stderr"], name
        plain = ["".join(o.get("data", {}).get("text/plain", "")) for o in outputs
                 if o["output_type"] == "execute_result"]
        assert not [t for t in plain if t.startswith(("PosixPath", "<Figure"))], name
        images = sum("image/png" in o.get("data", {}) for o in outputs)
        assert images == sum(a.stage == name and a.kind == "figure"
                             and (report.figures_path / f"{a.name}.png").is_file()
                             for a in CATALOG.values()), name
        last = "".join("".join(o.get("data", {}).get("text/markdown", "")) for o in cells[-1]["outputs"])
        assert last.startswith("**What it found.**"), (name, last[:80])


def outputs(params) -> dict[str, bytes]:
    """Every table, figure and the HTML report of a run, by path."""
    paths = [*params.tables_path.glob("*"), *params.figures_path.glob("*"), params.output_path / "report/index.html"]
    return {str(p.relative_to(params.output_path)): p.read_bytes() for p in sorted(paths)}


def test_same_records_give_byte_identical_outputs(report):
    """A rerun with nothing changed skips every stage, one line each; forced, it writes the same CSV, MD, PNG,
    SVG and HTML bytes over the same records."""
    first = outputs(report)
    assert any(k.endswith(".svg") for k in first) and any(k.endswith(".csv") for k in first)
    rerun = subprocess.run([sys.executable, "-m", "helpers.cli.runner", "run", report.source], cwd=ROOT,
                           capture_output=True, text=True, timeout=1200)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    skipped = [line.split()[1] for line in rerun.stdout.splitlines() if line.startswith("skip")]
    assert skipped == [*runner.NOTEBOOKS, "report"], rerun.stdout
    out = subprocess.run([sys.executable, "-m", "helpers.cli.runner", "run", report.source, "--force"], cwd=ROOT,
                         capture_output=True, text=True, timeout=1200)
    assert out.returncode == 0, out.stderr[-3000:]
    assert sum(line.startswith("ok") for line in out.stdout.splitlines()) == len(runner.NOTEBOOKS) + 1, out.stdout
    second = outputs(report)
    assert second.keys() == first.keys()
    assert [k for k in first if first[k] != second[k]] == []


def test_the_screenshot_page_draws_each_figure_alone_at_its_size_and_escapes_its_source():
    """The figures are drawn for their screenshots one under the other, each at its measured left edge and size (the
    crop boxes do not overlap), and a source cannot end its attribute."""
    figures = [{"id": "a", "x": 40.5, "y": 9000, "w": 600, "h": 300.4, "src": 'data:image/png;base64,AAA" onload="x'},
               {"id": "b", "x": 0, "y": 20000, "w": 1200, "h": 500, "src": "data:image/png;base64,BBB"}]
    page, boxes, height = browser.figures_page(figures)
    top = 300 + 1 + browser.GAP
    assert boxes == [(40, 0, 640, 300), (0, top, 1200, top + 500)] and height == top + 500 + 1 + browser.GAP
    assert '" onload="' not in page and "&quot; onload=&quot;x" in page and page.count("<img ") == 2


def test_the_browser_check_names_a_missing_page_in_one_line(tmp_path, capsys):
    assert browser.main([str(tmp_path / "nowhere" / "index.html")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no such page" in err[0]
