"""Trend of the frontier over release dates: V(M_t) ≈ a·exp(-b·t) + c (Eq. 11), t in months."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import optimize

DAYS_PER_MONTH = 365.25 / 12


@dataclass(frozen=True)
class DecayFit:
    """Fit of a·exp(-b·t) + c; ``halving_months`` = ln 2 / b with its standard error (delta method)."""

    a: float
    b: float
    c: float
    b_se: float
    halving_months: float
    halving_se: float
    n_points: int
    message: str = ""

    @property
    def identified(self) -> bool:
        return not self.message

    def describe(self) -> str:
        if not self.identified:
            return self.message
        return f"halving time {self.halving_months:.1f} ± {self.halving_se:.1f} months (b = {self.b:.3f} ± {self.b_se:.3f} / month)"


def months_since(dates: pd.Series, start: pd.Timestamp) -> np.ndarray:
    return ((pd.to_datetime(dates) - pd.Timestamp(start)).dt.days / DAYS_PER_MONTH).to_numpy(dtype=float)


def _not_identified(n: int, why: str) -> DecayFit:
    nan = float("nan")
    return DecayFit(nan, nan, nan, nan, nan, nan, n, f"not identifiable: {why}")


def fit_decay(t_months, values) -> DecayFit:
    """Least-squares fit of ``a·exp(-b·t) + c`` with a, c >= 0 and b > 0.

    Needs at least four distinct (t, value) points and a decline; otherwise, or when the covariance
    of b is not finite, returns a fit whose ``message`` says why it is not identifiable.
    """
    t = np.asarray(t_months, dtype=float)
    v = np.asarray(values, dtype=float)
    ok = np.isfinite(t) & np.isfinite(v)
    t, v = t[ok], v[ok]
    n = len(np.unique(t))
    if n < 4:
        return _not_identified(n, f"{n} distinct release dates (a·exp(-b·t)+c needs at least 4)")
    if np.ptp(v) <= 1e-12 * max(1.0, abs(v).max()):
        return _not_identified(n, "the frontier does not change over these releases")
    span = max(t.max() - t.min(), 1e-6)
    p0 = (max(v[0] - v.min(), 1e-9), 3.0 / span, max(v.min(), 0.0))
    try:
        popt, pcov = optimize.curve_fit(
            lambda x, a, b, c: a * np.exp(-b * x) + c, t, v, p0=p0,
            bounds=([0.0, 1e-6, 0.0], [np.inf, 100.0, np.inf]), maxfev=20000,
        )
    except (RuntimeError, ValueError) as err:
        return _not_identified(n, f"the fit did not converge ({err})")
    a, b, c = map(float, popt)
    b_se = float(np.sqrt(pcov[1, 1])) if np.isfinite(pcov[1, 1]) else float("inf")
    if not math.isfinite(b_se) or a <= 0:
        return _not_identified(n, "the decay rate b has no finite standard error (too few or too flat points)")
    half = math.log(2) / b
    return DecayFit(a, b, c, b_se, half, math.log(2) * b_se / b**2, n)


def fit_trends(trend: pd.DataFrame) -> dict[str, DecayFit]:
    """Fit Eq. 11 to the normalised frontier (%) of each task, t in months since the first release."""
    releases = trend[trend["date"].notna()]
    if releases.empty:
        return {}
    start = releases["date"].min()
    return {task: fit_decay(months_since(g["date"], start), g["normalized_pct"]) for task, g in releases.groupby("task", sort=False)}


def fits_table(fits: dict[str, DecayFit]) -> pd.DataFrame:
    """One row per task: a, b, c, halving time (months) and its standard error, or why not identified."""
    return pd.DataFrame([
        {"task": t, "a_pct": f.a, "b_per_month": f.b, "c_pct": f.c, "halving_months": f.halving_months,
         "halving_se_months": f.halving_se, "release_dates": f.n_points, "note": f.message or f.describe()}
        for t, f in fits.items()
    ])
