"""Collect + grade through the real litellm client against an OpenAI-compatible server on 127.0.0.1."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from conftest import ROOT, STUB_KEY, STUB_PRICES, stub_models
from conftest import stub_set_params as base_params
from helpers.analyze.estimates import accuracy_table
from helpers.collect.collection import run_collection
from helpers.collect.preflight import preflight
from helpers.collect.records import KEY, RecordStore
from helpers.core.errors import CostOfPassError
from helpers.core.params import load_params
from helpers.grade.stage import run_grading
from openai_stub import StubServer


@pytest.fixture
def stub(monkeypatch):
    monkeypatch.setenv("STUB_API_KEY", STUB_KEY)
    with StubServer(STUB_KEY) as server:
        yield server


def test_collect_grade_rerun(stub, write_set):
    path = write_set(base_params(), stub_models(stub.base_url), STUB_PRICES)
    ctx = preflight(load_params(path))
    result = run_collection(ctx, progress=False)

    # 6 problems x 2 models x 2 runs x (1 vanilla + 2 self-refine calls)
    assert result.planned_calls == 6 * 2 * 2 * 3
    assert result.made_calls == result.planned_calls and result.failed_calls == 0
    problems = ctx.problems["two_digit_addition"]
    first_tries = {p.problem_id for p in problems if p.metadata["a"] % 3 == 0 or p.metadata["a"] % 7 == 0}
    assert first_tries, "the sample should exercise 429/500 retries"
    records = RecordStore(ctx.params.records_path).load()
    assert len(records) == result.planned_calls and records.status.eq("ok").all()
    assert (records.prompt_tokens > 0).all() and (records.completion_tokens > 0).all()
    assert records[records.problem_id.isin(first_tries)].tries.max() >= 2

    attempts = run_grading(ctx)
    assert len(attempts) == 6 * 2 * 2 * 2 and attempts.complete.all()
    for row in attempts.itertuples():
        p = next(p for p in problems if p.problem_id == row.problem_id)
        assert bool(row.correct) == ((p.metadata["a"] + p.metadata["b"]) % 5 != 0)

    before = stub.state.requests
    again = run_collection(ctx, progress=False)
    assert again.made_calls == 0 and stub.state.requests == before


def test_failures_are_recorded_not_graded_wrong(stub, write_set):
    path = write_set(base_params(models=["stub-a", "broken"], methods=["vanilla"], n_problems=3, n_runs=1),
                     stub_models(stub.base_url), STUB_PRICES)
    ctx = preflight(load_params(path))
    result = run_collection(ctx, progress=False)
    assert result.failed_calls == 3
    records = RecordStore(ctx.params.records_path).load()
    broken = records[records.model == "broken"]
    assert broken.status.eq("error").all() and broken.tries.eq(4).all()
    assert broken.error.str.contains("InternalServerError|500", regex=True).all()
    attempts = run_grading(ctx)
    failed = attempts[attempts.model == "broken"]
    assert (~failed.complete).all() and failed.correct.isna().all()
    table = accuracy_table(attempts)
    assert set(table.model) == {"stub-a"}  # no accuracy for a model whose every call failed


def test_budget_stops_before_any_call(stub, write_set):
    path = write_set(base_params(budget_usd=1e-6), stub_models(stub.base_url), STUB_PRICES)
    with pytest.raises(CostOfPassError, match="over budget"):
        preflight(load_params(path))
    assert stub.state.requests == 0


def test_resume_after_kill_loses_and_repeats_nothing_acknowledged(monkeypatch, write_set, tmp_path):
    monkeypatch.setenv("STUB_API_KEY", STUB_KEY)
    with StubServer(STUB_KEY, delay_s=0.05) as stub:
        path = write_set(base_params(n_problems=10, n_runs=3, methods=["vanilla"], concurrency=2),
                         stub_models(stub.base_url), STUB_PRICES)
        code = ("import sys; from helpers.collect.collection import run_collection; "
                "from helpers.collect.preflight import preflight; from helpers.core.params import load_params;"
                f"ctx = preflight(load_params({str(path)!r})); run_collection(ctx, progress=False)")
        proc = subprocess.Popen([sys.executable, "-c", code], env=os.environ.copy(), cwd=ROOT)
        params = load_params(path)
        deadline = time.time() + 60
        while time.time() < deadline and len(RecordStore(params.records_path).load()) < 8:
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        time.sleep(0.5)  # let requests in flight at the kill finish on the server side
        acknowledged = RecordStore(params.records_path).load()
        assert 8 <= len(acknowledged) < 60, "the run should have been killed midway"
        served_before = stub.state.completions

        ctx = preflight(params)
        result = run_collection(ctx, progress=False)
        records = RecordStore(params.records_path).load()
        ok = records[records.status == "ok"]
        assert len(ok) == 60 and not ok.duplicated(list(KEY)).any()
        assert result.made_calls == 60 - len(acknowledged)
        # every acknowledged record is still there, unchanged
        merged = acknowledged.merge(ok, on=list(KEY), suffixes=("", "_after"))
        assert len(merged) == len(acknowledged) and (merged.response == merged.response_after).all()
        # calls in flight at the kill may be repeated; nothing acknowledged is
        assert stub.state.completions - served_before == result.made_calls
        assert served_before - len(acknowledged) <= 2 * params.concurrency


def test_keys_never_leak(stub, write_set, tmp_path):
    path = write_set(base_params(n_problems=2, n_runs=1), stub_models(stub.base_url), STUB_PRICES)
    params = load_params(path)
    run_collection(preflight(params), progress=False)
    text = "".join(p.read_text() for p in params.records_path.rglob("*.jsonl"))
    assert STUB_KEY not in text and "STUB_API_KEY" not in json.dumps(params.model_dump())


def test_wrong_key_is_a_recorded_failure_without_the_key(monkeypatch, write_set):
    monkeypatch.setenv("STUB_API_KEY", "sk-" + "wrong-key-0123456789abcdefghij")
    with StubServer(STUB_KEY) as stub:
        path = write_set(base_params(n_problems=1, n_runs=1, models=["stub-a"], methods=["vanilla"]),
                         stub_models(stub.base_url), STUB_PRICES)
        params = load_params(path)
        result = run_collection(preflight(params), progress=False)
    assert result.failed_calls == 1
    text = Path(next(params.records_path.rglob("*.jsonl"))).read_text()
    assert "Incorrect API key provided: [redacted]" in text and "sk-wrong-key" not in text


@pytest.mark.slow  # every stage of a keyed set
def test_runner_with_a_keyed_provider_leaks_no_key(stub, write_set):
    """The whole runner (papermill, executed notebooks, graded parquet) never writes the key."""
    path = write_set(base_params(n_problems=3, n_runs=1), stub_models(stub.base_url), STUB_PRICES)
    out = subprocess.run([sys.executable, "-m", "helpers.cli.runner", "run", str(path)], capture_output=True,
                         text=True, cwd=ROOT, env=os.environ.copy(), timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    params = load_params(path)
    files = [p for p in params.output_path.rglob("*") if p.is_file()]
    assert len(files) >= 5
    for f in files:
        assert STUB_KEY.encode() not in f.read_bytes(), f
    assert STUB_KEY not in out.stdout + out.stderr


def test_nothing_pending_does_not_import_litellm(write_set):
    def collect_twice(name: str, direct: bool) -> list[list[str]]:
        path = write_set({"name": name, "tasks": ["two_digit_addition"], "models": ["sim-lightweight"], "n_problems": 3,
                          "n_runs": 1, "price_snapshot": "sim_tiny_2025-04", "budget_usd": 1.0,
                          "task_options": {"two_digit_addition": {"source": "generated"}}})
        code = ("import sys; from helpers.collect.collection import collect; from helpers.collect.calling import "
                "Caller; from helpers.collect.preflight import preflight; from helpers.core.params import load_params; "
                f"c = preflight(load_params({str(path)!r})); "
                "r = collect(c.params, c.problems, c.models, c.snapshot, False, Caller(c.params, "
                f"direct_sim={direct})); print(r.made_calls, 'litellm' in sys.modules)")
        return [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                               timeout=300).stdout.split() for _ in range(2)]

    # simulated calls go to the simulator directly (test_sim: the same records as through litellm): litellm is not
    # imported for them; through litellm it is, and not again once nothing is pending
    assert collect_twice("noop", direct=True) == [["3", "False"], ["0", "False"]]
    assert collect_twice("noop-litellm", direct=False) == [["3", "True"], ["0", "False"]]


def test_the_lean_openai_compatible_client_sends_and_records_what_litellm_does(write_set, monkeypatch):
    """An ``openai/<name>`` model at an ``api_base`` is posted to without litellm (backends.openai_compatible):
    field by field, the request bodies the server receives and the records written equal litellm's, retries
    (429, 500) and self-refine included."""
    from helpers.collect.calling import Caller
    from helpers.collect.collection import collect

    monkeypatch.setenv("STUB_API_KEY", STUB_KEY)
    outcomes = {}
    for direct in (True, False):
        with StubServer(STUB_KEY) as server:
            models = stub_models(server.base_url)
            models["stub-b"]["sampling"] = {"max_tokens": 64, "seed": 5, "repetition_penalty": 1.1}  # a model's own
            path = write_set(base_params(name=f"lean-{str(direct).lower()}"), models, STUB_PRICES)
            ctx = preflight(load_params(path))
            result = collect(ctx.params, ctx.problems, ctx.models, ctx.snapshot, progress=False,
                             caller=Caller(ctx.params, direct_http=direct))
            assert result.made_calls == result.planned_calls and result.failed_calls == 0
            records = RecordStore(ctx.params.records_path).load().drop(columns=["latency_s", "created_at"])
            bodies = sorted(json.dumps(b, sort_keys=True) for b in server.state.bodies)
            outcomes[direct] = (records.sort_values(list(KEY)).reset_index(drop=True), bodies)
    (lean_records, lean_bodies), (litellm_records, litellm_bodies) = outcomes[True], outcomes[False]
    assert lean_bodies == litellm_bodies
    assert any('"repetition_penalty": 1.1' in b for b in lean_bodies), lean_bodies[-1]
    # which of two runs with the same prompt meets the stub's one 429/500 depends on timing: compare tries as a multiset
    assert sorted(lean_records.pop("tries")) == sorted(litellm_records.pop("tries"))
    assert [c for c in lean_records if not lean_records[c].equals(litellm_records[c])] == []


def test_a_live_humaneval_task_is_collected_and_graded_in_the_sandbox(stub, write_set, tmp_path):
    import gzip

    rows = [{"task_id": f"HumanEval/{i}", "prompt": f"def {name}(a, b):\n    \"\"\"{doc}\"\"\"\n", "entry_point": name,
             "test": f"def check(candidate):\n    assert candidate(2, 3) == {value}\n",
             "given_tests": [f"assert {name}(2, 3) == {value}"],
             "solution": "", "is_solved": "False"}
            for i, (name, doc, value) in enumerate([("add", "a plus b", 5),
                                                    ("sub", "a minus b", -1), ("leak", "a", 5)])]
    problems = tmp_path / "probs.jsonl.gz"
    with gzip.open(problems, "wt") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in rows)
    path = write_set(base_params(tasks=["humaneval"], models=["stub-a"], methods=["vanilla"], n_problems=3, n_runs=1,
                                 task_options={"humaneval": {"file": str(problems)}}),
                                 stub_models(stub.base_url), STUB_PRICES)
    ctx = preflight(load_params(path))
    assert run_collection(ctx, progress=False).made_calls == 3
    attempts = run_grading(ctx).set_index("problem_id")
    assert bool(attempts.loc["humaneval-0", "correct"]) and not bool(attempts.loc["humaneval-1", "correct"])
    graded = pd.read_parquet(ctx.params.graded_path / "calls.parquet").set_index("problem_id")
    assert graded.loc["humaneval-1", "grade_reason"].startswith("AssertionError")
    # the third program knows the provider's key and looks for an environment in every process: it is right only
    # where it saw one, and else raises the key as its error. It fails (it saw none), its words are not kept, and
    # the key reaches no file the grader wrote
    assert not bool(attempts.loc["humaneval-2", "correct"])
    reason = graded.loc["humaneval-2", "grade_reason"]
    assert reason == "ValueError (raised in the program's process; its message is not kept)" and STUB_KEY not in reason
    assert (graded["grade_harness"] == "split").all() and (graded["grade_isolation"] == "bwrap").all()
    leaks = [p for p in ctx.params.output_path.rglob("*") if p.is_file() and STUB_KEY.encode() in p.read_bytes()]
    assert leaks == []
    assert "Complete the following task in Python" in stub.state.bodies[0]["messages"][0]["content"]
