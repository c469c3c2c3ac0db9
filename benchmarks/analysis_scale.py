"""Analysis time and peak memory at 1x, 10x and 100x the paper's records (synthetic), side by side.

    .venv/bin/python benchmarks/analysis_scale.py [SCALES]      # default: 1,10,100

The paper's set is 6 datasets (AIME 30 problems, the others 128) x 10 models x 8 runs x (vanilla +
self-refine's two calls) = 160,800 calls. A scale s has s times as many problems per dataset. For
each scale a child process writes SYNTHETIC graded calls (answers drawn from a few classes per
problem, tokens log-normal) to parquet; a second, fresh child reads them and runs the analysis the
pipeline runs after grading: attempts from calls, prices, the per-problem estimates of every
strategy (vanilla, self-refine, majority vote k=3 and k=4), the cost-of-pass matrix, the expert,
Table 1, the frontier over releases, both counterfactuals and the technique gains. It prints the
analysis child's wall time and peak resident memory (ru_maxrss, the whole process: Python,
libraries and data; Arrow's buffers come from the system allocator, so freed memory is returned and
not held in a pool). Targets (issue 8): 100x under 60 s and 4 GiB.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("COP_WRITE_ANYWHERE", "1")  # a benchmark writes its sets under a temporary directory

PAPER_CALLS = 160_800
TASKS = {"two_digit_addition": 128, "gsm8k": 128, "bbq": 128, "gpqa_diamond": 128, "math500": 128, "aime24": 30}
REGISTRY = "params/registry/sim_paper.yaml"
SNAPSHOT = "sim_paper_table4_2025-04"
METHODS = ["vanilla", "self_refine", "majority_vote_k3", "majority_vote_k4"]
RUNS = 8


def models() -> list[str]:
    import yaml

    return list(yaml.safe_load(Path(REGISTRY).read_text())["models"])


def write_calls(scale: int, path: Path) -> int:
    """SYNTHETIC graded calls at ``scale`` x the paper's problems, as the grading stage writes them."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(scale)
    names = models()
    frames = []
    for task, n in TASKS.items():
        pids = np.array([f"{task}-{i}" for i in range(n * scale)])
        for mi, model in enumerate(names):
            skill = rng.uniform(0.1, 0.9)
            for method, calls in (("vanilla", 1), ("self_refine", 2)):
                p_idx, run, call = np.meshgrid(np.arange(len(pids)), np.arange(RUNS), np.arange(calls), indexing="ij")
                p_idx, run, call = p_idx.ravel(), run.ravel(), call.ravel()
                correct = rng.random(len(p_idx)) < skill
                wrong_class = rng.integers(1, 4, len(p_idx))  # three wrong answers per problem
                key = np.where(correct, 0, wrong_class)
                frames.append(pd.DataFrame({
                    "task": task, "problem_id": pids[p_idx], "model": model, "method": method,
                    "run": run, "call": call, "status": "ok",
                    "correct": pd.array(correct, dtype="boolean"),
                    "extracted": pd.array(key.astype(str), dtype="string"),
                    "answer_key": pd.array(key.astype(str), dtype="string"),
                    "prompt_tokens": rng.integers(50, 400, len(p_idx)),
                    "completion_tokens": np.maximum(1,
                                                    rng.lognormal(np.log(300 * (mi + 1)), 0.5, len(p_idx)).astype(int)),
                    "reasoning_tokens": 0, "simulated": True,
                }))
    calls = pd.concat(frames, ignore_index=True)
    calls.to_parquet(path, index=False)
    return len(calls)


def analyse(path: Path) -> dict:
    """The pipeline's analysis after grading, on the graded calls at ``path``; returns its figures."""
    start = time.perf_counter()
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    from helpers.analyze import costofpass as cp
    from helpers.core.experts import expert_per_problem
    from helpers.core.models import resolve_models
    from helpers.core.paths import repo_root
    from helpers.core.prices import cost_usd, load_snapshot
    from helpers.grade.answers import attempts_from_calls
    from helpers.grade.estimates import estimates_from_attempts, strategy_name

    pa.set_memory_pool(pa.system_memory_pool())  # freed buffers go back to the OS: ru_maxrss is what the data needs
    # the string columns dictionary-encoded as read (categoricals), as a reader of graded calls would
    calls = pq.read_table(path, read_dictionary=["task", "problem_id", "model", "method", "status", "extracted",
                                                 "answer_key"]).to_pandas(self_destruct=True, split_blocks=True)
    attempts = attempts_from_calls(calls)
    del calls
    snapshot = load_snapshot(repo_root() / "params" / "prices" / f"{SNAPSHOT}.yaml")
    attempts["usd"] = cost_usd(attempts, snapshot)
    estimates = estimates_from_attempts(attempts, METHODS, seed=0)
    cop = cp.cop_matrix(estimates)
    expert = expert_per_problem(cop.index, "high")
    specs = resolve_models(models(), repo_root() / REGISTRY)
    names = [m.name for m in specs]
    vanilla = cop[names]
    cp.single_model_frontier(vanilla, expert)
    releases = pd.Series({m.name: pd.Timestamp(m.release_date) for m in specs})
    cp.frontier_over_time(vanilla, releases, expert)
    cp.family_counterfactual(vanilla, pd.Series({m.name: m.family for m in specs}), expert)
    cp.single_model_counterfactual(vanilla, names, expert)
    base = [m.name for m in specs if m.family in ("lightweight", "large")]
    for method in METHODS[1:]:
        cp.technique_gain(cop, base, [strategy_name(m, method) for m in base], expert)
    return {"seconds": time.perf_counter() - start, "attempts": len(attempts), "estimates": len(estimates),
            "peak_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}


def child(*args: str) -> dict:
    out = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, timeout=3600)
    if out.returncode != 0:
        raise SystemExit(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(scales: list[int]) -> None:
    print(f"{'scale':>6} {'calls':>12} {'attempts':>11} {'analysis s':>11} {'peak GiB':>9} {'s per 1M calls':>15}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for s in scales:
            path = Path(tmp) / f"calls_{s}.parquet"
            n = child("--write", str(s), str(path))["calls"]
            r = child("--analyse", str(path))
            path.unlink()
            rows.append((s, n, r))
            print(f"{s:>5}x {n:>12,} {r['attempts']:>11,} {r['seconds']:>11.1f} {r['peak_gib']:>9.2f} "
                  f"{r['seconds'] / n * 1e6:>15.2f}", flush=True)
    if len(rows) > 1:
        (s0, n0, r0), (s1, n1, r1) = rows[0], rows[-1]
        print(f"{s1}x vs {s0}x: {n1 / n0:.0f}x the calls in {r1['seconds'] / r0['seconds']:.1f}x the time, "
              f"{r1['peak_gib'] / r0['peak_gib']:.1f}x the peak memory")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--write"]:
        print(json.dumps({"calls": write_calls(int(sys.argv[2]), Path(sys.argv[3]))}))
    elif sys.argv[1:2] == ["--analyse"]:
        print(json.dumps(analyse(Path(sys.argv[2]))))
    else:
        main([int(s) for s in (sys.argv[1] if len(sys.argv) > 1 else "1,10,100").split(",")])
