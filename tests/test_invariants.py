"""Invariants over every table of every set the suite builds (issue 24): each interval and range holds its point;
a model that never passed a problem of a dataset is never shown below the expert's cost without saying so; the
plug-in numbers are the paper's formulas, recomputed here independently from the graded attempts."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import ROOT
from helpers.core.params import load_params

pytestmark = pytest.mark.slow  # runs whole sets through the pipeline

SETS = {
    # the local set's committed REAL records, read in place
    "local": {"base": "params/local.yaml", "records_dir": str(ROOT / "results/local/records")},
    # a small SIMULATED set of the paper's models, every method: the session's (conftest.small_sim_set)
    "simcheck": None,
}


@pytest.fixture(scope="module", params=list(SETS))
def built(request, tmp_path_factory):
    if SETS[request.param] is None:
        return request.getfixturevalue("small_sim_set")
    tmp = tmp_path_factory.mktemp(request.param)
    spec = dict(SETS[request.param])
    if "base" in spec:
        params = {**yaml.safe_load((ROOT / spec.pop("base")).read_text()), **spec}
    else:
        params = {**spec, "models": list(yaml.safe_load((ROOT / spec["models_file"]).read_text())["models"])}
    params["output_dir"] = str(tmp / "results")
    path = tmp / f"{request.param}.yaml"
    path.write_text(yaml.safe_dump(params))
    out = subprocess.run([sys.executable, "-m", "helpers.cli.runner", "run", str(path), "--no-report"], cwd=ROOT,
                         capture_output=True, text=True, timeout=1200)
    assert out.returncode == 0, out.stderr[-3000:]
    return load_params(path)


def test_no_level_is_negative(built):
    """No cost, price, fee or accuracy in any table below 0 (issue 38: a bias-corrected cost of -0.0339 USD)."""
    from helpers.publish.levels import negative_levels

    assert negative_levels(built.tables_path) == []


def test_every_interval_and_range_holds_its_point(built):
    frame = pd.read_parquet(built.output_path / "intervals" / "statistics.parquet")
    assert len(frame) > 0
    assert (frame["low"] <= frame["value"]).all() and (frame["value"] <= frame["high"]).all()
    plug = frame[frame["estimator"] == "plug-in"]
    for lo, hi in (("range_ci_low", "range_low"), ("range_low", "value"), ("value", "range_high"),
                   ("range_high", "range_ci_high")):
        assert (plug[lo] <= plug[hi]).all(), (lo, hi, plug[plug[lo] > plug[hi]].head())
    assert (plug["range_ci_low"] <= plug["low"]).all() and (plug["high"] <= plug["range_ci_high"]).all()
    df = pd.read_csv(built.tables_path / "table5_6_intervals.csv")  # the published tables too
    assert ((df["low"] <= df["value"]) & (df["value"] <= df["high"])).all()
    for name in ("table1_intervals", "table2_intervals"):  # the paper's values: the range, and no interval (issue 61)
        df = pd.read_csv(built.tables_path / f"{name}.csv")
        paper = df[df["estimator"] != "policy"]  # Table 2's headline rows (cross-fitted gains) carry its interval
        assert "low" not in paper or paper["low"].isna().all(), name
        assert ((paper["range_low"] <= paper["value"]) & (paper["value"] <= paper["range_high"])).all(), name
        headline = df[(df["estimator"] == "policy") & df["value"].notna()]
        if len(headline):
            assert ((headline["low"] <= headline["value"]) & (headline["value"] <= headline["high"])
                    & (headline["high"] <= 100)).all(), name
    policy = pd.read_csv(built.tables_path / "policy_cost.csv")
    assert ((policy["policy_low"] <= policy["policy_usd"]) & (policy["policy_usd"] <= policy["policy_high"])).all()
    routed = pd.read_csv(built.tables_path / "routing_frontier.csv")  # the oracle-routing envelope and its points
    env, pts = routed[(routed["kind"] == "envelope") & routed["value"].notna()], routed[routed["kind"] == "point"]
    assert len(env) and ((env["low"] <= env["value"]) & (env["value"] <= env["high"])).all()
    for lo, v, hi in (("acc_low", "accuracy", "acc_high"), ("usd_low", "usd", "usd_high")):
        assert ((pts[lo] <= pts[v]) & (pts[v] <= pts[hi])).all(), v


def markdown_rows(path) -> list[list[str]]:
    """The cells of a Markdown table, header first (separator line dropped)."""
    lines = [ln for ln in path.read_text().splitlines() if ln.startswith("|")]
    return [[c.strip() for c in ln.strip("|").split("|")] for i, ln in enumerate(lines) if i != 1]


def test_a_never_passed_model_is_never_shown_cheap_without_saying_so(built):
    from helpers.analyze.estimates import load_analysis
    from helpers.core.context import prepare
    from helpers.publish.formats import NEVER_PASSED

    an = load_analysis(prepare(built))
    numbers = pd.read_csv(built.tables_path / "table1_intervals.csv")
    header, *rows = markdown_rows(built.tables_path / "table1_intervals.md")
    findings = pd.read_csv(built.tables_path / "findings.csv")
    vanilla = an.attempts[an.attempts["complete"] & (an.attempts["method"] == "vanilla")]
    seen = 0
    for (task, model), k in vanilla.groupby(["task", "model"])["correct"].sum().items():
        plug = numbers[(numbers["task"] == task) & (numbers["model"] == model) & (numbers["estimator"] == "plug-in")]
        if k > 0:
            assert plug["unseen_pct"].iloc[0] < 100
            continue
        seen += 1
        assert plug["unseen_pct"].iloc[0] == 100 and np.isclose(plug["value"].iloc[0], an.expert.loc[task].mean())
        col = header.index(an.task_labels[task])
        for row in rows:  # every other row of this model below the expert's cost says so
            if row[0] == an.labels[model] and row[1] != "plug-in (paper)":
                assert NEVER_PASSED in row[col], row
        cheapest = findings.loc[findings["dataset"] == an.task_labels[task], "cheapest single model (USD)"].iloc[0]
        assert not cheapest.startswith(an.labels[model])
        assert an.labels[model] in cheapest.split("never passed here:")[-1] or cheapest.startswith("none")
    if built.name == "local":
        assert seen >= 4  # the local set's small models passed nothing on the harder datasets


def test_plug_in_numbers_are_the_papers_formulas(built):
    from helpers.analyze.estimates import load_analysis
    from helpers.core.context import prepare

    an = load_analysis(prepare(built))
    attempts = an.attempts[an.attempts["complete"] & (an.attempts["method"] == "vanilla")]
    cell = attempts.groupby(["task", "problem_id", "model"]).agg(R=("correct", "mean"), C=("usd", "mean"))
    v = np.where(cell["R"] > 0, cell["C"] / cell["R"].where(cell["R"] > 0, 1), np.inf)
    cop = pd.Series(v, index=cell.index).unstack("model")  # Eq. 3, per problem
    expert = an.expert.reindex(cop.index)
    frame = pd.read_parquet(built.output_path / "intervals" / "statistics.parquet")
    plug = frame[frame["estimator"] == "plug-in"].set_index(["statistic", "task"])["value"]
    models = [m for m in an.models if m in cop.columns]
    for task in cop.index.get_level_values("task").unique():
        here = cop.loc[task]
        e = expert.loc[task].to_numpy()
        for m in models:  # Eq. 4-6, 9: per problem the min with the expert, then the mean
            assert np.isclose(plug[(f"table1:{m}", task)], np.minimum(here[m].to_numpy(), e).mean(), rtol=1e-12)
        all_models = np.minimum(here[models].min(axis=1).to_numpy(), e).mean()
        assert np.isclose(plug[("frontier:all models", task)], all_models, rtol=1e-12)
        for m in models:  # Eq. 16
            rest = np.minimum(here[[x for x in models if x != m]].min(axis=1).to_numpy(), e).mean() if len(models) > 1 \
                else e.mean()
            assert np.isclose(plug[(f"essential:{m}", task)], (rest - all_models) / rest, rtol=1e-9, atol=1e-15)


def test_the_policy_cost_is_its_mean_over_every_order_of_k_runs(built):
    """"Up to k tries, then the expert" (policy_cost.csv), recomputed by brute force: per problem, the policy played on
    every ordered choice of k of its recorded runs, averaged; then the mean over the dataset's problems."""
    import itertools

    from helpers.analyze.estimates import load_analysis
    from helpers.core.context import prepare

    an = load_analysis(prepare(built))
    table = pd.read_csv(built.tables_path / "policy_cost.csv")
    attempts = an.attempts[an.attempts["complete"] & (an.attempts["method"] == "vanilla")]
    runs = attempts.groupby(["task", "problem_id", "model"])
    k = max(1, int(runs.size().min()) // 2)  # half the fewest runs (policy.headline_k)
    frame = pd.read_parquet(built.output_path / "intervals" / "statistics.parquet")
    plug = frame[frame["estimator"] == "plug-in"].set_index(["statistic", "task"])["value"]
    assert (table["policy_low"] <= table["policy_usd"]).all() and (table["policy_usd"] <= table["policy_high"]).all()
    front = table[table["model"] == "frontier of all models"]  # chosen on the other problems, valued on its own runs
    assert len(front) == len(an.tasks) and (front["k"] == k).all()  # as many tries as each model alone
    for row in front.itertuples():
        assert np.isclose(row.policy_usd, row.records_usd + row.expert_usd, rtol=1e-12)
        assert np.isclose(row.paper_usd, plug[("frontier:all models", row.task)], rtol=1e-12)
    table = table[table["model"] != "frontier of all models"]
    assert (table["k"] == k).all()
    labels = {an.labels[m]: m for m in an.models}
    for row in table.itertuples():
        model, per_problem = labels[row.model], []
        for (task, pid, m), cell in runs:
            if task != row.task or m != model:
                continue
            fee = float(an.expert.loc[(task, pid)])
            played = []
            for order in itertools.permutations(range(len(cell)), k):
                spent, passed = 0.0, False
                for i in order:
                    spent += cell["usd"].iloc[i]
                    if cell["correct"].iloc[i]:
                        passed = True
                        break
                played.append(spent + (0.0 if passed else fee))
            per_problem.append(np.mean(played))
        assert np.isclose(row.policy_usd, np.mean(per_problem), rtol=1e-9), row
        assert np.isclose(row.policy_usd, row.records_usd + row.expert_usd, rtol=1e-12)
        assert 0 <= row.expert_share_pct <= 100 and row.unidentified == 0
        # the paper's Table 1 beside it, split into the model's part and the fee's: parts of the paper's own number
        assert np.isclose(row.paper_usd, plug[(f"table1:{model}", row.task)], rtol=1e-12)
        assert np.isclose(row.paper_usd, row.paper_records_usd + row.paper_expert_usd, rtol=1e-12)
