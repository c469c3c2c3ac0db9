"""Dated price snapshots and the cost of one call in USD (Eq. 14), priced as billed.

A snapshot file (``params/prices/<name>.yaml``) records its source and date and gives, per model,
USD per 1M input and output tokens and an optional fixed USD fee per call; where the bill has them, also USD per 1M
cached-input reads and cache writes, a batch discount and a long-context tier (``ModelPrice``). Costs are computed at
analysis time from token counts, one bucket at a time, so a snapshot can be swapped without new calls.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from helpers.core.errors import CostOfPassError
from helpers.core.paths import shown
from helpers.core.yamlfiles import nearest, read_mapping


class LongContext(BaseModel):
    """A higher rate for a call whose prompt (every input bucket: uncached, cache reads and writes) is above
    ``above_prompt_tokens`` tokens: its uncached input and its output are billed at these rates (USD per 1M tokens)."""

    model_config = ConfigDict(extra="forbid")
    above_prompt_tokens: int = Field(gt=0)
    input_usd_per_mtok: float = Field(gt=0)
    output_usd_per_mtok: float = Field(gt=0)


class ModelPrice(BaseModel):
    """One model's prices (USD per 1M tokens, USD per call). A bucket without its own price is billed as uncached
    input: ``cached_input_usd_per_mtok`` (cache reads) and ``cache_write_usd_per_mtok`` (cache writes) default to
    ``input_usd_per_mtok``. ``batch_discount`` (a fraction in [0, 1)) comes off every token of a call made in the
    batch tier (``CallRecord.service_tier == "batch"``)."""

    model_config = ConfigDict(extra="forbid")
    input_usd_per_mtok: float = Field(gt=0)
    output_usd_per_mtok: float = Field(gt=0)
    usd_per_call: float = Field(0.0, ge=0)
    cached_input_usd_per_mtok: float | None = Field(None, ge=0)
    cache_write_usd_per_mtok: float | None = Field(None, ge=0)
    batch_discount: float = Field(0.0, ge=0, lt=1)
    long_context: LongContext | None = None
    derivation: str = ""

    @property
    def cached_rate(self) -> float:
        """USD per 1M cached-input tokens read (the input rate where the snapshot gives none)."""
        return self.input_usd_per_mtok if self.cached_input_usd_per_mtok is None else self.cached_input_usd_per_mtok

    @property
    def write_rate(self) -> float:
        """USD per 1M tokens written to the cache (the input rate where the snapshot gives none)."""
        return self.input_usd_per_mtok if self.cache_write_usd_per_mtok is None else self.cache_write_usd_per_mtok

    def billed_as(self) -> tuple:
        """Every number that prices a call (two prices that bill alike compare equal)."""
        return tuple(self.model_dump(exclude={"derivation"}).values())


class PriceSnapshot(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    date: dt.date
    source: str = Field(min_length=1)
    notes: str = ""
    prices: dict[str, ModelPrice]
    path: str = Field("", exclude=True, description="the file it was read from (for errors; not a YAML field)")

    def price(self, model: str) -> ModelPrice:
        if model not in self.prices:
            raise CostOfPassError(f"no price for model '{model}' in snapshot '{self.name}' ({self.date})")
        return self.prices[model]

    def require(self, models: list[str]) -> None:
        """Fail before any call if a model has no price in this snapshot."""
        missing = [m for m in models if m not in self.prices]
        if missing:
            raise CostOfPassError(
                f"no price for model(s) {', '.join(missing)}{nearest(missing[0], self.prices)} in price snapshot "
                f"'{self.name}' ({self.date}); add them to {self.path or f'params/prices/{self.name}.yaml'}"
            )


def load_snapshot(path: Path, source: str = "price snapshot") -> PriceSnapshot:
    """Read and validate a price snapshot; zero or negative prices are rejected.

    ``source`` names where the snapshot was asked for (e.g. the set's field), for a missing file.
    """
    if not path.is_file():
        known = sorted(p.stem for p in path.parent.glob("*.yaml")) if path.parent.is_dir() else []
        raise CostOfPassError(f"{source}: no price snapshot {path.stem!r} at {path}"
                              f"{nearest(path.stem, known)}; snapshots in {path.parent}: {', '.join(known) or 'none'}")
    data = read_mapping(path, "price snapshot")
    try:
        snapshot = PriceSnapshot.model_validate({"name": path.stem, **data})
    except ValidationError as err:
        e = err.errors()[0]
        field = ".".join(str(x) for x in e["loc"])
        raise CostOfPassError(f"{path}: field '{field}': {e['msg']}") from None
    return snapshot.model_copy(update={"path": str(shown(path))})


def call_cost_usd(prompt_tokens, completion_tokens, price: ModelPrice, batch: bool = False):
    """USD of calls: ``prompt * in + completion * out + fee`` (Eq. 14); arrays broadcast. ``batch``: calls made in
    the batch tier, their tokens less the price's ``batch_discount`` (the fee is not discounted, as ``cost_usd``).

    ``completion_tokens`` includes reasoning tokens (they are billed as output).
    """
    p = np.asarray(prompt_tokens, dtype=float)
    c = np.asarray(completion_tokens, dtype=float)
    tokens = (p * price.input_usd_per_mtok + c * price.output_usd_per_mtok) / 1e6
    return tokens * (1.0 - price.batch_discount if batch else 1.0) + price.usd_per_call


BUCKETS = ("prompt_tokens", "cache_read_tokens", "cache_write_tokens", "completion_tokens")  # token columns priced


def price_table(models, snapshot: PriceSnapshot):
    """Per model (rows, in order) the rates: input, cached read, cache write, output (USD per 1M tokens), fee (USD per
    call), batch discount (fraction), long-context threshold (prompt tokens; inf: none), long-context input and
    output rates. Returns a float array of shape (len(models), 9)."""
    import numpy as np

    def row(p: ModelPrice) -> list[float]:
        lc = p.long_context
        return [p.input_usd_per_mtok, p.cached_rate, p.write_rate, p.output_usd_per_mtok, p.usd_per_call,
                p.batch_discount, lc.above_prompt_tokens if lc else np.inf,
                lc.input_usd_per_mtok if lc else p.input_usd_per_mtok,
                lc.output_usd_per_mtok if lc else p.output_usd_per_mtok]
    return np.array([row(snapshot.prices[m]) for m in models] or [[0.0] * 9])


def cost_usd(frame, snapshot: PriceSnapshot):
    """USD per row of a frame with ``model``, ``prompt_tokens`` and ``completion_tokens`` columns, one bucket at a
    time: uncached prompt, cache reads and cache writes (``cache_read_tokens``, ``cache_write_tokens``: 0 where the
    frame has none), completion (reasoning included) at their rates (``ModelPrice``), the long-context rates where the
    row's prompt (all three input buckets) is above the tier's threshold, less the batch discount where the row's
    ``service_tier`` is ``batch``, plus the fee per call (``calls``, else 1).

    A row with a ``billed_usd`` (an imported record's USD as billed, ``records.CallRecord``) costs that, at any price;
    every model of the other rows must have a price in the snapshot. Returns a float Series (USD).
    """
    import pandas as pd

    if frame.empty:
        return pd.Series(dtype=float, index=frame.index)
    import numpy as np

    billed = frame["billed_usd"].to_numpy(dtype=float) if "billed_usd" in frame else np.full(len(frame), np.nan)
    priced = np.isnan(billed)
    codes, models = pd.factorize(frame["model"].where(priced))  # one price look-up per model, not per row
    snapshot.require(sorted(models))
    per_in, per_read, per_write, per_out, fee, discount, above, long_in, long_out = (
        price_table(models, snapshot)[np.maximum(codes, 0), i] for i in range(9))
    tokens = {c: frame[c].to_numpy(dtype=float) if c in frame else np.zeros(len(frame)) for c in BUCKETS}
    long = tokens["prompt_tokens"] + tokens["cache_read_tokens"] + tokens["cache_write_tokens"] > above
    calls = frame["calls"].to_numpy(dtype=float) if "calls" in frame else 1.0
    usd = (tokens["prompt_tokens"] * np.where(long, long_in, per_in) + tokens["cache_read_tokens"] * per_read
           + tokens["cache_write_tokens"] * per_write
           + tokens["completion_tokens"] * np.where(long, long_out, per_out)) / 1e6
    if "service_tier" in frame:
        usd = usd * np.where(frame["service_tier"].eq("batch").to_numpy(), 1.0 - discount, 1.0)
    return pd.Series(np.where(priced, usd + fee * calls, billed), index=frame.index)


def agent_cost_usd(agent_calls, snapshot: PriceSnapshot):
    """USD of each imported agent attempt (``CallRecord.agent_calls``: a JSON list per row, '' for none): every call
    at its own model's price, summed. Returns a float Series on the same index (NaN where a row has no calls)."""
    import json

    import numpy as np
    import pandas as pd

    rows, models, prompt, completion = [], [], [], []
    for i, text in zip(agent_calls.index, agent_calls):
        for call in json.loads(text) if text else []:
            rows.append(i)
            models.append(call["model"])
            prompt.append(call["prompt_tokens"])
            completion.append(call["completion_tokens"])
    out = pd.Series(np.nan, index=agent_calls.index, dtype=float)
    if rows:
        flat = pd.DataFrame({"model": models, "prompt_tokens": prompt, "completion_tokens": completion})
        out.loc[:] = cost_usd(flat, snapshot).groupby(np.array(rows)).sum().reindex(agent_calls.index).to_numpy()
    return out
