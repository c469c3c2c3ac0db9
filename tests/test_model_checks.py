"""The item-response model's checks: quiet on data from the model itself, loud where a generator departs from it
(small seeded cases; the paper-scale sizes and powers are measured by benchmarks/model_checks_power.py)."""

import numpy as np
import pytest

from helpers.analyze import known_truth as kt
from helpers.analyze import model_checks as mc
from helpers.analyze.frontier_model import fit_tested
from helpers.core.simulation import Generator


def checked_model(problems=96, models=8, distractors=6) -> kt.GenerativeModel:
    """One numeric task (a wrong answer is one of ``distractors``), ``models`` models from weak to strong, 8 runs."""
    task = kt.TaskModel("gsm8k", np.full(problems, 120), np.full(problems, 200), np.linspace(-1.5, 3.5, models),
                        np.linspace(1.0, 2.0, models), np.full(models, 300.0), distractors, 3.5)
    names = [f"m{i}" for i in range(models)]
    return kt.GenerativeModel(names, {m: "lightweight" for m in names}, ["vanilla"], np.full(models, 1e-6),
                              np.full(models, 2e-6), np.zeros(models), np.zeros(models), np.zeros(models), [task], 8)


def checks_of(generator: Generator, seed: int, distractors: int = 6) -> dict[str, mc.CheckResult]:
    gm = checked_model(distractors=distractors)
    rng = np.random.default_rng(seed)
    cube, _ = kt.draw_cube(gm, rng, kt.draw_problems(gm, rng, generator))
    k, n = cube.correct.sum(-1), cube.runs
    groups = np.array(["vanilla"] * k.shape[1])
    fit = fit_tested(k, n, groups)
    return {r.check: r for r in mc.check_task(k, n, fit, seed=seed, sims=100, groups=groups, free_response=True)}


def test_no_check_rejects_the_models_own_data():
    rejected = [name for seed in range(5) for name, r in checks_of(kt.OWN, seed).items() if r.rejects]
    assert len(rejected) <= 1, rejected  # 5 sets x 5 checks at 2% each


@pytest.mark.parametrize("check", ["dispersion", "split-sample"])
def test_an_interaction_is_found(check):
    hits = sum(checks_of(Generator("interaction", interaction_sd=1.5), seed)[check].rejects for seed in range(4))
    assert hits >= 3


def test_wrong_references_are_found_by_the_floor_they_call_for():
    # 3% of problems with a wrong reference: a weak model's wrong answer that equals it passes, strong models fail
    hits = sum(checks_of(Generator("broken", broken=0.03), seed)["floor"].rejects for seed in range(4))
    assert hits >= 3


def test_wrong_references_raise_the_all_fail_count():
    # 10% of problems with a wrong reference no answer matches (50 distractors): every model fails them. The
    # statistic sees the excess, but the fitted curves steepen to absorb part of it, so its p-value is small rather
    # than tiny (measured: 0.01-0.05 at 10%, 0.09 at 15%): the check's power is limited (README)
    for seed in range(3):
        r = checks_of(Generator("broken", broken=0.10), seed, distractors=50)["all-fail"]
        assert r.statistic > 2 * r.expected and r.p_value <= 0.1


def test_the_floor_check_is_not_applied_where_answers_can_be_guessed():
    gm = checked_model()
    rng = np.random.default_rng(0)
    cube, _ = kt.draw_cube(gm, rng)
    k, n = cube.correct.sum(-1), cube.runs
    groups = np.array(["vanilla"] * k.shape[1])
    floor = mc.check_task(k, n, fit_tested(k, n, groups), sims=20, groups=groups, free_response=False)[-1]
    assert floor.check == "floor" and floor.p_value == 1.0 and not floor.rejects


def test_chibar_p_value_by_hand():
    # one floor: half a point mass at 0 and half a chi-square with 1 df
    assert np.isclose(mc.chibar_p_value(3.84, 1), 0.5 * 0.05, atol=1e-4)
    assert mc.chibar_p_value(0.0, 2) == 1.0


def test_ordering_finds_models_that_disagree_on_what_is_hard():
    # half the models see the difficulty reversed: their orderings disagree with the others'
    k_pass, n = [], 8
    rng = np.random.default_rng(0)
    z = rng.standard_normal(96)
    a, b = np.linspace(-1, 2, 8), np.full(8, 1.5)
    sign = np.where(np.arange(8) % 2 == 0, 1.0, -1.0)
    k_pass = rng.binomial(n, 1 / (1 + np.exp(-(a - b * sign * z[:, None]))))
    runs = np.full(k_pass.shape, n)
    fit = fit_tested(k_pass, runs, np.array(["vanilla"] * 8))
    result = {r.check: r for r in mc.check_task(k_pass, runs, fit, seed=0, sims=100)}
    assert result["ordering"].rejects and result["ordering"].statistic < result["ordering"].expected


def test_all_fail_statistic_by_hand():
    # one strategy, R(z) = 0.5 everywhere (a = 0, b = 0): P(0 of 2 runs) = 1/4, so 4 problems expect 1 all-fail
    theta = np.array([[0.0, 0.0, 0.0]])
    k = np.array([[0], [0], [0], [1]], float)
    n = np.full((4, 1), 2.0)
    # strategy: observed 3, expected 1 -> (3 - 1)^2 / 1; "no strategy passed": the same counts -> twice
    assert np.isclose(mc.all_fail_statistic(theta, k, n), 2 * 4.0)


def test_verdicts_name_the_rejecting_checks():
    import pandas as pd

    checks = pd.DataFrame([{"task": "t", "check": "all-fail", "rejects": True},
                           {"task": "t", "check": "ordering", "rejects": False},
                           {"task": "u", "check": "all-fail", "rejects": False}])
    assert mc.verdicts(checks) == {"t": "rejected by all-fail", "u": ""}


def test_each_check_rejects_at_its_calibrated_critical_value():
    """Held at the fitted parameters, the checks' p-values are not uniform under the model (0-6% at a nominal 2%):
    each rejects where its p-value is at most its calibrated critical value, written by
    benchmarks/model_checks_size.py (which measures the size on other sets)."""
    import json

    saved = json.loads(mc.CALIBRATION.read_text())
    critical = mc.critical_p()
    assert set(critical) == set(mc.CHECKS) == set(saved["critical_p"]) and saved["sets"] >= 400
    for check, c in critical.items():
        assert 0 < c < 1
        assert mc.CheckResult(check, 1.0, 1.0, c).rejects and not mc.CheckResult(check, 1.0, 1.0,
                                                                                 min(1.0, c * 1.01 + 1e-9)).rejects


def test_randomised_p_values_split_ties():
    sims = np.array([1.0, 2.0, 2.0, 3.0])
    assert mc._p_upper(2.0, sims, 1.0) == pytest.approx(4 / 5)  # the conservative p counts every tie
    assert mc._p_upper(2.0, sims, 0.5) == pytest.approx((1 + 0.5 * 3) / 5)
    assert 0 < mc._p_upper(9.0, sims, 1e-9) < 1e-9  # above every simulation: as small as the draw


def test_a_dataset_takes_the_critical_values_of_the_nearest_calibrated_shape():
    """At 20 problems x 3 models x 4 runs, paper scale's critical values rejected 12% for any check (nominal 10%):
    smaller shapes have their own (benchmarks/model_checks_size.py shapes), and a dataset takes the nearest's."""
    import json

    saved = json.loads(mc.CALIBRATION.read_text())
    shapes = {(e["problems"], e["models"], e["runs"]): e["critical_p"] for e in saved["shapes"]}
    assert (20, 3, 4) in shapes and all(e["sets"] >= 400 for e in saved["shapes"])
    assert mc.critical_p((21, 3, 4)) == {c: pytest.approx(shapes[(20, 3, 4)][c]) for c in mc.CHECKS}
    assert mc.critical_p((130, 10, 8)) == mc.critical_p()  # paper scale
    for sim_shape in ((128, 20, 8), (30, 20, 8)):  # the sim set's own datasets (model_checks_size.py sim)
        assert mc.critical_p(sim_shape) == {c: pytest.approx(shapes[sim_shape][c]) for c in mc.CHECKS}
    assert mc.data_shape(np.full((20, 3), 4.0)) == (20, 3, 4)
    k, n = np.array([[2, 4, 1], [0, 3, 4]] * 10, float), np.full((20, 3), 4.0)
    from helpers.analyze.frontier_model import fit_tested

    groups = np.array(["vanilla"] * 3)
    for r in mc.check_task(k, n, fit_tested(k, n, groups), groups=groups, free_response=True):
        assert r.critical == pytest.approx(shapes[(20, 3, 4)][r.check])
