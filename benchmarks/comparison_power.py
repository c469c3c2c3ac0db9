"""Do the headline's comparisons find real differences, and only those? (issue 61, items 1-3) — at the paper's scale.

On sets of the `sim` set's shape (six datasets: five of 128 problems and one of 30, ten SIMULATED models, 8 runs),
drawn afresh from every generator of the validity study (``validity.study_generators``: this set's own, the model's
own family and eight departures from it), ``policy_study.study`` measures, against each set's own truth:

- the frontier (one model per dataset, chosen for each problem on the other problems): its truth over the best single
  model's at the same k, and its interval's coverage;
- every pair of models alone, paired on the same problems and runs (``analyze.differences``): coverage, width over
  the oracle's (3.92 × the sd of the estimate's error over the sets), power (pairs where one truly costs at most half
  the other, found with the right sign) and false findings (found with the wrong sign);
- the cheapest-model claim (its paired differences with every other model below 0, all at once): how often it is made
  where the truly cheapest costs at most half the runner-up, and how often it names a model that is not the cheapest;
- the technique gains with no true effect (false findings) and, on the own generator with a true self-refine effect
  g = 0.5 (``policy_study.effect_table``), how often the technique is named.

Then equal options: a twin of the first model (the same profile, its own runs) on the own family's generator, where
every problem's truth is the same for both: how often the twins' paired interval excludes 0 (a false finding).
SIMULATED.

    COP_DATA_DIR=../shared/data .venv/bin/python benchmarks/comparison_power.py [sets per generator, default 100]
        [generators, default all] [parameter file, default params/sim.yaml: a set of simulated models]
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time

import numpy as np
import pandas as pd

from helpers.analyze import policy_study
from helpers.analyze import validity as va
from helpers.core.context import prepare
from helpers.core.params import load_params


def twin_model(gm: va.GenerativeModel) -> va.GenerativeModel:
    """``gm`` with a twin of its first model (same prices, profile and family; vanilla only): equal options."""
    first = gm.models[0]
    add = lambda a: np.concatenate([a, a[:1]])  # noqa: E731
    tasks = [dataclasses.replace(tm, aptitude=add(tm.aptitude), spread=add(tm.spread), completion=add(tm.completion))
             for tm in gm.tasks]
    return dataclasses.replace(gm, models=[*gm.models, "twin"], families={**gm.families, "twin": gm.families[first]},
                               methods=["vanilla"], usd_in=add(gm.usd_in), usd_out=add(gm.usd_out), fee=add(gm.fee),
                               refine_gain=add(gm.refine_gain), format_error=add(gm.format_error), tasks=tasks,
                               steps=[*gm.steps, ["twin"]], generator=va.OWN)


def twin_false_findings(gm: va.GenerativeModel, sets: int, workers: int) -> tuple[float, float, int]:
    """(% of (set, dataset) pairs whose twins' paired interval excludes 0, its coverage of the true difference (%),
    pairs) on the own family's generator."""
    twin = twin_model(gm)
    drawn = va.forked_map(lambda s, g: policy_study.draw_set(twin, s, g), [(900_000 + r, va.OWN) for r in range(sets)],
                          workers)
    a, b = np.triu_indices(len(twin.models), 1)  # ``differences.all_pairs``' order over the models' columns
    q = int(np.flatnonzero((a == 0) & (b == len(twin.models) - 1))[0])  # the first model and its twin
    low, high = np.array([p.low[:, q] for _, p, _ in drawn]), np.array([p.high[:, q] for _, p, _ in drawn])
    truth = np.array([p.truth[:, q] for _, p, _ in drawn])  # 0 on every problem: the same profile
    found, held, n = int(((low > 0) | (high < 0)).sum()), int(((low <= truth) & (truth <= high)).sum()), low.size
    return 100 * found / max(n, 1), 100 * held / max(n, 1), n


def main(sets: int = 100, generators: int | None = None, params: str = "params/sim.yaml") -> None:
    start = time.perf_counter()
    workers = os.cpu_count() or 1
    ctx = prepare(load_params(params))
    gm = va.generative_model(ctx)
    table = policy_study.study(gm, va.study_generators(gm)[:generators], sets, seed=0, workers=workers)
    pd.set_option("display.width", 200)
    pick = lambda label, cols: table[table["statistic"] == label].set_index("generator")[cols]  # noqa: E731
    print(f"{sets} simulated sets of the `{ctx.params.name}` set's shape per generator (SIMULATED), each judged against "
          "its own truth\n")
    print("Frontier of all models (one model per dataset, chosen for each problem on the other problems):")
    print(pick(va.FAMILY_LABELS["frontier"], ["coverage_pct", "width_vs_oracle", "vs_best_single",
                                                       "vs_best_single_worst"]).round(3).to_string())
    print("\nEvery pair of models alone, paired on the same problems and runs:")
    print(pick(policy_study.PAIRS, ["coverage_pct", "width_vs_oracle", "power_pct", "false_findings_pct"]).round(3)
          .to_string())
    print("\nEach model alone, and the cheapest claim (power: the truly cheapest at most half the runner-up):")
    print(pick(va.FAMILY_LABELS["table1"], ["coverage_pct", "width_vs_oracle", "power_pct", "false_findings_pct"])
          .round(3).to_string())
    print("\nTechnique gains with no true effect:")
    print(pick(va.FAMILY_LABELS["technique gain"], ["coverage_pct", "width_vs_oracle", "false_findings_pct"]).round(3)
          .to_string())
    effect = policy_study.effect_table(va.generative_model(ctx, refine_gain=0.5), sets, workers=workers)
    print("\nA true self-refine effect g = 0.5 on the own generator (named: the gain's interval above 0):")
    print(effect[["task", "true gain %", "mean gain %", "coverage %", "named best %"]].round(1).to_string(index=False))
    share, held, n = twin_false_findings(gm, sets, workers)
    print(f"\nEqual options (a twin of the first model, {n} set-dataset pairs): the paired interval excluded 0 in "
          f"{share:.2f}% and held the true difference 0 in {held:.1f}%")
    print(f"\nwall {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]), *sys.argv[3:4])
