"""The headline's validity on known truth (issue 35): the policy cost "up to k tries, then the expert"
(``analyze.policy``) of Table 1, of the frontier of all models, of Table 2's technique gains and of Figures 2-5
(the frontier over releases, each release's gain, the families' and single models' counterfactuals), each with its
interval, over simulated sets drawn by every generator of the validity study (``known_truth.GENERATORS``: the model's
own family and the departures from it).

Every set is drawn from the generator (new problems, new runs; ``known_truth.draw_problems``,
``known_truth.draw_cube``); its truth is the policy's exact cost on that set's own problems, from their true pass rates
and costs per attempt. Table 1 uses every run (k = the runs per cell); the frontier and the technique gains choose one
option per problem, routed by a difficulty the options share read on half of its runs, and value it on the other
half (``policy.set_policy``: ``policy.crossfit_halves``, the same k), so their truth is what the options they chose
truly cost. No bootstrap: the intervals are closed-form (``policy.chosen_interval``, ``policy.gain_interval``): a set
drawn and its statistics computed (``draw_set``) take about 4 CPU-seconds at the `sim` set's shape (3 × what the
choice before 2026-12-02 took: every half-split without the curves; ``benchmarks/routing_cost.py``, saved output),
so its default study, 10 sets of each of 13 generators, about 550 CPU-seconds. Everything here is SIMULATED.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from helpers.analyze import claims, differences, means, policy
from helpers.analyze.bootstrap import RunCube
from helpers.analyze.headline import Gain, Level
from helpers.analyze.known_truth import GENERATORS, GenerativeModel, draw_cube, draw_problems, truth
from helpers.analyze.statistic import (
    ACCURACY,
    COST_PER_ATTEMPT,
    FAMILY,
    RELEASE_GAIN,
    TABLE1,
    TECHNIQUE_GAIN,
    Key,
    Kind,
)
from helpers.analyze.validity import HEADLINE_ESTIMATOR, ZERO, pooled_rate
from helpers.core.methods import get_method
from helpers.core.pool import forked_map
from helpers.core.simulation import Generator

if TYPE_CHECKING:
    from helpers.analyze.intervals import PolicyFit

ESTIMATOR = HEADLINE_ESTIMATOR
REPETITIONS = 40  # sets per generator (the acceptance's count)
COLUMNS = ["generator", "statistic", "estimator", "headline", "sets", "k", "mean_abs_bias", "rel_bias_pct",
           "coverage_pct", "coverage_se_pct", "mean_width", "width_vs_truth", "width_vs_oracle", "unbounded_pct",
           "false_findings_pct", "power_pct", "oracle_power_pct", "vs_best_single", "vs_best_single_worst"]
PAIRS = "Paired differences, each model alone (USD)"  # the study's row of every pair of models alone, per dataset


def set_statistics(gm: GenerativeModel, cube: RunCube, expert: np.ndarray, cost: np.ndarray, rate: np.ndarray,
                   level: float = 0.95, kinds: tuple[Kind, ...] | None = None) -> dict[Key, dict[str, np.ndarray]]:
    """One simulated set's policy statistics (``policy.set_policy``, ``policy.policy_rows``), (T,) each, with their
    truth: ``table1:<model>`` (every run, k = the runs per cell) and, cross-fitted (the same k), the
    frontier of all models, the technique gains and Figures 2-5's statistics (``gm.specs``; only those whose kind is
    in ``kinds`` when given). ``cost``/``rate`` (P, S) the true C and R of the cube's
    strategies. A gain's entry also holds its denominator's estimate and truth (``base``, ``base_truth``, USD per
    problem): the gain times them is its paired difference, whose interval names it (``effect_table``)."""
    codes, T = cube.task_codes, len(cube.tasks)
    models = {cube.strategies.index(m): m for m in gm.models}
    specs = policy.crossfit_specs(gm.specs, cube.strategies, {m: get_method(m).is_collected for m in gm.methods})
    specs = {key: x for key, x in specs.items() if kinds is None or key.kind in kinds}
    sp = policy.set_policy(cube.usd, cube.correct, cube.runs, expert, codes, list(models), specs)
    rows = policy.policy_rows(sp, expert, codes, list(range(T)), models, level,
                              claimed=(policy.CLAIMED_GAINS[0], policy.CLAIMED_GAINS[2]))  # the claims it reads
    chosen = chosen_truths(sp, expert, codes, T, cost, rate) if sp.fits else None
    truths = policy_truths(sp, expert, codes, T, models, cost, rate, chosen)
    keys = {str(key): key for key in truths}  # each row's key, by the name its row was written with
    out = {}
    for name, d in rows.groupby("statistic", sort=False):
        d = d.sort_values("task")
        out[keys[name]] = {"truth": truths[keys[name]], "value": d["value"].to_numpy(), "low": d["low"].to_numpy(),
                     "high": d["high"].to_numpy(), "k": int(d["k"].iloc[0]), "cheapest": d["cheapest"].to_numpy(),
                     "shown": d["shown"].to_numpy()}
    if chosen is not None:
        for key, spec in sp.specs.items():
            if key in out and isinstance(spec, Gain):  # the gain's denominator: its estimate and truth, (T,) USD each
                denominator = spec.base + spec.added if spec.over_after else spec.base
                out[key] |= {"base": _task_means(sp.fit(denominator).total, codes, T),
                             "base_truth": chosen(denominator)}
    return out


def _task_means(values: np.ndarray, codes: np.ndarray, T: int) -> np.ndarray:
    """(T,) the mean of ``values`` (P,) over each task's problems (``codes`` (P,) task codes)."""
    return np.array([values[codes == t].mean() for t in range(T)])


Chosen = Callable[[tuple[int, ...]], np.ndarray]  # strategy indices -> what their chosen policy truly costs, (T,)


def chosen_truths(sp: policy.SetPolicy, expert: np.ndarray, codes: np.ndarray, T: int, cost: np.ndarray,
                  rate: np.ndarray) -> Chosen:
    """What a cross-fitted frontier of ``sp`` over some strategies truly costs on its set's problems, valued at the
    options it chose: a function of the strategy indices returning (T,) USD per problem, each computed once.
    ``cost``/``rate`` (P, S) the true USD per attempt and pass rate; ``expert`` (P,) USD; ``codes`` (P,) task codes."""
    true_chosen = policy.true_policy(cost, rate, expert, next(iter(sp.fits.values())).k)

    @lru_cache(maxsize=None)
    def value(key: tuple[int, ...]) -> np.ndarray:
        return _task_means(sp.fit(key).truth(true_chosen, expert).total, codes, T)

    def of(strategies: tuple[int, ...]) -> np.ndarray:
        return value(tuple(sorted(strategies)))
    return of


@dataclass(frozen=True)
class PairDraw:
    """One set's paired differences of every two models alone (``differences.all_pairs``, each interval at the study's
    level on its own), (T, K) each: estimate, interval, the true difference and each side's truth (USD per problem)."""

    value: np.ndarray
    low: np.ndarray
    high: np.ndarray
    truth: np.ndarray
    truth_a: np.ndarray
    truth_b: np.ndarray


def set_pairs(single: policy.PolicyCost, expert: np.ndarray, codes: np.ndarray, T: int, models: dict[int, str],
              truths: dict[Key, np.ndarray], level: float = 0.95) -> PairDraw:
    """``PairDraw`` of each model alone (``single``: ``policy.policy_cost``): every pair of ``models`` (cube column ->
    name), on the same problems and runs, beside the truths of ``policy_truths`` (``table1:<name>``, (T,) each)."""
    cols = list(models)
    G = (np.asarray(codes)[None, :] == np.arange(T)[:, None]).astype(float)
    caps = policy.single_caps(single, expert, G, level)[:, cols]
    a, b, (value, low, high) = differences.all_pairs(single.total[:, cols], G, expert, level,
                                                     simultaneous=False, caps=caps, parts=single.columns(cols))
    true = np.stack([truths[Key(TABLE1, models[c])] for c in cols], axis=1)  # (T, M)
    return PairDraw(value, low, high, true[:, a] - true[:, b], true[:, a], true[:, b])


def policy_truths(sp: policy.SetPolicy, expert: np.ndarray, codes: np.ndarray, T: int, models: dict[int, str],
                  cost: np.ndarray, rate: np.ndarray, chosen: Chosen | None = None) -> dict[Key, np.ndarray]:
    """What each statistic of a fitted policy ``sp`` truly is on its set's problems, (T,) per statistic: each model
    alone with k tries, and the cross-fitted statistics valued at the options they chose. ``cost``/``rate`` (P, S):
    the true USD per attempt and pass rate of the cube's strategies, its problems' order; ``expert`` (P,) USD;
    ``codes`` (P,) task codes; ``models``: cube column -> model name; ``chosen``: ``chosen_truths`` of the same, where
    the caller has it."""
    true_single = policy.true_policy(cost, rate, expert, sp.single.k).total
    truths = {Key(TABLE1, m): _task_means(true_single[:, s], codes, T) for s, m in models.items()}
    if sp.fits:
        V = chosen or chosen_truths(sp, expert, codes, T, cost, rate)
        fee = _task_means(expert, codes, T)
        for key, spec in sp.specs.items():
            if isinstance(spec, Level):
                truths[key] = spec.factor * V(spec.strategies) / (fee if spec.relative else 1.0)
            else:
                tb, ta = V(spec.base), V(spec.base + spec.added)
                truths[key] = (tb - ta) / (ta if spec.over_after else tb)
    return truths


def repetition(gm: GenerativeModel, seed: int, generator: Generator | None, level: float = 0.95,
               kinds: tuple[Kind, ...] | None = None) -> dict:
    """One set drawn by ``generator`` (``known_truth.draw_problems``, ``known_truth.draw_cube``) and its policy
    statistics (``set_statistics``) against the truth of its own problems."""
    return draw_set(gm, seed, generator, level, kinds)[0]


def draw_set(gm: GenerativeModel, seed: int, generator: Generator | None, level: float = 0.95,
           kinds: tuple[Kind, ...] | None = None) -> tuple[dict, PairDraw, np.ndarray]:
    """One set drawn by ``generator`` from ``seed``: ``repetition``'s statistics, the set's paired differences of the
    models alone (``set_pairs``) and the best single model's true cost at the chosen policies' k, (T,) USD per problem
    (what the frontier is measured against)."""
    # truth of what has runs
    gm = dataclasses.replace(gm, methods=[m for m in gm.methods if get_method(m).is_collected])
    rng = np.random.default_rng(seed)
    problems = draw_problems(gm, rng, generator)
    cube, expert = draw_cube(gm, rng, problems)
    tr = truth(gm, problems)
    S = len(cube.strategies)
    cost, rate = tr.cost[0][:, :S], tr.rate[0][:, :S]
    stats = set_statistics(gm, cube, expert, cost, rate, level, kinds)
    models = {cube.strategies.index(m): m for m in gm.models}
    T = len(cube.tasks)
    if kinds is None or ACCURACY in kinds:
        stats |= set_means(cube, cost, rate, models, level)
    truths = {key: v["truth"] for key, v in stats.items() if key.kind == TABLE1}
    k = policy.headline_k(cube.runs[:, list(models)])
    single = policy.policy_cost(cube.usd, cube.correct, cube.runs, expert, k)
    pairs = set_pairs(single, expert, cube.task_codes, T, models, truths, level)
    true = policy.true_policy(cost, rate, expert, k).total[:, list(models)]
    best = np.array([true[cube.task_codes == t].mean(axis=0).min() for t in range(T)])
    return stats, pairs, best


def set_means(cube: RunCube, cost: np.ndarray, rate: np.ndarray, models: dict[int, str], level: float = 0.95
              ) -> dict[Key, dict[str, np.ndarray]]:
    """Tables 5 and 6 of one simulated set (``means``): each model's accuracy and USD per attempt per dataset, (T,)
    each, with their intervals and their truth (the mean over the dataset's problems of the true R and C, ``rate``
    and ``cost`` (P, S))."""
    T, cols = len(cube.tasks), list(models)
    G = (cube.task_codes[None, :] == np.arange(T)[:, None]).astype(float)
    out = {}
    for kind, (value, low, high), true in (
            (ACCURACY, means.accuracy_interval(cube.correct[:, cols], cube.runs[:, cols], G, level), rate[:, cols]),
            (COST_PER_ATTEMPT, means.cost_interval(cube.usd[:, cols], cube.runs[:, cols], G, level), cost[:, cols])):
        truth = G @ true / G.sum(axis=1)[:, None]
        for j, c in enumerate(cols):
            out[Key(kind, models[c])] = {"truth": truth[:, j], "value": value[:, j], "low": low[:, j],
                                          "high": high[:, j], "k": int(cube.runs[:, c].min()),
                                          "cheapest": np.zeros(T, bool)}
    return out


def _stacked(reps: list, keys: list[Key], field: str) -> np.ndarray:
    """(repetitions, statistics): one ``field`` of the statistics ``keys`` of every repetition."""
    return np.array([[r[k][field] for k in keys] for r in reps]).reshape(len(reps), -1)


def study(gm: GenerativeModel, generators: tuple[Generator, ...] = GENERATORS, repetitions: int = REPETITIONS,
          seed: int = 0, level: float = 0.95, workers: int = 1) -> pd.DataFrame:
    """Per generator and statistic family (Table 1, the frontier of all models, Table 2's technique gains, Figures
    2-5), over ``repetitions`` sets each (``COLUMNS``): mean |bias| (USD, or 0-1 for gains), relative bias (%),
    coverage of the ``level`` interval (%) with its Monte-Carlo standard error (sets as clusters), mean width, mean
    width over the truth and over the oracle's (``_oracle_ratio``), the share of unbounded intervals
    (``unbounded_pct``), and the rate of false findings (% of the (set,
    dataset) pairs): a technique named as paying (shown above 0 with the others tested together) while its true gain
    is not positive; a family named the most essential while another's true gain is larger; a model named the cheapest
    alone (its paired differences below 0) while another truly costs less. Table 1's row gives the cheapest claim's
    power (% of the pairs where the truly cheapest model costs at most half the runner-up in which it is named); the
    frontier's, its truth over the best single model's at the same k (``_vs_best_single``: over all datasets together,
    and the worst dataset's). Then one row of every pair of models alone (``PAIRS``): coverage of the
    paired difference's interval, its width over the oracle's, power (% of the pairs where one truly costs at most
    half the other in which the interval excludes 0) and false findings (% of pairs whose interval excludes 0 on the
    wrong side)."""
    jobs = [(seed * 100_003 + 7_919 * i + r + 50_000, g) for i, g in enumerate(generators) for r in range(repetitions)]
    done = forked_map(lambda s, g: draw_set(gm, s, g, level), jobs, workers, "simulated sets")
    rows = []
    for i, g in enumerate(generators):
        drawn = done[i * repetitions:(i + 1) * repetitions]
        reps = [d[0] for d in drawn]
        for fam in dict.fromkeys(key.kind for key in reps[0]):
            names = [key for key in reps[0] if key.kind == fam]
            t, v, lo, hi = (_stacked(reps, names, key) for key in ("truth", "value", "low", "high"))
            hit = (lo <= t) & (t <= hi)
            cov, se = pooled_rate(hit, np.ones_like(hit))
            with np.errstate(invalid="ignore", divide="ignore"):
                ratio = np.where(np.abs(t) > ZERO, (hi - lo) / np.abs(t), np.nan)
            rows.append({"generator": g.name, "statistic": fam.label, "estimator": ESTIMATOR,
                         "headline": True, "sets": len(reps), "k": int(reps[0][names[0]]["k"]),
                         "mean_abs_bias": float(np.abs((v - t).mean(0)).mean()),
                         "rel_bias_pct": 100 * float((v - t).sum() / np.abs(t).sum())
                         if np.abs(t).sum() > ZERO else np.nan,
                         "coverage_pct": 100 * cov, "coverage_se_pct": 100 * se, "mean_width": float((hi - lo).mean()),
                         "width_vs_truth": _nanmean(ratio), "width_vs_oracle": _oracle_ratio(v, t, lo, hi),
                         "unbounded_pct": unbounded_pct(v, lo, hi),
                         "false_findings_pct": FALSE_FINDINGS[fam](reps, names) if fam in FALSE_FINDINGS else np.nan,
                         "power_pct": _cheapest_power(reps, names) if fam == TABLE1 else np.nan,
                         **dict(zip(("vs_best_single", "vs_best_single_worst"),
                                    _vs_best_single(reps, [d[2] for d in drawn]) if fam
                                    == policy.FRONTIER.kind else (np.nan,) * 2))})
        rows.append(_pairs_row(g.name, [d[1] for d in drawn], int(reps[0][next(iter(reps[0]))]["k"])))
    return pd.DataFrame(rows, columns=COLUMNS)


def _nanmean(x: np.ndarray) -> float:
    """``np.nanmean`` of every value, NaN without a warning where every value is NaN (a family whose truths are 0)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(np.nanmean(x))


def _oracle_ratio(value: np.ndarray, truth: np.ndarray, low: np.ndarray, high: np.ndarray) -> float:
    """The median over cells of the mean interval width over the oracle's: 3.92 × the standard deviation over the
    sets of the estimate's error against each set's own truth, (R, cells) arrays (left out: cells that never vary, and
    cells whose interval is unbounded in some set, which ``unbounded_pct`` counts)."""
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a cell without a value in any set (NaN throughout)
        oracle = 3.92 * np.nanstd(value - truth, axis=0)
        ratio = np.nanmean(high - low, axis=0) / oracle
    ratio = ratio[np.isfinite(ratio) & (oracle > ZERO)]
    return float(np.median(ratio)) if ratio.size else np.nan


def unbounded_pct(value: np.ndarray, low: np.ndarray, high: np.ndarray) -> float:
    """% of the estimates (any shape; those with a finite value) whose interval has an infinite end: where the
    records cannot bound a ratio (e.g. Fieller's interval, taken for the routed gains before the delta method's,
    wherever its denominator's own interval reached 0); NaN without one."""
    has = np.isfinite(value)
    open_ = has & ~(np.isfinite(low) & np.isfinite(high))
    return 100 * float(open_.sum() / has.sum()) if has.any() else np.nan


def _vs_best_single(reps: list[dict], best: list[np.ndarray]) -> tuple[float, float]:
    """The frontier's truth over the best single model's at the same k, the mean over the sets of each divided: over
    all datasets together (USD per problem summed over them), and the largest over the datasets."""
    front, single = np.array([r[policy.FRONTIER]["truth"] for r in reps]), np.array(best)  # (R, T) each
    with np.errstate(invalid="ignore", divide="ignore"):
        return (float(front.mean(axis=0).sum() / single.mean(axis=0).sum()),
                float(np.nanmax(front.mean(axis=0) / single.mean(axis=0))))


def _cheapest_power(reps: list[dict], names: list[Key]) -> float:
    """% of the (set, dataset) pairs where the truly cheapest model alone costs at most half the runner-up in which the
    report names it the cheapest (``cheapest``: its paired differences below 0); NaN where no pair has such a gap."""
    true = _options_last(reps, names, "truth")  # (R, T, M)
    named = claims.cheapest_model(_options_last(reps, names, "cheapest").astype(bool))
    order = np.sort(true, axis=-1)
    clear = order[..., 0] <= 0.5 * order[..., 1]  # (R, T)
    hit = named == np.argmin(true, axis=-1)
    return 100 * float(hit[clear].mean()) if clear.any() else np.nan


def _pairs_row(generator: str, draws: list[PairDraw], k: int) -> dict:
    """``study``'s row of every pair of models alone (``PAIRS``) over the sets ``draws``."""
    v, lo, hi, t, ta, tb = (np.array([getattr(d, f) for d in draws]).reshape(len(draws), -1)
                            for f in ("value", "low", "high", "truth", "truth_a", "truth_b"))
    cov, se = pooled_rate((lo <= t) & (t <= hi), np.ones_like(t, bool))
    clear = np.maximum(ta, tb) >= 2 * np.minimum(ta, tb)
    found = ((hi < 0) & (ta < tb)) | ((lo > 0) & (ta > tb))
    half = 1.96 * np.nanstd(v - t, axis=0)  # the oracle's: centred on the estimate, as wide as its error's spread
    seen = ((v + half < 0) & (ta < tb)) | ((v - half > 0) & (ta > tb))
    wrong = ((hi < 0) & (t > 0)) | ((lo > 0) & (t < 0))
    return {"generator": generator, "statistic": PAIRS, "estimator": ESTIMATOR, "headline": True, "sets": len(draws),
            "k": k, "mean_abs_bias": float(np.abs((v - t).mean(0)).mean()),
            "rel_bias_pct": 100 * float((v - t).sum() / np.abs(t).sum()) if np.abs(t).sum() > ZERO else np.nan,
            "coverage_pct": 100 * cov, "coverage_se_pct": 100 * se, "mean_width": float((hi - lo).mean()),
            "width_vs_truth": np.nan, "width_vs_oracle": _oracle_ratio(v, t, lo, hi),
            "false_findings_pct": 100 * float(wrong.mean()),
            "power_pct": 100 * float(found[clear].mean()) if clear.any() else np.nan,
            "oracle_power_pct": 100 * float(seen[clear].mean()) if clear.any() else np.nan, "vs_best_single": np.nan,
            "vs_best_single_worst": np.nan}


def _options_last(reps: list[dict], names: list[Key], key: str) -> np.ndarray:
    """(R, T, options): ``key`` of each option ``names`` over the sets ``reps``, options on the last axis (as
    ``claims`` reads them)."""
    return np.moveaxis(np.array([[r[n][key] for n in names] for r in reps], dtype=float), 1, -1)


def _named_wrongly(named: np.ndarray, true: np.ndarray, wrong) -> float:
    """% of (set, dataset) pairs where a claim names an option (``named``: (R, T) indices, ``claims.NONE`` for none)
    for which ``wrong(true_of_named, true)`` holds (``true``: (R, T, options))."""
    picked = np.take_along_axis(true, np.maximum(named, 0)[..., None], axis=-1)[..., 0]
    return 100 * float(((named != claims.NONE) & wrong(picked, true)).mean())


def _false_findings(reps: list[dict], names: list[Key]) -> float:
    """% of (set, dataset) pairs where the report names some technique as paying (``claims.techniques_that_pay``), or
    some release as having a gain shown (the same rule: shown above 0 with the others of its kind tested together;
    review 11, M3), whose true gain is not positive."""
    named = claims.techniques_that_pay(_options_last(reps, names, "value"), _options_last(reps, names, "shown"))
    return 100 * float((named & (_options_last(reps, names, "truth") <= ZERO)).any(axis=-1).mean())


def _false_family(reps: list[dict], names: list[Key]) -> float:
    """% of (set, dataset) pairs where a family is named the most essential (``claims.most_essential``) while it is
    not the family with the largest true gain."""
    named = claims.most_essential(*(_options_last(reps, names, key) for key in ("value", "low", "high", "shown")))
    return _named_wrongly(named, _options_last(reps, names, "truth"),
                          lambda picked, true: picked < true.max(axis=-1) - ZERO)


def _false_cheapest(reps: list[dict], names: list[Key]) -> float:
    """% of (set, dataset) pairs where a model alone is named the cheapest (``claims.cheapest_model`` of the marks
    ``differences.cheapest_beyond_doubt`` makes) while another model truly costs less."""
    named = claims.cheapest_model(_options_last(reps, names, "cheapest").astype(bool))
    return _named_wrongly(named, _options_last(reps, names, "truth"),
                          lambda picked, true: picked > true.min(axis=-1) + ZERO)


# statistic kind -> its false-findings rate
FALSE_FINDINGS = {TECHNIQUE_GAIN: _false_findings, RELEASE_GAIN: _false_findings, FAMILY: _false_family,
                  TABLE1: _false_cheapest}

EFFECT_COLUMNS = ["technique", "task", "sets", "true gain %", "mean gain %", "coverage %", "named best %",
                  "oracle named %", "difference oracle named %"]


def effect_table(gm: GenerativeModel, repetitions: int = REPETITIONS, seed: int = 0, level: float = 0.95,
                 workers: int = 1) -> pd.DataFrame:
    """A real effect recovered (``EFFECT_COLUMNS``): per technique and dataset over ``repetitions`` sets of ``gm``'s
    own generator (give ``gm`` a true effect, e.g. ``known_truth.generative_model(ctx, refine_gain=g)``), the mean true
    cross-fitted gain and mean estimate (%), how often the interval holds the truth and how often the report would
    name the technique (shown above 0 with the dataset's other techniques tested together: the power to find a gain
    that is there), how often an interval as narrow as the oracle's would lie above 0 (centred on the estimate, 1.96 ×
    the sd over the sets of its error; one gain alone, no multiplicity), and how often the paired difference B − A
    (the gain times its denominator B, each set's estimate) would lie above 1.96 × the sd over the sets of its error.
    Until 2026-12-02 a routed gain's interval (Fieller's) lay above 0 exactly where B − A's did, so the last was what
    naming could find with the difference's own spread known; the delta method's interval at the estimate reads the
    gain's own error, which can be far below it: where A is a small share of B the gain's error is a share of A/B's,
    while whether B − A > 0 turns on B's own spread (benchmarks/HISTORY.md)."""
    jobs = [(seed * 100_003 + 90_000 + r, None) for r in range(repetitions)]
    reps = forked_map(lambda s, g: repetition(gm, s, g, level, (TECHNIQUE_GAIN,)), jobs, workers,
                      "simulated sets")
    rows = []
    names = [key for key in reps[0] if key.kind == TECHNIQUE_GAIN]
    # (R,T,N)
    named = claims.techniques_that_pay(_options_last(reps, names, "value"), _options_last(reps, names, "shown"))
    for i, key in enumerate(names):
        t, v, lo, hi, b, bt = (np.array([r[key][part] for r in reps])
                               for part in ("truth", "value", "low", "high", "base", "base_truth"))  # (R, T) each
        d, dt = v * b, t * bt  # the paired difference B − A (the gain times its denominator): estimate, truth
        oracle, by_difference = v - 1.96 * np.nanstd(v - t, axis=0), d - 1.96 * np.nanstd(d - dt, axis=0)
        for j, tm in enumerate(gm.tasks):
            rows.append({"technique": key.item, "task": tm.task, "sets": len(reps),
                         "true gain %": 100 * t[:, j].mean(), "mean gain %": 100 * v[:, j].mean(),
                         "coverage %": 100 * ((lo[:, j] <= t[:, j]) & (t[:, j] <= hi[:, j])).mean(),
                         "named best %": 100 * named[:, j, i].mean(),
                         "oracle named %": 100 * (oracle[:, j] > 0).mean(),
                         "difference oracle named %": 100 * (by_difference[:, j] > 0).mean()})
    return pd.DataFrame(rows, columns=EFFECT_COLUMNS)


def own_truth(rows: pd.DataFrame, fit: PolicyFit, gm: GenerativeModel, problems, ids: list[tuple[str, str]]
              ) -> pd.DataFrame:
    """A simulated set's own headline under "up to k tries, then the expert" beside its truth: ``rows``
    (``intervals.policy_statistics`` of the policy ``fit``: ``intervals.set_policy``) with ``truth``, what the same
    policy with the same choices truly costs on the set's own problems, and ``covers`` (the interval holds it).
    ``problems``: ``known_truth.own_problems`` (per task, the set's problems in its order); ``ids``: their (task,
    problem_id) in that order, matched to ``cube.problems``. SIMULATED."""
    tr, cube = truth(gm, problems), fit.cube
    order = pd.MultiIndex.from_tuples(ids, names=["task", "problem_id"]).get_indexer(cube.problems)
    columns = [gm.strategies.index(s) for s in cube.strategies]
    cost, rate = tr.cost[0][order][:, columns], tr.rate[0][order][:, columns]
    models = {cube.strategies.index(m): m for m in gm.models if m in cube.strategies}
    truths = {str(key): v for key, v in  # by the name each row was written with
              policy_truths(fit.policy, fit.fee, cube.task_codes, len(cube.tasks), models, cost, rate).items()}
    at = {t: i for i, t in enumerate(cube.tasks)}
    out = rows[rows["statistic"].isin(truths)].copy()
    out["truth"] = [float(truths[s][at[t]]) for s, t in zip(out["statistic"], out["task"])]
    out["covers"] = (out["low"] <= out["truth"]) & (out["truth"] <= out["high"])
    return out.reset_index(drop=True)


def set_own_truth(ctx, rows: pd.DataFrame, fit: PolicyFit) -> pd.DataFrame | None:
    """``own_truth`` of a set's policy ``rows`` where every model of its headline is simulated (``ctx``: the set's
    ``Context``), for the stages whose readings are written before the validity stage tables the truth: a reading can
    then say the simulator's truth beside a number; None for a set of real models. SIMULATED."""
    from helpers.analyze import known_truth as kt

    ctx = ctx.split()[0]
    if not kt.has_known_truth(ctx):
        return None
    return own_truth(rows, fit, kt.generative_model(ctx), kt.own_problems(ctx), kt.problem_ids(ctx))
