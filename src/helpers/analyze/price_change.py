"""Where the frontier's fall came from: new models or price changes (a Shapley split of two factors).

Between two dates d0 < d1 the frontier cost-of-pass of a dataset, V(M_d, P_d) — the models released by d and
each model's price in effect on d (the dated ledger, ``core.ledger``) — changes by V(M1, P1) − V(M0, P0). The two
factors do not add, so each gets its Shapley value, the mean of its effect over both orders:
new models = ½[(V(M1, P0) − V(M0, P0)) + (V(M1, P1) − V(M0, P1))], prices = ½[(V(M0, P1) − V(M0, P0)) +
(V(M1, P1) − V(M1, P0))]; they sum to the change. A model released after d0 has no price on d0: in P0 it
takes its first price (as it launched). Plug-in frontier (vanilla attempts, the human expert included), USD.
"""

from __future__ import annotations

import datetime as dt

import pandas as pd

from helpers.analyze.costofpass import cop_matrix, frontier
from helpers.core.prices import PriceSnapshot, cost_usd
from helpers.grade.estimates import per_problem


def shapley_two(v00, v10, v01, v11):
    """Shapley values of two factors A (first index) and B (second) from the four values V(a, b); arrays broadcast.
    Returns (A's share, B's share), summing to v11 − v00."""
    a = ((v10 - v00) + (v11 - v01)) / 2
    b = ((v01 - v00) + (v11 - v10)) / 2
    return a, b


def vanilla_cop(attempts: pd.DataFrame, snapshot: PriceSnapshot) -> pd.DataFrame:
    """v(m, p) of the vanilla attempts priced by ``snapshot``: index (task, problem_id), one column per model (USD)."""
    done = attempts[attempts["complete"] & attempts["method"].astype(str).eq("vanilla")]
    done = done.assign(usd=cost_usd(done, snapshot), strategy=done["model"].astype(str))
    return cop_matrix(per_problem(done))


def released_by(releases: pd.Series, date: dt.date) -> list[str]:
    """The models released on or before ``date`` (``releases``: model -> Timestamp)."""
    return [m for m, t in releases.items() if t.date() <= date]


def price_change_split(attempts: pd.DataFrame, releases: pd.Series, expert: pd.Series, start: dt.date, end: dt.date,
                       prices_on) -> pd.DataFrame:
    """Per task: the frontier on ``start`` and ``end`` (USD), its change, and the change's Shapley split between new
    models and prices (USD, and % of the start's frontier). ``prices_on(date)`` gives the set's models' prices
    in effect that day (``PriceSnapshot``; a model not yet priced takes its first price)."""
    cops = {d: vanilla_cop(attempts, prices_on(d)) for d in (start, end)}
    models = {d: [m for m in released_by(releases, d) if m in cops[d].columns] for d in (start, end)}
    v = {(a, b): frontier(cops[b], models[a], expert) for a in (start, end) for b in (start, end)}
    new, price = shapley_two(v[start, start], v[end, start], v[start, end], v[end, end])
    out = pd.DataFrame({"start_usd": v[start, start], "end_usd": v[end, end]})
    out["change_usd"] = out["end_usd"] - out["start_usd"]
    out["new_models_usd"], out["prices_usd"] = new, price
    for c in ("change", "new_models", "prices"):
        out[f"{c}_pct"] = 100 * out[f"{c}_usd"] / out["start_usd"]
    out.insert(0, "models_start", len(models[start]))
    out.insert(1, "models_end", len(models[end]))
    return out.reset_index()
