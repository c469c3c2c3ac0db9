"""The library's public surface: cost-of-pass on your own records, without a parameter set, a notebook or a file.

Give a tidy DataFrame of attempts — one row per attempt: ``task``, ``problem``, ``option`` (a model, or a model with
a technique: anything you choose between), ``usd`` (what the attempt cost, USD), ``correct`` (bool) — and the human
expert's USD per problem::

    from helpers.api import FRONTIER, differences, headline, paper_estimates
    rows = headline(attempts, expert_usd=16.67)            # intervals the validity study checks
    differences(attempts, expert_usd=16.67)                # every two options, paired on the same problems
    rows[rows.statistic == FRONTIER]                       # the frontier of every option with the expert
    paper_estimates(attempts, expert_usd=16.67)            # the paper's Table 1 and frontier (plug-in, no interval)

``headline`` is the project's headline estimand, "up to k tries, then the expert" (per problem an option is tried up
to k times, stopping at its first pass; the expert solves what every try failed): each option alone with the expert
(``table1:<option>``, k = the runs of each cell) and the frontier of all options (``FRONTIER``, one option per problem,
routed by a difficulty the options share read on half of its runs, valued on the other half), with 95% intervals
that held the truth in at least 93% of simulated sets on every generator tried (docs/statistics.md). ``paper_estimates``
is the paper's own estimator (Eq. 2 and 9: passes / runs per problem, the expert where nothing passed), whose intervals
the same study found not to hold, so it gives none.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from helpers.analyze.statistic import ALL_MODELS, HEADLINE_FRONTIER, TABLE1, Key

__all__ = ["headline", "differences", "paper_estimates", "FRONTIER", "PAPER_FRONTIER"]

FRONTIER = str(HEADLINE_FRONTIER)  # the statistic's name in ``headline``'s rows: the pipeline's (``policy.FRONTIER``)
PAPER_FRONTIER = str(ALL_MODELS)  # ``paper_estimates``' frontier: each problem's cheapest option, another quantity
COLUMNS = ("task", "problem", "option", "usd", "correct")


def _internal(attempts: pd.DataFrame) -> pd.DataFrame:
    """The attempts as the pipeline's graded attempts (every option a vanilla strategy); one line on a bad frame."""
    from helpers.core.errors import CostOfPassError

    if missing := [c for c in COLUMNS if c not in attempts.columns]:
        raise CostOfPassError(f"attempts: columns {', '.join(missing)} are missing (need {', '.join(COLUMNS)})")
    if attempts.empty:
        raise CostOfPassError("attempts: no rows")
    usd = pd.to_numeric(attempts["usd"], errors="coerce")
    if usd.isna().any() or (usd < 0).any():
        raise CostOfPassError("attempts: 'usd' must be a number >= 0 on every row")
    out = pd.DataFrame({"task": attempts["task"].astype(str), "problem_id": attempts["problem"].astype(str),
                        "model": attempts["option"].astype(str), "method": "vanilla", "usd": usd.to_numpy(float),
                        "correct": _verdicts(attempts["correct"]), "complete": True})
    _check_cells(out)
    return out


def _verdicts(correct: pd.Series) -> np.ndarray:
    """``correct`` as booleans where every row is True/False or 1/0; else one line naming the first other value
    ('yes', 'False', 0.5 and NaN are not verdicts: as text, every non-empty one would read as a pass)."""
    from helpers.core.errors import CostOfPassError

    def verdict(v) -> bool | None:
        if isinstance(v, (bool, np.bool_)):
            return bool(v)
        if isinstance(v, (int, float, np.integer, np.floating)) and v in (0, 1):
            return bool(v)
        return None

    seen = [verdict(v) for v in correct.tolist()]
    if None in seen:
        at = seen.index(None)
        raise CostOfPassError(f"attempts: 'correct' must be True/False or 1/0 on every row; row {correct.index[at]!r} "
                              f"has {correct.iloc[at]!r}")
    return np.array(seen, dtype=bool)


def _check_cells(frame: pd.DataFrame) -> None:
    """Every (problem, option) cell of a task has the same number of runs (k, the tries of "up to k tries", is one
    number per task); else one line naming the cells with fewer runs than the task's others."""
    from helpers.core.errors import CostOfPassError

    runs = frame.groupby(["task", "problem_id", "model"], sort=True).size()
    most = runs.groupby(level="task").transform("max")
    short = runs[runs < most]
    if not short.empty:
        named = "; ".join(f"{t}: option {o!r} on problem {p!r} has {n} of {most[(t, p, o)]} runs"
                          for (t, p, o), n in short.head(5).items())
        more = f" (and {len(short) - 5} more)" if len(short) > 5 else ""
        raise CostOfPassError("attempts: every problem and option of a task needs the same "
                              f"number of runs; {named}{more}")


def _expert(expert_usd, problems: pd.MultiIndex) -> np.ndarray:
    """The expert's USD per problem of ``problems`` (task, problem_id): one number, a mapping task -> USD, or a Series
    indexed by (task, problem)."""
    from helpers.core.errors import CostOfPassError

    if isinstance(expert_usd, pd.Series):
        fee = expert_usd.set_axis(expert_usd.index.map(lambda k: (str(k[0]), str(k[1])))).reindex(problems)
    elif isinstance(expert_usd, Mapping):
        if missing := sorted({str(t) for t, _ in problems} - {str(t) for t in expert_usd}):
            raise CostOfPassError(f"expert_usd: no USD for task(s) {', '.join(missing)} (the mapping has "
                                  f"{', '.join(map(str, expert_usd)) or 'none'})")
        by_task = {str(k): v for k, v in expert_usd.items()}
        fee = pd.Series([by_task[t] for t, _ in problems], index=problems, dtype=float)
    else:
        fee = pd.Series(float(expert_usd), index=problems)
    if fee.isna().any() or (fee <= 0).any():
        raise CostOfPassError("expert_usd: a positive USD is needed for every problem")
    return fee.to_numpy(float)


def headline(attempts: pd.DataFrame, expert_usd, level: float = 0.95) -> pd.DataFrame:
    """Each option alone with the expert and the frontier of all options, under "up to k tries, then the expert",
    per task, with ``level`` intervals.

    ``attempts``: rows task, problem, option, usd (USD per attempt), correct (bool); runs of a cell in their order.
    ``expert_usd``: USD per problem — a number, a mapping task -> USD, or a Series indexed (task, problem).
    Returns one row per (statistic, task): statistic (``table1:<option>`` or ``FRONTIER``) with its kind (``table1``
    or ``frontier``) and item (the option, or ``all models``), task, value, low, high
    (USD per problem), k (tries), records_usd and expert_usd (its two parts, USD per problem), expert_share_pct
    (the fee's share, %) and cheapest (True on the option named the cheapest of its task beyond doubt: its paired
    difference with every other below 0, each at ``level``; ``differences``). The frontier is one option per problem,
    routed by a difficulty the options share (item-response curves fitted on the task's other problems, the problem
    placed on them by half of its runs of every option), valued on the other half and averaged over every split of its
    runs (with fewer than 2k runs: chosen on the other problems alone, valued on all its runs), with as many tries as
    each option alone (no seed: nothing is drawn).
    Every cell of a task needs the same number of runs, ``correct`` True/False or 1/0 (one line naming what is not)."""
    from helpers.analyze import policy
    from helpers.analyze.bootstrap import run_cube
    from helpers.analyze.headline import Level

    cube = run_cube(_internal(attempts), ["vanilla"])
    fee = _expert(expert_usd, cube.problems)
    options = list(range(len(cube.strategies)))
    specs = policy.crossfit_specs({ALL_MODELS: Level(tuple(cube.strategies))}, cube.strategies, {"vanilla": True})
    sp = policy.set_policy(cube.usd, cube.correct, cube.runs, fee, cube.task_codes, options, specs)
    return policy.policy_rows(sp, fee, cube.task_codes, list(cube.tasks), dict(enumerate(cube.strategies)), level,
                              # no gain claimed here
                              cube.problems.get_level_values("problem_id")).drop(columns="shown")


def differences(attempts: pd.DataFrame, expert_usd, level: float = 0.95, simultaneous: bool = True) -> pd.DataFrame:
    """Every two options compared on the same problems and runs, under "up to k tries, then the expert" (each alone,
    k = the runs of each cell, as ``headline``'s ``table1:<option>`` rows), per task.

    Takes ``headline``'s arguments. Returns one row per (task, pair): task, a, b (the two options, a before b in
    sorted order), value = a's cost − b's, mean over the task's problems (USD per problem; negative: a is cheaper),
    low, high (its interval), k (tries) and level (each interval's own: with ``simultaneous``, the level at which all of
    a task's pairs hold at once is ``level``, Bonferroni; without it, each holds at ``level`` alone). Paired, the
    problems' shared difficulty cancels: where both options read at least 2k and 4 runs of every problem, the interval
    is the records parts' paired t with each option's fee part from its own runs (its truth: these problems); elsewhere
    Student's t over the problems' differences, each end at least what the fee's lumps and each option's runs allow
    (``analyze.differences``); its coverage, width against the narrowest valid one and power are measured on known truth
    (docs/statistics.md). A pair whose interval excludes 0 is a finding; one that reaches 0 is not."""
    from helpers.analyze import differences as diff
    from helpers.analyze import policy
    from helpers.analyze.bootstrap import run_cube

    cube = run_cube(_internal(attempts), ["vanilla"])
    fee = _expert(expert_usd, cube.problems)
    k = policy.headline_k(cube.runs)
    single = policy.policy_cost(cube.usd, cube.correct, cube.runs, fee, k)
    G = (np.asarray(cube.task_codes)[None, :] == np.arange(len(cube.tasks))[:, None]).astype(float)
    order = np.argsort(cube.strategies, kind="stable")
    total, caps = single.total[:, order], policy.single_caps(single, fee, G, level)[:, order]
    a, b, (value, low, high) = diff.all_pairs(total, G, fee, level, simultaneous, caps, single.columns(order))
    each = diff.bonferroni(level, len(a)) if simultaneous else level
    names = [cube.strategies[i] for i in order]
    return pd.DataFrame([{"task": t, "a": names[i], "b": names[j], "value": float(value[r, q]), "low": float(low[r, q]),
                          "high": float(high[r, q]), "k": k, "level": each}
                         for r, t in enumerate(cube.tasks) for q, (i, j) in enumerate(zip(a, b, strict=True))],
                        columns=["task", "a", "b", "value", "low", "high", "k", "level"])


def paper_estimates(attempts: pd.DataFrame, expert_usd) -> pd.DataFrame:
    """The paper's Table 1 and frontier (Eq. 2, 9): per task, each option's mean over problems of min(its
    cost-of-pass, the expert's USD) and the frontier of all options with the expert, USD per problem (the plug-in:
    passes over runs; an option that never passed a problem is charged the expert there). Returns rows statistic
    (``table1:<option>`` or ``PAPER_FRONTIER``: the paper's frontier, another quantity than ``FRONTIER``), kind, item,
    task, value."""
    from helpers.analyze import costofpass as cp
    from helpers.grade.estimates import per_problem

    frame = _internal(attempts).assign(strategy=lambda d: d["model"])
    cop = cp.cop_matrix(per_problem(frame))
    fee = pd.Series(_expert(expert_usd, cop.index), index=cop.index, name="expert_usd")
    rows = []
    for option in cop.columns:
        values = np.minimum(cop[option].fillna(np.inf), fee).groupby(level="task").mean()
        rows += [{**Key(TABLE1, option).row(), "task": t, "value": float(v)} for t, v in values.items()]
    front = cp.frontier(cop, list(cop.columns), fee)
    rows += [{**ALL_MODELS.row(), "task": t, "value": float(v)} for t, v in front.items()]
    return pd.DataFrame(rows)
