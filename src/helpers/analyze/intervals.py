"""Intervals on a set's headline numbers: plug-in with two-level bootstrap intervals, and the model-based
estimator with its own (see ``bootstrap`` and ``frontier_model`` for the estimators, ``07_validity`` for
how well each recovers a known truth).

``set_intervals(an)`` builds both once per notebook; ``long_frame(iv, stats)`` turns any statistics
(a function of a frontier function, as ``headline``) into one row per (statistic, dataset, estimator)
with the estimate and its ``level`` percentile interval.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

from helpers.analyze.bootstrap import DEFAULT_REPLICATES, Replicates, bootstrap, run_cube
from helpers.analyze.estimates import Analysis
from helpers.analyze.frontier_model import ModelFrontier

MODEL_DRAWS = 200  # parameter draws of the model-based intervals (each recomputes every problem's posterior)


@dataclass
class SetIntervals:
    """The plug-in (point and bootstrap replicates) and model-based (fit and draws) frontiers of a set."""

    point: Replicates
    replicates: Replicates
    model: ModelFrontier
    model_draws: ModelFrontier
    level: float

    @property
    def tasks(self) -> list[str]:
        return self.point.cube.tasks


def set_intervals(an: Analysis, replicates: int = DEFAULT_REPLICATES, model_draws: int = MODEL_DRAWS,
                  level: float = 0.95) -> SetIntervals:
    """Bootstrap replicates (seeded by the set's seed) and the model-based fit of a set's graded attempts."""
    cube = run_cube(an.attempts, list(an.ctx.params.methods))
    expert = an.expert.reindex(cube.problems).to_numpy()
    point, reps = bootstrap(cube, expert, replicates, seed=an.ctx.params.seed)
    model = ModelFrontier(cube, expert)
    draws = model.draws(reps.weights[:model_draws], seed=an.ctx.params.seed)
    return SetIntervals(point, reps, model, draws, level)


Statistics = Callable[[Callable], dict[str, np.ndarray]]


def long_frame(iv: SetIntervals, stats: Statistics) -> pd.DataFrame:
    """One row per (statistic, task, estimator): ``value``, ``low``, ``high`` (the statistics' units)."""
    q = 100 * (1 - iv.level) / 2
    rows = []
    for estimator, fit, draws in (("plug-in", iv.point, iv.replicates), ("model-based", iv.model, iv.model_draws)):
        values, spread = stats(fit.frontier), stats(draws.frontier)
        for name, v in values.items():
            lo, hi = np.nanpercentile(spread[name], [q, 100 - q], axis=0)
            for j, task in enumerate(iv.tasks):
                rows.append({"statistic": name, "task": task, "estimator": estimator, "value": float(v[0, j]),
                             "low": float(lo[j]), "high": float(hi[j])})
    return pd.DataFrame(rows, columns=["statistic", "task", "estimator", "value", "low", "high"])


def accuracy_cost_frame(iv: SetIntervals, strategies: list[str]) -> pd.DataFrame:
    """Tables 5 and 6 with bootstrap intervals: per strategy and task, accuracy (0-1) and mean USD per attempt."""
    q = 100 * (1 - iv.level) / 2
    cols = [iv.point.strategies.index(s) for s in strategies]
    rows = []
    for what, attr in (("accuracy", "rate"), ("cost_usd", "cost")):
        point = iv.point.mean_per_task(getattr(iv.point, attr)[:, :, cols].astype(float))[0]  # (T, S)
        reps = iv.replicates.mean_per_task(getattr(iv.replicates, attr)[:, :, cols].astype(float))  # (B, T, S)
        lo, hi = np.nanpercentile(reps, [q, 100 - q], axis=0)
        for i, s in enumerate(strategies):
            for j, task in enumerate(iv.tasks):
                rows.append({"statistic": what, "strategy": s, "task": task, "value": point[j, i],
                             "low": lo[j, i], "high": hi[j, i]})
    return pd.DataFrame(rows)
