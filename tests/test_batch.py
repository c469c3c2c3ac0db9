"""Batch collection (``collection: {mode: batch}``) end to end against the batch stub on 127.0.0.1 (``batch_stub``):
the records a synchronous run makes, at the batch rate; bad rows recorded and sent again; a restart with a batch
pending polls it and sends nothing twice; Anthropic's message batches; no key in any file written."""

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
    assert cost_usd(batched, snapshot).sum() == pytest.approx((1 - DISCOUNT) * cost_usd(synced, snapshot).sum())
    assert run_collection(preflight(params), progress=False).made_calls == 0 and batch_stub.state.creations == 4
    assert [e for e in journal.open_entries(params.records_path)] == []
