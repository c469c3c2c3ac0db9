"""Collection: every planned call through litellm, once.

Bounded concurrency (threads), retries with exponential backoff on 429 / 5xx / timeouts /
connection errors, one record per call in the append-only store, a budget that is checked
before the first call and enforced while calling. A rerun with the same parameters finds every
call in the store and makes none; an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import logging
import os
import random
import re
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Callable

import pandas as pd
from tqdm import tqdm

from .errors import CostOfPassError
from .methods import Method, collected_methods
from .models import LOCAL_PROVIDERS, ModelSpec, call_sampling
from .params import Params
from .prices import PriceSnapshot, call_cost_usd, cost_usd
from .prompts import messages_hash, refine_messages, solve_messages
from .records import CallRecord, RecordStore
from .tasks import Problem

_JITTER = random.Random()  # seeding a Random costs ~0.7 ms: one for the process
RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504, 529}
MAX_BACKOFF_S = 60.0


@dataclass(frozen=True)
class Attempt:
    """One attempt of a method by a model on a problem (it may make several calls)."""

    problem: Problem
    model: ModelSpec
    method: Method
    run: int

    def key(self, call: int) -> tuple:
        return (self.problem.task, self.problem.problem_id, self.model.name, self.method.name, self.run, call)


def plan_attempts(problems: dict[str, list[Problem]], models: list[ModelSpec], methods: list[str], n_runs: int) -> list[Attempt]:
    """Every attempt of the set, in a stable order (task, problem, model, method, run)."""
    return [
        Attempt(p, m, method, run)
        for task_problems in problems.values()
        for p in task_problems
        for m in models
        for method in collected_methods(methods)
        for run in range(n_runs)
    ]


def pending(attempts: list[Attempt], done: dict[tuple, Any]) -> list[tuple[Attempt, list[int]]]:
    """Attempts with calls still to make, and those calls' indices."""
    out = []
    for a in attempts:
        calls = [c for c in range(a.method.collected_calls) if a.key(c) not in done]
        if calls:
            out.append((a, calls))
    return out


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


def records_cost_usd(records: pd.DataFrame, snapshot: PriceSnapshot) -> float:
    """USD of recorded calls (failed calls count with whatever tokens they reported)."""
    return float(cost_usd(records, snapshot).sum())


# ---- one call ----------------------------------------------------------------------------------
_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD)", re.I)
_SECRET_SHAPE = re.compile(r"\b(sk-[A-Za-z0-9_-]{8,}|sk-ant-[A-Za-z0-9_-]{8,}|hf_[A-Za-z0-9]{8,})")


def redact(text: str) -> str:
    """Remove secrets from a message: values of *KEY*/*TOKEN*/*SECRET* variables and key-shaped strings."""
    for name, value in os.environ.items():
        if _SECRET_NAME.search(name) and len(value) >= 8:
            text = text.replace(value, "[redacted]")
    return _SECRET_SHAPE.sub("[redacted]", text)


def is_retryable(err: BaseException) -> bool:
    """429, 5xx, timeouts and connection errors are retried; other errors are final."""
    import litellm

    if isinstance(err, (litellm.Timeout, litellm.APIConnectionError, litellm.RateLimitError,
                        litellm.InternalServerError, litellm.ServiceUnavailableError)):
        return True
    return getattr(err, "status_code", None) in RETRYABLE_STATUS


def backoff_s(attempt: int, base_s: float, rng: random.Random) -> float:
    """Full-jitter exponential backoff: uniform in [0, base * 2**attempt], capped at 60 s."""
    return rng.uniform(0, min(MAX_BACKOFF_S, base_s * 2**attempt))


def call_with_retries(call: Callable[[], Any], max_retries: int, base_s: float,
                      sleep: Callable[[float], None] = time.sleep, rng: random.Random | None = None):
    """Run ``call`` until it succeeds, fails finally, or retries run out.

    Returns ``(response or None, tries, error message or None)``; the error is redacted.
    """
    for attempt in range(max_retries + 1):
        try:
            return call(), attempt + 1, None
        except Exception as err:  # noqa: BLE001 - every failure becomes a record
            message = redact(f"{type(err).__name__}: {err}")[:500]
            if attempt >= max_retries or not is_retryable(err):
                return None, attempt + 1, message
            sleep(backoff_s(attempt, base_s, rng or _JITTER))
    raise AssertionError("unreachable")


@dataclass
class Caller:
    """Makes the litellm call for one (attempt, call) and turns the outcome into a record."""

    params: Params
    sleep: Callable[[float], None] = time.sleep

    def kwargs(self, a: Attempt, call: int, messages: list[dict[str, str]]) -> dict[str, Any]:
        kw: dict[str, Any] = {
            "model": a.model.litellm_id,
            "messages": messages,
            "timeout": self.params.timeout_s,
            "num_retries": 0,  # retries are ours, with backoff and records
            "max_retries": 0,
            **call_sampling(a.model, self.params.sampling.model_dump()),
        }
        if a.model.api_base:
            kw["api_base"] = a.model.api_base
        if a.model.api_key_env:
            kw["api_key"] = os.environ.get(a.model.api_key_env)  # from the environment only, never recorded
        if a.model.provider in LOCAL_PROVIDERS:  # in-process providers get the call's identity (never keys)
            p = a.problem
            kw["metadata"] = {"cop": {
                "model": a.model.name, "seed": self.params.seed, "task": p.task, "problem_id": p.problem_id,
                "method": a.method.name, "run": a.run, "call": call,
                **({"sim": a.model.sim.model_dump(), "target": p.target, "n_choices": p.n_choices} if a.model.sim else {}),
                **({"local": a.model.local.model_dump()} if a.model.local else {}),
            }}
        return kw

    def __call__(self, a: Attempt, call: int, messages: list[dict[str, str]]) -> CallRecord:
        import litellm

        kw = self.kwargs(a, call, messages)
        sampling = call_sampling(a.model, self.params.sampling.model_dump())
        started = time.perf_counter()
        response, tries, error = call_with_retries(
            lambda: litellm.completion(**kw), self.params.max_retries, self.params.retry_backoff_s, self.sleep
        )
        record = CallRecord(
            task=a.problem.task, problem_id=a.problem.problem_id, model=a.model.name, method=a.method.name,
            run=a.run, call=call, litellm_model=a.model.litellm_id, prompt_hash=messages_hash(messages),
            status="error" if response is None else "ok", latency_s=round(time.perf_counter() - started, 4),
            tries=tries, error=error, sampling=sampling,
            simulated=a.model.simulated,
        )
        if response is not None:
            choice = response.choices[0]
            usage = getattr(response, "usage", None)
            details = getattr(usage, "completion_tokens_details", None)
            record.response = choice.message.content or ""
            record.finish_reason = choice.finish_reason
            record.prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
            record.completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
            record.reasoning_tokens = int(getattr(details, "reasoning_tokens", 0) or 0)
            if usage is None or record.completion_tokens == 0 and record.response:
                record.status, record.error = "error", "provider reported no token usage"
        return record


def run_attempt(a: Attempt, calls: list[int], done: dict[tuple, Any], store: RecordStore, caller: Caller) -> list[CallRecord]:
    """Make an attempt's missing calls in order; each is stored the moment it is acknowledged."""
    responses = {c: done[a.key(c)]["response"] for c in range(a.method.collected_calls) if a.key(c) in done}
    made = []
    for c in calls:
        if c == 0:
            messages = solve_messages(a.problem.question)
        else:
            messages = refine_messages(a.problem.question, responses[c - 1])
        record = caller(a, c, messages)
        store.append(record)
        made.append(record)
        if record.status != "ok":
            break  # a later call needs this one's response
        responses[c] = record.response
    return made


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
    spent_before_usd: float = 0.0
    spent_now_usd: float = 0.0
    stopped_by_budget: bool = False
    pending_calls: int = 0
    summary: pd.DataFrame = field(default_factory=pd.DataFrame)


def collect(params: Params, problems: dict[str, list[Problem]], models: list[ModelSpec], snapshot: PriceSnapshot,
            progress: bool = True, caller: Caller | None = None) -> CollectResult:
    """Make every call of the set that is not yet in the store, within the budget (USD)."""
    from .backends import register_all

    _quiet_litellm()
    register_all()
    store = RecordStore(params.records_path)
    done = store.done()
    attempts = plan_attempts(problems, models, params.methods, params.n_runs)
    todo = pending(attempts, done)
    spent = records_cost_usd(store.load(), snapshot)
    est = estimate_calls(todo, snapshot, params.sampling.model_dump())
    result = CollectResult(planned_calls=sum(a.method.collected_calls for a in attempts), spent_before_usd=spent)
    check_budget(params, spent, est)
    est_by = {(r.task, r.model): r.usd / r.calls for r in est.itertuples()}
    caller = caller or Caller(params)
    made: list[CallRecord] = []
    reserved = 0.0
    queue = deque(todo)
    bar = tqdm(total=sum(len(c) for _, c in todo), desc=f"collect {params.name}", unit="call",
               disable=not progress, mininterval=2.0)
    with store, ThreadPoolExecutor(max_workers=params.concurrency) as pool:
        running: dict[Future, float] = {}
        while queue or running:
            while queue and len(running) < 2 * params.concurrency:
                a, calls = queue[0]
                cost = est_by[(a.problem.task, a.model.name)] * len(calls)
                if spent + reserved + cost > params.budget_usd:
                    result.stopped_by_budget = True
                    break
                queue.popleft()
                reserved += cost
                running[pool.submit(run_attempt, a, calls, done, store, caller)] = cost
            if not running:
                break
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for fut in finished:
                reserved -= running.pop(fut)
                records = fut.result()
                made.extend(records)
                spent += sum(float(call_cost_usd(r.prompt_tokens, r.completion_tokens, snapshot.price(r.model))) for r in records)
                bar.update(len(records))
    bar.close()
    result.made_calls = len(made)
    result.failed_calls = sum(r.status != "ok" for r in made)
    result.spent_now_usd = spent
    result.pending_calls = sum(len(c) for _, c in queue)
    result.summary = summarize(store.latest(), snapshot)
    return result


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
