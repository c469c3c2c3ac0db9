"""Small run files of four formats, written here by hand following each format's schema (``core.runlogs``'s modules
say which version of whose code it is read from): mini-SWE-agent and SWE-agent trajectories with a SWE-bench report,
ARC Prize attempt files with a solutions file, a HAL upload file, OpenAI evals record logs. Nothing is copied from
real data: every number comes from the small rules below, so a test can compute every table from the files alone.

Every writer takes a folder and returns what the command needs (the path, and the results or solutions file).
Token counts and verdicts vary with the problem and the run, and a few problems are never passed.
"""

from __future__ import annotations

import json
from pathlib import Path

MODEL = "openai/model-a"  # the runs' model (a provider/model name, as the tools write it)
PRICES = (1.25, 0.125, 10.0)  # model-a's USD per 1M input, cached input and output tokens


def usd_of(u: dict) -> float:
    """An OpenAI-style usage at ``PRICES`` (cached prompt tokens at the cached rate, reasoning inside completion)."""
    cached = u.get("prompt_tokens_details", {}).get("cached_tokens", 0)
    return ((u["prompt_tokens"] - cached) * PRICES[0] + cached * PRICES[1] + u["completion_tokens"] * PRICES[2]) / 1e6


def passes(i: int, run: int) -> bool:
    """Whether run ``run`` passes problem ``i``: every third problem fails on the first run only, every fifth always."""
    return i % 5 != 4 and not (i % 3 == 0 and run == 0)


def usage(i: int, run: int) -> dict:
    """An OpenAI-style usage of one call: some cached prompt and reasoning tokens."""
    prompt, cached = 300 + 17 * i + 5 * run, 64 * ((i + run) % 3)
    completion, reasoning = 40 + 3 * i + run, 8 * (i % 4)
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached},
            "completion_tokens_details": {"reasoning_tokens": reasoning}}


def mini_trajectory(iid: str, i: int, run: int, calls: int = 2) -> dict:
    """A mini-SWE-agent 2.x trajectory (``DefaultAgent.serialize``): messages with per-call usage, model stats with the
    billed cost (its calls at ``PRICES``, as litellm would bill them), the model's config, exit status and
    submission."""
    messages = [{"role": "system", "content": "You are a helpful assistant."},
                {"role": "user", "content": f"Fix issue {iid}."}]
    for k in range(calls):
        messages += [{"role": "assistant", "content": f"step {k}",
                      "extra": {"response": {"usage": usage(i + k, run)}, "cost": 0.0, "timestamp": 1.7e9 + k}},
                     {"role": "user", "content": "ok"}]
    bill = sum(usd_of(usage(i + k, run)) for k in range(calls))
    return {"info": {"model_stats": {"instance_cost": bill, "api_calls": calls},
                     "config": {"model": {"model_name": MODEL}, "agent_type": "DefaultAgent"},
                     "mini_version": "2.4.6", "exit_status": "Submitted" if i % 4 else "LimitsExceeded",
                     "submission": f"diff --git a/{iid}.py b/{iid}.py"},
            "messages": messages, "trajectory_format": "mini-swe-agent-1.1", "instance_id": iid}


def swe_agent_trajectory(i: int, run: int) -> dict:
    """A SWE-agent 1.x ``.traj`` (``get_trajectory_data``): model stats with tokens, the replay config's model."""
    return {"trajectory": [{"action": "ls", "observation": ""}], "history": [{"role": "user", "content": "Fix it."}],
            "info": {"model_stats": {"instance_cost": round(0.02 * (i + 1), 6), "tokens_sent": 1000 + 10 * i,
                                     "tokens_received": 100 + i, "api_calls": 3},
                     "exit_status": "submitted", "submission": "diff"},
            "replay_config": json.dumps({"agent": {"model": {"name": MODEL}}}), "environment": "main"}


def instance(i: int) -> str:
    return f"repo__pkg-{1000 + i}"


def write_trajectories(folder: Path, n: int = 6, runs: int = 2) -> list[str]:
    """``runs`` run folders of mini-SWE-agent trajectories (``run<k>/<iid>/<iid>.traj.json``), each with the SWE-bench
    harness's run report beside it (``report<k>.json``: ``resolved_ids`` and ``submitted_ids``). Returns the
    ``--results`` items (``run<k>=<report>``)."""
    items = []
    for run in range(runs):
        for i in range(n):
            path = folder / f"run{run}" / instance(i) / f"{instance(i)}.traj.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(mini_trajectory(instance(i), i, run)))
        report = folder.parent / f"report{run}.json"
        ids = [instance(i) for i in range(n)]
        report.write_text(json.dumps({"total_instances": n, "submitted_ids": ids,
                                      "resolved_ids": [instance(i) for i in range(n) if passes(i, run)],
                                      "unresolved_ids": [instance(i) for i in range(n) if not passes(i, run)],
                                      "schema_version": 2}))
        items.append(f"run{run}={report}")
    return items


def grid(i: int, k: int) -> list[list[int]]:
    return [[(i + k + c) % 10 for c in range(3)] for _ in range(2)]


def arc_attempt(task: str, i: int, pair: int, run: int, right: bool) -> dict:
    """One attempt of arc-agi-benchmarking's schema (``Attempt``: answer, correct, metadata with usage and cost; the
    cost at 1.25 and 10 USD per 1M input and output tokens, reasoning inside the completion)."""
    u = usage(i + pair, run)
    cost = u["prompt_tokens"] * 1.25e-6 + u["completion_tokens"] * 10e-6
    return {"answer": grid(i, pair) if right else [[9]], "correct": right,
            "metadata": {"model": "model-a", "provider": "openai", "start_timestamp": "2026-03-01T10:00:00+00:00",
                         "end_timestamp": "2026-03-01T10:00:03+00:00", "choices": [], "kwargs": {},
                         "usage": {k: u[k] for k in ("prompt_tokens", "completion_tokens", "total_tokens",
                                                     "completion_tokens_details")},
                         "cost": {"prompt_cost": u["prompt_tokens"] * 1.25e-6,
                                  "completion_cost": u["completion_tokens"] * 10e-6, "reasoning_cost": 0.0,
                                  "total_cost": cost},
                         "task_id": task, "pair_index": pair, "test_id": "model-a"}}


def write_arc(folder: Path, n: int = 6) -> Path:
    """One attempt file per task (two test inputs for every third task), two attempts each, and the solutions file
    beside the folder. Returns the solutions file."""
    folder.mkdir(parents=True, exist_ok=True)
    solutions = {}
    for i in range(n):
        task = f"{0xa0 + i:08x}"
        pairs = 2 if i % 3 == 1 else 1
        solutions[task] = [grid(i, p) for p in range(pairs)]
        entries = [{f"attempt_{run + 1}": arc_attempt(task, i, p, run, passes(i, run) or (p == 1 and run == 0))
                    for run in range(2)} for p in range(pairs)]
        (folder / f"{task}.json").write_text(json.dumps(entries))
    path = folder.parent / "solutions.json"
    path.write_text(json.dumps(solutions))
    return path


def weave_call(task: str, i: int, k: int, run: int, parent: str | None = None) -> dict:
    """One Weave call of HAL's list form: a leaf LLM call with ``summary.usage`` per model and ``output.usage``."""
    u = usage(i + k, run)
    return {"id": f"{task}-{k}", "parent_id": parent, "weave_task_id": task, "inputs": {"model": "model-a"},
            "output": {"model": "model-a", "usage": u, "choices": [{"message": {"content": "ok"}}]},
            "summary": {"usage": {"model-a": {**u, "requests": 1}}}, "attributes": {"weave_task_id": task}}


def write_hal(folder: Path, n: int = 6, runs: int = 2) -> Path:
    """``runs`` HAL upload files (``<run_id>_UPLOAD.json``): per task two leaf LLM calls under one parent op whose
    summary rolls their usage up (which must not be counted twice)."""
    folder.mkdir(parents=True, exist_ok=True)
    for run in range(runs):
        tasks = [f"task_{i}" for i in range(n)]
        calls = []
        for i, task in enumerate(tasks):
            leaves = [weave_call(task, i, k, run, parent=f"{task}-root") for k in range(2)]
            rolled = {b: sum(c["summary"]["usage"]["model-a"][b] for c in leaves) for b in ("prompt_tokens",
                                                                                            "completion_tokens")}
            calls += [{"id": f"{task}-root", "parent_id": None, "weave_task_id": task, "inputs": {}, "output": None,
                       "summary": {"usage": {"model-a": rolled}}}, *leaves]
        data = {"config": {"agent_name": "toy agent", "benchmark_name": "usaco", "date": "2026-02-0" + str(run + 1),
                           "run_id": f"usaco_toy_{run}", "agent_args": {"model_name": "model-a"}},
                "results": {"accuracy": sum(passes(i, run) for i in range(n)) / n, "total_cost": 1.0,
                            "successful_tasks": [t for i, t in enumerate(tasks) if passes(i, run)],
                            "failed_tasks": [t for i, t in enumerate(tasks) if not passes(i, run)],
                            "latencies": {t: {"total_time": 2.5} for t in tasks}},
                "raw_eval_results": {}, "raw_logging_results": calls, "task_prompts": {t: f"Solve {t}." for t in tasks},
                "total_usage": {}, "total_cost": 1.0}
        (folder / f"usaco_toy_{run}_UPLOAD.json").write_text(json.dumps(data))
    return folder


def write_evals(folder: Path, n: int = 6, runs: int = 2) -> Path:
    """``runs`` OpenAI evals record logs of one eval: per sample one or two sampling events (with usage) and a match;
    the sample ids the same in every log (each log one run)."""
    folder.mkdir(parents=True, exist_ok=True)
    for run in range(runs):
        run_id = f"26030{run}0000ABCDE"
        lines = [{"spec": {"completion_fns": ["model-a-fn"], "eval_name": "toy-match.dev.v0", "base_eval": "toy-match",
                           "split": "dev", "run_config": {}, "created_by": "", "run_id": run_id,
                           "created_at": f"2026-03-0{run + 1} 10:00:00"}}]
        event = 0
        for i in range(n):
            sid = f"toy-match.dev.{i}"
            for k in range(1 + i % 2):
                lines.append({"run_id": run_id, "event_id": event, "sample_id": sid, "type": "sampling",
                              "data": {"prompt": [{"role": "user", "content": f"Q{i}"}], "sampled": [f"A{i}"],
                                       "model": "model-a", "usage": usage(i + k, run)},
                              "created_by": "", "created_at": "2026-03-01 10:00:01"})
                event += 1
            lines.append({"run_id": run_id, "event_id": event, "sample_id": sid, "type": "match",
                          "data": {"correct": passes(i, run), "expected": f"A{i}", "picked": f"A{i}"},
                          "created_by": "", "created_at": "2026-03-01 10:00:02"})
            event += 1
        lines.append({"final_report": {"accuracy": sum(passes(i, run) for i in range(n)) / n}, "run_id": run_id})
        (folder / f"{run_id}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return folder
