"""Racing on records you have (issue 66, item 4; ``analyze.race_replay``): ``design: racing`` on an imported set, or
with ``racing.replay`` on a uniform set's records, replays the rule on them instead of refusing or collecting. Its
bill equals one computed here by hand, its verdicts name the figure the race changes, and an imported set runs end to
end with the replay in its tables, its report and the terminal."""

import hashlib
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy.stats import beta

from helpers.analyze import race_replay
from helpers.collect import racing

SEED, SHARE, EXPERT = 3, 0.2, 1.0
COST = {"a": 0.01, "c": 0.2, "b": 10.0}  # USD per attempt: a cheap, c mid, b dearer than the expert's fee
OPTIONS = {o: (o, "vanilla") for o in COST}
FAMILIES = {"a": "F", "b": "G", "c": "F"}
RELEASES = {"a": "2024-01-01", "b": "2024-02-01", "c": "2024-03-01"}
PROBLEMS = [f"p{i}" for i in range(10)]
RUNS = 4


def _cells(a_passes: dict[str, int], cheap_c: str | None = None) -> pd.DataFrame:
    """Every option on every problem, RUNS runs each: a passes ``a_passes[p]`` (default all), b and c pass all; c's
    attempts cost COST['c'], except on ``cheap_c`` where they cost a tenth of a's."""
    rows = []
    for p in PROBLEMS:
        for o, usd in COST.items():
            usd = COST["a"] / 10 if (o == "c" and p == cheap_c) else usd
            passes = a_passes.get(p, RUNS) if o == "a" else RUNS
            rows.append({"task": "t", "problem_id": p, "option": o, "cost_usd": usd, "passes": float(passes),
                         "runs": RUNS, "usd": usd * RUNS, "calls": RUNS})
    return pd.DataFrame(rows)


def _expert() -> pd.Series:
    return pd.Series(EXPERT, index=pd.MultiIndex.from_tuples([("t", p) for p in PROBLEMS],
                                                             names=["task", "problem_id"]))


def _replay(cells: pd.DataFrame, protect=("frontier",)) -> race_replay.Replay:
    settings = SimpleNamespace(table1_share=SHARE, margin=racing.MARGIN, alpha=racing.ALPHA, protect=list(protect))
    return race_replay.replay(cells, OPTIONS, FAMILIES, RELEASES, _expert(), settings, SEED)


def _sample_by_hand() -> set[str]:
    """The Table-1 sample as docs/racing.md says: ceil(share x n) problems (at least 2), those with the smallest sha256
    of (seed, task, problem)."""
    k = max(2, int(np.ceil(SHARE * len(PROBLEMS))))
    return set(sorted(PROBLEMS, key=lambda p: hashlib.sha256(f"{SEED}\x1ft\x1f{p}".encode()).hexdigest())[:k])


def test_the_replayed_bill_equals_a_hand_computation():
    """Protecting the frontier only: a (cheapest) runs everywhere; c (margin x 0.2 = 0.1 USD) only where a's upper
    bound on cost-of-pass exceeds 0.1 — where a passed nothing (∞), not where it passed 4 of 4 (0.01 / Jeffreys lower
    bound ≈ 0.017); b (margin x 10 = 5 USD > the expert's 1) nowhere. Every option runs on the Table-1 sample."""
    failing = {"p1": 0, "p4": 0, "p7": 0}
    assert COST["a"] / beta.ppf(racing.ALPHA, RUNS + 0.5, 0.5) < racing.MARGIN * COST["c"]  # the premise above
    sample = _sample_by_hand()
    kept = [(p, o) for p in PROBLEMS for o in COST
            if p in sample or o == "a" or (o == "c" and p in failing)]
    usd = sum(COST[o] * RUNS for _, o in kept)
    on_sample = sum(COST[o] * RUNS for p, o in kept if p in sample)
    uniform = sum(COST.values()) * RUNS * len(PROBLEMS)
    replay = _replay(_cells(failing))
    assert replay.usd_share == pytest.approx(usd / uniform, rel=1e-12)
    bill = replay.bill.set_index("design")
    assert bill.at[race_replay.UNIFORM, "usd"] == pytest.approx(uniform, rel=1e-12)
    assert bill.at[race_replay.RACE, "usd"] == pytest.approx(usd, rel=1e-12)
    assert bill.at[race_replay.SAMPLE, "usd"] == pytest.approx(on_sample, rel=1e-12)
    assert bill.at[race_replay.ELSEWHERE, "usd"] == pytest.approx(usd - on_sample, rel=1e-12)
    assert bill.at[race_replay.RACE, "calls"] == RUNS * len(kept)
    assert bill.at[race_replay.RACE, "usd_pct"] == pytest.approx(100 * usd / uniform, rel=1e-12)
    print(f"race: {usd:.4f} of {uniform:.4f} USD ({usd / uniform:.1%}), sample {sorted(sample)}")


def test_the_verdicts_name_the_figure_the_race_changes():
    """Where the rule's premise holds every protected figure is identical; where c's attempts on one problem cost far
    less than its expected USD (a tenth of a's, there), the race skips c there (a passed) and the frontier, which
    uniform records price at c's cost, changes by exactly (a's − c's cost-of-pass) / problems."""
    sample = _sample_by_hand()
    held = _replay(_cells({}), protect=("frontier", "releases", "families", "models")).figures.set_index("figure")
    protected = held[held["protected"]]
    assert set(protected.index) == {"frontier", "vanilla frontier", "Figure 2", "Figure 3", "Figures 4-5"}
    assert protected["identical"].all() and (protected["largest_difference"] == 0).all()

    cheap = next(p for p in PROBLEMS if p not in sample)  # off the sample: only the race decides c there
    changed = _replay(_cells({}, cheap_c=cheap)).figures.set_index("figure")
    assert not changed.at["frontier", "identical"] and changed.at["frontier", "differing"] == 1
    assert changed.at["frontier", "largest_difference"] == pytest.approx(
        (COST["a"] - COST["a"] / 10) / len(PROBLEMS), rel=1e-9)
    assert changed.at["frontier", "from"] == "every problem"
    assert changed.at["Figure 3", "from"] == "Table-1 sample" and not changed.at["Figure 3", "protected"]
    text = race_replay.summary(_replay(_cells({}, cheap_c=cheap)))
    assert "not identical: frontier" in text and "of the 10 problems" in text


def test_differences_treat_equal_infinities_and_missing_items():
    uniform = pd.Series([1.0, np.inf, np.nan, 2.0], index=list("wxyz"))
    value = pd.Series([1.0, np.inf, np.nan], index=list("wxy"))  # z missing: it differs, infinitely
    d = race_replay.differences(value, uniform)
    assert d.tolist() == [0.0, 0.0, 0.0, np.inf]


def test_racing_settings_on_records_already_there(write_set, tmp_path):
    from conftest import sim_set
    from helpers.core.errors import CostOfPassError

    imported = {"format": "generic", "path": "x.csv", "task": "two_digit_addition",
                "columns": {"problem_id": "pid", "model": "model", "response": "reply"}}
    p = sim_set(write_set, "imp", tmp_path / "imp", design="racing", import_from=imported)
    assert p.replays_race and not p.collects_by_race
    with pytest.raises(CostOfPassError, match="racing.replay replays the racing design's rule: it needs design"):
        sim_set(write_set, "u", tmp_path / "u", racing={"replay": True})
    with pytest.raises(CostOfPassError, match="not an imported set or racing.replay"):
        sim_set(write_set, "b", tmp_path / "b", design="racing", racing={"replay": True},
                budget={"target_usd": 1.0})


def test_a_collected_uniform_set_replays_without_a_call(write_set, tmp_path):
    """``racing.replay`` with ``records_dir`` on a uniform set's records: nothing to collect; on a set without those
    records the preflight refuses before any call."""
    from conftest import sim_set
    from helpers.collect.preflight import preflight
    from helpers.core.errors import CostOfPassError
    from helpers.grade.racing import run_design

    uniform = sim_set(write_set, "uni", tmp_path / "uni", methods=["vanilla"])
    assert run_design(preflight(uniform), progress=False).made_calls > 0
    replay = sim_set(write_set, "rep", tmp_path / "rep", methods=["vanilla"], design="racing",
                     racing={"replay": True}, records_dir=str(uniform.records_path))
    assert run_design(preflight(replay), progress=False).made_calls == 0
    empty = sim_set(write_set, "none", tmp_path / "none", methods=["vanilla"], design="racing",
                    racing={"replay": True})
    with pytest.raises(CostOfPassError, match="racing.replay replays the race on the records already there"):
        preflight(empty)


def _import_file(params, path) -> pd.DataFrame:
    """Three registry models' answers to every problem of ``params``, two runs each: the cheap one right on half the
    problems, the others always; token counts that make the cheap one cheapest per attempt."""
    from helpers.core.context import prepare

    problems = prepare(params).problems["two_digit_addition"]
    rows = []
    for i, q in enumerate(problems):
        for model, right, tokens in (("meta-llama/Llama-3.2-3B-Instruct", i % 2 == 0, 100),  # the source's names
                                     ("gpt-3.5-turbo", True, 400), ("deepseek-ai/DeepSeek-V3", True, 300)):
            for _ in range(2):
                rows.append({"pid": q.problem_id, "model": model, "pt": tokens, "ct": tokens, "ok": right,
                             "reply": f"<answer>{q.target if right else 'no'}</answer>"})
    frame = pd.DataFrame(rows)
    frame.to_csv(path, index=False)
    return frame


def test_an_imported_racing_set_runs_end_to_end(write_set, tmp_path, capsys):
    from helpers.cli.runner import main
    from helpers.core.params import load_params

    columns = {"problem_id": "pid", "model": "model", "response": "reply", "prompt_tokens": "pt",
               "completion_tokens": "ct", "correct": "ok"}
    spec = {"name": "replayed", "tasks": ["two_digit_addition"], "models": ["llama-3.2-3b", "gpt-3.5-turbo",
                                                                            "deepseek-v3"],
            "models_file": "params/registry/imported.yaml", "methods": ["vanilla"], "n_problems": 20, "n_runs": 2,
            "seed": 0, "price_snapshot": "feval_ttc_2025-06-02", "budget_usd": 1, "design": "racing",
            "racing": {"table1_share": 0.1, "protect": ["frontier"]}, "expert_usd": {"two_digit_addition": 0.001},
            "task_options": {"two_digit_addition": {"source": "generated"}},
            "import_from": {"format": "generic", "path": str(tmp_path / "runs.csv"), "task": "two_digit_addition",
                            "columns": columns}}
    path = write_set(spec)
    params = load_params(path)
    _import_file(params, tmp_path / "runs.csv")
    assert main(["run", str(path), "--only", "01_collect,02_grade,03_frontier", "--no-report"]) == 0
    out = capsys.readouterr().out
    assert "racing replayed on these records:" in out
    bill = pd.read_csv(params.tables_path / "racing_replay_bill.csv").set_index("design")
    attempts = pd.read_parquet(params.graded_path / "attempts.parquet")
    assert bill.at[race_replay.UNIFORM, "usd"] == pytest.approx(attempts["usd"].sum(), rel=1e-9)
    assert 0 < bill.at[race_replay.RACE, "usd"] < bill.at[race_replay.UNIFORM, "usd"]
    figures = pd.read_csv(params.tables_path / "racing_replay_figures.csv")
    assert {"frontier", "Figure 2", "Figure 3", "Figures 4-5", "Table 1"} <= set(figures["figure"])
    from helpers.publish.dictionary import undescribed

    assert not [c for c in undescribed(params.tables_path) if c.startswith("racing_replay")]  # in the data dictionary
    lead = (params.tables_path / "racing_replay_bill.lead.md").read_text()
    assert f"{bill.at[race_replay.RACE, 'usd_pct']:.1f}%" in lead and "Racing on these records" in lead
