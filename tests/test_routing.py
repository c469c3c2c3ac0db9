"""The oracle-routing cost-accuracy frontier (issue 9, item 6): by hand, its dominance over single models,
and the optimizer's curse it corrects for."""

import numpy as np
import pytest

from helpers.analyze import routing

STARTS = np.array([0])


def one(values):
    return np.asarray(values, float)[None]  # one replicate


def test_envelope_and_budgets_by_hand():
    # p1: A (1 USD, R 0.5), B (3 USD, R 1); p2: A (1 USD, R 1), B (3 USD, R 1); expert 10 USD
    cost = one([[1.0, 3.0], [1.0, 3.0]])
    rate = one([[0.5, 1.0], [1.0, 1.0]])
    acc, usd = routing.envelope(cost, rate, np.ones((1, 2)), STARTS, np.array([10.0, 10.0]), np.array([0.01, 1.0]))
    # lambda 0.01: p1 takes B (0.97 > 0.9 expert > 0.49), p2 takes A; lambda 1: A on both
    assert acc[0, :, 0] == pytest.approx([1.0, 0.75]) and usd[0, :, 0] == pytest.approx([2.0, 1.0])
    at = routing.at_budgets(acc, usd, np.array([[0.5, 1.0, 1.5, 2.0, 5.0]]))
    assert at[0, 0, 0] != at[0, 0, 0]  # below the cheapest routing: NaN
    assert at[0, 1:, 0] == pytest.approx([0.75, 0.875, 1.0, 1.0])  # mixing between the two points


def test_envelope_dominates_every_strategy_alone():
    rng = np.random.default_rng(0)
    P, S = 40, 5
    cost = rng.lognormal(0, 1, (1, P, S))
    rate = rng.choice([0, 0.25, 0.5, 0.75, 1.0], (1, P, S))
    w = np.ones((1, P))
    acc, usd = routing.envelope(cost, rate, w, STARTS, np.full(P, 5.0))
    alone_acc, alone_usd = routing.model_points(cost, rate, w, STARTS)
    at = routing.at_budgets(acc, usd, alone_usd[0].T)  # each strategy's own mean cost as the budget
    assert (at[0, :, 0] >= alone_acc[0, 0] - 1e-9).all()
    order = np.argsort(usd[0, :, 0])
    assert (np.diff(np.maximum.accumulate(acc[0, order, 0])) >= 0).all()
    assert acc[0, 0, 0] == pytest.approx(1.0)  # the smallest lambda: every problem solved (the expert at worst)


def test_the_envelope_scores_as_many_lambdas_at_once_as_fit_and_chooses_the_same(monkeypatch):
    """``envelope`` scores λs in chunks of about ``CHUNK`` cells: one λ at a time or all at once, the same bits (ties
    and NaN options included), valued at the options' own or at other values (cross-fitting)."""
    rng = np.random.default_rng(3)
    X, P, S = 3, 30, 6
    cost = rng.choice([0.001, 0.01, 0.1], (X, P, S))  # ties between options on many problems
    rate = rng.choice([0, 0.5, 1.0, np.nan], (X, P, S))
    value = (rng.lognormal(-4, 1, (X, P, S)), rng.random((X, P, S)))
    args = (cost, rate, rng.random((X, P)), np.array([0, 11, 20]), np.full(P, 2.0))
    runs = []
    for chunk in (1, X * P * (S + 1) * 7, 1 << 30):  # one λ per chunk, 7 per chunk, every λ in one
        monkeypatch.setattr(routing, "CHUNK", chunk)
        runs.append([routing.envelope(*args), routing.envelope(*args, value=value)])
    for other in runs[1:]:
        for (a, u), (a0, u0) in zip(other, runs[0]):
            assert np.array_equal(a, a0, equal_nan=True) and np.array_equal(u, u0, equal_nan=True)


def test_routing_on_noisy_rates_overstates_what_is_reachable():
    # two identical strategies, true R = 0.5 on every problem: no oracle can beat 0.5 without the expert
    rng = np.random.default_rng(1)
    P, n = 2000, 4
    observed = rng.binomial(n, 0.5, (1, P, 2)) / n
    acc, _ = routing.envelope(np.ones((1, P, 2)), observed, np.ones((1, P)), STARTS, np.full(P, 1e9),
                              np.array([1e-6]))
    assert acc[0, 0, 0] > 0.6  # max of two noisy estimates: biased up (true value 0.5)
    truth, _ = routing.envelope(np.ones((1, P, 2)), np.full((1, P, 2), 0.5), np.ones((1, P)), STARTS,
                                np.full(P, 1e9), np.array([1e-6]))
    assert truth[0, 0, 0] == pytest.approx(0.5)


def test_the_cross_fitted_envelope_has_no_optimizers_curse():
    """Issue 35 item 3: five strategies that are equally good (true rate 0.5, same price) look unequal on 8 runs; the
    plug-in oracle picks each problem's luckiest and claims ~0.7, the cross-fitted one (chosen on half the runs,
    valued on the other) reads the truth, 0.5; and with no noise at all the two agree."""
    from helpers.analyze import routing

    rng = np.random.default_rng(0)
    P, S, n = 600, 5, 8
    correct = rng.uniform(size=(P, S, n)) < 0.5
    usd = np.full((P, S, n), 0.01)
    runs, starts, expert = np.full((P, S), n), np.array([0]), np.full(P, 1e6)
    plug, _ = routing.envelope(usd.mean(-1)[None], correct.mean(-1)[None], np.ones((1, P)), starts, expert)
    fitted = routing.crossfit_envelope(usd, correct, runs, starts, expert, seed=1)
    cross, cost = fitted.acc, fitted.usd
    i = int(np.searchsorted(routing.LAMBDAS, 1e-2))  # a price of accuracy at which the $1e6 expert is never chosen
    assert plug[0, i, 0] > 0.65 and abs(cross[0, i, 0] - 0.5) < 0.02 and np.allclose(cost[0, i, 0], 0.01)
    sure = np.broadcast_to(np.array([True, False, False, False, False])[None, :, None], (P, S, n))
    fitted = routing.crossfit_envelope(usd, sure, runs, starts, expert)
    cross, cost = fitted.acc, fitted.usd
    plug, _ = routing.envelope(usd.mean(-1)[None], sure.mean(-1)[None], np.ones((1, P)), starts, expert)
    assert np.allclose(cross[:, :-1], plug)
    assert cross[0, -1, 0] == 1.0 and cost[0, -1, 0] == 1e6  # and the router that sends everything to the expert


def test_half_means_skip_the_slots_a_cell_does_not_have():
    from helpers.analyze.routing import half_means

    usd = np.array([[[1.0, 3.0, np.nan, np.nan]]])
    correct = np.array([[[True, False, False, False]]])
    cost, rate = half_means(usd, correct, np.array([[2]]), np.array([True, True, True, False]))
    assert cost[0, 0] == 2.0 and rate[0, 0] == 0.5
    cost, rate = half_means(usd, correct, np.array([[2]]), np.array([False, False, True, True]))
    assert np.isnan(cost[0, 0]) and np.isnan(rate[0, 0])


def test_the_envelope_reaches_the_expert_however_good_the_models():
    """SWE-bench's oracle curves stopped at ~96% short of the expert's star ($39 per instance): the price grid now
    runs low enough that paying the expert beats a strategy at 99.9% on every problem."""
    from helpers.analyze import routing

    P = 50
    rate, cost = np.full((1, P, 2), 0.999), np.full((1, P, 2), 0.05)
    acc, usd = routing.envelope(cost, rate, np.ones((1, P)), np.array([0]), np.full(P, 40.0))
    assert acc[0, :, 0].max() == 1.0 and usd[0, acc[0, :, 0].argmax(), 0] == pytest.approx(40.0)


def test_the_cross_fitted_envelope_has_an_interval_from_problem_draws():
    """Issue 35 item 3: the cross-fitted router's interval comes from problem draws (its choices are per problem, so
    only the average moves); row 0 is the estimate itself; valued at the truth, the same choices give its truth (the
    validity study's check: ``test_validity``)."""
    from helpers.analyze import routing

    rng = np.random.default_rng(3)
    P, S, n = 50, 3, 6
    rate = rng.uniform(0.1, 0.9, size=(P, S))
    correct, usd = rng.uniform(size=(P, S, n)) < rate[..., None], np.full((P, S, n), 0.01)
    runs, starts, expert = np.full((P, S), n), np.array([0, 20]), np.full(P, 5.0)
    draws = rng.multinomial(P, np.full(P, 1 / P), size=30).astype(float)
    fitted = routing.crossfit_envelope(usd, correct, runs, starts, expert, seed=2, weights=draws)
    alone = routing.crossfit_envelope(usd, correct, runs, starts, expert, seed=2)
    acc, cost = fitted.acc, fitted.usd
    assert acc.shape == (31, len(routing.LAMBDAS) + 1, 2) and np.allclose(acc[:1], alone.acc)
    assert np.allclose(cost[:1], alone.usd) and np.ptp(acc[1:, 40], axis=0).min() > 0  # the draws move it
    sure = routing.crossfit_problems(usd, correct, runs, expert, seed=2, truth=(usd.mean(-1), correct.mean(-1)))
    same = routing.crossfit_problems(usd, correct, runs, expert, seed=2)
    assert sure[0].shape == (len(routing.LAMBDAS) + 1, P) and not np.allclose(sure[0], same[0])  # all runs, not a half


def test_the_cross_fitted_interval_does_not_collapse_where_every_held_out_run_passed():
    """The validity study found the problem draws' interval collapsing to [1, 1] on a dataset every model nearly always
    passes (true accuracy 99.9%): every draw of problems gives 1. The count bound (Clopper–Pearson on the held-out runs,
    here 192 passes of 64 problems × 3 held-out runs) keeps the low end where the truth can be."""
    from helpers.analyze import routing

    P, S, n = 64, 2, 6
    correct, usd = np.ones((P, S, n), bool), np.full((P, S, n), 0.01)
    runs, starts, expert = np.full((P, S), n), np.array([0]), np.full(P, 5.0)
    draws = np.random.default_rng(0).multinomial(P, np.full(P, 1 / P), size=40).astype(float)
    fitted = routing.crossfit_envelope(usd, correct, runs, starts, expert, weights=draws)
    value, low, high = fitted.at(np.array([[0.01, 0.02]]), 0.95)
    assert np.allclose(value, 1) and np.allclose(high, 1)
    assert np.allclose(low, 0.025 ** (1 / (P * 3)))  # Clopper–Pearson: 192 passes of 192 held-out runs
    low_c, high_c = routing.count_bounds(np.array([0.5]), np.array([100]), 3, 0.95)
    assert np.allclose([low_c[0], high_c[0]], [0.442, 0.558], atol=2e-3)  # 150 of 300: ±1.96·sqrt(.25/300)
