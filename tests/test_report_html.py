"""The offline HTML report: made by the whole pipeline on a small simulated set, opened in headless Chromium."""

import json
import os
import re
import subprocess
import sys

import pytest
import yaml

from conftest import ROOT, chromium
from helpers.cli import runner
from helpers.core.params import load_params

FIGURES = ["routing_frontier", "figure2_frontier_over_time", "figure4_relative_gain_per_release", "price_change",
           "figure3_family_counterfactual", "figure5_model_counterfactual", "validity_generators_heatmap", "cost_accuracy"]
TABLES = ["as the paper's Table 1", "(the paper's Table 2)", "as the paper's Table 5", "as the paper's Table 6",
          "Human expert alone"]
CATCH = """<script>
window.copErrors = [];
window.addEventListener('error', e => window.copErrors.push(String(e.message || e)));
const copConsoleError = console.error;
console.error = (...a) => { window.copErrors.push(a.join(' ')); copConsoleError(...a); };
</script>"""
CHECK = """<script>
function copBlank(img) {  // the figure as drawn at the report's width: blank when its pixels barely vary
  const c = document.createElement('canvas');
  c.width = img.width; c.height = img.height;
  const ctx = c.getContext('2d');
  ctx.drawImage(img, 0, 0, c.width, c.height);
  const d = ctx.getImageData(0, 0, c.width, c.height).data;
  let lo = 255, hi = 0;
  for (let k = 0; k < d.length; k += 4 * 13) { lo = Math.min(lo, d[k]); hi = Math.max(hi, d[k]); }
  return hi - lo < 40;
}
window.addEventListener('load', () => {
  const imgs = [...document.images];
  const out = {images: imgs.length, loaded: imgs.filter(i => i.complete && i.naturalWidth > 0).length,
               tables: document.querySelectorAll('table').length, text: document.body.innerText.length,
               blank: imgs.filter(copBlank).length, errors: window.copErrors,
               widest: Math.max(0, ...imgs.map(i => i.getBoundingClientRect().right)), page: window.innerWidth};
  const pre = document.createElement('pre'); pre.id = 'cop-check'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("report")
    models = yaml.safe_load((ROOT / "params/registry/sim_paper.yaml").read_text())["models"]
    params = {
        "name": "htmlcheck", "tasks": ["two_digit_addition"], "models": list(models),
        "models_file": "params/registry/sim_paper.yaml", "methods": ["vanilla", "self_refine", "majority_vote_k3"],
        "n_problems": 12, "n_runs": 4, "price_snapshot": "sim_paper_table4_2025-04", "budget_usd": 10.0,
        "concurrency": 1, "output_dir": str(tmp / "results"),
        "task_options": {"two_digit_addition": {"source": "generated"}},
        "validity": {"repetitions": 4, "replicates": 20, "effect_repetitions": 3,  # the study's machinery, small
                     "generator_repetitions": 2},
    }
    path = tmp / "htmlcheck.yaml"
    path.write_text(yaml.safe_dump(params))
    out = subprocess.run([sys.executable, "-m", "helpers.cli.runner", "run", str(path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=1200)
    assert out.returncode == 0, out.stderr[-3000:]
    return load_params(path)


def test_every_table_and_figure_is_written_and_labelled_simulated(report):
    for name in FIGURES:
        assert (report.figures_path / f"{name}.png").stat().st_size > 1000
        assert (report.figures_path / f"{name}.svg").is_file()
    from helpers.publish.catalog import CATALOG

    for name, artifact in CATALOG.items():  # every catalogued artifact, its caption beside it
        if artifact.imported_only or artifact.agent_only:  # this set's records are simulated, not imported
            assert not (report.tables_path / f"{name}.csv").exists(), name
            continue
        folder = report.figures_path if artifact.kind == "figure" else report.tables_path
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


def test_html_is_self_contained_and_complete(report):
    html = (report.output_path / "report/index.html").read_text()
    assert len(re.findall(r'<img[^>]+src="data:image/png;base64,', html)) == len(FIGURES)
    assert not re.search(r'(src|href)="https?://', html)
    for caption in TABLES:
        assert caption.replace("'", "&#x27;") in html or caption in html
    # nbconvert does not number: the offline path numbers figures and tables in order, as Quarto would
    assert "<strong>Figure 1.</strong>" in html and f"<strong>Figure {len(FIGURES)}.</strong>" in html
    assert "<strong>Table 1.</strong>" in html and not re.search(r"Figure \d+[.:] Figure", html)
    assert html.count("<h1") == 1  # one title
    assert "SIMULATED" in html and "Appendix: comparison with the paper" in html
    assert html.count("About this run") == 1 and html.count("Two Digit Addition (12 problems)") == 1  # provenance once
    assert "Set 'htmlcheck'" not in html  # captions say what their artifact shows, not the set again
    text = re.sub(r'data:image/png;base64,[A-Za-z0-9+/=]+', "", html)  # (base64 can spell anything)
    assert "deserted-untie-orchid" not in text and "canary" not in text.lower()


def test_report_opens_in_headless_chromium(report, tmp_path):
    browser = chromium()
    if browser is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing in CI: `make test` installs Debian's chromium")
        pytest.skip("chromium not installed (make test installs it where apt-get is usable)")
    page = tmp_path / "page.html"
    html = (report.output_path / "report/index.html").read_text()
    page.write_text(html.replace("<head>", "<head>" + CATCH, 1).replace("</body>", CHECK + "</body>"))
    out = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1400,1000", "--virtual-time-budget=15000",
         "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=180)
    found = re.search(r'<pre id="cop-check">(.*?)</pre>', out.stdout)
    assert found, out.stderr[-2000:]
    check = json.loads(found.group(1).replace("&quot;", '"'))
    assert check["images"] == len(FIGURES) and check["loaded"] == len(FIGURES)
    assert check["tables"] >= 10 and check["text"] > 2000
    assert check["blank"] == 0 and check["errors"] == []  # every figure draws something; no script error
    assert check["widest"] <= check["page"]  # figures fit the report's width


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
