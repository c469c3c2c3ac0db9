"""Time and peak memory of every interval of one parameter set at the paper's scale.

    .venv/bin/python benchmarks/interval_speed.py [REPLICATES] [DRAWS] [SHARE]   # defaults 1000, 200 and 1

(DRAWS: the model-based draws, ``iv.MODEL_DRAWS`` by default; SHARE below 1 keeps that share of each dataset's problems,
at least 4: the tests' quick run of the same paths.)

A SIMULATED set of the paper's shape (6 datasets: AIME 30 problems, the others 128; the ten twins of
``params/registry/sim_paper.yaml`` with their Table 4 prices; vanilla, self-refine, majority vote
k = 3 and 4; 8 runs) is drawn from the simulator's generative model (prompts of 200 tokens, so no
benchmark data is needed). Timed side by side in one run, ``intervals.compute_statistics`` as
``set_statistics`` runs it: the plug-in (two-level bootstrap of every strategy, REPLICATES replicates,
and every statistic of Tables 1, 2, 5, 6, Figures 2-5 and the routing frontier on them) and the
model-based (the item-response fit, its draws and the same statistics), first in one process, then
as the pipeline runs it: the plug-in's replicates in two shares and the model-based in a third,
each in a forked process.
Issue 9's target: all of it in <= 10 s and <= 2 GiB on 2 cores.
"""

from __future__ import annotations

import resource
import sys
import time

import numpy as np
import pandas as pd

from helpers.analyze import intervals as iv
from helpers.analyze import known_truth as kt
from helpers.analyze.costofpass import release_steps
from helpers.collect.backends.sim import task_aptitude
from helpers.core.experts import load_expert_costs
from helpers.core.models import resolve_models
from helpers.core.paths import repo_root
from helpers.core.prices import load_snapshot

REPLICATES = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
DRAWS = int(sys.argv[2]) if len(sys.argv) > 2 else iv.MODEL_DRAWS
SHARE = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
PAPER_TASKS = {"two_digit_addition": 128, "gsm8k": 128, "bbq": 128, "gpqa_diamond": 128, "math500": 128, "aime24": 30}
TASKS = {t: n if SHARE >= 1 else max(4, round(n * SHARE)) for t, n in PAPER_TASKS.items()}
CHOICES = {"bbq": 3, "gpqa_diamond": 4}
METHODS = ["vanilla", "self_refine", "majority_vote_k3", "majority_vote_k4"]


def paper_shaped_model() -> kt.GenerativeModel:
    root = repo_root()
    registry = root / "params/registry/sim_paper.yaml"
    import yaml

    models = resolve_models(list(yaml.safe_load(registry.read_text())["models"]), registry)
    prices = load_snapshot(root / "params/prices/sim_paper_table4_2025-04.yaml")
    experts = load_expert_costs()
    tasks = []
    for t, n in TASKS.items():
        profiles = [m.sim for m in models]
        tasks.append(kt.TaskModel(
            t, np.full(n, 200), np.full(n, 300),
            np.array([task_aptitude(p, t) for p in profiles]),
            np.array([p.difficulty_spread for p in profiles]), np.array([p.completion_tokens[t] for p in profiles]),
            CHOICES.get(t, 7) - 1, experts[t].usd("high")))
    price = [prices.price(m.name) for m in models]
    return kt.GenerativeModel(
        [m.name for m in models], {m.name: m.family for m in models}, METHODS,
        np.array([p.input_usd_per_mtok for p in price]) / 1e6, np.array([p.output_usd_per_mtok for p in price]) / 1e6,
        np.zeros(len(models)), np.zeros(len(models)), np.zeros(len(models)), tasks, 8,
        [names for _, names in release_steps(pd.Series({m.name: m.release_date for m in models}))],
        generator=kt.set_generator(profiles))


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


if __name__ == "__main__":
    gm = paper_shaped_model()
    cube, expert = kt.draw_cube(gm, np.random.default_rng(0))

    def run(workers):
        return iv.compute_statistics(cube, expert, gm.specs, list(gm.models), gm.steps, REPLICATES, DRAWS,
                                     workers=workers)

    st, t_serial = timed(lambda: run(1))
    _, t_parallel = timed(lambda: run(2))
    rss = max(resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)) / 2**20
    p, s, n = cube.usd.shape
    print(f"SIMULATED set of the paper's shape: {p} problems x {len(cube.all_strategies)} strategies x {n} runs; "
          f"{REPLICATES} bootstrap replicates, {DRAWS} model draws; {len(st.frame) // len(cube.tasks) // 2} statistics "
          f"x {len(cube.tasks)} datasets x 2 estimators (Tables 1, 2, 5, 6, Figures 2-5, routing frontier)")
    print(f"every interval in one process                        {t_serial:6.2f} s")
    print(f"every interval as the pipeline runs it (3 workers)   {t_parallel:6.2f} s   (target <= 10 s; "
          f"{t_serial / t_parallel:.1f}x)")
    print(f"peak memory of one process                           {rss:6.2f} GiB (target <= 2 GiB)")
