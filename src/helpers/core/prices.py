"""Dated price snapshots and the cost of one call in USD (Eq. 14).

A snapshot file (``params/prices/<name>.yaml``) records its source and date and gives, per model,
USD per 1M input and output tokens and an optional fixed USD fee per call. Costs are computed at
analysis time from token counts, so a snapshot can be swapped without new calls.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from helpers.core.errors import CostOfPassError
from helpers.core.paths import shown
from helpers.core.yamlfiles import nearest, read_mapping


class ModelPrice(BaseModel):
    model_config = ConfigDict(extra="forbid")
    input_usd_per_mtok: float = Field(gt=0)
    output_usd_per_mtok: float = Field(gt=0)
    usd_per_call: float = Field(0.0, ge=0)
    derivation: str = ""


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


def call_cost_usd(prompt_tokens, completion_tokens, price: ModelPrice):
    """USD of calls: ``prompt * in + completion * out + fee`` (Eq. 14); arrays broadcast.

    ``completion_tokens`` includes reasoning tokens (they are billed as output).
    """
    p = np.asarray(prompt_tokens, dtype=float)
    c = np.asarray(completion_tokens, dtype=float)
    return (p * price.input_usd_per_mtok + c * price.output_usd_per_mtok) / 1e6 + price.usd_per_call


def cost_usd(frame, snapshot: PriceSnapshot):
    """USD per row of a frame with ``model``, ``prompt_tokens`` and ``completion_tokens`` columns.

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
    table = np.array([[getattr(snapshot.prices[m], k) for k in ("input_usd_per_mtok", "output_usd_per_mtok",
                                                                 "usd_per_call")] for m in models] or [[0.0] * 3])
    per_in, per_out, fee = (table[np.maximum(codes, 0), i] for i in range(3))
    calls = frame["calls"].to_numpy(dtype=float) if "calls" in frame else 1.0
    usd = (frame["prompt_tokens"].to_numpy(dtype=float) * per_in
           + frame["completion_tokens"].to_numpy(dtype=float) * per_out) / 1e6 + fee * calls
    return pd.Series(np.where(priced, usd, billed), index=frame.index)


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
