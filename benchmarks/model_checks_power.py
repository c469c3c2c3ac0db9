"""Size and power of the item-response model's checks (``helpers.analyze.model_checks``) at paper scale.

One numeric (free-response) dataset of 128 problems, 10 models from weak to strong (logits −2 … 4, slopes 1–2), 8 runs
each, drawn by each generator of the validity study (``known_truth.GENERATORS``): how often each check, and any check
(the gate), rejects the model. On the model's own family that is the false-alarm rate (target ≤ 10%); elsewhere
the power (issue 24's target ≥ 90% against an interaction of sd ≥ 0.5 and ≥ 2% wrong references). SIMULATED.

    .venv/bin/python benchmarks/model_checks_power.py [sets per generator, default 20] [problems models runs]

The three last arguments draw datasets of another shape (the tests run one small set per generator: the script
still runs).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from helpers.analyze import known_truth as kt
from helpers.analyze import model_checks as mc
from helpers.analyze.frontier_model import fit_tested
from helpers.core.simulation import Generator


def paper_scale_model(problems: int = 128, models: int = 10, runs: int = 8) -> kt.GenerativeModel:
    task = kt.TaskModel("gsm8k", np.full(problems, 120), np.full(problems, 200), np.linspace(-2, 4, models),
                        np.linspace(1.0, 2.0, models), np.full(models, 300.0), 6, 3.5)
    names = [f"m{i}" for i in range(models)]
    return kt.GenerativeModel(names, {m: "lightweight" for m in names}, ["vanilla"], np.full(models, 1e-6),
                              np.full(models, 2e-6), np.zeros(models), np.zeros(models), np.zeros(models), [task], runs)


def rates(generator: Generator, sets: int, shape: tuple[int, ...] = ()) -> dict[str, float]:
    gm = paper_scale_model(*shape)
    hits = {c: 0 for c in (*mc.CHECKS, "any")}
    for seed in range(sets):
        rng = np.random.default_rng(seed)
        cube, _ = kt.draw_cube(gm, rng, kt.draw_problems(gm, rng, generator))
        k, n = cube.correct.sum(-1), cube.runs
        groups = np.array(["vanilla"] * k.shape[1])
        result = mc.check_task(k, n, fit_tested(k, n, groups), seed=seed, groups=groups, free_response=True)
        for r in result:
            hits[r.check] += r.rejects
        hits["any"] += any(r.rejects for r in result)
    return {c: 100 * h / sets for c, h in hits.items()}


def main(sets: int = 20, *shape: int) -> None:
    print(f"rejections (%) over {sets} simulated sets per generator; each check at {mc.LEVEL / len(mc.CHECKS):g} "
          "(its calibrated critical p-value: benchmarks/model_checks_size.py)")
    print(f"{'generator':46s}" + "".join(f"{c:>13s}" for c in (*mc.CHECKS, "any")))
    for g in kt.GENERATORS:
        start = time.perf_counter()
        r = rates(g, sets, shape)
        print(f"{g.name:46s}" + "".join(f"{r[c]:13.0f}" for c in (*mc.CHECKS, "any"))
              + f"   ({time.perf_counter() - start:.0f} s)", flush=True)


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:5]))
