"""A model-based (item-response) frontier estimator: cost-of-pass where 8 runs cannot see the truth.

Why. A problem's frontier is min(C/R, expert) per strategy with the true success rate R. With n runs, a
strategy that never passed gets R̂ = 0, cost-of-pass ∞, and the problem falls back on the expert
(e.g. 58 USD on GPQA) even when its true R is 0.02 and C/R is 0.01 USD. min(C/R, e) is not a
polynomial in R, so no estimator from n binomial runs is unbiased for it: the plug-in is biased up
by orders of magnitude on hard datasets, and resampling (bootstrap, jackknife) cannot correct what
the runs never show (validity study, 07_validity).

What. Borrow strength across problems with the item-response model the capability-frontier paper uses
(§4.3.2) and the simulator implements, with a floor: problem p of a dataset has a difficulty
z_p ~ N(0, 1) shared by all strategies; strategy s passes one attempt with
R_s(z) = c_s + (1 − c_s)·sigmoid(a_s − b_s·z), b_s ≥ 0, 0 ≤ c_s ≤ 0.95 (the floor: a multiple-choice
guess, or a refinement's R + g·(1 − R)). Per dataset, (a_s, b_s, c_s) maximise the marginal likelihood
of the pass counts (L-BFGS-B with analytic gradients), penalised so that the strategies' logits a and slopes b
spread around their own means no more than the data show (``curve_prior``: a normal random effect whose
spread is the DerSimonian–Laird estimate from a first fit, at least 0.1; the means stay free). Without it
a strategy that passed (or failed) nearly everything has an unidentified curve, and on AIME (30 problems)
the minimum over 20 such curves read the frontier 43% low (median over simulated sets; 8% with the penalty).
The integral over z is the trapezoid rule on 64 equally spaced nodes in [−6, 6]: with 20 strategies of 8
runs a problem's posterior over z has a standard deviation near 0.12, and Gauss–Hermite's 64 nodes
(spacing 0.38 near 0) miss such peaks: slopes come out low and their Laplace errors too small (checked against
the simulator's parameters in tests/test_frontier_model.py).
Floors are tested, not assumed (``fit_tested``): the fit starts with none, and a group of strategies
(the vanilla ones, each technique's) gets them only when a likelihood-ratio test rejects "no floors"
at ``FLOOR_TEST_LEVEL`` (chi-bar-squared reference: a floor of 0 sits on its boundary; a laxer level lets false
floors in where near-perfect curves bend the reference). A floor fitted to noise is what
biased the frontier low: at hard problems the minimum over strategies picks whichever curve noise
lifted off zero. A problem's frontier is then its posterior expectation
E[min(min_s C_s(p)/R_s(z), e_p) | the problem's pass counts], averaged over problems unbiased for the
population frontier when the model holds (law of total expectation). Its interval (``benchmark_draws``) is a
posterior interval for the value of the set's own problems: parameters from their Laplace approximation,
each problem's difficulty from its posterior, costs from resampled runs. It does not resample problems: the
frontier is a mean over a right-skewed quantity whose population value lies largely in the hardest problems,
which no model solves, and which a set of 30-128 problems seldom holds; resampling the set cannot show them
(such intervals under-cover the population value: the validity study measures how much). C_s(p) is the problem's mean
recorded USD per attempt shrunk toward the dataset's mean by how much of its spread over problems is
run noise (``cost_shrinkage``, method of moments): a minimum over noisy costs is biased low too (the
cost side of the optimizer's curse), e.g. min(C, expert) when C is near the expert's cost. Methods
estimated from vanilla runs follow from R(z): best-of-k 1 − (1 − R)^k; majority vote by the closed
form with replacement over the correct answer and D equally likely wrong answers, D = 1 / (how often
two wrong runs on a problem agree), per dataset and model. Where a likelihood-ratio test finds a problem × strategy
interaction (``cell_interaction``: each cell's logit off its curve by e ~ N(0, tau²)), every cell's rate is drawn
from its own posterior and a problem's frontier is a Monte-Carlo expectation. Assumptions (stated in the report):
one latent difficulty per problem (with that interaction where tested in), logistic curves (above a floor where
tested), runs independent given the problem.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from scipy import optimize, special

from helpers.analyze import cell_interaction as ci
from helpers.analyze.bootstrap import RunCube
from helpers.analyze.irt_grid import LOG_W, NODES
from helpers.core.methods import get_method

# re-exported: its tests and validity read it here
from helpers.core.methods.vote_math import vote_polynomial  # noqa: F401

# a group of strategies gets floors when a likelihood-ratio test rejects "no floors" at this level
FLOOR_TEST_LEVEL = 0.01
BOUNDS = ((-25.0, 25.0), (0.0, 10.0), (0.0, 0.95))  # a (logit), b (per unit of difficulty), c (floor, 0-1)


def success(theta: np.ndarray, S: int) -> np.ndarray:
    """R_s(z) = c_s + (1 − c_s)·sigmoid(a_s − b_s·z) at the nodes, (B, S, Q), from ``theta`` (B, 3S): a, b, c."""
    a, b, c = theta[:, :S, None], theta[:, S:2 * S, None], theta[:, 2 * S:, None]
    return c + (1 - c) * special.expit(a - b * NODES)


@dataclass(frozen=True)
class TaskFit:
    """Fitted (a, b, c) per collected strategy of one dataset (NaN: no runs), the covariance of the fitted
    parameters (Laplace: the inverse Hessian of the negative (penalised) log-likelihood, over the used
    strategies' a, b then c) and the maximised (penalised) log-likelihood."""

    a: np.ndarray
    b: np.ndarray
    c: np.ndarray
    used: np.ndarray
    covariance: np.ndarray
    loglik: float
    floor_max: np.ndarray  # (S_used,) upper bound of each used strategy's floor c (0: no floor)

    def bounds(self) -> list[tuple[float, float]]:
        """(low, high) of every fitted parameter, a, b then c of the used strategies."""
        S = len(self.floor_max)
        return [BOUNDS[0]] * S + [BOUNDS[1]] * S + [(0.0, float(f)) for f in self.floor_max]


def _loglik_terms(theta: np.ndarray, k: np.ndarray, n: np.ndarray):
    """(R (B, S, Q), posterior (B, P, Q), log-likelihood (B,)) for parameters ``theta`` (B, 3S): a, b, c."""
    r = np.clip(success(theta, k.shape[1]), 1e-300, 1 - 1e-16)
    ll = k @ np.log(r) + (n - k) @ np.log1p(-r) + LOG_W  # (B, P, Q)
    top = ll.max(axis=2, keepdims=True)  # log-sum-exp over the nodes, by hand (scipy's costs more per call)
    post = np.exp(ll - top)
    total = post.sum(axis=2, keepdims=True)
    return r, post / total, (top + np.log(total)).sum(axis=(1, 2))


def _gradient(theta: np.ndarray, k: np.ndarray, n: np.ndarray, terms=None) -> np.ndarray:
    """Gradient of the log-likelihood, (B, 3S) (``terms``: ``_loglik_terms`` of theta when at hand)."""
    r, post, _ = terms or _loglik_terms(theta, k, n)
    S = k.shape[1]
    post_t = post.transpose(0, 2, 1)
    passes, runs = (post_t @ k).transpose(0, 2, 1), (post_t @ n).transpose(0, 2, 1)  # (B, S, Q) expected counts
    d_r = passes / r - (runs - passes) / (1 - r)  # d log-likelihood / d R at each node
    c = theta[:, 2 * S:, None]
    sig = special.expit(theta[:, :S, None] - theta[:, S:2 * S, None] * NODES)
    slope = (1 - c) * sig * (1 - sig)
    return np.concatenate([(d_r * slope).sum(-1), -(d_r * slope * NODES).sum(-1), (d_r * (1 - sig)).sum(-1)], axis=1)


def fit_task(k: np.ndarray, n: np.ndarray, floor_max: np.ndarray | None = None, start: TaskFit | None = None,
             prior: tuple[float, float] | None = None, covariance: bool = True, ftol: float | None = None) -> TaskFit:
    """Maximum marginal likelihood of the model from pass counts ``k`` of ``n`` runs, (P, S); ``floor_max`` (S,)
    bounds each strategy's floor c (default 0.95; 0 fixes c = 0, a two-parameter curve); ``start``: a fit of the
    same counts to start from (its floors raised to 0.01 where now free); ``prior`` (sd a, sd b): penalise the
    logits' and slopes' deviations from their means, sum((x − mean x)²) / (2 sd²) (``curve_prior``); the
    returned log-likelihood and covariance are then the penalised ones; ``covariance=False`` skips the
    Laplace covariance (NaN), for a fit only compared by its likelihood; ``ftol``: L-BFGS-B's relative tolerance on
    the log-likelihood's change (None: scipy's, about 2e-9)."""
    used = n.sum(axis=0) > 0
    ku, nu = k[:, used].astype(float), n[:, used].astype(float)
    S = int(used.sum())
    fmax = np.full(S, BOUNDS[2][1]) if floor_max is None else np.asarray(floor_max, float)[used]

    sd = np.r_[np.full(S, prior[0]), np.full(S, prior[1])] if prior is not None else np.full(2 * S, np.inf)

    def objective(theta):
        t = theta[None]
        terms = _loglik_terms(t, ku, nu)
        grad = -_gradient(t, ku, nu, terms)[0]
        dev = np.r_[theta[:S] - theta[:S].mean(), theta[S:2 * S] - theta[S:2 * S].mean()] / sd
        grad[:2 * S] += dev / sd
        return -float(terms[2][0]) + 0.5 * float(dev @ dev), grad

    rate = (ku.sum(0) + 0.5) / (nu.sum(0) + 1.0)
    if start is None:
        start = np.r_[special.logit(rate) * 1.6, np.ones(S), np.minimum(0.01, fmax)]
    else:
        start = np.r_[start.a[used], start.b[used], np.minimum(np.maximum(start.c[used], 0.01), fmax)]
    shell = TaskFit(*(np.empty(0),) * 4, np.empty((0, 0)), 0.0, fmax)
    res = optimize.minimize(objective, start, jac=True, method="L-BFGS-B", bounds=shell.bounds(),
                            options={"maxiter": 1000} | ({} if ftol is None else {"ftol": ftol}))
    free = np.r_[np.ones(2 * S, bool), fmax > 0]  # a fixed floor has no spread
    a, b, c = (np.full(len(used), np.nan) for _ in range(3))
    a[used], b[used], c[used] = res.x[:S], res.x[S:2 * S], res.x[2 * S:]
    if not covariance:
        return TaskFit(a, b, c, used, np.full((3 * S, 3 * S), np.nan), -float(res.fun), fmax)
    h = 1e-5  # Hessian by central differences of the analytic gradient, all free directions at once
    steps = np.eye(3 * S)[free] * h
    hess = ((_gradient(res.x + steps, ku, nu) - _gradient(res.x - steps, ku, nu)) / (2 * h))[:, free]
    centring = np.eye(S) - 1 / S
    hess[:2 * S, :2 * S] -= np.kron(np.diag(1 / sd[::S] ** 2), centring)  # the penalty's curvature
    values, vectors = np.linalg.eigh(-(hess + hess.T) / 2)  # the observed information
    keep = values > 1e-8 * max(values.max(initial=0.0), 1e-300)  # flat directions (e.g. every run passed): no spread
    cov = np.zeros((3 * S, 3 * S))
    cov[np.ix_(free, free)] = (vectors[:, keep] / values[keep]) @ vectors[:, keep].T
    return TaskFit(a, b, c, used, cov, -float(res.fun), fmax)


def random_effect(x: np.ndarray, var: np.ndarray) -> tuple[float, float]:
    """(mean, sd) of values ``x`` (S,) measured with variances ``var`` (S,) around a common normal distribution:
    the DerSimonian–Laird estimate (precision-weighted mean; between-value variance from Cochran's Q, at least 0).
    Values without a finite positive variance (a flat direction of the fit) are left out."""
    ok = np.isfinite(var) & (var > 0) & np.isfinite(x)
    if ok.sum() < 2:
        return (float(np.nanmean(x)) if ok.any() else 0.0), np.inf
    w = 1 / var[ok]
    m = float((w * x[ok]).sum() / w.sum())
    q = float((w * (x[ok] - m) ** 2).sum())
    tau2 = max(0.0, (q - (ok.sum() - 1)) / (w.sum() - (w**2).sum() / w.sum()))
    return m, float(np.sqrt(tau2))


def curve_prior(fit: TaskFit, min_sd: float = 0.1) -> tuple[float, float]:
    """(sd a, sd b): how far the strategies' logits a and slopes b spread around their own means, estimated
    from a fit's values and their variances (``random_effect``; at least ``min_sd``)."""
    S = int(fit.used.sum())
    var = np.diag(fit.covariance)
    return (max(random_effect(fit.a[fit.used], var[:S])[1], min_sd),
            max(random_effect(fit.b[fit.used], var[S:2 * S])[1], min_sd))


def wrong_answer_classes(cube: RunCube, s: int, rows: slice) -> int:
    """D for strategy ``s`` on the problems ``rows``: 1 / P(two wrong runs of a problem agree), at least 1."""
    valid = np.arange(cube.usd.shape[2]) < cube.runs[rows, s, None]
    wrong = valid & ~cube.correct[rows, s]
    sizes = np.zeros(wrong.shape, dtype=np.int64)  # wrong runs per answer class
    np.add.at(sizes, (np.nonzero(wrong)[0], cube.answer[rows, s][wrong]), 1)
    m = wrong.sum(axis=1)
    pairs = (m * (m - 1)).sum()
    agree = (sizes * (sizes - 1)).sum()
    return max(1, int(round(pairs / agree))) if agree > 0 else max(1, int(m.max(initial=1)))


@lru_cache(maxsize=64)
def chibar_threshold(floors: int, level: float) -> float:
    """Critical value of the likelihood-ratio statistic for ``floors`` floors at 0 (on their boundary): the
    chi-bar-squared mixture sum_j C(F, j) 2^-F chi2_j (Self & Liang 1987), upper ``level`` quantile."""
    from scipy import stats

    w = stats.binom.pmf(np.arange(floors + 1), floors, 0.5)
    def tail(x):
        return sum(w[j] * stats.chi2.sf(x, j) for j in range(1, floors + 1)) - level
    return float(optimize.brentq(tail, 1e-9, 1e3))


def fit_tested(k: np.ndarray, n: np.ndarray, groups: np.ndarray, level: float = FLOOR_TEST_LEVEL) -> TaskFit:
    """The fit with floors only where the data call for them: a two-parameter fit (every c = 0; unpenalised, then
    again with its ``curve_prior``), then for each
    group of strategies (``groups`` (S,) labels: vanilla, each technique) a fit with that group's floors free,
    kept when its likelihood-ratio statistic passes ``chibar_threshold`` at ``level``; the final fit frees
    the kept groups."""
    used = n.sum(axis=0) > 0
    base = fit_task(k, n, np.zeros(len(used)))
    prior = curve_prior(base)
    base = fit_task(k, n, np.zeros(len(used)), start=base, prior=prior)
    free, fits = np.zeros(len(used), bool), []
    for g in dict.fromkeys(groups[used]):
        member = groups == g
        fit = fit_task(k, n, np.where(member, BOUNDS[2][1], 0.0), start=base, prior=prior, covariance=False)
        if 2 * (fit.loglik - base.loglik) > chibar_threshold(int((member & used).sum()), level):
            free |= member
            fits.append(fit)
    if not fits:
        return base
    return fit_task(k, n, np.where(free, BOUNDS[2][1], 0.0), start=fits[0] if len(fits) == 1 else base, prior=prior)


def cost_shrinkage(usd: np.ndarray, runs: np.ndarray) -> np.ndarray:
    """(S,) how far each strategy's per-problem mean USD per attempt is trusted over the dataset mean (0-1):
    tau^2 / (tau^2 + sigma^2 / n), with sigma^2 the within-problem variance of an attempt's cost and tau^2 the
    between-problem variance of the true means (method of moments), from ``usd`` (P, S, n) and ``runs`` (P, S)."""
    import warnings

    valid = np.arange(usd.shape[2]) < runs[..., None]
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a strategy without runs here: no estimate, trusted as is
        mean = np.where(valid, usd, 0.0).sum(-1) / runs
        within = np.where(valid, (usd - mean[..., None]) ** 2, 0.0).sum(-1) / (runs - 1)  # (P, S)
        noise = np.nanmean(within / runs, axis=0)  # variance of a problem's mean
        between = np.maximum(np.nanvar(mean, axis=0) - noise, 0.0)
        lam = between / (between + noise)
    return np.where(np.isfinite(lam), lam, 1.0)


def shrunk_costs(cost: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """Per-problem USD per attempt pulled toward the dataset's mean m over the problems with runs: m + lam (C - m);
    ``cost`` (..., P, S) of one dataset, ``lam`` (S,)."""
    has = np.isfinite(cost)
    m = np.where(has, cost, 0.0).sum(-2, keepdims=True) / has.sum(-2, keepdims=True)
    return m + lam * (cost - m)


def sampled_nodes(post: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One node per replicate and problem drawn from its posterior ``post`` (B, P, Q): indices (B, P) into Q."""
    cdf = post.cumsum(axis=-1)
    u = rng.random(post.shape[:2] + (1,)) * cdf[..., -1:]
    return np.minimum((cdf < u).sum(axis=-1), post.shape[-1] - 1)


@dataclass
class _Cache:
    """What a ``ModelFrontier`` computes once per fit (or per set of draws), each by its own key."""

    # (dataset, strategy) -> (R, USD)
    rates: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    success: dict[int, np.ndarray] = field(default_factory=dict)  # dataset -> R at the nodes (B, S_used, Q)
    # dataset -> cell rates with interaction (D, P_t, S_used)
    cells: dict[int, np.ndarray] = field(default_factory=dict)
    posteriors: list[np.ndarray] | None = None  # per dataset (B, P_t, Q)
    # dataset -> (posterior (B, P_t, Q'), kept nodes)
    nodes: dict[int, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    # strategies -> per-problem values (B, P) USD
    values: dict[tuple[str, ...], np.ndarray] = field(default_factory=dict)
    last: tuple[tuple[str, ...], list[np.ndarray]] = ((), [])  # the last frontier's minima on the grid, per dataset


class ModelFrontier:
    """The model-based frontier of a RunCube: ``frontier(strategies)`` (B, T) USD, like
    ``bootstrap.Replicates.frontier``. B = 1 (the fit; every problem once) unless ``benchmark_draws`` made
    draws: parameters from their Laplace approximation, every problem's difficulty from its posterior and
    costs from resampled runs (shrunk alike), so intervals carry the fit's, the difficulties' and the costs'
    uncertainty."""

    def __init__(self, cube: RunCube, expert: np.ndarray):
        self.cube, self.expert = cube, np.asarray(expert, float)
        self.weights = np.ones((1, len(cube.problems)))
        valid = np.arange(cube.usd.shape[2]) < cube.runs[..., None]
        self.k = (cube.correct & valid).sum(-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            self.cost = np.where(valid, cube.usd, 0.0).sum(-1) / cube.runs  # (P, S) USD, NaN without runs
        bounds = [*cube.task_starts, len(cube.problems)]
        self.rows = [slice(lo, hi) for lo, hi in zip(bounds[:-1], bounds[1:])]
        self.shrinkage = [cost_shrinkage(cube.usd[r], cube.runs[r]) for r in self.rows]  # (S,) per dataset
        self.cost = self._shrunk(self.cost)
        self.groups = np.array([s.split("+", 1)[1] if "+" in s else "vanilla" for s in cube.strategies])
        self.fits = [fit_tested(self.k[r], cube.runs[r], self.groups) for r in self.rows]
        self.theta = [np.r_[f.a[f.used], f.b[f.used], f.c[f.used]][None] for f in self.fits]  # per task (B, 3S_used)
        self.interaction = [self._interaction(t) for t in range(len(self.rows))]  # per task (tau, LR statistic)
        self.tau = [tau for tau, _ in self.interaction]  # per task: 0, or a tested interaction sd (logit scale)
        # (dataset, strategy) -> wrong-answer classes: the cube's, shared by copies
        self._classes: dict[tuple[int, int], int] = {}
        self._cache = _Cache()
        self._drawn_nodes: list[np.ndarray] | None = None  # per dataset (B, P_t): each problem's drawn difficulty
        self._seed = 0  # of benchmark_draws' interaction draws

    @property
    def strategies(self) -> list[str]:
        return self.cube.all_strategies

    def _counts(self, t: int) -> tuple[np.ndarray, np.ndarray]:
        """Pass counts and runs (P_t, S_used) of dataset ``t``'s fitted strategies, float."""
        used, rows = self.fits[t].used, self.rows[t]
        return self.k[rows][:, used].astype(float), self.cube.runs[rows][:, used].astype(float)

    def _interaction(self, t: int) -> tuple[float, float]:
        """Dataset ``t``'s problem × strategy interaction sd and its test's likelihood-ratio statistic
        (``cell_interaction.fit_tau``; sd 0 where not tested in)."""
        k, n = self._counts(t)
        if not k.size:
            return 0.0, 0.0
        keep = np.flatnonzero(_loglik_terms(self.theta[t], k, n)[1][0].max(axis=0) > 1e-12)
        return ci.fit_tau(self.theta[t][0], k, n, keep)

    def _cells(self, t: int) -> np.ndarray:
        """Dataset ``t``'s cell rates with its interaction (D, P_t, S_used): at the drawn difficulties and parameters
        of ``benchmark_draws``, else ``POINT_DRAWS`` draws at the fit (cached)."""
        if t not in self._cache.cells:
            k, n = self._counts(t)
            if self._drawn_nodes is not None:
                nodes, rng = self._drawn_nodes[t], np.random.default_rng([self._seed, t, 5])
            else:
                post = self._posteriors()[t]  # (1, P_t, Q)
                rng = np.random.default_rng([0, t, 5])
                nodes = sampled_nodes(np.broadcast_to(post, (ci.POINT_DRAWS,) + post.shape[1:]), rng)
            self._cache.cells[t] = ci.draw_cells(self.theta[t], k, n, self.tau[t], nodes, rng)
        return self._cache.cells[t]

    def _shrunk(self, cost: np.ndarray) -> np.ndarray:
        """``cost`` (..., P, S) with each dataset's per-problem means shrunk (``shrunk_costs``)."""
        out = np.array(cost, float)
        for r, lam in zip(self.rows, self.shrinkage):
            out[..., r, :] = shrunk_costs(cost[..., r, :], lam)
        return out

    def benchmark_draws(self, replicates: int, seed: int = 0, costs: np.ndarray | None = None) -> "ModelFrontier":
        """``replicates`` draws of the frontier of the set's own problems (each problem once): parameters from
        N(fit, covariance) clipped to the bounds, each problem's difficulty from its posterior given its pass counts
        and the drawn parameters, and with ``costs`` (B, P, S collected; ``bootstrap.resampled_costs``) each draw's
        USD per attempt from resampled runs, shrunk alike (default: the point estimate's costs). Their percentile
        interval is a posterior interval for the value these problems truly have (what the paper's tables
        report); new problems from the same population would add the between-problem spread, which for a mean
        over a right-skewed quantity a set of this size cannot show."""
        rng = np.random.default_rng(seed)
        other = copy.copy(self)  # the fit, shared; what the draws change is set below, with empty caches
        other._seed, other._cache = seed, _Cache()
        other.weights = np.ones((replicates, len(self.cube.problems)))
        if costs is not None:
            other.cost = self._shrunk(np.asarray(costs, float))
        other.theta = []
        for f, theta in zip(self.fits, self.theta):
            drawn = rng.multivariate_normal(theta[0], f.covariance, size=replicates,
                                            method="eigh", check_valid="ignore")
            lo, hi = np.array(f.bounds()).T
            other.theta.append(np.clip(drawn, lo, hi))
        pick = np.random.default_rng([seed, 4])
        other._drawn_nodes = [sampled_nodes(post, pick) for post in other._posteriors()]
        return other

    def _rates(self, t: int, s_all: int) -> tuple[np.ndarray, np.ndarray]:
        """R(z) at the nodes (B, Q) and the cost per attempt (P_t,) or, with drawn costs, (B, P_t) of strategy
        ``s_all`` on dataset ``t`` (cached)."""
        if (t, s_all) not in self._cache.rates:
            self._cache.rates[(t, s_all)] = self._compute_rates(t, s_all)
        return self._cache.rates[(t, s_all)]

    def _compute_rates(self, t: int, s_all: int) -> tuple[np.ndarray, np.ndarray]:
        fit, rows, n_collected = self.fits[t], self.rows[t], len(self.cube.strategies)
        s, method = (s_all, "vanilla") if s_all < n_collected else self.cube.derived[s_all - n_collected][1:]
        if not fit.used[s]:
            shape = self._cells(t).shape[:2] if self.tau[t] > 0 else (len(self.theta[t]), len(NODES))
            return np.zeros(shape), np.full(rows.stop - rows.start, np.nan)
        i, S = int(fit.used[:s].sum()), int(fit.used.sum())
        if self.tau[t] > 0:
            r = self._cells(t)[:, :, i]  # (D, P_t): at each problem, with the cell's interaction
        else:
            if t not in self._cache.success:
                self._cache.success[t] = success(self.theta[t], S)
            r = self._cache.success[t][:, i]  # (B, Q)
        if method == "vanilla":
            return r, self.cost[..., rows, s]
        made = get_method(method)  # a method made of k vanilla runs owns its success rate given one run's
        if made.rate_given is None:
            raise ValueError(f"method {method!r} has no success rate given a single attempt's (Method.rate_given)")
        if (t, s) not in self._classes:
            self._classes[(t, s)] = wrong_answer_classes(self.cube, s, rows)
        return made.rate_given(r, self._classes[(t, s)], 0.0), made.billed_calls * self.cost[..., rows, s]

    def _posterior(self, t: int) -> np.ndarray:
        fit, rows = self.fits[t], self.rows[t]
        k, n = self.k[rows][:, fit.used].astype(float), self.cube.runs[rows][:, fit.used].astype(float)
        return _loglik_terms(self.theta[t], k, n)[1]  # (B, P_t, Q)

    def _posteriors(self) -> list[np.ndarray]:
        """Each dataset's posterior over the nodes, (B, P_t, Q), computed once."""
        if self._cache.posteriors is None:
            self._cache.posteriors = [self._posterior(t) for t in range(len(self.rows))]
        return self._cache.posteriors

    def _nodes(self, t: int) -> tuple[np.ndarray, np.ndarray]:
        """(posterior (B, P_t, Q'), node indices Q') of dataset ``t`` over the nodes that carry posterior mass
        (> 1e-12 for some replicate and problem; Gauss–Hermite's outer nodes carry ~1e-30): the rest change no
        expectation and need no minimum."""
        if t not in self._cache.nodes:
            post = self._posteriors()[t]
            keep = np.flatnonzero(post.max(axis=(0, 1)) > 1e-12)
            self._cache.nodes[t] = (post[:, :, keep].astype(np.float32), keep)  # as the minima below
        return self._cache.nodes[t]

    def _on_grid(self, t: int, r: np.ndarray) -> np.ndarray:
        """A strategy's R at the nodes (B, Q) where dataset ``t``'s problems need it, float32: (B, P_t) at each
        problem's drawn difficulty (``benchmark_draws``), else (B, P_t, Q') at the nodes with posterior mass."""
        if self.tau[t] > 0:
            return r.astype(np.float32)  # (D, P_t) already at the problems
        if self._drawn_nodes is not None:
            return np.take_along_axis(r, self._drawn_nodes[t], axis=1).astype(np.float32)
        post, keep = self._nodes(t)
        return np.broadcast_to(r[:, keep].astype(np.float32)[:, None, :], post.shape)

    def _grid_shape(self, t: int) -> tuple[int, ...]:
        """Shape of dataset ``t``'s values on the grid (``_on_grid``): (B, P_t), (B, P_t, Q') or, with an interaction
        at the fit, (POINT_DRAWS, P_t)."""
        if self.tau[t] > 0:
            return self._cells(t).shape[:2]
        return self._drawn_nodes[t].shape if self._drawn_nodes is not None else self._nodes(t)[0].shape

    def _expected(self, t: int, values: np.ndarray) -> np.ndarray:
        """(B, P_t) expectation over each problem's difficulty of ``values`` on the grid (``_on_grid``)."""
        if self.tau[t] > 0 and self._drawn_nodes is None:
            return values.mean(axis=0, keepdims=True)  # the Monte-Carlo draws' mean
        return values if self._drawn_nodes is not None else np.einsum("bpq,bpq->bp", self._nodes(t)[0], values)

    def per_problem(self, strategies) -> np.ndarray:
        """Posterior expected V_p(M ∪ {expert}) per replicate and problem (at the drawn difficulty in
        ``benchmark_draws``), (B, P) USD."""
        key = tuple(strategies)
        if key not in self._cache.values:
            last_key, last_best = self._cache.last
            extends = 0 < len(last_key) <= len(key) and key[:len(last_key)] == last_key  # e.g. the next release step
            cols = [self.strategies.index(s) for s in (key[len(last_key):] if extends else key)]
            out = np.empty((len(self.weights), len(self.cube.problems)))
            bests = []
            for t, rows in enumerate(self.rows):
                shape = self._grid_shape(t)
                trail = (slice(None), slice(None)) + (None,) * (len(shape) - 2)  # (B, P_t) values against the grid
                best = last_best[t].copy() if extends else np.broadcast_to(
                    self.expert[None, rows].astype(np.float32)[trail], shape).copy()
                ratio = np.empty(shape, dtype=np.float32)
                for c in cols:
                    r, cost = self._rates(t, c)
                    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                        # R = 0: inf; no runs (NaN): ignored by fmin
                        np.divide(np.broadcast_to(cost, shape[:2]).astype(np.float32)[trail], self._on_grid(t, r),
                                  out=ratio)
                    np.fmin(best, ratio, out=best)
                bests.append(best)
                out[:, rows] = self._expected(t, best)
            self._cache.last = (key, bests)
            self._cache.values[key] = out
        return self._cache.values[key]

    def posterior_rates(self) -> tuple[np.ndarray, np.ndarray]:
        """(C, R) of every strategy, (B, P, S_all): USD per attempt as observed, and each problem's posterior mean
        pass rate, or its rate at the drawn difficulty in ``benchmark_draws`` (NaN where a strategy has no runs)."""
        B, P, S = len(self.weights), len(self.cube.problems), len(self.strategies)
        cost, rate = np.full((B, P, S), np.nan), np.full((B, P, S), np.nan)
        for t, rows in enumerate(self.rows):
            post = self._posteriors()[t]  # (B, P_t, Q)
            for s in range(S):
                r, c = self._rates(t, s)
                has = np.isfinite(c)
                if self.tau[t] > 0:
                    at = r if self._drawn_nodes is not None else r.mean(axis=0, keepdims=True)
                elif self._drawn_nodes is not None:
                    at = np.take_along_axis(r, self._drawn_nodes[t], axis=1)
                else:
                    at = np.einsum("bpq,bq->bp", post, r)
                rate[:, rows, s] = np.where(has, at, np.nan)
                cost[:, rows, s] = c
        return cost, rate

    def frontier(self, strategies) -> np.ndarray:
        """(B, T) USD: the per-problem values averaged with the problem weights of each replicate."""
        values = self.per_problem(list(strategies))
        starts = self.cube.task_starts
        return np.add.reduceat(self.weights * values, starts, axis=1) / np.add.reduceat(self.weights, starts, axis=1)
