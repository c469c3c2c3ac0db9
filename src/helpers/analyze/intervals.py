"""Intervals on a set's numbers: plug-in with two-level bootstrap intervals, and the model-based
estimator with its own (see ``bootstrap`` and ``frontier_model`` for the estimators, ``07_validity`` for
how well each recovers a known truth).

``set_intervals(an)`` builds both; ``long_frame(iv, stats)`` turns any statistics (a function of a
frontier function, as ``headline``) into one row per (statistic, dataset, estimator) with the estimate
and its ``level`` percentile interval. ``set_statistics(an)`` computes every statistic of Tables 1, 2,
5, 6 and Figures 2-5 once per set and keeps them under ``results/<set>/intervals/``, keyed by the
graded records, the analysis code and the settings, so each notebook reads them instead of
bootstrapping again.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from helpers.analyze import headline, routing
from helpers.analyze.bootstrap import DEFAULT_REPLICATES, Replicates, bootstrap, run_cube
from helpers.analyze.costofpass import release_steps
from helpers.analyze.estimates import Analysis
from helpers.analyze.frontier_model import ModelFrontier
from helpers.grade.stage import graded_paths

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


# ---- every statistic of a set, computed once and kept on disk -------------------------------------
ESTIMATORS = ("plug-in", "model-based")


@dataclass
class SetStatistics:
    """Every interval of a set: ``frame`` rows (statistic, task, estimator, value, low, high) of Tables 1, 2
    and Figures 2-5 (names as ``headline``: ``table1:<m>``, ``frontier:all models``, ``technique gain:<x>``,
    ``release frontier:<i>``, ``release gain:<i>``, ``family:<g>``, ``essential:<m>``); ``accuracy_cost``
    Tables 5-6 (``accuracy_cost_frame``); ``curves[estimator]`` the normalised frontier over release steps
    (%), (1 + replicates or draws, steps, T), row 0 the estimate, for refitting the trend; ``routing`` and
    ``routing_points`` the oracle-routing cost–accuracy frontier (``routing_frames``)."""

    frame: pd.DataFrame
    accuracy_cost: pd.DataFrame
    curves: dict[str, np.ndarray]
    replicates: int
    draws: int
    level: float
    routing: pd.DataFrame  # oracle routing envelope (``routing_frames``)
    routing_points: pd.DataFrame

    def of(self, prefix: str) -> pd.DataFrame:
        """The rows of statistics ``<prefix>:<name>``, with ``statistic`` = ``<name>``."""
        rows = self.frame[self.frame["statistic"].str.startswith(prefix + ":")]
        return rows.assign(statistic=rows["statistic"].str.slice(len(prefix) + 1))


def set_steps(an: Analysis) -> list[tuple[pd.Timestamp, list[str]]]:
    """The set's release steps (``fidelity.release_steps``) over the models with estimates."""
    return release_steps(an.releases, an.ctx.params.fidelity.release_steps == "one_model")


def all_statistics(an: Analysis, available: set[str]) -> Statistics:
    models = [m for m in an.models if m in available]
    families = an.families.to_dict()
    steps = [[m for m in names if m in available] for _, names in set_steps(an)]

    def stats(F):
        out = headline.headline(F, models, families, list(an.ctx.params.methods), available)
        out.update(headline.release_statistics(F, steps))
        out.update(headline.counterfactual_statistics(F, models, families, an.ctx.params.fidelity.family_denominator))
        return out
    return stats


def _cache_key(an: Analysis, replicates: int, draws: int, level: float) -> str:
    code = Path(__file__).parent
    h = hashlib.sha256()
    for path in sorted([*code.glob("*.py"), *(code.parent / "core" / "methods").glob("*.py")]):
        h.update(path.read_bytes())
    manifest = graded_paths(an.ctx)["manifest"]
    h.update(manifest.read_bytes() if manifest.is_file() else b"no manifest")
    p = an.ctx.params
    h.update(json.dumps([replicates, draws, level, p.seed, p.fidelity.model_dump(), an.models, an.families.to_dict(),
                         {m: str(d) for m, d in an.releases.items()}, list(p.methods)]).encode())
    return h.hexdigest()


FRAMES = ("statistics", "accuracy_cost", "routing", "routing_points")
ROUTING_REPLICATES = 200  # bootstrap replicates / model draws of the routing envelope's bands


def routing_frames(iv: SetIntervals, models: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The oracle-routing frontier of every strategy and the expert, per estimator (``routing``):

    ``routing`` rows (task, estimator, budget_usd, value, low, high): accuracy (0-1) reachable at each budget
    (USD per problem), with the ``level`` interval of the first ``ROUTING_REPLICATES`` replicates / draws;
    ``routing_points`` rows (task, estimator, strategy, accuracy, usd, acc_low, acc_high, usd_low, usd_high):
    each model alone (vanilla) and the human expert (``strategy`` = "expert").
    """
    q = 100 * (1 - iv.level) / 2
    starts = iv.point.cube.task_starts
    m_cols = [iv.point.strategies.index(m) for m in models]
    sources = {"plug-in": ((iv.point.cost, iv.point.rate, iv.point.weights),
                           (iv.replicates.cost[:ROUTING_REPLICATES], iv.replicates.rate[:ROUTING_REPLICATES],
                            iv.replicates.weights[:ROUTING_REPLICATES])),
               "model-based": ((*iv.model.posterior_rates(), iv.model.weights),
                               (*iv.model_draws.posterior_rates(), iv.model_draws.weights))}
    sources["model-based"] = tuple((c[:ROUTING_REPLICATES], r[:ROUTING_REPLICATES], w[:ROUTING_REPLICATES])
                                   for c, r, w in sources["model-based"])
    env = {e: [routing.envelope(c, r, w, starts, iv.point.expert) for c, r, w in pair] for e, pair in sources.items()}
    budgets = routing.budget_grid(*(env[e][0][1] for e in ESTIMATORS))
    rows, points = [], []
    for e, ((acc0, usd0), (accb, usdb)) in env.items():
        value = routing.at_budgets(acc0, usd0, budgets)[0]
        lo, hi = np.nanpercentile(routing.at_budgets(accb, usdb, budgets), [q, 100 - q], axis=0)
        for j, task in enumerate(iv.tasks):
            rows += [{"task": task, "estimator": e, "budget_usd": b, "value": v, "low": lw, "high": h}
                     for b, v, lw, h in zip(budgets[j], value[:, j], lo[:, j], hi[:, j])]
        (c0, r0, w0), (cb, rb, wb) = sources[e]
        acc_p, usd_p = routing.model_points(c0[..., m_cols], r0[..., m_cols], w0, starts)
        acc_b, usd_b = routing.model_points(cb[..., m_cols], rb[..., m_cols], wb, starts)
        (al, ah), (ul, uh) = (np.nanpercentile(x, [q, 100 - q], axis=0) for x in (acc_b, usd_b))
        for j, task in enumerate(iv.tasks):
            points += [{"task": task, "estimator": e, "strategy": m, "accuracy": acc_p[0, j, i], "usd": usd_p[0, j, i],
                        "acc_low": al[j, i], "acc_high": ah[j, i], "usd_low": ul[j, i], "usd_high": uh[j, i]}
                       for i, m in enumerate(models)]
    expert = iv.point.frontier([])[0]  # mean expert USD per problem, (T,)
    points += [{"task": task, "estimator": "expert", "strategy": "expert", "accuracy": 1.0, "usd": expert[j],
                "acc_low": 1.0, "acc_high": 1.0, "usd_low": expert[j], "usd_high": expert[j]}
               for j, task in enumerate(iv.tasks)]
    return pd.DataFrame(rows), pd.DataFrame(points)


def set_statistics(an: Analysis, replicates: int = DEFAULT_REPLICATES, draws: int = MODEL_DRAWS,
                   level: float = 0.95) -> SetStatistics:
    """Every interval of the set (``SetStatistics``), read from ``results/<set>/intervals/`` when the graded
    records, analysis code and settings are those it was computed from, else computed and written there."""
    where = an.ctx.params.output_path / "intervals"
    key = _cache_key(an, replicates, draws, level)
    if (where / "key.txt").is_file() and (where / "key.txt").read_text() == key:
        curves = np.load(where / "curves.npz")
        frames = {name: pd.read_parquet(where / f"{name}.parquet") for name in FRAMES}
        return SetStatistics(frames["statistics"], frames["accuracy_cost"], {e: curves[e] for e in ESTIMATORS},
                             replicates, draws, level, frames["routing"], frames["routing_points"])
    iv = set_intervals(an, replicates, draws, level)
    available = set(iv.point.strategies)
    stats = all_statistics(an, available)
    frame = long_frame(iv, stats)
    models = [m for m in an.models if m in available]
    curves = {}
    for estimator, fit, spread in (("plug-in", iv.point, iv.replicates), ("model-based", iv.model, iv.model_draws)):
        steps = [[m for m in names if m in available] for _, names in set_steps(an)]
        point = headline.release_statistics(fit.frontier, steps)
        draws_ = headline.release_statistics(spread.frontier, steps)
        curves[estimator] = np.stack([np.concatenate([point[f"release frontier:{i}"], draws_[f"release frontier:{i}"]])
                                      for i in range(len(steps))], axis=1) if steps else np.zeros((1, 0, len(iv.tasks)))
    st = SetStatistics(frame, accuracy_cost_frame(iv, models + [s for s in iv.point.strategies if s not in models]),
                       curves, replicates, draws, level, *routing_frames(iv, models))
    where.mkdir(parents=True, exist_ok=True)
    for name, df in zip(FRAMES, (st.frame, st.accuracy_cost, st.routing, st.routing_points)):
        df.to_parquet(where / f"{name}.parquet")
    np.savez_compressed(where / "curves.npz", **curves)
    (where / "key.txt").write_text(key)
    return st
