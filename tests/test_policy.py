"""The policy cost ("up to k tries, then the expert", issue 35): unbiased against exact enumeration."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from helpers.analyze.policy import attempt_weights, largest_k, policy_cost, policy_table


def truth(p: float, cost_pass: float, cost_fail: float, expert: float, k: int) -> float:
    """E[X] · Σ_{j<k} (1 − p)^j + e (1 − p)^k: attempt j is made when the j − 1 before it failed."""
    mean = p * cost_pass + (1 - p) * cost_fail
    return mean * sum((1 - p) ** j for j in range(k)) + expert * (1 - p) ** k


@pytest.mark.parametrize("r,k", [(1, 1), (3, 1), (3, 2), (4, 3), (5, 5), (6, 4)])
@pytest.mark.parametrize("p", [0.0, 0.07, 0.5, 0.93])
def test_the_estimator_is_unbiased_by_exact_enumeration(r, k, p):
    """Every pattern of r runs' passes, weighted by its chance: the estimator's mean is the policy's cost, also when a
    pass costs more than a fail (cost and outcome dependent)."""
    cost_pass, cost_fail, expert = 0.3, 0.1, 7.0
    patterns = np.array(list(itertools.product([False, True], repeat=r)))  # (2^r, r)
    chance = np.prod(np.where(patterns, p, 1 - p), axis=1)
    correct = patterns[:, None, :]  # each pattern a problem of one strategy
    usd = np.where(correct, cost_pass, cost_fail)
    est = policy_cost(usd, correct, np.full((len(patterns), 1), r), np.full(len(patterns), expert), k)
    mean = float(np.sum(chance * est.total[:, 0]))
    assert mean == pytest.approx(truth(p, cost_pass, cost_fail, expert, k), rel=1e-12, abs=1e-12)


def test_what_the_records_decide_and_what_the_fee_does():
    # one problem, 4 runs: fail, pass, fail, fail; k = 2
    correct = np.array([[[False, True, False, False]]])
    usd = np.array([[[1.0, 2.0, 1.0, 1.0]]])
    est = policy_cost(usd, correct, np.array([[4]]), np.array([10.0]), k=2)
    # all 12 ordered pairs of distinct runs: the policy's cost on each, averaged
    runs = list(range(4))
    costs = []
    for a, b in itertools.permutations(runs, 2):
        if correct[0, 0, a]:
            costs.append(usd[0, 0, a])
        elif correct[0, 0, b]:
            costs.append(usd[0, 0, a] + usd[0, 0, b])
        else:
            costs.append(usd[0, 0, a] + usd[0, 0, b] + 10.0)
    assert est.total[0, 0] == pytest.approx(np.mean(costs))
    assert est.fail_all[0, 0] == pytest.approx(6 / 12) and est.expert[0, 0] == pytest.approx(5.0)


def test_a_model_that_never_passed_pays_k_attempts_then_the_expert():
    correct = np.zeros((1, 1, 5), dtype=bool)
    est = policy_cost(np.full((1, 1, 5), 0.01), correct, np.array([[5]]), np.array([16.67]), k=5)
    assert est.records[0, 0] == pytest.approx(0.05) and est.expert[0, 0] == pytest.approx(16.67)


def test_fewer_runs_than_tries_leave_the_cell_unidentified():
    correct = np.array([[[True, False, False], [True, True, False]]])  # 2 strategies; the first has 2 runs
    usd = np.array([[[1.0, 1.0, np.nan], [1.0, 1.0, 1.0]]])
    runs = np.array([[2, 3]])
    w = attempt_weights(correct, runs, 3)
    assert np.isnan(w[0, 0]).all() and np.isfinite(w[0, 1]).all()
    est = policy_cost(usd, correct, runs, np.array([5.0]), k=3)
    assert np.isnan(est.total[0, 0]) and np.isfinite(est.total[0, 1])
    assert largest_k(runs) == 2 and largest_k(np.array([[0, 4]])) == 4
    table = policy_table(est, np.array([0]), ["t"], ["a", "b"])
    assert table.loc[0, "unidentified"] == 1 and np.isnan(table.loc[0, "policy_usd"])
    assert table.loc[1, "policy_usd"] == pytest.approx(table.loc[1, "records_usd"] + table.loc[1, "expert_usd"])


def test_weights_count_each_runs_expected_uses():
    """Σ_i w_i is the expected number of attempts, Σ_{j<k} C(f, j)/C(r, j)."""
    rng = np.random.default_rng(0)
    correct = rng.random((50, 3, 6)) < 0.4
    runs = np.full((50, 3), 6)
    for k in (1, 3, 6):
        w = attempt_weights(correct, runs, k)
        f = (~correct).sum(-1)
        expected = sum(np.prod([(f - t) / (6 - t) for t in range(j)], axis=0) if j else 1.0 for j in range(k))
        assert np.allclose(w.sum(-1), np.clip(expected, 0, None))


# ---- the cross-fitted frontier, the truth, the intervals --------------------------------------------------------
from helpers.analyze import means, policy  # noqa: E402
from helpers.analyze import statistic as st  # noqa: E402


def patterns_of(rates: list[float], r: int) -> tuple[np.ndarray, np.ndarray]:
    """Every pass pattern of r runs of each option on one problem (one problem a pattern) and its chance."""
    S = len(rates)
    pats = np.array(list(itertools.product([False, True], repeat=S * r))).reshape(-1, S, r)
    p = np.array(rates)[None, :, None]
    return pats, np.prod(np.where(pats, p, 1 - p), axis=(1, 2))


@pytest.mark.parametrize("rates,costs", [([[0.3, 0.8], [0.6, 0.2]], [0.1, 1.0]),
                                         ([[0.05, 0.9], [0.5, 0.5]], [0.01, 0.2]),
                                         ([[0.0, 1.0], [1.0, 0.0]], [0.5, 0.5])])
def test_the_crossfitted_frontier_is_unbiased_for_what_its_choices_truly_cost(rates, costs):
    """Exact enumeration over every joint pass pattern of two problems (each pair a group): the chosen policy's value
    has the mean true cost of the options it chose (each problem's choice made on the other problem, its value read on
    its own runs), while choosing and valuing on the same runs is flattered by their luck."""
    r, k, e = 2, 2, 20.0
    rates = np.array(rates)  # (problems, options): the options differ in which problem they are good at
    one = np.array(list(itertools.product([False, True], repeat=2 * r))).reshape(-1, 2, r)  # one problem's patterns
    n1 = len(one)
    pairs = np.array([(i, j) for i in range(n1) for j in range(n1)])
    # (2N, S, r)
    pats = np.concatenate([one[pairs[:, 0]][:, None], one[pairs[:, 1]][:, None]], axis=1).reshape(-1, 2, r)
    p = np.where(pats, np.repeat(np.tile(rates, (len(pairs), 1))[:, :, None], r, axis=2),
                 1 - np.repeat(np.tile(rates, (len(pairs), 1))[:, :, None], r, axis=2))
    chance = np.prod(p.reshape(len(pairs), -1), axis=1)  # each joint pattern's chance
    usd = np.broadcast_to(np.array(costs)[None, :, None], pats.shape).copy()
    runs, fee = np.full((len(pats), 2), r), np.full(len(pats), e)
    groups = np.repeat(np.arange(len(pairs)), 2)
    fit = policy.crossfit_frontier(usd, pats, runs, fee, [0, 1], k=k, groups=groups)
    true = policy.true_policy(np.broadcast_to(costs, runs.shape), np.tile(rates, (len(pairs), 1)), fee, k)
    def per_pair(x):
        return x.reshape(-1, 2).sum(axis=1)
    assert float(chance @ per_pair(fit.total - fit.truth(true, fee).total)) == pytest.approx(0.0, abs=1e-12)
    assert (fit.chosen >= 0).all()  # every problem had the other one to choose on
    naive = policy.policy_cost(usd, pats, runs, fee, k).total.reshape(-1, 2, 2).sum(axis=1).min(axis=1)
    oracle = true.total.reshape(-1, 2, 2).sum(axis=1).min(axis=1)[0]
    assert float(chance @ naive) < oracle - 1e-3 or rates.min() == 0.0  # the winner's curse flatters it


@pytest.mark.parametrize("rates,costs", [([0.3, 0.6], [0.1, 1.0]), ([0.05, 0.5], [0.01, 0.2]),
                                         ([0.5, 0.5], [0.5, 0.5])])
def test_half_of_a_problems_runs_may_choose_and_the_other_half_values_it_without_bias(rates, costs):
    """``crossfit_halves``: exact enumeration over every pass pattern of one problem's 4 runs of two options (k = 2),
    beside another problem of its group held at each of three patterns: the problem's value (the mean over every split
    of its runs, half choosing with the other problem's runs, half valuing) has the mean true cost of the options its
    splits chose, while its leave-one-out choice differs and the same runs choosing and valuing would flatter it."""
    r, k, e = 4, 2, 20.0
    pats, chance = patterns_of(rates, r)  # (N, 2, r): the problem's patterns
    beside = np.array([[[1, 0, 0, 1], [1, 1, 0, 0]], [[0, 0, 0, 0], [1, 1, 1, 1]], [[1, 1, 1, 1], [0, 1, 0, 0]]], bool)
    N, B = len(pats), len(beside)
    correct = np.stack([np.repeat(pats, B, axis=0), np.tile(beside, (N, 1, 1))], axis=1).reshape(-1, 2, r)
    usd = np.broadcast_to(np.array(costs)[None, :, None], correct.shape).copy()
    runs, fee = np.full((len(correct), 2), r), np.full(len(correct), e)
    groups = np.repeat(np.arange(N * B), 2)
    fit = policy.crossfit_halves(usd, correct, runs, fee, [[0, 1]], k=k, groups=groups)[0]
    loo = policy.crossfit_many(usd, correct, runs, fee, [[0, 1]], k=k, groups=groups)[0]
    true = policy.true_policy(np.broadcast_to(costs, runs.shape), np.tile(rates, (len(correct), 1)), fee, k)
    mine = np.arange(len(correct)) % 2 == 0  # the enumerated problem of each pair
    bias = (fit.total - fit.truth(true, fee).total)[mine].reshape(N, B)
    assert chance @ bias == pytest.approx(np.zeros(B), abs=1e-12)
    assert fit.chosen.shape == (6, len(correct))  # C(4, 2) splits, one row each
    assert (fit.strategies() != loo.strategies()[0]).any()  # half of its own runs do move some choices
    assert np.isclose(fit.total, policy.crossfit_halves(usd, correct, runs, fee, [[0, 1]], k=k, groups=groups)[0]
                      .total).all()  # no seed: the same records, the same value


def test_the_choosing_half_may_weigh_more_where_the_other_problems_show_it_pays():
    """``crossfit_halves``' ``own_weights``: two options, each passing every run on its half of the problems and
    failing every run on the other half (the same totals). Weighed as one of the other problems, a problem's own
    choosing half cannot outweigh the one problem more the others hold against its option: every problem chooses the
    option that fails it (leaving it out tips the tie); with the weights 1, 2, 4, 8 the other problems' held-out halves
    show that more weight pays, and every problem chooses the option that passes it: the truth is the per-problem
    minimum. Weights that are none or not positive are refused before any work."""
    P, r, k = 40, 8, 2
    first = np.arange(P) < P // 2
    correct = np.zeros((P, 2, r), bool)
    correct[first, 0], correct[~first, 1] = True, True
    usd, runs, fee = np.full((P, 2, r), 0.01), np.full((P, 2), r), np.full(P, 10.0)
    rate = correct.mean(axis=2)
    true = policy.true_policy(np.full((P, 2), 0.01), rate, fee, k)
    fits = {w: policy.crossfit_halves(usd, correct, runs, fee, [[0, 1]], k=k, own_weights=w)[0]
            for w in ((1.0,), (1.0, 2.0, 4.0, 8.0))}
    one, many = (fits[w].truth(true, fee).total.mean() for w in fits)
    assert many == pytest.approx(true.total.min(axis=1).mean()) and one == pytest.approx(true.total.max(axis=1).mean())
    assert (fits[(1.0, 2.0, 4.0, 8.0)].modal == np.where(first, 0, 1)).all()
    for bad in ((), (1.0, 0.0)):
        with pytest.raises(ValueError, match="own_weights must hold positive weights"):
            policy.crossfit_halves(usd, correct, runs, fee, [[0, 1]], k=k, own_weights=bad)


def test_half_splits_fall_back_to_leave_one_out_where_a_problems_runs_differ():
    """A problem whose options hold different numbers of runs, or fewer than 2k, is chosen and valued as
    ``crossfit_many`` does (leave-one-out); on the others, where every split chose the leave-one-out option, the mean
    over the splits of its value on the other half is its value on all the runs (each run values in as many splits)."""
    rng = np.random.default_rng(3)
    P, S, n = 12, 3, 6
    correct, usd = rng.random((P, S, n)) < 0.5, rng.gamma(2.0, 0.01, (P, S, n))
    runs = np.full((P, S), n)
    runs[0, 1] = 5  # unequal runs on problem 0
    usd[0, 1, 5] = np.nan
    fee, groups = np.full(P, 3.0), np.zeros(P, int)
    halves = policy.crossfit_halves(usd, correct, runs, fee, [[0, 1, 2]], k=2, groups=groups)[0]
    loo = policy.crossfit_many(usd, correct, runs, fee, [[0, 1, 2]], k=2, groups=groups)[0]
    assert halves.chosen.shape == (20, P)  # C(6, 3) splits
    assert halves.total[0] == loo.total[0] and (halves.strategies()[:, 0] == loo.strategies()[0, 0]).all()
    same = (halves.strategies() == loo.strategies()[0]).all(axis=0)
    assert same[1:].sum() >= 6 and np.allclose(halves.total[same], loo.total[same], rtol=1e-12)
    few = policy.crossfit_halves(usd, correct, runs, fee, [[0, 1, 2]], k=4, groups=groups)[0]  # 6 runs < 2k
    assert few.chosen.shape == (1, P) and (few.total == policy.crossfit_many(usd, correct, runs, fee, [[0, 1, 2]], k=4,
                                                                             groups=groups)[0].total).all()
    assert halves.halved and not few.halved and not loo.halved  # the words say which rule chose (``halved``)
    # ``modal``: per problem the option most of its splits chose, what the report names as "chosen"
    counts = np.stack([(halves.strategies() == s).sum(axis=0) for s in range(S)])  # (S, P)
    assert (counts[halves.modal, np.arange(P)] == counts.max(axis=0)).all()
    assert (few.modal == few.strategies()[0]).all()


def test_a_problems_choice_never_reads_its_own_runs():
    """Each problem's option is chosen on the other problems of its dataset: flipping every run of one problem moves
    its value, never its choice; the other problems' choices may move, and a dataset of one problem has no choice."""
    rng = np.random.default_rng(4)
    P, S, n = 30, 3, 4
    correct = rng.uniform(size=(P, S, n)) < np.array([0.4, 0.6, 0.8])[None, :, None]
    usd = np.broadcast_to(np.array([0.01, 0.02, 0.2])[None, :, None], (P, S, n)).copy()
    runs, fee, groups = np.full((P, S), n), np.full(P, 5.0), np.zeros(P, int)
    base = policy.crossfit_frontier(usd, correct, runs, fee, [0, 1, 2], groups=groups)
    for flip in (np.zeros((S, n), bool), np.ones((S, n), bool)):
        other = correct.copy()
        other[7] = flip
        moved = policy.crossfit_frontier(usd, other, runs, fee, [0, 1, 2], groups=groups)
        assert moved.chosen[0, 7] == base.chosen[0, 7] and moved.k == n  # as many tries as each option alone
    lone = policy.crossfit_frontier(usd[:1], correct[:1], runs[:1], fee[:1], [0, 1, 2], groups=groups[:1])
    assert (lone.chosen == -1).all() and lone.total[0] == 5.0  # nothing to choose on: the expert alone
    with pytest.raises(ValueError, match="k tries"):
        policy.crossfit_frontier(usd, correct, runs, fee, [0], k=n + 1)


def test_with_one_run_per_problem_a_failure_weighs_its_own_problems_fee():
    """One run per problem (SWE-bench bash-only): the Beta prior's spread is not identified, and the shrunk criterion
    charged every failure the mean fee, choosing a model that fails the dear problems (A: 2 of 20, fee 100 each) over
    one that fails cheap ones (B: 4 of 20, fee 1). The criterion there is each model's unbiased cost on the other
    problems: B everywhere, as its truth is lower."""
    P = 20
    fee = np.where(np.arange(P) < 2, 100.0, 1.0)
    correct = np.ones((P, 2, 1), bool)
    correct[:2, 0, 0] = False  # A fails the two dear problems
    correct[2:6, 1, 0] = False  # B fails four cheap ones
    usd, runs = np.full((P, 2, 1), 0.1), np.ones((P, 2), int)
    fit = policy.crossfit_frontier(usd, correct, runs, fee, [0, 1], groups=np.zeros(P, int))
    assert (fit.chosen == 1).all(), fit.chosen
    assert fit.total.mean() == pytest.approx(0.1 + 4 / P)


def test_near_tied_models_trade_places_toward_the_one_that_failed():
    """Review R1's trap: two models near-tied at one run per problem (A fails problems 0-9, B fails 10-19, A a cent
    cheaper per attempt). Leaving a problem out tips the choice toward the model that failed it: B is chosen exactly
    where B failed, and ``choices_against`` counts it against A, the cheaper alone."""
    P = 40
    fee = np.full(P, 10.0)
    correct = np.ones((P, 2, 1), bool)
    correct[:10, 0, 0] = False
    correct[10:20, 1, 0] = False
    usd = np.stack([np.full((P, 1), 0.10), np.full((P, 1), 0.11)], axis=1)
    fit = policy.crossfit_frontier(usd, correct, np.ones((P, 2), int), fee, [0, 1], groups=np.zeros(P, int))
    single = policy.policy_cost(usd, correct, np.ones((P, 2), int), fee, 1)
    counts, other, dearer = policy.choices_against(fit, single, 0, np.ones(P, bool))
    assert counts == {0: 30, 1: 10} and other == dearer == 10
    assert fit.total.mean() > single.total[:, 0].mean() + 2  # the estimate reads above A alone on these records
    assert policy.choices_against(fit, single, 0, np.arange(P) < 10) == ({0: 10}, 0, 0)


def test_the_leave_one_out_prior_is_the_prior_of_the_others():
    rng = np.random.default_rng(6)
    passed, tried = rng.integers(0, 5, size=(12, 3)), np.full((12, 3), 4)
    tried[3, 1] = 0  # a problem without tries takes no part
    passed[3, 1] = 0
    a, b = policy._loo_priors(passed, tried)
    for i in (0, 3, 11):
        keep = np.arange(12) != i
        ea, eb = means.beta_prior(passed[keep], tried[keep])
        np.testing.assert_allclose(a[i], ea) and np.testing.assert_allclose(b[i], eb)


def test_true_policy_by_hand():
    t = policy.true_policy(np.array([[0.5]]), np.array([[0.25]]), np.array([8.0]), 2)
    assert t.records[0, 0] == pytest.approx(0.5 * (1 + 0.75)) and t.expert[0, 0] == pytest.approx(8 * 0.75**2)


def test_the_fee_interval_is_garwoods_with_equal_fees():
    from scipy.stats import chi2

    fail = np.array([1.0, 1.0, 0.0, 1.0, 0.0])
    low, high = policy.fee_interval(fail, np.full(5, 2.0), 0.95)
    assert low == pytest.approx(2.0 * chi2.ppf(0.025, 6) / 2) and high == pytest.approx(2.0 * chi2.ppf(0.975, 8) / 2)
    low, high = policy.fee_interval(np.zeros(5), np.full(5, 2.0), 0.95)  # nothing failed: up to 3.69 problems' fees
    assert low == 0 and high == pytest.approx(2.0 * chi2.ppf(0.975, 2) / 2)


def test_failed_runs_bound_the_fee_where_no_problem_failed_every_try():
    """A model that failed none of its 8 runs on 100 problems: the chance that 8 tries all fail is bounded by its
    failed runs (Σ (1 − R) ≤ 0.55 at 98.75%, so Σ (1 − R)^8 ≤ 0.0085), not only by Garwood's 3.7 problems' fees."""
    from scipy.stats import gamma

    zeros = np.zeros(100)
    _, plain = policy.fee_interval(zeros, np.full(100, 2.0), 0.95)
    low, high = policy.fee_interval(zeros, np.full(100, 2.0), 0.95, fail_runs=zeros, k=8)
    x = gamma.ppf(1 - 0.0125, 1) / 8
    assert low == 0 and high == pytest.approx(2.0 * x**8) and high < plain / 100
    many = np.full(100, 0.5)  # half the runs failed: the run bound says nothing, Garwood's stands (at 98.75%)
    _, high = policy.fee_interval(zeros, np.full(100, 2.0), 0.95, fail_runs=many, k=8)
    assert high == pytest.approx(2.0 * gamma.ppf(1 - 0.0125, 1))


def test_policy_interval_holds_its_point_and_says_nothing_unidentified():
    rng = np.random.default_rng(3)
    records, fail, fee = rng.uniform(0, 0.1, 50), (rng.uniform(size=50) < 0.1).astype(float), np.full(50, 5.0)
    value, low, high = policy.policy_interval(records, fail, fee)
    assert low <= value <= high and value == pytest.approx(records.mean() + (fee * fail).mean())
    assert np.isnan(policy.policy_interval(np.r_[records[:-1], np.nan], fail, fee)).all()


def fitted(records, fail, chosen, options=(0, 1), fee=3.5):
    """A CrossFitted from per-problem arrays (what ``gain_interval`` reads)."""
    records, fail = np.asarray(records, float), np.asarray(fail, float)
    return policy.CrossFitted(2, tuple(options), records, fail, fee * fail, np.asarray(chosen)[None], records,
                              np.full(len(records), 0.5), np.full(len(records), 4))  # half of 4 runs failed


def one_gain(*args, **kw) -> tuple[float, float, float]:
    """``policy.gain_interval`` over one group of problems: (gain, low, high) as floats."""
    gain, low, high = policy.gain_interval(*args, **kw)
    assert gain.shape == low.shape == high.shape == (1,)
    return float(gain[0]), float(low[0]), float(high[0])


def test_a_gain_whose_value_is_one_problems_fee_is_not_precise():
    """A ratio whose numerator and denominator are both one problem's lump of the fee looked precise to the delta
    method (0.17 [0.14, 0.20] against a true gain below 0 in the validity study); the Bonferroni quotient does not."""
    P = 128
    before_fail = np.zeros(P)
    before_fail[18] = 1.0
    before = fitted(np.full(P, 0.002), before_fail, np.zeros(P, int))
    after_records, chosen = np.full(P, 0.002), np.zeros(P, int)
    after_records[18], chosen[18] = 2.856, 1  # chose another option on problem 18, which passed at a price
    after = fitted(after_records, np.zeros(P), chosen, options=(0, 1, 2))
    gain, low, high = one_gain(before, after, np.ones(P, bool), np.full(P, 3.5))
    assert gain == pytest.approx((3.502 - 2.856) / (3.5 + 128 * 0.002), rel=1e-9)
    assert low < 0 < high


def test_a_gain_allows_the_fee_no_valued_run_happened_to_charge():
    """Two-digit addition with a real self-refine effect: no valued run failed every try, yet the truth has a fee
    part where the two frontiers chose differently; the records alone gave intervals that missed it (70% coverage).
    Half of every option's runs failed, so the fee part's spread is each policy's from its runs where they differ
    (``differences.room``): at least one problem's fee (0.02 of 0.64) either way."""
    P = 128
    before = fitted(np.full(P, 0.0050), np.zeros(P), np.zeros(P, int))
    chosen = np.where(np.arange(P) < 40, 2, 0)  # the technique's strategy chosen on 40 problems
    after = fitted(np.where(chosen == 2, 0.0052, 0.0050), np.zeros(P), chosen, options=(0, 1, 2))
    gain, low, high = one_gain(before, after, np.ones(P, bool), np.full(P, 0.02))
    assert gain < 0 and low < gain < high
    assert low < -0.04 and high > 0.04  # over a problem's fee (0.02) either way, on a records cost of 0.64 in all
    same = fitted(np.full(P, 0.0050), np.zeros(P), np.zeros(P, int), options=(0, 1, 2))  # the same choices: no fee term
    gain, low, high = one_gain(before, same, np.ones(P, bool), np.full(P, 0.02))
    assert gain == 0 and low == pytest.approx(0.0, abs=1e-12) and high == pytest.approx(0.0, abs=1e-12)


def test_the_criterion_prefers_the_option_the_other_problems_favour():
    correct = np.zeros((4, 2, 2), bool)
    correct[:, 0] = True  # option 0 passed every run of every problem, option 1 none
    correct[0] = [[False, False], [True, True]]  # except the first problem, which favours option 1
    usd, runs = np.ones((4, 2, 2)), np.full((4, 2), 2)
    looks = policy.loo_criterion(usd, correct, runs, np.full(4, 10.0), 2, np.zeros(4, int))
    assert (looks[:, 0] < looks[:, 1]).all()  # the first problem too: its own runs take no part
    runs[:, 1] = 0
    assert np.isinf(policy.loo_criterion(usd, correct, runs, np.full(4, 10.0), 2, np.zeros(4, int))[:, 1]).all()


def test_the_expert_alone_is_an_empty_option_set():
    """Figure 2's first release gain starts from the expert alone: an empty option set costs the fee on every problem,
    with certainty, and a gain over it is the first model's."""
    rng = np.random.default_rng(3)
    P, n = 40, 4
    correct = rng.uniform(size=(P, 1, n)) < 0.7
    usd, runs, fee = np.full((P, 1, n), 0.01), np.full((P, 1), n), np.full(P, 2.0)
    alone, first = policy.crossfit_many(usd, correct, runs, fee, [[], [0]], k=2)
    assert (alone.chosen == -1).all() and (alone.strategies() == -1).all()
    np.testing.assert_allclose(alone.total, fee) and np.testing.assert_allclose(alone.fail_all, 1.0)
    true = policy.true_policy(np.full((P, 1), 0.01), np.full((P, 1), 0.7), fee, 2)
    np.testing.assert_allclose(alone.truth(true, fee).total, fee)
    gain, low, high = one_gain(alone, first, np.ones(P, bool), fee)
    assert gain == pytest.approx(1 - first.total.mean() / 2.0) and low < gain < high


def test_a_gain_over_the_after_frontier_divides_by_it():
    """Eq. 12 as printed divides the family's gain by the frontier with every model, not by the one without it."""
    P = 60
    before = fitted(np.full(P, 0.01), np.full(P, 0.2), np.zeros(P, int), fee=1.0)
    after = fitted(np.full(P, 0.01), np.full(P, 0.1), np.ones(P, int), fee=1.0)
    b, a = 0.01 + 0.2, 0.01 + 0.1
    over_before = one_gain(before, after, np.ones(P, bool), np.ones(P))
    over_after = one_gain(before, after, np.ones(P, bool), np.ones(P), over_after=True)
    assert over_before[0] == pytest.approx((b - a) / b) and over_after[0] == pytest.approx((b - a) / a)
    assert over_after[1] <= over_after[0] <= over_after[2]


def test_set_policy_evaluates_figure_specs_by_their_option_sets():
    """Figures 2-5 under the policy: each statistic from the chosen policies of its option sets, computed once per
    set at one k; Table 1's and the agent strategies' specs stay out (every run is a try there)."""
    from helpers.analyze.headline import all_specs

    rng = np.random.default_rng(5)
    P, S, n = 30, 2, 4
    correct = rng.uniform(size=(P, S, n)) < np.array([0.3, 0.8])[None, :, None]
    usd = np.broadcast_to(np.array([0.001, 0.05])[None, :, None], (P, S, n)).copy()
    runs, fee, groups = np.full((P, S), n), np.full(P, 1.0), np.zeros(P, int)
    specs = policy.crossfit_specs(all_specs(["a", "b"], {"a": "x", "b": "y"}, ["vanilla"], [["a"], ["b"]]), ["a", "b"],
                                  {"vanilla": True})
    assert not any(key.kind == st.TABLE1 for key in specs)
    assert {policy.FRONTIER, st.Key(st.RELEASE_FRONTIER, "0"), st.Key(st.RELEASE_GAIN, "1"), st.Key(st.FAMILY, "x"),
            st.Key(st.ESSENTIAL, "b")} <= set(specs)
    assert st.ALL_MODELS not in specs  # the paper's frontier's key became the headline's: another quantity
    sp = policy.set_policy(usd, correct, runs, fee, groups, [0, 1], specs)
    assert set(sp.fits) == {(), (0,), (1,), (0, 1)}  # every option set once
    rows = policy.policy_rows(sp, fee, groups, ["t"], {0: "a", 1: "b"}).set_index("statistic")
    level = rows.loc["release frontier:1"]  # % of the expert alone: the frontier of both over the fee
    assert level["value"] == pytest.approx(100 * rows.loc[str(policy.FRONTIER), "value"] / 1.0)
    assert level["low"] <= level["value"] <= level["high"]
    gain = rows.loc["essential:b"]  # (V({a}) − V({a, b})) / V({a})
    va, vab = sp.fit((0,)).total.mean(), sp.fit((0, 1)).total.mean()
    assert gain["value"] == pytest.approx((va - vab) / va)
    assert gain["records_usd"] + gain["expert_usd"] == pytest.approx(va - vab)


def test_an_agent_strategys_gain_is_cross_fitted_where_it_has_the_models_runs():
    """Issue 36: each agent strategy's gain over its model's single attempt (``strategy gain``) is cross-fitted on the
    models' k; the strategy alone is not (every run a try), and one with fewer runs than that k is left out."""
    from helpers.analyze.headline import Gain, Level

    a_gain, b_gain = st.Key(st.STRATEGY_GAIN, "a+ldb"), st.Key(st.STRATEGY_GAIN, "b+ldb")
    specs = {st.Key(st.STRATEGY, "a+ldb"): Level(("a+ldb",)), a_gain: Gain(("a",), ("a+ldb",)),
             b_gain: Gain(("b",), ("b+ldb",))}
    kept = policy.crossfit_specs(specs, ["a", "a+ldb", "b", "b+ldb"], {"vanilla": True, "ldb": True})
    assert set(kept) == {a_gain, b_gain}
    rng = np.random.default_rng(2)
    P, n = 40, 4
    correct = rng.uniform(size=(P, 4, n)) < np.array([0.3, 0.9, 0.3, 0.9])[None, :, None]
    usd = np.broadcast_to(np.array([0.001, 0.004, 0.001, 0.004])[None, :, None], (P, 4, n)).copy()
    runs = np.full((P, 4), n)
    runs[:, 3] = 1  # b+ldb has fewer runs than the models' k (half their 4 runs): its gain cannot be cross-fitted
    sp = policy.set_policy(usd, correct, runs, np.full(P, 1.0), np.zeros(P, int), [0, 2], kept)
    assert set(sp.specs) == {a_gain}
    row = policy.policy_rows(sp, np.full(P, 1.0), np.zeros(P, int), ["t"], {0: "a", 2: "b"}).set_index("statistic")
    gain = row.loc["strategy gain:a+ldb"]
    assert gain["low"] <= gain["value"] <= gain["high"] and gain["value"] > 0
    assert gain["shown"] == (gain["low"] > 0)  # one gain tested: Holm's step-down is its own interval
    assert not row.drop(index="strategy gain:a+ldb")["shown"].any()  # no other row makes that claim


def test_a_seeded_strategy_is_also_measured_over_its_seed_models_attempt():
    """Review H1: "LDB on a GPT-4 attempt by GPT-3.5 (0613)" was measured over GPT-3.5's attempt only, though every
    attempt starts from GPT-4's answer: ``seed gain`` measures it over the seed model's own single attempt."""
    from helpers.analyze.headline import Gain, strategy_specs

    specs = strategy_specs(["a", "b"], ["vanilla", "ldb_seed_gpt4"], {"a", "b", "a+ldb_seed_gpt4"},
                           {"a+ldb_seed_gpt4": "b"})
    assert specs[st.Key(st.SEED_GAIN, "a+ldb_seed_gpt4")] == Gain(("b",), ("a+ldb_seed_gpt4",))
    assert specs[st.Key(st.STRATEGY_GAIN, "a+ldb_seed_gpt4")] == Gain(("a",), ("a+ldb_seed_gpt4",))
    unknown = strategy_specs(["a"], ["vanilla", "ldb_seed_gpt4"], {"a", "a+ldb_seed_gpt4"}, {"a+ldb_seed_gpt4": "z"})
    assert not any(key.kind == st.SEED_GAIN for key in unknown)  # a seed outside the set's models: none


def test_the_gains_of_one_family_are_shown_together_never_more_than_each_alone():
    """Review H2: each claimed gain (techniques and strategies; releases; families) is shown above 0 only with the
    others of its family on the dataset tested together (``holm_shown``): a subset of those whose own interval lies
    above 0, at least those whose Bonferroni interval does."""
    from helpers.analyze.differences import bonferroni
    from helpers.analyze.headline import Gain

    rng = np.random.default_rng(3)
    P, n, G = 60, 4, 6
    rates = np.r_[0.3, rng.uniform(0.3, 0.95, G)]
    correct = rng.uniform(size=(P, G + 1, n)) < rates[None, :, None]
    usd = np.full((P, G + 1, n), 0.002)
    specs = {st.Key(st.STRATEGY_GAIN, f"a+s{i}"): Gain((0,), (i,)) for i in range(1, G + 1)}
    fee, groups = np.full(P, 1.0), np.zeros(P, int)
    sp = policy.set_policy(usd, correct, np.full((P, G + 1), n), fee, groups, [0], specs)
    rows = policy.policy_rows(sp, fee, groups, ["t"], {0: "a"}).set_index("statistic").loc[[str(k) for k in specs]]
    Gm = np.ones((1, P))
    strict = np.array([policy.spec_value(sp, spec, Gm, fee, bonferroni(0.95, G))[0][1][0] for spec in specs.values()])
    assert (rows["shown"] <= (rows["low"] > 0)).all() and (rows["shown"] >= (strict > 0)).all()
    assert rows["shown"].any() and not rows["shown"].all()


def test_the_criterion_is_the_same_whatever_the_chunk_of_priors(monkeypatch):
    """``loo_criterion`` computes one prior per distinct count and chunks them; the chunking changes nothing, and every
    problem's value equals the mean over the others of their expected costs under its own leave-one-out prior."""
    rng = np.random.default_rng(5)
    P, S, n = 30, 3, 6
    runs = rng.integers(1, n + 1, size=(P, S))
    correct = rng.random((P, S, n)) < rng.uniform(0.1, 0.9, size=(1, S, 1))
    usd, fee, groups = rng.uniform(0.01, 0.02, size=(P, S, n)), np.full(P, 3.0), np.repeat([0, 1], P // 2)
    whole = policy.loo_criterion(usd, correct, runs, fee, 2, groups)
    monkeypatch.setattr(policy, "CHUNK", 2)
    np.testing.assert_allclose(policy.loo_criterion(usd, correct, runs, fee, 2, groups), whole, rtol=1e-12)
    live = np.arange(n) < runs[..., None]
    s, f = (live & correct).sum(-1).astype(float), (live & ~correct).sum(-1).astype(float)
    c = np.where(live, usd, 0.0).sum(-1) / runs
    i = 3  # problem 3 of the first group, by brute force
    idx = np.flatnonzero(groups == 0)
    a, b = policy._loo_priors(s[idx], s[idx] + f[idx])
    each = policy._expected_costs(a[i][None], b[i][None], s[idx], f[idx], c[idx], fee[idx], runs[idx] > 0, 2)[0]
    np.testing.assert_allclose(whole[i], (each.sum(axis=0) - each[i]) / (len(idx) - 1), rtol=1e-12)


def test_influence_names_the_problem_that_carries_a_sum():
    """``policy.influence``: per group, the problem adding most to a sum and its share; none where the sum is not
    above 0 or a problem's part is unknown."""
    G = np.array([[1, 1, 1, 0, 0], [0, 0, 0, 1, 1]], float)
    share, top = policy.influence(np.array([1.0, 6.0, 1.0, -2.0, 1.0]), G)
    assert share[0] == pytest.approx(0.75) and top[0] == 1
    assert np.isnan(share[1]) and top[1] == -1  # the sum is below 0: no share of it
    share, top = policy.influence(np.array([1.0, np.nan, 1.0, 0.0, 0.0]), G)
    assert np.isnan(share).all() and (top == -1).all()


def test_contenders_count_the_options_the_records_cannot_tell_from_the_cheapest():
    """``policy.contenders``: a model that fails far more often (its fee) is told apart from the cheapest, so it takes
    no share of the frontier's level; two models drawn alike are not; one option is its own only contender. Table 1's
    paired differences, handed to ``chosen_interval`` (``many``), give the interval it counts itself."""
    rng = np.random.default_rng(5)
    P, n, fee = 200, 8, np.full(200, 5.0)
    rates = np.array([0.9, 0.3, 0.9])  # model 1 clearly dearer (fails); models 0 and 2 alike
    correct = rng.uniform(size=(P, 3, n)) < rates[None, :, None]
    usd, runs, G = np.full((P, 3, n), 0.01), np.full((P, 3), n), np.ones((1, P))
    single = policy.policy_cost(usd, correct, runs, fee, 2)
    assert policy.contenders(single, [0, 1], fee, G)[0] == 1
    assert policy.contenders(single, [0, 2], fee, G)[0] == 2
    assert policy.contenders(single, [0, 1, 2], fee, G)[0] == 2
    assert policy.contenders(single, [1], fee, G)[0] == 1
    fit = policy.crossfit_halves(usd, correct, runs, fee, [[0, 1, 2]], 2)[0]
    counted = policy.chosen_interval(fit, single, fee, G)
    given = policy.chosen_interval(fit, single, fee, G, many=policy.contenders(single, [0, 1, 2], fee, G))
    np.testing.assert_array_equal(np.array(counted), np.array(given))
