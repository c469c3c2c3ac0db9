"""Does the racing design keep the frontiers right? (issue 37, item 3) — uniform and racing side by side, on known
truth.

Per generator of the validity study (``known_truth.GENERATORS``: the estimator's own family and its departures),
simulated sets of a set's shape are drawn (``known_truth.draw_cube``); each is estimated twice from the same attempts:
with every cell (the uniform design) and with only the cells the race would have run (``collect.racing.replay``, with
the set's
``racing`` settings), exactly as a racing set's report computes them — the protected statistics from every problem's
records (two-level bootstrap, the race's decisions held fixed), Table 1 from every problem's records with each cell
weighted by the inverse of its chance of being recorded (``inclusion``), every other one from the Table-1 sample alone.
Both are judged against the set's own truth (``known_truth.true_statistics``). Pure computation: no notebook, no file.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd

from helpers.analyze import inclusion
from helpers.analyze.bootstrap import RunCube, bootstrap, percentile_interval
from helpers.analyze.intervals import PROTECTED_BY
from helpers.analyze.known_truth import GenerativeModel, draw_cube, draw_problems, true_statistics
from helpers.analyze.statistic import TABLE1, Key
from helpers.analyze.validity import ZERO, pooled_rate
from helpers.collect import racing
from helpers.core.pool import forked_map
from helpers.core.simulation import Generator

STUDY_COLUMNS = ["generator", "statistic", "design", "from", "mean_abs_bias", "rel_bias_pct", "coverage_pct",
                 "coverage_se_pct", "mean_width", "usd_pct"]


def options_of(gm: GenerativeModel, cube: RunCube) -> dict[str, tuple[str, str]]:
    """The cube's collected strategies as race options: name -> (model, method)."""
    return {s: _model_method(s) for s in cube.strategies}


def _model_method(strategy: str) -> tuple[str, str]:
    model, method = (strategy.split("+", 1) + ["vanilla"])[:2]
    return model, method


def race_mask(gm: GenerativeModel, cube: RunCube, expert: np.ndarray, settings,
              seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(raced (P, S) bool: the cells the race runs, on every problem, sample (P,) bool: the Table-1 sample, where every
    cell runs) of a drawn cube, the race set as ``settings`` (``params.Racing``) says, its sample drawn with
    ``seed``."""
    with np.errstate(invalid="ignore"):
        cost = np.nanmean(cube.usd, axis=-1)
    passes = cube.correct.sum(axis=-1)
    P, S = cube.runs.shape
    problems = cube.problems.to_frame(index=False).astype(str)
    cells = pd.DataFrame({"task": np.repeat(problems["task"].to_numpy(), S),
                          "problem_id": np.repeat(problems["problem_id"].to_numpy(), S),
                          "option": np.tile(np.array(cube.strategies, dtype=object), P),
                          "cost_usd": cost.ravel(), "passes": passes.ravel(), "runs": cube.runs.ravel()})
    releases = {m: i for i, names in enumerate(gm.steps) for m in names}
    subsets = racing.report_subsets(options_of(gm, cube), gm.families, releases, settings.protect)
    fees = pd.Series(expert, index=pd.MultiIndex.from_frame(problems))
    kept = racing.replay(cells, fees, subsets, settings.table1_share, seed, settings.margin, settings.alpha)
    raced = kept.set_index(["task", "problem_id", "option"])["raced"].reindex(
        pd.MultiIndex.from_frame(cells[["task", "problem_id", "option"]])).to_numpy(bool).reshape(P, S)
    chosen = racing.table1_sample(problems.groupby("task", sort=False)["problem_id"].agg(list).to_dict(),
                                  settings.table1_share, seed)
    return raced, np.array([k in chosen for k in zip(problems["task"], problems["problem_id"])], dtype=bool)


def emptied(cube: RunCube, ran: np.ndarray) -> RunCube:
    """The cube with the cells not run emptied (no runs: cost-of-pass ∞, never the cheapest)."""
    return dataclasses.replace(cube, runs=np.where(ran, cube.runs, 0), usd=np.where(ran[..., None], cube.usd, np.nan),
                               correct=cube.correct & ran[..., None])


def rows_of(cube: RunCube, keep: np.ndarray) -> RunCube:
    """The cube on the problems ``keep`` (P,) bool only."""
    idx = np.flatnonzero(keep)
    return dataclasses.replace(cube, problems=cube.problems[idx], task_codes=cube.task_codes[idx], usd=cube.usd[idx],
                               correct=cube.correct[idx], runs=cube.runs[idx], answer=cube.answer[idx],
                               class_ok=cube.class_ok[idx])


def _estimate(gm: GenerativeModel, cube: RunCube, expert: np.ndarray, replicates: int, seed: int, level: float,
              share: np.ndarray | None = None) -> dict[Key, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """statistic -> (value, low, high), (T,) each: the plug-in and its two-level bootstrap interval; with ``share``
    (P, S) (``inclusion.inclusion_weights``), Table 1's statistics only, each model's cells weighted by it."""
    point, reps = bootstrap(cube, expert, replicates, seed=seed)
    if share is None:
        est, boot = gm.statistics(point.frontier), gm.statistics(reps.frontier)
    else:
        table1 = {k: v for k, v in gm.specs.items() if k.kind == TABLE1}
        est, boot = (inclusion.weighted_table1(r, share, cube.strategies, table1) for r in (point, reps))
    out = {}
    for name, v in est.items():
        lo, hi = percentile_interval(boot[name], level)
        out[name] = (v[0], np.fmin(lo, v[0]), np.fmax(hi, v[0]))
    return out


def one_set(gm: GenerativeModel, seed: int, generator: Generator | None, settings,
            replicates: int, level: float) -> dict:
    """One simulated set: per statistic its truth and each design's (value, low, high), and the race's USD share."""
    rng = np.random.default_rng(seed)
    problems = draw_problems(gm, rng, generator)
    cube, expert = draw_cube(gm, rng, problems)
    raced, sample = race_mask(gm, cube, expert, settings, seed)
    ran = raced | sample[:, None]
    uniform = _estimate(gm, cube, expert, replicates, seed, level)
    everywhere = _estimate(gm, emptied(cube, ran), expert, replicates, seed, level)
    weighted = _estimate(gm, emptied(cube, ran), expert, replicates, seed, level,
                         inclusion.inclusion_weights(raced, sample, cube.task_starts))
    on_sample = _estimate(gm, rows_of(cube, sample), expert[sample], replicates, seed, level)
    true = true_statistics(gm, problems)
    spent = float(np.nansum(np.where(ran[..., None], cube.usd, 0)) / np.nansum(cube.usd))
    out: dict[Key | str, Any] = {"usd_share": spent}
    for name in uniform:
        protected = PROTECTED_BY.get(name.kind) in settings.protect
        racing_value = everywhere[name] if protected else weighted.get(name, on_sample[name])
        source = "every problem" if protected else "every problem, weighted" if name in weighted else "Table-1 sample"
        out[name] = {"truth": true[name], "uniform": uniform[name], "racing": racing_value, "from": source,
                     "sample": on_sample[name]}  # the Table-1 sample alone, side by side where weighting replaces it
    return out


def racing_study(gm: GenerativeModel, generators, settings, repetitions: int = 40, replicates: int = 100,
                 seed: int = 0, level: float = 0.95, workers: int = 1) -> pd.DataFrame:
    """Per generator, statistic family and design: mean |bias|, relative bias (%), coverage of the ``level`` interval
    where the truth is not 0 (%, with its Monte-Carlo standard error, sets as clusters), mean width, and the share of
    the uniform design's USD the design spent (``STUDY_COLUMNS``); ``from``: every problem, every problem weighted
    (Table 1), or the Table-1 sample. Where Table 1 is weighted, a third design, ``sample``, is Table 1 from the Table-1
    sample alone (what a racing set showed before it was weighted), side by side."""
    jobs = [(seed * 100_003 + 7_919 * i + r, g) for i, g in enumerate(generators) for r in range(repetitions)]
    sets = forked_map(lambda s, g: one_set(gm, s, g, settings, replicates, level), jobs, workers,
                      "simulated sets")
    rows = []
    for i, g in enumerate(generators):
        reps = sets[i * repetitions:(i + 1) * repetitions]
        names = [n for n in reps[0] if isinstance(n, Key)]
        usd = 100 * float(np.mean([r["usd_share"] for r in reps]))
        for fam in dict.fromkeys(n.kind for n in names):
            mine = [n for n in names if n.kind == fam]
            truth = np.array([[r[n]["truth"] for n in mine] for r in reps]).reshape(len(reps), -1)
            nonzero = np.abs(truth) > ZERO
            weighted = reps[0][mine[0]]["from"] == "every problem, weighted"
            for design in ("uniform", "racing", *(("sample",) if weighted else ())):
                v, lo, hi = (np.array([[r[n][design][k] for n in mine] for r in reps]).reshape(truth.shape)
                             for k in range(3))
                cov, se = pooled_rate((lo <= truth) & (truth <= hi),
                                      nonzero if nonzero.any() else np.ones_like(nonzero))
                rows.append({"generator": g.name, "statistic": fam.name, "design": design,
                             "from": {"uniform": "every problem",
                                      "sample": "Table-1 sample"}.get(design, reps[0][mine[0]]["from"]),
                             "mean_abs_bias": float(np.abs((v - truth).mean(0)).mean()),
                             "rel_bias_pct": (100 * float((v - truth).sum() / np.abs(truth).sum())
                                              if np.abs(truth).sum() > ZERO else np.nan),
                             "coverage_pct": 100 * cov, "coverage_se_pct": 100 * se,
                             "mean_width": float((hi - lo).mean()), "usd_pct": 100.0 if design == "uniform" else usd})
    return pd.DataFrame(rows, columns=STUDY_COLUMNS)
