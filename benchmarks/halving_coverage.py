"""Does a halving time marked "reliable" hold its truth? (issue 35, item 6) — measured on the validity study's sets.

For each generator of the validity study (``validity.study_generators`` of the `sim` set: its own, then
``GENERATORS``), ``sets`` simulated sets of the `sim` set's shape (six datasets, ten SIMULATED models released on the
paper's dates, 8 runs): per dataset, Eq. 11 fitted to the plug-in frontier over releases (% of the expert alone) with
its profile interval and its bootstrap-refit interval (``trends.fit_decay``, ``refit_interval``: exactly as the report
fits it), and the truth — the same fit on the set's true frontier over releases. It prints, per generator, the share of
fits the rule marks reliable, how often a reliable fit's interval holds the true halving time (with its Monte-Carlo
standard error), and how often the log-linear trend's 90% interval holds the true log-linear rate (the fallback the
report gives instead). It writes ``src/helpers/analyze/halving_calibration.json``: the rule may mark a halving time
reliable only if its reliable fits held the truth in at least ``trends.RELIABLE_COVERAGE`` of cases on every
generator (``trends.rule_holds``). SIMULATED.

    COP_DATA_DIR=../shared/data .venv/bin/python benchmarks/halving_coverage.py [sets per generator, default 40]
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import sys
import time

import numpy as np
import pandas as pd

from helpers.analyze import known_truth as kt
from helpers.analyze import trends
from helpers.analyze import validity as va
from helpers.analyze.bootstrap import bootstrap
from helpers.analyze.costofpass import release_steps
from helpers.analyze.statistic import RELEASE_FRONTIER, Key
from helpers.core.context import prepare
from helpers.core.params import load_params
from helpers.core.pool import forked_map

REPLICATES = 200  # the report's bootstrap replicates of the frontier over releases


def one_set(gm: kt.GenerativeModel, t: np.ndarray, seed: int, generator) -> list[dict]:
    """Per dataset of one simulated set: whether its fit is reliable, covered, and the log-linear coverage."""
    rng = np.random.default_rng(seed)
    problems = kt.draw_problems(gm, rng, generator)
    cube, expert = kt.draw_cube(gm, rng, problems)
    point, reps = bootstrap(cube, expert, REPLICATES, seed=seed)
    keys = [Key(RELEASE_FRONTIER, str(i)) for i in range(len(gm.steps))]
    est, boot, true = gm.statistics(point.frontier), gm.statistics(reps.frontier), kt.true_statistics(gm, problems)
    curve = np.stack([np.concatenate([est[k], boot[k]]) for k in keys], axis=1)  # (1 + B, steps, T)
    truth = np.stack([true[k] for k in keys])  # (steps, T)
    rows = []
    for j in range(curve.shape[2]):
        fit = trends.fit_decay(t, curve[0, :, j])
        if fit.identified:
            low, high = trends.refit_interval(t, curve[1:, :, j])
            fit = dataclasses.replace(fit, refit_low=low, refit_high=high)
        target = trends.fit_decay(t, truth[:, j])
        ll, ll_true = trends.log_linear_trend(t, curve[0, :, j]), trends.log_linear_trend(t, truth[:, j])
        rows.append({"task": gm.tasks[j].task, "reliable": bool(fit.looks_reliable and target.identified),
                     "covered": bool(fit.halving_low <= target.halving_months <= fit.halving_high),
                     "loglinear_covered": bool(ll.high <= ll_true.factor_per_year <= ll.low
                                               or ll.low <= ll_true.factor_per_year <= ll.high)})
    return rows


def main(sets: int = 40) -> None:
    start = time.perf_counter()
    ctx = prepare(load_params("params/sim.yaml"))
    gm = kt.generative_model(ctx)
    releases = pd.Series({m.name: pd.Timestamp(m.release_date) for m in ctx.models})
    dates = pd.Series([d for d, _ in release_steps(releases, ctx.params.fidelity.release_steps == "one_model")])
    t = trends.months_since(dates, dates.min())
    generators = va.study_generators(gm)
    jobs = [(seed, g) for g in generators for seed in range(sets)]
    results = forked_map(lambda s, g: one_set(gm, t, s, g), jobs, os.cpu_count() or 1)
    table = []
    for i, g in enumerate(generators):
        rows = pd.DataFrame([r for res in results[i * sets:(i + 1) * sets] for r in res])
        rel = rows[rows["reliable"]]
        cov = float(rel["covered"].mean()) if len(rel) else float("nan")
        table.append({"generator": g.name, "fits": len(rows), "reliable_pct": 100 * rows["reliable"].mean(),
                      "reliable": len(rel), "coverage_pct": 100 * cov,
                      "coverage_se": 100 * math.sqrt(cov * (1 - cov) / len(rel)) if len(rel) else float("nan"),
                      "loglinear_coverage_pct": 100 * rows["loglinear_covered"].mean()})
    out = pd.DataFrame(table)
    holds = bool((out["reliable"].eq(0) | (out["coverage_pct"] >= 100 * trends.RELIABLE_COVERAGE)).all())
    trends.CALIBRATION.write_text(json.dumps({
        "rule_holds": holds, "required_coverage": trends.RELIABLE_COVERAGE, "sets_per_generator": sets,
        "generators": out.to_dict(orient="records"),
        "shape": "the sim set: 6 datasets x 128 problems x 10 models x 8 runs",
        "written_by": "benchmarks/halving_coverage.py"}, indent=1, allow_nan=True) + "\n")
    print(f"Eq. 11 halving times on simulated sets of the sim set's shape ({sets} sets per generator, "
          f"{REPLICATES} bootstrap replicates): SIMULATED\n")
    print(out.to_string(index=False, float_format=lambda v: f"{v:.1f}"))
    print(f"\nrule: a halving time may be marked reliable only where reliable fits held the truth in >= "
          f"{100 * trends.RELIABLE_COVERAGE:.0f}% on every generator: {'holds' if holds else 'does NOT hold'}"
          f"{'' if holds else ' (so no halving time is marked reliable; reports give the log-linear rate)'}")
    print(f"wall: {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:2]))
