"""How much does the litellm path cost per call? Simulated calls timed side by side, in one run.

    .venv/bin/python benchmarks/collect_overhead.py [N]

Prints calls per second for (1) the simulator alone, (2) litellm.completion to the simulated
provider, (3) the collector's direct call of the same handler (what simulated sets use), (4) the
full collection path through litellm (+ record store), (5) the direct path + record store, (6) the
litellm path on 4 threads, and their ratios. Simulated calls are CPU-bound Python, so threads share one interpreter lock
and add little; the simulated sets use ``concurrency: 1``.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from helpers.collect.backends import sim
from helpers.collect.budget import Budget
from helpers.collect.calling import Caller, run_attempt
from helpers.collect.plan import plan_attempts
from helpers.collect.records import RecordStore
from helpers.core.models import ModelSpec
from helpers.core.params import Params
from helpers.core.tasks.two_digit_addition import generate

os.environ.setdefault("COP_WRITE_ANYWHERE", "1")  # a benchmark writes its sets under a temporary directory

N = int(sys.argv[1]) if len(sys.argv) > 1 else 300
PROFILE = sim.SimProfile(accuracy={"two_digit_addition": 0.9}, completion_tokens={"two_digit_addition": 60})
MODEL = ModelSpec(name="bench", label="bench", litellm_id="sim/bench", family="x",
                  release_date="2024-01-01", sim=PROFILE)
PROBLEMS = generate(N, seed=0)


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return N / (time.perf_counter() - start)


def direct():
    for p in PROBLEMS:
        sim.simulate(PROFILE, model="bench", seed=0, task=p.task, problem_id=p.problem_id, target=p.target,
                     n_choices=0, method="vanilla", run=0, call=0, prompt_chars=400)


ATTEMPTS = plan_attempts({"two_digit_addition": PROBLEMS}, [MODEL], ["vanilla"], 1)  # with fingerprints


def through_litellm(caller):
    from helpers.core.prompts import solve_messages

    for a in ATTEMPTS:
        caller(a, 0, solve_messages(a.problem.question))


def full_path(caller, root, threads: int = 1):
    from concurrent.futures import ThreadPoolExecutor

    from helpers.core.prices import ModelPrice

    price, budget = ModelPrice(input_usd_per_mtok=1, output_usd_per_mtok=1), Budget(1e9, 0.0)
    with RecordStore(root) as store, ThreadPoolExecutor(threads) as pool:
        list(pool.map(lambda a: run_attempt(a, [0], {}, store, caller, budget, 0.0, price), ATTEMPTS))


if __name__ == "__main__":
    sim.register()
    params = Params(name="bench", tasks=["two_digit_addition"], models=["bench"], n_problems=N, n_runs=1,
                    price_snapshot="x", budget_usd=1)
    caller, direct_caller = Caller(params, direct_sim=False), Caller(params)
    through_litellm(caller)  # warm up litellm's lazy imports
    rates = {"simulator alone": timed(direct), "litellm + simulator": timed(lambda: through_litellm(caller)),
             "direct handler + simulator": timed(lambda: through_litellm(direct_caller))}
    with tempfile.TemporaryDirectory() as d:
        rates["litellm + simulator + record store"] = timed(lambda: full_path(caller, Path(d) / "1"))
        rates["direct + simulator + record store"] = timed(lambda: full_path(direct_caller, Path(d) / "2"))
        rates["litellm path on 4 threads"] = timed(lambda: full_path(caller, Path(d) / "4", threads=4))
    base = rates["simulator alone"]
    for name, rate in rates.items():
        print(f"{name:<38} {rate:>10.0f} calls/s   x{base / rate:>7.1f} slower than the simulator")
