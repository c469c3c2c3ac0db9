"""What a collection may spend (USD): estimates of the pending calls, the spend already recorded, the refusal to
start over budget, and the ``Budget`` the calling threads or forked workers share while calling.
Imports the plan; must not import the calling or collection modules.
"""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager
from typing import Any

import pandas as pd

from helpers.collect.plan import Attempt
from helpers.collect.records import RecordStore
from helpers.core.errors import CostOfPassError
from helpers.core.models import ModelSpec, call_sampling
from helpers.core.params import Params
from helpers.core.prices import PriceSnapshot, cost_usd
from helpers.core.prompts import solve_messages


def _expected_completion(model: ModelSpec, task: str, sampling: dict[str, Any]) -> float:
    typical = (model.sim.completion_tokens.get(task, model.typical_completion_tokens) if model.sim
               else model.typical_completion_tokens)
    cap = call_sampling(model, sampling).get("max_tokens")  # the set's cap, or the model's own
    return min(typical, cap) if cap else typical


def estimate_calls(todo: list[tuple[Attempt, list[int]]], snapshot: PriceSnapshot,
                   sampling: dict[str, Any] | None = None, service_tier: str | None = None) -> pd.DataFrame:
    """Estimated calls, tokens and USD of the pending calls, one row per (task, model).

    Prompt tokens are estimated as characters / 4; completion tokens as the model's typical
    completion length (``typical_completion_tokens``, or the simulated profile's mean), capped by
    ``max_tokens`` of the set's ``sampling`` or the model's override. A refinement call's prompt
    includes the first response. ``service_tier``: ``batch`` prices them at the snapshot's batch discount.
    """
    df = call_rows(todo, snapshot, sampling, service_tier)
    if df.empty:
        return pd.DataFrame(columns=["task", "model", "calls", "prompt_tokens", "completion_tokens", "usd"])
    out = df.groupby(["task", "model"], sort=False).agg(
        calls=("usd", "size"), prompt_tokens=("prompt_tokens", "sum"),
        completion_tokens=("completion_tokens", "sum"), usd=("usd", "sum"),
    )
    return out.reset_index()


def call_rows(todo: list[tuple[Attempt, list[int]]], snapshot: PriceSnapshot,
              sampling: dict[str, Any] | None = None, service_tier: str | None = None) -> pd.DataFrame:
    """The token model of ``estimate_calls``, one row per pending call: ``attempt`` (its position in ``todo``),
    ``call``, ``task``, ``model``, ``prompt_tokens``, ``completion_tokens`` and ``usd``. ``service_tier``
    ``"batch"`` prices the calls at the ledger's batch discount (``core.prices.cost_usd``): a set that collects
    through a batch API (``Params.service_tier``)."""
    rows = []
    for i, (a, calls) in enumerate(todo):
        completion = _expected_completion(a.model, a.problem.task, sampling or {})
        base_prompt = len(solve_messages(a.problem.question)[0]["content"]) / 4
        for c in calls:
            prompt = base_prompt + (completion + 60 if c > 0 else 0)
            rows.append((i, c, a.problem.task, a.model.name, prompt, completion))
    df = pd.DataFrame(rows, columns=["attempt", "call", "task", "model", "prompt_tokens", "completion_tokens"])
    if service_tier is not None:
        df["service_tier"] = service_tier
    return df.assign(usd=cost_usd(df, snapshot) if len(df) else pd.Series(dtype=float))


def recorded_spend_usd(params: Params, snapshot: PriceSnapshot) -> float:
    """USD of the calls recorded for the set's models in its output directory, under any settings
    (failed calls count with whatever tokens they reported); other models' records, and imported records (others
    paid for them), are not priced."""
    columns = ["model", "prompt_tokens", "cache_read_tokens", "cache_write_tokens", "completion_tokens", "service_tier",
               "source"]
    records = RecordStore(params.records_path).load(columns)
    return float(cost_usd(records[records["model"].isin(params.models) & records["source"].isna()], snapshot).sum())


def check_budget(params: Params, spent_usd: float, est: pd.DataFrame) -> None:
    """Refuse to start when recorded spend plus the estimate of pending calls passes the budget."""
    if not est.empty and spent_usd + est.usd.sum() > params.budget_usd:
        raise CostOfPassError(
            f"over budget: {int(est.calls.sum())} pending calls are estimated at ${est.usd.sum():.4f} on top of "
            f"${spent_usd:.4f} already spent, more than budget_usd ${params.budget_usd:g} in {params.source}"
        )


def check_forecast(params: Params, forecast) -> list[str]:
    """The racing design's budget check against its forecast (``collect.forecast.Forecast``): refuse, in one line, a
    ``budget_usd`` below the forecast's range (the run would stop short of its end in nearly every draw); a budget
    inside the range is a warning line (returned), with the share of draws that pass it."""
    budget, low, high = params.budget_usd, forecast.low, forecast.high
    if budget < low:
        raise CostOfPassError(
            f"over budget: the racing design's forecast is ${low:,.2f}–${high:,.2f} (90% range, "
            f"${forecast.expected:,.2f} expected), above budget_usd ${budget:g} in {params.source}; raise it, or set "
            "budget: {target_usd: X} to size the Table-1 sample")
    if budget < high:
        return [f"warning: budget_usd ${budget:g} lies inside the forecast's 90% range: {forecast.over(budget):.0%} "
                "of the simulated races pass it, and the run then stops at it (its records kept: raise budget_usd "
                "and run again to resume)"]
    return []


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
            self._lock: AbstractContextManager[Any] = ctx.Lock()
            self._spent, self._in_flight, self._exhausted = (ctx.RawValue("d", spent_usd), ctx.RawValue("d", 0.0),
                                                             ctx.RawValue("b", 0))
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
