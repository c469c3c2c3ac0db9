"""Routing each problem by a difficulty the strategies share: a way of choosing for ``policy.crossfit_halves``
(issue 61, item 1).

Why. A policy that chooses one option per dataset cannot beat the best single option, and where the records
cannot tell close options apart it pays for the noise of choosing (a few % above the best single option on
several generators: ``benchmarks/frontier_choice.py``). A problem's own runs say which options pass *it*, but
half of 8 runs of one option says little; the runs of every option on the problem say more when one
difficulty drives them all. So: per dataset, two-parameter item-response curves, strategy s passing a problem
of difficulty z with chance sigmoid(a_s − b_s·z) (``frontier_model.fit_task``, no floors), fitted on the
problems of the *other* folds (every run of theirs), with a problem × strategy interaction where a
likelihood-ratio test finds one on them (``cell_interaction.fit_tau``: each cell's logit off its curve by
e ~ N(0, tau²), so a cell's own passes count for more the larger tau). A problem's difficulty then has a
posterior from its choosing half (the passes of every strategy with runs on it, on the same run positions),
each cell's interaction one given that difficulty and the cell's passes, and each option's expected cost of
"up to k tries, then the expert" under them is c_s·E[Σ_{t<k} (1 − R_s)^t] + fee·E[(1 − R_s)^k], c_s the
option's mean USD per run on the other folds. The lowest is this way's choice.

The problem's own runs reach its choice only through its choosing half: its valuing half, and every run of
the fold's other problems, stay out of the curves that route it (folds by position, no seed). The curves
do see the other folds' valuing halves, as ``policy.loo_criterion`` sees the other problems' runs: the
validity study measures what that leaves.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from helpers.analyze import cell_interaction as ci
from helpers.analyze.irt_grid import LOG_W, NODES

FOLDS = 5  # the folds of a dataset's problems the curves are fitted without
FTOL = 1e-7  # the curves' fit stops when the log-likelihood changes by less than this share (scipy's: about 2e-9):
# a route moves little with the fit's last digits (benchmarks/routing_cost.py: what it saves)


@dataclass(frozen=True)
class FoldCurves:
    """A dataset's curves, one fit per fold of its n problems without that fold's problems."""

    fold: np.ndarray  # (n,) int: each problem's fold (``fold_of``)
    rates: np.ndarray  # (F, U, Q, G): each strategy's success chance at each difficulty node (``irt_grid.NODES``) and
    # interaction node (``cell_interaction.E_NODES``); NaN: a strategy without runs outside the fold
    cost: np.ndarray  # (F, U) USD: each strategy's mean cost per run outside the fold (NaN: no runs)
    tau: np.ndarray  # (F,) the interaction's sd on the logit scale (0: none found)


def fold_of(n: int, folds: int = FOLDS) -> np.ndarray:
    """(n,) the fold of each of a dataset's n problems: its position mod ``folds`` (no seed; at most n folds)."""
    return np.arange(n) % max(min(folds, n), 1)


def fold_curves(passes: np.ndarray, runs: np.ndarray, usd: np.ndarray, folds: int = FOLDS) -> FoldCurves:
    """``FoldCurves`` of a dataset's n problems from ``passes`` and ``runs`` (n, U) counts per strategy and ``usd``
    (n, U) what its runs cost in all, USD. ``folds`` 1: one fit on every problem (where the counts hold only runs
    that choose, never one that values)."""
    from helpers.analyze.frontier_model import fit_task  # here: importing policy stays without the model's modules

    n, U = runs.shape
    fold = fold_of(n, folds)
    F = int(fold.max()) + 1 if n else 0
    rates = np.full((F, U, len(NODES), len(ci.E_NODES)), np.nan)
    cost, tau = np.full((F, U), np.nan), np.zeros(F)
    start = None
    for f in range(F):
        rest = fold != f if F > 1 else np.ones(n, bool)
        if not rest.any():
            continue
        k, m = passes[rest].astype(float), runs[rest].astype(float)
        warm = start if start is not None and np.isfinite(start.a[m.sum(axis=0) > 0]).all() else None
        fit = start = fit_task(k, m, floor_max=np.zeros(U), start=warm, covariance=False,
                               ftol=FTOL)  # from the last fold's
        used = np.flatnonzero(fit.used)
        theta = np.r_[fit.a[used], fit.b[used], fit.c[used]]
        tau[f] = ci.fit_tau(theta, k[:, used], m[:, used], np.arange(len(NODES)), refine=False)[0]  # by parabolas:
        # a route moves little with tau's second digit (benchmarks/routing_cost.py: what it saves)
        rates[f, used] = ci.conditional_rates(theta[None], len(used), NODES, tau[f])[0]
        tried = m.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            cost[f] = np.where(tried > 0, usd[rest].sum(axis=0) / tried, np.nan)
    return FoldCurves(fold, rates, cost, tau)


def _cell_tables(rates: np.ndarray, h: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For one fold's ``rates`` (U, Q, G) and a choosing half of h runs, per strategy, difficulty node and passes
    s = 0…h, (U, Q, h + 1) each: the log-likelihood of s passes (the interaction integrated out), and given them the
    expected tries of up to k and the expected chance that all k fail."""
    s = np.arange(h + 1)
    r = np.clip(rates[..., None], 1e-300, np.nextafter(1.0, 0.0))  # (U, Q, G, S)
    cell = s * np.log(r) + (h - s) * np.log1p(-r) + ci.LOG_EW[:, None]
    loglik = special.logsumexp(cell, axis=2)  # (U, Q, S)
    post = np.exp(cell - loglik[:, :, None, :])  # the interaction's posterior given z and s
    fail = 1 - rates
    tries, moment = np.zeros_like(fail), np.ones_like(fail)
    for _ in range(k):
        tries += moment
        moment = moment * fail
    return (loglik, np.einsum("uqgs,uqg->uqs", post, tries), np.einsum("uqgs,uqg->uqs", post, moment))


def expected_costs(curves: FoldCurves, at: np.ndarray, choosing: np.ndarray, h: int, has: np.ndarray,
                   fee: np.ndarray, k: int) -> np.ndarray:
    """(n, C, U) USD: each strategy's expected cost of "up to k tries, then the expert" on n problems of the dataset
    (``at`` (n,) their positions in it) under C ways of choosing: ``choosing`` (n, C, U) the passes in each way's
    choosing half of h runs, on the cells with runs (``has`` (n, U)); ``fee`` (n,) USD. The posterior over the
    problem's difficulty reads every strategy with runs and a curve; NaN where a strategy has no runs or no curve."""
    n, C, U = choosing.shape
    out = np.full((n, C, U), np.nan)
    passes = np.rint(choosing).astype(np.int64)
    cells = np.arange(U) * (h + 1) + passes  # (n, C, U): each cell's column among the strategies' passes 0..h
    for f in np.unique(curves.fold[at]):
        here = np.flatnonzero(curves.fold[at] == f)
        loglik, tries, fail_all = (x.transpose(1, 0, 2).reshape(len(NODES), U * (h + 1)) for x in  # (Q, U·(h + 1))
                                   _cell_tables(np.nan_to_num(curves.rates[f], nan=0.5), h, k))
        reads = has[here] & np.isfinite(curves.rates[f, :, 0, 0])[None]  # (m, U)
        mine = cells[here]  # (m, C, U)
        said = np.zeros((len(here), C, U * (h + 1)))  # the passes each strategy read said: one 1 per strategy read
        problem, split, strategy = np.nonzero(np.broadcast_to(reads[:, None, :], mine.shape))
        said[problem, split, mine[problem, split, strategy]] = 1.0
        log_post = said @ loglik.T + LOG_W  # (m, C, Q): the sum of the strategies' log-likelihoods, and the prior
        post = np.exp(log_post - log_post.max(axis=-1, keepdims=True))
        post /= post.sum(axis=-1, keepdims=True)
        expected_tries = np.take_along_axis(post @ tries, mine, axis=-1)  # (m, C, U)
        expected_fail = np.take_along_axis(post @ fail_all, mine, axis=-1)
        value = curves.cost[f] * expected_tries + fee[here, None, None] * expected_fail
        out[here] = np.where(reads[:, None, :], value, np.nan)
    return out
