"""Checks of the item-response model (``frontier_model``) against a dataset's pass counts, which gate its numbers.

The model-based estimator is only as good as its model: one latent difficulty per problem shared by every
strategy, logistic curves, runs independent given the problem. Five checks per dataset, four of them a statistic of the
pass counts k (P, S) of n runs compared with its distribution over ``SIMULATIONS`` data sets drawn from the fitted
model itself (a parametric bootstrap with the fitted parameters held, so a p-value is the share of simulated
statistics at least as extreme as the observed one):

- ``all-fail``: problems each strategy never passed (and no strategy passed), their excess over the predicted
  count, a Pearson sum over strategies. Wrong reference answers and capability cliffs make strong models fail outright
  far more often than a smooth curve allows.
- ``dispersion``: Pearson X² of the (problem, strategy) counts around their posterior-predictive expectations
  given the other strategies' counts on the problem (each term capped at ``CAP``). A problem × strategy
  interaction (a problem hard for one model, easy for another) spreads counts more than one shared difficulty
  can.
- ``split-sample``: the curves fitted on half of the problems predict each held-out count from the other
  strategies' counts on that problem (leave one strategy out); Pearson X² of those predictions.
- ``ordering``: the mean rank correlation (Spearman) between strategies' per-problem pass rates: lower when
  models disagree about which problems are hard than one shared difficulty allows.
- ``floor`` (free-response datasets only): the likelihood-ratio test of floors c_s > 0 for the vanilla
  strategies (chi-bar-squared reference). Where no answer can be guessed, a floor has nothing to explain but a
  departure: wrong reference answers (a weak model's wrong answer that equals a wrong reference passes "at
  chance" while strong models fail) are what the fit's floors otherwise absorb.

The model is rejected on a dataset when any check rejects at ``LEVEL`` / 5 (Bonferroni: at most ``LEVEL`` false
alarms in all when the model holds). A p-value computed with the fitted parameters held is not uniform when the model
holds (at paper scale some checks rejected 0% of the time at 2%, the floor check 8.6%), so each check rejects where its
p-value is at most its *calibrated* critical value (``critical_p``): the ``LEVEL`` / 5 quantile of its p-values over
simulated sets of the model's own family at paper scale, measured by ``benchmarks/model_checks_size.py`` (on other sets
than the ones that check its size) and kept in ``model_checks_calibration.json``. The size depends on the dataset's
shape (with paper scale's values, 20 problems x 3 models x 4 runs rejected 13.2% for any check), so the file also holds
critical values calibrated at smaller shapes and at the `sim` set's own (whose strategies include self-refine's), and a
dataset takes those of the nearest shape (``critical_p``).
The simulation checks' p-values are randomised over ties (each seeded), so that quantile exists at any level.
Measured sizes and powers are in docs/statistics.md.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import special, stats

from helpers.analyze.frontier_model import BOUNDS, LOG_W, TaskFit, curve_prior, fit_task, success

CHECKS = ("all-fail", "dispersion", "split-sample", "ordering", "floor")
LEVEL = 0.10  # family-wise false-alarm rate of the checks when the model holds
SIMULATIONS = 100  # simulated data sets per check: p-values in steps of 1/101, below the 2% level at the first
CAP = 9.0  # a cell's Pearson term is capped (3 sd): a rare pass where the curve says ~0 would otherwise swamp the sum


@dataclass(frozen=True)
class CheckResult:
    """One check on one dataset: its statistic on the data, the simulated statistics' mean, and the p-value."""

    check: str
    statistic: float
    expected: float
    p_value: float
    critical: float = float("nan")  # the p-value at or below which it rejects (NaN: paper scale's, ``critical_p``)

    @property
    def rejects(self) -> bool:
        return self.p_value <= (self.critical if np.isfinite(self.critical) else critical_p()[self.check])


CALIBRATION = Path(__file__).with_name("model_checks_calibration.json")


PAPER_SHAPE = (128, 10, 8)  # problems, strategies, runs of the calibration's paper scale


@lru_cache(maxsize=16)
def critical_p(shape: tuple[int, int, int] | None = None) -> dict[str, float]:
    """Check -> its calibrated critical p-value (module docstring), or ``LEVEL`` / 5 where not calibrated: paper
    scale's, or with ``shape`` (problems, strategies, runs per cell) those of the calibrated shape nearest to it (on
    log scales)."""
    import json

    saved = json.loads(CALIBRATION.read_text()) if CALIBRATION.is_file() else {}
    measured = saved.get("critical_p", {})
    if shape is not None:
        shapes = [(PAPER_SHAPE, measured)] + [((e["problems"], e["models"], e["runs"]), e["critical_p"])
                                              for e in saved.get("shapes", [])]
        def far(entry):
            return float(np.sum(np.log(np.asarray(entry[0], float) / np.maximum(shape, 1)) ** 2))
        measured = min(shapes, key=far)[1]
    return {c: float(measured.get(c, LEVEL / len(CHECKS))) for c in CHECKS}


def data_shape(n: np.ndarray) -> tuple[int, int, int]:
    """(problems, strategies, runs per cell) of a dataset's runs ``n`` (P, S): the runs are the most any cell has."""
    return int(n.shape[0]), int(n.shape[1]), int(n.max(initial=0))


def _theta(fit: TaskFit) -> np.ndarray:
    return np.r_[fit.a[fit.used], fit.b[fit.used], fit.c[fit.used]][None]


def _rates_at(theta: np.ndarray, z: np.ndarray) -> np.ndarray:
    """R_s(z) for difficulties ``z`` (..., P): (..., P, S)."""
    S = theta.shape[1] // 3
    a, b, c = theta[0, :S], theta[0, S:2 * S], theta[0, 2 * S:]
    return c + (1 - c) * special.expit(a - b * z[..., None])


def simulate_counts(theta: np.ndarray, n: np.ndarray, sims: int, rng: np.random.Generator) -> np.ndarray:
    """(sims, P, S) pass counts drawn from the model: z ~ N(0, 1) per problem, k ~ Binomial(n, R_s(z))."""
    z = rng.standard_normal((sims, n.shape[0]))
    return rng.binomial(np.broadcast_to(n.astype(np.int64), (sims, *n.shape)), _rates_at(theta, z)).astype(float)


def all_fail_statistic(theta: np.ndarray, k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Σ_j max(O_j − E_j, 0)² / max(E_j, 1) over strategies j (problems it never passed) and "no strategy
    passed": more outright failures than the curves allow;
    ``k`` (..., P, S); E from the model's marginal over z (the grid's weights)."""
    r = success(theta, k.shape[-1])[0]  # (S, Q)
    w, has = np.exp(LOG_W), n > 0
    fail = (1 - r[None]) ** n[:, :, None]  # (P, S, Q): P(0 passes | z)
    expected = np.r_[np.einsum("psq,q,ps->s", fail, w, has.astype(float)),
                     np.einsum("pq,q->", np.prod(np.where(has[:, :, None], fail, 1.0), axis=1), w)]
    never = (k == 0) & has
    observed = np.concatenate([never.sum(-2), (never | ~has).all(-1).sum(-1)[..., None]], axis=-1)
    return (np.maximum(observed - expected, 0.0) ** 2 / np.maximum(expected, 1.0)).sum(-1)


def loo_terms(theta: np.ndarray, k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """(..., P, S) Pearson terms of each count ``k`` (..., P, S) predicted from the other strategies' counts on its
    problem: the predictive mean n·E[R] and variance n·E[R(1 − R)] + n²·Var[R] over z's posterior without that
    strategy (0 where a cell has no runs)."""
    r = np.clip(success(theta, k.shape[-1])[0], 1e-30, 1 - 1e-7).astype(np.float32)  # (S, Q); float32: speed
    k32, miss32 = np.asarray(k, np.float32), np.asarray(n - k, np.float32)
    cell = k32[..., None] * np.log(r) + miss32[..., None] * np.log1p(-r)  # (..., P, S, Q)
    rest = cell.sum(-2, keepdims=True) - cell + LOG_W.astype(np.float32)
    rest -= rest.max(-1, keepdims=True)
    post = np.exp(rest, out=rest)
    post /= post.sum(-1, keepdims=True)
    m1, m2 = (post * r).sum(-1, dtype=np.float64), (post * r**2).sum(-1, dtype=np.float64)
    var = n * (m1 - m2) + n**2 * (m2 - m1**2)
    return np.where(n > 0, (k - n * m1) ** 2 / np.maximum(var, 1e-6), 0.0)


def loo_statistic(theta: np.ndarray, k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Σ over cells of the leave-one-strategy-out Pearson terms (``loo_terms``), each capped at ``CAP``."""
    return np.minimum(loo_terms(theta, k, n), CAP).sum((-1, -2))



def ordering_statistic(k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Mean Spearman correlation over pairs of strategies of their per-problem pass rates (..., P, S) -> (...)."""
    rate = k / np.maximum(n, 1)
    ranks = stats.rankdata(rate, axis=-2)
    ranks = ranks - ranks.mean(-2, keepdims=True)
    norm = np.sqrt((ranks**2).sum(-2))  # (..., S)
    ok = norm > 0
    corr = np.einsum("...ps,...pt->...st", ranks,
                     ranks) / np.where(ok, norm, 1)[..., :, None] / np.where(ok, norm, 1)[..., None, :]
    pair = ok[..., :, None] & ok[..., None, :] & ~np.eye(k.shape[-1], dtype=bool)
    return np.where(pair, corr, 0).sum((-1, -2)) / np.maximum(pair.sum((-1, -2)), 1)


def _p_upper(observed: float, simulated: np.ndarray, u: float = 1.0) -> float:
    """The share of simulated statistics above the observed one, ties (and the observed itself) counted with weight
    ``u`` ∈ (0, 1] (a uniform draw: a randomised p-value, uniform when the simulations are exchangeable with the data;
    u = 1: the conservative one)."""
    return float(((simulated > observed).sum() + u * (1 + (simulated == observed).sum())) / (1 + len(simulated)))


def chibar_p_value(statistic: float, floors: int) -> float:
    """P(LR ≥ statistic) under no floors: the chi-bar-squared mixture Σ_j C(F, j) 2^-F χ²_j (Self & Liang 1987)."""
    w = stats.binom.pmf(np.arange(floors + 1), floors, 0.5)
    tail = sum(w[j] * stats.chi2.sf(statistic, j) for j in range(1, floors + 1))
    return float(min(1.0, tail + (w[0] if statistic <= 0 else 0.0)))


def floor_check(k: np.ndarray, n: np.ndarray, groups: np.ndarray) -> CheckResult:
    """The ``floor`` check: LR statistic of the vanilla strategies' floors (``groups`` == "vanilla") against none,
    both fits penalised as ``fit_tested``'s; its expectation under no floors and its chi-bar-squared p-value."""
    used = n.sum(axis=0) > 0
    member = (groups == "vanilla") & used
    base = fit_task(k, n, np.zeros(len(used)), covariance=False)
    prior = curve_prior(fit_task(k, n, np.zeros(len(used))))
    base = fit_task(k, n, np.zeros(len(used)), start=base, prior=prior, covariance=False)
    free = fit_task(k, n, np.where(member, BOUNDS[2][1], 0.0), start=base, prior=prior, covariance=False)
    lr = max(2 * (free.loglik - base.loglik), 0.0)
    return CheckResult("floor", lr, float(member.sum()) / 2, chibar_p_value(lr, int(member.sum())))


def check_task(k: np.ndarray, n: np.ndarray, fit: TaskFit, seed: int = 0, sims: int = SIMULATIONS,
               groups: np.ndarray | None = None, free_response: bool = False) -> list[CheckResult]:
    """The checks of one dataset's pass counts ``k`` of ``n`` runs (P, S) under its fit (``fit_tested``);
    ``groups`` (S,) each strategy's group ("vanilla" or a technique) and ``free_response`` (no answer can be
    guessed) for the ``floor`` check, else reported as not applicable (p = 1)."""
    used = fit.used
    k, n = k[:, used].astype(float), n[:, used].astype(float)
    theta = _theta(fit)
    rng = np.random.default_rng([seed, 17])
    sim = simulate_counts(theta, n, sims, rng)
    out = []
    u = 1.0 - rng.uniform(size=4)  # (0, 1]: one tie-breaking draw per simulation check
    for i, (name, f) in enumerate((("all-fail", all_fail_statistic), ("dispersion", loo_statistic))):
        obs, ref = float(f(theta, k, n)), f(theta, sim, n)
        out.append(CheckResult(name, obs, float(ref.mean()), _p_upper(obs, ref, u[i])))
    # split-sample: curves from a random half (started at the full fit, same prior and floors), the other half predicted
    P = len(k)
    half = rng.permutation(P)[: P // 2]
    held = np.setdiff1d(np.arange(P), half)
    full_k, full_n = np.zeros((P, len(used))), np.zeros((P, len(used)))
    full_k[:, used], full_n[:, used] = k, n
    floors = np.zeros(len(used))
    floors[used] = fit.floor_max
    part = fit_task(full_k[half], full_n[half], floors, start=fit, prior=curve_prior(fit), covariance=False)
    if part.used[used].all():
        theta_h = _theta(part)
        obs = float(loo_statistic(theta_h, k[held], n[held]))
        ref = loo_statistic(theta_h, simulate_counts(theta_h, n[held], sims, rng), n[held])
        out.append(CheckResult("split-sample", obs, float(ref.mean()), _p_upper(obs, ref, u[2])))
    else:  # a strategy without runs in the fitted half: no prediction
        out.append(CheckResult("split-sample", np.nan, np.nan, 1.0))
    obs, ref = float(ordering_statistic(k, n)), ordering_statistic(sim, n)
    out.append(CheckResult("ordering", obs, float(ref.mean()), _p_upper(-obs, -ref, u[3])))  # lower is extreme
    if free_response and groups is not None:
        out.append(floor_check(full_k, full_n, np.asarray(groups)))
    else:  # a guess explains a floor on a multiple-choice dataset: not a departure
        out.append(CheckResult("floor", np.nan, np.nan, 1.0))
    critical = critical_p(data_shape(n))  # calibrated at the nearest shape
    return [replace(r, critical=critical[r.check]) for r in out]


def set_checks(cube_k: np.ndarray, runs: np.ndarray, fits: list[TaskFit], rows: list[slice], tasks: list[str],
               seed: int = 0, sims: int = SIMULATIONS, groups: np.ndarray | None = None,
               free_response: frozenset[str] | set[str] = frozenset(),
               interaction: list[tuple[float, float]] | None = None
               ) -> pd.DataFrame:
    """Every check of every dataset: rows (task, check, statistic, expected, p_value, critical: the p-value it rejects
    at, rejects), from the pass counts ``cube_k`` and ``runs`` (P, S) of collected strategies and each dataset's fit
    and rows (``ModelFrontier``); ``groups`` and ``free_response`` (the tasks whose answers cannot be guessed) as
    ``check_task``. With ``interaction`` (per dataset: the fitted interaction sd and its likelihood-ratio statistic,
    ``ModelFrontier.interaction``) a row ``interaction`` reports it: part of the model, never a rejection."""
    from scipy import stats

    out = []
    for t, (task, fit, r) in enumerate(zip(tasks, fits, rows)):
        for res in check_task(cube_k[r], runs[r], fit, seed=seed + t, sims=sims, groups=groups,
                              free_response=task in free_response):
            crit = res.critical if np.isfinite(res.critical) else critical_p()[res.check]
            out.append({"task": task, **asdict(res), "critical": crit, "rejects": res.rejects})
        if interaction is not None:
            tau, lr = interaction[t]
            out.append({"task": task, "check": "interaction", "statistic": tau, "expected": 0.0,
                        "p_value": float(0.5 * stats.chi2.sf(lr, 1)) if lr > 0 else 1.0, "rejects": False})
    return pd.DataFrame(out, columns=["task", "check", "statistic", "expected", "p_value", "critical", "rejects"])


def verdicts(checks: pd.DataFrame) -> dict[str, str]:
    """task -> "" where the model holds, else "rejected by <check>[, <check>]"."""
    out = {}
    for task, g in checks.groupby("task", sort=False):
        bad = list(g.loc[g["rejects"], "check"])
        out[task] = f"rejected by {', '.join(bad)}" if bad else ""
    return out
