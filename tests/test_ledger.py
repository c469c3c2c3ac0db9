"""The dated price ledger, `cost-of-pass reprice`, and the Shapley split of the frontier's change."""

import datetime as dt
import subprocess
import sys

import pandas as pd
import pytest
import yaml

from conftest import ROOT, SMALL_VALIDITY, repriced_only_costs
from helpers.analyze.price_change import price_change_split, shapley_two
from helpers.core.errors import CostOfPassError
from helpers.core.ledger import price_on, prices_as_of
from helpers.core.params import load_params
from helpers.core.prices import ModelPrice, PriceSnapshot

D = dt.date.fromisoformat


def test_a_price_is_the_latest_in_effect_and_a_missing_one_names_the_dates_that_exist():
    assert price_on("gpt-4-1106-preview", D("2024-01-01")).snapshot == "openai_launch_2023-11-06"
    assert price_on("gpt-4-1106-preview", D("2027-01-01")).snapshot == "litellm_1.106.2"
    assert price_on("mixtral-8x7b", D("2025-07-01")).price.input_usd_per_mtok == 0.08  # FEval-TTC's table
    with pytest.raises(CostOfPassError) as err:
        prices_as_of(["mixtral-8x7b", "gpt-4-1106-preview"], D("2023-01-01"))
    assert str(err.value) == (
        "no price for model 'mixtral-8x7b' as of 2023-01-01: its prices in the ledger take effect 2025-06-02 "
        "(feval_ttc_2025-06-02), 2026-11-23 (litellm_1.106.2); no price for model 'gpt-4-1106-preview' as of "
        "2023-01-01: its prices in the ledger take effect 2023-11-06 (openai_launch_2023-11-06), 2024-04-29 "
        "(openai_list_2024-04-29), 2026-11-23 (litellm_1.106.2)")
    assert price_on("mixtral-8x7b", D("2023-01-01"), first_if_later=True).date == D("2025-06-02")


def test_two_snapshots_disagreeing_on_one_date_are_an_error(tmp_path):
    for name, price in (("a", 1.0), ("b", 2.0)):
        (tmp_path / f"{name}.yaml").write_text(yaml.safe_dump({
            "date": "2025-01-01", "source": name,
            "prices": {"m": {"input_usd_per_mtok": price, "output_usd_per_mtok": 1}}}))
    with pytest.raises(CostOfPassError, match="snapshots a, b give different prices on 2025-01-01"):
        price_on("m", D("2025-02-01"), tmp_path)


def test_a_set_names_exactly_one_price_source(write_set):
    base = {"name": "p", "tasks": ["gsm8k"], "models": ["gpt-4o"], "n_problems": 2, "n_runs": 1, "budget_usd": 1}
    with pytest.raises(CostOfPassError, match=r"field 'price_snapshot': required field is missing \(or give prices"):
        load_params(write_set(base))
    with pytest.raises(CostOfPassError, match="give exactly one of price_snapshot"):
        load_params(write_set({**base, "price_snapshot": "paper_table4_2025-04", "prices": {"as_of": "2025-05-01"}}))
    params = load_params(write_set({**base, "prices": {"as_of": "2025-05-01"}}))
    assert params.prices.as_of == D("2025-05-01") and len(params.price_files) > 3


def test_shapley_split_by_hand():
    new, price = shapley_two(10.0, 6.0, 12.0, 7.0)  # V(M0,P0), V(M1,P0), V(M0,P1), V(M1,P1)
    assert (new, price) == (-4.5, 1.5) and new + price == 7.0 - 10.0


def snapshot(date, a, b):
    return PriceSnapshot(name=f"s{date}", date=date, source="test", prices={
        "a": ModelPrice(input_usd_per_mtok=a, output_usd_per_mtok=a),
        "b": ModelPrice(input_usd_per_mtok=b, output_usd_per_mtok=b)})


def test_price_change_split_on_two_problems_by_hand():
    """Model a (old) passes both problems for 1M tokens; b (new) passes problem 1 only for 1M tokens; expert 10 USD.
    a's price goes 4 -> 2 USD/Mtok, b's is 1. V(M0,P0) = 4, V(M0,P1) = 2, V(M1,P0) = (1 + 4) / 2, V(M1,P1) = (1 + 2) /
    2."""
    rows = [("a", "p1", True), ("a", "p2", True), ("b", "p1", True), ("b", "p2", False)]
    attempts = pd.DataFrame({"task": "t", "problem_id": [r[1] for r in rows], "model": [r[0] for r in rows],
                             "method": "vanilla", "run": 0, "complete": True, "correct": [r[2] for r in rows],
                             "prompt_tokens": 500_000, "completion_tokens": 500_000})
    releases = pd.Series({"a": pd.Timestamp("2024-01-01"), "b": pd.Timestamp("2024-06-01")})
    expert = pd.Series(10.0, index=pd.MultiIndex.from_tuples([("t", "p1"), ("t", "p2")], names=["task", "problem_id"]))
    prices = {D("2024-02-01"): snapshot(D("2024-02-01"), 4.0, 1.0),
              D("2024-12-01"): snapshot(D("2024-12-01"), 2.0, 1.0)}
    out = price_change_split(attempts, releases, expert, D("2024-02-01"), D("2024-12-01"), prices.__getitem__).iloc[0]
    assert (out.start_usd, out.end_usd) == (4.0, 1.5) and (out.models_start, out.models_end) == (1, 2)
    new, price = shapley_two(4.0, 2.5, 2.0, 1.5)
    assert out.new_models_usd == pytest.approx(new) and out.prices_usd == pytest.approx(price)
    assert (out.new_models_usd + out.prices_usd == pytest.approx(out.change_usd)
            and out.change_pct == pytest.approx(-62.5))


def run_cli(*args):
    out = subprocess.run([sys.executable, "-m", "helpers.cli.runner", *args], cwd=ROOT, capture_output=True, text=True,
                         timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


@pytest.mark.slow  # two sets through the pipeline, twice
def test_reprice_changes_only_cost_columns(tmp_path, shared_data):
    """Two simulated twins, Llama-3.3-70B's price differing between Table 4 and litellm's map: only its cost moves.
    (The RouteLLM set's reprice, a README command, is checked the same way after it ran: ``test_report_html.py``.)"""
    params = {"tasks": ["two_digit_addition"], "models": ["sim-llama-3.3-70b", "sim-gpt-4o"],
              "models_file": "params/registry/sim_paper.yaml", "methods": ["vanilla"], "n_problems": 12, "n_runs": 4,
              "price_snapshot": "sim_paper_table4_2025-04", "budget_usd": 10, "concurrency": 1,
              "task_options": {"two_digit_addition": {"source": "generated"}},
              "validity": SMALL_VALIDITY}
    as_of = "2026-11-23"
    path = tmp_path / "rp.yaml"
    path.write_text(yaml.safe_dump({"name": "rp", **params, "data_dir": str(shared_data),
                                    "output_dir": str(tmp_path / "results/rp")}))
    run_cli("run", str(path), "--no-report")
    out = run_cli("reprice", str(path), "--as-of", as_of)
    assert "01_collect" not in out and "open  " in out
    repriced_only_costs(tmp_path / "results/rp", tmp_path / f"results/rp_as_of_{as_of}", "Llama-3.3-70B (sim)")


def test_reprice_refuses_a_future_date_and_a_set_without_records_before_writing(tmp_path):
    path = tmp_path / "fresh.yaml"
    path.write_text(yaml.safe_dump({"name": "fresh", "tasks": ["two_digit_addition"], "models": ["sim-lightweight"],
                                    "n_problems": 2, "n_runs": 1, "price_snapshot": "sim_tiny_2025-04", "budget_usd": 1,
                                    "output_dir": str(tmp_path / "results/fresh")}))
    for as_of, says in (("2999-01-01", "is after today"), ("2025-07-01", "no records of fresh")):
        out = subprocess.run([sys.executable, "-m", "helpers.cli.runner", "reprice", str(path), "--as-of", as_of],
                             cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert out.returncode != 0 and says in out.stderr and "Traceback" not in out.stderr
        assert len(out.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "results").exists()  # nothing written


def test_the_humaneval_snapshots_kept_their_launch_prices_and_the_authors_table_is_named_apart():
    """Issue 36 item 4: OpenAI's April-2024 list prices are each snapshot's launch price, so a split of the frontier's
    change from 2023-06-13 to 2024-04-29 books no price cut; the authors' simplified table is outside the ledger."""
    from helpers.core.ledger import history
    from helpers.core.prices import load_snapshot

    for model in ("gpt-3.5-turbo-0613", "gpt-3.5-turbo-1106", "gpt-3.5-turbo-0125", "gpt-4-0613", "gpt-4-1106-preview",
                  "gpt-4-turbo-2024-04-09"):
        launch, april = history(model)[0], price_on(model, D("2024-04-29"))
        assert april.snapshot == "openai_list_2024-04-29" and april.price == launch.price, model
    assert price_on("gpt-3.5-turbo-0613", D("2024-04-29")).price.input_usd_per_mtok == 1.5
    notebook = load_snapshot(ROOT / "params/prices/sources/agent_evals_notebook_2024-04.yaml")
    assert notebook.price("gpt-3.5-turbo-0613").input_usd_per_mtok == 0.5  # the authors' simplification, by name only
    assert all(e.snapshot != notebook.name for e in history("gpt-3.5-turbo-0613"))


def test_the_price_split_ends_at_the_sets_own_price_date_not_the_ledgers_last():
    """Issue 38 item 1: a fork's own price cut is the end's; a later ledger entry (litellm's map read today) must
    not undo it. Billed sets end at their last release."""
    import datetime as dt
    from types import SimpleNamespace as NS

    from helpers.analyze.estimates import Analysis

    models = [NS(name="a", release_date=dt.date(2024, 1, 1)), NS(name="b", release_date=dt.date(2024, 6, 1))]
    ctx = NS(params=NS(price_change=None, billed=False), snapshot=NS(date=dt.date(2025, 3, 1)), models=models)
    an = Analysis(ctx=ctx, attempts=None, estimates=None, cop=None, expert=None)
    assert an.price_change_dates() == (dt.date(2024, 1, 1), dt.date(2025, 3, 1))
    ctx.params.billed = True
    assert an.price_change_dates() == (dt.date(2024, 1, 1), dt.date(2024, 6, 1))


def test_the_price_split_names_the_price_files_it_read():
    """Issue 38 item 1: the split's caption names the ledger files it used."""
    import datetime as dt
    from types import SimpleNamespace as NS

    from helpers.analyze.estimates import Analysis

    models = [NS(name="sim-llama-3.3-70b", release_date=dt.date(2024, 12, 6))]
    ctx = NS(params=NS(prices=None), snapshot=NS(name="sim_paper_table4_2025-04"), models=models)
    text = Analysis(ctx=ctx, attempts=None, estimates=None, cop=None, expert=None).price_files_text()
    assert text.startswith("the set's snapshot sim_paper_table4_2025-04; the ledger's ")
    assert "litellm_1.106.2" in text and "sim_paper_table4_2025-04" in text.split("ledger's ")[1]


def test_the_price_split_knows_the_dates_its_prices_were_read_on():
    """Review 11, M4: `local`'s one price snapshot (2026-11-22) is dated after every release, so "no price changed"
    was true by construction; the split's sentence reads the dates of every price of the set's models."""
    from types import SimpleNamespace as NS

    from helpers.analyze.estimates import Analysis
    from helpers.core.paths import repo_root
    from helpers.core.prices import load_snapshot

    snapshot = load_snapshot(repo_root() / "params" / "prices" / "local_cpu_2026-11.yaml")
    ctx = NS(snapshot=snapshot, models=[NS(name="local-gemma3-270m"), NS(name="local-smollm2-135m")])
    assert Analysis(ctx=ctx, attempts=None, estimates=None, cop=None, expert=None).price_dates() == ["2026-11-22"]
