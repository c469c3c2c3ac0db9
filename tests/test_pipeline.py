"""The runner: preflight errors before any call, papermill execution, failure reporting."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from helpers.cli import runner
from helpers.core.context import prepare
from helpers.core.params import load_params


def run_cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "helpers.cli.runner", *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=900)


def test_paper_without_keys_stops_with_one_line(shared_data, monkeypatch, tmp_path):
    env = {k: v for k, v in __import__("os").environ.items()
           if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "TOGETHERAI_API_KEY", "TOGETHER_API_KEY")}
    env["COP_DATA_DIR"] = str(shared_data)
    out = run_cli("run", "params/paper.yaml", env=env)
    assert out.returncode == 2
    err = out.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: missing API key(s)")
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "TOGETHERAI_API_KEY"):
        assert key in err[0]
    assert not (ROOT / "results/paper/records").exists()

    dry = run_cli("run", "params/paper.yaml", "--dry-run", env=env)
    assert dry.returncode == 0
    last = [line for line in dry.stdout.splitlines() if line.startswith("calls:")][0]
    # 6 tasks (AIME has 30 problems) x 10 models x 8 runs x (1 vanilla + 2 self-refine calls)
    assert last.startswith(f"calls: {(5 * 128 + 30) * 10 * 8 * 3};") and "estimated USD: $" in last


@pytest.mark.slow  # every stage's notebook
def test_runner_executes_notebooks_in_order(write_set, tmp_path):
    path = write_set({"name": "nbrun", "tasks": ["two_digit_addition"], "models": ["sim-lightweight", "sim-reasoning"],
                      "methods": ["vanilla"], "n_problems": 4, "n_runs": 2, "price_snapshot": "sim_tiny_2025-04",
                      "budget_usd": 1.0, "task_options": {"two_digit_addition": {"source": "generated"}}})
    out = run_cli("all", str(path))
    assert out.returncode == 0, out.stderr[-2000:]
    assert "WARNING" not in out.stderr and "without encryption" not in out.stderr  # kernels over IPC, not TCP
    lines = {line.split()[1]: line for line in out.stdout.splitlines() if line.startswith("ok ")}
    assert "16 calls made (0 failed) of 16 planned" in lines["01_collect"]  # what each stage did, in its line
    assert "16 attempts graded" in lines["02_grade"] and "table" in lines["03_frontier"]
    params = load_params(path)
    executed = params.output_path / "notebooks"
    assert sorted(p.stem for p in executed.glob("*.ipynb")) == runner.NOTEBOOKS
    assert (params.output_path / "report" / "index.html").is_file()
    index = params.output_path.parent / "index.html"  # the index page of every set run, linking its report
    assert out.stdout.strip().splitlines()[-1] == f"open  {index}"
    page = index.read_text()
    assert 'href="nbrun/report/index.html"' in page and "SIMULATED" in page and "<script" not in page
    assert '<td class="n">16</td>' in page  # records: 4 problems x 2 runs x 2 models, one call each
    import re

    links = re.findall(r'href="([^"#]+)"', page)
    assert links and all((index.parent / link).is_file() for link in links if "://" not in link), links
    nb = json.loads((executed / "02_grade.ipynb").read_text())
    text = json.dumps(nb)
    assert "SIMULATED" in text and "accuracy" in text
    assert (params.graded_path / "attempts.parquet").is_file()


def test_a_default_set_without_its_data_is_skipped_in_one_line(write_set, tmp_path, monkeypatch, capsys):
    """`make all` shows sim only where the benchmark data is; elsewhere one line says how to get it."""
    path = write_set({"name": "nodata", "tasks": ["gsm8k"], "models": ["sim-lightweight"], "n_problems": 2,
                      "n_runs": 1, "price_snapshot": "sim_tiny_2025-04", "budget_usd": 1.0,
                      "data_dir": str(tmp_path / "empty")})
    monkeypatch.setattr(runner, "DEFAULT_SETS", [str(path)])
    page = runner.run_all([])
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("skip  set nodata: gsm8k: no data at ") and "download" in lines[0]
    assert lines[1] == f"open  {page}" and "No report has been rendered yet" in page.read_text()
    from helpers.core.errors import MissingData

    with pytest.raises(MissingData):  # named explicitly, the set must run
        runner.run_all([str(path)])


def test_runner_stops_at_the_first_failing_notebook(write_set, tmp_path):
    path = write_set({"name": "nbfail", "tasks": ["two_digit_addition"], "models": ["sim-lightweight"],
                      "n_problems": 2, "n_runs": 1, "price_snapshot": "sim_tiny_2025-04", "budget_usd": 1.0,
                      "task_options": {"two_digit_addition": {"source": "generated"}}})
    params = load_params(path)
    # grading before collection fails inside the notebook: the error names the executed copy
    out = run_cli("run", str(path), "--only", "02_grade")
    assert out.returncode == 2
    assert "notebook 02_grade failed" in out.stderr and str(params.output_path
                                                            / "notebooks/02_grade.ipynb") in out.stderr
    # issue 64: what the command line decided reaches the stage as a parameter, shown in the executed notebook
    executed = (params.output_path / "notebooks/02_grade.ipynb").read_text()
    assert ('settings = {\\"offline\\": False, \\"write_anywhere\\": True, \\"unisolated_grading\\": False, '
            '\\"batch\\": False}') in executed


def test_preflight_rejects_unknown_model_and_missing_price(write_set):
    path = write_set({"name": "bad", "tasks": ["two_digit_addition"], "models": ["gpt-9"], "n_problems": 2,
                      "n_runs": 1, "price_snapshot": "sim_tiny_2025-04", "budget_usd": 1.0})
    with pytest.raises(Exception, match="field 'models': unknown model"):
        prepare(load_params(path))
    path = write_set({"name": "bad2", "tasks": ["two_digit_addition"], "models": ["o1"], "n_problems": 2,
                      "n_runs": 1, "price_snapshot": "sim_tiny_2025-04", "budget_usd": 1.0})
    with pytest.raises(Exception, match="no price for model\\(s\\) o1"):
        prepare(load_params(path))


@pytest.mark.slow  # a set collected twice
def test_recollect_rebuilds_the_same_calls(write_set):
    """--recollect moves the records aside and makes every call again: same keys, fresh records."""
    from helpers.collect.records import KEY, RecordStore

    path = write_set({"name": "recollect", "tasks": ["two_digit_addition"], "models": ["sim-lightweight"],
                      "methods": ["vanilla", "self_refine"], "n_problems": 3, "n_runs": 2,
                      "price_snapshot": "sim_tiny_2025-04", "budget_usd": 1.0,
                      "task_options": {"two_digit_addition": {"source": "generated"}}})
    params = load_params(path)
    assert run_cli("run", str(path), "--only", "01_collect").returncode == 0
    first = RecordStore(params.records_path).load()
    out = run_cli("run", str(path), "--only", "01_collect", "--recollect")
    assert out.returncode == 0, out.stderr[-2000:]
    assert "previous records moved" in out.stdout
    again = RecordStore(params.records_path).load()
    previous = RecordStore(params.records_path.with_name("records.previous")).load()
    assert len(again) == len(first) == 3 * 2 * 3
    assert sorted(map(tuple, again[list(KEY)].values)) == sorted(map(tuple, previous[list(KEY)].values))
    # the simulator is seeded, so even the responses are the same (real models differ where sampling differs)
    key = list(KEY)
    assert again.sort_values(key).response.tolist() == first.sort_values(key).response.tolist()


def test_the_installed_command_and_the_tools_print_one_line_errors(tmp_path):
    command = Path(sys.executable).parent / "cost-of-pass"
    assert command.is_file(), "pip install -e . installs the cost-of-pass console script"
    out = subprocess.run([str(command), "check", str(tmp_path / "nope.yaml")],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 2 and out.stderr.strip().splitlines() == ["error: parameter set not "
                                                                       f"found: {tmp_path / 'nope.yaml'}"]
    tool = subprocess.run([sys.executable, "-m", "helpers.cli.calibrate", "--tables", str(tmp_path), "--data-dir",
                           str(tmp_path)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert tool.returncode == 2 and len(tool.stderr.strip().splitlines()) == 1 and "not found" in tool.stderr
