"""A routed choice's run-level variance (analyze.split_variance): exact where it claims to be, close where choices
move with the runs, and the delta method's interval of a ratio (``delta_ratio``)."""

from math import comb

import numpy as np
import pytest
from scipy.stats import binom

from helpers.analyze import policy
from helpers.analyze import split_variance as sv

R, K = 8, 4  # runs per problem, and tries: the valuing half's size
HALVES = policy._halves(R)
J = sv.overlaps(R, HALVES.tobytes())


def powers_at(*qs: float) -> np.ndarray:
    """(1, len(qs), K + 1): E[q^(K + e)] of a posterior that is a point mass at each q."""
    return np.array([[[q ** (K + e) for e in range(K + 1)] for q in qs]])


def test_overlaps_count_shared_valuing_runs():
    assert J.shape == (70, 70) and (np.diag(J) == K).all()
    assert (J[np.arange(70), 69 - np.arange(70)] == 0).all()  # a split's complement values the other half
    assert set(np.unique(J)) == {0, 1, 2, 3, 4}


@pytest.mark.parametrize("q", [0.3, 0.5, 0.9, 0.99])
def test_one_option_in_every_split_is_the_full_u_statistic(q):
    """Chosen in every split, the mean of the halves' all-fail indicators is C(F, k) / C(r, k) of all r runs: the
    covariance sum must give that estimate's variance exactly."""
    F = np.arange(R + 1)
    p, u = binom.pmf(F, R, q), np.array([comb(int(f), K) / comb(R, K) for f in F])
    x = np.ones((1, 1, 70))
    exact = (p * u**2).sum() - (p * u).sum() ** 2
    assert sv.fee_products(x, x, powers_at(q), J, K)[0] == pytest.approx(exact, rel=1e-9)


@pytest.mark.parametrize("q", [0.4, 0.9])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_fewer_tries_than_the_valuing_half(q, k):
    """k < the valuing half's m runs: each half's estimate is the mean over its k-subsets; chosen in every split, the
    mean over splits is C(F, k) / C(r, k) of all r runs again, whose variance the covariance sum must give."""
    F = np.arange(R + 1)
    p, u = binom.pmf(F, R, q), np.array([comb(int(f), k) / comb(R, k) for f in F])
    powers = np.array([[[q ** (k + e) for e in range(k + 1)]]])
    got = sv.fee_products(np.ones((1, 1, 70)), np.ones((1, 1, 70)), powers, J, K)[0]
    assert got == pytest.approx((p * u**2).sum() - (p * u).sum() ** 2, rel=1e-9)


@pytest.mark.parametrize("qa,qb,threshold", [(0.9, 0.8, 2), (0.5, 0.6, 3), (0.95, 0.7, 1)])
def test_choices_read_on_the_choosing_half(qa, qb, threshold):
    """Each split chooses A where A's choosing half passed at least ``threshold`` times, else B; the error of the
    split mean against what the choices truly cost varies as the covariance sum (conditional on the choices) says,
    within 15% over 4000 draws."""
    rng = np.random.default_rng(3)
    valuing = 1 - HALVES
    errors, predicted = [], []
    for _ in range(4000):
        fa, fb = rng.random(R) < qa, rng.random(R) < qb  # failed runs
        pick_a = HALVES @ ~fa >= threshold
        xa, xb = valuing @ fa == K, valuing @ fb == K
        errors.append(np.where(pick_a, xa, xb).mean() - np.where(pick_a, qa**K, qb**K).mean())
        x = np.stack([pick_a, ~pick_a]).astype(float)[None]
        predicted.append(sv.fee_products(x, x, powers_at(qa, qb), J, K)[0])
    assert abs(np.mean(errors)) < 3 * np.std(errors) / np.sqrt(len(errors))  # unbiased
    assert np.mean(predicted) == pytest.approx(np.var(errors), rel=0.15)


def test_pair_products_of_a_linear_part():
    """A part linear in the runs (each split: the mean of its valuing half): LINEAR × half the complement pairs'
    squared gaps estimates the variance of the mean over all splits (the mean of all runs), on average."""
    rng = np.random.default_rng(5)
    valuing = (1 - HALVES) / K
    est = [sv.pair_products(*(2 * [(valuing @ rng.normal(0, 2, R))[:, None]]))[0] for _ in range(4000)]
    assert np.mean(est) == pytest.approx(4 / R, rel=0.05)


def test_delta_ratio():
    d, b = np.array([0.3, 0.3, 0.03, 0.9]), np.array([1.0, 1.0, 0.05, 1.0])
    V = (np.array([0.0, 1e-4, 1e-4, 0.04]), np.zeros(4), np.array([0.0, 1e-4, 1e-2, 0.0]))
    low, high = sv.delta_ratio(d, b, V, 1.96)
    assert low[0] == pytest.approx(0.3) and high[0] == pytest.approx(0.3)  # no variance: the point
    # the delta method's interval at the estimate, 0.3 ± 1.96 · sqrt(Var d + 0.09 Var b) / b
    half = 1.96 * np.sqrt(1e-4 + 0.09 * 1e-4)
    assert low[1] == pytest.approx(0.3 - half) and high[1] == pytest.approx(0.3 + half)
    # b's own normal interval reaches 0 (Fieller's would be unbounded): bounded; a gain over B at most 1
    assert np.isfinite(low[2]) and low[2] < 0.6 < high[2] and high[3] == 1.0 and low[3] == pytest.approx(0.9 - 0.392)
    lo_a, hi_a = sv.delta_ratio(np.array([-0.9]), np.array([1.0]), (np.array([1.0]), np.zeros(1), np.zeros(1)), 1.96,
                                over_after=True)
    assert lo_a[0] == -1.0 and hi_a[0] == pytest.approx(1.06)  # over A: B / A − 1, at least −1
    unit = (np.ones(1), np.zeros(1), np.ones(1))
    assert sv.delta_ratio(np.array([1.0]), np.array([0.0]), unit, 1.96)[0][0] == -np.inf  # no cost to divide by


@pytest.mark.parametrize("n, p", [(100, 0.03), (128, 0.05), (128, 0.1)])
def test_delta_ratio_holds_a_skewed_denominators_ratio(n, p):
    """A frontier made mostly of a fee times rare failures: per problem B = fee × F + c, F ~ Bernoulli(p), and B − A =
    fee × F × M, M ~ Bernoulli(g) the failures the other option avoids. With the variances of the means known (reading
    them is ``run_variances``'s job), the interval holds the true gain in 93-99% of 4000 draws, bounded in every one
    where a failure was seen, where Fieller's interval (B's own normal interval reaching 0) is unbounded in up to 64%
    of them."""
    rng = np.random.default_rng(5)
    fee, c, g, draws = 10.0, 0.01, 0.5, 4000
    F = rng.binomial(1, p, (draws, n)).astype(float)
    d, b = (fee * F * (rng.random((draws, n)) < g)).mean(axis=1), (fee * F + c).mean(axis=1)
    V = tuple(np.full(draws, fee**2 * x / n) for x in (p * g * (1 - p * g), p * g * (1 - p), p * (1 - p)))
    low, high = sv.delta_ratio(d, b, V, 1.96)
    truth = g * fee * p / (fee * p + c)
    assert np.isfinite(low).all() and (high <= 1).all()
    assert 0.93 <= np.mean((low <= truth) & (truth <= high)) <= 0.99


@pytest.mark.parametrize("q", [0.3, 0.7, 0.95])
def test_held_scale_makes_the_split_pairs_read_the_fee_parts_own_variance(q):
    """One option chosen in every split: each split's fee part is "all k valuing runs failed", a U-statistic of degree
    k, not a linear part. The split pairs at ``LINEAR`` read it too wide (below q near 1); with the gaps scaled by
    ``held_scale`` they read the variance of the mean over splits, C(F, k) / C(r, k), on average (4000 draws)."""
    F = np.arange(R + 1)
    p, u = binom.pmf(F, R, q), np.array([comb(int(f), K) / comb(R, K) for f in F])
    exact = (p * u**2).sum() - (p * u).sum() ** 2
    scale = sv.held_scale(np.ones((1, 1, 70)), powers_at(q), J, K)[0]
    assert 0 < scale <= 1
    rng = np.random.default_rng(11)
    valuing = 1 - HALVES
    plain = [sv.pair_products(*2 * [(valuing @ (rng.random(R) < q) == K).astype(float)[:, None]])[0]
             for _ in range(4000)]  # each split's all-fail indicator, (70, 1) per draw
    assert scale**2 * np.mean(plain) == pytest.approx(exact, rel=0.1)  # the gaps scaled: their products by scale²
    if q < 0.9:
        assert np.mean(plain) > 1.3 * exact
