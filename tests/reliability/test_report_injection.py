"""A stranger's parameter set cannot run script in its report: every text field a payload, opened in Chromium."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
import yaml

from conftest import ROOT, chromium

pytestmark = pytest.mark.slow  # runs a hostile set through the pipeline

PAYLOADS = {  # each would set the page's title (or leave an element behind) if it ran
    "label_a": '<script>document.title="PWNED-script"</script>',
    "label_b": '<img src=x onerror="document.title=\'PWNED-img\'">',
    "family_a": '[click](javascript:document.title="PWNED-link")',
    "family_b": '<b onmouseover="document.title=\'PWNED-attr\'" id="pwned-attr">hover</b>',
    "description": '<svg onload="document.title=\'PWNED-svg\'"></svg> | a | table [x]{onclick=alert(1)}',
}
# drawn in every figure as typed: mathtext would eat the dollars, or fail to parse
DOLLARS = " costs $1 to $2, $\\frac{$"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile")
    registry = yaml.safe_load((ROOT / "params/registry/models.yaml").read_text())["models"]
    models = {"sim-lightweight": {**registry["sim-lightweight"], "label": PAYLOADS["label_a"] + DOLLARS,
                                  "family": PAYLOADS["family_a"]},
              "sim-reasoning": {**registry["sim-reasoning"], "label": PAYLOADS["label_b"],
                                "family": PAYLOADS["family_b"]}}
    (tmp / "models.yaml").write_text(yaml.safe_dump({"models": models}))
    params = {"name": "hostile", "description": PAYLOADS["description"], "tasks": ["two_digit_addition"],
              "models": list(models), "models_file": str(tmp / "models.yaml"), "methods": ["vanilla"], "n_problems": 8,
              "n_runs": 4, "price_snapshot": "sim_tiny_2025-04", "budget_usd": 5.0, "concurrency": 1,
              "output_dir": str(tmp / "results"), "task_options": {"two_digit_addition": {"source": "generated"}},
              "validity": {"repetitions": 2, "replicates": 10, "effect_repetitions": 2, "generator_repetitions": 2,
                           "policy_repetitions": 2, "halving_series": 50}}
    path = tmp / "hostile.yaml"
    path.write_text(yaml.safe_dump(params))
    out = subprocess.run([sys.executable, "-m", "helpers.cli.runner", "run", str(path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=1200)
    assert out.returncode == 0, out.stderr[-3000:]
    return tmp / "results"


TAG = re.compile(r"<(script|img|svg|b)\b[^>]*(onerror|onload|onmouseover|document\.title|pwned)", re.I)


def test_no_payload_reaches_the_html_as_markup(hostile):
    html = (hostile / "report/index.html").read_text()
    assert not TAG.search(html) and 'href="javascript:' not in html  # as text (&lt;…&gt;), never as tags or links
    assert "&lt;script&gt;document.title=" in html
    for name in ("tables", "figures"):
        for f in (hostile / name).glob("*.md"):
            assert not TAG.search(f.read_text()), f.name


@pytest.mark.browser
def test_no_payload_runs_in_chromium_and_the_text_shows_as_typed(hostile, tmp_path):
    browser = chromium()
    if browser is None:
        pytest.skip("chromium not installed (make test installs it where apt-get is usable)")
    out = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=5000", "--dump-dom",
         (hostile / "report/index.html").as_uri()], capture_output=True, text=True, timeout=180)
    dom = out.stdout
    assert "<title>" in dom and "PWNED" not in re.search(r"<title>(.*?)</title>", dom, re.S).group(1)
    assert not TAG.search(dom) and 'href="javascript:' not in dom
    text = re.sub(r"<[^>]+>", "", dom)  # what a reader sees: the payloads as typed (entities in the DOM's text)
    assert "&lt;script&gt;document.title=\"PWNED-script\"&lt;/script&gt;" in text or \
        "&lt;script&gt;document.title=&quot;PWNED-script&quot;&lt;/script&gt;" in text
    assert "[click](javascript:document.title=" in text.replace("&quot;", '"')
    assert DOLLARS in text  # the dollars as typed in the page too (no math rendering of a name)
