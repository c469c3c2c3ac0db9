"""Intervals on a set's numbers: plug-in with two-level bootstrap intervals, and the model-based
estimator with its own (see ``bootstrap`` and ``frontier_model`` for the estimators, ``07_validity`` for
how well each recovers a known truth).

``estimator_frame`` turns any statistics (a function of a frontier function, as ``headline``) into one
row per (statistic, dataset) with an estimator's estimate and its ``level`` percentile interval.
``set_statistics(an)`` computes every statistic of Tables 1, 2,
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
from helpers.analyze.bootstrap import DEFAULT_REPLICATES, Replicates, RunCube, bootstrap, problem_weights, resampled_costs, run_cube
from helpers.analyze.costofpass import release_steps
from helpers.analyze.estimates import Analysis
from helpers.analyze.frontier_model import ModelFrontier
from helpers.grade.stage import graded_paths

MODEL_DRAWS = 200  # parameter draws of the model-based intervals (each recomputes every problem's posterior)
Statistics = Callable[[Callable], dict[str, np.ndarray]]


def set_cube(an: Analysis) -> tuple[RunCube, np.ndarray]:
    """The set's graded attempts as a RunCube, and the expert's USD per problem in its order."""
    cube = run_cube(an.attempts, list(an.ctx.params.methods))
    return cube, an.expert.reindex(cube.problems).to_numpy()


def estimator_frame(estimator: str, fit, spread, stats: Statistics, tasks: list[str], level: float) -> pd.DataFrame:
    """One row per (statistic, task) of one estimator: ``value`` from ``fit``, ``low``/``high`` the ``level``
    percentile interval of ``spread`` (replicates or draws)."""
    q = 100 * (1 - level) / 2
    values, draws = stats(fit.frontier), stats(spread.frontier)
    rows = []
    for name, v in values.items():
        lo, hi = np.nanpercentile(draws[name], [q, 100 - q], axis=0)
        rows += [{"statistic": name, "task": task, "estimator": estimator, "value": float(v[0, j]),
                  "low": float(lo[j]), "high": float(hi[j])} for j, task in enumerate(tasks)]
    return pd.DataFrame(rows, columns=["statistic", "task", "estimator", "value", "low", "high"])


def accuracy_cost_frame(point: Replicates, reps: Replicates, strategies: list[str], level: float = 0.95) -> pd.DataFrame:
    """Tables 5 and 6 with bootstrap intervals: per strategy and task, accuracy (0-1) and mean USD per attempt
    (computed in float32, the replicates' precision)."""
    q = 100 * (1 - level) / 2
    cols = [point.strategies.index(s) for s in strategies]
    rows = []
    for what, attr in (("accuracy", "rate"), ("cost_usd", "cost")):
        est = point.mean_per_task(getattr(point, attr)[:, :, cols])[0]  # (T, S)
        spread = reps.mean_per_task(getattr(reps, attr)[:, :, cols])  # (B, T, S)
        lo, hi = np.nanpercentile(spread, [q, 100 - q], axis=0)
        for i, s in enumerate(strategies):
            for j, task in enumerate(point.cube.tasks):
                rows.append({"statistic": what, "strategy": s, "task": task, "value": est[j, i],
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


@dataclass
class EstimatorResult:
    """What one estimator contributes to ``SetStatistics`` (small: computed in a worker process)."""

    frame: pd.DataFrame  # ``estimator_frame`` rows
    curves: np.ndarray  # (1 + X, steps, T) normalised frontier over release steps (%), row 0 the estimate
    envelope: tuple[np.ndarray, ...]  # routing.envelope of the estimate and of the spread: acc0, usd0, accb, usdb
    points: pd.DataFrame  # each model alone: task, estimator, strategy, accuracy, usd and their intervals
    accuracy_cost: pd.DataFrame | None = None  # Tables 5-6 (plug-in only)


def _costs_and_rates(fit) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(C, R, weights) a router sees: observed rates for the plug-in, posterior means for the model-based."""
    if isinstance(fit, Replicates):
        return fit.cost, fit.rate, fit.weights
    return (*fit.posterior_rates(), fit.weights)


def estimator_result(estimator: str, fit, spread, stats: Statistics, steps: list[list[str]], models: list[str],
                     level: float) -> EstimatorResult:
    """Every statistic, the release curves and the routing envelope of one estimator (its fit and spread)."""
    q = 100 * (1 - level) / 2
    tasks, starts = fit.cube.tasks, fit.cube.task_starts
    frame = estimator_frame(estimator, fit, spread, stats, tasks, level)
    rel = [headline.release_statistics(f.frontier, steps) for f in (fit, spread)]
    curves = (np.stack([np.concatenate([rel[0][f"release frontier:{i}"], rel[1][f"release frontier:{i}"]])
                        for i in range(len(steps))], axis=1) if steps else np.zeros((1, 0, len(tasks))))
    sources = [_costs_and_rates(fit), tuple(x[:ROUTING_REPLICATES] for x in _costs_and_rates(spread))]
    envelope = tuple(v for c, r, w in sources for v in routing.envelope(c, r, w, starts, fit.expert))
    cols = [fit.strategies.index(m) for m in models]
    (acc_p, usd_p), (acc_b, usd_b) = (routing.model_points(c[..., cols], r[..., cols], w, starts) for c, r, w in sources)
    (al, ah), (ul, uh) = (np.nanpercentile(x, [q, 100 - q], axis=0) for x in (acc_b, usd_b))
    points = pd.DataFrame([{"task": task, "estimator": estimator, "strategy": m, "accuracy": acc_p[0, j, i],
                            "usd": usd_p[0, j, i], "acc_low": al[j, i], "acc_high": ah[j, i], "usd_low": ul[j, i],
                            "usd_high": uh[j, i]} for j, task in enumerate(tasks) for i, m in enumerate(models)])
    return EstimatorResult(frame, curves, envelope, points)


def routing_frames(results: dict[str, EstimatorResult], tasks: list[str], expert_usd: np.ndarray, level: float
                   ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The oracle-routing frontier of every strategy and the expert, per estimator (``routing``):

    ``routing`` rows (task, estimator, budget_usd, value, low, high): accuracy (0-1) reachable at each budget
    (USD per problem, a log grid shared by the estimators), with the ``level`` interval of the first
    ``ROUTING_REPLICATES`` replicates / draws; ``routing_points`` rows (task, estimator, strategy, accuracy,
    usd, acc_low, acc_high, usd_low, usd_high): each model alone (vanilla) and the human expert
    (``strategy`` = "expert", ``expert_usd`` (T,) its mean USD per problem).
    """
    q = 100 * (1 - level) / 2
    budgets = routing.budget_grid(*(r.envelope[1] for r in results.values()))
    rows = []
    for e, r in results.items():
        acc0, usd0, accb, usdb = r.envelope
        value = routing.at_budgets(acc0, usd0, budgets)[0]
        lo, hi = np.nanpercentile(routing.at_budgets(accb, usdb, budgets), [q, 100 - q], axis=0)
        for j, task in enumerate(tasks):
            rows += [{"task": task, "estimator": e, "budget_usd": b, "value": v, "low": lw, "high": h}
                     for b, v, lw, h in zip(budgets[j], value[:, j], lo[:, j], hi[:, j])]
    expert = pd.DataFrame([{"task": task, "estimator": "expert", "strategy": "expert", "accuracy": 1.0, "usd": u,
                            "acc_low": 1.0, "acc_high": 1.0, "usd_low": u, "usd_high": u}
                           for task, u in zip(tasks, expert_usd)])
    return pd.DataFrame(rows), pd.concat([*(r.points for r in results.values()), expert], ignore_index=True)


def _estimator_job(name: str, cube: RunCube, expert: np.ndarray, weights: np.ndarray, seed: int, draws: int,
                   stats: Statistics, steps, models: list[str], level: float) -> EstimatorResult:
    """One estimator from the cube: the plug-in with its bootstrap (problem ``weights`` given), or the model-based
    fit with ``draws`` parameter draws on the first problem weights."""
    if name == "plug-in":
        point, reps = bootstrap(cube, expert, len(weights), seed=seed, weights=weights)
        out = estimator_result(name, point, reps, stats, steps, models, level)
        out.accuracy_cost = accuracy_cost_frame(point, reps, models, level)
        return out
    model = ModelFrontier(cube, expert)
    spread = model.draws(weights[:draws], seed=seed, costs=resampled_costs(cube, min(draws, len(weights)), seed))
    return estimator_result(name, model, spread, stats, steps, models, level)


def _run_estimators(jobs: dict[str, Callable[[], EstimatorResult]]) -> dict[str, EstimatorResult]:
    """Each job in its own forked process (one BLAS thread each) where the platform forks, else in turn."""
    from helpers.collect.workers import can_fork, run_forked

    names = list(jobs)
    if not can_fork():
        return {n: jobs[n]() for n in names}

    def job(group, counter):
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1):
            return jobs[group[0]]()
    return dict(zip(names, run_forked(job, [[n] for n in names], lambda n: None)))


def set_statistics(an: Analysis, replicates: int = DEFAULT_REPLICATES, draws: int = MODEL_DRAWS,
                   level: float = 0.95) -> SetStatistics:
    """Every interval of the set (``SetStatistics``), read from ``results/<set>/intervals/`` when the graded
    records, analysis code and settings are those it was computed from, else computed (the two estimators
    in parallel) and written there."""
    where = an.ctx.params.output_path / "intervals"
    key = _cache_key(an, replicates, draws, level)
    if (where / "key.txt").is_file() and (where / "key.txt").read_text() == key:
        curves = np.load(where / "curves.npz")
        frames = {name: pd.read_parquet(where / f"{name}.parquet") for name in FRAMES}
        return SetStatistics(frames["statistics"], frames["accuracy_cost"], {e: curves[e] for e in ESTIMATORS},
                             replicates, draws, level, frames["routing"], frames["routing_points"])
    cube, expert = set_cube(an)
    available = set(cube.all_strategies)
    models = [m for m in an.models if m in available]
    steps = [[m for m in names if m in available] for _, names in set_steps(an)]
    stats, seed = all_statistics(an, available), an.ctx.params.seed
    weights = problem_weights(cube, replicates, seed)
    results = _run_estimators({e: (lambda e=e: _estimator_job(e, cube, expert, weights, seed, draws, stats, steps,
                                                              models, level)) for e in ESTIMATORS})
    expert_usd = np.add.reduceat(expert, cube.task_starts) / np.diff([*cube.task_starts, len(expert)])
    st = SetStatistics(pd.concat([r.frame for r in results.values()], ignore_index=True),
                       results["plug-in"].accuracy_cost, {e: r.curves for e, r in results.items()},
                       replicates, draws, level, *routing_frames(results, cube.tasks, expert_usd, level))
    where.mkdir(parents=True, exist_ok=True)
    for name, df in zip(FRAMES, (st.frame, st.accuracy_cost, st.routing, st.routing_points)):
        df.to_parquet(where / f"{name}.parquet")
    np.savez_compressed(where / "curves.npz", **st.curves)
    (where / "key.txt").write_text(key)
    return st
