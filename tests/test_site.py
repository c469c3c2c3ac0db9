"""The site of a results directory (issue 27 item 1): every set with a report, rebuilt from disk, and a set's
name that another parameter file already uses is refused unless --overwrite is given."""

import pytest
import yaml

from conftest import STUB_PRICES, stub_models, stub_set_params
from helpers.cli import runner
from helpers.core.context import prepare
from helpers.core.params import load_params
from helpers.publish.appearance import FAMILY_COLORS
from helpers.publish.index_page import CARD, claim, read_card, set_entries, write_index


@pytest.fixture
def stub_set(tmp_path, monkeypatch):
    """Write a stub parameter set named ``name`` as ``file`` under tmp_path; its results go to
    tmp_path/results/<name>."""
    monkeypatch.setenv("STUB_API_KEY", "unused")
    (tmp_path / "models.yaml").write_text(yaml.safe_dump({"models": stub_models("http://127.0.0.1:9/v1")}))
    (tmp_path / "prices.yaml").write_text(yaml.safe_dump(STUB_PRICES))

    def _write(file: str, name: str, **over):
        p = stub_set_params(name=name, models_file=str(tmp_path / "models.yaml"),
                            price_snapshot=str(tmp_path / "prices.yaml"),
                            output_dir=str(tmp_path / "results" / name), **over)
        path = tmp_path / file
        path.write_text(yaml.safe_dump(p, sort_keys=False))
        return path

    return _write


def _rendered(out_dir):
    (out_dir / "report").mkdir(parents=True, exist_ok=True)
    (out_dir / "report" / "index.html").write_text("<html></html>")


def test_the_index_lists_every_set_on_disk_whatever_ran_last(stub_set, tmp_path):
    for file, name in (("a.yaml", "first"), ("b.yaml", "second")):
        path = stub_set(file, name, description=f"set <{name}>")
        claim(prepare(load_params(path)), path)
        _rendered(tmp_path / "results" / name)
    (tmp_path / "results" / "norender").mkdir()  # a card-less, report-less folder is not a set on the site
    page = write_index(tmp_path / "results").read_text()
    assert [e.name for e in set_entries(tmp_path / "results")] == ["first", "second"]
    assert 'href="first/report/index.html"' in page and 'href="second/report/index.html"' in page
    assert "set &lt;first&gt;" in page and "<first>" not in page  # the description is escaped
    assert "real (models called here)" in page and "Stub A, Stub B" in page


def test_a_name_another_parameter_file_uses_is_refused_unless_overwrite(stub_set, tmp_path, capsys):
    original = stub_set("original.yaml", "shared")
    claim(prepare(load_params(original)), original)
    card = read_card(tmp_path / "results" / "shared" / CARD)
    fork = stub_set("fork.yaml", "shared", n_runs=3)
    code = runner.main(["run", str(fork)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert "'shared' is already the name of" in err[0] and "--overwrite" in err[0]
    assert read_card(tmp_path / "results" / "shared" / CARD) == card  # nothing taken over
    assert runner.main(["run", str(fork), "--dry-run"]) == 2  # a dry run refuses it too, with the same line
    assert capsys.readouterr().err.strip().splitlines() == err
    # the same file with other parameters, or another file with the same parameters, is the same set
    claim(prepare(load_params(stub_set("original.yaml", "shared", n_runs=3))), original)
    claim(prepare(load_params(stub_set("copy.yaml", "shared", n_runs=3))), tmp_path / "copy.yaml")
    claim(prepare(load_params(fork)), fork, overwrite=True)
    assert read_card(tmp_path / "results" / "shared" / CARD)["params"].endswith("fork.yaml")


def test_a_malformed_card_is_skipped_with_a_warning_and_the_index_is_built_under_a_lock(stub_set, tmp_path, caplog):
    """Issue 34 item 6: one broken sibling does not break every set's last step, and two runs finishing together
    neither see half a page nor overwrite each other's temporary file."""
    import threading

    path = stub_set("a.yaml", "good")
    claim(prepare(load_params(path)), path)
    _rendered(tmp_path / "results" / "good")
    for name, text in {"notjson": "{", "list": "[1, 2]", "models": '{"name": "x", "models": 5}',
                       "names": '{"name": {"a": 1}}', "bytes": b"\xff\xfe"}.items():
        (tmp_path / "results" / name).mkdir()
        _rendered(tmp_path / "results" / name)
        card = tmp_path / "results" / name / CARD
        card.write_bytes(text if isinstance(text, bytes) else text.encode())
    with caplog.at_level("WARNING"):
        pages = []
        threads = [threading.Thread(target=lambda: pages.append(write_index(tmp_path / "results").read_text()))
                   for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert [e.name for e in set_entries(tmp_path / "results")] == ["good"]
    assert len(pages) == 6 and all('href="good/report/index.html"' in p
                                   and p.rstrip().endswith("</html>") for p in pages)
    assert sum("not a set card" in r.message for r in caplog.records) >= 5
    assert not list((tmp_path / "results").glob(".index.*.tmp"))  # every temporary file was renamed or removed


# --- A page to navigate and a site to host (issue 38 items 2 and 6) ---------------------------------------------------

def test_glossary_terms_are_linked_once_from_their_first_use_in_running_text():
    from helpers.publish.navigation import GLOSSARY_ID, finish_page, glossary, link_terms, term_id

    assert len(glossary()) >= 12 and all(spellings and text for spellings, text in glossary())
    page = ('<html><head></head><body><h2 id="x">The frontier</h2>'
            "<p>See <a href='#y'>the frontier</a>.</p>"
            "<summary>frontier</summary><p>The Frontier of plug-in and the frontier again; cost-of-pass.</p>"
            "<pre>plug-in</pre><code>model-based</code>"
            f'<h2 id="{GLOSSARY_ID}">Glossary</h2><p>model-based</p></body></html>')
    out = link_terms(page)
    assert (out.count(f'href="#{term_id("frontier")}"') == 1 and '<a class="cop-term" '
            'href="#term-frontier">Frontier</a>' in out)
    assert out.count("#term-plug-in") == 1 and "<pre>plug-in</pre>" in out  # the first use in running text
    assert "#term-cost-of-pass" in out and "#term-frontier-cost" not in out  # "cost-of-pass" is its own term
    assert "#term-model-based" not in out  # only in code and in the glossary itself
    done = finish_page(page, "../../index.html")
    assert 'href="../../index.html"' in done and 'id="cop-contents"' in done and "max-width: 100ch" in done
    assert '<a href="#x">The frontier</a>' in done  # the contents from the page's own headings
    # review 11, L2: a term the page never uses is not defined on it (LDB, Table-1 sample on a set without them)
    entries = "".join(f'<p><span id="{term_id(t)}"></span><strong>{t}</strong>: what it is.</p>\n'
                      for t in ("frontier", "LDB", "plug-in"))
    done = finish_page(page.replace("<p>model-based</p>", entries), None)
    assert f'<span id="{term_id("frontier")}">' in done and f'<span id="{term_id("plug-in")}">' in done
    assert f'<span id="{term_id("LDB")}">' not in done and "<strong>LDB</strong>" not in done


def test_the_data_dictionary_describes_columns_and_names_what_it_does_not(tmp_path):
    import pandas as pd

    from helpers.publish.dictionary import columns, describe, undescribed

    assert "table1_frontier_cop" in columns() and describe("table1_frontier_cop", "gsm8k")  # a dataset's column
    assert describe("table1_frontier_cop", "model") and describe("table1_frontier_cop", "no such column") is None
    pd.DataFrame({"model": ["a"], "mystery": [1]}).to_csv(tmp_path / "table1_frontier_cop.csv", index=False)
    assert undescribed(tmp_path) == ["table1_frontier_cop.csv: mystery"]


def _site_results(tmp_path, page_text: str):
    """A results folder with one set whose report is ``page_text``, its card, a CSV, a figure and a record."""
    out = tmp_path / "results" / "one"
    for sub in ("report", "tables", "figures", "records/t"):
        (out / sub).mkdir(parents=True)
    (out / "report" / "index.html").write_text(page_text)
    (out / "tables" / "table1_frontier_cop.csv").write_text("model,gsm8k\na,1\n")
    (out / "tables" / "index.html").write_text('<p id="table1_frontier_cop"><a href="table1_frontier_cop.csv">csv</a>'
                                               '<a href="../report/index.html">report</a></p>')
    (out / "figures" / "f.png").write_bytes(b"\x89PNG")
    (out / "records" / "t" / "m.jsonl").write_text('{"secret": 1}\n')
    (out / CARD).write_text('{"name": "one", "kind": "simulated", "models": ["a"], "description": "d"}')
    return tmp_path / "results"


def test_publish_writes_a_static_site_of_pages_csvs_and_figures_only_with_working_links(tmp_path):
    from helpers.publish.site import broken_links, publish

    good = ('<html><body><a href="../../index.html">all</a> <a href="../tables/table1_frontier_cop.csv">csv</a> '
            '<a href="../tables/index.html#table1_frontier_cop">columns</a><h2 '
            'id="a">A</h2><a href="#a">a</a></body></html>')
    index = publish(_site_results(tmp_path, good), tmp_path / "site")
    files = sorted(p.relative_to(tmp_path / "site").as_posix() for p in (tmp_path / "site").rglob("*") if p.is_file())
    assert files == ["index.html", "one/figures/f.png", "one/report/index.html", "one/tables/index.html",
                     "one/tables/table1_frontier_cop.csv"]  # no records, no card
    assert 'href="one/report/index.html"' in index.read_text() and broken_links(tmp_path / "site") == []
    (tmp_path / "site" / "one" / "report"
     / "index.html").write_text('<a href="../tables/gone.csv">x</a><a href="#nope">y</a>')
    assert len(broken_links(tmp_path / "site")) == 2


@pytest.mark.parametrize("bad, why",
                         [('<img src="/etc/passwd">', "absolute link"), ('<a href="file:///x">x</a>', "absolute link"),
                                      ("<p>sk-abcdefghijklmnop</p>", "secret"),
                                      ("<p>{root}/results</p>", "path of this machine")])
def test_publish_refuses_a_page_that_would_leak_before_writing_anything(tmp_path, bad, why):
    from helpers.core.errors import CostOfPassError
    from helpers.core.paths import repo_root
    from helpers.publish.site import publish

    results = _site_results(tmp_path, f"<html><body>{bad.format(root=repo_root())}</body></html>")
    with pytest.raises(CostOfPassError, match=why):
        publish(results, tmp_path / "site")
    assert not (tmp_path / "site").exists()
    with pytest.raises(CostOfPassError, match="overlaps the results"):
        publish(results, results / "site")


def test_the_explorer_escapes_hostile_text_and_withholds_gpqa():
    """Issue 38 item 4: a problem id or a model-written answer is hostile text; GPQA answers are never shown."""
    import pandas as pd

    from helpers.publish import explorer

    evil = "<script>alert(1)</script>"
    rows = pd.DataFrame({"task": ["gsm8k"], "problem_id": [evil], "cheapest_usd": [0.5], "picked": ["expert"],
                         "expert_usd": [0.5], "suspect": [True],
                         "cells": [{"m": (0.0, 4, 0.01, float("inf")), "m+self_refine": (0.5, 4, 0.02, 0.04),
                                    "m+majority_vote_k3": (0.25, 4, 0.03, 0.12)}]})
    page = explorer.index_html(rows, "set<b>", {"gsm8k": "GSM8K"}, {"m": "Model <i>"})
    assert evil not in page and "&lt;script&gt;" in page and 'href="p/0.html"' in page
    assert "expert charged" in page and "suspect" in page and "0% of 4 · $0.01/try · ∞" in page
    assert "Model &lt;i&gt; + self-refine" in page and "set&lt;b&gt;" in page
    assert "25% from the runs · $0.03/try · $0.12" in page  # a vote's count is of subsets: not shown as runs
    attempts = pd.DataFrame({"model": ["m"], "method": ["vanilla"], "run": [0], "correct": [False], "usd": [0.01],
                             "prompt_tokens": [10], "completion_tokens": [5], "extracted": [evil + "x" * 5000]})
    one = explorer.problem_html("GSM8K", evil, attempts, {"m": "Model"})
    assert evil not in one and "(cut)" in one and "fail" in one
    # a way back besides the list
    assert 'href="../../report/index.html"' in one and 'href="../../../index.html"' in one
    hidden = explorer.problem_html("GPQA Diamond", "q1", attempts, {"m": "Model"}, explorer.WITHHELD["gpqa_diamond"])
    assert "xxxxx" not in hidden and "withheld" in hidden
    billed = attempts.assign(prompt_tokens=[0], completion_tokens=[0], billed_usd=[0.4], extracted=[""])
    swe = explorer.problem_html("SWE-bench Verified", "p", billed, {"m": "Model"})
    assert "not recorded (USD as billed)" in swe and "0 in" not in swe and "<pre>–</pre>" in swe


def test_interactive_charts_replace_their_placeholders_with_escaped_specs_and_one_library(tmp_path, monkeypatch):
    """Issue 38 item 5: the cost–accuracy figure and Figure 2 as Vega-Lite charts, offline; a label cannot end the
    script; a placeholder without its CSV is dropped; the library is added once."""
    import pandas as pd

    from helpers.publish import interactive

    monkeypatch.setattr(interactive, "bundle", lambda: "window.vegaEmbed = () => 0; // </script> inside")
    evil = "</script><script>alert(1)</script>"
    pd.DataFrame({"statistic": ["accuracy", "cost_usd"], "strategy": ["m", "m"], "task": ["gsm8k", "gsm8k"],
                  "value": [0.5, 0.01], "low": [0.4, 0.009],
                  "high": [0.6, 0.011]}).to_csv(tmp_path / "cost_accuracy.csv", index=False)
    page = ("<html><head></head><body>" + interactive.placeholder("cost_accuracy")
            + interactive.placeholder("figure2_frontier_over_time") + "</body></html>")
    out = interactive.add_charts(page, tmp_path, {"gsm8k": "GSM8K"}, {"m": evil})
    assert out.count('class="cop-chart"') == 1 and 'id="cop-chart-cost_accuracy"' in out  # Figure 2's CSV is absent
    assert evil not in out and "\\u003c/script>\\u003cscript>alert(1)" in out and out.count("window.vegaEmbed = ") == 1
    assert "<\\/script> inside" in out and interactive.placeholder("routing_frontier") == ""
    spec = interactive.frontier_spec(pd.DataFrame({"task": ["gsm8k", "gsm8k"], "date": [None, "2024-05-01"],
                                                   "released": ["(expert only)", "m"], "frontier_usd": [1.0, 0.1],
                                                   "normalized_pct": [100.0, 10.0]}), {"gsm8k": "GSM8K"}, {"m": "M"},
                                     {"m": "large"})
    values = next(iter(spec["datasets"].values()))
    assert values == [{"dataset": "GSM8K", "date": "2024-05-01", "released": "M", "family": "large",
                       "frontier (USD per problem)": 0.1, "% of the expert alone": 10.0}]
    colour = spec["spec"]["layer"][1]["encoding"]["color"]  # each release's point in its family's colour, as the figure
    assert colour["scale"] == {"domain": ["large"], "range": [FAMILY_COLORS["large"]]}
    # the data's range, not rounded out to a decade (local's 60-100% sat in 10-100)
    y = spec["spec"]["layer"][0]["encoding"]["y"]["scale"]
    assert y["nice"] is False and y["domain"] == pytest.approx([10.0 / 1.2, 10.0 * 1.2])


def test_the_vega_bundle_is_made_once_and_a_copy_others_could_rewrite_is_not_read(tmp_path, monkeypatch):
    """The 0.9-MB library every report embeds is made by vl-convert once per release and read back after; a cached
    copy that another user could have rewritten (group- or world-writable), or a link planted in its place, is made
    again, never embedded."""
    import vl_convert

    from helpers.publish import interactive

    made = []
    monkeypatch.setenv("COP_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(vl_convert, "javascript_bundle", lambda snippet: made.append(1) or "window.vegaEmbed = 1;")
    for _ in range(2):
        interactive.bundle.cache_clear()
        assert interactive.bundle() == "window.vegaEmbed = 1;"
    path = interactive.bundle_path()
    assert len(made) == 1 and path.is_relative_to(tmp_path / "vega") and "vl-convert-1." in path.name
    path.write_text("alert('planted')")
    path.chmod(0o666)
    interactive.bundle.cache_clear()
    assert interactive.bundle() == "window.vegaEmbed = 1;" and len(made) == 2 and path.stat().st_mode & 0o022 == 0
    # one of this user's own files, private: a link planted in the cache must not publish it
    secret = tmp_path / "id_rsa"
    secret.write_text("PRIVATE KEY")
    secret.chmod(0o600)
    path.unlink()
    path.symlink_to(secret)
    interactive.bundle.cache_clear()
    assert interactive.bundle() == "window.vegaEmbed = 1;" and len(made) == 3 and not path.is_symlink()
    assert secret.read_text() == "PRIVATE KEY"
    interactive.bundle.cache_clear()


def test_ls_lists_sets_datasets_models_methods_and_prices_and_version_prints_one_line():
    """Issue 39 item 6: cost-of-pass ls and --version."""
    import subprocess
    import sys

    from conftest import ROOT
    from helpers import __version__
    from helpers.cli.listing import listing

    text = listing()
    for heading in ("parameter sets", "datasets (tasks:)", "models (models:", "methods (methods:)", "price snapshots"):
        assert heading in text
    assert ("params/sim.yaml" in text and "majority_vote_kN" in text and "gsm8k" in text
            and "paper_table4_2025-04" in text)
    out = subprocess.run([sys.executable, "-m", "helpers.cli.runner", "--version"], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.stdout.strip() == f"cost-of-pass {__version__}"


def test_dollar_signs_in_text_never_start_math():
    """Between two dollar signs Jupyter's Markdown typesets LaTeX: "$3.92 … $3.48" showed "&#39;" raw."""
    from helpers.publish.safe import md

    assert md("costs $3.92; the simulator's truth is $3.48") == "costs \\$3.92; the simulator&#39;s truth is \\$3.48"


def test_the_interactive_cost_accuracy_chart_colours_by_family_and_shapes_by_method():
    """Issue 38: the chart coloured 40 strategies with a palette of 10 (colours reused) and cut its legend ("…11
    entries"); Vega's log ticks put 0.2 on 0.3 and its date ticks repeated a month. Now: the static figure's encoding
    (family colour, method shape, a distinct shape per method), every legend entry, ticks that do not collide."""
    import pandas as pd

    from helpers.publish import interactive

    rows = [(s, t, stat, v) for t in ("a", "b")
            for s, acc, usd in (("m1", 0.5, 0.001), ("m1+majority_vote_k3", 0.6, 0.003),
                                                                  ("m1+majority_vote_k4", 0.62, 0.004),
                                                                  ("m2+self_refine", 0.9, 0.2))
            for stat, v in (("accuracy", acc), ("cost_usd", usd))]
    data = pd.DataFrame(rows, columns=["strategy", "task", "statistic", "value"]).assign(low=lambda d: d.value * 0.9,
                                                                                         high=lambda d: d.value * 1.1)
    from helpers.publish.figures.tradeoffs import cost_accuracy_data

    data = cost_accuracy_data(data, {"a": 5.0, "b": 0.1})  # the human expert's rows, as 06_techniques publishes them
    spec = interactive.cost_accuracy_spec(data, {"a": "A", "b": "B"}, {"m1": "One", "m2": "Two"},
                                          {"m1": "lightweight", "m2": "reasoning"})
    line, points, star = spec["spec"]["layer"]  # the Pareto frontier under the points, the expert's star, as the static
    assert line["mark"]["type"] == "line" and line["mark"]["strokeDash"] and "Pareto" in line["transform"][0]["filter"]
    assert star["mark"]["color"] == "black" and "expert" in star["transform"][0]["filter"]
    rows = next(iter(spec["datasets"].values()))
    assert [(r["dataset"], r["USD per attempt"], r["Pareto"]) for r in rows if r["expert"]] == [
        ("A", 5.0, True), ("B", 0.1, False)]  # the expert ends a frontier only where it is dearer than every strategy
    assert sum(r["Pareto"] for r in rows) == 9  # and every strategy of this made-up set is on its dataset's frontier
    enc = points["encoding"]
    assert enc["color"]["field"] == "family" and enc["color"]["scale"]["domain"] == ["lightweight", "reasoning"]
    assert enc["color"]["legend"]["symbolLimit"] == 0 and enc["shape"]["legend"]["symbolLimit"] == 0
    shapes = dict(zip(enc["shape"]["scale"]["domain"], enc["shape"]["scale"]["range"], strict=True))
    assert len(set(shapes.values())) == 4  # k=3 and k=4 share a marker in the static figure; here each has its own
    assert enc["shape"]["scale"]["domain"] == ["single attempt", "majority vote of 3", "majority vote of 4",
                                               "self-refine"]  # the expert is a star of its own, not a method
    assert interactive.log_ticks(pd.Series([0.03, 0.09, 0.2, 0.3, 1.2])) == [0.03, 0.1, 0.3, 1.0]
    assert interactive.log_ticks(pd.Series([1e-5, 0.5])) == [1e-5, 1e-4, 1e-3, 1e-2, 0.1]
    assert interactive.log_ticks(pd.Series([25.0, 95.0])) == [20.0, 50.0, 100.0]
    assert interactive.log_ticks(pd.Series([60.0, 100.0])) == [40.0, 50.0, 60.0, 80.0, 100.0, 150.0]  # not two ticks
    dates = pd.DataFrame({"task": ["a"] * 2, "date": ["2023-11-06", "2023-12-11"], "released": ["m1", "m2"],
                          "frontier_usd": [1.0, 0.5], "normalized_pct": [10.0, 5.0]})
    axis = interactive.frontier_spec(dates, {"a": "A"}, {})["spec"]["layer"][0]["encoding"]["x"]["axis"]
    assert axis["tickCount"] == {"interval": "month", "step": 1}  # whole months: no month named twice
    one = interactive.frontier_spec(dates, {"a": "A"}, {})["spec"]
    two = interactive.frontier_spec(pd.concat([dates, dates.assign(task="b")]), {"a": "A", "b": "B"}, {})["spec"]
    assert (one["width"], two["width"]) == (560, 260)  # a lone panel is wide; three a row where there are several
    assert interactive._months(dates.assign(date=["2023-06-13", "2024-04-09"]))["step"] == 3  # four labels that fit
    # Vega's 10-11 px read small
    for config in (spec["config"], interactive.frontier_spec(dates, {"a": "A"}, {})["config"]):
        assert config["axis"]["labelFontSize"] >= 12 and config["legend"]["labelFontSize"] >= 12
        assert config["header"]["labelFontSize"] >= 13


def test_a_term_in_another_sense_is_not_linked_to_its_glossary_entry():
    """Review 9, L3: "shown in Table 1 alone" (a model displayed) linked to "shown", a gain tested with the others."""
    from helpers.publish.navigation import link_terms

    page = "<body><p>a model shown in Table 1 alone; a gain shown with the others</p></body>"
    linked = link_terms(page)
    assert "shown in Table 1 alone" in linked and '<a class="cop-term" href="#term-shown">shown</a> with' in linked
