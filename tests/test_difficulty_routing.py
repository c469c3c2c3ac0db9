"""Routing each problem by a shared difficulty (``analyze.difficulty_routing``, ``policy.crossfit_halves``'
``difficulty_folds``)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scipy import special

from helpers.analyze import difficulty_routing, policy, split_variance


def _shared_difficulty(P: int = 80, r: int = 8, seed: int = 5):
    """A cheap option that passes the easy problems and a dear one that passes nearly all, one difficulty z per
    problem driving both: (usd, correct, runs, fee, true rate (P, 2), cost per run (P, 2))."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=P)
    rate = np.stack([special.expit(1.5 - 2.5 * z), special.expit(4.0 - 1.5 * z)], axis=1)
    per_run = np.tile([0.001, 0.05], (P, 1))
    correct = rng.random((P, 2, r)) < rate[..., None]
    usd = np.broadcast_to(per_run[..., None], (P, 2, r)).copy()
    return usd, correct, np.full((P, 2), r), np.full(P, 0.3), rate, per_run


def test_a_problems_curves_are_fitted_without_its_fold():
    """``fold_curves``: the curves that route a problem never saw its runs (nor its fold's): changing every run of
    problem 0 leaves its curves and its cost per run as they were, and moves those of another fold's problems."""
    usd, correct, runs, _, _, _ = _shared_difficulty()
    passes, spent = correct.sum(axis=2).astype(float), usd.sum(axis=2)
    curves = difficulty_routing.fold_curves(passes, runs, spent, folds=5)
    assert curves.rates.shape == (5, 2, 64, 9) and np.isfinite(curves.rates).all() and (curves.cost > 0).all()
    assert (curves.fold == np.arange(80) % 5).all() and (curves.tau == 0).all()  # one difficulty drives both
    flipped = passes.copy()
    flipped[0] = runs[0] - passes[0]
    again = difficulty_routing.fold_curves(flipped, runs, spent * np.r_[3.0, np.ones(79)][:, None], 5)
    assert np.array_equal(again.rates[0], curves.rates[0]) and np.array_equal(again.cost[0], curves.cost[0])
    assert not np.allclose(again.rates[1:], curves.rates[1:]) and not np.allclose(again.cost[1:], curves.cost[1:])


def test_routing_by_shared_difficulty_beats_the_best_single_option():
    """Where one difficulty drives both options, a problem's choosing half (both options' passes) places it on the
    curves: each problem goes to the cheap option where it is
    easy and to the dear one where it is hard, and the truth falls below the best single option's (and below the
    choice without it), while each option's choice is still valued on the other half of the problem's runs; in the
    held-out contest with weight 1 the routing is kept."""
    usd, correct, runs, fee, rate, per_run = _shared_difficulty()
    k = 2
    true = policy.true_policy(per_run, rate, fee, k)
    plain = policy.crossfit_halves(usd, correct, runs, fee, [[0, 1]], k=k)[0]
    routed = policy.crossfit_halves(usd, correct, runs, fee, [[0, 1]], k=k, own_weights=(), difficulty_folds=5)[0]
    best = true.total.mean(axis=0).min()
    got, before = routed.truth(true, fee).total.mean(), plain.truth(true, fee).total.mean()
    assert got < 0.7 * best and got < 0.7 * before
    hard = rate[:, 0] < 0.2
    assert (routed.modal[hard] == 1).mean() > 0.8 and (routed.modal[rate[:, 0] > 0.9] == 0).mean() > 0.8
    assert routed.halved and routed.chosen.shape == (70, 80)
    contest = policy.crossfit_halves(usd, correct, runs, fee, [[0, 1]], k=k, difficulty_folds=5)[0]
    assert contest.truth(true, fee).total.mean() < 0.7 * best  # weight 1 against the routing: the routing kept
    for weights, folds in (((), 0), ((1.0, -1.0), 5)):
        with pytest.raises(ValueError, match="own_weights must hold positive weights"):
            policy.crossfit_halves(usd, correct, runs, fee, [[0, 1]], k=k, own_weights=weights,
                                   difficulty_folds=folds)


def test_an_interaction_found_lets_a_cells_own_passes_count():
    """Where each cell's logit departs from its curve (e ~ N(0, 2²)), the curves' fits find the interaction
    (tau > 0 in every fold), and the routing reads a cell's own passes: on a problem both options pass alike by
    their curves, the one whose choosing half passed every run is expected to cost less than the one that passed
    none; without the interaction (tau 0 in the same curves) the two would differ only by their curves."""
    rng = np.random.default_rng(11)
    P, r = 200, 8
    z, e = rng.normal(size=P), rng.normal(scale=2.0, size=(P, 2))
    rate = special.expit(np.stack([1.0 - 1.5 * z, 1.0 - 1.5 * z], axis=1) + e)
    correct = rng.random((P, 2, r)) < rate[..., None]
    runs = np.full((P, 2), r)
    curves = difficulty_routing.fold_curves(correct.sum(axis=2), runs, np.full((P, 2), 0.01 * r), folds=5)
    assert (curves.tau > 0.5).all()
    choosing = np.array([[[4.0, 0.0], [0.0, 4.0]]])  # one problem, two ways: A passed its half, or B did
    got = difficulty_routing.expected_costs(curves, np.array([0]), choosing, 4, np.ones((1, 2), bool),
                                            np.array([1.0]), 2)[0]
    assert got[0, 0] < got[0, 1] / 3 and got[1, 1] < got[1, 0] / 3
    flat = difficulty_routing.FoldCurves(curves.fold, curves.rates[..., 4:5].repeat(9, axis=-1), curves.cost,
                                         np.zeros(5))  # every interaction node at e = 0: no interaction
    same = difficulty_routing.expected_costs(flat, np.array([0]), choosing, 4, np.ones((1, 2), bool),
                                             np.array([1.0]), 2)[0]
    assert abs(np.log(same[0, 0] / same[0, 1])) < abs(np.log(got[0, 0] / got[0, 1]))


def test_a_strategy_with_runs_in_one_fold_has_curves_in_every_other_fold():
    """A strategy run on problem 0 alone has no curve in problem 0's fold (nothing outside it), and one in every other
    fold (the fits start from the fold before only where it knew every strategy with runs), with its cost per run;
    a problem is never routed to a strategy without a curve (NaN)."""
    rng = np.random.default_rng(0)
    passes, runs = rng.integers(0, 9, (40, 3)).astype(float), np.full((40, 3), 8)
    passes[1:, 2], runs[1:, 2] = 0, 0
    curves = difficulty_routing.fold_curves(passes, runs, runs * 0.01, 5)
    known = np.isfinite(curves.rates[:, :, 0, 0])
    assert known[:, :2].all() and not known[0, 2] and known[1:, 2].all()
    assert np.isnan(curves.cost[0, 2]) and np.allclose(curves.cost[1:, 2], 0.01)
    got = difficulty_routing.expected_costs(curves, np.array([0, 1]), np.full((2, 1, 3), 2.0), 4,
                                            np.ones((2, 3), bool), np.ones(2), 2)
    assert np.isnan(got[0, 0, 2]) and np.isfinite(got[0, 0, :2]).all() and np.isfinite(got[1]).all()


def test_a_routed_choice_takes_the_per_problem_interval_with_its_top_read_below_one():
    """``chosen_interval`` of a choice routed by the shared difficulty alone (``CrossFitted.routed``): the per-problem
    interval, the fee part's mass at "every run fails" read at the pooled runs' rate (``fee_prior.top_moments``), not
    the union with every chosen option's interval; the contest with weight 1 is not routed and keeps the union. Here
    a tenth of the problems fail every run of both options, so the two readings differ."""
    usd, correct, runs, fee, _, _ = _shared_difficulty()
    correct[::10] = False
    k = 2
    routed = policy.crossfit_halves(usd, correct, runs, fee, [[0, 1]], k=k, own_weights=(), difficulty_folds=5)[0]
    contest = policy.crossfit_halves(usd, correct, runs, fee, [[0, 1]], k=k, difficulty_folds=5)[0]
    assert routed.routed and not contest.routed
    single = policy.policy_cost(usd, correct, runs, fee, k)
    G = np.ones((1, 80))
    got = policy.chosen_interval(routed, single, fee, G)
    alone = policy.policy_interval(routed.records, routed.fail_all, fee, 0.95, routed.fail_runs, k, G, routed.runs,
                                   top="jeffreys")
    at_one = policy.policy_interval(routed.records, routed.fail_all, fee, 0.95, routed.fail_runs, k, G, routed.runs)
    np.testing.assert_array_equal(np.array(got), np.array(alone))
    assert alone[1][0] < at_one[1][0] and alone[2][0] > at_one[2][0]
    union = policy.chosen_interval(contest, single, fee, G)
    mine = policy.policy_interval(contest.records, contest.fail_all, fee, 0.95, contest.fail_runs, k, G, contest.runs)
    assert union[1][0] <= mine[1][0] and union[2][0] >= mine[2][0]


def test_the_headlines_ways_route_nothing_where_one_run_per_cell_splits_no_problem():
    """``set_policy``'s ways of choosing (``HEADLINE_WEIGHTS``, ``HEADLINE_FOLDS``) on one run per cell (SWE-bench
    bash-only): no problem's runs can be split, so none is routed, the choice is the other problems' (leave-one-out)
    and its interval the union with the chosen options' (``chosen_interval``), not the routed one's; at 8 runs every
    problem is routed."""
    usd, correct, runs, fee, _, _ = _shared_difficulty(r=1)
    ways = {"own_weights": policy.HEADLINE_WEIGHTS, "difficulty_folds": policy.HEADLINE_FOLDS}
    one = policy.crossfit_halves(usd, correct, runs, fee, [[0, 1]], k=1, **ways)[0]
    loo = policy.crossfit_many(usd, correct, runs, fee, [[0, 1]], k=1)[0]
    assert not one.routed and not one.halved
    np.testing.assert_array_equal(one.total, loo.total)
    G, single = np.ones((1, 80)), policy.policy_cost(usd, correct, runs, fee, 1)
    np.testing.assert_array_equal(np.array(policy.chosen_interval(one, single, fee, G)),
                                  np.array(policy.chosen_interval(loo, single, fee, G)))
    usd, correct, runs, fee, _, _ = _shared_difficulty()
    assert policy.crossfit_halves(usd, correct, runs, fee, [[0, 1]], k=4, **ways)[0].routed


def test_a_gain_between_routed_choices_takes_the_delta_methods_interval_from_the_runs():
    """``gain_interval`` of two routed choices (the cheap option alone, then both): the delta method's interval from
    each problem's run-level variance (``policy.routed_gain_interval``), around the same estimate as the paired interval
    over the problems, and narrower than it: the problems the dear option takes differ from the others by far more
    than their runs' noise. The split parts a routed choice keeps are what its value averages."""
    usd, correct, runs, fee, rate, per_run = _shared_difficulty()
    k = 2
    before, after = policy.crossfit_halves(usd, correct, runs, fee, [[0], [0, 1]], k=k, own_weights=(),
                                           difficulty_folds=5)
    assert before.split is not None and after.split is not None
    assert (before.split.runs == 8).all() and before.split.powers.shape == (80, 1, k + 1)
    np.testing.assert_allclose(after.split.records.mean(axis=0) + after.split.fees.mean(axis=0), after.total)
    G = np.ones((1, 80), bool)
    got = policy.gain_interval(before, after, G, fee)
    np.testing.assert_array_equal(np.array(got), np.array(policy.routed_gain_interval(before, after, G, fee)))
    V = policy.run_variances([((1.0, before), (-1.0, after)), ((1.0, before),)], [(0, 0), (0, 1), (1, 1)], G, fee)
    d, b = (before.total - after.total).mean(), before.total.mean()
    each = [split_variance.delta_ratio(np.array([d]), np.array([b]), tuple(v), 1.959964) for v in V]  # the two readings
    assert got[1][0] == pytest.approx(min(lo[0] for lo, _ in each)) and got[2][0] == pytest.approx(
        min(1.0, max(hi[0] for _, hi in each)))  # the union: the larger reading
    plain = policy.gain_interval(dataclasses.replace(before, split=None),
                                 dataclasses.replace(after, split=None),
                                 G, fee)
    assert got[0][0] == pytest.approx(plain[0][0]) and got[1][0] < got[0][0] < got[2][0] <= 1
    assert got[2][0] - got[1][0] < 0.5 * (plain[2][0] - plain[1][0])
    true = policy.true_policy(per_run, rate, fee, k)
    tb, ta = before.truth(true, fee).total.mean(), after.truth(true, fee).total.mean()
    assert got[1][0] < (tb - ta) / tb < got[2][0]


def test_an_odd_number_of_runs_is_not_read_by_complementary_splits():
    """With 7 runs a split chooses on 3 and values 4: no split values its complement's choosing half, so the split
    pairs (``split_variance.pair_products``) would read splits that share runs. Such a problem is marked not split
    (``SplitParts.runs`` 0), and a gain between routed choices takes the paired interval over the problems."""
    usd, correct, runs, fee, _, _ = _shared_difficulty(r=7)
    before, after = policy.crossfit_halves(usd, correct, runs, fee, [[0], [0, 1]], k=2, own_weights=(),
                                           difficulty_folds=5)
    assert before.routed and before.halved and (before.split.runs == 0).all()
    G = np.ones((1, 80), bool)
    plain = policy.gain_interval(dataclasses.replace(before, split=None), dataclasses.replace(after, split=None), G,
                                 fee)
    np.testing.assert_array_equal(np.array(policy.gain_interval(before, after, G, fee)), np.array(plain))
