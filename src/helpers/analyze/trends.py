"""Trend of the frontier over release dates, t in months since the first release.

Eq. 11: V(M_t) ≈ a·exp(-b·t) + c with a, c >= 0, b > 0; halving time ln 2 / b (months). The fit is
by variable projection: for each decay rate b the best (a, c) >= 0 is a two-variable non-negative
least-squares problem solved in closed form, so the residual sum of squares RSS(b) is exact on a
dense grid of b and the least-squares b is its global minimum (no starting value to get wrong).

Intervals on the halving time:
- **profile likelihood** (the headline): the b with RSS(b) <= RSS(b̂)·(1 + F(1, n-3; level)/(n-3)),
  the F-based profile interval of a non-linear regression with Gaussian residuals; an end that
  reaches b = 0 makes the halving time's upper bound ∞. Measured on synthetic series with a known
  decay rate (``synthetic_coverage``, ``07_validity``).
- the **delta method** (ln 2·se(b)/b², the paper's ±), kept for comparison: it covers less than
  nominal on short series.
- a **bootstrap refit** (``refit_halving``): the fit repeated on each bootstrap replicate of the
  whole frontier-over-time curve, for the sampling noise of the frontier itself.

A fit is *unreliable* (drawn, never a headline) with four release dates or fewer, or when its
profile interval, or its bootstrap refit interval, is wider than the estimate itself — and every fit is unreliable
unless the validity study's simulated sets showed fits passing that rule holding their true halving time in at least
90% of cases on every generator (``rule_holds``, measured by ``benchmarks/halving_coverage.py``).

Beside Eq. 11, the **log-linear trend** log V = α + β·t (as Epoch AI reports price declines):
the frontier's reduction factor per year exp(-12 β) with a 90% t-interval.
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from helpers.core.numbers import sig

DAYS_PER_MONTH = 365.25 / 12
B_GRID = np.geomspace(1e-4, 50.0, 1200)  # decay rates searched, per month (halving 0.014 months .. 580 years)
LEVEL = 0.95
MIN_RELIABLE_POINTS = 5
RELIABLE_COVERAGE = 0.90  # a reliable fit's interval must hold the truth this often, on every generator studied
CALIBRATION = Path(__file__).with_name("halving_calibration.json")  # written by benchmarks/halving_coverage.py


@lru_cache(maxsize=1)
def _study() -> dict | None:
    """The saved halving-coverage study (``CALIBRATION``), read once; None where it was never measured."""
    return json.loads(CALIBRATION.read_text()) if CALIBRATION.is_file() else None


def rule_holds() -> tuple[bool, str]:
    """Whether the validity study's sets showed the reliability rule's intervals holding the true halving time in at
    least ``RELIABLE_COVERAGE`` of reliable fits on every generator (``CALIBRATION``), and, where not, where it failed.
    Without the file no halving time is reliable."""
    study = _study()
    if study is None:
        return False, "the rule's coverage has not been measured (benchmarks/halving_coverage.py)"
    failed = [g for g in study["generators"] if g["reliable"] and g["coverage_pct"] < 100 * RELIABLE_COVERAGE]
    if study["rule_holds"] and not failed:
        return True, ""
    worst = min(failed, key=lambda g: g["coverage_pct"])
    return False, (f"on simulated sets a reliable-looking fit's interval held the true halving time less than "
                   f"{100 * RELIABLE_COVERAGE:.0f}% of the time on {len(failed)} of {len(study['generators'])} "
                   f"generators (as little as {worst['coverage_pct']:.0f}%, under {worst['generator']})")


LOGLINEAR_COVERAGE = 0.85  # a 90% log-linear interval that held the true rate less often than this is not shown


def loglinear_validated() -> tuple[bool, str]:
    """Whether the validity study's sets showed the log-linear trend's 90% interval holding the true rate at least
    ``LOGLINEAR_COVERAGE`` of the time on every generator (``CALIBRATION``), and, where not, a clause saying how
    often it did (for the report, beside a factor printed without its interval)."""
    study = _study()
    if study is None:
        return False, "its interval's coverage has not been measured"
    cover = [g["loglinear_coverage_pct"] for g in study["generators"]]
    if min(cover) >= 100 * LOGLINEAR_COVERAGE:
        return True, ""
    return False, (f"its 90% interval is not shown: on simulated sets it held the true rate in as few as "
                   f"{min(cover):.0f}% of sets, by generator (at most {max(cover):.0f}%)")


MIN_RELEASES = 5  # release dates below which no trend is printed as a finding or in a title (issue 61)


def loglinear_shown(release_dates: int) -> tuple[bool, str]:
    """Whether the log-linear factor per year may be printed at all — in a finding, a cell or a figure's title: only
    where the validity study validated its interval (``loglinear_validated``) and from ``MIN_RELEASES`` release dates
    or more; else a clause saying why not."""
    if release_dates < MIN_RELEASES:  # the first reason: no validity study makes a trend of so few dates a finding
        return False, f"log-linear trend not shown: {release_dates} release dates (needs {MIN_RELEASES})"
    ok, why = loglinear_validated()
    if not ok:
        return False, "log-linear trend not shown: " + (why.split(": ", 1)[1] if ": " in why else why)
    return True, ""


@dataclass(frozen=True)
class DecayFit:
    """Fit of a·exp(-b·t) + c (a, c in the values' unit, b per month) and its halving time in months:
    ``halving_months`` = ln 2 / b, ``halving_low``/``halving_high`` its profile-likelihood interval at
    ``LEVEL`` (high = ∞ when b = 0 is not excluded), ``halving_se`` the delta method's standard error."""

    a: float
    b: float
    c: float
    b_se: float
    halving_months: float
    halving_se: float
    n_points: int
    message: str = ""
    halving_low: float = float("nan")
    halving_high: float = float("nan")
    refit_low: float = float("nan")  # the bootstrap refit's interval (``refit_interval``), where computed
    refit_high: float = float("nan")

    @property
    def identified(self) -> bool:
        return not self.message

    @property
    def degenerate(self) -> bool:
        """A profile interval of (almost) zero width: the likelihood is flat or the fit sits on an edge, not precise."""
        width = self.halving_high - self.halving_low
        return not width > 1e-3 * abs(self.halving_months)

    @property
    def unsettled(self) -> bool:
        """The bootstrap refit's interval wider than the estimate: the frontier's own sampling noise moves the fit
        more than the profile interval (which holds the curve fixed) says — the case of a halving time marked
        reliable that missed its truth by half (GSM8K on the `sim` set: 0.396 [0.36, 0.426] against 0.903)."""
        return bool(np.isfinite(self.refit_low) and not self.refit_high - self.refit_low <= self.halving_months)

    @property
    def looks_reliable(self) -> bool:
        """Five or more release dates, a profile interval of real width no wider than the estimate, and a bootstrap
        refit interval (where computed) no wider than the estimate either (the rule ``rule_holds`` measures)."""
        return (self.identified and self.n_points >= MIN_RELIABLE_POINTS and not self.degenerate
                and self.halving_high - self.halving_low <= self.halving_months and not self.unsettled)

    @property
    def reliable(self) -> bool:
        """``looks_reliable``, where the validity study showed such fits holding their truth (``rule_holds``)."""
        return self.looks_reliable and rule_holds()[0]

    @property
    def why_unreliable(self) -> str:
        if not self.identified:
            return self.message
        if self.n_points < MIN_RELIABLE_POINTS:
            return f"unreliable: {self.n_points} release dates (at least {MIN_RELIABLE_POINTS} needed)"
        if self.degenerate:
            return "unreliable: the interval has zero width (the fit sits on an edge of what the data allow)"
        if self.unsettled:
            return "unreliable: refitted on bootstrap replicates of the frontier, it varies more than the estimate"
        if not self.looks_reliable:
            return "unreliable: the interval is wider than the estimate"
        if not self.reliable:
            return f"unreliable: {rule_holds()[1]}"
        return ""

    def interval_text(self) -> str:
        """``[low, high]`` in months; ``[low, unbounded]`` where the data put no upper bound on it."""
        if not np.isfinite(self.halving_high):
            return f"[{sig(self.halving_low)}, unbounded]"
        return f"[{sig(self.halving_low)}, {sig(self.halving_high)}]"

    def describe(self) -> str:
        if not self.identified:
            return self.message
        text = (f"halving time {sig(self.halving_months)} months, {LEVEL:.0%} profile interval {self.interval_text()} "
                f"(delta method ± {self.halving_se:.1f}; b = {self.b:.3f} / month)")
        return f"{text}; {self.why_unreliable}" if self.why_unreliable else text


def months_since(dates: pd.Series, start: pd.Timestamp) -> np.ndarray:
    return ((pd.to_datetime(dates) - pd.Timestamp(start)).dt.days / DAYS_PER_MONTH).to_numpy(dtype=float)


def _not_identified(n: int, why: str) -> DecayFit:
    nan = float("nan")
    return DecayFit(nan, nan, nan, nan, nan, nan, n, f"not identifiable: {why}")


def profile_rss(t: np.ndarray, y: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """min over a, c >= 0 of Σ (y - a·exp(-b t) - c)² for each b: (RSS, a, c), each (..., G).

    ``t`` (n,) or like ``y`` (..., n) series (e.g. bootstrap replicates), ``b`` (G,) or (..., G). The minimum of this
    convex quadratic over the quadrant is one of its four KKT candidates (interior, a = 0, c = 0, both 0);
    the feasible candidate with the least RSS is returned.
    """
    t, y, b = np.asarray(t, float), np.asarray(y, float), np.asarray(b, float)
    x = np.exp(-b[..., :, None] * t[..., None, :])  # (..., G, n)
    n = y.shape[-1]
    sx, sxx = x.sum(-1), (x * x).sum(-1)  # (..., G)
    sy, syy = y.sum(-1)[..., None], (y * y).sum(-1)[..., None]  # (..., 1)
    sxy = y @ x.T if x.ndim == 2 else np.einsum("...gn,...n->...g", x, y)  # (..., G)
    with np.errstate(divide="ignore", invalid="ignore"):
        det = n * sxx - sx * sx
        a_int = (n * sxy - sx * sy) / det
        c_int = (sy - a_int * sx) / n
        a_only = np.maximum(sxy / sxx, 0.0)
    shape = np.broadcast_shapes(sxy.shape, sx.shape)
    zero = np.zeros(shape)
    interior = (a_int >= 0) & (c_int >= 0) & (det > 1e-12 * n * sxx)
    cands = [(np.where(interior, a_int, 0.0), np.where(interior, c_int, 0.0)), (zero, np.maximum(sy / n, 0.0) + zero),
             (a_only + zero, zero), (zero, zero)]
    def rss_of(a: np.ndarray, c: np.ndarray) -> np.ndarray:
        return syy - 2 * a * sxy - 2 * c * sy + a * a * sxx + 2 * a * c * sx + c * c * n

    best_a, best_c = cands[0]
    best_rss = np.where(interior, rss_of(best_a, best_c), np.inf)
    for a, c in cands[1:]:  # the first least RSS (np.argmin's choice: a NaN, where one is, wins)
        rss = rss_of(a, c)
        take = ~np.isnan(best_rss) & (np.isnan(rss) | (rss < best_rss))
        best_rss, best_a, best_c = np.where(take, rss, best_rss), np.where(take, a, best_a), np.where(take, c, best_c)
    return np.maximum(best_rss, 0.0), best_a, best_c


def _grid_minimum(rss: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(b̂, index of the grid minimum) per series: the grid's minimum refined by a parabola in log b."""
    j = np.argmin(rss, axis=-1)
    jj = np.clip(j, 1, B_GRID.size - 2)[..., None]
    r0, r1, r2 = (np.take_along_axis(rss, jj + k, -1)[..., 0] for k in (-1, 0, 1))
    h = math.log(B_GRID[1] / B_GRID[0])
    with np.errstate(divide="ignore", invalid="ignore"):
        shift = np.clip(0.5 * h * (r0 - r2) / (r0 - 2 * r1 + r2), -h, h)
    shift = np.where((j == jj[..., 0]) & np.isfinite(shift) & (r0 - 2 * r1 + r2 > 0), shift, 0.0)
    return np.exp(np.log(B_GRID[j]) + shift), j


def _crossing(rss: np.ndarray, limit: np.ndarray, i_in: np.ndarray, i_out: np.ndarray) -> np.ndarray:
    """b where RSS crosses ``limit`` between grid points i_in (inside) and i_out (outside), linear in log b."""
    r_in = np.take_along_axis(rss, i_in[..., None], -1)[..., 0]
    r_out = np.take_along_axis(rss, i_out[..., None], -1)[..., 0]
    w = np.clip((limit - r_in) / np.where(r_out > r_in, r_out - r_in, 1.0), 0.0, 1.0)
    return np.exp((1 - w) * np.log(B_GRID[i_in]) + w * np.log(B_GRID[i_out]))


def fit_many(t: np.ndarray, y: np.ndarray, level: float = LEVEL) -> dict[str, np.ndarray]:
    """Eq. 11 fitted to each series of ``y`` (..., n) at dates ``t`` (n,) or (..., n): arrays (...) of
    ``a``, ``b``, ``c``, ``rss``, ``b_se`` (delta method) and the profile interval ``b_low``, ``b_high``
    (0 / ∞ where it reaches the grid's ends)."""
    t, y = np.asarray(t, float), np.asarray(y, float)
    n = y.shape[-1]
    grid = profile_rss(t, y, B_GRID)[0]
    b, j = _grid_minimum(grid)
    tt = np.broadcast_to(t, y.shape)
    e = np.exp(-b[..., None] * tt)
    rss_b, a, c = (v[..., 0] for v in profile_rss(tt, y, b[..., None]))  # each series at its own b̂
    limit = rss_b * (1 + stats.f.ppf(level, 1, n - 3) / (n - 3))
    inside = grid <= limit[..., None]
    idx = np.arange(B_GRID.size)
    lo = np.where(~inside & (idx < j[..., None]), idx, -1).max(-1)  # last grid point outside, left of b̂
    hi = np.where(~inside & (idx > j[..., None]), idx, B_GRID.size).min(-1)
    b_low = np.where(lo < 0, 0.0, _crossing(grid, limit, np.minimum(lo + 1, j), np.maximum(lo, 0)))
    b_high = np.where(hi >= B_GRID.size, np.inf,
                      _crossing(grid, limit, np.maximum(hi - 1, j), np.minimum(hi, B_GRID.size - 1)))
    b_low, b_high = np.minimum(b_low, b), np.maximum(b_high, b)
    J = np.stack([e, -a[..., None] * tt * e, np.ones_like(tt)], axis=-1)  # (..., n, 3)
    JtJ = np.einsum("...ni,...nj->...ij", J, J)
    det = np.linalg.det(JtJ)
    inv = np.linalg.pinv(JtJ)
    with np.errstate(invalid="ignore", divide="ignore"):
        var_b = inv[..., 1, 1] * rss_b / max(n - 3, 1)
    b_se = np.where((det > 0) & (var_b >= 0), np.sqrt(np.abs(var_b)), np.inf)
    return {"a": a, "b": b, "c": c, "rss": rss_b, "b_se": b_se, "b_low": b_low, "b_high": b_high}


def fit_decay(t_months, values, level: float = LEVEL) -> DecayFit:
    """Least-squares fit of ``a·exp(-b·t) + c`` (a, c >= 0, b > 0) with the halving time's intervals.

    Needs at least four distinct (t, value) points, a decline, and residuals to measure uncertainty
    by; otherwise returns a fit whose ``message`` says why it is not identifiable.
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
    f = {k: float(x) for k, x in fit_many(t, v, level).items()}
    if f["a"] <= 0:
        return _not_identified(n, "no decline to fit (a = 0)")
    if f["rss"] <= 1e-20 * float((v ** 2).sum()):  # an exact fit: no residual to measure its uncertainty by
        f.update(b_low=f["b"], b_high=f["b"], b_se=0.0)
    b = f["b"]
    return DecayFit(f["a"], b, f["c"], f["b_se"], math.log(2) / b, math.log(2) * f["b_se"] / b**2, n,
                    halving_low=math.log(2) / f["b_high"] if f["b_high"] > 0 else math.inf,
                    halving_high=math.log(2) / f["b_low"] if f["b_low"] > 0 else math.inf)


def refit_halving(t_months, curves: np.ndarray) -> np.ndarray:
    """Least-squares halving time (months) of each curve (B, n) at the same ``t``, NaN where a curve has no
    decline (a = 0) — for bootstrap replicates of the frontier over time."""
    rss, a, _ = profile_rss(np.asarray(t_months, float), np.asarray(curves, float), B_GRID)
    b, j = _grid_minimum(rss)
    declined = np.take_along_axis(a, j[..., None], -1)[..., 0] > 0
    return np.where(declined, math.log(2) / b, np.nan)


@dataclass(frozen=True)
class LogLinearTrend:
    """log V = α + β t (t in months): ``factor_per_year`` = exp(-12 β), the frontier divides by it every year,
    with its ``level`` t-interval (``low``, ``high``); NaN with a ``message`` when not identified."""

    factor_per_year: float
    low: float
    high: float
    level: float
    n_points: int
    message: str = ""
    intercept: float = float("nan")  # α: log of the value at t = 0
    slope: float = float("nan")  # β per month

    def values(self, t_months) -> np.ndarray:
        """The fitted trend exp(α + β t) at ``t_months``."""
        return np.exp(self.intercept + self.slope * np.asarray(t_months, float))


def log_linear_trend(t_months, values, level: float = 0.90) -> LogLinearTrend:
    """OLS of log(values) on t; needs three distinct dates and positive values."""
    t, v = np.asarray(t_months, float), np.asarray(values, float)
    ok = np.isfinite(t) & np.isfinite(v) & (v > 0)
    t, v = t[ok], np.log(v[ok])
    n = len(np.unique(t))
    if n < 3:
        return LogLinearTrend(*(float("nan"),) * 3, level, n, f"not identifiable: {n} distinct release dates (needs 3)")
    res = stats.linregress(t, v)
    q = stats.t.ppf(0.5 + level / 2, t.size - 2)
    def f(beta):
        return math.exp(-12 * beta)
    return LogLinearTrend(f(res.slope), f(res.slope + q * res.stderr), f(res.slope - q * res.stderr), level, n,
                          intercept=float(res.intercept), slope=float(res.slope))


def refit_interval(t_months, curves: np.ndarray, level: float = LEVEL) -> tuple[float, float]:
    """Percentile interval (months) of the halving times refitted on bootstrap curves (B, n); a replicate with
    no decline has halving time ∞."""
    half = refit_halving(t_months, curves)
    q = 100 * (1 - level) / 2
    lo, hi = np.percentile(np.where(np.isnan(half), np.inf, half), [q, 100 - q])
    return float(lo), float(hi)


def fits_table(fits: dict[str, DecayFit], loglinear: dict[str, LogLinearTrend] | None = None,
               refits: dict[str, tuple[float, float]] | None = None) -> pd.DataFrame:
    """One row per task: a, b, c, the halving time (months) with its profile interval, the delta method's
    standard error, the bootstrap-refit interval (``refits``), the log-linear reduction factor per year with
    its 90% interval, whether the fit is reliable, and a note."""
    rows = []
    for t, f in fits.items():
        ll = (loglinear or {}).get(t)
        rf = (refits or {}).get(t, (float("nan"), float("nan")))
        rows.append({"task": t, "a_pct": f.a, "b_per_month": f.b, "c_pct": f.c, "halving_months": f.halving_months,
                     "halving_low": f.halving_low, "halving_high": f.halving_high, "halving_se_months": f.halving_se,
                     "refit_low": rf[0], "refit_high": rf[1],
                     "factor_per_year": ll.factor_per_year if ll else float("nan"),
                     "factor_low": ll.low if ll else float("nan"), "factor_high": ll.high if ll else float("nan"),
                     "release_dates": f.n_points, "reliable": f.reliable, "note": f.describe()})
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class SetTrends:
    """Eq. 11 (``fits``) and the log-linear trend (``loglinear``) per estimator and task, and their ``table``
    (one ``fits_table`` row per estimator and task)."""

    fits: dict[str, dict[str, DecayFit]]
    loglinear: dict[str, dict[str, LogLinearTrend]]
    table: pd.DataFrame


def set_trends(trend: pd.DataFrame, curves: dict[str, np.ndarray]) -> SetTrends:
    """Eq. 11 and the log-linear trend per estimator and task, with bootstrap-refit intervals.

    ``trend``: ``frontier_over_time`` rows (its release steps in order); ``curves[estimator]``
    (1 + B, steps, T) normalised frontiers (%), row 0 the estimate, tasks in ``trend``'s order.
    """
    releases = trend[trend["date"].notna()]
    tasks = list(dict.fromkeys(releases["task"]))
    if releases.empty:
        return SetTrends({}, {}, fits_table({}))
    first = releases[releases["task"] == tasks[0]]
    t = months_since(first["date"], first["date"].min())
    fits, loglinear, frames = {}, {}, []
    for estimator, curve in curves.items():
        est = {task: fit_decay(t, curve[0, :, j]) for j, task in enumerate(tasks)}
        ll = {task: log_linear_trend(t, curve[0, :, j]) for j, task in enumerate(tasks)}
        refits = {task: refit_interval(t, curve[1:, :, j]) for j, task in enumerate(tasks) if est[task].identified}
        est = {task: dataclasses.replace(f, refit_low=refits[task][0],
                                         refit_high=refits[task][1]) if task in refits else f
               for task, f in est.items()}
        fits[estimator], loglinear[estimator] = est, ll
        frames.append(fits_table(est, ll, refits).assign(estimator=estimator))
    table = pd.concat(frames, ignore_index=True)
    return SetTrends(fits, loglinear,
                     table[["task", "estimator", *[c for c in table.columns if c not in ("task", "estimator")]]])


# ---- coverage on synthetic series with a known decay rate ------------------------------------------
def synthetic_series(rng: np.random.Generator, n_points: int, halving_months: float, noise_pct: float,
                     span_months: float = 24.0, a: float = 80.0, c: float = 5.0) -> tuple[np.ndarray, np.ndarray]:
    """Release dates uniform on [0, span] (the first at 0) and values a·exp(-t ln2 / halving) + c + N(0, noise²)."""
    t = np.sort(np.r_[0.0, rng.uniform(0, span_months, n_points - 1)])
    return t, a * np.exp(-math.log(2) / halving_months * t) + c + rng.normal(0, noise_pct, n_points)


def synthetic_coverage(points=(4, 5, 6, 7, 8, 9), series: int = 1000, halving_months: float = 6.0,
                       noise_pct: float = 4.0, seed: int = 0, level: float = LEVEL, c: float = 5.0) -> pd.DataFrame:
    """Coverage of the true halving time by the profile and delta-method intervals, per number of points, on
    ``synthetic_series`` with floor ``c`` (%): near 0 the constraint c >= 0 binds and the profile interval is
    conservative.

    Rows: n_points, series fitted, coverage of each interval (0-1) with its Monte-Carlo standard error,
    the share of fits reliable (``DecayFit.reliable``), and the profile interval's coverage among those.
    A series whose fit finds no decline counts as not covered.
    """
    rng = np.random.default_rng(seed)
    z = stats.norm.ppf(0.5 + level / 2)
    b_true = math.log(2) / halving_months
    def se(x):
        return math.sqrt(max(x.mean() * (1 - x.mean()), 1e-12) / x.size) if x.size else float("nan")
    rows = []
    for n in points:
        t, y = np.stack([np.stack(synthetic_series(rng, n, halving_months, noise_pct, c=c)) for _ in range(series)], 1)
        f = fit_many(t, y, level)
        ok = f["a"] > 0
        profile = ok & (f["b_low"] <= b_true) & (b_true <= f["b_high"])
        half = math.log(2) / f["b"]
        delta = ok & (np.abs(half - halving_months) <= z * math.log(2) * f["b_se"] / f["b"] ** 2)
        with np.errstate(divide="ignore"):
            width = math.log(2) / f["b_low"] - math.log(2) / f["b_high"]
        reliable = ok & (n >= MIN_RELIABLE_POINTS) & (width <= half)
        rows.append({"n_points": n, "series": series, "profile_coverage": profile.mean(), "profile_se": se(profile),
                     "delta_coverage": delta.mean(), "delta_se": se(delta), "reliable_share": reliable.mean(),
                     "profile_coverage_reliable": profile[reliable].mean() if reliable.any() else float("nan"),
                     "profile_se_reliable": se(profile[reliable])})
    return pd.DataFrame(rows)


def synthetic_coverage_by_floor(floors=(5.0, 30.0), workers: int = 1, **kw) -> pd.DataFrame:
    """``synthetic_coverage`` (keywords ``kw``) for each floor c (%), rows tagged ``floor_pct`` (first column), the
    floors on up to ``workers`` forked processes."""
    from helpers.core.pool import forked_map

    frames = forked_map(lambda c: synthetic_coverage(c=c, **kw).assign(floor_pct=c), [(c,) for c in floors],
                        min(workers, len(floors)))
    out = pd.concat(frames, ignore_index=True)
    return out[["floor_pct", *[c for c in out.columns if c != "floor_pct"]]]
