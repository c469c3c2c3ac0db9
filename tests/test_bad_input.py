"""Bad input gets one line on stderr and exit code 2, with no traceback and no request to the provider."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT
from fault_server import FaultServer
from helpers.cli import runner

KEY_ENV = "BAD_INPUT_KEY"
PRICES = {"date": "2025-01-01", "source": "test prices",
          "prices": {"stub": {"input_usd_per_mtok": 1.0, "output_usd_per_mtok": 2.0}}}


def priced(model: str, usd: float) -> str:
    return yaml.safe_dump({**PRICES, "prices": {model: {"input_usd_per_mtok": usd, "output_usd_per_mtok": 1}}})


def models(url: str) -> dict:
    return {"stub": {"label": "Stub", "litellm_id": "openai/stub", "family": "lightweight",
                     "release_date": "2024-01-01",
                     "api_base": url, "api_key_env": KEY_ENV, "typical_completion_tokens": 20}}


def base(tmp: Path) -> dict:
    return {"name": "bad", "tasks": ["two_digit_addition"], "models": ["stub"], "methods": ["vanilla"],
            "n_problems": 3, "n_runs": 1, "price_snapshot": str(tmp / "prices.yaml"), "budget_usd": 1.0,
            "models_file": str(tmp / "models.yaml"), "output_dir": str(tmp / "out"), "data_dir": str(tmp / "data"),
            "task_options": {"two_digit_addition": {"source": "generated"}}}


def set_(**over):
    return lambda p, tmp: {**p, **over}


def drop(field):
    return lambda p, tmp: {k: v for k, v in p.items() if k != field}


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    (path.write_bytes if isinstance(text, bytes) else path.write_text)(text)
    return path


def raw_params(text: str | bytes):
    """Replace the parameter file itself."""
    return lambda p, tmp: ("raw", text)


def prices_file(text: str):
    return lambda p, tmp: (write(tmp / "prices.yaml", text), p)[1]


def models_file(text: str):
    return lambda p, tmp: (write(tmp / "models.yaml", text), p)[1]


def gsm8k_data(text: str | bytes):
    def f(p, tmp):
        write(tmp / "data" / "gsm8k" / "test.jsonl", text)
        return {**p, "tasks": ["gsm8k"], "task_options": {}}
    return f


def gpqa_zip(kind: str):
    def f(p, tmp):
        path = tmp / "data" / "gpqa_diamond" / "gpqa_diamond.zip"
        path.parent.mkdir(parents=True, exist_ok=True)
        if kind == "corrupt":
            path.write_bytes(b"PK\x03\x04 this is not a zip at all" * 10)
        else:  # encrypted with another password (Info-ZIP's zip; Python's zipfile cannot encrypt)
            if shutil.which("zip") is None:
                pytest.skip("Info-ZIP zip is not installed")
            csv = tmp / "gpqa_diamond.csv"
            csv.write_text("Question,Correct Answer\nq,a\n")
            subprocess.run(["zip", "-q", "-j", "-P", "not-the-password", str(path), str(csv)], check=True)
        return {**p, "tasks": ["gpqa_diamond"], "task_options": {}}
    return f


def corrupt_records(p, tmp):
    shard = tmp / "out" / "records" / "two_digit_addition" / "stub.jsonl"
    good = json.dumps({"task": "two_digit_addition", "problem_id": "1+2", "model": "stub", "method": "vanilla",
                       "run": 0, "call": 0, "litellm_model": "x/stub", "prompt_hash": "h", "status": "ok",
                       "fingerprint": "x", "prompt_tokens": 1, "completion_tokens": 1})
    write(shard, f"{good}\n{{not json at all\n{good}\n")
    return p


def shadowed_output(p, tmp):
    write(tmp / "a-file", "I am a file")
    return {**p, "output_dir": str(tmp / "a-file" / "out")}


CASES = {
    "params not UTF-8": (raw_params(b"name: bad\ndescription: caf\xe9\n"), "not UTF-8"),
    "params malformed YAML": (raw_params("name: [bad\n"), "is not valid YAML"),
    "params duplicated key": (raw_params("name: bad\nn_runs: 1\nn_runs: 2\n"), "appears twice"),
    "params a list": (raw_params("- name\n- bad\n"), "must be a YAML mapping"),
    "params empty": (raw_params(""), "must be a YAML mapping"),
    "field mistyped": (lambda p, tmp: {**{k: v for k, v in p.items() if k != "n_runs"}, "n_run": 1},
                       "did you mean 'n_runs'"),
    "nested field mistyped": (set_(sampling={"temprature": 0.5}), "did you mean 'temperature'"),
    "n_runs zero": (set_(n_runs=0), "field 'n_runs'"),
    "n_runs not a number": (set_(n_runs="many"), "field 'n_runs'"),
    "required field missing": (drop("price_snapshot"), "field 'price_snapshot': required field is missing"),
    "temperature out of range": (set_(sampling={"temperature": 5}), "field 'sampling.temperature'"),
    "unknown method": (set_(methods=["vanilla", "tree_search"]), "unknown method"),
    "method mistyped": (set_(methods=["vanila"]), "unknown method 'vanila' (did you mean 'vanilla'?)"),
    "no tasks": (set_(tasks=[]), "field 'tasks'"),
    "task mistyped": (set_(tasks=["two_digit_adition"]), "did you mean 'two_digit_addition'"),
    "model mistyped": (set_(models=["stubb"]), "did you mean 'stub'"),
    "fidelity option unknown": (set_(fidelity={"expert_cost": "guessed"}), "field 'fidelity.expert_cost'"),
    "sampler unknown": (set_(sampler="random"), "field 'sampler'"),
    "price snapshot missing": (set_(price_snapshot="paper_table4_2024-01"), "did you mean 'paper_table4_2025-04'"),
    "price snapshot malformed YAML": (prices_file("prices: {stub: [\n"), "is not valid YAML"),
    "price snapshot a list": (prices_file("- 1\n- 2\n"), "must be a YAML mapping"),
    "price snapshot duplicated key": (prices_file("date: 2025-01-01\ndate: "
                                                  "2025-02-01\nsource: x\nprices: {}\n"), "appears twice"),
    "price zero": (prices_file(priced("stub", 0)), "greater than 0"),
    "price of the model missing": (prices_file(priced("stubby", 1)), "no price for model(s) stub"),
    "model registry malformed YAML": (models_file("models: {stub: [\n"), "is not valid YAML"),
    "model registry duplicated key": (models_file("models:\n  stub: {}\n  stub: {}\n"), "appears twice"),
    "model registry entry a string": (models_file("models:\n  stub: fast\n"), "an entry must be a mapping"),
    "model registry bad date": (models_file("models:\n  stub: {label: S, litellm_id: openai/stub, "
                                            "family: x, release_date: soon}\n"),
                                "release_date"),
    "model registry missing": (set_(models_file="nowhere/models.yaml"), "model registry not found"),
    "task_options of the wrong type": (set_(task_options={"two_digit_addition": 5}),
                                       "field 'task_options.two_digit_addition'"),
    "task_options value of the wrong type": (set_(task_options={"two_digit_addition": {"source": "generated",
                                                                                       "n": "x"}}),
                                             "cannot read"),
    "task_options unknown source": (set_(task_options={"two_digit_addition": {"source": "web"}}),
                                    "task_options.source"),
    "data missing": (set_(tasks=["gsm8k"], task_options={}), "no data at"),
    "data row missing a field": (gsm8k_data('{"question": "1+1?"}\n'), "cannot read"),
    "data line not JSON": (gsm8k_data('{"question": "1+1?", "answer": "#### 2"}\n{oops\n'), "line 2 is not JSON"),
    "GPQA wrong password": (gpqa_zip("password"), "cannot open"),
    "GPQA corrupt zip": (gpqa_zip("corrupt"), "not a readable zip"),
    "output_dir shadowed by a file": (shadowed_output, "field 'output_dir': cannot write"),
    "output_dir unwritable": (set_(output_dir="/proc/cost-of-pass-out"), "field 'output_dir': cannot write"),
    "records file corrupt mid-file": (corrupt_records, "stub.jsonl line 2: corrupt record"),
    "budget too small": (set_(budget_usd=1e-9), "over budget"),
    "key missing": ("nokey", f"missing API key(s) in the environment: {KEY_ENV}"),
}


@pytest.fixture(scope="module")
def server():
    with FaultServer(faults=False) as srv:
        yield srv


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_is_one_line_exit_2_before_any_request(case, server, tmp_path, capsys, monkeypatch):
    change, expected = CASES[case]
    monkeypatch.setenv(KEY_ENV, "a-secret-value-0123456789")
    write(tmp_path / "prices.yaml", yaml.safe_dump(PRICES))
    write(tmp_path / "models.yaml", yaml.safe_dump({"models": models(server.base_url)}))
    params = base(tmp_path)
    if change == "nokey":
        monkeypatch.delenv(KEY_ENV)
    else:
        params = change(params, tmp_path)
    path = tmp_path / "set.yaml"
    if isinstance(params, tuple):
        write(path, params[1])
    else:
        write(path, yaml.safe_dump(params, sort_keys=False))
    before = server.state.requests
    code = runner.main(["run", str(path)])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    assert expected in lines[0], lines[0]
    assert server.state.requests == before


def test_one_line_from_the_command_line_too(tmp_path):
    """The same through a real process: exit 2, one line, nothing else on stderr."""
    path = write(tmp_path / "set.yaml", "name: bad\nn_runs: 1\nn_runs: 2\n")
    out = subprocess.run([sys.executable, "-m", "helpers.cli.runner", "run", str(path)], capture_output=True,
                         text=True, cwd=ROOT, env={**os.environ, "COP_DATA_DIR": str(tmp_path)}, timeout=300)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [f"error: {path}: line 3 is not valid YAML (key 'n_runs' appears twice "
                                               "(lines 2 and 3))"]


@pytest.mark.parametrize("case", ["budget too small", "output_dir shadowed by a file"])
def test_a_dry_run_refuses_what_the_run_refuses_and_makes_no_folder(case, tmp_path, capsys, monkeypatch):
    """Issue 62 item 4: ``run --dry-run`` prints the bill, then exits 2 with the run's own line where the run would
    refuse; it makes no output folder (a dry run of a set that does not run leaves nothing behind)."""
    change, expected = CASES[case]
    monkeypatch.setenv(KEY_ENV, "a-secret-value-0123456789")
    write(tmp_path / "prices.yaml", yaml.safe_dump(PRICES))
    write(tmp_path / "models.yaml", yaml.safe_dump({"models": models("http://127.0.0.1:9/v1")}))
    path = write(tmp_path / "set.yaml", yaml.safe_dump(change(base(tmp_path), tmp_path), sort_keys=False))
    code = runner.main(["run", str(path), "--dry-run"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("error: ") and expected in err[0], err
    assert not (tmp_path / "out").exists()
    fine = write(tmp_path / "fine.yaml", yaml.safe_dump(base(tmp_path), sort_keys=False))
    monkeypatch.delenv(KEY_ENV)  # a dry run is how to see the bill without the keys
    assert runner.main(["run", str(fine), "--dry-run"]) == 0 and not (tmp_path / "out").exists()


@pytest.mark.parametrize("entry,expected", [
    ({"hourly_rate_usd": [-10, 20]}, "field 'hourly_rate_usd': must be [low, high] with 0 < low <= high (USD)"),
    ({"hourly_rate_usd": [0, 0], "published_usd": None}, "field 'hourly_rate_usd': must be [low, high]"),
    ({"published_usd": [-0.02, -0.01]}, "field 'published_usd': must be [low, high]"),
    (None, "field 'tasks': no human-expert cost for two_digit_addition; add an entry to"),
])
def test_an_expert_who_costs_nothing_or_less_or_is_missing_stops_the_run_before_anything(entry, expected, tmp_path,
                                                                                          capsys, monkeypatch):
    """Issue 62 item 4: the expert's fee is what every cost-of-pass falls back to; a negative or zero one (or none)
    is one line naming the file to edit, from a run and from its dry run, before any stage or call."""
    from helpers.core import experts

    registry = yaml.safe_load(experts.default_path().read_text())
    if entry is None:
        del registry["experts"]["two_digit_addition"]
    else:
        registry["experts"]["two_digit_addition"].update(entry)
    mine = write(tmp_path / "expert_costs.yaml", yaml.safe_dump(registry))
    monkeypatch.setattr(experts, "default_path", lambda: mine)
    monkeypatch.setenv(KEY_ENV, "a-secret-value-0123456789")
    write(tmp_path / "prices.yaml", yaml.safe_dump(PRICES))
    write(tmp_path / "models.yaml", yaml.safe_dump({"models": models("http://127.0.0.1:9/v1")}))
    path = write(tmp_path / "set.yaml", yaml.safe_dump(base(tmp_path), sort_keys=False))
    for args in (["run", str(path)], ["run", str(path), "--dry-run"]):
        code = runner.main(args)
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1 and expected in err[0] and str(mine) in err[0], err
    assert not (tmp_path / "out").exists()


def test_a_missing_price_names_the_file_the_snapshot_was_read_from(tmp_path):
    """Issue 62: the error named params/prices/<name>.yaml for a snapshot that lives elsewhere."""
    from helpers.core.errors import CostOfPassError
    from helpers.core.prices import load_snapshot

    path = write(tmp_path / "elsewhere" / "mine.yaml", priced("stubby", 1))
    with pytest.raises(CostOfPassError, match="no price for model") as err:
        load_snapshot(path).require(["stub"])
    assert str(path) in str(err.value) and "params/prices/" not in str(err.value)
