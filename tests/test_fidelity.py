"""The paper's own definitions, by hand: prompts, problem draw, grading of echoes, Fig. 3's denominator,
expert costs, release steps (issue 7, points 8-9); and the set's sample is exactly what analysis reads
(points 1-2)."""

import ast
import json
import re

import numpy as np
import pandas as pd
import pytest

from conftest import ROOT, sim_set
from helpers.analyze import costofpass as cp
from helpers.analyze.estimates import load_analysis
from helpers.collect.collection import run_collection
from helpers.collect.preflight import estimate, preflight
from helpers.collect.records import RecordStore
from helpers.core.context import prepare
from helpers.core.experts import expert_per_problem, load_expert_costs
from helpers.core.params import load_params
from helpers.core.prompts import PAPER_PROMPT, REFINE_PROMPT
from helpers.core.tasks.base import reference_lcg_indices
from helpers.grade.answers import as_number, canonical_answer, is_correct
from helpers.grade.stage import run_grading
from helpers.publish import tables

DESIGN = ROOT.parent / "shared" / "DESIGN.md"


# ---- prompts and problem draw (9e, 9f) ----------------------------------------------------------------
def test_prompts_are_the_reference_codes_exactly():
    if not DESIGN.is_file():
        pytest.skip("../shared/DESIGN.md not present")
    literals = [ast.literal_eval(m) for m in re.findall(r'`("\\n(?:[^"\\]|\\.)*")`', DESIGN.read_text())]
    assert PAPER_PROMPT in literals and REFINE_PROMPT in literals
    assert PAPER_PROMPT.startswith("\nPlease solve") and PAPER_PROMPT.endswith("'''\n{input}\n'''\n")


def test_reference_lcg_draw_by_hand():
    # n = 6, seed 102217: 279470273 * 102217 mod 2**32 = 785409545, j = 785409545 mod 6 = 5 (no swap);
    # then states 4148710601, 2117419913, 23284297, 2543739145 give j = 1, 1, 1, 1
    assert reference_lcg_indices(6, 6) == [0, 2, 3, 4, 1, 5]
    assert reference_lcg_indices(3, 6) == [0, 2, 3]
    assert sorted(reference_lcg_indices(500, 500)) == list(range(500))
    assert reference_lcg_indices(10, 4) == reference_lcg_indices(4, 4)


def test_paper_set_uses_the_reference_draw(shared_data, monkeypatch):
    monkeypatch.setenv("COP_DATA_DIR", str(shared_data))
    params = load_params(ROOT / "params/paper.yaml")
    assert params.sampler == "reference_lcg"
    from helpers.core.tasks import get_task, load_problems

    drawn = load_problems("gsm8k", shared_data, 128, params.seed, sampler=params.sampler)
    every = get_task("gsm8k").load(shared_data, {})
    assert [p.problem_id for p in drawn] == [every[i].problem_id for i in reference_lcg_indices(128, len(every))]


# ---- grading: an echoed question is not an answer (8) -------------------------------------------------
@pytest.mark.parametrize("answer, number", [
    ("119", "119"), ("$1,000", "1000"), ("\\$18.00", "18.00"), ("18 dollars", "18"), ("\\boxed{42}", "42"),
    ("-3.5", "-3.5"), ("3/4", "3/4"), ("\\frac{3}{4}", "\\frac{3}{4}"), ("50%", "50"), ("42.", "42"), ("144,", "144"),
    ("60 + 59", None), ("(18 + 31) * 2 - 37", None), ("x = 5", None), ("five", None), ("2*3", None), (None, None),
])
def test_as_number(answer, number):
    assert as_number(answer) == number


def test_echoed_expressions_are_wrong_for_numeric_targets():
    assert not is_correct("119", "60 + 59", "number")
    assert not is_correct("61", "(18 + 31) * 2 - 37", "number")
    assert is_correct("119", "119", "number") and is_correct("18", "$18.00", "number")
    assert is_correct("3/4", "0.75", "number")
    # the reference's grader (math-verify evaluates the expression), as an option
    assert is_correct("119", "60 + 59", "number", numeric_rule="expression")
    # MATH-500 keeps symbolic equivalence
    assert is_correct("\\frac{\\sqrt{2}}{2}", "\\sqrt{2}/2", "math") and is_correct("119", "60 + 59", "math")
    # vote keys follow grading: the expression is its own answer, "119" and "119.0" are one
    assert canonical_answer("60 + 59", "number") != canonical_answer("119",
                                                                     "number") == canonical_answer("119.0", "number")
    assert canonical_answer("60 + 59", "number", numeric_rule="expression") == canonical_answer("119", "number")


# ---- the reference's definitions (9a-c) ---------------------------------------------------------------
def one_problem(values: dict[str, float]) -> pd.DataFrame:
    return pd.DataFrame([values], index=pd.MultiIndex.from_tuples([("t", "p")], names=["task", "problem_id"]))


def test_family_counterfactual_denominators_by_hand():
    cop = one_problem({"a": 2.0, "b": 4.0})
    expert = pd.Series([10.0], index=cop.index)
    families = pd.Series({"a": "X", "b": "Y"})
    # V(M_T) = 2; without X: 4, so X's gain is 2; without Y: 2, so Y's gain is 0
    ref = cp.family_counterfactual(cop, families, expert).loc["t"]
    assert ref["X"] == pytest.approx(2 / 4) and ref["Y"] == 0  # the reference: / V(M_T \ M_g)
    printed = cp.family_counterfactual(cop, families, expert, denominator="all").loc["t"]
    assert printed["X"] == pytest.approx(2 / 2)  # Eq. 12 as printed: / V(M_T)


def test_expert_costs_are_table_3_as_printed_by_default():
    idx = pd.MultiIndex.from_tuples([(t, "p") for t in ("two_digit_addition", "gsm8k", "bbq", "gpqa_diamond",
                                                         "math500", "aime24")], names=["task", "problem_id"])
    assert expert_per_problem(idx).tolist() == [0.02, 3.50, 0.10, 58, 12, 20]
    derived = expert_per_problem(idx, rule="derived").tolist()
    assert derived == pytest.approx([20 * 0.04 / 60, 55 * 3.7 / 60, 15 * 0.4 / 60, 100 * 35 / 60, 60 * 12 / 60,
                                     100 * 12 / 60])
    # a task the paper does not have falls back to the derivation
    costs = load_expert_costs()
    assert costs["two_digit_multiplication"].usd("high") == costs["two_digit_multiplication"].derived_usd("high")


def test_same_day_releases_step_one_model_at_a_time():
    cop = pd.DataFrame({"small": [4.0, 8.0], "big": [2.0, 20.0], "late": [1.0, 1.0]},
                       index=pd.MultiIndex.from_tuples([("t", "p1"), ("t", "p2")], names=["task", "problem_id"]))
    expert = pd.Series(10.0, index=cop.index)
    releases = pd.Series({"small": "2024-07-23", "big": "2024-07-23", "late": "2024-09-01"})
    steps = cp.release_steps(releases)
    assert [names for _, names in steps] == [["small"], ["big"], ["late"]]  # stable: the set's order on a tie
    trend = cp.frontier_over_time(cop, releases, expert)
    assert trend.released.tolist() == ["(expert only)", "small", "big", "late"]
    # expert 10; +small: mean(4, 8) = 6; +big: mean(2, 8) = 5; +late: 1
    assert trend.frontier_usd.tolist() == pytest.approx([10, 6, 5, 1])
    assert trend.relative_gain.tolist() == pytest.approx([0, 0.4, 1 / 6, 0.8])
    together = cp.frontier_over_time(cop, releases, expert, one_model=False)
    assert together.frontier_usd.tolist() == pytest.approx([10, 5, 1])


# ---- analysis reads exactly the set's sample (1, 2) -----------------------------------------------------
def analyse(params):
    ctx = preflight(params)
    run_collection(ctx, progress=False)
    attempts = run_grading(ctx)
    an = load_analysis(ctx)
    return attempts, tables.table1_frontier(an)


def test_foreign_records_in_the_output_directory_are_ignored(write_set, tmp_path):
    shared = tmp_path / "shared-out"
    analyse(sim_set(write_set, "big", shared))
    small = sim_set(write_set, "small", shared, n_problems=5, n_runs=3, seed=0)
    attempts, table1 = analyse(small)
    assert len(attempts) == 5 * 2 * 3 and attempts.attrs["ignored_records"] == 12 * 2 * 4 - 5 * 2 * 3
    _, alone = analyse(sim_set(write_set, "small", tmp_path / "alone-out", n_problems=5, n_runs=3))
    pd.testing.assert_frame_equal(table1, alone)
    # a set of one model, priced by a snapshot without the other: the other's records are neither read nor priced
    one = {"date": "2025-04-17", "source": "test", "prices": {"sim-lightweight": {"input_usd_per_mtok": 0.18,
                                                                                 "output_usd_per_mtok": 0.18}}}
    p = {"name": "one", "tasks": ["two_digit_addition"], "models": ["sim-lightweight"], "methods": ["vanilla"],
         "n_problems": 5, "n_runs": 2, "budget_usd": 5.0, "output_dir": str(shared),
         "task_options": {"two_digit_addition": {"source": "generated"}}}
    attempts, _ = analyse(load_params(write_set(p, prices=one)))
    assert len(attempts) == 5 * 2 and set(attempts.model) == {"sim-lightweight"}


def test_records_of_other_settings_are_not_reused(write_set, tmp_path):
    out = tmp_path / "out"
    warm = sim_set(write_set, "warm", out, n_problems=4, n_runs=2)
    analyse(warm)
    cold = sim_set(write_set, "warm", out, n_problems=4, n_runs=2, sampling={"temperature": 0.0, "max_tokens": 3})
    ctx = prepare(cold)
    assert estimate(ctx).calls.sum() == 4 * 2 * 2  # the dry run counts them first
    made = run_collection(preflight(cold), progress=False)
    assert made.made_calls == 4 * 2 * 2
    records = RecordStore(cold.records_path).load()
    assert len(records) == 2 * 4 * 2 * 2 and records.fingerprint.nunique() == 4 * 2 * 2  # old records stay
    assert sorted({tuple(sorted(json.loads(s).items())) for s in records.sampling}) == sorted(
        {(("max_tokens", 3), ("temperature", 0.0), ("top_p", 1.0)), (("temperature", 0.7), ("top_p", 1.0))})
    # back to the first settings: everything is reused
    assert run_collection(preflight(warm), progress=False).made_calls == 0
    assert np.isfinite(analyse(warm)[1].select_dtypes("number").to_numpy()).all()
