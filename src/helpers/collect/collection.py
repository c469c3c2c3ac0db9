"""Collection: every planned call through litellm, once — the stage's driver.

Bounded concurrency (threads; HTTP providers on one event loop; simulated models on forked workers), retries
with exponential backoff on 429 / 5xx / timeouts / connection errors (``calling``), one record per call in the
append-only store, a budget that is checked before the first call and enforced while calling (``budget``).
A rerun with the same parameters finds every call in the store (``plan``) and makes none; an interrupted run
resumes where it stopped. The modules it drives (plan, budget, calling) must not import this one.
"""

from __future__ import annotations

import logging
import os
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from helpers.collect import batch_journal as journal
from helpers.collect.backends.openai_compatible import OpenAICompatibleClient
from helpers.collect.budget import Budget, check_budget, estimate_calls, recorded_spend_usd
from helpers.collect.calling import STOP, Caller, arun_attempt, run_attempt, stopping
from helpers.collect.plan import Attempt, in_plan, needed_responses, pending, plan_for, plan_keys, to_call
from helpers.collect.records import CallRecord, RecordStore
from helpers.collect.workers import partition
from helpers.core.context import Context
from helpers.core.errors import CostOfPassError
from helpers.core.models import LOCAL_PROVIDERS, ModelSpec
from helpers.core.params import Params
from helpers.core.pool import can_fork, run_forked
from helpers.core.prices import PriceSnapshot, cost_usd
from helpers.core.progress import progress_bar
from helpers.core.tasks import Problem

# the record columns the summary prices (``core.prices.cost_usd``: every token bucket, the tier, a billed USD)
PRICED = ["prompt_tokens", "cache_read_tokens", "cache_write_tokens", "completion_tokens", "service_tier", "billed_usd"]


@dataclass
class CollectResult:
    planned_calls: int
    made_calls: int = 0
    failed_calls: int = 0
    unusable_replies: int = 0  # replies the provider sent (and may have billed) that could not be used
    spent_before_usd: float = 0.0
    spent_now_usd: float = 0.0
    stopped_by_budget: bool = False
    pending_calls: int = 0
    summary: pd.DataFrame = field(default_factory=pd.DataFrame)
    imported: Any = None  # imports.ImportResult of a set whose records others made (import_from)
    notes: list[str] = field(default_factory=list)  # how the calls were chosen (the racing design's calibration)


@dataclass
class Tally:
    """Calls made, failed and unusable, and calls not started (budget), over the collection's paths."""

    made: int = 0
    failed: int = 0
    unusable: int = 0
    not_started: int = 0

    def add(self, records: list[CallRecord], not_started: int = 0) -> int:
        """Count an attempt's records; returns how many there were."""
        self.made += len(records)
        self.failed += sum(r.status != "ok" for r in records)
        self.unusable += sum(r.unusable for r in records)
        self.not_started += not_started
        return len(records)

    def merge(self, other: "Tally") -> None:
        for k in ("made", "failed", "unusable", "not_started"):
            setattr(self, k, getattr(self, k) + getattr(other, k))


def collect(params: Params, problems: dict[str, list[Problem]], models: list[ModelSpec], snapshot: PriceSnapshot,
            progress: bool = True, caller: Caller | None = None,
            attempts: list[Attempt] | None = None) -> CollectResult:
    """Make every call of the set that is not yet in the store, within the budget (USD).

    ``attempts``: only these of the set's planned attempts (a wave of the racing design), not all of them.
    Holds the output directory's lock throughout, so a second collector on it refuses to start.
    With nothing pending, litellm is not even imported.
    """
    from helpers.core.locking import output_lock

    with output_lock(params.output_path, params.settings.part):
        return _collect(params, problems, models, snapshot, progress, caller, attempts)


def _collect(params: Params, problems, models, snapshot: PriceSnapshot, progress: bool, caller: Caller | None,
             attempts: list[Attempt] | None = None) -> CollectResult:
    store = RecordStore(params.records_path, part=params.settings.part)
    shards = None if attempts is None else {(a.problem.task, a.model.name) for a in attempts}  # the shards to read
    attempts = plan_for(params, problems, models) if attempts is None else attempts
    planned = plan_keys(attempts)
    imported = None
    if params.import_from is not None:
        from helpers.collect.imports import import_records

        imported = import_records(params, attempts, store)
        store.close()
    resumed = 0
    if journal.open_entries(store.root):  # batches an earlier run left pending, in either mode: recorded, never resent
        from helpers.collect.batch import resume

        with store:
            resumed = resume(params, store)
    todo = to_call(pending(attempts, store.done(only=shards), planned))
    spent = recorded_spend_usd(params, snapshot)
    est = estimate_calls(todo, snapshot, params.sampling.model_dump(), params.service_tier)
    check_budget(params, spent, est)
    result = CollectResult(planned_calls=sum(a.method.collected_calls for a in attempts), spent_before_usd=spent,
                           imported=imported)
    if resumed:
        result.notes.append(f"batch: {resumed} calls of batches an earlier run left pending recorded (not sent again)")
    caller = caller or Caller(params)
    if any(not (a.model.simulated and caller.direct_sim) for a, _ in todo):  # a call through litellm
        from helpers.collect.backends import register_all

        _quiet_litellm()
        register_all()
    budget, tally, left = _call_all(params, todo, store, caller, snapshot, spent, est, progress)
    result.made_calls, result.failed_calls, result.unusable_replies = tally.made, tally.failed, tally.unusable
    result.spent_now_usd, result.stopped_by_budget = budget.spent_usd, budget.exhausted
    result.pending_calls = tally.not_started + left
    latest = store.latest(PRICED, sort=False, only=shards)
    result.summary = summarize(latest[in_plan(latest, attempts, planned[0])], snapshot)
    return result


def _call_all(params: Params, todo: list, store: RecordStore, caller: Caller | None, snapshot: PriceSnapshot,
              spent: float, est: pd.DataFrame, progress: bool) -> tuple[Budget, Tally, int]:
    """Make the pending calls: HTTP providers on one event loop (in batch mode: through their batch APIs), in-process
    ones on threads, simulated ones on several processes. Returns the budget (its spend, USD), the tally and the
    number of calls left in the queues."""
    done = needed_responses(todo, store)  # what run_attempt reads: responses of earlier calls
    est_by = {(r.task, r.model): r.usd / r.calls for r in est.itertuples()}
    http = deque((a, c) for a, c in todo if a.model.provider not in LOCAL_PROVIDERS)
    local = deque((a, c) for a, c in todo if a.model.provider in LOCAL_PROVIDERS and not a.model.simulated)
    simulated = deque((a, c) for a, c in todo if a.model.simulated)
    workers = min(params.concurrency, os.cpu_count() or 1, len({(a.problem.task, a.model.name) for a, _ in simulated}))
    forked = workers > 1 and can_fork()
    budget, tally = Budget(params.budget_usd, spent, shared=forked), Tally()
    bar = progress_bar(total=sum(len(c) for _, c in todo), desc=f"{params.name} calls", unit="call",
                       disable=not progress, mininterval=2.0,
                       live_postfix=lambda: f"${budget.spent_usd:,.4f} of ${params.budget_usd:,.2f} spent")
    left = 0
    with store, stopping():
        if params.batch_mode and (http or local):  # simulated models: made here, recorded in the batch tier
            from helpers.collect.batch import collect_batches

            assert caller is not None  # _collect makes one
            left = collect_batches(params, [*http, *local], done, store, caller, snapshot, budget, est_by, tally, bar)
            http, local = deque(), deque()
        if http:
            run_coroutine(_collect_http(http, done, store, caller, budget, est_by, snapshot, params.concurrency,
                                        tally, bar))
        if local:
            _collect_threads(local, done, store, caller, budget, est_by, snapshot, params.concurrency, tally, bar)
        if simulated and forked:
            _collect_forked(simulated, done, store, caller, budget, est_by, snapshot, workers, tally, bar)
        elif simulated:
            _collect_threads(simulated, done, store, caller, budget, est_by, snapshot, 1, tally, bar)
    bar.close()
    return budget, tally, left + sum(len(c) for _, c in (*http, *local, *simulated))


def run_coroutine(coro):
    """Run a coroutine to its end on a new event loop: here, or on a thread when a loop already runs
    here (a Jupyter kernel's)."""
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with ThreadPoolExecutor(max_workers=1) as pool:
        future = pool.submit(asyncio.run, coro)
        try:
            return future.result()
        except KeyboardInterrupt:  # the loop's workers stop taking calls; those in flight end, then it is raised
            STOP.set()
            wait([future])
            raise


def _collect_threads(queue: deque, done, store, caller, budget, est_by, snapshot, concurrency: int,
                     tally: Tally, bar) -> None:
    """Run queued attempts on ``concurrency`` threads (one: in this thread); what the budget stops stays queued."""
    if concurrency == 1:  # no hand-over to a worker per attempt (CPU-bound calls gain nothing from threads)
        while queue and not budget.exhausted and not STOP.is_set():
            a, calls = queue.popleft()
            bar.update(tally.add(*run_attempt(a, calls, done, store, caller, budget,
                                              est_by[(a.problem.task, a.model.name)], snapshot.price(a.model.name))))
        return
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        running: set[Future] = set()
        while queue or running:
            # at most one attempt per worker: nothing waits inside the pool, so nothing starts after the budget is
            # reached
            while queue and len(running) < concurrency and not budget.exhausted and not STOP.is_set():
                a, calls = queue.popleft()
                running.add(pool.submit(run_attempt, a, calls, done, store, caller, budget,
                                        est_by[(a.problem.task, a.model.name)], snapshot.price(a.model.name)))
            if not running:
                break
            try:
                finished, running = wait(running, return_when=FIRST_COMPLETED)
            except KeyboardInterrupt:  # the calls in flight end and are recorded; nothing new starts
                STOP.set()
                wait(running)
                raise
            for fut in finished:
                bar.update(tally.add(*fut.result()))


def _collect_forked(queue: deque, done, parent: RecordStore, caller, budget: Budget, est_by, snapshot, workers: int,
                    tally: Tally, bar) -> None:
    """Run queued attempts in ``workers`` forked processes, each on its own record files (``workers``) of the
    ``parent`` store's root and shard."""
    def job(group: list, counter) -> Tally:
        part = Tally()
        with RecordStore(parent.root, part=parent.part) as store:
            for a, calls in group:
                if budget.exhausted or STOP.is_set():
                    part.not_started += len(calls)
                    continue
                n = part.add(*run_attempt(a, calls, done, store, caller, budget,
                                          est_by[(a.problem.task, a.model.name)], snapshot.price(a.model.name)))
                with counter.get_lock():
                    counter.value += n
        for task, model in dict.fromkeys((a.problem.task, a.model.name) for a, _ in group):  # this worker's shards
            store.snapshot(task, model)
        return part

    groups = partition(queue, key=lambda ac: (ac[0].problem.task, ac[0].model.name), weight=lambda ac: len(ac[1]),
                       n=workers)
    queue.clear()
    for part in run_forked(job, groups, bar.update):
        tally.merge(part)


async def _collect_http(queue: deque, done, store, caller, budget, est_by, snapshot, concurrency: int,
                        tally: Tally, bar) -> None:
    """Run queued attempts on ``concurrency`` worker tasks of this event loop, each taking the next attempt
    when its last one ends (O(1) per call: no wait over every running task); what the budget stops stays
    queued."""
    import asyncio

    async with OpenAICompatibleClient(concurrency) as client:
        async def worker() -> None:
            while queue and not budget.exhausted and not STOP.is_set():
                a, calls = queue.popleft()
                bar.update(tally.add(*await arun_attempt(a, calls, done, store, caller, budget,
                                                         est_by[(a.problem.task, a.model.name)],
                                                         snapshot.price(a.model.name),
                                                         client if caller.direct_http else None)))

        await asyncio.gather(*(worker() for _ in range(min(concurrency, len(queue)) or 1)))


def summarize(records: pd.DataFrame, snapshot: PriceSnapshot) -> pd.DataFrame:
    """Calls, failures, tokens and USD per task, model and method (latest record of each call)."""
    if records.empty:
        return pd.DataFrame()
    return (
        records.assign(usd=cost_usd(records, snapshot), failed=records.status.ne("ok"))
        .groupby(["task", "model", "method"])
        .agg(calls=("status", "size"), failed=("failed", "sum"), prompt_tokens=("prompt_tokens", "sum"),
             completion_tokens=("completion_tokens", "sum"), usd=("usd", "sum"))
        .reset_index()
    )


def _quiet_litellm() -> None:
    import litellm

    litellm.suppress_debug_info = True
    litellm.telemetry = False
    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "httpx"):
        logging.getLogger(name).setLevel(logging.ERROR)


def run_collection(ctx: Context, progress: bool = True) -> CollectResult:
    """Collect the set's missing calls; raise if the budget stopped it before the end."""
    result = collect(ctx.params, ctx.problems, ctx.models, ctx.snapshot, progress=progress)
    if result.pending_calls:
        raise CostOfPassError(
            f"budget reached: ${result.spent_now_usd:.4f} spent, {result.pending_calls} calls not made; "
            f"raise budget_usd in {ctx.params.source} and rerun to resume"
        )
    return result
