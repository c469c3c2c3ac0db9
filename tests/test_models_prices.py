import datetime as dt

import pandas as pd
import pytest
import yaml

from conftest import ROOT
from helpers.core.errors import CostOfPassError
from helpers.core.models import call_sampling, load_registry, resolve_models
from helpers.core.prices import call_cost_usd, cost_usd, load_snapshot

REGISTRY = ROOT / "params/registry/models.yaml"
PAPER = ROOT / "params/prices/paper_table4_2025-04.yaml"


def test_paper_models_match_table4():
    table = pd.read_csv(ROOT.parent / "shared/paper_tables/paper_table4_prices.csv") \
        if (ROOT.parent / "shared/paper_tables").is_dir() else None
    registry, snap = load_registry(REGISTRY), load_snapshot(PAPER)
    paper = [m for m in registry.values() if not m.simulated and m.local is None]
    assert len(paper) == 10 and {m.name for m in paper} == set(snap.prices)
    if table is not None:
        by_label = {m.label: m for m in paper}
        for row in table.itertuples():
            m = by_label[row.model]
            assert m.family == row.family and m.release_date == dt.date.fromisoformat(row.release_date)
            assert snap.prices[m.name].input_usd_per_mtok == row.usd_per_mtok_in
            assert snap.prices[m.name].output_usd_per_mtok == row.usd_per_mtok_out


def test_openai_reasoning_models_sample_at_temperature_one_without_top_p():
    registry = load_registry(REGISTRY)
    base = {"temperature": 0.7, "top_p": 1.0, "max_tokens": None}
    assert call_sampling(registry["o1"], base) == {"temperature": 1.0}
    assert call_sampling(registry["gpt-4o"], base) == {"temperature": 0.7, "top_p": 1.0}


def test_unknown_model_is_one_line():
    with pytest.raises(CostOfPassError, match="unknown model\\(s\\) gpt-9"):
        resolve_models(["gpt-4o", "gpt-9"], REGISTRY)


def test_missing_key_names_the_variable(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert load_registry(REGISTRY)["gpt-4o"].required_env_keys() == ["OPENAI_API_KEY"]
    monkeypatch.setenv("OPENAI_API_KEY", "x" * 20)
    assert load_registry(REGISTRY)["gpt-4o"].required_env_keys() == []
    assert load_registry(REGISTRY)["sim-reasoning"].required_env_keys() == []


def test_cost_is_eq14():
    snap = load_snapshot(PAPER)
    assert call_cost_usd(1000, 2000, snap.price("o1")) == pytest.approx((1000 * 15 + 2000 * 60) / 1e6)
    frame = pd.DataFrame({"model": ["o1", "gpt-4o-mini"], "prompt_tokens": [1e6, 1e6], "completion_tokens": [0, 1e6]})
    assert cost_usd(frame, snap).tolist() == pytest.approx([15.0, 0.75])


@pytest.mark.parametrize("bad, words", [
    ({"input_usd_per_mtok": 0, "output_usd_per_mtok": 1}, "greater than 0"),
    ({"input_usd_per_mtok": 1, "output_usd_per_mtok": -1}, "greater than 0"),
    ({"input_usd_per_mtok": 1}, "Field required"),
])
def test_bad_prices_are_rejected(tmp_path, bad, words):
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump({"date": "2025-01-01", "source": "s", "prices": {"m": bad}}))
    with pytest.raises(CostOfPassError, match=words):
        load_snapshot(path)


def test_missing_price_fails_before_calls():
    snap = load_snapshot(PAPER)
    with pytest.raises(CostOfPassError, match="no price for model\\(s\\) sim-reasoning"):
        snap.require(["o1", "sim-reasoning"])
    with pytest.raises(CostOfPassError, match="no price"):
        cost_usd(pd.DataFrame({"model": ["zzz"], "prompt_tokens": [1], "completion_tokens": [1]}), snap)
