"""Batch collection (``collection: {mode: batch}``) end to end against the batch stub on 127.0.0.1 (``batch_stub``):
the records a synchronous run makes, at the batch rate; bad rows recorded and sent again; a restart with a batch
pending polls it and sends nothing twice; Anthropic's message batches; no key in any file written."""

import json
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

from batch_stub import BatchServer
from conftest import ROOT, STUB_KEY, STUB_PRICES, stub_models
from conftest import stub_set_params as base_params
from helpers.collect import batch_journal as journal
from helpers.collect.collection import run_collection
from helpers.collect.preflight import preflight
from helpers.collect.records import KEY, RecordStore
from helpers.core.errors import CostOfPassError
from helpers.core.params import load_params
from helpers.core.prices import cost_usd, load_snapshot
from openai_stub import StubServer

FAST = {"mode": "batch", "poll_s": 0.02, "deadline_s": 60}
DISCOUNT = 0.5
PRICES = {**STUB_PRICES, "prices": {m: {**p, "batch_discount": DISCOUNT} for m, p in STUB_PRICES["prices"].items()}}
CONTENT = [*KEY, "litellm_model", "prompt_hash", "status", "response", "finish_reason", "prompt_tokens",
           "completion_tokens", "reasoning_tokens", "error", "unusable", "sampling", "simulated"]


@pytest.fixture
def batch_stub(monkeypatch):
    monkeypatch.setenv("STUB_API_KEY", STUB_KEY)
    with BatchServer(STUB_KEY) as server:
        yield server


def batch_set(write_set, server, **over):
    """The stub set (two models, vanilla and self-refine) sent through ``server``'s batch API; its loaded params."""
    over.setdefault("collection", FAST)
    return load_params(write_set(base_params(**over), stub_models(server.base_url), PRICES))


def records_of(params) -> pd.DataFrame:
    return RecordStore(params.records_path).load()


def test_a_batch_run_records_what_a_synchronous_run_does_at_the_batch_rate(batch_stub, write_set, tmp_path):
    params = batch_set(write_set, batch_stub, name="batched")
    result = run_collection(preflight(params), progress=False)
    assert result.made_calls == result.planned_calls == 6 * 2 * 2 * 3 and result.failed_calls == 0
    # a round per call of an attempt (the refinement waits for its first call), a batch per model each
    assert batch_stub.state.creations == 2 * 2 and batch_stub.state.uploads == 4
    batched = records_of(params)
    assert batched["service_tier"].eq("batch").all() and batched["status"].eq("ok").all()

    with StubServer(STUB_KEY) as sync_server:
        sync = load_params(write_set(base_params(name="synced", output_dir=str(tmp_path / "sync")),
                                     stub_models(sync_server.base_url), PRICES))
        run_collection(preflight(sync), progress=False)
    synced = records_of(sync)
    assert synced["service_tier"].isna().all()

    def content(df):
        return df[CONTENT].sort_values(list(KEY)).reset_index(drop=True)
    pd.testing.assert_frame_equal(content(batched), content(synced))
    snapshot = load_snapshot(params.price_path)
    assert result.summary["usd"].sum() == pytest.approx(cost_usd(batched, snapshot).sum())  # at the batch rate
    assert cost_usd(batched, snapshot).sum() == pytest.approx((1 - DISCOUNT) * cost_usd(synced, snapshot).sum())
    assert run_collection(preflight(params), progress=False).made_calls == 0 and batch_stub.state.creations == 4
    assert [e for e in journal.open_entries(params.records_path)] == []


def latest(params) -> pd.DataFrame:
    return RecordStore(params.records_path).latest()


def test_errored_and_expired_rows_are_recorded_then_sent_again_and_junk_is_ignored(batch_stub, write_set, capsys):
    """A 500 row and an expired row are recorded failures, sent again in the next round of the same run; a 400 row is
    a final failure for this run (the next run sends it again); unreadable lines, lines of no call and repeated rows
    are ignored and counted. Every row the provider ran is a record: nothing is free, nothing is lost."""
    state = batch_stub.state
    state.faults = {"server_error": lambda a: a % 4 == 0, "expired": lambda a: a % 4 == 1,  # the set's a: 68, 72, 12
                    "bad_request": lambda a: a % 4 == 3}  # and 45, 69; and 35
    state.junk = True
    params = batch_set(write_set, batch_stub, name="faults", methods=["vanilla"], n_runs=1)
    result = run_collection(preflight(params), progress=False)
    records = records_of(params)
    errors = records[records.status == "error"]
    kinds = errors.error.str.extract(r"(HTTP 500|batch_expired|HTTP 400)")[0]
    assert kinds.notna().all() and set(kinds) == {"HTTP 500", "batch_expired", "HTTP 400"}
    assert result.failed_calls == len(errors) and (errors.tries == 1).all()
    final = latest(params)
    assert final[final.status == "error"].error.str.contains("HTTP 400").all()  # not sent again in this run
    retried = records[records.status == "ok"].merge(errors[~errors.error.str.contains("HTTP 400")], on=list(KEY))
    assert len(retried) == (kinds != "HTTP 400").sum() and (retried.tries_x == 2).all()
    assert state.rows_run == records.status.eq("ok").sum() + errors.error.str.contains("HTTP").sum()
    assert "result line(s) ignored" in capsys.readouterr().err
    assert not records[records.status == "ok"].duplicated(list(KEY)).any()

    again = run_collection(preflight(params), progress=False)  # the 400s again: the stub faults a first sending only
    assert again.made_calls == (kinds == "HTTP 400").sum() and latest(params).status.eq("ok").all()


def test_a_failed_batch_missing_rows_and_replies_without_usage_are_recorded_failures(batch_stub, write_set):
    """A batch that fails whole (its input refused) fails each of its calls; a call the ended batch returned no row
    for, and a reply without token counts, are unusable (the provider may have billed them): recorded, not sent again
    in this run, sent again by the next."""
    state = batch_stub.state
    state.fail_next = 1
    state.faults = {"missing": lambda a: a % 2 == 0, "no_usage": lambda a: a % 2 == 1}
    params = batch_set(write_set, batch_stub, name="unusable", methods=["vanilla"], n_runs=1)
    result = run_collection(preflight(params), progress=False)
    records = records_of(params)
    assert result.failed_calls == len(records) == 12 and records.status.eq("error").all()
    failed_batch = records.error.str.startswith("the batch failed: stub: the input is refused")
    assert failed_batch.sum() == 6 and not records[failed_batch].unusable.any()
    unusable = records[~failed_batch]
    assert unusable.unusable.all() and set(unusable.error.str.extract(r"(no result|no prompt token count)")[0]) == {
        "no result", "no prompt token count"}
    assert state.creations == 2
    assert run_collection(preflight(params), progress=False).made_calls == 12 and latest(params).status.eq("ok").all()


def test_a_run_past_its_deadline_leaves_its_batch_recorded_and_the_next_run_resumes_it(batch_stub, write_set):
    state = batch_stub.state
    state.hold.set()
    params = batch_set(write_set, batch_stub, name="deadline", methods=["vanilla"], n_runs=1,
                       collection={**FAST, "deadline_s": 0.3})
    with pytest.raises(CostOfPassError, match="still running after collection.deadline_s 0.3 s; their ids are "
                                              "recorded"):
        run_collection(preflight(params), progress=False)
    pending = journal.open_entries(params.records_path)
    assert [e.state for e in pending] == ["pending", "pending"] and state.creations == 2 and records_of(params).empty
    state.hold.clear()
    result = run_collection(preflight(params), progress=False)
    assert state.creations == 2 and result.made_calls == 0  # resumed, not sent again
    assert len(records_of(params)) == 12 and latest(params).status.eq("ok").all()
    assert journal.open_entries(params.records_path) == []


def test_a_run_killed_with_its_batches_pending_is_resumed_and_pays_for_nothing_twice(batch_stub, write_set):
    """Collection in another process, killed (SIGKILL) once its batches are created and pending; the next run — in sync
    mode, even — polls those batches and records their results: the stub saw each batch created once, and every call
    is recorded once."""
    state = batch_stub.state
    state.hold.set()
    path = write_set(base_params(name="killed", methods=["vanilla"], collection=FAST),
                     stub_models(batch_stub.base_url), PRICES)
    code = ("from helpers.collect.collection import run_collection; from helpers.collect.preflight import preflight; "
            f"from helpers.core.params import load_params; run_collection(preflight(load_params({str(path)!r})), "
            "progress=False)")
    proc = subprocess.Popen([sys.executable, "-c", code], env=os.environ.copy(), cwd=ROOT)
    params = load_params(path)
    deadline = time.time() + 120
    while time.time() < deadline and [e.state for e in journal.open_entries(params.records_path)] != ["pending"] * 2:
        assert proc.poll() is None, "the collection ended before its batches were pending"
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert state.creations == 2 and records_of(params).empty

    state.hold.clear()
    resumed = load_params(write_set(base_params(name="killed", methods=["vanilla"], collection={"mode": "sync"}),
                                    stub_models(batch_stub.base_url), PRICES))
    result = run_collection(preflight(resumed), progress=False)
    assert result.made_calls == 0 and state.creations == 2 and state.uploads == 2
    assert result.notes == ["batch: 24 calls of batches an earlier run left pending recorded (not sent again)"]
    records = records_of(params)
    assert len(records) == 6 * 2 * 2 and records.status.eq("ok").all() and not records.duplicated(list(KEY)).any()
    assert records.service_tier.eq("batch").all() and journal.open_entries(params.records_path) == []


ANTHROPIC = {"family": "large", "release_date": "2024-06-20", "api_key_env": "STUB_API_KEY",
             "typical_completion_tokens": 20}


def test_anthropic_message_batches(batch_stub, write_set):
    """Anthropic's message batches: the Messages API's body (max_tokens where the set gives none), the key in a header
    only, cache reads counted apart, a 500-like row (``api_error``) and an expired row sent again."""
    state = batch_stub.state
    state.faults = {"server_error": lambda a: a % 4 == 0, "expired": lambda a: a % 4 == 1}
    models = {"claude-stub": {**ANTHROPIC, "label": "Claude Stub", "litellm_id": "anthropic/claude-stub",
                              "api_base": batch_stub.base_url}}
    prices = {**PRICES, "prices": {"claude-stub": {"input_usd_per_mtok": 3.0, "output_usd_per_mtok": 15.0,
                                                   "cached_input_usd_per_mtok": 0.3, "batch_discount": DISCOUNT}}}
    params = load_params(write_set(base_params(name="claude", models=["claude-stub"], collection=FAST), models, prices))
    result = run_collection(preflight(params), progress=False)
    final = latest(params)
    assert len(final) == result.planned_calls == 6 * 2 * 3 and final.status.eq("ok").all()
    assert (final.cache_read_tokens == 2).all() and final.service_tier.eq("batch").all()
    errors = records_of(params).query("status == 'error'").error
    assert set(errors.str.extract(r"(api_error|expired)")[0]) == {"api_error", "expired"}
    first = [b for b in state.bodies if b.startswith(b'{"requests"')][0]
    request = json.loads(first)["requests"][0]["params"]
    assert request["model"] == "claude-stub" and request["max_tokens"] == 4096 and request["temperature"] == 0.7


def test_no_key_reaches_a_file_or_a_batch(batch_stub, write_set):
    params = batch_set(write_set, batch_stub, name="secret", n_problems=2)
    state = batch_stub.state
    state.faults = {"bad_request": lambda a: True}
    run_collection(preflight(params), progress=False)
    written = [p for p in params.output_path.rglob("*") if p.is_file()]
    assert any(p.parent.name == journal.JOURNAL for p in written)
    assert [p for p in written if STUB_KEY.encode() in p.read_bytes()] == []
    assert state.uploads and all(STUB_KEY.encode() not in b for b in state.bodies)


def test_batch_mode_refuses_a_model_without_a_batch_api_before_any_call(write_set, tmp_path):
    params = load_params(write_set({"name": "localbatch", "tasks": ["two_digit_addition"],
                                    "models": ["local-smollm2-135m"], "n_problems": 2, "n_runs": 1,
                                    "price_snapshot": "local_cpu_2026-11", "budget_usd": 1.0,
                                    "collection": {"mode": "batch"},
                                    "task_options": {"two_digit_addition": {"source": "generated"}}}))
    with pytest.raises(CostOfPassError, match=r"model\(s\) local-smollm2-135m \(local\) have no batch API this "
                                              r"collector speaks \(batch: openai, anthropic\); use collection mode "
                                              r"sync"):
        preflight(params)
    assert not params.records_path.exists()


SIM_DISCOUNT = {"sim-lightweight": 0.5, "sim-reasoning": 0.25}
SIM_PRICES = {"date": "2025-04-17", "source": "test: sim_tiny's prices with batch discounts",
              "prices": {"sim-lightweight": {"input_usd_per_mtok": 0.18, "output_usd_per_mtok": 0.18,
                                             "batch_discount": SIM_DISCOUNT["sim-lightweight"]},
                         "sim-reasoning": {"input_usd_per_mtok": 1.1, "output_usd_per_mtok": 4.4,
                                           "batch_discount": SIM_DISCOUNT["sim-reasoning"]}}}


def test_a_simulated_set_in_batch_mode_collects_offline_in_the_batch_tier(write_set, tmp_path):
    """A simulated model stands for a real one: in batch mode its calls are made here (no batch API, no network) as in
    sync mode, recorded with ``service_tier: batch``, so each model's bill is the sync bill less its discount."""
    bills, spent = {}, {}
    for mode in ("sync", "batch"):
        path = write_set({"name": f"sim{mode}", "tasks": ["two_digit_addition"],
                          "models": ["sim-lightweight", "sim-reasoning"], "methods": ["vanilla", "self_refine"],
                          "n_problems": 3, "n_runs": 2, "budget_usd": 1.0, "collection": {"mode": mode},
                          "task_options": {"two_digit_addition": {"source": "generated"}}}, prices=SIM_PRICES)
        params = load_params(path)
        ctx = preflight(params)
        spent[mode] = run_collection(ctx, progress=False).spent_now_usd
        records = latest(params)
        assert (records["status"] == "ok").all() and len(records) == 2 * 3 * 2 * 3  # vanilla 1 call, refine 2
        assert set(records["service_tier"].fillna("none")) == {"none" if mode == "sync" else "batch"}
        assert not (params.records_path / journal.JOURNAL).exists()  # no batch was sent
        bills[mode] = cost_usd(records, ctx.snapshot).groupby(records["model"]).sum()
        content = records.sort_values(list(KEY))[["prompt_tokens", "completion_tokens", "response"]]
        bills[f"{mode} content"] = content.reset_index(drop=True)
    pd.testing.assert_frame_equal(bills["sync content"], bills["batch content"])
    for model, discount in SIM_DISCOUNT.items():
        assert bills["sync"][model] > 0
        assert bills["batch"][model] == pytest.approx(bills["sync"][model] * (1 - discount), rel=1e-12)
    assert spent["batch"] == pytest.approx(bills["batch"].sum(), rel=1e-9)


def test_a_batch_api_that_refuses_the_upload_is_one_line_before_anything_is_paid(write_set, monkeypatch):
    monkeypatch.setenv("STUB_API_KEY", "sk-" + "wrong-key-0123456789abcdefghij")
    with BatchServer(STUB_KEY) as server:
        params = batch_set(write_set, server, name="refused", n_problems=1)
        with pytest.raises(CostOfPassError, match="model 'stub-a': uploading a batch: ProviderError: "
                                                  "AuthenticationError: HTTP 401: invalid key"):
            run_collection(preflight(params), progress=False)
        assert server.state.creations == 0 and journal.open_entries(params.records_path) == []


def test_a_lost_reply_to_a_batch_creation_stops_the_run_and_the_next_finds_the_batch(batch_stub, write_set):
    """The provider created the batch but its reply could not be read: the batch may exist, so the run stops (one
    line) instead of creating another; the next run finds it by its input file and records it, one creation only."""
    state = batch_stub.state
    state.garble_creations = 1
    params = batch_set(write_set, batch_stub, name="lost", methods=["vanilla"], n_runs=1, models=["stub-a"])
    with pytest.raises(CostOfPassError, match="no answer to the creation of a batch of 6 calls"):
        run_collection(preflight(params), progress=False)
    assert [e.state for e in journal.open_entries(params.records_path)] == ["submitting"] and state.creations == 1
    result = run_collection(preflight(params), progress=False)
    assert result.made_calls == 0 and state.creations == 1 and latest(params).status.eq("ok").all()
    assert len(records_of(params)) == 6


def test_racing_sends_each_wave_as_one_batch_round(batch_stub, write_set, tmp_path):
    """``design: racing`` in batch mode: each wave is one round, a batch per model of the wave; the calls made are the
    synchronous race's."""
    from helpers.grade.racing import run_design

    race = {"design": "racing", "methods": ["vanilla"], "n_problems": 20, "n_runs": 2,
            "racing": {"table1_share": 0.1, "protect": ["frontier"]}}
    params = batch_set(write_set, batch_stub, name="race-batch", **race)
    result = run_design(preflight(params), progress=False)
    sent = journal.entries(params.records_path)
    # wave 0: every option on the Table-1 sample (2 problems x 2 runs); then each option in its own wave, cheapest
    # first (equal prices: by name), where it could still change the frontier (everywhere, with 2 runs)
    assert [(e.model, e.n_calls) for e in sent] == [("stub-a", 4), ("stub-b", 4), ("stub-a", 36), ("stub-b", 36)]
    assert sent[1].submitted_at < sent[2].submitted_at < sent[3].submitted_at  # three rounds, one after the other
    assert batch_stub.state.creations == 4 and result.made_calls == 80

    with StubServer(STUB_KEY) as sync_server:
        sync = load_params(write_set(base_params(name="race-sync", output_dir=str(tmp_path / "race-sync"), **race),
                                     stub_models(sync_server.base_url), PRICES))
        run_design(preflight(sync), progress=False)
    assert set(records_of(params)[list(KEY)].itertuples(index=False)) == set(
        records_of(sync)[list(KEY)].itertuples(index=False))


def test_what_litellms_batch_support_does_against_the_stub(batch_stub):
    """Why the collector speaks the batch APIs itself (``backends.batch_http``): litellm 1.106.2 drives OpenAI's files
    and batches at an ``api_base`` on 127.0.0.1, but cannot create an Anthropic message batch (it can only look at one
    and read its results). Should a litellm upgrade change either, this says so."""
    import litellm

    base = {"api_base": batch_stub.base_url, "api_key": STUB_KEY}
    line = {"custom_id": "c0", "method": "POST", "url": "/v1/chat/completions",
            "body": {"model": "stub", "messages": [{"role": "user", "content": "What is 2 + 3?"}]}}
    upload = litellm.create_file(file=("b.jsonl", (json.dumps(line) + "\n").encode()), purpose="batch",
                                 custom_llm_provider="openai", **base)
    made = litellm.create_batch(completion_window="24h", endpoint="/v1/chat/completions", input_file_id=upload.id,
                                custom_llm_provider="openai", **base)
    ended = litellm.retrieve_batch(batch_id=made.id, custom_llm_provider="openai", **base)
    content = litellm.file_content(file_id=ended.output_file_id, custom_llm_provider="openai", **base).content
    assert ended.status == "completed" and b"<answer>6</answer>" in content  # the stub: wrong on a multiple of 5
    with pytest.raises(litellm.BadRequestError, match="custom_llm_provider=anthropic for 'create_batch'"):
        litellm.create_batch(completion_window="24h", endpoint="/v1/chat/completions", input_file_id=upload.id,
                             custom_llm_provider="anthropic", **base)


def test_run_batch_on_the_command_line(write_set, tmp_path, capsys, monkeypatch):
    """``cost-of-pass run --batch``: the dry run's bill at the batch discount; a set with a model that has no batch API
    is one line (exit 2) after its bill."""
    from helpers.cli import runner

    monkeypatch.setenv("STUB_API_KEY", STUB_KEY)
    path = write_set(base_params(name="cli"), stub_models("http://127.0.0.1:9/v1"), PRICES)
    assert runner.main(["run", str(path), "--dry-run"]) == 0
    sync = capsys.readouterr().out
    assert runner.main(["run", str(path), "--dry-run", "--batch"]) == 0
    batched = capsys.readouterr().out
    assert "at each model's batch discount (collection mode batch)" in batched and "discount" not in sync

    def usd(text):  # stub-a's line: USD to 4 decimals
        return float(next(line for line in text.splitlines() if "stub-a " in line).split("$")[1])
    assert usd(batched) == pytest.approx((1 - DISCOUNT) * usd(sync), abs=1e-4)
    local = write_set({"name": "localcli", "tasks": ["two_digit_addition"], "models": ["local-smollm2-135m"],
                       "n_problems": 2, "n_runs": 1, "price_snapshot": "local_cpu_2026-11", "budget_usd": 1.0,
                       "output_dir": str(tmp_path / "localcli"),
                       "task_options": {"two_digit_addition": {"source": "generated"}}})
    assert runner.main(["run", str(local), "--dry-run", "--batch"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "local-smollm2-135m (local) have no batch API" in err[0]
