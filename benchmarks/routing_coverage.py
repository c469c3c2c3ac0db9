"""Does the cross-fitted routing envelope's interval hold its truth? (issue 35, item 3)

For each generator of the validity study (``validity.study_generators``: the `sim` twins' own, then ``GENERATORS``),
SETS simulated sets of the `sim` set's shape (its six datasets, ten SIMULATED models with self-refine, 8 runs): the
cross-fitted router (chosen per problem on half of each cell's runs, valued on the other half, over 4 halvings) at
five budgets per dataset, its published 95% interval (problem draws, with a Clopper–Pearson bound where they
collapse), and its truth: the same choices valued at the simulator's true rates and costs. Prints coverage (%) with
its Monte-Carlo standard error (sets as clusters), mean width and mean |bias| (accuracy 0-1) per generator.

    COP_DATA_DIR=../shared/data .venv/bin/python benchmarks/routing_coverage.py [sets per generator, default 40]
    [generators] [params]

The second argument keeps the first few generators only, the third draws the sets of another parameter file's shape
(the tests run two sets of two generators of `params/tiny.yaml`: the script still runs).
"""

from __future__ import annotations

import os
import sys
import time

from helpers.analyze import known_truth as kt
from helpers.analyze import validity as va
from helpers.core.context import prepare
from helpers.core.params import load_params


def main(sets: int = 40, generators: int | None = None, params: str = "params/sim.yaml") -> None:
    gm = kt.generative_model(prepare(load_params(params)).split()[0])
    gens = va.study_generators(gm)[:generators]
    start = time.perf_counter()
    table = va.crossfit_routing_study(gm, gens, sets, 200, workers=os.cpu_count() or 1)
    print(f"cross-fitted routing envelope, {sets} SIMULATED sets per generator, {va.ROUTING_BUDGETS} budgets per "
          f"dataset: coverage (%) of its own truth ± Monte-Carlo se, mean width and mean |bias| (accuracy 0-1)")
    print(f"{'generator':52s}{'coverage %':>12s}{'se':>6s}{'width':>8s}{'|bias|':>8s}")
    for row in table.itertuples():
        print(f"{row.generator:52s}{row.coverage_pct:12.1f}{row.coverage_se_pct:6.1f}{row.mean_width:8.3f}"
              f"{row.mean_abs_bias:8.4f}")
    print(f"lowest coverage {table['coverage_pct'].min():.1f}% over {len(table)} generators "
          f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]), *sys.argv[3:4])
