"""Reading the "AI Agents That Matter" HumanEval runs: calls attributed by the log's task events, every bad input
one line naming the file and line, the run then unusable; and a hand count of tokens on the real runs."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pandas as pd
import pytest

from helpers.collect.imports import agent_evals as ae
from helpers.core.errors import CostOfPassError

KNOWN = {"gpt-x": "gpt-x", "azure_gpt-x": "gpt-x", "small": "small"}


def _problem(i: int, solved: bool = True) -> dict:
    return {"task_id": f"HumanEval/{i}", "prompt": f"def f{i}(x):\n", "entry_point": f"f{i}",
            "test": f"def check(c):\n    assert c(1) == {i + 1}\n", "given_tests": [f"assert f{i}(1) == {i + 1}"],
            "solution": f"def f{i}(x):\n    return x + {i}\n", "is_solved": str(solved)}


def _call(model: str, p: int | str, c: int | str, t: str = "2024-04-27 11:30:50,829") -> dict:
    return {"type": "api_call", "model_name": model, "prompt_tokens": p, "completion_tokens": c,
            "inference_time": "1.5", "time": t, "temperature": "0.0", "output_messages": "```python\npass\n```"}


def write_run(folder: Path, problems: list[dict], events: list[dict] | None, gz: bool = True) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    opener = (lambda p: gzip.open(p, "wt", encoding="utf-8")) if gz else (lambda p: open(p, "w", encoding="utf-8"))
    with opener(folder / ("probs.jsonl" + (".gz" if gz else ""))) as fh:
        fh.writelines(json.dumps(p) + "\n" for p in problems)
    if events is not None:
        with opener(folder / ("probs.log" + (".gz" if gz else ""))) as fh:
            fh.writelines(json.dumps(e) + "\n" for e in events)
    return folder


def events_for(problems: list[dict], calls: dict[str, list[dict]]) -> list[dict]:
    out = [{"type": "run_started", "run_parameters": {"strategy": "simple"}}]
    for p in problems:
        out.append({"type": "task_started", "task_id": p["task_id"]})
        out.extend(calls.get(p["task_id"], []))
        out.append({"type": "task_finished", "task_id": p["task_id"]})
    return out


def test_calls_are_attributed_to_their_tasks(tmp_path):
    problems = [_problem(0), _problem(1, solved=False)]
    calls = {"HumanEval/0": [_call("gpt-x", 100, 20)],
             "HumanEval/1": [_call("small", "50", "10"), _call("azure_gpt-x", 70, 30)]}  # numbers as strings too
    folder = write_run(tmp_path / "simple_boosting/humaneval/cascade/run2", problems,
                       events_for(problems, calls), gz=False)
    run = ae.read_run(folder, "simple_boosting", "cascade", KNOWN)
    assert run.usable and run.index == 1 and [t.task_id for t in run.tasks] == ["HumanEval/0", "HumanEval/1"]
    assert [(c.model, c.prompt_tokens, c.completion_tokens)
            for c in run.tasks[1].calls] == [("small", 50, 10), ("azure_gpt-x", 70, 30)]
    assert run.tasks[0].is_solved and not run.tasks[1].is_solved and run.tasks[1].calls[0].latency_s == 1.5
    assert [(r.strategy, r.group, r.run)
            for r in ae.read_runs(tmp_path, KNOWN)] == [("simple_boosting", "cascade", "run2")]


def test_a_restarted_task_keeps_the_calls_of_both_starts(tmp_path):
    problems = [_problem(0), _problem(1)]
    events = events_for(problems, {"HumanEval/0": [_call("gpt-x", 1, 1)], "HumanEval/1": [_call("gpt-x", 2, 2)]})
    events[2:2] = [{"type": "task_started", "task_id": "HumanEval/0"}, _call("gpt-x", 5, 5)]  # started, then again
    run = ae.read_run(write_run(tmp_path / "r/run1", problems, events), "simple", "g", KNOWN)
    assert run.usable and run.tasks[0].starts == 2 and sum(c.prompt_tokens for c in run.tasks[0].calls) == 6
    assert "started more than once (HumanEval/0)" in run.notes[0]


def _problem_of(tmp_path, problems, events, known=KNOWN) -> str:
    run = ae.read_run(write_run(tmp_path / "s/humaneval/g/run1", problems, events), "s", "g", known)
    assert not run.usable and not run.tasks and "\n" not in run.problem
    return run.problem


def test_a_run_without_a_log_is_unusable(tmp_path):
    assert "no call log" in _problem_of(tmp_path, [_problem(0)], None)


def test_a_log_that_does_not_match_its_jsonl(tmp_path):
    problems = [_problem(0), _problem(1)]
    events = events_for(list(reversed(problems)), {})
    message = _problem_of(tmp_path, problems, events)
    assert "do not match probs.jsonl.gz" in message and "first difference at task 1" in message
    missing = _problem_of(tmp_path / "b", problems, events_for(problems[:1], {}))
    assert "1 against 2 tasks" in missing


def test_a_number_that_does_not_parse_makes_the_run_unusable(tmp_path):
    problems = [_problem(0)]
    call = _call("gpt-x", 1, 1)
    call["inference_time"] = "soon"
    message = _problem_of(tmp_path, problems, events_for(problems, {"HumanEval/0": [call]}))
    assert message.endswith("line 3: field 'inference_time' is not a number ('soon')") and "probs.log.gz" in message


@pytest.mark.parametrize("field, value", [("prompt_tokens", "abc"), ("completion_tokens", "1.5"), ("prompt_tokens", -3),
                                          ("prompt_tokens", "inf"), ("completion_tokens", float("nan")),
                                          ("prompt_tokens", 10**10), ("completion_tokens", float("-inf"))])
def test_a_token_count_that_is_not_a_count_stops_the_import_in_one_line(tmp_path, field, value):
    """It would price the run: infinite, NaN, negative, fractional or beyond 10^9 tokens is an error naming the file
    and line, raised while reading (before anything is appended to the record store)."""
    problems = [_problem(0)]
    call = _call("gpt-x", 1, 1)
    call[field] = value
    folder = write_run(tmp_path / "s/humaneval/g/run1", problems, events_for(problems, {"HumanEval/0": [call]}))
    with pytest.raises(CostOfPassError, match=rf"probs\.log\.gz: line 3: field '{field}': ") as err:
        ae.read_run(folder, "s", "g", KNOWN)
    assert "\n" not in str(err.value)


def test_duplicate_task_ids(tmp_path):
    problems = [_problem(0), _problem(0)]
    message = _problem_of(tmp_path, problems, events_for(problems, {}))
    assert "probs.jsonl.gz: line 2: task HumanEval/0 again (first at line 1)" in message


def test_an_unknown_model(tmp_path):
    problems = [_problem(0)]
    message = _problem_of(tmp_path, problems, events_for(problems, {"HumanEval/0": [_call("mystery-model", 1, 1)]}))
    assert "line 3: unknown model 'mystery-model'" in message and "knows: azure_gpt-x, gpt-x, small" in message


def test_malformed_lines(tmp_path):
    problems = [_problem(0)]
    folder = write_run(tmp_path / "s/humaneval/g/run1", problems, events_for(problems, {}))
    with gzip.open(folder / "probs.log.gz", "at") as fh:
        fh.write("{not json\n")
    run = ae.read_run(folder, "s", "g", KNOWN)
    assert "probs.log.gz: line 4: not JSON" in run.problem
    bad = dict(_problem(1), is_solved="maybe")
    assert "line 1: is_solved is 'maybe'" in _problem_of(tmp_path / "b", [bad], events_for([bad], {}))
    stray = [{"type": "api_call", **_call("gpt-x", 1, 1)}, *events_for(problems, {})]
    assert "line 1: an api_call outside any task" in _problem_of(tmp_path / "c", problems, stray)
    no_field = {k: v for k, v in _problem(0).items() if k != "test"}
    assert "line 1: no field(s) test" in _problem_of(tmp_path / "d", [no_field], events_for([no_field], {}))


def _hand_count(log: Path, task_id: str) -> tuple[int, int, int]:
    """Calls, prompt and completion tokens of one task, counted straight from the log's lines."""
    lines = [json.loads(line) for line in gzip.open(log, "rt")]
    n = p = c = 0
    inside = False
    for row in lines:
        if row.get("type") == "task_started":
            inside = row["task_id"] == task_id
        elif row.get("type") == "api_call" and inside:
            n, p, c = n + 1, p + int(row["prompt_tokens"]), c + int(row["completion_tokens"])
    return n, p, c


@pytest.mark.parametrize("group, run_name, task_id", [
    ("simple/humaneval/gpt-4-0613", "run1", "HumanEval/0"),
    ("simple_repeat/humaneval/gpt-3.5-turbo-0613-5repeats-no-temp-incr", "run2", "HumanEval/32"),
    ("simple_boosting/humaneval/l3_8b-gpt35-l3_70b-gpt4-0409", "run3", "HumanEval/145"),
])
def test_tokens_equal_a_hand_count_from_the_real_logs(shared_data, group, run_name, task_id):
    folder = shared_data / "agent_evals" / group / run_name
    if not folder.is_dir():
        pytest.skip("agent_evals not in the data directory")
    strategy, _, name = group.split("/")
    run = ae.read_run(folder, strategy, name)
    assert run.usable and len(run.tasks) == 164
    task = next(t for t in run.tasks if t.task_id == task_id)
    log = next(folder.glob("*.log.gz"))
    assert (len(task.calls), sum(c.prompt_tokens for c in task.calls), sum(c.completion_tokens for c in task.calls)) \
        == _hand_count(log, task_id)


# ---- through import and grading: the set's records, costs and refusals -------------------------------------------
GROUPS = {"simple/gpt-4-0613": {"model": "gpt-4-0613"},
          "simple_repeat/gpt-3.5-turbo-0613-5repeats-no-temp-incr": {"model": "gpt-3.5-turbo-0613",
                                                                     "method": "retry_k5"},
          "simple_boosting/l3_8b-gpt35-l3_70b-gpt4-0409": {"model": "gpt-4-turbo-2024-04-09",
                                                           "method": "escalation_llama3"}}


def agent_set(write_set, data, groups=GROUPS, **more):
    import yaml

    from conftest import ROOT
    from helpers.core.params import load_params

    full = yaml.safe_load((ROOT / "params/humaneval_agents.yaml").read_text())
    methods = sorted({g.get("method", "vanilla") for g in groups.values()} | {"vanilla"})
    return load_params(write_set({
        **{k: full[k] for k in ("tasks", "models_file", "prices", "budget_usd", "expert_bound")},
        "name": "agents", "models": sorted({g["model"] for g in groups.values()}), "methods": methods,
        "n_problems": 12, "n_runs": 5, "data_dir": str(data),
        "import_from": {**full["import_from"], "runs": groups}, **more}))


def test_tokens_and_costs_equal_a_hand_count_for_three_model_runs(write_set, shared_data):
    import yaml

    from conftest import ROOT
    from helpers.collect.imports import import_records
    from helpers.collect.plan import plan_for
    from helpers.collect.records import RecordStore
    from helpers.core.context import prepare
    from helpers.grade.stage import run_grading

    params = agent_set(write_set, shared_data)
    ctx = prepare(params)
    with RecordStore(params.records_path) as store:
        result = import_records(params, plan_for(params, ctx.problems, ctx.models), store)
    # the plan crosses every model with every method; each strategy was run on some models only
    assert result.imported == 3 * 5 * 12 and result.missing == (3 * 3 - 3) * 5 * 12
    attempts = run_grading(ctx)
    prices = {m: (p["input_usd_per_mtok"], p["output_usd_per_mtok"]) for m, p in
              [*yaml.safe_load((ROOT / "params/prices/openai_list_2024-04-29.yaml").read_text())["prices"].items(),
               *yaml.safe_load((ROOT / "params/prices/together_2024-04-29.yaml").read_text())["prices"].items()]}
    names = params.import_from.model_names
    chosen = {p.metadata["task_id"] for p in ctx.problems["humaneval"]}
    for group, run in [("simple/gpt-4-0613", 0), ("simple_repeat/gpt-3.5-turbo-0613-5repeats-no-temp-incr", 2),
                       ("simple_boosting/l3_8b-gpt35-l3_70b-gpt4-0409", 4)]:
        folder = shared_data / "agent_evals" / group.replace("/", "/humaneval/", 1) / f"run{run + 1}"
        calls = prompt = completion = 0
        usd = 0.0
        inside = False
        for line in gzip.open(next(folder.glob("*.log.gz")), "rt"):  # the hand count: the log's lines, nothing else
            row = json.loads(line)
            if row.get("type") == "task_started":
                inside = row["task_id"] in chosen
            elif row.get("type") == "api_call" and inside:
                p_in, p_out = prices[names[row["model_name"]]]
                calls, prompt, completion = (calls + 1, prompt + int(row["prompt_tokens"]),
                                             completion + int(row["completion_tokens"]))
                usd += (int(row["prompt_tokens"]) * p_in + int(row["completion_tokens"]) * p_out) / 1e6
        g = GROUPS[group]
        mine = attempts[(attempts["model"] == g["model"]) & (attempts["method"] == g.get("method", "vanilla"))
                        & (attempts["run"] == run)]
        assert len(mine) == 12
        assert (mine["calls"].sum(), mine["prompt_tokens"].sum(),
                mine["completion_tokens"].sum()) == (calls, prompt, completion)
        assert mine["usd"].sum() == pytest.approx(usd, rel=1e-12)


def test_the_strategies_table_names_each_strategy_in_words(write_set, shared_data):
    from helpers.analyze import intervals
    from helpers.analyze.estimates import load_analysis
    from helpers.collect.imports import import_records
    from helpers.collect.plan import plan_for
    from helpers.collect.records import RecordStore
    from helpers.core.context import prepare
    from helpers.grade.stage import run_grading
    from helpers.publish.names import internal
    from helpers.publish.tables import strategy_table

    groups = {"simple/gpt-3.5-turbo-0613": {"model": "gpt-3.5-turbo-0613"},
              "simple_repeat/gpt-3.5-turbo-0613-5repeats-no-temp-incr": {"model": "gpt-3.5-turbo-0613",
                                                                         "method": "retry_k5"}}
    params = agent_set(write_set, shared_data, groups=groups, n_problems=6)
    ctx = prepare(params)
    with RecordStore(params.records_path) as store:
        import_records(params, plan_for(params, ctx.problems, ctx.models), store)
    run_grading(ctx)
    an = load_analysis(ctx)
    _, shown = strategy_table(an, intervals.set_statistics(an, replicates=20, draws=5))
    assert set(shown["strategy"]) == {"GPT-3.5 Turbo (0613) · retry (up to 5 calls)"}  # model and method in words
    assert set(shown["runs per problem"]) == {5}
    text = " ".join(shown.astype(str).to_numpy().ravel())
    assert not [n for n in internal(ctx.params.tasks) if n in text]
    from helpers.analyze.statistic import STRATEGY_GAIN, Key
    from helpers.publish.tables import CROSSFITTED

    never = pd.DataFrame({**{c: [v] for c, v in Key(STRATEGY_GAIN, "gpt-3.5-turbo-0613+retry_k5").row().items()},
                          "task": [ctx.params.tasks[0]],
                          "value": [0.0], "low": [0.0], "high": [0.0]})  # review R10: a strategy the rule never chose
    _, shown = strategy_table(an, intervals.set_statistics(an, replicates=20, draws=5), never)
    column = [c for c in shown if c.endswith(CROSSFITTED)]
    assert list(shown[column[0]])[0] == "0 (not chosen on any problem: the single attempt looks cheaper on the others)"


def test_agent_strategies_outside_an_agent_import_are_refused(write_set, shared_data):
    from helpers.core.context import prepare
    from helpers.core.errors import CostOfPassError
    from helpers.core.params import load_params

    params = load_params(write_set({"name": "live", "tasks": ["gsm8k"], "models": ["sim-lightweight"],
                                    "models_file": "params/registry/models.yaml", "methods": ["vanilla", "retry_k5"],
                                    "n_problems": 2, "n_runs": 1, "price_snapshot": "sim_tiny_2025-04", "budget_usd": 1,
                                    "data_dir": str(shared_data)}))
    with pytest.raises(CostOfPassError, match="retry_k5 are agent strategies this project does not run"):
        prepare(params)


def test_a_group_naming_a_model_outside_the_set_is_one_line(write_set, shared_data):
    from helpers.collect.imports import read_source
    from helpers.core.errors import CostOfPassError

    params = agent_set(write_set, shared_data, groups={"simple/gpt-4-0613": {"model": "gpt-3.5-turbo-0125"}},
                       models=["gpt-4-0613"])
    with pytest.raises(CostOfPassError,
                       match=r"import_from.runs\['simple/gpt-4-0613'\]: model 'gpt-3.5-turbo-0125' is not"):
        list(read_source(params, []))


# ---- LDB (issue 36 item 3): the seed's call and the debugging calls, seeds checked, unusable runs named -------------
def test_an_ldb_attempt_bills_its_seed_call_and_its_debugging_calls_by_hand(write_set, shared_data):
    """Hand count on the real runs: an LDB attempt's calls are the simple run's call(s) of the same number for the task
    (the seed, billed at the seed model's price) then the debugging calls of the LDB log."""
    from helpers.collect.imports import read_source
    from helpers.core.context import prepare

    groups = {"ldb/gpt-3.5-turbo-0613+gpt-4-0613": {"model": "gpt-3.5-turbo-0613", "method": "ldb_seed_gpt4"},
              "ldb/gpt-4-turbo-2024-04-09+gpt-4-turbo-2024-04-09": {"model": "gpt-4-turbo-2024-04-09", "method": "ldb"}}
    params = agent_set(write_set, shared_data, groups)
    got = {(r.model, r.run, r.problem_id): r for r in read_source(params, prepare(params).models)
           if not hasattr(r, "where")}
    root = shared_data / "agent_evals"
    for (group, seed), model, run, task in [(("gpt-3.5-turbo-0613+gpt-4-0613", "gpt-4-0613"),
                                             "gpt-3.5-turbo-0613", 1, 7),
                                            (("gpt-4-turbo-2024-04-09+gpt-4-turbo-2024-04-09",
                                              "gpt-4-turbo-2024-04-09"),
                                             "gpt-4-turbo-2024-04-09", 3, 120)]:
        seed_log = next((root / "simple/humaneval" / seed / f"run{run + 1}").glob("*.log.gz"))
        ldb_log = next((root / "ldb/humaneval" / group / f"run{run + 1}").glob("*.log.gz"))
        counts = [_hand_count(seed_log, f"HumanEval/{task}"), _hand_count(ldb_log, f"HumanEval/{task}")]
        record = got[(model, run, f"humaneval-{task}")]
        assert len(record.agent_calls) == counts[0][0] + counts[1][0] and counts[0][0] >= 1
        assert record.prompt_tokens == counts[0][1] + counts[1][1]
        assert record.completion_tokens == counts[0][2] + counts[1][2]
        assert record.agent_calls[0].model == seed  # the seed's call, billed at the seed model's price


def test_ldb_runs_without_a_log_or_with_reflexion_seeds_are_named_and_left_out(write_set, shared_data):
    from helpers.collect.imports import read_source
    from helpers.core.context import prepare

    groups = {"ldb/gpt-3.5-turbo-0613+gpt-3.5-turbo-0613": {"model": "gpt-3.5-turbo-0613", "method": "ldb"},
              "ldb/gpt-4-0613+reflexion": {"model": "gpt-4-0613", "method": "ldb"}}
    params = agent_set(write_set, shared_data, groups)
    dropped = [r.where for r in read_source(params, prepare(params).models) if hasattr(r, "where")]
    assert sorted(d.split(":")[0] for d in dropped if "no call log" in d) == [  # and an extra folder, also without one
        "ldb/gpt-3.5-turbo-0613+gpt-3.5-turbo-0613/gpt35_ldb",
        *(f"ldb/gpt-3.5-turbo-0613+gpt-3.5-turbo-0613/run{k}" for k in (1, 3, 5))]
    assert sum("a Reflexion seed" in d for d in dropped) == 5


def test_an_ldb_seed_that_is_not_the_simple_runs_solution_makes_the_run_unusable(tmp_path):
    problems = [_problem(0)]
    write_run(tmp_path / "simple/humaneval/gpt-x/run1", problems,
              events_for(problems, {"HumanEval/0": [_call("gpt-x", 9, 3)]}))
    ldb_rows = [{**_problem(0), "seed": "def f0(x):\n    return 'another program'\n"}]
    folder = write_run(tmp_path / "ldb/humaneval/gpt-x+gpt-x/run1", ldb_rows, events_for(ldb_rows, {}))
    run = ae.read_run(folder, "ldb", "gpt-x+gpt-x", KNOWN)
    seeds, why = ae.ldb_seeds(tmp_path, run, KNOWN, {})
    assert seeds is None and "task HumanEval/0: its seed is not the solution of simple/gpt-x/run1" in why
    ldb_rows[0]["seed"] = _problem(0)["solution"]
    folder = write_run(tmp_path / "ldb/humaneval/gpt-x+gpt-x/run1", ldb_rows, events_for(ldb_rows, {}))
    seeds, why = ae.ldb_seeds(tmp_path, ae.read_run(folder, "ldb", "gpt-x+gpt-x", KNOWN), KNOWN, {})
    assert why is None and [(c.model, c.prompt_tokens) for c in seeds["HumanEval/0"]] == [("gpt-x", 9)]


def test_every_run_of_the_source_is_imported_or_named_with_its_reason(shared_data):
    """Issue 62: "33 runs not imported, each named" left 12 more neither imported nor listed (0.5temp: 5, 1step: 1,
    0125-8repeats: 1, boosting: 5). The runs table has a row for every run folder of the source."""
    import re

    from conftest import ROOT
    from helpers.collect.imports.agent_evals import caveats, runs_table
    from helpers.core.params import load_params

    params = load_params(ROOT / "params/humaneval_agents.yaml").model_copy(update={"data_dir": str(shared_data)})
    folders = {p.parent for p in (shared_data / "agent_evals").rglob("*") if re.search(r"\.jsonl(\.gz)?$", p.name)}
    table = runs_table(params)
    assert len(table) == len(folders)
    left = table[table["note"].str.startswith("left out by the set")]
    assert left.groupby("group").size().to_dict() == {"gpt-4-turbo-0409-5repeats-0.5temp": 5,
                                                      "gpt-4-turbo-0409-1step": 1,
                                                      "gpt-4-turbo-0125-8repeats-no-temp-incr": 1,
                                                      "l3_8b-gpt35-l3_70b-gpt4": 5}
    assert not table["note"].str.startswith("in no group").any()
    assert "12 left out by the set" in caveats(params, None)[0]


def test_a_seeded_strategys_seed_model_is_read_from_its_runs_group_name():
    from helpers.collect.imports.agent_evals import seeded_by
    from helpers.core.params import AgentGroup

    runs = {"ldb/m35+m4": AgentGroup(model="m35", method="ldb_seed_gpt4"),
            "ldb/m35+m35": AgentGroup(model="m35", method="ldb"),
            "ldb/n35+m4": AgentGroup(model="n35", method="ldb_seed_gpt4"),
            "ldb/n35+m4t": AgentGroup(model="n35", method="ldb_seed_gpt4"),
            "ldb/k35+zz": AgentGroup(model="k35", method="ldb_seed_gpt4")}
    # n35's groups name two seeds, k35's a model outside the set: neither is said
    assert seeded_by(runs, ["m35", "m4", "m4t", "n35", "k35"]) == {"m35+ldb_seed_gpt4": "m4"}
