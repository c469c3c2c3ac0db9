"""Stage keys: unchanged inputs keep a stage's key; new records, other parameters or new grading change it."""

from helpers.cli.skipping import StageKeys
from helpers.collect.collection import run_collection
from helpers.collect.preflight import preflight
from helpers.core.context import prepare
from helpers.core.params import load_params
from helpers.grade.stage import run_grading


def tiny(write_set, out, **over):
    p = {"name": "skips", "tasks": ["two_digit_addition"], "models": ["sim-lightweight"], "methods": ["vanilla"],
         "n_problems": 4, "n_runs": 2, "seed": 0, "price_snapshot": "sim_tiny_2025-04", "budget_usd": 5.0,
         "concurrency": 1, "output_dir": str(out), "task_options": {"two_digit_addition": {"source": "generated"}}}
    p.update(over)
    return load_params(write_set(p))


def collected_and_graded(write_set, out, stages: tuple[str, ...]):
    """The tiny set collected and graded into ``out``, with ``stages`` recorded as done: (params, context)."""
    params = tiny(write_set, out)
    ctx = preflight(params)
    run_collection(ctx, progress=False)
    run_grading(ctx)
    keys = StageKeys(ctx)
    for stage in stages:
        keys.record(stage)
    return params, ctx


def test_keys_follow_the_inputs(write_set, tmp_path):
    params, _ = collected_and_graded(write_set, tmp_path / "out", ("01_collect", "02_grade", "03_frontier", "report"))
    again = StageKeys(prepare(params))
    assert all(again.unchanged(s) for s in ("01_collect", "02_grade", "03_frontier", "report"))
    # one more run per problem: new records, so collection and grading are stale; 03 is stale once grading reran
    more = tiny(write_set, tmp_path / "out", n_runs=3)
    ctx3 = preflight(more)
    run_collection(ctx3, progress=False)
    assert not StageKeys(prepare(params)).unchanged("02_grade")
    run_grading(ctx3)
    assert not StageKeys(prepare(params)).unchanged("03_frontier")
    # other parameters: every stage is stale
    other = StageKeys(prepare(tiny(write_set, tmp_path / "out", expert_bound="low")))
    assert not any(other.unchanged(s) for s in ("01_collect", "02_grade", "03_frontier", "report"))


def test_the_report_is_rendered_again_when_an_analysis_published_something_new(write_set, tmp_path):
    """A stage that ran again (its notebook changed) wrote a new table or lead while the graded files stayed the same:
    the report, which reads them, was skipped and stayed stale. Its key now reads what the analyses published."""
    params, ctx = collected_and_graded(write_set, tmp_path / "out", ("03_frontier", "report"))
    params.tables_path.mkdir(parents=True, exist_ok=True)
    (params.tables_path / "release_policy.lead.md").write_text("A new reading.\n")
    keys = StageKeys(prepare(params))
    assert keys.unchanged("03_frontier") and not keys.unchanged("report")
    keys.record("report")
    (params.tables_path / "release_policy.lead.md").write_text("Another reading.\n")
    assert not StageKeys(prepare(params)).unchanged("report")


def test_a_changed_or_lost_graded_file_is_graded_again(write_set, tmp_path):
    params, ctx = collected_and_graded(write_set, tmp_path / "out", ("02_grade", "03_frontier"))
    attempts = params.graded_path / "attempts.parquet"
    attempts.write_bytes(attempts.read_bytes() + b"tampered")  # the manifest still says what it was
    assert not StageKeys(prepare(params)).unchanged("02_grade")
    assert not StageKeys(prepare(params)).unchanged("03_frontier")
    run_grading(ctx)  # what a plain rerun does: the stage runs again and rebuilds it
    StageKeys(ctx).record("02_grade")
    (params.graded_path / "manifest.json").unlink()
    assert not StageKeys(prepare(params)).unchanged("02_grade")
    run_grading(ctx)
    assert (params.graded_path / "manifest.json").is_file()


def test_a_price_file_for_other_models_changes_no_stage_of_this_set(write_set, tmp_path, monkeypatch):
    """Issue 38 item 7: a set's keys depend on the price files it uses (its snapshot, and ledger files that price one
    of its models), not on every file of params/prices."""
    import yaml

    from helpers.cli import skipping
    from helpers.core import ledger

    folder = tmp_path / "ledger"
    folder.mkdir()
    monkeypatch.setattr(ledger, "default_folder", lambda: folder)
    params = tiny(write_set, tmp_path / "out")
    ctx = prepare(params)
    before = skipping.set_digest(ctx)
    snap = {"name": "other", "date": "2025-01-01", "source": "test", "prices": {
        "someone-else": {"input_usd_per_mtok": 1.0, "output_usd_per_mtok": 2.0}}}
    (folder / "other.yaml").write_text(yaml.safe_dump(snap))
    assert skipping.set_digest(ctx) == before
    snap["prices"]["sim-lightweight"] = {"input_usd_per_mtok": 1.0, "output_usd_per_mtok": 2.0}
    (folder / "mine.yaml").write_text(yaml.safe_dump({**snap, "name": "mine"}))
    assert skipping.set_digest(ctx) != before


def test_each_stage_is_keyed_on_the_code_it_runs(tmp_path):
    """Editing a caption, a figure or the report's code re-runs no collection or grading; editing collection re-runs
    every stage; the library's surface (api.py) re-runs none. On a copy of the checkout's code."""
    import shutil

    from helpers.cli.skipping import code_digest, stage_code
    from helpers.core.paths import repo_root

    root = repo_root()
    for part in ("src/helpers", "notebooks", "report/text", "params/registry"):
        shutil.copytree(root / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(root / "report/index.ipynb", tmp_path / "report/index.ipynb")
    stages = ["01_collect", "02_grade", "03_frontier", "07_validity", "report"]
    before = {s: code_digest(s, tmp_path) for s in stages}

    def changed_by(path: str) -> list[str]:
        with (tmp_path / path).open("a") as fh:
            fh.write("\n# edited\n")
        now = {s: code_digest(s, tmp_path) for s in stages}
        moved = [s for s in stages if now[s] != before[s]]
        before.update(now)
        return moved

    assert changed_by("src/helpers/publish/figures/style.py") == ["03_frontier", "07_validity", "report"]
    assert changed_by("report/text/captions.md") == ["03_frontier", "07_validity", "report"]
    assert changed_by("src/helpers/api.py") == []
    assert changed_by("src/helpers/analyze/policy.py") == stages[1:]
    assert changed_by("src/helpers/grade/sandbox_server.py") == stages  # a racing collection grades as it goes
    assert changed_by("src/helpers/collect/calling.py") == stages
    assert not any("publish" in str(p) for p in stage_code("02_grade", tmp_path))
    # the expert registry: a comment changes nothing (issue 62); a rate re-runs every stage
    assert changed_by("params/registry/expert_costs.yaml") == []
    registry = tmp_path / "params/registry/expert_costs.yaml"
    registry.write_text(registry.read_text().replace("hourly_rate_usd: [62.58, 62.58]", "hourly_rate_usd: [90, 90]"))
    assert changed_by("params/registry/imported.yaml") == stages


def test_the_about_box_lists_the_expert_registry(write_set, tmp_path):
    """Issue 62: every set's fee comes from params/registry/expert_costs.yaml; the About box's inputs name it."""
    from helpers.publish.about import input_files

    names = [f.name for f in input_files(tiny(write_set, tmp_path / "out"))]
    assert "expert_costs.yaml" in names and names.index("expert_costs.yaml") == 2  # after the set and its models


def test_a_stage_that_runs_again_leaves_nothing_of_its_last_run(tmp_path):
    """Issue 62: SWE-bench's report kept a suspect-item table a run no longer wrote (imported verdicts): a stage's
    catalogued outputs go before it runs again; another stage's stay."""
    from types import SimpleNamespace

    from helpers.publish.catalog import remove_outputs

    params = SimpleNamespace(tables_path=tmp_path / "tables", figures_path=tmp_path / "figures")
    params.tables_path.mkdir()
    params.figures_path.mkdir()
    mine = [params.tables_path / f"suspect_items{s}" for s in (".csv", ".md", ".caption.md")]
    mine += [params.figures_path / "expert_fee_curve.png", params.tables_path / "expert_fee_curve.csv"]
    other = params.tables_path / "price_change_split.csv"  # 04_trends'
    for path in (*mine, other):
        path.write_text("x")
    assert remove_outputs(params, "03_frontier") == len(mine)
    assert not any(p.exists() for p in mine) and other.exists()
