"""The site of a results directory (issue 27 item 1): every set with a report, rebuilt from disk, and a set's
name that another parameter file already uses is refused unless --overwrite is given."""

import pytest
import yaml
from conftest import STUB_PRICES, stub_models, stub_set_params

from helpers.cli import runner
from helpers.core.context import prepare
from helpers.core.params import load_params
from helpers.publish.index_page import CARD, claim, read_card, set_entries, write_index


@pytest.fixture
def stub_set(tmp_path, monkeypatch):
    """Write a stub parameter set named ``name`` as ``file`` under tmp_path; its results go to tmp_path/results/<name>."""
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
    assert len(pages) == 6 and all('href="good/report/index.html"' in p and p.rstrip().endswith("</html>") for p in pages)
    assert sum("not a set card" in r.message for r in caplog.records) >= 5
    assert not list((tmp_path / "results").glob(".index.*.tmp"))  # every temporary file was renamed or removed
