"""The simulated twins of the paper's models reproduce their calibration targets (Tables 5 and 6)."""

import math

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import ROOT
from helpers.cli import calibrate
from helpers.collect.backends import sim
from helpers.collect.collection import run_collection
from helpers.collect.preflight import preflight
from helpers.core.models import resolve_models
from helpers.core.params import load_params
from helpers.core.prices import cost_usd
from helpers.grade.stage import run_grading

TABLES = ROOT.parent / "shared" / "paper_tables"


@pytest.fixture
def tables():
    if not TABLES.is_dir():
        pytest.skip("../shared/paper_tables not present")
    return TABLES


def test_committed_twins_are_what_calibration_produces(tables, shared_data):
    registry, prices = calibrate.calibrate(tables, shared_data)
    committed = yaml.safe_load((ROOT / "params/registry/sim_paper.yaml").read_text())
    assert committed == yaml.safe_load(yaml.safe_dump(registry))
    snap = yaml.safe_load((ROOT / "params/prices/sim_paper_table4_2025-04.yaml").read_text())
    assert snap["prices"] == prices["prices"]
    discounts = {name: p["batch_discount"] for name, p in prices["prices"].items()}  # the real providers' batch APIs
    assert discounts == {f"sim-{m}": 0.5 for m in ("llama-3.1-8b", "gpt-4o-mini", "llama-3.3-70b", "llama-3.1-405b",
                                                   "gpt-4o", "claude-3.5-sonnet", "o1-mini", "o3-mini",
                                                   "deepseek-r1", "o1")}
    assert all("batch_discount assumed" in p["derivation"] for p in prices["prices"].values())


def test_every_twin_is_within_half_a_point_of_table_5_in_expectation(tables, shared_data):
    """Expected accuracy from the generative model (no sampling noise) on the problems the sim set draws."""
    params = load_params(ROOT / "params/sim.yaml")
    acc = pd.read_csv(tables / "paper_table5_accuracy_pct.csv").set_index("model")
    problems = calibrate.sampled_problems(shared_data, params.n_problems, params.seed)
    worst = 0.0
    for spec in resolve_models(params.models, params.models_path):
        for task, ps in problems.items():
            expected = 100 * sim.expected_accuracy(spec.sim, params.seed, task, [p.problem_id for p in ps], spec.name)
            worst = max(worst, abs(expected - acc.loc[spec.label.removesuffix(" (sim)"), task]))
    print(f"largest deviation of a twin's expected accuracy from Table 5: {worst:.3f} points")
    assert worst <= 0.5


def test_recovered_accuracy_and_cost_match_targets(tables, shared_data, write_set):
    models = list(yaml.safe_load((ROOT / "params/registry/sim_paper.yaml").read_text())["models"])
    path = write_set({"name": "calib", "tasks": ["gsm8k"], "models": models,
                      "models_file": str(ROOT / "params/registry/sim_paper.yaml"), "n_problems": 128, "n_runs": 2,
                      "price_snapshot": "sim_paper_table4_2025-04", "budget_usd": 100.0, "concurrency": 1,
                      "data_dir": str(shared_data)})
    ctx = preflight(load_params(path))
    run_collection(ctx, progress=False)
    attempts = run_grading(ctx)
    attempts = attempts.assign(usd=cost_usd(attempts, ctx.snapshot))
    acc = pd.read_csv(tables / "paper_table5_accuracy_pct.csv").set_index("model")["gsm8k"] / 100
    cost = pd.read_csv(tables / "paper_table6_cost_usd.csv").set_index("model")["gsm8k"]
    for spec in ctx.models:
        label = spec.label.removesuffix(" (sim)")
        mine = attempts[attempts.model == spec.name]
        truth = np.array([sim.true_probability(spec.sim, 0, "gsm8k", pid, model=spec.name) for pid in mine.problem_id])
        # against the exact expectation for these problems: Bernoulli sampling error only
        se = math.sqrt((truth * (1 - truth)).sum()) / len(truth)
        assert abs(mine.correct.mean() - truth.mean()) <= 4 * se + 1e-9, spec.name
        # against Table 5: plus the sampling error of drawing 128 problems
        se_total = math.sqrt(se**2 + truth.var() / mine.problem_id.nunique())
        assert abs(mine.correct.mean() - acc[label]) <= 4 * se_total + 0.01, spec.name
        # cost per attempt against Table 6 (completion tokens log-normal, sigma 0.5)
        if "below the prompt" not in spec.notes:
            assert mine.usd.mean() == pytest.approx(cost[label], rel=0.15), spec.name
