"""The problem × strategy interaction of the item-response model: its likelihood, its test and its cell draws."""

import numpy as np
import pytest
from scipy import special

from helpers.analyze import cell_interaction as ci
from helpers.analyze import frontier_model as fm


def counts(sd: float, seed: int, P: int = 128, S: int = 10, n: int = 8):
    """Pass counts (P, S) of n runs from logits a_s − 1.5·z_p + e_ps, e ~ N(0, sd²)."""
    rng = np.random.default_rng(seed)
    a = np.linspace(-2.5, 3.0, S)
    eta = a - 1.5 * rng.standard_normal(P)[:, None] + sd * rng.standard_normal((P, S))
    k = rng.binomial(n, special.expit(eta)).astype(float)
    return k, np.full(k.shape, float(n))


def fitted(k, n):
    fit = fm.fit_tested(k, n, np.array(["vanilla"] * k.shape[1]))
    return np.r_[fit.a, fit.b, fit.c]


def test_without_an_interaction_the_likelihood_is_the_fits():
    k, n = counts(0.0, 0)
    theta = fitted(k, n)
    keep = np.arange(len(fm.NODES))
    assert ci.attenuation(0.0) == 1.0
    assert ci.marginal_loglik(theta, k, n, 0.0, keep) == pytest.approx(float(fm._loglik_terms(theta[None], k, n)[2][0]))


def test_the_likelihood_by_distinct_counts_is_the_likelihood_by_cells():
    k, n = counts(0.7, 1)
    theta, keep = fitted(k, n), np.arange(10, 54)
    r = ci.conditional_rates(theta[None], k.shape[1], fm.NODES[keep], 0.7)[0]  # (S, Q', G)
    cell = ci._cell_loglik(r[None], k[:, :, None], n[:, :, None])  # (P, S, Q', G)
    direct = special.logsumexp(special.logsumexp(cell, axis=-1).sum(1) + fm.LOG_W[keep], axis=-1).sum()
    assert ci.marginal_loglik(theta, k, n, 0.7, keep) == pytest.approx(direct, rel=1e-12)


def test_the_test_finds_no_interaction_where_there_is_none_and_one_where_there_is():
    keep = np.arange(len(fm.NODES))
    none = [ci.fit_tau(fitted(*counts(0.0, s)), *counts(0.0, s), keep)[0] for s in range(4)]
    some = [ci.fit_tau(fitted(*counts(1.0, s)), *counts(1.0, s), keep)[0] for s in range(4)]
    assert sum(t > 0 for t in none) <= 1
    assert all(t > 0.4 for t in some) and np.mean(some) == pytest.approx(1.0, abs=0.35)


def test_the_coarse_grids_parabola_finds_about_the_refined_tau():
    """``refine=False`` (the routing's): tau from the parabola through the coarse grid's best point and its neighbours,
    within 0.1 of the refined maximiser, and the same test decision; the hand log-sum-exp is scipy's."""
    keep = np.arange(len(fm.NODES))
    for sd, seed in ((0.6, 5), (1.0, 6), (1.5, 7), (0.0, 8)):
        k, n = counts(sd, seed)
        theta = fitted(k, n)
        fine, coarse = ci.fit_tau(theta, k, n, keep), ci.fit_tau(theta, k, n, keep, refine=False)
        assert abs(fine[0] - coarse[0]) < 0.1 and (fine[0] > 0) == (coarse[0] > 0)
    x = np.random.default_rng(0).normal(size=(4, 9)) * 30
    x[0] = -np.inf
    np.testing.assert_allclose(ci._logsumexp(x), special.logsumexp(x, axis=-1), rtol=1e-14)


def test_a_cell_keeps_its_own_rate():
    """A cell that passed every run draws rates above its curve's; one that never passed, small positive ones."""
    theta = np.array([[0.0, 1.0, 0.0]])  # one strategy: a = 0, b = 1, no floor
    nodes = np.full((4000, 2), np.argmin(np.abs(fm.NODES)))  # difficulty near 0: the curve's rate near 1/2
    k, n = np.array([[8.0], [0.0]]), np.array([[8.0], [8.0]])
    r = ci.draw_cells(theta, k, n, 1.0, nodes, np.random.default_rng(0))[:, :, 0]
    assert r[:, 0].mean() > 0.7 and 0 < r[:, 1].min() and r[:, 1].mean() < 0.3
    flat = ci.draw_cells(theta, k, n, 0.0, nodes, np.random.default_rng(0))[:, :, 0]
    assert np.allclose(flat, special.expit(-fm.NODES[nodes]))  # without an interaction every cell is its curve


def test_a_floor_keeps_every_drawn_rate_above_it():
    theta = np.array([[-1.0, 1.0, 0.25]])  # a floor of 0.25: a guess among four letters
    nodes = np.random.default_rng(0).integers(20, 44, (50, 3))
    k, n = np.array([[0.0], [4.0], [8.0]]), np.full((3, 1), 8.0)
    r = ci.draw_cells(theta, k, n, 0.8, nodes, np.random.default_rng(1))
    assert r.shape == (50, 3, 1) and r.min() >= 0.25 and r[:, 0].mean() < r[:, 1].mean() < r[:, 2].mean()
