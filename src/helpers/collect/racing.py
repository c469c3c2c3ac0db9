"""The racing collection design: per problem, options (a model with a collected method) in order of expected USD per
attempt, each run only while it could still change a frontier the set reports. Pure rules: nothing here calls,
grades or prices; the collection (``collection``) and the replay benchmark (``benchmarks/racing.py``) drive them.

Why a skip is safe. A strategy's cost-of-pass on a problem is at least its cost per attempt (v = C/R >= C). Once the
options already run on a problem put an upper bound U on a frontier (the least of their upper bounds on v, from a
Jeffreys lower bound on their pass rate, and the expert's fee), an option whose attempts cost at least
``margin`` x its expected USD per attempt > U cannot be the cheapest there. An option is skipped on a problem only
where that holds for **every** option subset the set reports a frontier of (``report_subsets``: all options, each
release's models, every model or family left out, with and without each technique) that contains it.

The decision is made per (problem, option) from the records of cheaper options only, and an option that runs makes
all its runs: given which options run, each one's runs are the same sample as the uniform design's, and a resumed or
repeated run makes exactly the same calls. Table 1 (each option alone with the expert) needs every option on the
same problems: every option runs on every run of a seeded random sample of each task's problems
(``table1_problems``), which is also the calibration sample the expected USD per attempt come from.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Iterable, Mapping

import numpy as np
import pandas as pd

from helpers.core.models import technique_base

MARGIN = 0.5  # an option is skipped only where this share of its expected USD per attempt exceeds the bound
ALPHA = 0.025  # the pass rate's lower bound: Jeffreys, one-sided 2.5%


def pass_rate_lower(passes, runs, alpha: float = ALPHA) -> np.ndarray:
    """Jeffreys lower confidence bound on a pass rate (0-1) from ``passes`` of ``runs`` (arrays broadcast); 0 where
    nothing passed or nothing ran."""
    from scipy.stats import beta

    s = np.asarray(passes, dtype=float)
    n = np.asarray(runs, dtype=float)
    with np.errstate(invalid="ignore"):
        low = beta.ppf(alpha, s + 0.5, np.maximum(n - s, 0) + 0.5)
    return np.where((s > 0) & (n > 0), low, 0.0)


def cost_per_pass_upper(cost_usd, passes, runs, alpha: float = ALPHA) -> np.ndarray:
    """Upper bound on cost-of-pass (USD): mean USD per attempt over the pass rate's lower bound; ``inf`` where that
    bound is 0 (nothing passed, or nothing ran)."""
    low = pass_rate_lower(passes, runs, alpha)
    cost = np.asarray(cost_usd, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(low > 0, cost / np.where(low > 0, low, 1.0), np.inf)


@dataclass(frozen=True)
class Race:
    """One task's race: its options cheapest first, their expected USD per attempt and the reported subsets.

    ``options``: names, in visiting order; ``expected_usd``: float array, one per option (USD per attempt);
    ``subsets``: bool array [subsets x options], True where the option belongs to the subset.
    """

    options: tuple[str, ...]
    expected_usd: np.ndarray
    subsets: np.ndarray
    margin: float = MARGIN

    def needed(self, j: int, upper: np.ndarray, expert: np.ndarray) -> np.ndarray:
        """Where option ``j`` could still change a reported frontier: bool [problems].

        ``upper``: [problems x j] upper bounds on cost-of-pass of the options before ``j`` (``inf`` where one did not
        run); ``expert``: [problems] the expert's USD (every frontier includes the expert)."""
        holding = self.subsets[self.subsets[:, j]][:, :j]  # the subsets with option j, over the options before it
        if holding.shape[0] == 0:
            return np.zeros(len(expert), dtype=bool)  # no reported frontier has it
        bound = np.where(holding[None, :, :], upper[:, None, :], np.inf).min(axis=2, initial=np.inf)
        bound = np.minimum(bound, np.asarray(expert, dtype=float)[:, None])  # [problems x subsets]
        return (self.margin * self.expected_usd[j] <= bound).any(axis=1)


def make_race(expected_usd: dict[str, float], subsets: Iterable[Iterable[str]], margin: float = MARGIN) -> Race:
    """The race of one task: options ordered by expected USD per attempt (ties by name); every subset is reduced to
    the options the race has."""
    options = tuple(sorted(expected_usd, key=lambda o: (expected_usd[o], o)))
    at = {o: i for i, o in enumerate(options)}
    rows = []
    for s in subsets:
        row = np.zeros(len(options), dtype=bool)
        row[[at[o] for o in s if o in at]] = True
        if row.any():
            rows.append(row)
    grid = np.unique(np.array(rows, dtype=bool).reshape(-1, len(options)), axis=0)
    return Race(options, np.array([expected_usd[o] for o in options], dtype=float), grid, margin)


def run_race(race: Race, cost_usd: np.ndarray, passes: np.ndarray, runs: np.ndarray, expert: np.ndarray,
             alpha: float = ALPHA) -> np.ndarray:
    """Which options run on which problems when their records are as given: bool [problems x options] (the race's
    option order). ``cost_usd``, ``passes``, ``runs``: [problems x options], what each option's runs would record (mean
    USD per attempt, passes, runs); read for an option only where the race runs it. Options are decided in order, each
    from the options before it, as the collection decides them wave by wave."""
    n_problems, n_options = cost_usd.shape
    ran = np.zeros((n_problems, n_options), dtype=bool)
    upper = np.full((n_problems, n_options), np.inf)
    for j in range(n_options):
        ran[:, j] = race.needed(j, upper[:, :j], expert)
        upper[:, j] = np.where(ran[:, j], cost_per_pass_upper(cost_usd[:, j], passes[:, j], runs[:, j], alpha), np.inf)
    return ran


PROTECTED = ("frontier", "releases", "families", "models", "techniques")  # what a race can keep exact, by figure


def report_subsets(options: dict[str, tuple[str, str]], families: dict[str, str], releases: Mapping[str, object],
                   protect: Iterable[str] = PROTECTED, base_method: str = "vanilla") -> list[frozenset[str]]:
    """The option subsets whose frontiers a set reports and the race keeps exact on every problem.

    ``options``: option name -> (model, method); ``families``: model -> family; ``releases``: model -> release date
    (anything that sorts in release order);
    ``protect``: which of ``PROTECTED`` — ``frontier`` every option and the base method's options (Eq. 9, the
    routing frontier's end); ``releases`` the base options of the models released up to each release, one model at a
    time in date order as the reference code steps (Figure 2); ``families`` the base options without each family
    (Figure 3); ``models`` without each model (Figures 4-5); ``techniques`` the options of M_L (``technique_base``)
    without and with each other method's (Table 2). What is not protected is computed from the Table-1 sample alone."""
    kinds = set(protect)
    base = {o for o, (_, method) in options.items() if method == base_method}
    model_of = {o: options[o][0] for o in base}
    out = {frozenset(options), frozenset(base)}
    if "releases" in kinds:
        listed = list(releases)  # models released the same day step in the order the set lists them
        order = sorted(base, key=lambda o: (releases[model_of[o]], listed.index(model_of[o])))
        out.update(frozenset(order[:i]) for i in range(1, len(order) + 1))
    if "families" in kinds:
        out.update(frozenset(o for o in base if families[model_of[o]] != fam) for fam in set(families.values()))
    if "models" in kinds:
        out.update(frozenset(base - {o}) for o in base)
    if "techniques" in kinds:  # Table 2: M_L, the lightweight and large models, with and without each method
        listed = list(dict.fromkeys(model_of.values()))
        light = set(technique_base({m: families[m] for m in listed}, listed))
        base_l = {o for o in base if model_of[o] in light}
        out.add(frozenset(base_l))
        for method in {method for _, method in options.values()} - {base_method}:
            out.add(frozenset(base_l | {o for o, (m, me) in options.items() if me == method and m in light}))
    return [s for s in out if s]


def table1_problems(problem_ids: Iterable[str], share: float, seed: int, task: str) -> list[str]:
    """The seeded random sample of a task's problems on which every option makes every run (Table 1, and the
    calibration of the expected USD per attempt): ``ceil(share x n)`` problems, at least 2 (all, if fewer), chosen by
    the smallest sha256 of (seed, task, problem) — the same problems whatever order the problems come in."""
    ids = list(problem_ids)
    k = min(len(ids), max(2, math.ceil(share * len(ids))))

    def rank(p: str) -> str:
        return hashlib.sha256(f"{seed}\x1f{task}\x1f{p}".encode()).hexdigest()

    return sorted(sorted(ids, key=rank)[:k])


def table1_sample(problem_ids: Mapping[str, Iterable[str]], share: float, seed: int) -> set[tuple[str, str]]:
    """(task, problem_id) of every task's ``table1_problems``: ``problem_ids`` maps each task to its problems' ids."""
    return {(t, p) for t, ids in problem_ids.items() for p in table1_problems(ids, share, seed, t)}


def expected_usd(cells: pd.DataFrame) -> dict[str, float]:
    """Expected USD per attempt of each option from its calibration cells (one task's ``table1_problems``): total USD
    over total runs. ``cells``: rows with ``option``, ``cost_usd`` (mean USD per attempt) and ``runs``."""
    usd = (cells["cost_usd"] * cells["runs"]).groupby(cells["option"], observed=True).sum()
    return (usd / cells.groupby("option", observed=True)["runs"].sum()).to_dict()


def replay(cells: pd.DataFrame, expert: pd.Series, subsets: list[frozenset[str]], share: float, seed: int,
           margin: float = MARGIN, alpha: float = ALPHA) -> pd.DataFrame:
    """The racing design replayed on records a uniform design made: ``cells`` (task, problem_id and option as
    strings) with boolean columns ``raced`` (the race's own decision, on every problem) and ``ran`` (what a racing set
    records: every option on the Table-1 sample, ``raced`` elsewhere).

    ``cells``: one row per (task, problem_id, option) with ``cost_usd`` (mean USD per attempt), ``passes`` and
    ``runs``; ``expert``: USD per problem, indexed (task, problem_id). Every option runs on each task's
    ``table1_problems``; elsewhere ``run_race`` decides, with expected USD per attempt from those problems."""
    cells = cells.astype({"task": str, "problem_id": str, "option": str})
    out = []
    for task, rows in cells.groupby("task", sort=False):
        sample = set(table1_problems(rows["problem_id"].unique(), share, seed, task))
        in_sample = rows["problem_id"].isin(sample)
        race = make_race(expected_usd(rows[in_sample]), subsets, margin)
        raced = race_decisions(race, rows, expert, alpha)
        out.append(rows.assign(raced=raced, ran=in_sample.to_numpy() | raced))
    return pd.concat(out, ignore_index=True)


def race_decisions(race: Race, rows: pd.DataFrame, expert: pd.Series, alpha: float = ALPHA) -> np.ndarray:
    """Whether ``race`` runs each row's cell, decided from the records of the cells it runs (``run_race``): bool, one
    per row of ``rows`` (one task's cells: ``problem_id``, ``option``, ``cost_usd``, ``passes``, ``runs``; options the
    race does not have are never run). ``expert``: USD per problem, indexed (task, problem_id)."""
    task = str(rows["task"].iloc[0])
    grid = {k: rows.pivot(index="problem_id", columns="option", values=k).reindex(columns=list(race.options))
            for k in ("cost_usd", "passes", "runs")}
    problems = grid["cost_usd"].index
    fees = expert.set_axis(expert.index.map(lambda k: (str(k[0]), str(k[1]))))
    fee = fees.reindex([(task, str(p)) for p in problems]).to_numpy(dtype=float)
    ran = run_race(race, grid["cost_usd"].to_numpy(float), grid["passes"].fillna(0).to_numpy(float),
                   grid["runs"].fillna(0).to_numpy(float), fee, alpha)
    decided = pd.DataFrame(ran, index=problems, columns=list(race.options)).stack()
    key = pd.MultiIndex.from_arrays([rows["problem_id"], rows["option"]])
    return decided.reindex(key).fillna(False).to_numpy(bool)
