"""Collection through the providers' batch APIs (``collection: {mode: batch}``, or ``cost-of-pass run --batch``).

Calls go in rounds: each round sends the next call of every pending attempt (a refinement's second call waits for its
first) as one batch per model (``backends.batch_openai``, ``backends.batch_anthropic``), waits for the batches to end,
polling every ``collection.poll_s`` seconds up to ``collection.deadline_s``, and appends one ordinary ``CallRecord``
per call with ``service_tier: batch`` (priced at the snapshot's ``batch_discount``). A row the batch did not run
(expired, cancelled) or that failed in a way asking again may mend (429, 5xx) is a recorded failure and goes into the
next round, up to ``max_retries`` times, as the synchronous path retries; any other failure ends the attempt for this
run (the next run tries it again), and an unusable reply is a recorded failure that is not sent again in this run.

Nothing acknowledged is lost and nothing is paid twice: each batch is in the journal (``batch_journal``) before its
creation is asked for and, with its id, before anything waits on it, so a run that stops (Ctrl-C, ``kill -9``, the
deadline) leaves it there and the next run — in either mode — polls it and records its results before it plans a call
(``resume``). Result lines that cannot be read, name no call of the batch, or repeat one are ignored and counted;
a call the batch returned nothing for is a recorded failure.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from functools import partial
from types import ModuleType
from typing import Any, Callable

import pandas as pd

from helpers.collect import batch_journal as journal
from helpers.collect.backends import batch_anthropic, batch_openai
from helpers.collect.backends.batch_http import BatchHTTP, Row, Status
from helpers.collect.backends.openai_compatible import ProviderError
from helpers.collect.budget import Budget
from helpers.collect.calling import STOP, Caller, call_with_retries, read_reply
from helpers.collect.plan import Attempt
from helpers.collect.records import KEY, CallRecord, RecordStore
from helpers.core.errors import CostOfPassError
from helpers.core.models import ModelSpec
from helpers.core.params import Params
from helpers.core.prices import PriceSnapshot, cost_usd
from helpers.core.redaction import redact

WIRES: dict[str, ModuleType] = {"openai": batch_openai, "anthropic": batch_anthropic}  # provider -> wire format
DEFAULT_KEYS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
TIER = "batch"


def check_batchable(models: list[ModelSpec]) -> None:
    """One line, before any call, naming the models that have no batch API the collector speaks (local models among
    them: they run here) — imported models make no call, and a simulated model stands for a real one: its calls are
    made here as in sync mode and recorded in the batch tier (``Caller.record``)."""
    bad = [f"{m.name} ({m.provider})" for m in models
           if not m.imported and not m.simulated and m.provider not in WIRES]
    if bad:
        raise CostOfPassError(f"collection mode batch: model(s) {', '.join(bad)} have no batch API this collector "
                              f"speaks (batch: {', '.join(WIRES)}); use collection mode sync for them")


@dataclass
class Pending:
    """An attempt's calls still to make (indices, in order), the responses of its calls made (call -> text), and how
    many times its next call has been sent."""

    attempt: Attempt
    calls: list[int]
    responses: dict[int, str] = field(default_factory=dict)
    sent: int = 0


@dataclass
class Outcome:
    """What a batch returned: its calls' records, whether each may be sent again, and result lines ignored."""

    records: dict[str, CallRecord] = field(default_factory=dict)
    retryable: set[str] = field(default_factory=set)
    ignored: int = 0


def collect_batches(params: Params, todo: list, done: dict[tuple, str], store: RecordStore, caller: Caller,
                    snapshot: PriceSnapshot, budget: Budget, est_by: dict, tally, bar) -> int:
    """Make the pending calls ``todo`` ([(attempt, call indices)]) in batch rounds (module docstring); ``done``: the
    recorded responses they build on, by key; ``est_by``: estimated USD per call by (task, model). Counts into
    ``tally`` and ``bar``; returns the number of calls left unsent (the budget, or a stop)."""
    queue = [Pending(a, list(c), {k: done[a.key(k)] for k in range(a.method.collected_calls) if a.key(k) in done})
             for a, c in todo]
    deadline = time.monotonic() + params.collection.deadline_s  # the run's, over all its rounds
    while queue and not STOP.is_set() and not budget.exhausted:
        ready, held = _start(queue, budget, est_by)
        if not ready:
            break
        outcome = send_round(params, caller, store, ready, deadline)
        _charge(budget, snapshot, outcome, sum(est_by[_cell(p)] for p in ready))
        bar.update(tally.add(list(outcome.records.values())))
        queue = _advance(ready, outcome, params.max_retries) + held
    return sum(len(p.calls) for p in queue)


def _cell(p: Pending) -> tuple[str, str]:
    return p.attempt.problem.task, p.attempt.model.name


def _start(queue: list[Pending], budget: Budget, est_by: dict) -> tuple[list[Pending], list[Pending]]:
    """The attempts whose next call the budget lets start now, and the rest."""
    for i, p in enumerate(queue):
        if STOP.is_set() or not budget.start(est_by[_cell(p)]):
            return queue[:i], queue[i:]
    return queue, []


def _charge(budget: Budget, snapshot: PriceSnapshot, outcome: Outcome, estimate_usd: float) -> None:
    """Settle a round with the budget: its estimate out, its records' USD (at the batch rate) in."""
    records = list(outcome.records.values())
    frame = pd.DataFrame([{k: getattr(r, k) for k in ("model", "prompt_tokens", "cache_read_tokens",
                                                       "cache_write_tokens", "completion_tokens", "service_tier")}
                          for r in records])
    budget.finish(estimate_usd, float(cost_usd(frame, snapshot).sum()) if records else 0.0)


def _advance(ready: list[Pending], outcome: Outcome, max_retries: int) -> list[Pending]:
    """The attempts with a call for the next round: an ok call moves its attempt on, a retryable failure is sent
    again (up to ``max_retries`` times), any other failure ends the attempt for this run."""
    out = []
    for i, p in enumerate(ready):
        record = outcome.records.get(_custom_id(i))
        if record is not None and record.status == "ok":
            p.responses[p.calls.pop(0)] = record.response or ""
            p.sent = 0
        elif record is None or _custom_id(i) not in outcome.retryable or p.sent > max_retries:
            continue
        if p.calls:
            out.append(p)
    return out


def _custom_id(i: int) -> str:
    """The custom id of a round's ``i``-th call (unique within its batch: the batches of a round share the count)."""
    return f"cop-{i}"


def send_round(params: Params, caller: Caller, store: RecordStore, ready: list[Pending], deadline: float) -> Outcome:
    """Send the next call of every attempt of ``ready`` as one batch per model (a batch at most
    ``collection.max_batch_calls`` calls), wait for them all (until ``deadline``, ``time.monotonic`` seconds) and
    record their results."""
    groups: dict[str, list[tuple[str, Pending]]] = {}
    for i, p in enumerate(ready):
        groups.setdefault(p.attempt.model.name, []).append((_custom_id(i), p))
    entries = []
    size = params.collection.max_batch_calls
    for model_calls in groups.values():
        for start in range(0, len(model_calls), size):
            entries.append(submit(params, caller, store.root, model_calls[start:start + size]))
    return wait(params, store, entries, deadline)


def _key_env(model: ModelSpec) -> str | None:
    return model.api_key_env or DEFAULT_KEYS.get(model.provider)


def http_for(params: Params, entry: journal.Entry) -> tuple[ModuleType, BatchHTTP]:
    """The wire format and the client of a batch's API (its key from the environment, by name)."""
    wire = WIRES[entry.provider]
    key = os.environ.get(entry.key_env) if entry.key_env else None
    return wire, wire.client(entry.api_base, key, params.timeout_s)


def submit(params: Params, caller: Caller, records, calls: list[tuple[str, Pending]]) -> journal.Entry:
    """Send one batch of ``calls`` ([(custom_id, attempt)], one model): its requests and records to be are in the
    journal before the batch is created, and its id is before anything waits on it."""
    model = calls[0][1].attempt.model
    lines, templates = [], {}
    for cid, p in calls:
        a, c = p.attempt, p.calls[0]
        messages = a.method.messages(a.problem.question, c, p.responses)
        p.sent += 1
        kw = caller.kwargs(a, c, messages)
        lines.append(WIRES[model.provider].request_line(cid, kw))
        template = caller.record(a, c, messages, caller.model_args(a.model)[0], time.perf_counter(), None, p.sent,
                                 "batch result not yet recorded", False)
        templates[cid] = template.as_dict()
    entry = journal.new_entry(model.provider, model.name, model.api_base, _key_env(model), templates)
    wire, http = http_for(params, entry)
    entry.prepared = _retried(params, partial(wire.prepare, http, lines), f"model '{model.name}': uploading a batch")
    journal.write(records, entry)
    entry.batch_id = _create(params, wire, http, lines, entry, records)
    entry.state = "pending"
    journal.write(records, entry)
    return entry


def _retried(params: Params, request: Callable[[], Any], what: str) -> Any:
    """``request()`` with the synchronous path's retries (429, 5xx, timeouts, connection errors); one line if it still
    fails."""
    reply, _, error, _ = call_with_retries(request, params.max_retries, params.retry_backoff_s)
    if error is not None:
        raise CostOfPassError(f"{what}: {error}")
    return reply


def _create(params: Params, wire: ModuleType, http: BatchHTTP, lines: list, entry: journal.Entry, records) -> str:
    """Create the batch; asked again only where the provider clearly refused (an HTTP 429 or 5xx status): after a
    timeout or a reply that cannot be read the batch may exist, so the run stops and the next one looks for it."""
    for attempt in range(params.max_retries + 1):
        try:
            return wire.create(http, lines, entry.prepared)
        except ProviderError as err:
            refused = err.status_code is not None and err.retryable
            if refused and attempt < params.max_retries and not STOP.is_set():
                time.sleep(min(60.0, params.retry_backoff_s * 2**attempt))
                continue
            if err.status_code is not None and not err.replied:  # refused: nothing was created, nothing paid
                journal.close(records, entry, "refused")
                raise CostOfPassError(f"model '{entry.model}': the batch API refused the batch: "
                                      f"{redact(str(err))[:300]}") from None
            raise CostOfPassError(f"model '{entry.model}': no answer to the creation of a batch of {entry.n_calls} "
                                  f"calls ({redact(str(err))[:200]}); it is in the journal: run again to find it "
                                  "(or its calls are sent again where the provider cannot say)") from None
    raise AssertionError("unreachable")


def wait(params: Params, store: RecordStore, entries: list[journal.Entry], deadline: float,
         resumed: bool = False) -> Outcome:
    """Poll ``entries`` until each has ended, recording each one's results as it ends; past ``deadline``
    (``time.monotonic`` seconds) or on a stop the run ends with one line, the batches still pending in the journal."""
    outcome, waiting = Outcome(), list(entries)
    while waiting:
        waiting = [e for e in waiting if not _ended(params, store, e, outcome, resumed)]
        if waiting:
            _pause(params, deadline, waiting)
    if outcome.ignored:
        print(f"batch: {outcome.ignored} result line(s) ignored (unreadable, of no call of the batch, or repeated)",
              file=sys.stderr)
    return outcome


def _ended(params: Params, store: RecordStore, entry: journal.Entry, outcome: Outcome, resumed: bool) -> bool:
    """Look at a batch once; if it has ended, record its results (``finish``). Whether it has."""
    wire, http = http_for(params, entry)
    status = _retried(params, partial(wire.status, http, entry.batch_id), f"batch {entry.batch_id}")
    if status.ended:
        rows = _retried(params, partial(wire.results, http, entry.batch_id, status),
                        f"results of batch {entry.batch_id}")
        finish(store, entry, status, rows, outcome, resumed)
    return status.ended


def _pause(params: Params, deadline: float, waiting: list[journal.Entry]) -> None:
    """Sleep one polling interval; one line instead when the deadline has passed or the run is stopping."""
    ids = ", ".join(str(e.batch_id) for e in waiting)
    if time.monotonic() + params.collection.poll_s > deadline:
        raise CostOfPassError(f"batch(es) {ids} still running after collection.deadline_s "
                              f"{params.collection.deadline_s:g} s; their ids are recorded: run again to resume them")
    end = time.monotonic() + params.collection.poll_s
    while time.monotonic() < end:
        if STOP.is_set():
            raise KeyboardInterrupt(f"stopped while batch(es) {ids} run; run again to resume them")
        time.sleep(min(0.2, params.collection.poll_s))


def finish(store: RecordStore, entry: journal.Entry, status: Status, rows: list[Row], outcome: Outcome,
           resumed: bool = False) -> None:
    """Record an ended batch: one record per call (its row, or a failure where it has none), appended and fsynced,
    then the batch marked done in the journal. A resumed batch skips calls already recorded ok (a run that stopped
    while recording it)."""
    by_id, ignored = _rows_by_call(entry, rows)
    skip = _recorded_ok(store, entry) if resumed else set()
    for cid, template in entry.calls.items():
        if tuple(template[k] for k in KEY) in skip:
            continue
        row = by_id.get(cid) or missing_row(cid, status)
        record = record_of(template, row, entry.submitted_at)
        store.append(record)
        outcome.records[cid] = record
        if record.status != "ok" and row.retryable:
            outcome.retryable.add(cid)
    store.sync()
    journal.close(store.root, entry, status.state)
    outcome.ignored += ignored


def _rows_by_call(entry: journal.Entry, rows: list[Row]) -> tuple[dict[str, Row], int]:
    """The rows by custom id, the first of each; and how many lines were ignored (unreadable, of no call of the
    batch, or a repeat)."""
    by_id: dict[str, Row] = {}
    ignored = 0
    for row in rows:
        if row.custom_id is None or row.custom_id not in entry.calls or row.custom_id in by_id:
            ignored += 1
        else:
            by_id[row.custom_id] = row
    return by_id, ignored


def _recorded_ok(store: RecordStore, entry: journal.Entry) -> set[tuple]:
    """Keys of the batch's calls already recorded ok."""
    shards = {(t["task"], t["model"]) for t in entry.calls.values()}
    done = store.done(only=shards)
    return set(done[list(KEY)].itertuples(index=False, name=None))


def missing_row(cid: str, status: Status) -> Row:
    """The outcome of a call the ended batch returned no row for: the batch's failure (final: the provider refused its
    input); not run because it expired or was cancelled (sent again); else an unusable reply (the provider may have
    billed it: not sent again in this run)."""
    if status.failure:
        return Row(cid, error=f"the batch failed: {status.failure}"[:500])
    if status.state in ("expired", "cancelled", "canceled"):
        return Row(cid, error=f"the batch {status.state} before this call ran", retryable=True)
    return Row(cid, error=f"unusable reply: the batch ({status.state}) returned no result for this call",
               unusable=True)


def record_of(template: dict[str, Any], row: Row, submitted_at: float) -> CallRecord:
    """The record of one call of a batch from its journal template and its row; latency from the batch's sending to
    now (seconds), the batch tier."""
    record = CallRecord.from_dict(dict(template))
    record.service_tier = TIER
    record.latency_s = round(max(0.0, time.time() - submitted_at), 4)
    record.created_at = ""
    if row.reply is not None:
        record.status, record.error = "ok", None
        read_reply(record, row.reply)
        record.cache_read_tokens, record.cache_write_tokens = row.cache_read_tokens, row.cache_write_tokens
    else:
        record.status, record.error, record.unusable = "error", redact(row.error or "batch row failed")[:500], \
            row.unusable
    return record


def resume(params: Params, store: RecordStore) -> int:
    """Finish the batches an earlier run left in the journal (module docstring), before anything is planned: a
    ``submitting`` one is looked for by its input file and dropped if it was never created; every ``pending`` one is
    polled to its end and recorded. Returns the number of records made."""
    made, deadline = 0, time.monotonic() + params.collection.deadline_s
    for entry in journal.open_entries(store.root):
        if entry.key_env and not os.environ.get(entry.key_env):
            raise CostOfPassError(f"batch {entry.batch_id or entry.name} of model '{entry.model}' is pending and its "
                                  f"key {entry.key_env} is not in the environment; export it and run again")
        if entry.state == "submitting" and not _adopt(params, store.root, entry):
            continue
        outcome = wait(params, store, [entry], deadline, resumed=True)
        made += len(outcome.records)
    return made


def _adopt(params: Params, records, entry: journal.Entry) -> bool:
    """Whether a batch whose creation had no answer exists (then it is pending); if not, it is closed (its calls are
    planned again)."""
    wire, http = http_for(params, entry)
    found = _retried(params, partial(wire.find, http, entry.prepared), f"looking for batch {entry.name}")
    if found is None:
        print(f"batch {entry.name} of model '{entry.model}' ({entry.n_calls} calls): the provider has no batch of it "
              "(or cannot say); its calls are planned again", file=sys.stderr)
        journal.close(records, entry, "not found")
        return False
    entry.batch_id, entry.state = found, "pending"
    journal.write(records, entry)
    return True
