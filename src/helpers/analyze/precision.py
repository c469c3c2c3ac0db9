"""Where a frontier's precision comes from: the problems or the runs (issue 37, item 5), so a user can decide how many
runs per problem to pay for.

The two-level bootstrap resamples both the problems and each cell's runs; resampling one level alone gives each
level's own width, and refitting on the first k runs of every cell shows what k paid runs would have given. Shapes
and estimators as ``bootstrap``: the plug-in frontier of every model with the expert (Eq. 9), USD per problem.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from helpers.analyze.bootstrap import RunCube, bootstrap, percentile_interval

REPLICATES = 200
RUNS = (1, 2, 4, 8)  # the k of the table (at most the recorded runs)


def _interval(cube: RunCube, expert: np.ndarray, models: list[str], replicates: int, seed: int, level: float,
              levels: str = "problems+runs") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(value, low, high) of the frontier of ``models`` per dataset, (T,) each, under the bootstrap's ``levels``."""
    point, reps = bootstrap(cube, expert, replicates, seed=seed, levels=levels)
    lo, hi = percentile_interval(reps.frontier(models), level)
    value = point.frontier(models)[0]
    return value, np.fmin(lo, value), np.fmax(hi, value)


def precision(cube: RunCube, expert: np.ndarray, models: list[str], replicates: int = REPLICATES, seed: int = 0,
              level: float = 0.95, ks: tuple[int, ...] = RUNS) -> pd.DataFrame:
    """Per dataset and k (the ``ks`` up to the cube's runs per cell, and the runs recorded): the frontier of ``models``
    from the first k runs of every cell, its ``level`` interval (both levels), the interval's width in % of the value,
    and the share (%) of the interval's variance the problems carry and the runs carry (each level's own width,
    squared, over their sum)."""
    import dataclasses

    cols = [cube.strategies.index(m) for m in models]  # the models' own runs only: nothing else enters their frontier
    cube = dataclasses.replace(cube, strategies=list(models), usd=cube.usd[:, cols], correct=cube.correct[:, cols],
                               runs=cube.runs[:, cols], answer=cube.answer[:, cols], class_ok=cube.class_ok[:, cols],
                               derived=[])
    n = int(cube.runs.max(initial=0))
    rows = []
    for k in sorted({k for k in ks if k < n} | {n}):
        sub = cube.first_runs(k)
        v, lo, hi = _interval(sub, expert, models, replicates, seed, level)
        _, p_lo, p_hi = _interval(sub, expert, models, replicates, seed, level, "problems")
        _, r_lo, r_hi = _interval(sub, expert, models, replicates, seed, level, "runs")
        wp, wr = p_hi - p_lo, r_hi - r_lo
        with np.errstate(invalid="ignore", divide="ignore"):
            share = 100 * wp**2 / (wp**2 + wr**2)
            width = 100 * (hi - lo) / v
        rows += [{"task": t, "runs": k, "recorded": k == n, "value": v[j], "low": lo[j], "high": hi[j],
                  "width_pct": width[j], "problems_pct": share[j], "runs_pct": 100 - share[j]}
                 for j, t in enumerate(cube.tasks)]
    return pd.DataFrame(rows)
