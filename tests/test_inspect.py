"""Inspect logs made here (``inspect_runs``: a small Inspect task run with ``inspect_ai.eval`` against a stub on
127.0.0.1), imported with ``cost-of-pass import inspect``: Tables 5, 6 and 1 equal a computation made in this file from
the raw logs (the zip's and the JSON's own bytes, not Inspect's reader), to 1e-9; every hostile or broken log is one
line naming the file and the sample, and nothing is written; the verdict rules and the billed prices by hand."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import ROOT

pytest.importorskip("inspect_ai")

PRICES = {"model-a": (1.25, 0.125, 10.0), "model-b": (0.4, 0.1, 1.6)}  # input, cached input, output (USD per 1M)
EXPERT_USD = 0.5


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> list[Path]:
    """Two logs (24 samples x 4 epochs each): model-a as .eval, with Inspect's own total_cost; model-b as .json."""
    from inspect_runs import make_logs

    folder = tmp_path_factory.mktemp("inspect") / "logs"
    return make_logs(folder, costs={"model-a": PRICES["model-a"]})


@pytest.fixture(scope="module")
def small_logs(tmp_path_factory) -> list[Path]:
    """One small log of each kind (3 samples x 1 epoch), to break."""
    from inspect_runs import make_logs

    return make_logs(tmp_path_factory.mktemp("small") / "logs", n=3, epochs=1)


def raw_samples(path: Path) -> list[dict]:
    """A log's samples as plain JSON, read without Inspect: the .eval zip's ``samples/*.json`` members, or the .json
    log's ``samples``."""
    if path.suffix == ".eval":
        with zipfile.ZipFile(path) as zf:
            return [json.loads(zf.read(n)) for n in zf.namelist() if n.startswith("samples/")]
    return json.loads(path.read_text())["samples"]


def by_hand(paths: list[Path]) -> pd.DataFrame:
    """Per model, problem and run from the raw logs: correct (score "C"), the USD of the attempt priced per bucket,
    and Inspect's total_cost."""
    rows = []
    for path in paths:
        for s in raw_samples(path):
            [(model, usage)] = s["model_usage"].items()
            name = model.rsplit("/", 1)[-1]
            p_in, p_cached, p_out = PRICES[name]
            usd = (usage["input_tokens"] * p_in + (usage["input_tokens_cache_read"] or 0) * p_cached
                   + usage["output_tokens"] * p_out) / 1e6
            rows.append({"model": name, "problem": s["id"], "run": s["epoch"], "usd": usd,
                         "correct": s["scores"]["match"]["value"] == "C", "total_cost": usage.get("total_cost"),
                         "cached": usage["input_tokens_cache_read"] or 0,
                         "reasoning": usage["reasoning_tokens"] or 0})
    return pd.DataFrame(rows)


def write_prices(path: Path) -> Path:
    path.write_text(yaml.safe_dump({"date": "2026-11-01", "source": "the test's prices", "prices": {
        m: {"input_usd_per_mtok": i, "cached_input_usd_per_mtok": c, "output_usd_per_mtok": o}
        for m, (i, c, o) in PRICES.items()}}))
    return path


def cli(args: list[str], capsys) -> tuple[int, str, str]:
    from helpers.cli.runner import main

    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.slow  # runs Inspect twice (24 x 4 samples each) and every stage of the set
def test_two_inspect_logs_import_with_one_command_and_tables_5_6_1_equal_a_computation_from_the_logs(
        logs, tmp_path, capsys):
    raw = by_hand(logs)
    assert len(raw) == 2 * 24 * 4 and (raw["cached"] > 0).any() and (raw["reasoning"] > 0).any()
    assert 0 < raw["correct"].mean() < 1
    folder = logs[0].parent
    code, out, err = cli(["import", "inspect", str(folder), "--name", "inspect-check", "--expert-usd",
                          str(EXPERT_USD), "--prices", str(write_prices(tmp_path / "prices.yaml")), "--params-dir",
                          str(tmp_path / "params"), "--output-dir", str(tmp_path / "results"), "--write-anywhere"],
                         capsys)
    assert code == 0, err[-3000:]
    assert "wrote" in out and (tmp_path / "params/inspect-check.yaml").is_file()
    tables = tmp_path / "results/tables"
    cells = raw.groupby(["model", "problem"]).agg(R=("correct", "mean"), C=("usd", "mean"))
    accuracy = cells["R"].groupby("model").mean() * 100
    cost = cells["C"].groupby("model").mean()
    alone = np.minimum(np.where(cells["R"] > 0, cells["C"] / cells["R"].where(cells["R"] > 0, 1), np.inf),
                       EXPERT_USD)
    table1 = pd.Series(alone, index=cells.index).groupby("model").mean()
    for name, expected in (("table5_accuracy", accuracy), ("table6_cost", cost), ("table1_frontier_cop", table1)):
        got = pd.read_csv(tables / f"{name}.csv").set_index("model")["inspect"]
        assert got.index.tolist() == ["model-a", "model-b"], name
        np.testing.assert_allclose(got.loc[expected.index].to_numpy(), expected.to_numpy(), rtol=0, atol=1e-9,
                                   err_msg=name)
        print(f"{name}: largest |table - by hand| = {np.max(np.abs(got.loc[expected.index] - expected)):.3g}")
    # Inspect's own cost of model-a's samples (it prices no tier the snapshot lacks): the same as computed here
    a = raw[raw["model"] == "model-a"]
    np.testing.assert_allclose(a["total_cost"].astype(float), a["usd"], rtol=1e-12)
    html = (tmp_path / "results/report/index.html").read_text()
    assert "IMPORTED" in html and "computed / billed = 1.000000" in html
    records = pd.concat(pd.read_json(p, lines=True) for p in (tmp_path / "results/records").rglob("*.jsonl"))
    assert records["cache_read_tokens"].sum() == raw["cached"].sum()
    assert (records["schema_version"] == 6).all() and records["source_usd"].notna().sum() == 96


def test_the_verdict_rules_by_score_type():
    from helpers.core.errors import CostOfPassError
    from helpers.core.inspect_logs import failure_of, verdict

    def scores(value):
        return {"s": SimpleNamespace(value=value)}
    path = Path("log.eval")
    assert [verdict(path, "x", scores(v), None, 1.0) for v in ("C", "I", "P", "N", True, False, 1, 0, 0.5, "yes")] \
        == [True, False, False, False, True, False, True, False, False, True]
    assert verdict(path, "x", scores("P"), None, 0.5) and verdict(path, "x", scores(0.75), None, 0.7)
    with pytest.raises(CostOfPassError, match="log.eval: sample 3: score .* is not one"):
        verdict(path, "sample 3", scores({"a": 1}), None, 1.0)
    with pytest.raises(CostOfPassError, match="several scorers"):
        verdict(path, "x", {"a": scores("C")["s"], "b": scores("I")["s"]}, None, 1.0)
    assert verdict(path, "x", {"a": scores("C")["s"], "b": scores("I")["s"]}, "b", 1.0) is False
    errored = SimpleNamespace(error=SimpleNamespace(message="boom\ntraceback"), limit=None)
    limited = SimpleNamespace(error=None, limit=SimpleNamespace(type="token"))
    assert failure_of(errored) == "could not finish: error: boom"
    assert failure_of(limited) == "could not finish: token limit"
    assert failure_of(SimpleNamespace(error=None, limit=None)) is None


def edit_json_log(src: Path, dst: Path, change) -> Path:
    data = json.loads(src.read_text())
    change(data["samples"][1])
    dst.write_text(json.dumps(data))
    return dst


def bomb(path: Path) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("header.json", "{}")
        zf.writestr("samples/a_epoch_1.json", b"\0" * (2 << 20))  # 2 MiB of zeros: a few KiB packed
    return path


def usage_of(sample: dict) -> dict:
    return next(iter(sample["model_usage"].values()))


BROKEN = {
    "a zip bomb": (lambda eval_, json_, d: bomb(d / "bomb.eval"), "more than 1,048,576 (refused: a zip bomb?)"),
    "a truncated .eval": (lambda e, j, d: (d / "cut.eval").write_bytes(e.read_bytes()[: e.stat().st_size // 2])
                          and d / "cut.eval", "not a whole .eval log (truncated"),
    "a log of another format": (lambda e, j, d: (d / "other.json").write_text('{"results": [1, 2]}') and
                                d / "other.json", "not a readable Inspect log"),
    "a sample without usage": (lambda e, j, d: edit_json_log(j, d / "nousage.json", lambda s: s.update(
        model_usage={})), "sample q01 epoch 1: no token usage"),
    "mixed models": (lambda e, j, d: edit_json_log(j, d / "mixed.json", lambda s: s["model_usage"].update(
        {"other/model-z": usage_of(s)})), "sample q01 epoch 1: mixed models: usage of other/model-z"),
    "negative tokens": (lambda e, j, d: edit_json_log(j, d / "negative.json", lambda s: usage_of(s).update(
        input_tokens=-5)), "sample q01 epoch 1: input_tokens is -5: not a token count"),
    "absurd tokens": (lambda e, j, d: edit_json_log(j, d / "absurd.json", lambda s: usage_of(s).update(
        output_tokens=10**13)), "sample q01 epoch 1: output_tokens is 10000000000000: not a token count"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_hostile_or_broken_log_is_one_line_naming_it_and_nothing_is_written(case, small_logs, tmp_path, capsys,
                                                                            monkeypatch):
    from helpers.core import inspect_logs

    monkeypatch.setattr(inspect_logs, "MAX_UNPACKED_BYTES", 1 << 20)
    make, says = BROKEN[case]
    folder = tmp_path / "logs"
    folder.mkdir()
    for log in small_logs:  # the good logs beside the bad one: none of them is imported
        shutil.copy(log, folder)
    bad = make(*small_logs, folder)
    code, out, err = cli(["import", "inspect", str(folder), "--name", "broken", "--expert-usd", "1", "--prices",
                          str(write_prices(tmp_path / "prices.yaml")), "--params-dir", str(tmp_path / "params"),
                          "--output-dir", str(tmp_path / "results"), "--write-anywhere"], capsys)
    assert code != 0 and len(err.strip().splitlines()) == 1, err
    assert str(bad) in err and says in err, err
    assert not (tmp_path / "params").exists() and not (tmp_path / "results").exists()


def test_too_many_members_is_refused_before_any_is_read(tmp_path, monkeypatch):
    from helpers.core import inspect_logs
    from helpers.core.errors import CostOfPassError

    monkeypatch.setattr(inspect_logs, "MAX_MEMBERS", 3)
    with zipfile.ZipFile(tmp_path / "many.eval", "w") as zf:
        for i in range(4):
            zf.writestr(f"samples/{i}_epoch_1.json", "{}")
    with pytest.raises(CostOfPassError, match=r"many.eval: -: 4 members, more than 3"):
        inspect_logs.check_container(tmp_path / "many.eval")


def test_a_log_is_refused_by_the_estimate_of_its_parse_summed_over_an_eval_members(small_logs, monkeypatch):
    """A ``.json`` log is estimated whole, an ``.eval`` by the sum of its JSON members' estimates (Inspect parses them
    one at a time but keeps every sample): at the estimate the log passes, a byte below it the log is refused in one
    line naming the file, the estimate and the budget."""
    from helpers.core import inspect_logs
    from helpers.core.errors import CostOfPassError
    from helpers.core.runlogs import common

    for log in small_logs:
        if log.suffix == ".json":
            peak = common.parse_peak([log.read_bytes()])
        else:
            with zipfile.ZipFile(log) as zf:
                members = [m for m in zf.infolist() if m.filename.endswith(".json")]
                assert len(members) > 3  # the header, the summaries and a member per sample
                peak = sum(common.parse_peak([zf.read(m)]) for m in members)
        monkeypatch.setattr(common, "PARSE_BUDGET_BYTES", peak)
        inspect_logs.check_container(log)  # raises nothing
        monkeypatch.setattr(common, "PARSE_BUDGET_BYTES", peak - 1)
        with pytest.raises(CostOfPassError, match=rf"{log.name}: -: .*estimated at {peak:,} bytes of memory .*more "
                           rf"than the budget of {peak - 1:,}"):
            inspect_logs.check_container(log)
    assert {log.suffix for log in small_logs} == {".eval", ".json"}


def test_without_inspect_ai_reading_a_log_says_how_to_install_it(tmp_path, monkeypatch):
    import sys

    from helpers.core.errors import CostOfPassError
    from helpers.core.inspect_logs import read_log

    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)
    with pytest.raises(CostOfPassError, match=r"needs inspect-ai: pip install 'cost-of-pass\[inspect\]'"):
        read_log(tmp_path / "x.eval")


def test_a_set_file_can_name_inspect_logs_directly(small_logs, write_set, tmp_path):
    from helpers.core.context import prepare
    from helpers.core.params import load_params

    registry = tmp_path / "models.yaml"
    registry.write_text(yaml.safe_dump({"models": {m: {
        "label": m, "litellm_id": f"stubopenai/{m}", "family": "stub", "release_date": "2026-01-01",
        "imported": {"name": f"stubopenai/{m}"}} for m in PRICES}}))
    params = load_params(write_set({
        "name": "direct", "tasks": ["inspect"], "models": list(PRICES), "models_file": str(registry),
        "n_problems": 3, "n_runs": 1, "price_snapshot": str(write_prices(tmp_path / "prices.yaml")),
        "budget_usd": 1, "expert_usd": {"inspect": 3.0},
        "import_from": {"format": "inspect", "path": str(small_logs[0].parent)}}))
    ctx = prepare(params)
    assert [p.problem_id for p in sorted(ctx.problems["inspect"], key=lambda p: p.problem_id)] == ["q00", "q01", "q02"]
    assert params.task_options["inspect"]["path"] == str(small_logs[0].parent)


def test_prices_as_billed_per_bucket_batch_and_long_context_by_hand():
    from helpers.core.prices import PriceSnapshot, cost_usd

    snapshot = PriceSnapshot.model_validate({"name": "t", "date": "2026-01-01", "source": "hand", "prices": {
        "m": {"input_usd_per_mtok": 2.0, "cached_input_usd_per_mtok": 0.5, "cache_write_usd_per_mtok": 2.5,
              "output_usd_per_mtok": 8.0, "batch_discount": 0.5,
              "long_context": {"above_prompt_tokens": 1000, "input_usd_per_mtok": 4.0, "output_usd_per_mtok": 12.0}},
        "flat": {"input_usd_per_mtok": 1.0, "output_usd_per_mtok": 2.0}}})
    frame = pd.DataFrame({"model": ["m", "m", "m", "flat"], "prompt_tokens": [100, 100, 900, 100],
                          "cache_read_tokens": [400, 400, 200, 400], "cache_write_tokens": [50, 50, 0, 0],
                          "completion_tokens": [30, 30, 10, 30],
                          "service_tier": [None, "batch", None, None]})
    standard = (100 * 2.0 + 400 * 0.5 + 50 * 2.5 + 30 * 8.0) / 1e6
    long = (900 * 4.0 + 200 * 0.5 + 10 * 12.0) / 1e6  # 1,100 prompt tokens in all: above the tier
    flat = (100 * 1.0 + 400 * 1.0 + 30 * 2.0) / 1e6  # no cached price: cache reads at the input price
    assert cost_usd(frame, snapshot).tolist() == pytest.approx([standard, standard / 2, long, flat], rel=1e-15)
    assert cost_usd(frame.drop(columns=["cache_read_tokens", "cache_write_tokens", "service_tier"]),
                    snapshot).iloc[3] == pytest.approx((100 + 60) / 1e6, rel=1e-15)


def test_a_v5_record_loads_with_empty_buckets():
    from helpers.collect.schema import CallRecord

    v5 = {"task": "gsm8k", "problem_id": "p", "model": "m", "method": "vanilla", "run": 0, "call": 0,
          "litellm_model": "x/y", "prompt_hash": "", "status": "ok", "prompt_tokens": 7, "schema_version": 5}
    record = CallRecord.from_dict(v5)
    assert (record.schema_version, record.cache_read_tokens, record.cache_write_tokens, record.service_tier,
            record.source_usd, record.prompt_tokens) == (6, 0, 0, None, None, 7)


def test_the_inspect_extra_is_pinned_and_installed_by_make_setup():
    text = (ROOT / "pyproject.toml").read_text()
    assert 'inspect = ["inspect-ai==0.3.285"]' in text and '".[dev,inspect]"' in (ROOT / "Makefile").read_text()
    lock = (ROOT / "requirements.lock").read_text().splitlines()
    assert "inspect_ai==0.3.285" in lock and "litellm==1.106.2" in lock
