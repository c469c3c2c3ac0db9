"""Does the model-based estimator keep its coverage where its checks do not reject? (issue 24, items 1 and 4)

For each generator of the validity study (``validity.study_generators``: the `sim` twins' own, then ``GENERATORS``),
SETS simulated sets of the `sim` set's shape (its six datasets, ten SIMULATED models, 8 runs): the model checks of
every dataset (``model_checks``), and the coverage of the model-based 95% intervals of Table 1, the frontier of all
models and Figures 2-5 against each set's own truth — over all (set, dataset) cells, and over the cells whose
dataset's checks did not reject. A model-based number could lead only where this gated coverage holds in every
generator.

    COP_DATA_DIR=../shared/data .venv/bin/python benchmarks/gated_coverage.py [sets per generator, default 6]
    [generators] [params]

The second argument keeps the first few generators only, the third draws the sets of another parameter file's shape
(the tests run one set of two generators of `params/tiny.yaml`: the script still runs).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from helpers.analyze import known_truth as kt
from helpers.analyze import model_checks as mc
from helpers.analyze import validity as va
from helpers.analyze.frontier_model import ModelFrontier
from helpers.core.context import prepare
from helpers.core.params import load_params
from helpers.core.simulation import Generator
from helpers.core.tasks import get_task

FAMILIES = ("table1", "frontier", "release frontier", "release gain", "family", "essential")


def held(gm: kt.GenerativeModel, generator: Generator, seed: int) -> np.ndarray:
    """(T,) whether the checks let the model stand on each dataset of the set ``_repetition`` draws from ``seed``."""
    rng = np.random.default_rng(seed)
    cube, expert = kt.draw_cube(gm, rng, kt.draw_problems(gm, rng, generator))
    model = ModelFrontier(cube, expert)
    free = frozenset(t for t in cube.tasks if get_task(t).metric in ("number", "math"))
    checks = mc.set_checks(model.k, cube.runs, model.fits, model.rows, cube.tasks, seed, groups=model.groups,
                           free_response=free)
    verdict = mc.verdicts(checks)
    order = [tm.task for tm in gm.tasks]
    return np.array([not verdict[t] for t in order])


def main(sets: int = 6, generators: int | None = None, params: str = "params/sim.yaml") -> None:
    gm = kt.generative_model(prepare(load_params(params)))
    print(f"model-based coverage (%) of the set's own truth, {sets} SIMULATED sets per generator: all cells / cells "
          "whose checks pass (their share)")
    print(f"{'generator':36s}" + "".join(f"{f:>22s}" for f in FAMILIES))
    for g in va.study_generators(gm)[:generators]:
        start = time.perf_counter()
        hits = {f: [] for f in FAMILIES}
        for r in range(sets):
            seed = 7_919 * 1000 + r
            ok = held(gm, g, seed)
            rep = va._repetition(gm, seed, 50, 0.95, None, g)
            for name, v in rep.statistics.items():
                fam = name.kind.name
                if fam not in hits:
                    continue
                truth, model = v.truth, v.estimates["model-based"]
                covered = (model.low <= truth) & (truth <= model.high)
                nonzero = np.abs(truth) > va.ZERO
                hits[fam] += list(zip(covered[nonzero], ok[nonzero]))
        cells = []
        for f in FAMILIES:
            h = np.array(hits[f], dtype=bool).reshape(-1, 2)
            gated = h[h[:, 1], 0]
            cells.append(f"{100 * h[:, 0].mean():5.0f} / " + (f"{100 * gated.mean():3.0f}" if len(gated) else "  –")
                         + f" ({100 * h[:, 1].mean():3.0f}%)")
        print(f"{g.name:36s}" + "".join(f"{c:>22s}" for c in cells) + f"   ({time.perf_counter() - start:.0f} s)",
              flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 6, int(sys.argv[2]) if len(sys.argv) > 2 else None,
         *sys.argv[3:4])
