"""A problem × strategy interaction for the item-response model of ``frontier_model``: each (problem, strategy) cell's
logit departs from its curve by e_ps ~ N(0, tau²), so a strategy can be better or worse at one problem than the
problem's shared difficulty says. Pure functions of fitted parameters and pass counts on the difficulty grid
(``irt_grid``).

The two-parameter fit without the interaction recovers the *marginal* curves, E_e[sigmoid(a − b·z + tau·e)], which
are flatter than the conditional ones by about kappa = sqrt(1 + pi·tau²/8) (the probit approximation); so with an
interaction the conditional logit is kappa·(a − b·z) + tau·e, whose average over e is the fitted curve again. tau is
the maximiser of the marginal likelihood over tau with the fitted curves so held, kept where a likelihood-ratio test
of tau = 0 (on its boundary: a 50:50 mixture of 0 and chi²₁) rejects at ``LEVEL``. With tau > 0 a problem's frontier
is a Monte-Carlo expectation: its difficulty drawn from the fit's posterior, then every cell's interaction from its
own posterior given that difficulty and the cell's pass count — so a cell that passed where its curve says it rarely
does keeps its own rate, and a cell that never passed keeps a small positive one.
"""

from __future__ import annotations

import numpy as np
from scipy import optimize, special, stats

from helpers.analyze.irt_grid import LOG_W, NODES

E_NODES, E_WEIGHTS = np.polynomial.hermite_e.hermegauss(9)  # e ~ N(0, 1): 9 Gauss–Hermite nodes
LOG_EW = np.log(E_WEIGHTS / E_WEIGHTS.sum())
LEVEL = 0.01  # the interaction enters where a likelihood-ratio test rejects tau = 0 at this level
MAX_TAU = 3.0  # logit scale
COARSE_TAUS = (0.25, 0.5, 1.0, 2.0)  # where the likelihood is read first
POINT_DRAWS = 64  # Monte-Carlo draws per problem of the point estimate


def attenuation(tau: float) -> float:
    """kappa: how much flatter the marginal curve is than the conditional one for interaction sd ``tau``."""
    return float(np.sqrt(1 + np.pi * tau**2 / 8))


def conditional_rates(theta: np.ndarray, S: int, z: np.ndarray, tau: float) -> np.ndarray:
    """R at difficulty ``z`` and every interaction node: c + (1 − c)·sigmoid(kappa·(a − b·z) + tau·e_g); ``theta``
    (B, 3S): a, b, c; ``z`` (B, P) → (B, P, S, G), or (Q,) → (B, S, Q, G)."""
    a, b, c = theta[:, :S], theta[:, S:2 * S], theta[:, 2 * S:]
    kappa = attenuation(tau)
    if z.ndim == 1:  # a grid: (B, S, Q, G)
        eta = kappa * (a[:, :, None] - b[:, :, None] * z[None, None, :])[..., None] + tau * E_NODES
        return c[:, :, None, None] + (1 - c[:, :, None, None]) * special.expit(eta)
    eta = kappa * (a[:, None, :] - b[:, None, :] * z[:, :, None])[..., None] + tau * E_NODES  # (B, P, S, G)
    return c[:, None, :, None] + (1 - c[:, None, :, None]) * special.expit(eta)


def _cell_loglik(r: np.ndarray, k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """log(w_g) + k·log R + (n − k)·log(1 − R) for rates ``r`` whose axes match ``k``/``n`` then (…, G)."""
    r = np.clip(r, 1e-300, np.nextafter(1.0, 0.0))  # 1 - 1e-16 would round to 1: log1p(-1) = -inf
    return k[..., None] * np.log(r) + (n - k)[..., None] * np.log1p(-r) + LOG_EW


def _logsumexp(x: np.ndarray) -> np.ndarray:
    """log Σ exp over the last axis, by hand (scipy's costs more per call than these small arrays do)."""
    top = x.max(axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):  # a row of −∞: −∞, as scipy's
        return np.log(np.exp(x - top).sum(axis=-1)) + top[..., 0]


def marginal_loglik(theta: np.ndarray, k: np.ndarray, n: np.ndarray, tau: float, keep: np.ndarray,
                    pairs: tuple[np.ndarray, np.ndarray] | None = None) -> float:
    """The marginal log-likelihood of pass counts ``k`` of ``n`` runs (P, S) with interaction sd ``tau``, over the
    difficulty nodes ``keep`` (indices into ``NODES``) and the interaction's nodes; ``theta`` (3S,). A cell's
    likelihood depends on its counts only through (k, n), so it is computed once per distinct pair and strategy
    (``pairs``: ``count_pairs`` of k and n where the caller reads the likelihood at many taus)."""
    S = k.shape[1]
    held, which = count_pairs(k, n) if pairs is None else pairs
    r = conditional_rates(theta[None], S, NODES[keep], tau)[0]  # (S, Q', G)
    per_pair = _logsumexp(_cell_loglik(r[:, :, None, :], held[0], held[1]))
    cells = per_pair[np.arange(S)[None, :], :, which.reshape(k.shape)]  # (S, Q', J) -> (P, S, Q')
    per_node = cells.sum(axis=1) + LOG_W[keep]  # (P, Q')
    return float(_logsumexp(per_node).sum())


def count_pairs(k: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(pairs (2, J), which (P·S,)): the distinct (passes, runs) pairs of the cells ``k``, ``n`` (P, S), and each
    cell's pair."""
    pairs, which = np.unique(np.stack([k.ravel(), n.ravel()]), axis=1, return_inverse=True)
    return pairs, which


def fit_tau(theta: np.ndarray, k: np.ndarray, n: np.ndarray, keep: np.ndarray, level: float = LEVEL,
            refine: bool = True) -> tuple[float, float]:
    """(tau, likelihood-ratio statistic of tau = 0): tau maximises ``marginal_loglik`` on [0, MAX_TAU] with the
    fitted curves ``theta`` (3S,) held (conditionally steepened by kappa); tau is 0 unless the statistic passes the
    boundary test at ``level`` (critical value: the chi²₁ quantile at 1 − 2·level). The likelihood is first read on
    a coarse grid; where no point of it reaches half the critical value the statistic is that grid's (a lower
    bound) and tau 0, else the maximum is refined between the grid's neighbours of its best point. With ``refine``
    False, where that point is inside the grid: the top of the parabola through it and its neighbours, the likelihood
    read there, and tau the top of the parabola through the best three of the four points (6 reads, not about 12;
    within 0.1 of the refined tau in ``tests/test_cell_interaction.py``), the statistic from the largest read."""
    critical = stats.chi2.ppf(1 - 2 * level, 1)
    pairs = count_pairs(k, n)

    def loglik(t):
        return marginal_loglik(theta, k, n, t, keep, pairs)
    grid = np.array([0.0, *COARSE_TAUS])
    values = np.array([loglik(t) for t in grid])
    best = int(values.argmax())
    lr = 2 * (values[best] - values[0])
    if lr < critical / 2:
        return 0.0, max(0.0, float(lr))
    if not refine and 0 < best < len(grid) - 1:  # one parabola step, read there, and one more through the best three
        x = _vertex(grid[best - 1:best + 2], values[best - 1:best + 2])
        xs, ys = np.r_[grid[best - 1:best + 2], x], np.r_[values[best - 1:best + 2], loglik(x)]
        order = np.argsort(xs, kind="stable")
        xs, ys = xs[order], ys[order]
        j = int(np.clip(ys.argmax(), 1, 2))
        tau, lr = _vertex(xs[j - 1:j + 2], ys[j - 1:j + 2]), 2 * (ys.max() - values[0])
        return (tau if lr > critical else 0.0), float(lr)
    lo, hi = grid[max(best - 1, 0)], (grid[best + 1] if best + 1 < len(grid) else MAX_TAU)
    res = optimize.minimize_scalar(lambda t: -loglik(t), bounds=(lo, hi), method="bounded", options={"xatol": 0.02})
    top = max(-float(res.fun), values[best])
    tau = float(res.x) if -float(res.fun) >= values[best] else float(grid[best])
    lr = 2 * (top - values[0])
    return (tau if lr > critical else 0.0), float(lr)


def _vertex(x: np.ndarray, y: np.ndarray) -> float:
    """The abscissa of the top of the parabola through three points (x increasing), within the outer two; where the
    middle y is not the largest, the best point's."""
    (x0, x1, x2), (y0, y1, y2) = x, y
    den = (x1 - x0) * (y1 - y2) - (x1 - x2) * (y1 - y0)
    if y1 < max(y0, y2) or den == 0:  # no top between them, or two points in one place: the best point
        return float(x[int(np.argmax(y))])
    top = x1 - 0.5 * ((x1 - x0) ** 2 * (y1 - y2) - (x1 - x2) ** 2 * (y1 - y0)) / den
    return float(np.clip(top, x0, x2))


def draw_cells(theta: np.ndarray, k: np.ndarray, n: np.ndarray, tau: float, nodes: np.ndarray,
               rng: np.random.Generator) -> np.ndarray:
    """Each cell's rate at its problem's drawn difficulty, with its interaction drawn from its posterior given that
    difficulty and its pass count: (D, P, S); ``theta`` (1 or D, 3S), ``nodes`` (D, P) indices into ``NODES``."""
    S = k.shape[1]
    z, kappa = NODES.astype(np.float32)[nodes][..., None], attenuation(tau)  # (D, P, 1); float32: a posterior's weights
    shift = (tau * E_NODES).astype(np.float32)
    out = np.empty(nodes.shape + (S,))
    for s in range(S):  # one strategy at a time: (D, P, G)
        a, b, c = (theta[:, j * S + s, None, None].astype(np.float32) for j in range(3))
        eta = kappa * (a - b * z) + shift
        ks, ns = k[:, s, None].astype(np.float32), n[:, s, None].astype(np.float32)
        if np.any(c > 0):  # a floor: the likelihood of R = c + (1 − c)·sigmoid(eta)
            log_post = _cell_loglik(c + (1 - c) * special.expit(eta), k[:, s], n[:, s])
        else:  # k·log sigmoid(eta) + (n − k)·log(1 − sigmoid(eta)) = k·eta − n·log(1 + e^eta)
            softplus = np.maximum(eta, 0) + np.log1p(np.exp(-np.abs(eta)))  # log(1 + e^eta), no overflow
            log_post = ks * eta - ns * softplus + LOG_EW.astype(np.float32)
        post = np.exp(log_post - log_post.max(axis=-1, keepdims=True))
        cdf = post.cumsum(axis=-1)
        g = np.minimum((cdf < rng.random(nodes.shape + (1,)) * cdf[..., -1:]).sum(axis=-1), len(E_NODES) - 1)
        chosen = np.take_along_axis(eta, g[..., None], axis=-1)[..., 0].astype(float)
        out[:, :, s] = (c + (1 - c) * special.expit(chosen[..., None]))[...,
                                                                        0] if np.any(c > 0) else special.expit(chosen)
    return out
