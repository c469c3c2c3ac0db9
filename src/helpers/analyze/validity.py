"""Validity on known truth: a repeated-draws study of the paper's estimators (plug-in, bootstrap-corrected,
model-based) on simulated sets drawn from a set's generative model and from generators that depart from it
(``known_truth``): bias, RMSE and interval coverage of every statistic against each set's own truth (and, for
information, the population's). Its tables are ``validity_tables``; the headline's own study is ``policy_study``.
Everything here is SIMULATED.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from helpers.analyze import routing
from helpers.analyze.bootstrap import Replicates, RunCube, bootstrap, percentile_interval, problem_weights
from helpers.analyze.frontier_model import ModelFrontier
from helpers.analyze.known_truth import (
    GENERATORS,
    GenerativeModel,
    draw_cube,
    draw_problems,
    true_statistics,
    truth,
)
from helpers.analyze.statistic import Key, Kind
from helpers.analyze.unseen import ranges
from helpers.core.pool import forked_map
from helpers.core.simulation import (
    OWN,
    Generator,
)

RESPONSE = "[simulated response] Working through the problem gives <answer>{}</answer>"


# ---- the study ---------------------------------------------------------------------------------
ESTIMATORS = ("plug-in", "bootstrap-corrected", "model-based")
ZERO = 1e-12  # a truth this close to 0 is 0: a model or technique that never lowers the frontier
ROUTING_BUDGETS = 5  # budgets per dataset at which the oracle-routing frontier is checked
CROSSFIT_ROUTING = f"Oracle routing, cross-fitted: accuracy at {ROUTING_BUDGETS} budgets (0-1)"


@dataclass(frozen=True)
class Estimate:
    """One estimator's values on one simulated set: (T,) each, per dataset."""
    value: np.ndarray
    low: np.ndarray
    high: np.ndarray


@dataclass(frozen=True)
class StatisticDraw:
    """One statistic on one simulated set: the truth of the set's own problems, each estimator's ``Estimate``
    (``ESTIMATORS``), and the range the records allow, widened by every cell's sampling error and by the plug-in's
    interval (``unseen.ranges`` of ``Replicates.box``). (T,) arrays."""
    truth: np.ndarray
    estimates: dict[str, Estimate]
    range_low: np.ndarray
    range_high: np.ndarray


@dataclass(frozen=True)
class RoutingDraw:
    """One simulated set's oracle-routing accuracy (0-1, (K, T)) at the study's budgets: what the plug-in and the
    model-based oracles claim (``claimed``; their truth is ``routing_truth``'s, routing on the true rates), and the
    cross-fitted router's estimate with its interval as the report prints it (``crossfit``) beside its own truth
    (``crossfit_truth``: the same choices, made on half of the runs, valued at the true rates and costs)."""
    claimed: dict[str, np.ndarray]
    crossfit: Estimate | None = None
    crossfit_truth: np.ndarray | None = None


@dataclass(frozen=True)
class SetDraw:
    """One simulated set of the study, estimated (``_repetition``): every statistic by name, and with routing budgets
    the oracle-routing accuracies there (``RoutingDraw``)."""
    statistics: dict[Key, StatisticDraw]
    routing: RoutingDraw | None = None


@dataclass(frozen=True)
class Pooled:
    """Coverage pooled over a statistic family's cells and the sets (rate, its Monte-Carlo standard error, sets as
    clusters): where the truth is not 0, where it is 0 (and the share of such cells), and of a non-zero population
    truth."""
    rate: float
    se: float
    zero_rate: float
    zero_se: float
    zero_share: float
    population_rate: float
    population_se: float


@dataclass(frozen=True)
class StudyResult:
    """What ``summarise_study`` measured over ``repetitions`` simulated sets: ``table``, one row per (statistic, task,
    estimator) (truth, mean, bias, rmse, coverage, coverage_se, coverage_population); ``routing``, per dataset and
    budget, the oracle-routing frontier's true accuracy and each oracle's mean and RMSE; ``pooled``, per (family,
    estimator), the pooled coverage."""
    table: pd.DataFrame
    routing: pd.DataFrame
    pooled: dict[tuple[str, str], Pooled]
    repetitions: int
    replicates: int
    level: float


def routing_truth(gm: GenerativeModel) -> tuple[np.ndarray, np.ndarray]:
    """(budgets (T, K) USD per problem, true accuracy (K, T)) of the oracle-routing frontier: K budgets log-spaced
    over the middle of each dataset's true envelope."""
    tr = truth(gm)
    acc, usd = routing.envelope(tr.cost, tr.rate, tr.weights, tr.cube.task_starts, tr.expert)
    lo, hi = np.nanmin(usd[0], axis=0), np.nanmax(usd[0], axis=0)
    budgets = np.stack([np.geomspace(a, b, ROUTING_BUDGETS + 2)[1:-1] for a, b in zip(lo, hi, strict=True)])
    return budgets, routing.at_budgets(acc, usd, budgets)[0]


def _routing_estimates(point: Replicates, model: ModelFrontier, budgets: np.ndarray, tr: Replicates, seed: int,
                       replicates: int, level: float) -> RoutingDraw:
    """``RoutingDraw`` at ``budgets`` (T, K) of one set (``point``, ``model``; ``tr``: the truth of its problems)."""
    out = {}
    for name, (cost, rate, w) in (("plug-in", (point.cost, point.rate, point.weights)),
                                  ("model-based", (*model.posterior_rates(), model.weights))):
        acc, usd = routing.envelope(cost, rate, w, point.cube.task_starts, point.expert)
        out[name] = routing.at_budgets(acc, usd, budgets)[0]
    if point.cube.runs.max(initial=0) < 2:
        return RoutingDraw(out)
    return RoutingDraw(out, *_crossfit_draw(point.cube, point.expert, tr, budgets, seed, replicates, level))


def _crossfit_draw(cube: RunCube, expert: np.ndarray, tr: Replicates, budgets: np.ndarray, seed: int, replicates: int,
                   level: float) -> tuple[Estimate, np.ndarray]:
    """The cross-fitted router's accuracy (K, T) at ``budgets`` with its ``level`` interval from ``replicates`` problem
    draws, as ``intervals.routing_frames`` publishes it (``CrossFitted.at``), and its truth: the same choices valued at
    the truth ``tr`` of the set's problems (true USD per attempt and rate)."""
    cols = [tr.strategies.index(s) for s in cube.strategies]
    fitted = routing.crossfit_envelope(cube.usd, cube.correct, cube.runs, cube.task_starts, expert, seed=seed,
                                       weights=problem_weights(cube, replicates, seed), level=level)
    true = routing.crossfit_problems(cube.usd, cube.correct, cube.runs, expert, seed=seed,
                                     truth=(tr.cost[0][:, cols], tr.rate[0][:, cols]))
    ones = np.ones((1, len(expert)))
    true_acc, true_usd = (routing.by_task(v, ones, cube.task_starts) for v in true)
    true_at = routing.at_budgets(true_acc, true_usd, budgets)[0]
    return Estimate(*fitted.at(budgets, level)), true_at


def _repetition(gm: GenerativeModel, seed: int, replicates: int, level: float,
                budgets: np.ndarray | None = None, generator: Generator | None = None) -> SetDraw:
    """One simulated set drawn by ``generator`` (default: the set's own), estimated by every estimator with its
    ``level`` interval (the plug-in's percentile interval of the two-level bootstrap; shifted by twice the bootstrap's
    bias estimate for the corrected one; the model-based posterior interval of ``benchmark_draws``), beside the truth
    of its own problems; with ``budgets``, also the oracle-routing accuracy each oracle claims there."""
    rng = np.random.default_rng(seed)
    problems = draw_problems(gm, rng, generator)
    cube, expert = draw_cube(gm, rng, problems)
    point, reps = bootstrap(cube, expert, replicates, seed=seed)
    model = ModelFrontier(cube, expert)
    stats = gm.statistics
    est, boot = stats(point.frontier), stats(reps.frontier)
    # the replicates' runs
    drawn = model.benchmark_draws(replicates, seed, costs=reps.cost[:, :, :len(cube.strategies)])
    est_model, boot_model = stats(model.frontier), stats(drawn.frontier)
    tr = truth(gm, problems)
    true = {k: v[0] for k, v in stats(tr.frontier).items()}  # ``true_statistics`` of these problems
    box = ranges(gm.specs, point.box())
    at_point = ranges(gm.specs, point.bounds())
    out = {}
    for name, values in est.items():
        p, b = values[0], boot[name]
        lo, hi = percentile_interval(b, level)
        shift = np.nanmean(b, axis=0) - p  # the bootstrap's estimate of the plug-in's bias
        lo_m, hi_m = percentile_interval(boot_model[name], level)
        estimates = {"plug-in": Estimate(p, lo, hi),
                     "bootstrap-corrected": Estimate(p - shift, lo - 2 * shift, hi - 2 * shift),
                     "model-based": Estimate(est_model[name][0], lo_m, hi_m)}
        out[name] = StatisticDraw(true[name], estimates, np.fmin(np.fmin(box[name][0][0], at_point[name][0][0]), lo),
                                  np.fmax(np.fmax(box[name][1][0], at_point[name][1][0]), hi))
    return SetDraw(out, None if budgets is None else _routing_estimates(point, model, budgets, tr, seed, replicates,
                                                                         level))


def _draw_sets(gm: GenerativeModel, jobs: list[tuple[int, Generator | None]], replicates: int, level: float,
               budgets: np.ndarray | None, workers: int) -> list[SetDraw]:
    """``_repetition`` of every (seed, generator) job, in the jobs' order, on ``workers`` forked processes."""
    return forked_map(lambda s, g: _repetition(gm, s, replicates, level, budgets, g), jobs, workers,
                      "simulated sets")


def study_sets(gm: GenerativeModel, repetitions: int = 100, replicates: int = 200, seed: int = 0, level: float = 0.95,
               workers: int = 1) -> list[SetDraw]:
    """``repetitions`` fresh simulated sets drawn from the set's own generator, each estimated (``_repetition``, with
    the oracle-routing budgets of ``routing_truth``): what ``summarise_study`` and ``generator_study`` read."""
    seeds = [seed * 100_003 + r for r in range(repetitions)]
    return _draw_sets(gm, [(s, None) for s in seeds], replicates, level, routing_truth(gm)[0], workers)


def study(gm: GenerativeModel, repetitions: int = 100, replicates: int = 200, seed: int = 0, level: float = 0.95,
          workers: int = 1) -> StudyResult:
    """``summarise_study`` of ``study_sets``."""
    return summarise_study(gm, study_sets(gm, repetitions, replicates, seed, level, workers), replicates, level)


def summarise_study(gm: GenerativeModel, reps: list[SetDraw], replicates: int, level: float = 0.95) -> StudyResult:
    """Bias, RMSE and interval coverage of each estimator of every headline statistic over the simulated sets
    ``reps`` (``study_sets``; ``replicates`` bootstrap replicates each), as a ``StudyResult``.

    Its table has one row per (statistic, task, estimator): truth (the benchmark truths' mean, which is the population
    value), mean estimate, bias and RMSE against each set's benchmark truth, coverage of its ``level`` interval of the
    benchmark truth with its Monte-Carlo standard error, and of the population truth."""
    population = true_statistics(gm)
    tasks = [tm.task for tm in gm.tasks]
    rows: list[dict] = []
    cells: dict[tuple[str, str], list[tuple[np.ndarray, ...]]] = {}  # (family, estimator) -> per statistic, (R, T) each
    for name, p_values in population.items():
        t_values = np.array([r.statistics[name].truth for r in reps])  # (R, T) each set's benchmark truth
        for estimator in ESTIMATORS:
            drawn = [r.statistics[name].estimates[estimator] for r in reps]
            values, low, high = (np.array([getattr(d, part) for d in drawn]) for part in ("value", "low", "high"))
            covered, covered_pop = (low <= t_values) & (t_values <= high), (low <= p_values) & (p_values <= high)
            cells.setdefault((name.kind.name, estimator), []).append(
                (covered, np.abs(t_values) > ZERO, covered_pop,
                 np.broadcast_to(np.abs(p_values) > ZERO, covered.shape)))
            rows += _study_rows(name, estimator, tasks, t_values, values, covered, covered_pop)
    return StudyResult(pd.DataFrame(rows), _routing_table(gm, reps, tasks),
                       {key: _pooled(parts) for key, parts in cells.items()}, len(reps), replicates, level)


def _study_rows(key: Key, estimator: str, tasks: list[str], truth: np.ndarray, values: np.ndarray, covered: np.ndarray,
                covered_pop: np.ndarray) -> list[dict]:
    """``summarise_study``'s rows of one statistic and estimator, one per dataset; arrays (R, T)."""
    rows = []
    for j, task in enumerate(tasks):
        cov = covered[:, j].mean()
        err = values[:, j] - truth[:, j]
        rows.append({**key.row(), "task": task, "estimator": estimator, "truth": truth[:, j].mean(),
                     "mean": values[:, j].mean(), "bias": err.mean(), "rmse": float(np.sqrt(np.mean(err**2))),
                     "coverage": cov, "coverage_se": float(np.sqrt(max(cov * (1 - cov), 1e-12) / len(truth))),
                     "coverage_population": covered_pop[:, j].mean()})
    return rows


def _pooled(parts: list[tuple[np.ndarray, ...]]) -> Pooled:
    """``Pooled`` of a family's statistics: each part (covered, truth not 0, population covered, population not 0),
    (R, T) arrays, joined over the family's cells."""
    hits, nonzero, pop_hits, pop_nonzero = (np.concatenate([p[i] for p in parts], axis=1) for i in range(4))
    rate, se = pooled_rate(hits, nonzero)
    zero_rate, zero_se = pooled_rate(hits, ~nonzero)
    return Pooled(rate, se, zero_rate, zero_se, float((~nonzero).mean()), *pooled_rate(pop_hits, pop_nonzero))


def _routing_table(gm: GenerativeModel, reps: list[SetDraw], tasks: list[str]) -> pd.DataFrame:
    """Per dataset and budget: the oracle-routing frontier's true accuracy and each oracle's mean and RMSE; the
    cross-fitted router's mean, RMSE and interval coverage (%) against its own truth (its choices valued at the true
    rates; mean over the sets)."""
    budgets, true = routing_truth(gm)
    drawn = [r.routing for r in reps if r.routing is not None]
    claimed = {e: np.array([r.claimed[e] for r in drawn]) for e in ("plug-in", "model-based")}
    crossed = [r for r in drawn if r.crossfit is not None and r.crossfit_truth is not None]
    rows = [{"task": task, "budget_usd": budgets[j, k], "truth": true[k, j],
             **{f"{e} mean": float(c[:, k, j].mean()) for e, c in claimed.items()},
             **{f"{e} rmse": float(np.sqrt(np.mean((c[:, k, j] - true[k, j]) ** 2))) for e, c in claimed.items()}}
            for j, task in enumerate(tasks) for k in range(budgets.shape[1])]
    if crossed:
        value, low, high, own = _crossfit_arrays(crossed)
        for row, (k, j) in zip(rows, [(k, j) for j in range(len(tasks)) for k in range(budgets.shape[1])], strict=True):
            ok = np.isfinite(value[:, k, j]) & np.isfinite(own[:, k, j])
            err = value[ok, k, j] - own[ok, k, j]
            row.update({"cross-fitted truth": float(own[ok, k, j].mean()) if ok.any() else np.nan,
                        "cross-fitted mean": float(value[ok, k, j].mean()) if ok.any() else np.nan,
                        "cross-fitted rmse": float(np.sqrt(np.mean(err**2))) if ok.any() else np.nan,
                        "cross-fitted coverage %": 100 * float(((low[ok, k, j] <= own[ok, k, j])
                                                                & (own[ok, k, j] <= high[ok, k, j])).mean())
                        if ok.any() else np.nan})
    return pd.DataFrame(rows)


def _crossfit_arrays(crossed: list[RoutingDraw]) -> tuple[np.ndarray, ...]:
    """(value, low, high, truth), each (R, K, T), of the cross-fitted router over the sets ``crossed``."""
    return tuple(np.array([getattr(r.crossfit, part) for r in crossed]) for part in ("value", "low", "high")) + (
        np.array([r.crossfit_truth for r in crossed]),)


def _crossfit_row(generator: str, drawn: list[RoutingDraw]) -> list[dict]:
    """``generator_study``'s row of the cross-fitted routing envelope (accuracy 0-1 at the study's budgets), judged
    against each set's own truth (its choices valued at the true rates); none where no set has it."""
    crossed = [r for r in drawn if r.crossfit is not None]
    if not crossed:
        return []
    value, low, high, own = (a.reshape(len(crossed), -1) for a in _crossfit_arrays(crossed))
    ok = np.isfinite(value) & np.isfinite(own)
    cov, se = pooled_rate((low <= own) & (own <= high), ok)
    err = np.where(ok, value - own, np.nan)
    return [{"generator": generator, "statistic": CROSSFIT_ROUTING, "estimator": "cross-fitted", "headline": False,
             "mean_abs_bias": float(np.nanmean(np.abs(np.nanmean(err, axis=0)))),
             "rel_bias_pct": 100 * float(np.nansum(err) / np.abs(np.where(ok, own, 0)).sum()),
             "coverage_pct": 100 * cov, "coverage_se_pct": 100 * se,
             "mean_width": float(np.nanmean(np.where(ok, high - low, np.nan))), "range_coverage_pct": np.nan}]


def pooled_rate(hits: np.ndarray, mask: np.ndarray) -> tuple[float, float]:
    """(share of ``hits`` among the ``mask``ed (set, cell) pairs, its standard error over sets), both (R, cells):
    the ratio estimator's clustered standard error, sets as clusters (NaN, NaN when nothing is masked)."""
    n = mask.sum(axis=1)
    if n.sum() == 0:
        return float("nan"), float("nan")
    rate = float((hits & mask).sum() / n.sum())
    dev = (hits & mask).sum(axis=1) - rate * n
    return rate, float(np.sqrt((dev**2).sum()) / n.sum())


# ---- the study over generators that are not the estimator's own model ---------------------------------
GENERATOR_COLUMNS = ["generator", "statistic", "estimator", "headline", "mean_abs_bias", "rel_bias_pct", "coverage_pct",
                     "coverage_se_pct", "mean_width", "range_coverage_pct"]
HEADLINE_ESTIMATOR = "up to k tries, then the expert"  # what the report leads with (``policy_study``; issue 35)


def study_generators(gm: GenerativeModel) -> tuple[Generator, ...]:
    """The generators of ``generator_study``: the set's own (when it is not the estimator's) and ``GENERATORS``."""
    return GENERATORS if gm.generator == OWN else (gm.generator, *GENERATORS)


def generator_study(gm: GenerativeModel, generators=GENERATORS, repetitions: int = 8, replicates: int = 100,
                    seed: int = 0, level: float = 0.95, workers: int = 1,
                    drawn: dict[Generator, list[SetDraw]] | None = None) -> pd.DataFrame:
    """Bias and coverage of the plug-in and model-based estimators, per generator (``Generator``: the own model and
    its departures) and statistic family (Table 1, the frontier of all models, Figures 2-5, Table 2), each judged
    against every simulated set's own truth, ``repetitions`` sets per generator (``GENERATOR_COLUMNS``):
    mean |bias| (the family's units), relative bias (%: Σ bias / Σ |truth| over its cells), coverage of the
    ``level`` interval where the truth is not 0 (%; where every truth of a family is 0, as a technique without
    effect has, of all its cells) with its Monte-Carlo standard error (sets as clusters), mean
    interval width, and how often the plug-in's range (what never-passed problems allow, with its interval) holds
    the truth (%). ``headline``: the estimator the report leads with (``HEADLINE_ESTIMATOR``). With 2 runs or more,
    a row of the cross-fitted routing envelope (``CROSSFIT_ROUTING``) judged against its own truth. ``drawn``: sets
    already drawn from a generator (e.g. the set's own, ``study_sets``), read instead of drawing new ones."""
    drawn = drawn or {}
    jobs = [(seed * 100_003 + 7_919 * i + r, g) for i, g in enumerate(generators) if g not in drawn
            for r in range(repetitions)]
    budgets = routing_truth(gm)[0]  # the own model's: where the cross-fitted router is judged
    done = dict(zip([s for s, _ in jobs], _draw_sets(gm, jobs, replicates, level, budgets, workers), strict=True))
    rows = []
    for g in generators:
        reps = drawn[g] if g in drawn else [done[s] for s, gg in jobs if gg is g]
        for fam in dict.fromkeys(key.kind for key in reps[0].statistics):
            rows += _family_rows(g.name, fam, [[r.statistics[key] for key in reps[0].statistics if key.kind == fam]
                                               for r in reps])
        rows += _crossfit_row(g.name, [r.routing for r in reps if r.routing is not None])
    return pd.DataFrame(rows, columns=GENERATOR_COLUMNS)


def crossfit_routing_study(gm: GenerativeModel, generators=GENERATORS, repetitions: int = 40, replicates: int = 200,
                           seed: int = 0, level: float = 0.95, workers: int = 1) -> pd.DataFrame:
    """``generator_study``'s cross-fitted routing rows alone (``CROSSFIT_ROUTING``; no other estimator runs, so many
    more sets fit in the time): ``repetitions`` sets per generator, the same draws as ``generator_study``'s."""
    budgets = routing_truth(gm)[0]
    jobs = [(seed * 100_003 + 7_919 * i + r, g) for i, g in enumerate(generators) for r in range(repetitions)]
    drawn = forked_map(lambda s, g: _routing_only(gm, s, g, budgets, replicates, level), jobs, workers,
                       "simulated sets")
    rows = []
    for g in generators:
        rows += _crossfit_row(g.name, [d for d, (_, gg) in zip(drawn, jobs, strict=True) if gg is g])
    return pd.DataFrame(rows, columns=GENERATOR_COLUMNS)


def _routing_only(gm: GenerativeModel, seed: int, generator: Generator, budgets: np.ndarray, replicates: int,
                  level: float) -> RoutingDraw:
    """The cross-fitted router of the set ``_repetition`` draws from ``seed`` and ``generator``, beside its truth."""
    rng = np.random.default_rng(seed)
    problems = draw_problems(gm, rng, generator)
    cube, expert = draw_cube(gm, rng, problems)
    return RoutingDraw({}, *_crossfit_draw(cube, expert, truth(gm, problems), budgets, seed, replicates, level))


def _family_rows(generator: str, fam: Kind, draws: list[list[StatisticDraw]]) -> list[dict]:
    """``generator_study``'s rows of one statistic family: ``draws`` per set, its statistics of the family."""
    def cells(get) -> np.ndarray:  # (R, cells): every statistic's (T,) values side by side, per set
        return np.array([np.concatenate([get(d) for d in ds]) for ds in draws])

    truth = cells(lambda d: d.truth)
    nonzero = np.abs(truth) > ZERO
    mask = nonzero if nonzero.any() else np.ones_like(nonzero)  # every truth 0: all cells
    rows = []
    for estimator in ("plug-in", "model-based"):
        value, low, high = (cells(lambda d, e=estimator, part=part: getattr(d.estimates[e], part))
                            for part in ("value", "low", "high"))
        cov, se = pooled_rate((low <= truth) & (truth <= high), mask)
        row = {"generator": generator, "statistic": fam.label, "estimator": estimator,
               "headline": estimator == HEADLINE_ESTIMATOR,
               "mean_abs_bias": float(np.abs((value - truth).mean(0)).mean()),
               "rel_bias_pct": (100 * float((value - truth).sum() / np.abs(truth).sum())
                                if np.abs(truth).sum() > ZERO else np.nan),  # no relative bias of a zero truth
               "coverage_pct": 100 * cov, "coverage_se_pct": 100 * se, "mean_width": float((high - low).mean()),
               "range_coverage_pct": np.nan}
        if estimator == "plug-in":
            r_lo, r_hi = cells(lambda d: d.range_low), cells(lambda d: d.range_high)
            row["range_coverage_pct"] = 100 * pooled_rate((r_lo <= truth) & (truth <= r_hi), mask)[0]
        rows.append(row)
    return rows
