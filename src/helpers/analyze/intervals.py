"""Intervals on a set's numbers: plug-in with two-level bootstrap intervals, and the model-based
estimator with its own (see ``bootstrap`` and ``frontier_model`` for the estimators, ``07_validity`` for
how well each recovers a known truth).

Statistics are functions of a frontier function (as ``headline``); each becomes one row per
(statistic, dataset, estimator) with the estimate and its ``level`` percentile interval.
``set_statistics(an)`` computes every statistic of Tables 1, 2, 5, 6, Figures 2-5 and the routing
frontier once per set (``compute_statistics``: three forked shares) and keeps them under
``results/<set>/intervals/``, keyed by the graded records, the analysis code and the settings, so each
notebook reads them instead of bootstrapping again.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, cast

import numpy as np
import pandas as pd

from helpers.analyze import headline, inclusion, means, model_checks, policy, routing, unseen
from helpers.analyze.bootstrap import (
    DEFAULT_REPLICATES,
    Replicates,
    RunCube,
    bootstrap,
    percentile_interval,
    point_estimate,
    problem_weights,
    resampled_costs,
    run_cube,
)
from helpers.analyze.costofpass import release_steps
from helpers.analyze.estimates import Analysis
from helpers.analyze.frontier_model import ModelFrontier
from helpers.analyze.statistic import (
    ESSENTIAL,
    FAMILY,
    FRONTIER,
    KEY_COLUMNS,
    RELEASE_FRONTIER,
    RELEASE_GAIN,
    TABLE1,
    TECHNIQUE_GAIN,
    Key,
    Kind,
    possible_range,
)
from helpers.grade.stage import graded_paths

EXPERT = "expert"  # the human expert's strategy in the routing points and the cost–accuracy figure's data
MODEL_DRAWS = 200  # parameter draws of the model-based intervals (each recomputes every problem's posterior)
Statistics = dict[Key, headline.Spec]  # statistic -> what it computes (``headline.all_specs``)
COLUMNS = [*KEY_COLUMNS, "task", "estimator", "value", "low", "high", "widened", "range_low", "range_high",
           "range_ci_low", "range_ci_high", "unseen_pct", "spread_mean"]


def set_cube(an: Analysis) -> tuple[RunCube, np.ndarray]:
    """The set's graded attempts as a RunCube, and the expert's USD per problem in its order."""
    cube = run_cube(an.attempts, list(an.ctx.params.methods))
    return cube, an.expert.reindex(cube.problems).to_numpy()


@dataclass(frozen=True)
class PolicyFit:
    """A set's policy estimates (``policy``), the RunCube they were computed from (``cube``) and the expert's USD
    per problem in the cube's order (``fee``, (P,))."""

    policy: policy.SetPolicy
    cube: RunCube
    fee: np.ndarray


def set_policy(an: Analysis) -> PolicyFit:
    """The set's policy estimates (``policy.set_policy``): each model alone (k = the models' fewest runs of a cell),
    and, each routed problem by problem by a difficulty its options share (read on half of the problem's runs) and
    valued on the other half, the
    frontier of all models, each technique's gain and the statistics of Figures 2-5 (``all_statistics``); with the cube
    and the expert's USD per problem they were computed from.
    Compute it once per notebook and hand it to what reads it (``policy_statistics``, ``tables.policy_cost``,
    ``tables.holdout_table``)."""
    from helpers.core.methods import get_method

    cube, expert = set_cube(an)
    models = [cube.strategies.index(m) for m in an.models if m in cube.strategies]
    collected = {m: get_method(m).is_collected for m in an.ctx.params.methods}
    specs = policy.crossfit_specs(all_statistics(an, set(cube.strategies)), cube.strategies, collected)
    sp = policy.set_policy(cube.usd, cube.correct, cube.runs, expert, cube.task_codes, models, specs)
    return PolicyFit(sp, cube, expert)


def policy_statistics(an: Analysis, fitted: PolicyFit | None = None, level: float = 0.95) -> pd.DataFrame:
    """The set's headline under "up to k tries, then the expert" (``set_policy``, ``policy.policy_rows``): each model
    alone (``table1:<model>``), the frontier of all models, each technique's gain and Figures 2-5's statistics
    (``release frontier:<i>`` in % of the expert alone, ``release gain:<i>``, ``family:<g>``, ``essential:<m>``), with
    the intervals the validity study checks (``policy_study``). Rows: statistic, task, value, low, high, k, records_usd,
    expert_usd, expert_share_pct (USD per problem; gains 0-1). ``fitted``: ``set_policy(an)`` if already computed."""
    fit = set_policy(an) if fitted is None else fitted
    cube = fit.cube
    names = {cube.strategies.index(m): m for m in an.models if m in cube.strategies}
    return policy.policy_rows(fit.policy, fit.fee, cube.task_codes, cube.tasks, names, level,
                              cube.problems.get_level_values("problem_id"))


def alone(cube: RunCube, expert: np.ndarray) -> np.ndarray:
    """(T,) USD per problem: the expert alone on each dataset of ``cube`` (the mean of ``expert`` (P,) over its
    problems)."""
    return np.add.reduceat(np.asarray(expert, float), cube.task_starts) / np.diff([*cube.task_starts, len(expert)])


def _rows(estimator: str, values: dict[Key, np.ndarray], spread: dict[Key, np.ndarray], tasks: list[str],
          level: float, ranges: dict | None = None, box_ranges: dict | None = None,
          expert_alone: np.ndarray | None = None) -> pd.DataFrame:
    """One row per (statistic, task) (``KEY_COLUMNS``, ``Key.row``): ``values[key]`` (T,) and the interval of
    ``spread[key]`` (B, T), widened
    to hold the value where the replicates' percentiles miss it (``widened``: a bias larger than the spread, or
    float rounding), so every interval holds its point. The plug-in's rows also carry the identified range at the
    point (``ranges[key]`` = (lowest, highest, unseen share), (T,) each: ``unseen.ranges``), the range widened by
    every cell's sampling error (``box_ranges[key]`` = (lowest, highest), (T,) each: ``Replicates.box``; at
    least the identified range and the interval) and the share (%) of the value carried by problems no strategy
    of it passed; ``spread_mean`` is the replicates' mean (the plug-in's minus it: the bootstrap's bias estimate).
    With ``expert_alone`` (T,) USD per problem, every end is kept within the values the statistic can take
    (``statistic.possible_range``: a replicate of problems with unequal fees can exceed the expert alone)."""
    rows = []
    for key, v in values.items():
        lo, hi = percentile_interval(spread[key], level)
        finite = np.isfinite(spread[key])
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(finite, spread[key], 0.0).sum(axis=0) / finite.sum(axis=0)  # NaN where none is finite
        widened = (v < lo) | (v > hi)
        lo, hi = np.fmin(lo, v), np.fmax(hi, v)
        if ranges is not None:
            assert box_ranges is not None  # given with ``ranges``
            r_lo, r_hi, share = (np.asarray(x, float) for x in ranges[key])
            r_lo, r_hi = np.fmin(r_lo, v), np.fmax(r_hi, v)
            ci_lo = np.fmin(np.asarray(box_ranges[key][0], float), np.fmin(r_lo, lo))
            ci_hi = np.fmax(np.asarray(box_ranges[key][1], float), np.fmax(r_hi, hi))
        else:
            r_lo = r_hi = ci_lo = ci_hi = share = np.full(len(tasks), np.nan)
        if expert_alone is not None:
            least, most = possible_range(key.kind, expert_alone)
            least, most = np.fmin(least, v), np.fmax(most, v)  # the point itself, whatever its rounding
            lo, hi, r_lo, r_hi, ci_lo, ci_hi = (np.clip(x, least, most) for x in (lo, hi, r_lo, r_hi, ci_lo, ci_hi))
        rows += [{**key.row(), "task": task, "estimator": estimator, "value": float(v[j]), "low": float(lo[j]),
                  "high": float(hi[j]), "widened": bool(widened[j]), "range_low": float(r_lo[j]),
                  "range_high": float(r_hi[j]), "range_ci_low": float(ci_lo[j]), "range_ci_high": float(ci_hi[j]),
                  "unseen_pct": 100 * float(share[j]), "spread_mean": float(mean[j])} for j, task in enumerate(tasks)]
    return pd.DataFrame(rows, columns=COLUMNS)


def accuracy_cost(cube: RunCube, expert: np.ndarray, level: float = 0.95) -> pd.DataFrame:
    """Tables 5-6 and the cost-accuracy figure's points: rows (statistic ``accuracy`` (0-1) / ``cost_usd`` (USD per
    attempt), strategy, task, value, low, high) of every strategy; the intervals (``means``, checked by the validity
    study) where the strategy has runs of its own, none for a method derived from vanilla runs (majority vote, …),
    whose values come from the method's math."""
    point = point_estimate(cube, expert)
    every = cube.all_strategies
    values = np.stack([point.mean_per_task(getattr(point, a)) for a in ("rate", "cost")])[:, 0]  # (2, T, S_all)
    G = (cube.task_codes[None, :] == np.arange(len(cube.tasks))[:, None]).astype(float)
    bounds = np.full((2, 2, len(cube.tasks), len(every)), np.nan)  # (accuracy/cost, low/high, T, S_all)
    own = [every.index(s) for s in cube.strategies]  # the collected strategies come first, in the cube's order
    bounds[0][:, :, own] = means.accuracy_interval(cube.correct, cube.runs, G, level)[1:]
    bounds[1][:, :, own] = means.cost_interval(cube.usd, cube.runs, G, level)[1:]
    rows = [{"statistic": what, "strategy": s, "task": task, "value": values[w, j, i], "low": bounds[w, 0, j, i],
             "high": bounds[w, 1, j, i]}
            for w, what in enumerate(("accuracy", "cost_usd")) for i, s in enumerate(every)
            for j, task in enumerate(cube.tasks)]
    return pd.DataFrame(rows, columns=["statistic", "strategy", "task", "value", "low", "high"])


# ---- every statistic of a set, computed once and kept on disk -------------------------------------
ESTIMATORS = ("plug-in", "model-based")


@dataclass
class SetStatistics:
    """Every interval of a set: ``frame`` rows (statistic, task, estimator, value, low, high) of Tables 1, 2
    and Figures 2-5 (names as ``headline``: ``table1:<m>``, ``frontier:all models``, ``technique gain:<x>``,
    ``release frontier:<i>``, ``release gain:<i>``, ``family:<g>``, ``essential:<m>``); ``accuracy_cost``
    Tables 5-6 (accuracy and USD per attempt of each model); ``curves[estimator]`` the normalised frontier over release
    steps (%), (1 + replicates or draws, steps, T), row 0 the estimate, for refitting the trend; ``routing`` and
    ``routing_points`` the oracle-routing cost–accuracy frontier (``routing_frames``)."""

    frame: pd.DataFrame
    accuracy_cost: pd.DataFrame
    curves: dict[str, np.ndarray]
    replicates: int
    draws: int
    level: float
    routing: pd.DataFrame  # oracle routing envelope (``routing_frames``)
    routing_points: pd.DataFrame
    checks: pd.DataFrame  # the item-response model's checks per dataset (``model_checks.set_checks``)

    def release_ranges(self, tasks: list[str], steps: int) -> np.ndarray:
        """(2, steps, T) %: the range of Figure 2's plug-in curve never-passed problems allow, with its interval
        (``range_ci_low``, ``range_ci_high`` of ``release frontier:<i>``)."""
        rows = self.of(RELEASE_FRONTIER)
        rows = rows[rows["estimator"] == "plug-in"].set_index(["statistic", "task"])
        return np.array([[[rows.at[(str(i), t), col] for t in tasks] for i in range(steps)]
                         for col in ("range_ci_low", "range_ci_high")], dtype=float)

    def model_verdicts(self) -> dict[str, str]:
        """task -> "" where the model's checks pass, else "rejected by <check>" (``model_checks.verdicts``)."""
        return model_checks.verdicts(self.checks)

    def of(self, kind: Kind) -> pd.DataFrame:
        """The rows of the statistics of ``kind``, with ``statistic`` = their item (no ``kind`` and ``item`` columns:
        one kind's rows)."""
        rows = self.frame[self.frame["kind"] == kind.name]
        return rows.assign(statistic=rows["item"]).drop(columns=["kind", "item"])


def free_response_tasks(an: Analysis) -> frozenset[str]:
    """The set's tasks whose answers cannot be guessed (a number or an expression: no choices, no labels)."""
    from helpers.core.tasks import get_task

    return frozenset(t for t in an.tasks if get_task(t).metric in ("number", "math"))


def set_steps(an: Analysis) -> list[tuple[pd.Timestamp, list[str]]]:
    """The set's release steps (``fidelity.release_steps``) over the models with estimates."""
    return release_steps(an.releases, an.ctx.params.fidelity.release_steps == "one_model")


def all_statistics(an: Analysis, available: set[str]) -> Statistics:
    """Every statistic of the set's Tables 1, 2 and Figures 2-5 over the strategies with estimates."""
    models = [m for m in an.models if m in available]
    steps = [[m for m in names if m in available] for _, names in set_steps(an)]
    seeds = {}
    if an.agent_runs and an.ctx.params.import_from is not None:  # a seeded strategy's gain over its seed's attempt
        from helpers.collect.imports.agent_evals import seeded_by

        seeds = seeded_by(an.ctx.params.import_from.runs, models)
    return headline.all_specs(models, an.families.to_dict(), list(an.ctx.params.methods), steps,
                              an.ctx.params.fidelity.family_denominator, available, seeds)


def _cache_key(an: Analysis, replicates: int, draws: int, level: float) -> str:
    code = Path(__file__).parent
    h = hashlib.sha256()
    # a racing set's Table-1 weights
    race = [code.parent / "collect" / "racing.py", code.parent / "grade" / "racing.py"]
    for path in sorted([*code.glob("*.py"), *code.glob("*.json"),
                        *(code.parent / "core" / "methods").glob("*.py"), *race]):
        h.update(path.read_bytes())
    manifest = graded_paths(an.ctx)["manifest"]
    h.update(manifest.read_bytes() if manifest.is_file() else b"no manifest")
    h.update(an.expert.to_numpy(dtype=float).tobytes())  # the expert registry is not in the graded records
    p = an.ctx.params
    h.update(json.dumps([replicates, draws, level, p.seed, p.fidelity.model_dump(), an.models, an.families.to_dict(),
                         {m: str(d) for m, d in an.releases.items()}, list(p.methods), p.design,
                         p.racing.model_dump()]).encode())
    return h.hexdigest()


PROTECTED_BY = {FRONTIER: "frontier", RELEASE_FRONTIER: "releases", RELEASE_GAIN: "releases",
                # a statistic's kind -> racing.protect
                FAMILY: "families", ESSENTIAL: "models", TECHNIQUE_GAIN: "techniques"}
CHUNK_REPLICATES = 100  # the protected statistics' replicates drawn at once (every problem's cube is large)


def every_problem_statistics(an: Analysis, replicates: int, level: float) -> tuple[pd.DataFrame, np.ndarray | None]:
    """A racing set's statistics from every problem's records: its protected ones (``Analysis.protects``) and Table 1,
    each model's cells weighted by the inverse of their chance of being recorded (``inclusion``). The plug-in's rows
    (``_rows``, two-level bootstrap over all problems, the race's decisions held fixed) and, where the releases are
    protected, Figure 2's curve (1 + replicates, steps, T) %; empty and None for a uniform set."""
    if an.full is None:
        return pd.DataFrame(columns=COLUMNS), None
    cube, expert = set_cube(an.full)
    every = all_statistics(an.full, set(cube.all_strategies))
    specs = {k: v for k, v in every.items() if an.protects(PROTECTED_BY.get(k.kind, ""))}
    table1 = {k: v for k, v in every.items() if k.kind == TABLE1}
    share = set_inclusion(an, cube)

    def evaluated(reps: Replicates) -> dict[Key, np.ndarray]:
        return {**headline.evaluate(specs, reps.frontier),
                **inclusion.weighted_table1(reps, share, cube.strategies, table1)}

    seed = an.ctx.params.seed
    weights = problem_weights(cube, replicates, seed)
    point = None
    spread: dict[Key, list[np.ndarray]] = {k: [] for k in [*specs, *table1]}
    for i, start in enumerate(range(0, replicates, CHUNK_REPLICATES)):
        w = weights[start:start + CHUNK_REPLICATES]
        point, reps = bootstrap(cube, expert, len(w), seed=seed, weights=w, stream=i + 1)
        for k, v in evaluated(reps).items():
            spread[k].append(v)
    assert point is not None  # replicates >= 1
    values = {k: v[0] for k, v in evaluated(point).items()}
    spread_all = {k: np.concatenate(v) for k, v in spread.items()}
    ranges, box = _identified(specs, point, {}), _identified(specs, point, {}, box=True)
    for name, spec in table1.items():  # each model's range over its own weighted problems
        mine = inclusion.weighted(point, inclusion.model_weights(share, cube.strategies, spec))
        _identified({name: spec}, mine, ranges)
        _identified({name: spec}, mine, box, box=True)
    names = [k for k in specs if k.kind == RELEASE_FRONTIER]
    curves = (np.stack([np.concatenate([values[k][None], spread_all[k]]) for k in names], axis=1) if names else None)
    return _rows("plug-in", values, spread_all, cube.tasks, level, ranges, box, alone(cube, expert)), curves


def _identified(specs: Statistics, point: Replicates, into: dict, box: bool = False) -> dict:
    """``into`` updated with each statistic's identified range at the point (``unseen.ranges``: lowest, highest, unseen
    share; with ``box``, widened by every cell's sampling error: lowest, highest), (T,) each."""
    found = unseen.ranges(specs, point.box() if box else point.bounds())
    into.update({k: tuple(x[0] for x in (v[:2] if box else v)) for k, v in found.items()})
    return into


def set_inclusion(an: Analysis, cube: RunCube) -> np.ndarray:
    """(P, S) a racing set's Table-1 weight of each cell (``Analysis.table1_weights``) over the cube of every problem's
    records (``set_cube(an.full)``): its problems and collected strategies."""
    weights = an.table1_weights
    assert weights is not None  # a racing set
    keys = pd.MultiIndex.from_tuples([(str(t), str(p)) for t, p in cube.problems])
    weights = weights.set_axis(pd.MultiIndex.from_arrays([weights.index.get_level_values(i).astype(str)
                                                          for i in (0, 1)]))
    return weights.reindex(index=keys, columns=cube.strategies).fillna(0.0).to_numpy(float)


FRAMES = ("statistics", "accuracy_cost", "routing", "routing_points", "checks")
ROUTING_REPLICATES = 200  # bootstrap replicates / model draws of the routing envelope's bands


@dataclass
class Share:
    """One worker's share of an estimator's replicates (or draws), as raw arrays: small enough to send back.

    ``spread`` statistic -> (b, T) statistics of its replicates; the first share also carries the estimate
    (``values`` statistic -> (T,)), a plug-in's identified range (``ranges`` statistic -> (lowest, highest, unseen
    share), (T,) each) and that range widened by every cell's sampling error (``box_ranges`` statistic -> (lowest,
    highest), (T,) each: ``Replicates.box``), the routing envelope (``routing.envelope`` of the estimate and of the
    first
    ``ROUTING_REPLICATES`` replicates: acc0, usd0, accb, usdb) and each model alone (acc, usd of the estimate
    (1, T, S) and of those replicates (b, T, S))."""

    estimator: str
    spread: dict[Key, np.ndarray]
    values: dict[Key, np.ndarray] | None = None
    envelope: tuple | None = None
    points: tuple | None = None
    box_ranges: dict | None = None
    ranges: dict | None = None
    checks: pd.DataFrame | None = None  # the model's checks (``model_checks.set_checks``), model-based share only


def _costs_and_rates(fit) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(C, R, weights) a router sees: observed rates for the plug-in, posterior means for the model-based."""
    if isinstance(fit, Replicates):
        return fit.cost, fit.rate, fit.weights
    return (*fit.posterior_rates(), fit.weights)


def share(estimator: str, fit, spread, stats: Statistics, models: list[str], first: bool) -> Share:
    """Every statistic of ``spread`` (and, for the ``first`` share, of ``fit`` and the routing frontier)."""
    out = Share(estimator, headline.evaluate(stats, spread.frontier))
    if not first:
        return out
    starts = fit.cube.task_starts
    out.values = {k: v[0] for k, v in headline.evaluate(stats, fit.frontier).items()}
    if isinstance(fit, Replicates):
        out.ranges = {k: tuple(x[0] for x in v) for k, v in unseen.ranges(stats, fit.bounds()).items()}
        out.box_ranges = {k: tuple(x[0] for x in v[:2]) for k, v in unseen.ranges(stats, fit.box()).items()}
    sources = [_costs_and_rates(fit), tuple(x[:ROUTING_REPLICATES] for x in _costs_and_rates(spread))]
    out.envelope = tuple(v for c, r, w in sources for v in routing.envelope(c, r, w, starts, fit.expert))
    cols = [fit.strategies.index(m) for m in models]
    out.points = tuple(v for c, r, w in sources for v in routing.model_points(c[..., cols], r[..., cols], w, starts))
    return out


@dataclass(frozen=True)
class Job:
    """One worker's task: ``estimator`` on the problem weights ``rows`` of the set's replicates."""

    estimator: str
    rows: slice
    stream: int  # the plug-in's run draws: one random stream per share

    def run(self, cube: RunCube, expert: np.ndarray, weights: np.ndarray, seed: int, stats: Statistics,
            models: list[str], free_response: frozenset[str] = frozenset()) -> Share:
        w = weights[self.rows]
        first = self.rows.start == 0
        if self.estimator == "plug-in":
            point, reps = bootstrap(cube, expert, len(w), seed=seed, weights=w, stream=self.stream)
            return share(self.estimator, point, reps, stats, models, first)
        model = ModelFrontier(cube, expert)
        drawn = model.benchmark_draws(len(w), seed=seed, costs=resampled_costs(cube, len(w), seed))
        out = share(self.estimator, model, drawn, stats, models, first)
        out.checks = model_checks.set_checks(model.k, cube.runs, model.fits, model.rows, cube.tasks, seed,
                                             groups=model.groups, free_response=free_response,
                                             interaction=model.interaction)
        return out


def jobs_for(replicates: int, draws: int, workers: int = 2) -> list[Job]:
    """The plug-in's replicates in two shares and the model-based draws in one: about equal work on 2 cores."""
    half = replicates // 2 if workers > 1 else replicates
    plug = [Job("plug-in", slice(0, half), 0)] + ([Job("plug-in", slice(half, replicates), 1)]
                                                  if half < replicates else [])
    return [*plug, Job("model-based", slice(0, min(draws, replicates)), 0)]


def _run_jobs(jobs: list[Job], work: Callable[[Job], Share], parallel: bool = True) -> list[Share]:
    """Each job in its own forked process (one BLAS thread each) where the platform forks, else in turn."""
    from helpers.core.pool import forked_map

    return forked_map(work, [(j,) for j in jobs], len(jobs) if parallel else 1)


def _envelope_band(envelope: tuple[np.ndarray, ...], budgets: np.ndarray, level: float) -> tuple[np.ndarray, ...]:
    """(value, low, high, widened), each (K, T), of an estimator's envelope (acc0, usd0, accb, usdb) at ``budgets``:
    the ``level`` interval of its replicates, widened to hold the value where their percentiles miss it."""
    acc0, usd0, accb, usdb = envelope
    value = routing.at_budgets(acc0, usd0, budgets)[0]
    lo, hi = percentile_interval(routing.at_budgets(accb, usdb, budgets), level)
    widened = (value < lo) | (value > hi)  # the envelope is a maximum over noisy options: its replicates sit above it
    return value, np.fmin(lo, value), np.fmax(hi, value), widened


def routing_frames(first: dict[str, Share], tasks: list[str], models: list[str], expert_usd: np.ndarray, level: float,
                   crossfitted: routing.CrossFitted | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The oracle-routing frontier of every strategy and the expert, per estimator (``routing``), from each
    estimator's first share:

    ``routing`` rows (task, estimator, budget_usd, value, low, high, widened): accuracy (0-1) reachable at each
    budget (USD per problem, a log grid shared by the estimators), with the ``level`` interval of the first
    ``ROUTING_REPLICATES`` replicates / draws, widened to hold the value where the replicates' percentiles miss it
    (``widened``; every interval holds its point); ``routing_points`` rows (task, estimator, strategy, accuracy,
    usd, acc_low, acc_high, usd_low, usd_high): each model alone (vanilla) and the human expert
    (``strategy`` = ``EXPERT``, ``expert_usd`` (T,) its mean USD per problem). ``crossfitted``: the cross-fitted
    envelope with problem draws (``routing.crossfit_envelope``), added as estimator ``cross-fitted`` with its interval
    (``CrossFitted.at``; judged on known truth by the validity study's ``CROSSFIT_ROUTING`` rows).
    """
    carried = {e: (r.envelope, r.points) for e, r in first.items() if r.envelope is not None and r.points is not None}
    if len(carried) != len(first):
        raise ValueError("routing_frames: each estimator's first share must carry the routing envelope and points")
    budgets = routing.budget_grid(*(env[1] for env, _ in carried.values()),
                                  *([crossfitted.usd[:1]] if crossfitted is not None else []))
    rows, points = [], []
    bands = {e: _envelope_band(env, budgets, level) for e, (env, _) in carried.items()}
    if crossfitted is not None:
        value, lo, hi = crossfitted.at(budgets, level)
        bands["cross-fitted"] = value, lo, hi, np.zeros_like(value, bool)
    for e, (value, lo, hi, widened) in bands.items():
        for j, task in enumerate(tasks):
            rows += [{"task": task, "estimator": e, "budget_usd": b, "value": v, "low": lw, "high": h, "widened": w}
                     for b, v, lw, h, w in zip(budgets[j], value[:, j], lo[:, j], hi[:, j], widened[:, j])]
    for e, (_, model_points) in carried.items():
        acc_p, usd_p, acc_b, usd_b = model_points
        (al, ah), (ul, uh) = percentile_interval(acc_b, level), percentile_interval(usd_b, level)
        (al, ah), (ul, uh) = (np.fmin(al, acc_p[0]),
                              np.fmax(ah, acc_p[0])), (np.fmin(ul, usd_p[0]), np.fmax(uh, usd_p[0]))
        points += [{"task": task, "estimator": e, "strategy": m, "accuracy": acc_p[0, j, i], "usd": usd_p[0, j, i],
                    "acc_low": al[j, i], "acc_high": ah[j, i], "usd_low": ul[j, i], "usd_high": uh[j, i]}
                   for j, task in enumerate(tasks) for i, m in enumerate(models)]
    points += [{"task": task, "estimator": EXPERT, "strategy": EXPERT, "accuracy": 1.0, "usd": u,
                "acc_low": 1.0, "acc_high": 1.0, "usd_low": u, "usd_high": u} for task, u in zip(tasks, expert_usd)]
    return pd.DataFrame(rows), pd.DataFrame(points)


def compute_statistics(cube: RunCube, expert: np.ndarray, stats: Statistics, models: list[str], steps: list[list[str]],
                       replicates: int = DEFAULT_REPLICATES, draws: int = MODEL_DRAWS,
                       seed: int = 0, level: float = 0.95,
                       workers: int = 2, free_response: frozenset[str] = frozenset()) -> SetStatistics:
    """``SetStatistics`` of a cube: the plug-in's replicates in two shares and the model-based draws in one,
    each in a forked process (``jobs_for``), then every interval from the shares' raw arrays. ``stats``: the
    statistics of a frontier function (``all_statistics``), with ``release frontier:<i>`` for each of ``steps``."""
    weights = problem_weights(cube, replicates, seed)
    shares = _run_jobs(jobs_for(replicates, draws, workers),
                       lambda j: j.run(cube, expert, weights, seed, stats, models, free_response), parallel=workers > 1)
    frames, curves, first = [], {}, {}
    for e in ESTIMATORS:
        mine = [sh for sh in shares if sh.estimator == e]
        first[e] = head = mine[0]
        assert head.values is not None  # the first share carries the estimate
        spread = {k: np.concatenate([sh.spread[k] for sh in mine]) for k in head.spread}
        frames.append(_rows(e, head.values, spread, cube.tasks, level, head.ranges,
                            head.box_ranges, alone(cube, expert)))
        names = [Key(RELEASE_FRONTIER, str(i)) for i in range(len(steps))]
        curves[e] = (np.stack([np.concatenate([head.values[k][None], spread[k]]) for k in names], axis=1)
                     if steps else np.zeros((1, 0, len(cube.tasks))))
    table56 = accuracy_cost(cube, expert, level)
    expert_usd = alone(cube, expert)
    checks = next(sh.checks for sh in shares if sh.checks is not None)
    crossfitted = (routing.crossfit_envelope(cube.usd, cube.correct, cube.runs, cube.task_starts, expert, seed=seed,
                                             weights=weights[:ROUTING_REPLICATES], level=level)
                   if cube.runs.max(initial=0) >= 2 else None)  # chosen on half the runs, valued on the other
    return SetStatistics(pd.concat(frames, ignore_index=True), table56, curves, replicates, draws, level,
                         *routing_frames(first, cube.tasks, models, expert_usd, level, crossfitted), checks)


def set_statistics(an: Analysis, replicates: int = DEFAULT_REPLICATES, draws: int = MODEL_DRAWS,
                   level: float = 0.95) -> SetStatistics:
    """Every interval of the set (``SetStatistics``), read from ``results/<set>/intervals/`` when the graded
    records, analysis code and settings are those it was computed from, else computed (``compute_statistics``)
    and written there."""
    where = an.ctx.params.output_path / "intervals"
    key = _cache_key(an, replicates, draws, level)
    if (where / "key.txt").is_file() and (where / "key.txt").read_text() == key:
        curves = np.load(where / "curves.npz")
        frames = {name: pd.read_parquet(where / f"{name}.parquet") for name in FRAMES}
        return SetStatistics(frames["statistics"], frames["accuracy_cost"], {e: curves[e] for e in ESTIMATORS},
                             replicates, draws, level, frames["routing"], frames["routing_points"], frames["checks"])
    cube, expert = set_cube(an)
    available = set(cube.all_strategies)
    steps = [[m for m in names if m in available] for _, names in set_steps(an)]
    st = compute_statistics(cube, expert, all_statistics(an, available), [m for m in an.models if m in available],
                            steps, replicates, draws, an.ctx.params.seed, level, free_response=free_response_tasks(an))
    rows, curve = every_problem_statistics(an, replicates, level)  # a racing set: its protected frontiers and Table 1
    if len(rows):
        mine = (st.frame["estimator"] == "plug-in") & st.frame["statistic"].isin(set(rows["statistic"]))
        st.frame = pd.concat([st.frame[~mine], rows], ignore_index=True)
    if curve is not None:
        st.curves["plug-in"] = curve
    where.mkdir(parents=True, exist_ok=True)
    for name, df in zip(FRAMES, (st.frame, st.accuracy_cost, st.routing, st.routing_points, st.checks), strict=True):
        df.to_parquet(where / f"{name}.parquet")
    np.savez_compressed(where / "curves.npz", **cast(dict[str, Any], st.curves))  # arrays (numpy's stub: bool)
    (where / "key.txt").write_text(key)
    return st
