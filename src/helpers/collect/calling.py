"""One call and one attempt: the litellm (or direct) call with retries and backoff, reading a reply into a record,
and the attempt loop that stores each record the moment it is acknowledged and charges it to the budget.
Imports the plan and the budget; must not import the collection module (which drives this one).
"""

from __future__ import annotations

import json
import os
import random
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Generator

from helpers.collect.backends.openai_compatible import OpenAICompatibleClient, is_direct
from helpers.collect.budget import Budget
from helpers.collect.plan import Attempt
from helpers.collect.records import CallRecord, RecordStore
from helpers.core.models import LOCAL_PROVIDERS, ModelSpec, call_sampling
from helpers.core.params import Params
from helpers.core.prices import call_cost_usd
from helpers.core.prompts import messages_hash
from helpers.core.redaction import redact

_JITTER = random.Random()  # seeding a Random is slow: one for the process
RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504, 529}
MAX_BACKOFF_S = 60.0


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


STOP = threading.Event()  # set by Ctrl-C or SIGTERM (``stopping``): no call starts after it, a retry neither


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
            if STOP.is_set():  # a retry is a new call: none starts after the stop (recorded failed, retried next run)
                return stopped_failure(err, attempt)
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


def stopped_failure(err: BaseException, attempt: int) -> tuple:
    """The outcome of a call whose retry the stop flag cancelled after try ``attempt`` (0-based): a failure, so the
    next run makes it again."""
    return None, attempt + 1, redact(f"{type(err).__name__}: {err}")[:460] + " (stopped before retrying)", False


async def acall_with_retries(call: Callable[[], Any], max_retries: int, base_s: float,
                             rng: random.Random | None = None):
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
            if STOP.is_set():
                return stopped_failure(err, attempt)
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
    # OpenAI-compatible servers at an api_base: post without litellm (backends.openai_compatible)
    direct_http: bool = True

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
        kw = self.kwargs(a, call, messages)
        sampling = self.model_args(a.model)[0]
        started = time.perf_counter()
        if a.model.simulated and self.direct_sim:
            # what litellm's sim handler computes, without litellm: neither its per-call bookkeeping nor its
            # response type (benchmarks/collect_overhead.py measures both paths)
            from helpers.collect.backends.sim import direct_completion

            def send():
                return direct_completion(messages, kw["metadata"]["cop"])
        else:
            import litellm

            def send():
                return litellm.completion(**kw)
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
            def send():
                return client.completion(kw)
        else:
            import litellm

            def send():
                return litellm.acompletion(**kw)
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
            # a simulated model stands for a real one: in batch mode its calls are billed in the batch tier
            service_tier=self.params.service_tier if a.model.simulated else None,
        )
        if response is not None:
            read_reply(record, response)
        return record


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


def _attempt_steps(a: Attempt, calls: list[int], done: dict[tuple, str], store: RecordStore, budget: Budget,
                   estimate_usd: float, price) -> Generator[tuple[int, list[dict[str, str]]], CallRecord,
                                                            tuple[list[CallRecord], int]]:
    """The one attempt loop, for the blocking and the event-loop caller alike: yields ``(call, messages)`` for each
    call to make and is sent that call's record, which it stores the moment it is acknowledged and charges to the
    budget. Returns the records made and the number of calls not started (budget reached, or Ctrl-C)."""
    responses = {c: done[a.key(c)] for c in range(a.method.collected_calls) if a.key(c) in done}
    made: list[CallRecord] = []
    for i, c in enumerate(calls):
        if STOP.is_set() or not budget.start(estimate_usd):
            return made, len(calls) - i
        record = yield c, a.method.messages(a.problem.question, c, responses)
        store.append(record)
        budget.finish(estimate_usd, float(call_cost_usd(record.prompt_tokens, record.completion_tokens, price,
                                                        batch=record.service_tier == "batch")))
        made.append(record)
        if record.status != "ok":
            break  # a later call needs this one's response
        responses[c] = record.response or ""  # an ok record has its response
    return made, 0


def run_attempt(a: Attempt, calls: list[int], done: dict[tuple, str], store: RecordStore, caller: Caller,
                budget: Budget, estimate_usd: float, price) -> tuple[list[CallRecord], int]:
    """Make an attempt's missing calls in order through ``caller`` (blocking), see ``_attempt_steps``."""
    steps = _attempt_steps(a, calls, done, store, budget, estimate_usd, price)
    try:
        call, messages = next(steps)
        while True:
            call, messages = steps.send(caller(a, call, messages))
    except StopIteration as end:
        return end.value


async def arun_attempt(a: Attempt, calls: list[int], done: dict[tuple, str], store: RecordStore, caller: Caller,
                       budget: Budget, estimate_usd: float, price,
                       client: OpenAICompatibleClient | None = None) -> tuple[list[CallRecord], int]:
    """``run_attempt`` on the event loop: the calls go through ``Caller.acall``."""
    steps = _attempt_steps(a, calls, done, store, budget, estimate_usd, price)
    try:
        call, messages = next(steps)
        while True:
            call, messages = steps.send(await caller.acall(a, call, messages, client))
    except StopIteration as end:
        return end.value
