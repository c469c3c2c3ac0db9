"""Typed records and messages (issue 64 item 3): every shape of call record the project ever wrote loads through the
migration to the newest ``CallRecord``; a record that does not fit is one line naming its file and line; agent calls
and the sandbox's job header are typed, round-trip, and are checked on read."""

from __future__ import annotations

import ast
import inspect
import json
import math
import re
from dataclasses import fields
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from helpers.collect import schema
from helpers.collect.records import COLUMNS, RecordStore, _parse
from helpers.collect.schema import SCHEMA_VERSION, AgentCall, CallRecord, SchemaError, upgrade
from helpers.core.errors import CostOfPassError
from helpers.grade.plain import BadHeader, JobHeader

ROOT = Path(__file__).resolve().parents[1]

# ---- every shape the project wrote, as plain JSON (the field sets of ``CallRecord`` at each commit) ----------------
# v0, 80db9f7 (the first record store; written with ensure_ascii=False)
V0 = {"task": "gsm8k", "problem_id": "p0", "model": "m", "method": "vanilla", "run": 1, "call": 0,
      "litellm_model": "openai/m", "prompt_hash": "ab12", "status": "ok", "response": "The answer is 4 — für",
      "finish_reason": "stop", "prompt_tokens": 100, "completion_tokens": 20, "reasoning_tokens": 5,
      "latency_s": 1.25, "tries": 2, "error": None, "sampling": {"temperature": 0.7, "top_p": 1.0},
      "simulated": False, "created_at": "2026-11-22T03:16:40Z"}
# v1, 859a451: fingerprint, unusable
V1 = {**V0, "problem_id": "p1", "fingerprint": "4cf0e6b68400c12b", "unusable": False}
# v2, e4d1695: imported records
V2 = {**V1, "problem_id": "p2", "source": "RouteLLM (lmsys), MIT", "source_correct": True,
      "token_counts": "tokenizer: tiktoken o200k_base"}
# v3, 7f1619c: an imported agent attempt's calls
CALLS = [{"model": "gpt-4-0613", "source_model": "gpt-4", "prompt_tokens": 60, "completion_tokens": 12,
          "latency_s": 0.5, "time": "2024-04-01 10:00:00", "temperature": 0.0},
         {"model": "gpt-4-0613", "source_model": "gpt-4", "prompt_tokens": 40, "completion_tokens": 8,
          "latency_s": 0.75, "time": "", "temperature": None}]
V3 = {**V2, "problem_id": "p3", "agent_calls": CALLS}
# v4, 90aa48c: an attempt billed in USD by its source (latency 0 as an int: the importer's sum of no calls)
V4 = {**V3, "problem_id": "p4", "agent_calls": None, "billed_usd": 0.0123, "billed_calls": 7, "latency_s": 0}
SHAPES = {0: V0, 1: V1, 2: V2, 3: V3, 4: V4}
ADDED_LATER = {"fingerprint": "", "unusable": False, "source": None, "source_correct": None,
               "token_counts": "provider", "agent_calls": None, "billed_usd": None, "billed_calls": None,
               "cache_read_tokens": 0, "cache_write_tokens": 0, "service_tier": None, "source_usd": None}


def expected(shape: dict) -> dict:
    """What a record of ``shape`` reads as: its own values, the fields added after it at their defaults."""
    return {**ADDED_LATER, **shape, "schema_version": SCHEMA_VERSION}


def write_lines(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_every_older_shape_is_told_apart_by_its_fields():
    assert [schema.version_of(dict(shape)) for shape in SHAPES.values()] == [0, 1, 2, 3, 4]
    assert schema.version_of({**V4, "schema_version": 5}) == 5
    assert len(schema.MIGRATIONS) == SCHEMA_VERSION  # one migration per older version


@pytest.mark.parametrize("version", sorted(SHAPES))
def test_a_record_of_each_older_shape_loads_as_the_newest_record(version):
    record = CallRecord.from_dict(json.loads(json.dumps(SHAPES[version])))
    want = expected(SHAPES[version])
    calls = want.pop("agent_calls")
    assert {k: v for k, v in record.as_dict().items() if k != "agent_calls"} == want
    assert record.agent_calls == (None if calls is None else tuple(AgentCall(**c) for c in calls))
    assert record.schema_version == SCHEMA_VERSION and record.status == "ok"


def test_the_store_reads_a_shard_holding_every_shape(tmp_path):
    """One shard, a line of each shape (v0's unescaped, as it was written), read through the store: one row each, in
    the newest schema, the agent calls as the JSON text the analysis reads."""
    lines = [json.dumps(V0, ensure_ascii=False, sort_keys=True)]
    lines += [json.dumps(SHAPES[v], ensure_ascii=True, sort_keys=True) for v in (1, 2, 3, 4)]
    write_lines(tmp_path / "gsm8k" / "m.jsonl", lines)
    df = RecordStore(tmp_path).load()
    assert list(df.columns) == COLUMNS and "schema_version" not in df
    df = df.set_index("problem_id")
    assert df.loc["p0", "response"] == V0["response"] and df.loc["p0", "fingerprint"] == ""
    assert not df["unusable"].any()
    assert df["token_counts"].tolist() == ["provider", "provider", *[V2["token_counts"]] * 3]
    assert df.loc["p2", "source_correct"] and pd.isna(df.loc["p1", "source_correct"])
    assert json.loads(df.loc["p3", "agent_calls"]) == CALLS and df.loc["p4", "agent_calls"] == ""
    assert df.loc["p4", "billed_usd"] == 0.0123 and math.isnan(df.loc["p3", "billed_usd"])
    assert df["sampling"].map(json.loads).tolist() == [V0["sampling"]] * 5


def test_a_v0_failure_without_token_usage_reads_as_an_unusable_reply():
    """v0 failed a reply without token counts as "provider reported no token usage"; v1 calls that an unusable reply
    (the provider replied and may have billed)."""
    failed = {**V0, "status": "error", "response": "text", "error": "provider reported no token usage"}
    assert CallRecord.from_dict(failed).unusable is True
    assert CallRecord.from_dict({**V0, "status": "error", "error": "RateLimitError"}).unusable is False


def test_the_committed_local_records_load_through_the_migration():
    """results/local/records holds v1 records (859a451's shape): every line reads, and none churns."""
    shards = sorted((ROOT / "results" / "local" / "records").glob("*/*.jsonl"))
    assert shards
    for shard in shards:
        rows, end = _parse(shard, shard.read_bytes(), 1)
        assert end == shard.stat().st_size and rows
        assert all(r["schema_version"] == SCHEMA_VERSION and r["token_counts"] == "provider" for r in rows)


def test_a_record_written_now_says_its_version_and_is_otherwise_the_same_bytes(tmp_path):
    """The newest shape is the v4 line plus ``schema_version``: records of older shapes are never rewritten, and a
    reader of the newest sees every older one migrated."""
    record = CallRecord.from_dict(json.loads(json.dumps({**V3, "agent_calls": CALLS})))
    with RecordStore(tmp_path) as store:
        store.append(record)
    line = RecordStore(tmp_path).shard("gsm8k", "m").read_text(encoding="utf-8")
    v4 = {**V3, "billed_usd": None, "billed_calls": None, "cache_read_tokens": 0, "cache_write_tokens": 0,
          "service_tier": None, "source_usd": None}
    assert line == json.dumps({**v4, "schema_version": SCHEMA_VERSION}, ensure_ascii=True, sort_keys=True) + "\n"
    assert json.loads(line)["agent_calls"] == CALLS


def test_the_agent_call_and_the_record_round_trip():
    call = AgentCall.from_dict(dict(CALLS[0]))
    assert call.as_dict() == CALLS[0] and AgentCall.from_dict(call.as_dict()) == call
    with pytest.raises(AttributeError):
        call.model = "other"  # type: ignore[misc]  # frozen
    record = CallRecord.from_dict(json.loads(json.dumps(V3)))
    assert CallRecord.from_dict(json.loads(json.dumps(record.as_dict()))) == record


BAD = {
    "a newer version": ({**V4, "schema_version": SCHEMA_VERSION + 1}, "newer than this code reads"),
    "a version that is no number": ({**V4, "schema_version": "5"}, "field 'schema_version' is '5'"),
    "an unknown status": ({**V4, "status": "timeout"}, "field 'status' is 'timeout', not one of ok, error"),
    "a count as text": ({**V4, "prompt_tokens": "100"}, "field 'prompt_tokens' is '100' (str), not int"),
    "a flag as a number": ({**V4, "unusable": 0}, "field 'unusable' is 0 (int), not bool"),
    "a negative count": ({**V4, "completion_tokens": -1}, "field 'completion_tokens' is -1, not a count"),
    "a latency of NaN": ({**V4, "latency_s": float("nan")}, "field 'latency_s' is nan, not a finite number"),
    "an unknown field": ({**V4, "usd": 1.0}, "unknown field(s) 'usd'"),
    "a required field missing": ({k: v for k, v in V4.items() if k != "litellm_model"}, "litellm_model missing"),
    "an agent call without its model": ({**V3, "agent_calls": [{k: v for k, v in CALLS[0].items() if k != "model"}]},
                                        "agent_calls[0]: an agent call has fields"),
    "an agent call's tokens as text": ({**V3, "agent_calls": [CALLS[0], {**CALLS[1], "prompt_tokens": "4"}]},
                                       "agent_calls[1]: agent call field 'prompt_tokens' is '4', not int"),
    "agent calls that are no list": ({**V3, "agent_calls": "[]"}, "field 'agent_calls' is '[]' (str)"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_a_record_that_does_not_fit_is_one_line_naming_file_and_line(tmp_path, name):
    bad, message = BAD[name]
    with pytest.raises(SchemaError, match=re.escape(message)):
        upgrade(json.loads(json.dumps(bad)))
    shard = write_lines(tmp_path / "gsm8k" / "m.jsonl", [json.dumps(V4, sort_keys=True), json.dumps(bad)])
    with pytest.raises(CostOfPassError) as err:
        RecordStore(tmp_path).load()
    text = str(err.value)
    assert text.startswith(f"{shard} line 2: ") and message in text and "\n" not in text, text


def test_a_snapshot_of_another_schema_is_parsed_again(tmp_path):
    """A snapshot's rows are of the schema it was written in (its ``schema_version`` metadata): one of another, or of
    none (written before the schema), is not read; the shard is parsed, every line checked, again."""
    write_lines(tmp_path / "gsm8k" / "m.jsonl", [json.dumps(V1, sort_keys=True)])
    assert RecordStore(tmp_path).load()["problem_id"].tolist() == ["p1"]
    snapshot = tmp_path / ".snapshot" / "gsm8k" / "m.parquet"
    table = pq.read_table(snapshot)
    meta = table.schema.metadata
    assert meta[b"schema_version"] == str(SCHEMA_VERSION).encode()
    forged = table.set_column(table.schema.get_field_index("problem_id"), "problem_id", pa.array(["forged"]))
    pq.write_table(forged.replace_schema_metadata({k: v for k, v in meta.items() if k != b"schema_version"}), snapshot)
    assert RecordStore(tmp_path).load()["problem_id"].tolist() == ["p1"]


def test_every_field_says_what_it_is():
    """A docstring per field of ``CallRecord`` and ``AgentCall`` (the string right below it), and the record's units
    said where it has them."""
    for cls in (CallRecord, AgentCall):
        tree = ast.parse(inspect.getsource(cls))
        body = tree.body[0].body  # type: ignore[attr-defined]
        documented = {node.target.id for node, after in zip(body, body[1:])
                      if isinstance(node, ast.AnnAssign) and isinstance(after, ast.Expr)
                      and isinstance(after.value, ast.Constant) and isinstance(after.value.value, str)}
        assert documented == {f.name for f in fields(cls)}, {f.name for f in fields(cls)} - documented
    source = inspect.getsource(CallRecord)
    assert all(unit in source for unit in ("(seconds)", "(tokens)", "(USD)"))


# ---- the sandbox's job header ------------------------------------------------------------------------------------
HEADER = JobHeader(id=7, mode="split", entry_point="add", calls=("add", "helper"), cpu_s=3, memory_mb=1024,
                   backstop_s=4, hook=True)


def test_the_job_header_round_trips_through_its_frame():
    frame = json.dumps(HEADER.to_dict()).encode()
    assert JobHeader.from_dict(json.loads(frame)) == HEADER
    assert HEADER.to_dict()["calls"] == ["add", "helper"]
    with pytest.raises(AttributeError):
        HEADER.cpu_s = 100  # type: ignore[misc]  # immutable


@pytest.mark.parametrize("change, why", [
    ({"isolated": False}, "not so: isolated"),  # only the worker decides whether it is isolated
    ({"scratch": "/"}, "not so: scratch"),
    ({"mode": "both"}, "'mode'"),
    ({"cpu_s": "3"}, "'cpu_s'"),
    ({"cpu_s": True}, "'cpu_s'"),
    ({"cpu_s": 0}, "'cpu_s'"),
    ({"memory_mb": 1024.5}, "'memory_mb'"),
    ({"backstop_s": float("inf")}, "'backstop_s'"),
    ({"backstop_s": -1}, "'backstop_s'"),
    ({"hook": 1}, "'hook'"),
    ({"id": -1}, "'id'"),
    ({"entry_point": ""}, "'entry_point'"),
    ({"calls": []}, "'calls'"),
    ({"calls": "add"}, "'calls'"),
    ({"calls": ["add", 3]}, "'calls'"),
])
def test_a_header_that_is_not_one_is_refused_in_one_line(change, why):
    data = {**HEADER.to_dict(), **change}
    with pytest.raises(BadHeader) as err:
        JobHeader.from_dict(data)
    assert why in str(err.value) and "\n" not in str(err.value)


def test_a_header_missing_a_field_or_not_an_object_is_refused():
    data = HEADER.to_dict()
    del data["hook"]
    with pytest.raises(BadHeader, match="not so: hook"):
        JobHeader.from_dict(data)
    with pytest.raises(BadHeader, match="not list"):
        JobHeader.from_dict([HEADER.to_dict()])
