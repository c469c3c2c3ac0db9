"""Others' run files of four formats (``core.runlogs``), made here by hand from each format's schema (``run_files``),
imported with ``cost-of-pass import FORMAT PATH``: Tables 5, 6 and 1 equal a computation made in this file from the
files' raw JSON (not the project's readers), to 1e-9; every hostile or broken file is one line naming the file and the
item, and nothing is written; the estimate of a JSON parse's memory bounds its measured peak."""

from __future__ import annotations

import json
import re
import shutil
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

import run_files as rf

EXPERT_USD = 0.5


def write_prices(path: Path) -> Path:
    path.write_text(yaml.safe_dump({"date": "2026-11-01", "source": "the test's prices", "prices": {
        "model-a": {"input_usd_per_mtok": rf.PRICES[0], "cached_input_usd_per_mtok": rf.PRICES[1],
                    "output_usd_per_mtok": rf.PRICES[2]}}}))
    return path


def cli(args: list[str], capsys) -> tuple[int, str, str]:
    from helpers.cli.runner import main

    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


# ---- the source's files, and each attempt computed from their raw JSON alone --------------------------------------

def mini_swe_agent(folder: Path) -> tuple[Path, list[str]]:
    items = rf.write_trajectories(folder / "traj")
    return folder / "traj", [a for i in items for a in ("--results", i)]


def mini_by_hand(folder: Path) -> list[dict]:
    rows = []
    for run in (0, 1):
        resolved = set(json.loads((folder / f"report{run}.json").read_text())["resolved_ids"])
        for path in sorted((folder / "traj" / f"run{run}").rglob("*.traj.json")):
            data = json.loads(path.read_text())
            rows.append({"problem": data["instance_id"], "run": run, "correct": data["instance_id"] in resolved,
                         "usd": data["info"]["model_stats"]["instance_cost"]})
    return rows


def arc_prize(folder: Path) -> tuple[Path, list[str]]:
    solutions = rf.write_arc(folder / "arc" / "tasks")
    return folder / "arc" / "tasks", ["--solutions", str(solutions)]


def arc_by_hand(folder: Path) -> list[dict]:
    solutions = json.loads((folder / "arc" / "solutions.json").read_text())
    rows = []
    for path in sorted((folder / "arc" / "tasks").glob("*.json")):
        pairs = json.loads(path.read_text())
        for run in (0, 1):
            tries = [p[f"attempt_{run + 1}"] for p in pairs]
            usd = sum((t["metadata"]["usage"]["prompt_tokens"] * rf.PRICES[0]
                       + t["metadata"]["usage"]["completion_tokens"] * rf.PRICES[2]) / 1e6 for t in tries)
            right = all(t["answer"] == solutions[path.stem][i] for i, t in enumerate(tries))
            rows.append({"problem": path.stem, "run": run, "correct": right, "usd": usd,
                         "theirs": sum(t["metadata"]["cost"]["total_cost"] for t in tries)})
    return rows


def hal(folder: Path) -> tuple[Path, list[str]]:
    return rf.write_hal(folder / "hal"), []


def hal_by_hand(folder: Path) -> list[dict]:
    rows = []
    for run, path in enumerate(sorted((folder / "hal").glob("*_UPLOAD.json"))):
        data = json.loads(path.read_text())
        parents = {c["parent_id"] for c in data["raw_logging_results"]}
        usd: dict[str, float] = {}
        for call in data["raw_logging_results"]:
            if call["id"] not in parents:  # a leaf: an LLM call
                usd[call["weave_task_id"]] = usd.get(call["weave_task_id"], 0.0) + rf.usd_of(
                    call["summary"]["usage"]["model-a"])
        ok = set(data["results"]["successful_tasks"])
        rows += [{"problem": t, "run": run, "correct": t in ok, "usd": u} for t, u in usd.items()]
    return rows


def openai_evals(folder: Path) -> tuple[Path, list[str]]:
    return rf.write_evals(folder / "evals"), []


def evals_by_hand(folder: Path) -> list[dict]:
    rows = []
    for run, path in enumerate(sorted((folder / "evals").glob("*.jsonl"))):
        usd: dict[str, float] = {}
        for line in path.read_text().splitlines()[1:-1]:
            event = json.loads(line)
            if event["type"] == "sampling":
                usd[event["sample_id"]] = usd.get(event["sample_id"], 0.0) + rf.usd_of(event["data"]["usage"])
            elif event["type"] == "match":
                rows.append({"problem": event["sample_id"], "run": run, "correct": event["data"]["correct"],
                             "usd": usd[event["sample_id"]]})
    return rows


FORMATS = {"mini-swe-agent": ("mini_swe_agent", mini_swe_agent, mini_by_hand),
           "arc-prize": ("arc_prize", arc_prize, arc_by_hand),
           "hal": ("hal", hal, hal_by_hand),
           "openai-evals": ("openai_evals", openai_evals, evals_by_hand)}


def tables_by_hand(rows: list[dict]) -> dict[str, float]:
    """Table 5 (accuracy %), 6 (USD per attempt) and 1 (the frontier with the expert), from per-attempt rows."""
    cells = pd.DataFrame(rows).groupby("problem").agg(R=("correct", "mean"), C=("usd", "mean"))
    alone = np.minimum(np.where(cells["R"] > 0, cells["C"] / cells["R"].where(cells["R"] > 0, 1), np.inf), EXPERT_USD)
    return {"table5_accuracy": cells["R"].mean() * 100, "table6_cost": cells["C"].mean(),
            "table1_frontier_cop": float(np.mean(alone))}


@pytest.mark.slow  # runs every stage of the set, once per format
@pytest.mark.parametrize("command", sorted(FORMATS))
def test_each_format_imports_with_one_command_and_tables_5_6_1_equal_a_computation_from_the_files(
        command, tmp_path, capsys):
    task, make, by_hand = FORMATS[command]
    path, extra = make(tmp_path)
    rows = by_hand(tmp_path)
    assert len(rows) == 12 and 0 < np.mean([r["correct"] for r in rows]) < 1
    code, out, err = cli(["import", command, str(path), *extra, "--name", "fmt-check", "--expert-usd",
                          str(EXPERT_USD), "--prices", str(write_prices(tmp_path / "prices.yaml")), "--params-dir",
                          str(tmp_path / "params"), "--output-dir", str(tmp_path / "results"), "--write-anywhere"],
                         capsys)
    assert code == 0, err[-3000:]
    assert "wrote" in out and (tmp_path / "params/fmt-check.yaml").is_file()
    for name, expected in tables_by_hand(rows).items():
        got = pd.read_csv(tmp_path / "results/tables" / f"{name}.csv").set_index("model")[task]
        assert got.index.tolist() == ["model-a"], name
        assert abs(got["model-a"] - expected) <= 1e-9, (name, got["model-a"], expected)
    html = (tmp_path / "results/report/index.html").read_text()
    assert "IMPORTED" in html
    if command in ("mini-swe-agent", "arc-prize"):  # billed (or the source's) beside computed: the same prices
        assert ("computed / billed = 1.000000" if command == "mini-swe-agent" else "computed / source = 1.000000") \
            in html
    records = pd.concat(pd.read_json(p, lines=True) for p in (tmp_path / "results/records").rglob("*.jsonl"))
    assert len(records) == 12 and (records["status"] == "ok").all()
    if command == "mini-swe-agent":
        assert records["billed_usd"].notna().all()


def test_the_swebench_report_shapes_and_the_runs_rule(tmp_path):
    from helpers.core.errors import CostOfPassError
    from helpers.core.runlogs import read_runs
    from helpers.core.runlogs.swe_agent import verdicts

    run_report = tmp_path / "run.json"
    run_report.write_text(json.dumps({"resolved_ids": ["a"], "submitted_ids": ["a", "b"]}))
    assert verdicts(run_report) == ({"a": True, "b": False}, False)
    run_report.write_text(json.dumps({"resolved_ids": ["a"]}))
    assert verdicts(run_report) == ({"a": True}, True)  # without submitted_ids every other instance is unresolved
    per_instance = tmp_path / "report.json"
    per_instance.write_text(json.dumps({"a": {"resolved": False, "patch_exists": True}, "b": {"resolved": True}}))
    assert verdicts(per_instance) == ({"a": False, "b": True}, False)
    items = rf.write_trajectories(tmp_path / "traj", n=3, runs=2)
    with pytest.raises(CostOfPassError, match="a second trajectory in run 1"):  # two runs read as one
        read_runs("mini_swe_agent", tmp_path / "traj", {"results": [items[0].split("=", 1)[1]]})
    swe = tmp_path / "swe" / "x__y-1.traj"  # SWE-agent's own layout and fields
    swe.parent.mkdir()
    swe.write_text(json.dumps(rf.swe_agent_trajectory(0, 0)))
    per_instance.write_text(json.dumps({"x__y-1": {"resolved": True}}))
    [run] = read_runs("mini_swe_agent", swe.parent, {"results": [str(per_instance)]})
    [a] = run.samples
    assert (run.model, a.sample_id, a.verdict, a.billed_usd, a.tokens["prompt_tokens"], a.calls) == \
        (rf.MODEL, "x__y-1", True, 0.02, 1000, 3)


def test_arc_reasoning_billed_apart_is_added_to_the_completion():
    from helpers.core.runlogs.arc_prize import tokens

    inside = {"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150,
              "completion_tokens_details": {"reasoning_tokens": 30}}
    apart = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 150}
    assert tokens(Path("t.json"), "x", inside)["completion_tokens"] == 50
    assert tokens(Path("t.json"), "x", apart) == {"prompt_tokens": 100, "cache_read_tokens": 0,
                                                  "cache_write_tokens": 0, "completion_tokens": 50,
                                                  "reasoning_tokens": 30}


SHAPES = {  # JSON texts of a few shapes, about 1 MB each: the worst measured (common's docstring), and ordinary ones
    "lists nested fifty deep": "[" + ",".join(["[" * 50 + "1" + "]" * 50] * 10_000) + "]",
    "empty dicts": "[" + ",".join(["{}"] * 300_000) + "]",
    "keys distinct across dicts": "[" + ",".join(f'{{"{i:x}":0}}' for i in range(80_000)) + "]",
    "one dict of distinct keys": json.dumps({f"{i:x}": 0 for i in range(90_000)}),
    "ints -6": "[" + ",".join(["-6"] * 300_000) + "]",
    "ASCII with one emoji": json.dumps(["\N{SLIGHTLY SMILING FACE}"] + [f"the answer to question {i} is no" * 8
                                                                       for i in range(4_000)], ensure_ascii=False),
    "chat records": json.dumps([{"role": "user", "content": f"question {i}: " + "why is the sky blue? " * 40}
                                for i in range(1_200)]),
}


def parse_peak_measured(text: bytes) -> int:
    """The ``tracemalloc`` peak of ``json.loads(text)`` plus the text held (bytes), as the coefficients were fitted."""
    tracemalloc.start()
    try:
        json.loads(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak + len(text)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_estimate_of_a_parse_bounds_its_measured_peak(shape):
    """Each shape's parse, measured again, stays within the estimate made before parsing (``parse_peak``), and the
    estimate is not loose on the worst shapes (measured over estimated at most 0.90 when fitted)."""
    from helpers.core.runlogs import common

    text = SHAPES[shape].encode()
    measured, estimated = parse_peak_measured(text), common.parse_peak([text])
    assert measured <= estimated, f"{shape}: measured {measured / len(text):.1f} bytes per byte, estimated " \
        f"{estimated / len(text):.1f}"
    if shape in ("lists nested fifty deep", "keys distinct across dicts", "ints -6", "ASCII with one emoji"):
        assert measured > 0.75 * estimated
    assert common.parse_peak([text[:1000], text[1000:]]) == estimated  # counted a chunk at a time, the same


def test_a_pathological_file_within_the_old_size_cap_is_refused_by_its_estimate(tmp_path):
    """80 MB of empty dicts, within the old flat cap (91 MiB), would parse into over 2 GB (26 bytes per byte, measured)
    and is estimated above the 4 GiB budget: refused in one line naming the file, the estimate and the budget."""
    from helpers.core.errors import CostOfPassError
    from helpers.core.runlogs import common

    path = tmp_path / "empty-dicts.json"
    path.write_bytes(b"[" + b"{}," * 26_666_666 + b"{}]")
    assert path.stat().st_size < 91 << 20
    says = rf"^{re.escape(str(path))}: -: a JSON parse estimated at [\d,]+ bytes of memory \(4\.\d GiB\), more than " \
        r"the budget of 4,294,967,296 \(4\.0 GiB\) \(refused before parsing"
    with pytest.raises(CostOfPassError, match=says):
        common.read_json(path, "HAL upload file")


def test_a_large_ordinary_file_passes_the_estimate(tmp_path):
    """150 MB of chat-like records (long strings, a few keys each), above the old flat cap, is estimated within the
    budget (about 4 bytes per byte); read by the pre-scan a chunk at a time as a file, not parsed here."""
    from helpers.core.runlogs import common

    record = json.dumps({"role": "assistant", "content": "Let me think about the grid step by step. " * 60,
                         "usage": {"input_tokens": 1234, "output_tokens": 567}})
    path = tmp_path / "chat.json"
    path.write_text("[" + ",".join([record] * (150_000_000 // len(record))) + "]")
    size = path.stat().st_size
    assert size > 150e6 - len(record)
    with path.open("rb") as fh:
        peak = common.parse_peak(common.file_chunks(fh, size))
    assert 3 * size < peak < 5 * size < common.PARSE_BUDGET_BYTES
    with path.open("rb") as fh:
        common.check_parse(path, "-", common.file_chunks(fh, size))  # raises nothing


def test_the_budget_and_the_ceilings():
    from helpers.core import inspect_logs
    from helpers.core.runlogs import common

    assert common.PARSE_BUDGET_BYTES == common.MAX_JSON_BYTES == common.MAX_JSONL_BYTES == 4 << 30
    assert inspect_logs.MAX_UNPACKED_BYTES == common.MAX_JSON_BYTES
    assert not hasattr(inspect_logs, "MAX_JSON_BYTES")


# ---- hostile or broken files: one line naming the file and the item, nothing written --------------------------------

def edit_json(path: Path, change) -> Path:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))
    return path


def edit_lines(path: Path, change) -> Path:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    change(lines)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def truncate(path: Path) -> Path:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    return path


def pad(path: Path) -> Path:
    """The file past the test's budget (``HUGE``) by trailing spaces (three bytes each in the estimate): still valid
    JSON (JSONL: its first line)."""
    if path.suffix == ".jsonl":
        lines = path.read_text().splitlines()
        path.write_text("\n".join([lines[0] + " " * HUGE, *lines[1:]]) + "\n")
    else:
        path.write_text(path.read_text() + " " * HUGE)
    return path


HUGE = 1_000_000  # the parse budget the huge cases set (bytes): above every file's estimate written here


def first(folder: Path, pattern: str) -> Path:
    return sorted(folder.rglob(pattern))[0]


def traj(d: Path) -> Path:
    return first(d, "*.traj.json")


def arc(d: Path) -> Path:
    return first(d / "arc" / "tasks", "*.json")


def upload(d: Path) -> Path:
    return first(d / "hal", "*_UPLOAD.json")


def log(d: Path) -> Path:
    return first(d / "evals", "*.jsonl")


def leaf(data: dict) -> dict:
    return next(c for c in data["raw_logging_results"] if c["parent_id"])


def sampling(lines: list) -> dict:
    return next(e for e in lines if e.get("type") == "sampling")


BROKEN = {
    ("mini-swe-agent", "another format"): (lambda d: edit_json(traj(d), lambda t: t.clear() or t.update(results=[])),
                                           "not a mini-SWE-agent or SWE-agent trajectory"),
    ("mini-swe-agent", "no cost"): (lambda d: edit_json(traj(d), lambda t: t["info"]["model_stats"].pop(
        "instance_cost")), "info.model_stats: no instance_cost (missing cost)"),
    ("mini-swe-agent", "a negative cost"): (lambda d: edit_json(traj(d), lambda t: t["info"]["model_stats"].update(
        instance_cost=-0.5)), "instance_cost is -0.5: not a USD amount"),
    ("mini-swe-agent", "absurd calls"): (lambda d: edit_json(traj(d), lambda t: t["info"]["model_stats"].update(
        api_calls=10**9)), "api_calls is 1000000000: not a number of API calls"),
    ("mini-swe-agent", "negative tokens"): (lambda d: edit_json(traj(d), lambda t: t["messages"][2]["extra"][
        "response"]["usage"].update(completion_tokens=-4)), "message 2: usage.completion_tokens is -4"),
    ("mini-swe-agent", "mixed models"): (lambda d: edit_json(traj(d), lambda t: t["info"]["config"]["model"].update(
        model_name="other/model-z")), "mixed models: openai/model-a (first in "),
    ("mini-swe-agent", "truncated"): (lambda d: truncate(traj(d)), "not a whole JSON trajectory (truncated"),
    ("mini-swe-agent", "huge"): (lambda d: pad(traj(d)), "more than the budget of 1,000,000"),
    ("arc-prize", "another format"): (lambda d: edit_json(arc(d), lambda t: t.clear()),
                                      "not an ARC attempt file"),
    ("arc-prize", "no usage"): (lambda d: edit_json(arc(d), lambda t: t[0]["attempt_1"]["metadata"].pop("usage")),
                                "test input 0 attempt_1: no field usage"),
    ("arc-prize", "no cost"): (lambda d: edit_json(arc(d), lambda t: t[0]["attempt_2"]["metadata"].pop("cost")),
                               "test input 0 attempt_2: no field cost"),
    ("arc-prize", "negative tokens"): (lambda d: edit_json(arc(d), lambda t: t[0]["attempt_1"]["metadata"]["usage"]
                                                           .update(prompt_tokens=-1)), "prompt_tokens is -1"),
    ("arc-prize", "absurd tokens"): (lambda d: edit_json(arc(d), lambda t: t[0]["attempt_1"]["metadata"]["usage"]
                                                         .update(completion_tokens=10**13, total_tokens=10**14)),
                                     "completion_tokens is 10000000000000: not a token count"),
    ("arc-prize", "mixed models"): (lambda d: edit_json(arc(d), lambda t: t[0]["attempt_2"]["metadata"].update(
        model="model-z")), "mixed models: model-a (first in "),
    ("arc-prize", "truncated"): (lambda d: truncate(arc(d)), "not a whole JSON ARC attempt file (truncated"),
    ("arc-prize", "huge"): (lambda d: pad(arc(d)), "more than the budget of 1,000,000"),
    ("hal", "another format"): (lambda d: edit_json(upload(d), lambda t: t.clear() or t.update(results=[1])),
                                "not a HAL upload file"),
    ("hal", "no usage"): (lambda d: edit_json(upload(d), lambda t: t.update(raw_logging_results=[])),
                          "raw_logging_results: no call with usage"),
    ("hal", "a task without calls"): (lambda d: edit_json(upload(d), lambda t: t.update(raw_logging_results=[
        c for c in t["raw_logging_results"] if c["weave_task_id"] != "task_2"])),
        "task task_2: a verdict but no logged call with usage"),
    ("hal", "negative tokens"): (lambda d: edit_json(upload(d), lambda t: leaf(t)["summary"]["usage"]["model-a"]
                                                     .update(prompt_tokens=-7)), "prompt_tokens is -7"),
    ("hal", "absurd tokens"): (lambda d: edit_json(upload(d), lambda t: leaf(t)["summary"]["usage"]["model-a"]
                                                   .update(completion_tokens=10**12)), "not a token count"),
    ("hal", "mixed models"): (lambda d: edit_json(upload(d), lambda t: leaf(t)["summary"].update(usage={
        "model-z": leaf(t)["summary"]["usage"]["model-a"]})), "mixed models: model-a, model-z"),
    ("hal", "truncated"): (lambda d: truncate(upload(d)), "not a whole JSON HAL upload file (truncated"),
    ("hal", "huge"): (lambda d: pad(upload(d)), "more than the budget of 1,000,000"),
    ("openai-evals", "another format"): (lambda d: edit_lines(log(d), lambda t: t.pop(0)),
                                         'line 1: not an OpenAI evals record log'),
    ("openai-evals", "no usage"): (lambda d: edit_lines(log(d), lambda t: sampling(t)["data"].pop("usage")),
                                   "sampling without usage"),
    ("openai-evals", "negative tokens"): (lambda d: edit_lines(log(d), lambda t: sampling(t)["data"]["usage"].update(
        prompt_tokens=-2)), "usage.prompt_tokens is -2"),
    ("openai-evals", "absurd tokens"): (lambda d: edit_lines(log(d), lambda t: sampling(t)["data"]["usage"].update(
        completion_tokens=10**11)), "not a token count"),
    ("openai-evals", "mixed models"): (lambda d: edit_lines(log(d), lambda t: sampling(t)["data"].update(
        model="model-z")), "mixed models: model-a, model-z"),
    ("openai-evals", "truncated"): (lambda d: truncate(log(d)), "not a JSON evals record line (truncated"),
    ("openai-evals", "no final report"): (lambda d: edit_lines(log(d), lambda t: t.pop()), "no final_report line"),
    ("openai-evals", "no match"): (lambda d: edit_lines(log(d), lambda t: t.remove(next(
        e for e in t if e.get("type") == "match"))), "no match at all"),
    ("openai-evals", "huge"): (lambda d: pad(log(d)), "line 1: a JSON parse estimated at"),
}


@pytest.mark.parametrize("case", sorted(BROKEN), ids=lambda c: f"{c[0]}-{c[1]}".replace(" ", "_"))
def test_a_hostile_or_broken_file_is_one_line_naming_it_and_nothing_is_written(case, tmp_path, capsys, monkeypatch):
    from helpers.core.runlogs import common

    command = case[0]
    _, make, _ = FORMATS[command]
    path, extra = make(tmp_path)
    if case[1] == "huge":  # a file above the budget: refused by its estimate, before parsing
        monkeypatch.setattr(common, "PARSE_BUDGET_BYTES", HUGE)
    make_bad, says = BROKEN[case]
    bad = make_bad(tmp_path)
    code, out, err = cli(["import", command, str(path), *extra, "--name", "broken", "--expert-usd", "1", "--prices",
                          str(write_prices(tmp_path / "prices.yaml")), "--params-dir", str(tmp_path / "params"),
                          "--output-dir", str(tmp_path / "results"), "--write-anywhere"], capsys)
    assert code != 0 and len(err.strip().splitlines()) == 1, err
    assert str(bad) in err and says in err, err
    assert not (tmp_path / "params").exists() and not (tmp_path / "results").exists()


@pytest.mark.parametrize("args, says", [
    (["mini-swe-agent"], "give --results"),
    (["hal", "--solutions", "s.json"], "--solutions is for arc-prize runs, not hal"),
    (["arc-prize", "--scorer", "match"], "--scorer is for inspect runs, not arc-prize"),
    (["openai-evals", "--no-prices"], "give --prices"),
])
def test_a_wrong_option_is_one_line(args, says, tmp_path, capsys):
    folder = rf.write_evals(tmp_path / "evals") if args[0] == "openai-evals" else \
        rf.write_hal(tmp_path / "hal") if args[0] == "hal" else tmp_path
    if args[0] == "mini-swe-agent":
        rf.write_trajectories(tmp_path / "traj", n=2, runs=1)
        folder = tmp_path / "traj"
    prices = [] if "--no-prices" in args else ["--prices", str(write_prices(tmp_path / "prices.yaml"))]
    code, out, err = cli(["import", args[0], str(folder), *[a for a in args[1:] if a != "--no-prices"], "--name", "w",
                          "--expert-usd", "1", *prices, "--params-dir", str(tmp_path / "params"), "--write-anywhere"],
                         capsys)
    assert code != 0 and len(err.strip().splitlines()) == 1 and says in err, err
    assert not (tmp_path / "params").exists()


def test_a_set_file_can_name_run_files_directly(tmp_path, write_set):
    from helpers.core.context import prepare
    from helpers.core.params import load_params

    items = rf.write_trajectories(tmp_path / "traj", n=3, runs=1)
    registry = tmp_path / "models.yaml"
    registry.write_text(yaml.safe_dump({"models": {"model-a": {
        "label": "model-a", "litellm_id": rf.MODEL, "family": "openai", "release_date": "2026-01-01",
        "imported": {"name": rf.MODEL, "billed_usd": True}}}}))
    params = load_params(write_set({
        "name": "direct", "tasks": ["mini_swe_agent"], "models": ["model-a"], "models_file": str(registry),
        "n_problems": 3, "n_runs": 1, "price_snapshot": "billed_usd", "budget_usd": 1,
        "expert_usd": {"mini_swe_agent": 3.0},
        "import_from": {"format": "mini_swe_agent", "path": str(tmp_path / "traj"), "results": items}}))
    ctx = prepare(params)
    assert params.billed and sorted(p.problem_id for p in ctx.problems["mini_swe_agent"]) == \
        [rf.instance(i) for i in range(3)]


def test_the_docs_give_one_command_per_format():
    from conftest import ROOT
    from helpers.core.runlogs import FORMATS as KNOWN

    text = (ROOT / "docs" / "data.md").read_text(encoding="utf-8")
    blocks = "\n".join(b.split("```", 1)[0] for b in text.split("```text")[1:])
    for f in KNOWN.values():
        assert f"cost-of-pass import {f.command} " in blocks, f.command
    assert "cost-of-pass import" not in "\n".join(b.split("```", 1)[0] for b in text.split("```bash")[1:])


def test_the_folder_copy_keeps_every_format_readable(tmp_path):
    """Each writer's files read back whole (a quick check of the schemas the slow test imports)."""
    from helpers.core.runlogs import read_runs

    items = rf.write_trajectories(tmp_path / "traj")
    solutions = rf.write_arc(tmp_path / "arc" / "tasks")
    got = {"mini_swe_agent": read_runs("mini_swe_agent", tmp_path / "traj", {"results": items}),
           "arc_prize": read_runs("arc_prize", tmp_path / "arc" / "tasks", {"solutions": str(solutions)}),
           "hal": read_runs("hal", rf.write_hal(tmp_path / "hal"), {}),
           "openai_evals": read_runs("openai_evals", rf.write_evals(tmp_path / "evals"), {})}
    for fmt, runs in got.items():
        assert sum(len(r.samples) for r in runs) == 12 and {r.model for r in runs} in ({"model-a"}, {rf.MODEL}), fmt
    shutil.rmtree(tmp_path / "hal")
