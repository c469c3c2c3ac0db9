"""The one generative model (``core.simulation``): the sim backend's calls and the validity study's sets are draws
of the same pi, cliffs and interactions included."""

import numpy as np
import pytest
import yaml

from conftest import ROOT
from helpers.analyze import known_truth as kt
from helpers.analyze import validity as va
from helpers.collect.backends import sim
from helpers.collect.preflight import preflight
from helpers.core.models import SimProfile
from helpers.core.params import load_params
from helpers.core.simulation import OWN, Generator, aptitude, aptitude_on, completion_tokens, refined


def test_pass_probability_by_hand():
    eta = np.array([[-3.0, 0.0], [-0.5, 2.0]])
    assert np.allclose(OWN.pass_probability(eta), 1 / (1 + np.exp(-eta)))
    cliffs = Generator("c", cliff=(-1.0, None))  # a cliff for the first model only
    assert np.allclose(cliffs.pass_probability(eta), [[0.0, 0.5], [1 / (1 + np.exp(0.5)), 1 / (1 + np.exp(-2.0))]])
    probit = Generator("p", link="probit")
    assert probit.pass_probability(np.array(0.0)) == pytest.approx(0.5)
    assert probit.pass_probability(np.array(1.7)) == pytest.approx(0.8413447, abs=1e-6)  # Phi(1)
    assert refined(0.25, 0.5) == pytest.approx(0.625)


@pytest.mark.parametrize("sd, cliff", [(0.0, None), (0.5, -2.0), (1.0, -1.0)])
def test_population_aptitude_hits_its_target_over_hashed_problems(sd, cliff):
    profile = SimProfile(accuracy={"t": 0.4}, completion_tokens={"t": 10}, interaction_sd=sd, cliff=cliff)
    mean = np.mean([sim.true_probability(profile, 3, "t", str(i), model="m") for i in range(20000)])
    assert mean == pytest.approx(0.4, abs=0.01)
    assert aptitude(0.4, 2.0, sd, cliff) == pytest.approx(sim.task_aptitude(profile, "t"))


def test_an_interaction_needs_the_model_name():
    profile = SimProfile(accuracy={"t": 0.4}, completion_tokens={"t": 10}, interaction_sd=0.5)
    with pytest.raises(ValueError, match="model's name"):
        sim.true_probability(profile, 0, "t", "p1")
    assert sim.true_probability(profile, 0, "t", "p1",
                                model="a") != sim.true_probability(profile, 0, "t", "p1", model="b")


def test_a_cliff_on_a_sample_lands_within_one_jump_of_the_target():
    z = np.linspace(-2, 2, 30)
    a = aptitude_on(0.3, 2.0, z, cliff=-2.0)
    reached = np.mean(Generator("c", cliff=-2.0).pass_probability(a - 2.0 * z))
    assert abs(reached - 0.3) <= 1 / (1 + np.exp(2.0)) / 30 + 1e-9


def test_completion_tokens_have_the_profile_mean():
    z = np.random.default_rng(0).standard_normal(200_000)
    assert completion_tokens(300.0, z).mean() == pytest.approx(300.0, rel=0.01)
    assert completion_tokens(0.01, 0.0) == 1


def test_the_study_and_the_backend_give_the_sim_twins_the_same_pi(write_set, shared_data):
    registry = ROOT / "params/registry/sim_paper.yaml"
    models = list(yaml.safe_load(registry.read_text())["models"])
    path = write_set({"name": "same", "tasks": ["gsm8k", "aime24"], "models": models, "models_file": str(registry),
                      "n_problems": 12, "n_runs": 2, "price_snapshot": "sim_paper_table4_2025-04", "budget_usd": 100.0,
                      "data_dir": str(shared_data)})
    ctx = preflight(load_params(path))
    gm = kt.generative_model(ctx)
    assert gm.generator.has_interaction and np.isfinite(gm.generator.cliffs).all()  # the twins are not the own model
    assert va.study_generators(gm)[0].name == "this set's own (interaction sd 0.5, cliffs at -2)"
    assert va.study_generators(gm)[1:] == kt.GENERATORS
    zeros = 0
    for tm, problems in zip(gm.tasks, kt.own_problems(ctx)):
        study = problems.success(tm)  # (P, M)
        backend = np.array([[sim.true_probability(m.sim, ctx.params.seed, tm.task, p.problem_id, model=m.name)
                             for m in ctx.models] for p in ctx.problems[tm.task]])
        assert np.allclose(study, backend, rtol=0, atol=1e-12)
        zeros += (study == 0).sum()
    assert zeros  # some problems lie beyond a twin's cliff


def test_the_study_draws_exactly_the_attempts_the_backend_recorded(write_set, tmp_path):
    """One generator, one seed discipline: with the backend's own random numbers (``hashed_draws``) and the set's own
    problems, the validity study's ``draw_cube`` makes exactly the attempts the ``sim`` backend recorded — which pass,
    vanilla and self-refine, for twins with interactions and cliffs — and what they cost."""
    import pandas as pd

    from helpers.collect.collection import run_collection
    from helpers.grade.estimates import strategy_name
    from helpers.grade.stage import run_grading

    registry = ROOT / "params/registry/sim_paper.yaml"
    models = list(yaml.safe_load(registry.read_text())["models"])[:4]
    params = load_params(write_set({
        "name": "one", "tasks": ["two_digit_addition"], "models": models, "models_file": str(registry),
        "methods": ["vanilla", "self_refine"], "n_problems": 12, "n_runs": 3, "seed": 4, "budget_usd": 100.0,
        "price_snapshot": "sim_paper_table4_2025-04", "concurrency": 1, "output_dir": str(tmp_path / "out"),
        "task_options": {"two_digit_addition": {"source": "generated"}}}))
    ctx = preflight(params)
    run_collection(ctx, progress=False)
    run_grading(ctx)
    attempts = pd.read_parquet(params.graded_path / "attempts.parquet")
    cube, _ = kt.draw_cube(kt.generative_model(ctx), None, kt.own_problems(ctx), kt.hashed_draws(ctx))
    row = {p.problem_id: i for i, p in enumerate(ctx.problems["two_digit_addition"])}
    col = {s: j for j, s in enumerate(cube.strategies)}
    recorded = np.zeros(cube.correct.shape, bool)
    usd = np.zeros(cube.usd.shape)
    for a in attempts.itertuples():
        cell = (row[a.problem_id], col[strategy_name(a.model, a.method)], a.run)
        recorded[cell], usd[cell] = bool(a.correct), a.usd
    assert len(attempts) == recorded.size and 0 < recorded.mean() < 1
    assert np.array_equal(cube.correct, recorded)
    assert np.allclose(cube.usd, usd, rtol=1e-9, atol=0)
