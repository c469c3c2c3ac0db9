"""The racing design's forecast bill (issue 66, item 3): the race it simulates is the collection's, the dry run prints
its range and refuses a budget below it in one line before any call, ``budget: {target_usd}`` sizes the Table-1 share,
and a small simulated race's actual bill lies inside the range."""

from pathlib import Path

import numpy as np
import pytest
import yaml

from helpers.cli import runner
from helpers.collect import forecast as fc
from helpers.collect import racing

KEY_ENV = "FORECAST_TEST_KEY"
DEAD = "http://127.0.0.1:9/v1"  # nothing listens there: a call would fail


@pytest.mark.parametrize("seed", range(6))
def test_race_runs_decides_exactly_as_run_race(seed):
    rng = np.random.default_rng(seed)
    n_options, n_runs, rows = int(rng.integers(2, 7)), int(rng.integers(1, 9)), 300
    names = [f"o{i}" for i in range(n_options)]
    subsets = [set(rng.choice(names, int(rng.integers(1, n_options + 1)), replace=False)) for _ in range(5)]
    race = racing.make_race(dict(zip(names, rng.uniform(0.001, 1, n_options))), [set(names), *subsets])
    cost = rng.uniform(0.001, 1, (rows, n_options)) * race.expected_usd
    passes = rng.binomial(n_runs, rng.uniform(0, 1, (rows, n_options)))
    fee = rng.uniform(0.5, 50, rows)
    expected = racing.run_race(race, cost, passes.astype(float), np.full((rows, n_options), float(n_runs)), fee)
    assert (fc.race_runs(race, cost, passes, n_runs, fee) == expected).all()
    assert expected.any() and not expected.all()  # the case decides both ways


def _stub_set(tmp: Path, **over) -> Path:
    """A racing set of two models behind an address where nothing listens, on generated Two Digit Addition."""
    (tmp / "prices.yaml").write_text(yaml.safe_dump({"date": "2025-01-01", "source": "test prices", "prices": {
        "cheap": {"input_usd_per_mtok": 1.0, "output_usd_per_mtok": 2.0},
        "dear": {"input_usd_per_mtok": 30.0, "output_usd_per_mtok": 60.0}}}))
    models = {name: {"label": name, "litellm_id": f"openai/{name}", "family": "lightweight",
                     "release_date": "2024-01-01", "api_base": DEAD, "api_key_env": KEY_ENV,
                     "typical_completion_tokens": 200} for name in ("cheap", "dear")}
    (tmp / "models.yaml").write_text(yaml.safe_dump({"models": models}))
    params = {"name": "fc", "tasks": ["two_digit_addition"], "models": ["cheap", "dear"], "methods": ["vanilla"],
              "n_problems": 40, "n_runs": 4, "price_snapshot": str(tmp / "prices.yaml"), "budget_usd": 100.0,
              "models_file": str(tmp / "models.yaml"), "output_dir": str(tmp / "out"),
              "task_options": {"two_digit_addition": {"source": "generated"}}, "design": "racing",
              "racing": {"table1_share": 0.1, "protect": ["frontier"]}, **over}
    params = {k: v for k, v in params.items() if v is not None}  # None: the key left out
    path = tmp / "set.yaml"
    path.write_text(yaml.safe_dump(params, sort_keys=False))
    return path


def _usd(text: str, after: str) -> float:
    return float(text.split(after, 1)[1].split()[0].strip("$,;").replace(",", "").split("–")[0])


def test_dry_run_prints_the_forecast_and_refuses_a_budget_below_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "a-secret-value-0123456789")
    assert runner.main(["run", str(_stub_set(tmp_path)), "--dry-run"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("forecast: "))
    assert " expected, 90% range $" in line and "(uniform design: $" in line and "prior (nothing recorded yet)" in line
    low, high = _usd(line, "range "), float(line.split("–$")[1].split()[0].replace(",", ""))
    floor = _usd(out, "at least ")  # the floor is kept, and said to be one
    assert "a floor, not a forecast" in out and 0 < low <= high
    for args in (["--dry-run"], []):  # the run refuses the same, before any call (a call would fail: nothing listens)
        code = runner.main(["run", str(_stub_set(tmp_path, budget_usd=round(low * 0.9, 6))), *args])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1 and err[0].startswith("error: over budget"), err
        assert "forecast" in err[0] or floor > low * 0.9, err
        assert not any((tmp_path / "out").rglob("*.jsonl"))
    inside = (low + high) / 2
    if high > low:  # a budget inside the range: a warning line, and the dry run passes
        assert runner.main(["run", str(_stub_set(tmp_path, budget_usd=inside)), "--dry-run"]) == 0
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("warning: budget_usd") and "inside the forecast" in err[0], err


def _sim_racing(write_set, out, **over):
    from conftest import sim_set

    base = {"design": "racing", "methods": ["vanilla"], "n_problems": 40, "budget_usd": 50.0,
            "racing": {"table1_share": 0.3, "protect": ["frontier", "releases"]}}
    return sim_set(write_set, "fc", out, **{**base, **over})


def test_target_usd_sizes_the_table1_share(write_set, tmp_path):
    from helpers.core.context import prepare
    from helpers.core.errors import CostOfPassError
    from helpers.grade import forecast as gf

    ctx = prepare(_sim_racing(write_set, tmp_path / "a"))
    highs = {s: gf.set_forecast(ctx, s, fresh=True).high for s in (0.05, 0.1, 0.15, 0.2, 0.3)}
    assert highs[0.05] < highs[0.3]  # a larger sample costs more
    target = (highs[0.1] + highs[0.15]) / 2 if highs[0.1] < highs[0.15] else highs[0.1]
    params = _sim_racing(write_set, tmp_path / "b", budget={"target_usd": target})
    sized = gf.sized_share(prepare(params))
    assert sized in gf.SHARES and sized <= 0.3 and highs.get(sized, 0) <= target
    assert all(h > target for s, h in highs.items() if s > sized)
    from helpers.grade.racing import table1_share

    assert table1_share(prepare(params)) == sized  # what the collection and the analysis read
    too_little = _sim_racing(write_set, tmp_path / "c", budget={"target_usd": highs[0.05] / 100})
    with pytest.raises(CostOfPassError, match="below the smallest forecast possible"):
        gf.sized_share(prepare(too_little))


def test_the_forecast_range_holds_the_actual_bill_of_a_small_simulated_race(write_set, tmp_path):
    from helpers.collect.budget import recorded_spend_usd
    from helpers.collect.collection import collect
    from helpers.collect.plan import plan_for
    from helpers.collect.preflight import preflight
    from helpers.grade import forecast as gf
    from helpers.grade.racing import run_design, table1_sample

    params = _sim_racing(write_set, tmp_path / "race", n_problems=60)
    ctx = preflight(params)
    prior = gf.set_forecast(ctx)
    sample = table1_sample(ctx)
    pilot = [a for a in plan_for(params, ctx.problems, ctx.models) if (a.problem.task, a.problem.problem_id) in sample]
    collect(params, ctx.problems, ctx.models, ctx.snapshot, progress=False, attempts=pilot)
    from_pilot = gf.set_forecast(ctx)
    assert from_pilot.source == fc.PILOT and prior.source == fc.PRIOR
    assert from_pilot.spent_usd > 0 and from_pilot.high - from_pilot.low < prior.high - prior.low
    run_design(ctx, progress=False)
    actual = recorded_spend_usd(params, ctx.snapshot)
    assert from_pilot.low <= actual <= from_pilot.high and prior.low <= actual <= prior.high


@pytest.mark.parametrize("budget,expected", [
    ({"target_usd": -5}, "budget.target_usd"),
    ({"target_usd": "lots"}, "budget.target_usd"),
    ({"target_usd": float("inf")}, "budget.target_usd"),
    ({"target": 5}, "budget.target"),
    (5, "budget"),
])
def test_a_bad_budget_is_one_line(budget, expected, tmp_path, capsys):
    code = runner.main(["run", str(_stub_set(tmp_path, budget=budget)), "--dry-run"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("error: ") and expected in err[0], err


def test_budget_usd_defaults_to_the_target(tmp_path):
    from helpers.core.params import load_params

    params = load_params(_stub_set(tmp_path, budget_usd=None, budget={"target_usd": 7}))
    assert params.budget_usd == 7 and params.budget.target_usd == 7


def test_a_target_needs_the_racing_design(tmp_path, capsys):
    code = runner.main(["run", str(_stub_set(tmp_path, design="uniform", budget={"target_usd": 5})), "--dry-run"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "needs design: racing" in err[0], err
