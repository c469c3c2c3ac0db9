"""Collection: every planned call through litellm, once.

Bounded concurrency (threads), retries with exponential backoff on 429 / 5xx / timeouts /
connection errors, one record per call in the append-only store, a budget that is checked
before the first call and enforced while calling. A rerun with the same parameters finds every
call in the store and makes none; an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import random
import threading
import time
from collections import deque
from contextlib import contextmanager
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pandas as pd

from helpers.collect.backends.openai_compatible import OpenAICompatibleClient, is_direct
from helpers.collect.records import KEY, CallRecord, RecordStore, key_strings, keys_in
from helpers.collect.workers import can_fork, partition, run_forked
from helpers.core.context import Context
from helpers.core.errors import CostOfPassError
from helpers.core.methods import Method, collected_methods
from helpers.core.models import LOCAL_PROVIDERS, ModelSpec, call_sampling
from helpers.core.params import Params
from helpers.core.prices import PriceSnapshot, call_cost_usd, cost_usd
from helpers.core.progress import progress_bar
from helpers.core.prompts import messages_hash, solve_messages, template_hash
from helpers.core.redaction import redact
from helpers.core.tasks import Problem

_JITTER = random.Random()  # seeding a Random costs ~0.7 ms: one for the process
RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504, 529}
MAX_BACKOFF_S = 60.0


@dataclass(frozen=True)
class Attempt:
    """One attempt of a method by a model on a problem (it may make several calls).

    ``fingerprints[c]`` identifies what determines the response of call ``c`` (see ``fingerprint``).
    """

    problem: Problem
    model: ModelSpec
    method: Method
    run: int
    fingerprints: tuple[str, ...] = ()

    def key(self, call: int) -> tuple:
        """The record key of call ``call``: (task, problem_id, model, method, run, call, fingerprint)."""
        return (self.problem.task, self.problem.problem_id, self.model.name, self.method.name, self.run, call,
                self.fingerprints[call])


def fingerprint(model: ModelSpec, sampling: dict[str, Any], seed: int, question: str, method: Method, call: int) -> str:
    """sha256 (hex, 16 chars) of what determines a call's response.

    The litellm model id, the sampling arguments sent, the prompt (hash of the first message and of
    the templates the call's messages are built from), the method and the call index; for the
    in-process backends also the seed and the simulated profile or the weights' sha256. An imported model's
    response was made by others with their own prompt and sampling: its fingerprint is the source's name of the
    model, the question, the method and the call.
    """
    if model.imported:
        parts = {"imported": model.imported.name, "question": hashlib.sha256(question.encode()).hexdigest(),
                 "method": method.name, "call": call}
        return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]
    parts: dict[str, Any] = {
        "litellm_model": model.litellm_id, "sampling": sampling, "method": method.name, "call": call,
        "prompt": messages_hash(solve_messages(question)), "templates": template_hash(*method.templates[: call + 1]),
    }
    if model.sim:
        parts["backend"] = {"seed": seed, "sim": model.sim.model_dump()}
    if model.local:
        parts["backend"] = {"seed": seed, "sha256": model.local.sha256, "chat": model.local.chat, "n_ctx": model.local.n_ctx}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]


def plan_attempts(problems: dict[str, list[Problem]], models: list[ModelSpec], methods: list[str], n_runs: int,
                  sampling: dict[str, Any] | None = None, seed: int = 0) -> list[Attempt]:
    """Every attempt of the set, in a stable order (task, problem, model, method, run), with fingerprints."""
    out = []
    for task_problems in problems.values():
        for p in task_problems:
            for m in models:
                args = call_sampling(m, sampling or {})
                for method in collected_methods(methods):
                    fps = tuple(fingerprint(m, args, seed, p.question, method, c) for c in range(method.collected_calls))
                    out.extend(Attempt(p, m, method, run, fps) for run in range(n_runs))
    return out


def plan_for(params: Params, problems: dict[str, list[Problem]], models: list[ModelSpec]) -> list[Attempt]:
    """``plan_attempts`` for a parameter set."""
    return plan_attempts(problems, models, params.methods, params.n_runs, params.sampling.model_dump(), params.seed)


def plan_keys(attempts: list[Attempt]) -> tuple[pd.Series, np.ndarray, np.ndarray]:
    """Every planned call's key as one string (``records.key_strings``' format), its attempt's index in
    ``attempts`` and its call number: arrays of one row per call, in plan order."""
    n_calls = np.array([a.method.collected_calls for a in attempts], dtype=np.int64)
    attempt = np.repeat(np.arange(len(attempts)), n_calls)
    call = np.arange(len(attempt)) - np.repeat(np.cumsum(n_calls) - n_calls, n_calls)
    sep = "\x1f"
    keys = [sep.join((a.problem.task, a.problem.problem_id, a.model.name, a.method.name, str(a.run), str(c),
                      a.fingerprints[c])) for a in attempts for c in range(a.method.collected_calls)]
    return pd.Series(keys, dtype="str"), attempt, call


def in_plan(records: pd.DataFrame, attempts: list[Attempt], planned: pd.Series | None = None) -> pd.Series:
    """Boolean mask of the records (rows with the KEY columns) whose key and fingerprint a plan makes
    (``planned``: the plan's ``plan_keys``, when already at hand)."""
    wanted = plan_keys(attempts)[0] if planned is None else planned
    return pd.Series(keys_in(key_strings(records), wanted), index=records.index, dtype=bool)


def pending(attempts: list[Attempt], done: pd.DataFrame,
            planned: tuple[pd.Series, np.ndarray, np.ndarray] | None = None) -> list[tuple[Attempt, list[int]]]:
    """Attempts with calls still to make, and those calls' indices. ``done``: ``RecordStore.done()``."""
    keys, attempt, call = planned or plan_keys(attempts)
    todo = np.flatnonzero(~keys_in(keys, key_strings(done)))
    out: dict[int, list[int]] = {}
    for i in todo.tolist():
        out.setdefault(int(attempt[i]), []).append(int(call[i]))
    return [(attempts[i], calls) for i, calls in out.items()]


def needed_responses(todo: list[tuple[Attempt, list[int]]], store: RecordStore) -> dict[tuple, str]:
    """The recorded responses that pending attempts build on (a refinement needs its first response), by key."""
    wanted = {a.key(c) for a, calls in todo for c in range(a.method.collected_calls) if c not in calls}
    if not wanted:
        return {}
    done = store.done(responses=True)
    keys = key_strings(pd.DataFrame(list(wanted), columns=list(KEY)))
    rows = done[keys_in(key_strings(done), keys)]
    return dict(zip(rows[list(KEY)].itertuples(index=False, name=None), rows["response"]))


# ---- estimates -------------------------------------------------------------------------------
def _expected_completion(model: ModelSpec, task: str, sampling: dict[str, Any]) -> float:
    typical = model.sim.completion_tokens.get(task, model.typical_completion_tokens) if model.sim else model.typical_completion_tokens
    cap = call_sampling(model, sampling).get("max_tokens")  # the set's cap, or the model's own
    return min(typical, cap) if cap else typical


def estimate_calls(todo: list[tuple[Attempt, list[int]]], snapshot: PriceSnapshot, sampling: dict[str, Any] | None = None) -> pd.DataFrame:
    """Estimated calls, tokens and USD of the pending calls, one row per (task, model).

    Prompt tokens are estimated as characters / 4; completion tokens as the model's typical
    completion length (``typical_completion_tokens``, or the simulated profile's mean), capped by
    ``max_tokens`` of the set's ``sampling`` or the model's override. A refinement call's prompt
    includes the first response.
    """
    rows = []
    for a, calls in todo:
        completion = _expected_completion(a.model, a.problem.task, sampling or {})
        base_prompt = len(solve_messages(a.problem.question)[0]["content"]) / 4
        for c in calls:
            prompt = base_prompt + (completion + 60 if c > 0 else 0)
            rows.append((a.problem.task, a.model.name, prompt, completion))
    df = pd.DataFrame(rows, columns=["task", "model", "prompt_tokens", "completion_tokens"])
    if df.empty:
        return pd.DataFrame(columns=["task", "model", "calls", "prompt_tokens", "completion_tokens", "usd"])
    df["usd"] = cost_usd(df, snapshot)
    out = df.groupby(["task", "model"], sort=False).agg(
        calls=("usd", "size"), prompt_tokens=("prompt_tokens", "sum"),
        completion_tokens=("completion_tokens", "sum"), usd=("usd", "sum"),
    )
    return out.reset_index()


def recorded_spend_usd(params: Params, snapshot: PriceSnapshot) -> float:
    """USD of the calls recorded for the set's models in its output directory, under any settings
    (failed calls count with whatever tokens they reported); other models' records, and imported records (others
    paid for them), are not priced."""
    records = RecordStore(params.records_path).load(["model", "prompt_tokens", "completion_tokens", "source"])
    return float(cost_usd(records[records["model"].isin(params.models) & records["source"].isna()], snapshot).sum())


def to_call(todo: list[tuple[Attempt, list[int]]]) -> list[tuple[Attempt, list[int]]]:
    """The pending calls collection makes: an imported model's are imported, never called."""
    return [(a, c) for a, c in todo if not a.model.imported]


# ---- one call ----------------------------------------------------------------------------------
def is_retryable(err: BaseException) -> bool:
    """429, 5xx, timeouts and connection errors are retried; other errors are final."""
    if getattr(err, "retryable", False):
        return True
    import litellm

    if isinstance(err, (litellm.Timeout, litellm.APIConnectionError, litellm.RateLimitError,
                        litellm.InternalServerError, litellm.ServiceUnavailableError)):
        return True
    return getattr(err, "status_code", None) in RETRYABLE_STATUS


def backoff_s(attempt: int, base_s: float, rng: random.Random) -> float:
    """Full-jitter exponential backoff: uniform in [0, base * 2**attempt], capped at 60 s."""
    return rng.uniform(0, min(MAX_BACKOFF_S, base_s * 2**attempt))


def replied(err: BaseException) -> bool:
    """Whether an exception comes from a 200 reply the client could not read (malformed JSON, bad
    ``choices``): the provider answered, so it may have billed, and asking again could bill twice.
    litellm's sync client says ``[200 OK]``; its async client keeps the JSON decoding error as a cause."""
    text = str(err)
    if getattr(err, "replied", False) or "[200 OK]" in text or "provider returned 'choices'" in text:
        return True
    seen, cause = 0, err.__cause__ or err.__context__
    while cause is not None and seen < 8:
        if isinstance(cause, json.JSONDecodeError):
            return True
        cause, seen = cause.__cause__ or cause.__context__, seen + 1
    return False


def call_with_retries(call: Callable[[], Any], max_retries: int, base_s: float,
                      sleep: Callable[[float], None] = time.sleep, rng: random.Random | None = None):
    """Run ``call`` until it succeeds, fails finally, or retries run out.

    Returns ``(response or None, tries, error message or None, replied)``; the error is redacted;
    ``replied`` is True when the final failure was an unreadable 200 reply (never retried here).
    """
    for attempt in range(max_retries + 1):
        try:
            return call(), attempt + 1, None, False
        except Exception as err:  # noqa: BLE001 - every failure becomes a record
            final = final_failure(err, attempt, max_retries)
            if final:
                return final
            sleep(backoff_s(attempt, base_s, rng or _JITTER))
    raise AssertionError("unreachable")


def final_failure(err: BaseException, attempt: int, max_retries: int) -> tuple | None:
    """The outcome ``(None, tries, redacted message, replied)`` when ``err`` ends the call after
    try ``attempt`` (0-based), or None when it is to be retried."""
    message = redact(f"{type(err).__name__}: {err}")[:500]
    if replied(err):
        return None, attempt + 1, f"unusable reply: {message}", True
    if attempt >= max_retries or not is_retryable(err):
        return None, attempt + 1, message, False
    return None


async def acall_with_retries(call: Callable[[], Any], max_retries: int, base_s: float, rng: random.Random | None = None):
    """``call_with_retries`` for a coroutine factory ``call``, waiting with ``asyncio.sleep`` between tries."""
    import asyncio

    for attempt in range(max_retries + 1):
        try:
            return await call(), attempt + 1, None, False
        except Exception as err:  # noqa: BLE001 - every failure becomes a record
            final = final_failure(err, attempt, max_retries)
            if final:
                return final
            await asyncio.sleep(backoff_s(attempt, base_s, rng or _JITTER))
    raise AssertionError("unreachable")


def _has_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def read_reply(record: CallRecord, response: Any) -> None:
    """Fill a record from a 200 reply, or mark the reply unusable with its reason.

    Token counts are what the provider reported (litellm turns a missing usage into zeros, so a
    zero prompt count means none was reported). A reply is unusable when it has no choices, its
    text is not valid Unicode (a lone surrogate), or the provider reported no prompt tokens, or no
    completion tokens for a non-empty text. An unusable reply is a failure: never graded, retried
    on the next run, and its reported tokens still count as spent.
    """
    usage = getattr(response, "usage", None)
    details = getattr(usage, "completion_tokens_details", None)
    record.prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
    record.completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
    record.reasoning_tokens = int(getattr(details, "reasoning_tokens", 0) or 0)
    choices = getattr(response, "choices", None) or []
    reason = None
    if not choices:
        reason = "the reply has no choices"
    else:
        text = choices[0].message.content or ""
        record.finish_reason = choices[0].finish_reason
        if _has_surrogates(text):
            text = text.encode("utf-8", "backslashreplace").decode("utf-8")
            reason = "the reply text is not valid Unicode (a lone surrogate)"
        record.response = text
        if reason is None and record.prompt_tokens <= 0:
            reason = "the provider reported no prompt token count"
        elif reason is None and record.completion_tokens <= 0 and text:
            reason = "the provider reported no completion token count"
    if reason:
        record.status, record.error, record.unusable = "error", f"unusable reply: {reason}", True


@dataclass
class Caller:
    """Makes the litellm call for one (attempt, call) and turns the outcome into a record."""

    params: Params
    sleep: Callable[[float], None] = time.sleep
    direct_sim: bool = True  # simulated models: call their registered handler without litellm's per-call bookkeeping
    direct_http: bool = True  # OpenAI-compatible servers at an api_base: post without litellm (backends.openai_compatible)

    _per_model: dict[str, tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=dict, repr=False)

    def model_args(self, model: ModelSpec) -> tuple[dict[str, Any], dict[str, Any]]:
        """A model's sampling arguments and its in-process backend's settings, computed once per model."""
        if model.name not in self._per_model:
            backend = {**({"sim": model.sim.model_dump()} if model.sim else {}),
                       **({"local": model.local.model_dump()} if model.local else {})}
            self._per_model[model.name] = (call_sampling(model, self.params.sampling.model_dump()), backend)
        return self._per_model[model.name]

    def kwargs(self, a: Attempt, call: int, messages: list[dict[str, str]]) -> dict[str, Any]:
        sampling, backend = self.model_args(a.model)
        kw: dict[str, Any] = {
            "model": a.model.litellm_id,
            "messages": messages,
            "timeout": self.params.timeout_s,
            "num_retries": 0,  # retries are ours, with backoff and records
            "max_retries": 0,
            **sampling,
        }
        if a.model.api_base:
            kw["api_base"] = a.model.api_base
        if a.model.api_key_env:
            kw["api_key"] = os.environ.get(a.model.api_key_env)  # from the environment only, never recorded
        if a.model.provider in LOCAL_PROVIDERS:  # in-process providers get the call's identity (never keys)
            p = a.problem
            kw["metadata"] = {"cop": {
                "model": a.model.name, "seed": self.params.seed, "task": p.task, "problem_id": p.problem_id,
                "method": a.method.name, "run": a.run, "call": call, **backend,
                **({"target": p.target, "n_choices": p.n_choices} if a.model.sim else {}),
            }}
        return kw

    def __call__(self, a: Attempt, call: int, messages: list[dict[str, str]]) -> CallRecord:
        import litellm

        kw = self.kwargs(a, call, messages)
        sampling = self.model_args(a.model)[0]
        started = time.perf_counter()
        if a.model.simulated and self.direct_sim:
            # the same handler litellm would call, with the arguments it reads (2.7 ms of litellm per call saved)
            from helpers.collect.backends.provider import registered_handler

            handler, name = registered_handler(a.model.provider), a.model.litellm_id.split("/", 1)[1]
            send = lambda: handler.completion(name, messages, litellm_params={"metadata": kw["metadata"]},  # noqa: E731
                                              optional_params=dict(sampling))
        else:
            send = lambda: litellm.completion(**kw)  # noqa: E731
        outcome = call_with_retries(send, self.params.max_retries, self.params.retry_backoff_s, self.sleep)
        return self.record(a, call, messages, sampling, started, *outcome)

    async def acall(self, a: Attempt, call: int, messages: list[dict[str, str]],
                    client: OpenAICompatibleClient | None = None) -> CallRecord:
        """The same call on the running event loop (HTTP providers): an OpenAI-compatible server at an
        ``api_base`` through ``client`` when given, any other provider through ``litellm.acompletion``."""
        kw = self.kwargs(a, call, messages)
        sampling = self.model_args(a.model)[0]
        started = time.perf_counter()
        if client is not None and is_direct(a.model):
            send = lambda: client.completion(kw)  # noqa: E731
        else:
            import litellm

            send = lambda: litellm.acompletion(**kw)  # noqa: E731
        outcome = await acall_with_retries(send, self.params.max_retries, self.params.retry_backoff_s)
        return self.record(a, call, messages, sampling, started, *outcome)

    def record(self, a: Attempt, call: int, messages: list[dict[str, str]], sampling: dict[str, Any], started: float,
               response: Any, tries: int, error: str | None, unusable: bool) -> CallRecord:
        """The record of one call's outcome (a reply is read by ``read_reply``)."""
        record = CallRecord(
            task=a.problem.task, problem_id=a.problem.problem_id, model=a.model.name, method=a.method.name,
            run=a.run, call=call, litellm_model=a.model.litellm_id, prompt_hash=messages_hash(messages),
            fingerprint=a.fingerprints[call], status="error" if response is None else "ok",
            latency_s=round(time.perf_counter() - started, 4), tries=tries, error=error, unusable=unusable,
            sampling=dict(sampling), simulated=a.model.simulated,
        )
        if response is not None:
            read_reply(record, response)
        return record


class _Cell:
    """A plain value holder with the ``.value`` of a multiprocessing value (the budget within one process)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class Budget:
    """Spend against ``budget_usd`` (USD), shared by the collection's threads, or with ``shared`` by
    forked worker processes too (the counters then live in shared memory under a process lock).

    A call may start only while recorded spend plus the estimates of the calls in flight plus its
    own estimate stays within the limit; once that is reached nothing new starts, so the overshoot is
    at most what the calls already in flight cost beyond their estimates.
    """

    def __init__(self, limit_usd: float, spent_usd: float, shared: bool = False):
        self.limit_usd = limit_usd
        if shared:
            import multiprocessing as mp

            ctx = mp.get_context("fork")
            self._lock = ctx.Lock()
            self._spent, self._in_flight, self._exhausted = ctx.RawValue("d", spent_usd), ctx.RawValue("d", 0.0), ctx.RawValue("b", 0)
        else:
            self._lock = threading.Lock()
            self._spent, self._in_flight, self._exhausted = _Cell(spent_usd), _Cell(0.0), _Cell(0)

    @property
    def spent_usd(self) -> float:
        return self._spent.value

    @property
    def exhausted(self) -> bool:
        return bool(self._exhausted.value)

    def start(self, estimate_usd: float) -> bool:
        with self._lock:
            if self._exhausted.value or self._spent.value + self._in_flight.value + estimate_usd > self.limit_usd:
                self._exhausted.value = 1
                return False
            self._in_flight.value += estimate_usd
            return True

    def finish(self, estimate_usd: float, spent_usd: float) -> None:
        with self._lock:
            self._in_flight.value -= estimate_usd
            self._spent.value += spent_usd


STOP = threading.Event()  # set by Ctrl-C or SIGTERM (``stopping``): no call starts after it


@contextmanager
def stopping():
    """Collection under Ctrl-C: a KeyboardInterrupt here sets ``STOP`` (no worker starts another call; a call in
    flight ends and is recorded, or is dropped unrecorded) and is raised again once the workers have ended."""
    STOP.clear()
    try:
        yield
    except KeyboardInterrupt:
        STOP.set()
        raise


def run_attempt(a: Attempt, calls: list[int], done: dict[tuple, str], store: RecordStore, caller: Caller,
                budget: Budget, estimate_usd: float, price) -> tuple[list[CallRecord], int]:
    """Make an attempt's missing calls in order, each stored the moment it is acknowledged.

    Returns the records made and the number of calls not started because the budget was reached.
    """
    responses = {c: done[a.key(c)] for c in range(a.method.collected_calls) if a.key(c) in done}
    made = []
    for i, c in enumerate(calls):
        if STOP.is_set() or not budget.start(estimate_usd):
            return made, len(calls) - i
        messages = a.method.messages(a.problem.question, c, responses)
        record = caller(a, c, messages)
        store.append(record)
        budget.finish(estimate_usd, float(call_cost_usd(record.prompt_tokens, record.completion_tokens, price)))
        made.append(record)
        if record.status != "ok":
            break  # a later call needs this one's response
        responses[c] = record.response
    return made, 0


async def arun_attempt(a: Attempt, calls: list[int], done: dict[tuple, str], store: RecordStore, caller: Caller,
                       budget: Budget, estimate_usd: float, price,
                       client: OpenAICompatibleClient | None = None) -> tuple[list[CallRecord], int]:
    """``run_attempt`` on the event loop: the calls go through ``Caller.acall``."""
    responses = {c: done[a.key(c)] for c in range(a.method.collected_calls) if a.key(c) in done}
    made = []
    for i, c in enumerate(calls):
        if STOP.is_set() or not budget.start(estimate_usd):
            return made, len(calls) - i
        record = await caller.acall(a, c, a.method.messages(a.problem.question, c, responses), client)
        store.append(record)
        budget.finish(estimate_usd, float(call_cost_usd(record.prompt_tokens, record.completion_tokens, price)))
        made.append(record)
        if record.status != "ok":
            break
        responses[c] = record.response
    return made, 0


def check_budget(params: Params, spent_usd: float, est: pd.DataFrame) -> None:
    """Refuse to start when recorded spend plus the estimate of pending calls passes the budget."""
    if not est.empty and spent_usd + est.usd.sum() > params.budget_usd:
        raise CostOfPassError(
            f"over budget: {int(est.calls.sum())} pending calls are estimated at ${est.usd.sum():.4f} on top of "
            f"${spent_usd:.4f} already spent, more than budget_usd ${params.budget_usd:g} in {params.source}"
        )


# ---- the whole collection -----------------------------------------------------------------------
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
            progress: bool = True, caller: Caller | None = None) -> CollectResult:
    """Make every call of the set that is not yet in the store, within the budget (USD).

    Holds the output directory's lock throughout, so a second collector on it refuses to start.
    With nothing pending, litellm is not even imported.
    """
    from helpers.core.locking import output_lock

    with output_lock(params.output_path):
        return _collect(params, problems, models, snapshot, progress, caller)


def _collect(params: Params, problems, models, snapshot: PriceSnapshot, progress: bool, caller: Caller | None) -> CollectResult:
    store = RecordStore(params.records_path)
    attempts = plan_for(params, problems, models)
    planned = plan_keys(attempts)
    imported = None
    if params.import_from is not None:
        from helpers.collect.imports import import_records

        imported = import_records(params, attempts, store)
        store.close()
    todo = to_call(pending(attempts, store.done(), planned))
    done = needed_responses(todo, store)  # what run_attempt reads: responses of earlier calls
    spent = recorded_spend_usd(params, snapshot)
    est = estimate_calls(todo, snapshot, params.sampling.model_dump())
    result = CollectResult(planned_calls=sum(a.method.collected_calls for a in attempts), spent_before_usd=spent,
                           imported=imported)
    check_budget(params, spent, est)
    est_by = {(r.task, r.model): r.usd / r.calls for r in est.itertuples()}
    if todo:
        from helpers.collect.backends import register_all

        _quiet_litellm()
        register_all()
        caller = caller or Caller(params)
    # HTTP providers on one event loop; in-process ones on threads, simulated ones on several processes
    http = deque((a, c) for a, c in todo if a.model.provider not in LOCAL_PROVIDERS)
    local = deque((a, c) for a, c in todo if a.model.provider in LOCAL_PROVIDERS and not a.model.simulated)
    simulated = deque((a, c) for a, c in todo if a.model.simulated)
    workers = min(params.concurrency, os.cpu_count() or 1, len({(a.problem.task, a.model.name) for a, _ in simulated}))
    forked = workers > 1 and can_fork()
    budget = Budget(params.budget_usd, spent, shared=forked)
    tally = Tally()
    bar = progress_bar(total=sum(len(c) for _, c in todo), desc=f"{params.name} calls", unit="call",
                       disable=not progress, mininterval=2.0,
                       live_postfix=lambda: f"${budget.spent_usd:,.4f} of ${params.budget_usd:,.2f} spent")
    with store, stopping():
        if http:
            run_coroutine(_collect_http(http, done, store, caller, budget, est_by, snapshot, params.concurrency,
                                        tally, bar))
        if local:
            _collect_threads(local, done, store, caller, budget, est_by, snapshot, params.concurrency, tally, bar)
        if simulated and forked:
            _collect_forked(simulated, done, store.root, caller, budget, est_by, snapshot, workers, tally, bar)
        elif simulated:
            _collect_threads(simulated, done, store, caller, budget, est_by, snapshot, 1, tally, bar)
    bar.close()
    result.made_calls, result.failed_calls, result.unusable_replies = tally.made, tally.failed, tally.unusable
    result.spent_now_usd = budget.spent_usd
    result.pending_calls = tally.not_started + sum(len(c) for _, c in (*http, *local, *simulated))
    result.stopped_by_budget = budget.exhausted
    latest = store.latest(["prompt_tokens", "completion_tokens"], sort=False)
    result.summary = summarize(latest[in_plan(latest, attempts, planned[0])], snapshot)
    return result


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
            # at most one attempt per worker: nothing waits inside the pool, so nothing starts after the budget is reached
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


def _collect_forked(queue: deque, done, root, caller, budget: Budget, est_by, snapshot, workers: int,
                    tally: Tally, bar) -> None:
    """Run queued attempts in ``workers`` forked processes, each on its own record shards (``workers``)."""
    def job(group: list, counter) -> Tally:
        part = Tally()
        with RecordStore(root) as store:
            for a, calls in group:
                if budget.exhausted or STOP.is_set():
                    part.not_started += len(calls)
                    continue
                n = part.add(*run_attempt(a, calls, done, store, caller, budget,
                                          est_by[(a.problem.task, a.model.name)], snapshot.price(a.model.name)))
                with counter.get_lock():
                    counter.value += n
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
