"""The method registry: one module per method; best-of-N with an oracle verifier, by hand."""

import pandas as pd
import pytest

from helpers.analyze.estimates import load_analysis
from helpers.collect.collection import run_collection
from helpers.collect.preflight import preflight
from helpers.core.methods import Method, collected_methods, get_method, register
from helpers.core.methods.best_of_n import best_of_k_estimates
from helpers.core.methods.vote_math import any_pass_probability as any_pass_rate
from helpers.core.params import load_params, params_from_mapping
from helpers.grade.stage import run_grading
from helpers.publish import tables


def test_registry_knows_the_papers_methods_and_best_of_n():
    assert get_method("vanilla").collected_calls == 1 and get_method("self_refine").collected_calls == 2
    assert get_method("majority_vote_k3").billed_calls == 3 and get_method("majority_vote_k3").estimator
    assert get_method("best_of_k4").billed_calls == 4 and not get_method("best_of_k4").is_collected
    assert [m.name for m in collected_methods(["best_of_k2"])] == ["vanilla"]  # its runs are vanilla runs
    with pytest.raises(ValueError, match="unknown method 'tree_of_thought'") as err:
        get_method("tree_of_thought")
    assert all(form in str(err.value) for form in ("vanilla", "self_refine", "majority_vote_kN", "best_of_kN"))


def test_best_of_k_by_hand():
    # 4 runs, 1 correct, 2 drawn: 3 of the 6 pairs hold the correct run
    assert any_pass_rate(4, 1, 2) == pytest.approx(0.5)
    assert any_pass_rate(4, 0, 2) == 0 and any_pass_rate(4, 3, 2) == 1
    vanilla = pd.DataFrame({"task": "gsm8k", "problem_id": "p", "model": "m", "correct": [True, False, False, False],
                            "usd": [0.1, 0.2, 0.3, 0.4]})
    (row,) = best_of_k_estimates(vanilla, 2).itertuples()
    assert row.pass_rate == pytest.approx(0.5) and row.cost_usd == pytest.approx(2 * 0.25) and row.n == 6
    assert best_of_k_estimates(vanilla, 5).empty


def test_a_new_method_is_one_registration(monkeypatch):
    from helpers.core.methods import base

    monkeypatch.setattr(base, "_REGISTRY", list(base._REGISTRY))  # this test's method leaves with it
    register(r"first_of_k([1-9])", "first_of_kN",
             lambda m: Method(m.group(0), collected_calls=0, billed_calls=int(m.group(1)),
                              estimator=lambda v, seed: best_of_k_estimates(v, 1)))
    params = params_from_mapping({"name": "x", "tasks": ["gsm8k"], "models": ["m"],
                                  "methods": ["vanilla", "first_of_k2"],
                                  "n_problems": 1, "n_runs": 1, "price_snapshot": "p", "budget_usd": 1})
    assert params.methods == ["vanilla", "first_of_k2"]


def test_best_of_n_flows_into_estimates_and_table_2(write_set):
    params = load_params(write_set({"name": "bestof", "tasks": ["two_digit_addition"], "models": ["sim-lightweight"],
                                    "methods": ["vanilla", "best_of_k3"], "n_problems": 6, "n_runs": 4,
                                    "price_snapshot": "sim_tiny_2025-04", "budget_usd": 1.0,
                                    "task_options": {"two_digit_addition": {"source": "generated"}}}))
    ctx = preflight(params)
    run_collection(ctx, progress=False)
    run_grading(ctx)
    an = load_analysis(ctx)
    best = an.estimates[an.estimates.method == "best_of_k3"]
    vanilla = an.estimates[an.estimates.method == "vanilla"].set_index("problem_id")
    assert len(best) == 6 and (best.set_index("problem_id").pass_rate >= vanilla.pass_rate - 1e-12).all()
    assert "best_of_k3" in tables.table2_techniques(an).technique.tolist()
