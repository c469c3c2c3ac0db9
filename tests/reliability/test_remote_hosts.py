"""Writes stay where the user said, keys stay on this machine unless the user was told (issue 26 item 4)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import ROOT
from helpers.collect.preflight import check_remote_hosts
from helpers.core.context import prepare
from helpers.core.errors import CostOfPassError
from helpers.core.models import ModelSpec, remote_host
from helpers.core.params import load_params

ENTRY = {"label": "M", "litellm_id": "openai/m", "family": "large", "release_date": "2024-01-01",
         "api_key_env": "REMOTE_TEST_KEY"}


@pytest.mark.parametrize("base, host", [("http://127.0.0.1:8000/v1", None), ("http://localhost:9/v1", None),
                                        ("http://[::1]:8000", None), ("http://127.9.9.9", None),
                                        ("https://203.0.113.5:8443/v1", "203.0.113.5"),
                                        ("https://api.example.com/v1", "api.example.com"), (None, None)])
def test_remote_host_is_anything_but_this_machine(base, host):
    assert remote_host(ModelSpec(name="m", api_base=base, **ENTRY)) == host


def test_a_remote_api_base_is_named_before_any_call_and_offline_refuses_it(write_set, monkeypatch):
    monkeypatch.setenv("REMOTE_TEST_KEY", "sk-test-not-real")
    models = {"far": {**ENTRY, "api_base": "https://203.0.113.5:8443/v1"},  # TEST-NET-3: nothing ever answers there
              "near": {**ENTRY, "api_base": "http://127.0.0.1:9/v1"}}
    path = write_set({"name": "remote", "tasks": ["two_digit_addition"], "models": ["far", "near"], "n_problems": 2,
                      "n_runs": 1, "budget_usd": 1, "task_options": {"two_digit_addition": {"source": "generated"}}},
                     models, {"date": "2025-01-01", "source": "test",
                              "prices": {m: {"input_usd_per_mtok": 1.0, "output_usd_per_mtok": 1.0} for m in models}})
    ctx = prepare(load_params(path))
    assert check_remote_hosts(ctx) == ["warning: model 'far' sends its prompts and its key (REMOTE_TEST_KEY) to "
                                       "203.0.113.5 (api_base https://203.0.113.5:8443/v1), not this machine"]
    with pytest.raises(CostOfPassError, match="another machine .203.0.113.5. and this run is offline"):
        check_remote_hosts(ctx, offline=True)
    out = subprocess.run([sys.executable, "-m", "helpers.cli.runner", "check", str(path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and "warning: model 'far' sends its prompts" in out.stderr
    assert "sk-test-not-real" not in out.stdout + out.stderr


def test_a_model_name_that_would_leave_the_set_is_refused(write_set):
    path = write_set({"name": "paths", "tasks": ["two_digit_addition"], "models": ["../../escape"], "n_problems": 2,
                      "n_runs": 1, "budget_usd": 1}, {"../../escape": ENTRY},
                     {"date": "2025-01-01", "source": "test", "prices": {}})
    with pytest.raises(CostOfPassError, match=r"model '../../escape': field 'name': String should match pattern"):
        prepare(load_params(path))


def test_a_parameter_file_cannot_write_outside_results_unless_the_command_says_so(write_set, tmp_path, monkeypatch):
    monkeypatch.delenv("COP_WRITE_ANYWHERE", raising=False)
    env = {k: v for k, v in __import__("os").environ.items() if k != "COP_WRITE_ANYWHERE"}
    paths = []
    for target in (ROOT / "results" / ".." / ".." / "escaped", tmp_path / "elsewhere"):
        paths.append(path := write_set({"name": "outside", "tasks": ["two_digit_addition"],
                                        "models": ["sim-lightweight"],
                          "n_problems": 2, "n_runs": 1, "price_snapshot": "sim_tiny_2025-04", "budget_usd": 1,
                          "output_dir": str(target), "task_options": {"two_digit_addition": {"source": "generated"}}}))
        out = subprocess.run([sys.executable, "-m", "helpers.cli.runner", "check", str(path)], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 2 and "field 'output_dir'" in out.stderr and "--write-anywhere" in out.stderr
        assert len(out.stderr.strip().splitlines()) == 1 and not target.exists()
    allowed = subprocess.run([sys.executable, "-m", "helpers.cli.runner", "check", str(paths[-1]), "--write-anywhere"],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert allowed.returncode == 0, allowed.stderr[-1000:]
