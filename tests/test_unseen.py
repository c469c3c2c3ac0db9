"""The range the records allow: floors of never-passed cells by hand, a frontier's and a gain's range against
brute force, and the plug-in inside its range."""

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers.analyze import unseen
from helpers.analyze.headline import Gain, Level


def test_zero_pass_upper_is_the_exact_binomial_bound():
    r = unseen.zero_pass_upper(np.array([1, 8, 0]))
    assert np.isclose(r[0], 0.95) and np.isclose(r[1], 1 - 0.05 ** (1 / 8)) and np.isnan(r[2])
    assert np.isclose((1 - r[1]) ** 8, 0.05)  # at the bound, 0 passes in 8 runs has probability 5%


def test_floor_of_a_never_passed_cell_by_hand():
    # two problems, one collected strategy (8 runs) and its 3-vote; problem 0 passed 2 of 8, problem 1 none
    cost = np.array([[[0.01, 0.03], [0.02, 0.06]]])
    rate = np.array([[[0.25, 0.3], [0.0, 0.0]]])
    floor = unseen.floor_cop(cost, rate, np.array([[8], [8]]), [("m+majority_vote_k3", 0, "majority_vote_k3")])
    up = 1 - 0.05 ** (1 / 8)
    assert np.allclose(floor[0, 0], [0.04, 0.1])  # passed: C / R as observed
    assert np.isclose(floor[0, 1, 0], 0.02 / up)
    assert np.isclose(floor[0, 1, 1], 0.06 / (1 - (1 - up) ** 3))  # k calls: the best-of-3 rate bounds a vote's


def bounds_of(cop, floor, expert):
    cop, floor = np.asarray(cop, float)[None], np.asarray(floor, float)[None]
    return unseen.Bounds(cop, floor, np.asarray(expert, float), np.ones(cop.shape[:2]), np.array([0]),
                         [f"s{i}" for i in range(cop.shape[2])])


def test_a_frontier_ranges_from_its_floors_to_the_plug_in():
    inf = np.inf
    b = bounds_of([[1.0, inf], [inf, inf]], [[1.0, 3.0], [2.0, 8.0]], [5.0, 5.0])
    low, high = unseen.range_of(Level(("s0", "s1")), b)
    assert np.isclose(low[0, 0], (1 + 2) / 2) and np.isclose(high[0, 0], (1 + 5) / 2)
    assert np.isclose(unseen.unseen_share(Level(("s0", "s1")), b)[0, 0], 5 / 6)  # problem 1: no strategy passed
    rel_low, rel_high = unseen.range_of(Level(("s1",), 100.0, relative=True), b)  # % of the expert alone
    assert np.isclose(rel_low[0, 0], 100 * (3 + 5) / 2 / 5) and np.isclose(rel_high[0, 0], 100.0)


def brute_gain(a_box, b_box, over_after=False, grid=6):
    """Every gain over a grid of per-problem values in the boxes (a_low, a_high), (b_low, b_high); a's grid also
    holds b's ends where they fall in a's box."""
    values = []
    choices = [[np.unique(np.r_[np.linspace(lo, hi, grid), np.clip([b_lo, b_hi], lo, hi)])
                for lo, hi, b_lo, b_hi in zip(*a_box, *b_box)], [np.linspace(lo, hi, grid) for lo, hi in zip(*b_box)]]
    for a in itertools.product(*choices[0]):
        for b in itertools.product(*choices[1]):
            a_, after = np.array(a), np.minimum(a, b)
            values.append((a_.sum() - after.sum()) / (after.sum() if over_after else a_.sum()))
    return min(values), max(values)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(0.1, 5), st.floats(0, 1), st.floats(0.1, 5), st.floats(0, 1), st.booleans(),
                          st.booleans()), min_size=1, max_size=2), st.booleans())
def test_a_gains_range_holds_the_plug_in_and_its_low_end_is_the_minimum(cells, over_after):
    expert = 5.0
    cop, floor = [], []
    for a, a_frac, b, b_frac, a_seen, b_seen in cells:  # a never-passed cell: ∞, floor a fraction of the expert
        cop.append([min(a, expert) if a_seen else np.inf, min(b, expert) if b_seen else np.inf])
        floor.append([cop[-1][0] if a_seen else 0.1 + a_frac * expert, cop[-1][1] if b_seen else 0.1 + b_frac * expert])
    bd = bounds_of(cop, floor, [expert] * len(cells))
    spec = Gain(("s0",), ("s1",), over_after)
    low, high = (x[0, 0] for x in unseen.range_of(spec, bd))
    a_lo, a_hi, _ = bd.per_problem(("s0",))
    b_lo, b_hi, _ = bd.per_problem(("s1",))
    point = (a_hi.sum() - np.minimum(a_hi, b_hi).sum()) / (np.minimum(a_hi, b_hi).sum() if over_after else a_hi.sum())
    assert low <= point + 1e-12 <= high + 2e-12
    least, most = brute_gain((a_lo[0], a_hi[0]), (b_lo[0], b_hi[0]), over_after)
    assert np.isclose(low, least, atol=1e-9)  # the low corner is the minimum over the box
    assert least - 1e-9 <= high <= most + 1e-9


def test_rate_bounds_are_clopper_pearson():
    low, high = unseen.rate_bounds(np.array([0, 8, 4, 0]), np.array([8, 8, 8, 0]))
    assert low[0] == 0 and np.isclose(high[0], 1 - 0.025 ** (1 / 8))  # none passed: one-sided 97.5%
    assert high[1] == 1 and np.isclose(low[1], 0.025 ** (1 / 8))
    assert np.isclose(low[2], 0.15701, atol=1e-5) and np.isclose(high[2], 0.84299, atol=1e-5)  # the textbook 4 of 8
    assert np.isnan(low[3]) and np.isnan(high[3])


def test_a_cells_box_holds_its_plug_in_and_widens_with_its_runs():
    from types import SimpleNamespace

    usd = np.array([[[1.0, 3.0, 1.0, 3.0], [2.0, 2.0, 2.0, 2.0]]])  # one problem, two strategies, 4 runs
    correct = np.array([[[True, False, True, False], [False, False, False, False]]])
    cube = SimpleNamespace(usd=usd, correct=correct, runs=np.array([[4, 4]]), derived=[])
    floor, ceiling = unseen.cell_box(cube)
    r_lo, r_hi = unseen.rate_bounds(np.array([2, 0]), np.array([4, 4]))
    se = np.std([1, 3, 1, 3], ddof=1) / 2
    assert np.isclose(floor[0, 0, 0], (2 - 1.96 * se) / r_hi[0]) and np.isclose(ceiling[0, 0, 0],
                                                                                (2 + 1.96 * se) / r_lo[0])
    assert floor[0, 0, 0] < 2 / 0.5 < ceiling[0, 0, 0]  # the plug-in C / R inside
    assert np.isclose(floor[0, 0, 1], 2 / r_hi[1]) and ceiling[0, 0, 1] == np.inf  # never passed: no ceiling
