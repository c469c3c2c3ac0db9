"""Time and peak memory of every interval of one parameter set at the paper's scale.

    .venv/bin/python benchmarks/interval_speed.py [REPLICATES]      # default 1000

A SIMULATED set of the paper's shape (6 datasets: AIME 30 problems, the others 128; the ten twins of
``params/registry/sim_paper.yaml`` with their Table 4 prices; vanilla, self-refine, majority vote
k = 3 and 4; 8 runs) is drawn from the simulator's generative model (prompts of 200 tokens, so no
benchmark data is needed). Timed side by side in one run: (1) the two-level bootstrap of every
strategy's cost-of-pass (REPLICATES replicates), (2) the headline statistics (Table 1, the frontier
of all models, the technique gains) on every replicate, (3) the model-based estimator's fit, and (4)
its intervals (REPLICATES draws). Issue 9's target: all of it in <= 10 s and <= 2 GiB on 2 cores.
"""

from __future__ import annotations

import resource
import sys
import time

import numpy as np

from helpers.analyze import validity as va
from helpers.analyze.bootstrap import bootstrap
from helpers.analyze.frontier_model import ModelFrontier
from helpers.collect.backends.sim import aptitude
from helpers.core.experts import load_expert_costs
from helpers.core.models import resolve_models
from helpers.core.paths import repo_root
from helpers.core.prices import load_snapshot

REPLICATES = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
TASKS = {"two_digit_addition": 128, "gsm8k": 128, "bbq": 128, "gpqa_diamond": 128, "math500": 128, "aime24": 30}
CHOICES = {"bbq": 3, "gpqa_diamond": 4}
METHODS = ["vanilla", "self_refine", "majority_vote_k3", "majority_vote_k4"]


def paper_shaped_model() -> va.GenerativeModel:
    root = repo_root()
    registry = root / "params/registry/sim_paper.yaml"
    import yaml

    models = resolve_models(list(yaml.safe_load(registry.read_text())["models"]), registry)
    prices = load_snapshot(root / "params/prices/sim_paper_table4_2025-04.yaml")
    experts = load_expert_costs()
    tasks = []
    for t, n in TASKS.items():
        profiles = [m.sim for m in models]
        tasks.append(va.TaskModel(
            t, np.full(n, 200), np.full(n, 300),
            np.array([p.aptitude.get(t, aptitude(p.accuracy[t], p.difficulty_spread)) for p in profiles]),
            np.array([p.difficulty_spread for p in profiles]), np.array([p.completion_tokens[t] for p in profiles]),
            CHOICES.get(t, 7) - 1, experts[t].usd("high")))
    price = [prices.price(m.name) for m in models]
    return va.GenerativeModel(
        [m.name for m in models], {m.name: m.family for m in models}, METHODS,
        np.array([p.input_usd_per_mtok for p in price]) / 1e6, np.array([p.output_usd_per_mtok for p in price]) / 1e6,
        np.zeros(len(models)), np.zeros(len(models)), np.zeros(len(models)), tasks, 8)


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


if __name__ == "__main__":
    gm = paper_shaped_model()
    cube, expert = va.draw_cube(gm, np.random.default_rng(0))
    stats = gm.statistics
    (point, reps), t_boot = timed(lambda: bootstrap(cube, expert, REPLICATES, seed=0))
    boot, t_stats = timed(lambda: stats(reps.frontier))
    model, t_fit = timed(lambda: ModelFrontier(cube, expert))
    drawn, t_draws = timed(lambda: stats(model.draws(reps.weights, seed=0).frontier))
    total = t_boot + t_stats + t_fit + t_draws
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB -> GiB
    p, s, n = cube.usd.shape
    print(f"SIMULATED set of the paper's shape: {p} problems x {len(cube.all_strategies)} strategies x {n} runs; "
          f"{REPLICATES} replicates; {len(boot)} statistics x {len(cube.tasks)} datasets")
    print(f"two-level bootstrap of every strategy       {t_boot:6.2f} s")
    print(f"headline statistics on every replicate      {t_stats:6.2f} s")
    print(f"model-based fit (6 datasets)                {t_fit:6.2f} s")
    print(f"model-based intervals ({REPLICATES} draws)         {t_draws:6.2f} s")
    print(f"total                                       {total:6.2f} s   (target <= 10 s)")
    print(f"peak memory                                 {rss:6.2f} GiB (target <= 2 GiB)")
