"""Local models: weights verification, prompts, a real run of the smallest model, committed records."""

import os
import subprocess
import sys
from importlib.util import find_spec

import pytest
import yaml

from conftest import ROOT
from helpers.collect.backends import local
from helpers.collect.plan import pending, plan_for
from helpers.collect.preflight import estimate
from helpers.collect.records import RecordStore
from helpers.core.context import prepare
from helpers.core.errors import CostOfPassError
from helpers.core.params import load_params


def weights(parts, sha):
    return local.LocalWeights(parts=[{"dist": d, "file": f} for d, f in parts], sha256=sha, license="x", source="y")


def test_split_weights_are_assembled_once_and_verified(tmp_path, monkeypatch):
    files = {"a": tmp_path / "a.bin", "b": tmp_path / "b.bin"}
    files["a"].write_bytes(b"GGUF" + b"1" * 100)
    files["b"].write_bytes(b"2" * 50)
    monkeypatch.setattr(local, "_locate", lambda part: files[part.dist])
    monkeypatch.setattr(local, "CACHE", tmp_path / "cache")
    sha = local.sha256_of([files["a"], files["b"]])
    path = local.weights_path(weights([("a", "x"), ("b", "y")], sha))
    assert path == tmp_path / "cache" / f"{sha}.gguf" and path.read_bytes() == files["a"].read_bytes() + b"2" * 50
    with pytest.raises(CostOfPassError, match="does not match the pinned"):
        local.weights_path(weights([("a", "x")], "0" * 64))


def test_missing_weights_package_says_how_to_install():
    with pytest.raises(CostOfPassError, match="make setup-local"):
        local.weights_path(weights([("no-such-dist-xyz", "f.gguf")], "0" * 64))


def test_base_models_get_a_completion_prompt():
    prompt = local.completion_prompt([{"role": "user", "content": "Please solve ... INPUT: '''What is 1 + 2?'''"}])
    assert prompt.endswith("'''\n\nSolution:")


def test_call_seeds_are_stable_and_distinct():
    assert local.call_seed(0, "m", "t", "p", "vanilla", 0, 0) == local.call_seed(0, "m", "t", "p", "vanilla", 0, 0)
    assert local.call_seed(0, "m", "t", "p", "vanilla", 0, 0) != local.call_seed(0, "m", "t", "p", "vanilla", 1, 0)


def test_registered_local_weights_match_the_design_pins():
    models = yaml.safe_load((ROOT / "params/registry/models.yaml").read_text())["models"]
    pins = {m["local"]["sha256"] for m in models.values() if "local" in m}
    assert pins == {"b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
                    "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
                    "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"}


def test_committed_local_records_are_complete():
    params = load_params(ROOT / "params/local.yaml")
    ctx = prepare(params)
    store = RecordStore(params.records_path)
    attempts = plan_for(params, ctx.problems, ctx.models)
    assert attempts and not pending(attempts, store.done()), "make collect-local"
    records = store.load()
    assert records.status.eq("ok").all(), "a committed record is a failure"
    assert (records.prompt_tokens > 0).all() and (records.completion_tokens >= 0).all()  # runtime counts
    assert not records.simulated.any() and set(records.litellm_model.str.split("/").str[0]) == {"local"}
    assert estimate(ctx).empty  # `make all` makes no call


@pytest.mark.slow  # a real llama.cpp model on the CPU
def test_smallest_local_model_for_real(tmp_path):
    """No mocks: SmolLM2-135M through litellm and llama.cpp, then grading and every analysis."""
    if find_spec("llama_cpp") is None:
        if os.environ.get("CI"):
            pytest.fail("llama-cpp-python is missing in CI: `make test` installs it (make setup-local)")
        pytest.skip("llama-cpp-python not installed (make setup-local)")
    path = tmp_path / "smol.yaml"
    path.write_text(yaml.safe_dump({
        "name": "smol", "tasks": ["two_digit_addition"], "models": ["local-smollm2-135m"],
        "methods": ["vanilla", "self_refine"], "n_problems": 3, "n_runs": 2, "price_snapshot": "local_cpu_2026-11",
        "budget_usd": 1.0, "concurrency": 1, "extraction": "lenient", "output_dir": str(tmp_path / "out"),
        "task_options": {"two_digit_addition": {"source": "generated"}}}))
    out = subprocess.run([sys.executable, "-m", "helpers.cli.runner", "run", str(path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=1200)
    assert out.returncode == 0, out.stderr[-3000:]
    params = load_params(path)
    records = RecordStore(params.records_path).load()
    assert len(records) == 3 * 2 * 3 and records.status.eq("ok").all()
    assert (records.prompt_tokens > 0).all() and records.completion_tokens.sum() > 0
    assert (params.tables_path / "table1_frontier_cop.csv").is_file()
    assert (params.output_path / "report" / "index.html").is_file()


def test_estimates_respect_a_models_own_token_cap():
    """A local model's max_tokens override (160) caps the dry-run estimate of its completion length."""
    from helpers.collect.budget import _expected_completion
    from helpers.core.models import load_registry

    smol = load_registry(ROOT / "params/registry/models.yaml")["local-smollm2-135m"]
    capped = smol.model_copy(update={"typical_completion_tokens": 500})
    assert _expected_completion(capped, "two_digit_addition", {"temperature": 0.7}) == 160
    assert _expected_completion(capped, "two_digit_addition", {"max_tokens": 100}) == 160  # the model's own wins


def test_llama_threads_come_from_cop_local_threads_else_every_core(monkeypatch):
    from helpers.collect.backends.local import threads
    from helpers.core.errors import CostOfPassError

    monkeypatch.setenv("COP_LOCAL_THREADS", "3")
    assert threads() == 3
    monkeypatch.delenv("COP_LOCAL_THREADS")
    assert threads() == (os.cpu_count() or 2)
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv("COP_LOCAL_THREADS", bad)
        with pytest.raises(CostOfPassError, match="COP_LOCAL_THREADS"):
            threads()
