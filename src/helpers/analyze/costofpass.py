"""Cost-of-pass math (arXiv 2504.13359, §2): pure, vectorized functions over per-problem estimates.

Shapes. ``estimates``: one row per (task, problem_id, strategy) with ``cost_usd`` (mean USD of an
attempt, C_m(p)) and ``pass_rate`` (R_m(p)). ``cop``: the wide matrix of cost-of-pass v(m, p) in
USD, index (task, problem_id), one column per strategy. ``expert``: USD per problem of the human
expert (R = 1), a Series indexed like ``cop`` or ``None`` for LM-only frontiers. Frontier values
are taken per problem, then averaged over a task's problems (Eq. 9).
"""

from __future__ import annotations

from typing import Iterable

import numpy as np
import pandas as pd

from helpers.grade.estimates import PROBLEM


def cost_of_pass(cost_usd, pass_rate):
    """v = C / R (Eq. 3), ``inf`` where R = 0. Arrays broadcast; returns float ndarray (USD)."""
    cost = np.asarray(cost_usd, dtype=float)
    rate = np.asarray(pass_rate, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(rate > 0, cost / np.where(rate > 0, rate, 1.0), np.inf)


def cop_matrix(estimates: pd.DataFrame, strategy: str = "strategy") -> pd.DataFrame:
    """Wide matrix of v(m, p) (USD): index (task, problem_id), one column per strategy."""
    v = estimates.assign(cop=cost_of_pass(estimates["cost_usd"], estimates["pass_rate"]))
    return v.pivot_table(index=PROBLEM, columns=strategy, values="cop", aggfunc="first").sort_index()


def frontier_per_problem(cop: pd.DataFrame, strategies: Iterable[str], expert: pd.Series | None = None) -> pd.Series:
    """V_p(M) = min over strategies of v(m, p) (Eq. 4), with the expert: min(V_p(M), expert) (Eq. 6).

    A problem no strategy has estimates for counts as unsolved by them (``inf``).
    """
    cols = list(strategies)
    missing = [s for s in cols if s not in cop.columns]
    if missing:
        raise KeyError(f"no estimates for strategies {missing}")
    lm = cop[cols].min(axis=1, skipna=True) if cols else pd.Series(np.inf, index=cop.index)
    lm = lm.fillna(np.inf)
    if expert is None:
        return lm
    return np.minimum(lm, expert.reindex(cop.index))


def frontier(cop: pd.DataFrame, strategies: Iterable[str], expert: pd.Series | None = None) -> pd.Series:
    """V_{p~D}(M) per task: the per-problem frontier averaged over the task's problems (Eq. 9), USD."""
    return frontier_per_problem(cop, strategies, expert).groupby(level="task").mean()


def gain_per_problem(cop: pd.DataFrame, new: Iterable[str], base: Iterable[str],
                     expert: pd.Series | None = None) -> pd.Series:
    """G_p(new, base) = V_p(base) - V_p(base ∪ new) (Eq. 8), >= 0; 0 where both are ``inf``."""
    base, new = list(base), list(new)
    before = frontier_per_problem(cop, base, expert)
    after = frontier_per_problem(cop, base + [s for s in new if s not in base], expert)
    with np.errstate(invalid="ignore"):
        g = before - after
    return g.where(~(np.isinf(before) & np.isinf(after)), 0.0)


def gain(cop: pd.DataFrame, new: Iterable[str], base: Iterable[str], expert: pd.Series | None = None) -> pd.Series:
    """G_{p~D}(new, base) per task (Eq. 10), USD."""
    return gain_per_problem(cop, new, base, expert).groupby(level="task").mean()


def relative_gain(cop: pd.DataFrame, new: Iterable[str], base: Iterable[str], expert: pd.Series | None = None,
                  reference: Iterable[str] | None = None) -> pd.Series:
    """G_{p~D}(new, base) / V_{p~D}(reference) per task (0-1; reference defaults to base)."""
    base = list(base)
    ref = frontier(cop, base if reference is None else list(reference), expert)
    return gain(cop, new, base, expert) / ref


# ---- analyses of the paper --------------------------------------------------------------------
def weighted_mean(values: pd.Series, weights: pd.Series | None = None) -> pd.Series:
    """Per task, the mean of ``values`` (indexed (task, problem_id)) with each problem weighted by ``weights`` (same
    index, >= 0; None: every weight 1, the plain mean). A racing set's Table 1 weights each record by the inverse of its
    chance of being recorded (``analyze.inclusion``); weight 0: not recorded, not read."""
    if weights is None:
        return values.groupby(level="task").mean()
    w = weights.reindex(values.index).fillna(0.0)
    return (values.where(w > 0, 0.0) * w).groupby(level="task").sum() / w.groupby(level="task").sum()


def single_model_frontier(cop: pd.DataFrame, expert: pd.Series, weights: pd.DataFrame | None = None) -> pd.DataFrame:
    """Table 1: V_{p~D}({m} ∪ {expert}) per task (rows) and strategy (columns), USD; ``weights``: each cell's weight
    (``weighted_mean``; columns as ``cop``'s, None: 1)."""
    return pd.DataFrame({s: weighted_mean(frontier_per_problem(cop, [s], expert),
                                          None if weights is None else weights[s])
                         for s in cop.columns})


def expert_split(cop: pd.DataFrame, expert: pd.Series, weights: pd.DataFrame | None = None) -> pd.DataFrame:
    """What decides each single-model frontier value of Table 1 (Eq. 4–6, 9): per (task, strategy), the value (USD per
    problem), the part paid to the model (problems where its cost-of-pass is below the expert's cost) and the part
    charged to the expert (problems it never passed, or passed too rarely to beat the expert: the assumed fee), both
    averaged over the task's problems (weighted by ``weights`` as ``single_model_frontier``), and the number of
    problems charged to the expert (weighted: the estimated number, rounded)."""
    e = expert.reindex(cop.index).to_numpy()[:, None]
    v = cop.to_numpy(dtype=float)
    w = np.ones(v.shape) if weights is None else weights.reindex(index=cop.index,
                                                                 columns=cop.columns).fillna(0.0).to_numpy(float)
    charged = v >= e
    rows = []
    for task, idx in cop.groupby(level="task").indices.items():
        for j, strategy in enumerate(cop.columns):
            mean = np.mean if weights is None else (lambda x, wj=w[idx,
                                                                   j]: np.average(np.where(wj > 0, x, 0.0), weights=wj))
            model_part = float(mean(np.where(charged[idx, j], 0.0, v[idx, j])))
            expert_part = float(mean(np.where(charged[idx, j], e[idx, 0], 0.0)))
            rows.append({"task": task, "strategy": strategy, "value": model_part + expert_part,
                         "model_usd": model_part, "expert_usd": expert_part,
                         "expert_problems": int(round(float(np.sum(w[idx, j] * charged[idx, j]))))})
    return pd.DataFrame(rows)


FEE_SCALES = np.logspace(-3, 2, 51)  # the expert's fee times 0.001 … 100: where a finding stands or flips


def fee_curve(cop: pd.DataFrame, expert: pd.Series, lines: dict[str, list[str]],
              scales: np.ndarray = FEE_SCALES, weights: dict[str, pd.Series] | None = None) -> pd.DataFrame:
    """Each frontier of ``lines`` (name -> its strategies; one model alone is Table 1, all models the frontier) as
    the expert's fee varies: per (task, line, scale), the fee (USD per problem: ``scale`` times the task's mean
    expert cost) and the value V_{p~D}(line ∪ {expert at scale × its cost}) (USD per problem, Eq. 4–6, 9), each
    problem weighted by ``weights[line]`` where given (``weighted_mean``)."""
    rows = []
    for task, idx in cop.groupby(level="task").indices.items():
        e = expert.reindex(cop.index).to_numpy()[idx]
        for name, strategies in lines.items():
            # NaN: no estimate
            best = (np.fmin.reduce(cop[strategies].to_numpy(dtype=float)[idx], axis=1, initial=np.inf)
                    if strategies else np.full(len(idx), np.inf))
            per_problem = np.minimum(best[None, :], np.asarray(scales)[:, None] * e[None, :])
            w = (weights or {}).get(name)
            if w is None:
                values = per_problem.mean(axis=1)
            else:
                w = w.reindex(cop.index).fillna(0.0).to_numpy(float)[idx]
                values = np.average(np.where(w > 0, per_problem, 0.0), axis=1, weights=w)
            rows += [{"task": task, "line": name, "scale": float(s), "fee_usd": float(s * e.mean()), "value": float(v)}
                     for s, v in zip(scales, values)]
    return pd.DataFrame(rows)


def cheapest_by_fee(cop: pd.DataFrame, expert: pd.Series, weights: pd.DataFrame | None = None,
                    scales: tuple[float, float] = (FEE_SCALES[0], FEE_SCALES[-1])) -> pd.DataFrame:
    """Per task, the exact runs of fees over which one strategy (a column of ``cop``, USD per problem, inf where never
    passed) is the cheapest alone with the expert, as the expert's fee runs over ``scales`` times each problem's
    ``expert`` cost: rows (task, model, from_usd, to_usd, at_fee), fees in USD per problem (the scale times the task's
    mean expert cost, as ``fee_curve``); ties go to the first column, and ``at_fee`` marks the fees below every
    problem's cheapest pass, where every model costs the fee itself (unweighted: all tie there). ``weights`` (same
    shape as ``cop``, a racing set's Table-1 weights) weight each problem per strategy.

    Exact, not a grid: each strategy's value V(s) = Σ_p w_p min(c_p, s·e_p) / Σ_p w_p is piecewise linear in the
    scale s with a kink at each c_p / e_p, so between two consecutive kinks of all strategies every V is a line and
    the cheapest one changes only where two lines cross (found in closed form)."""
    rows = []
    for task, idx in cop.groupby(level="task").indices.items():
        e = expert.reindex(cop.index).to_numpy(float)[idx]
        c = np.nan_to_num(cop.to_numpy(dtype=float)[idx], nan=np.inf)
        # dearer than the highest fee: the fee decides it throughout
        c = np.where(c > scales[1] * e[:, None], np.inf, c)
        w = np.ones(c.shape) if weights is None else \
            weights.reindex(index=cop.index, columns=cop.columns).fillna(0.0).to_numpy(float)[idx]
        lines = [_linear_pieces(c[:, j], e, w[:, j]) for j in range(c.shape[1])]
        kinks = np.unique(np.concatenate([[scales[0], scales[1]], *(k for k, _, _ in lines)]))
        kinks = kinks[(kinks >= scales[0]) & (kinks <= scales[1])]
        # below every line's first kink no try passes a problem for less than the fee: every model costs the fee
        # itself, and which one is "cheapest" is a tie-break (review 9, M10): said as such, ``at_fee``
        first = min((float(k[0]) for k, _, _ in lines if len(k)), default=np.inf) if c.shape[1] > 1 else -np.inf
        for j, lo, hi in _lower_envelope(lines, kinks):
            pieces = ([(lo, hi, True)] if hi <= first else [(lo, first, True), (first, hi, False)] if lo < first
                      else [(lo, hi, False)])
            rows += [{"task": task, "model": cop.columns[j], "from_usd": a * e.mean(), "to_usd": b * e.mean(),
                      "at_fee": tie and weights is None} for a, b, tie in pieces]
    return pd.DataFrame(rows, columns=["task", "model", "from_usd", "to_usd", "at_fee"])


def _linear_pieces(c: np.ndarray, e: np.ndarray, w: np.ndarray):
    """One strategy's V(s) = Σ w min(c, s·e) / Σ w as (kinks (K,), value, slope): ``value(s)`` and ``slope(s)`` (the
    slope just right of s) evaluate it at any scales, from the problems' sorted kinks c / e and cumulative sums."""
    keep = w > 0
    c, e, w = c[keep], e[keep], w[keep] / w[keep].sum()
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):  # never passed (∞) or a huge ratio: ∞
        r = np.where(np.isfinite(c), c / e, np.inf)
    order = np.argsort(r, kind="stable")
    r, wc, we = r[order], np.where(np.isfinite(c), w * c, 0.0)[order], (w * e)[order]
    below = np.concatenate([[0.0], np.cumsum(wc)])  # Σ w c over the k smallest kinks
    above = np.concatenate([np.cumsum(we[::-1])[::-1], [0.0]])  # Σ w e over the rest

    def value(s):
        k = np.searchsorted(r, s, side="right")
        return below[k] + s * above[k]

    def slope(s):
        return above[np.searchsorted(r, s, side="right")]
    return r[np.isfinite(r)], value, slope


def _lower_envelope(lines, kinks: np.ndarray) -> list[tuple[int, float, float]]:
    """The runs (strategy index, from scale, to scale) of the lowest of ``lines`` (``_linear_pieces``) between the
    first and last of ``kinks`` (every kink of every line, sorted): between two kinks each line is straight, so the
    lowest changes only where the current one is crossed by a line of smaller slope."""
    values = np.array([v(kinks) for _, v, _ in lines])  # (M, K)
    slopes = np.array([d(kinks) for _, _, d in lines])  # (M, K): slope on [kink_i, kink_i+1)
    runs: list[list] = []
    for i in range(len(kinks) - 1):
        a, b = kinks[i], kinks[i + 1]
        at, sl = values[:, i], slopes[:, i]
        cur = int(np.lexsort((np.arange(len(at)), sl, at))[0])  # the lowest at a; ties: the flatter, then the first
        s = a
        while True:
            if not runs or runs[-1][0] != cur:
                runs.append([cur, s, s])
            cross = np.where(sl < sl[cur], (at - at[cur]) / np.where(sl < sl[cur], sl[cur] - sl, 1.0), np.inf) + a
            cross = np.where(cross > s, cross, np.inf)
            nxt = int(np.lexsort((np.arange(len(sl)), sl, cross))[0])  # the first crossing; ties: the flatter line
            if not cross[nxt] < b:
                break
            runs[-1][2] = s = float(cross[nxt])
            cur = nxt
        runs[-1][2] = b
    return [(j, float(lo), float(hi)) for j, lo, hi in runs]


def pareto(cost: np.ndarray, accuracy: np.ndarray) -> np.ndarray:
    """Indices of the points no other point beats on both axes (cheaper or as cheap, and more accurate), by cost:
    the cost–accuracy frontier of ``cost`` (USD per attempt, (N,)) and ``accuracy`` ((N,), any unit)."""
    order = np.lexsort((-accuracy, cost))
    keep, best = [], -np.inf
    for i in order:
        if accuracy[i] > best:
            keep.append(i)
            best = accuracy[i]
    return np.array(keep, dtype=int)


def release_steps(releases: pd.Series, one_model: bool = True) -> list[tuple[pd.Timestamp, list[str]]]:
    """The steps of the frontier over time, in date order.

    ``one_model`` (the reference code's loop): one model per step, models released the same day in
    the order of ``releases`` (a stable sort by date, as the reference sorts its model list);
    otherwise the models released on one date form one step (Eq. 7 read literally).
    """
    dates = pd.to_datetime(releases)
    if one_model:
        order = dates.sort_values(kind="stable")
        return [(d, [name]) for name, d in order.items()]
    return [(d, sorted(g.index)) for d, g in dates.groupby(dates, sort=True)]


SAME_DAY_COLUMNS = ["task", "date", "model", "first_pct", "last_pct"]


def same_day_credit(cop: pd.DataFrame, releases: pd.Series, expert: pd.Series) -> pd.DataFrame:
    """What list order decides when models come out on one day: for every date with two or more models of
    ``releases`` (model -> date) among ``cop``'s columns, each model's release gain (Eq. 15, %) when it is credited
    first of its day (``first_pct``: over the models released before that day) and last (``last_pct``: over those and
    the rest of its day). Rows (task, date, model, first_pct, last_pct); ``one_model`` steps give each model one of
    these, by list order; the joint step (``release_steps(..., one_model=False)``) credits the day as one."""
    dates = pd.to_datetime(releases[[m for m in releases.index if m in cop.columns]])
    rows = []
    for date, day in dates.groupby(dates, sort=True):
        if len(day) < 2:
            continue
        before = list(dates.index[dates < date])
        for m in day.index:
            first = relative_gain(cop, [m], before, expert)
            last = relative_gain(cop, [m], before + [x for x in day.index if x != m], expert)
            rows += [{"task": t, "date": date, "model": m, "first_pct": 100 * first[t], "last_pct": 100 * last[t]}
                     for t in first.index]
    return pd.DataFrame(rows, columns=SAME_DAY_COLUMNS)


def frontier_over_time(cop: pd.DataFrame, releases: pd.Series, expert: pd.Series,
                       one_model: bool = True) -> pd.DataFrame:
    """Eq. 7 per task and release step: V(M_t) with M_t = models released up to t plus the expert.

    Returns rows (task, date, released, frontier_usd, expert_only_usd, gain_usd, relative_gain)
    where ``relative_gain`` = G({m_t}, M_{t-1}) / V(M_{t-1}) (Eq. 15). The first row per task
    is the expert alone (date = None). Steps as ``release_steps(releases, one_model)``.
    """
    rows = []
    expert_only = frontier(cop, [], expert)
    available: list[str] = []
    prev = expert_only
    for task in cop.index.get_level_values("task").unique():
        rows.append({"task": task, "date": pd.NaT, "released": "(expert only)", "frontier_usd": expert_only[task],
                     "expert_only_usd": expert_only[task], "gain_usd": 0.0, "relative_gain": 0.0})
    for date, names in release_steps(releases, one_model):
        available = available + names
        now = frontier(cop, available, expert)
        for task in now.index:
            g = prev[task] - now[task]
            rows.append({"task": task, "date": date, "released": ", ".join(names), "frontier_usd": now[task],
                         "expert_only_usd": expert_only[task], "gain_usd": g,
                         "relative_gain": g / prev[task] if prev[task] > 0 else 0.0})
        prev = now
    out = pd.DataFrame(rows)
    out["normalized_pct"] = 100 * out["frontier_usd"] / out["expert_only_usd"]
    return out


def family_counterfactual(cop: pd.DataFrame, families: pd.Series, expert: pd.Series,
                          denominator: str = "without_family") -> pd.DataFrame:
    """Fig. 3: G(M_g, M_T \\ M_g) / V(·) per task (rows) and family (columns).

    ``denominator``: ``"without_family"`` divides by V(M_T \\ M_g), as the reference code does
    (0-1, like Eq. 16); ``"all"`` divides by V(M_T), as Eq. 12 is printed (can exceed 1).
    """
    everyone = list(families.index)
    total = frontier(cop, everyone, expert)
    out = {}
    for fam, members in families.groupby(families):
        rest = [s for s in everyone if s not in members.index]
        ref = frontier(cop, rest, expert) if denominator == "without_family" else total
        out[fam] = gain(cop, list(members.index), rest, expert) / ref
    return pd.DataFrame(out)


def single_model_counterfactual(cop: pd.DataFrame, strategies: list[str], expert: pd.Series) -> pd.DataFrame:
    """Eq. 16 (Fig. 5): G({m}, M_T \\ {m}) / V(M_T \\ {m}) per task (rows) and model (columns), 0-1."""
    out = {}
    for s in strategies:
        rest = [x for x in strategies if x != s]
        out[s] = relative_gain(cop, [s], rest, expert)
    return pd.DataFrame(out)


def most_influential(cop: pd.DataFrame, new: Iterable[str], base: Iterable[str], expert: pd.Series) -> pd.DataFrame:
    """Per task, the problem that carries most of the gain G(new, base) (Eq. 8, 10, 13: a mean of per-problem gains,
    each >= 0) and its share of it (0-1; NaN where the gain is 0): rows (task, problem_id, share). A share above one
    half means one problem decides the number, whatever the others do."""
    g = gain_per_problem(cop, new, base, expert).fillna(0.0)
    rows = []
    for task, gt in g.groupby(level="task", sort=False):
        total = float(gt.sum())
        top = gt.idxmax()
        rows.append({"task": task, "problem_id": top[1], "share": float(gt.max()) / total if total > 0 else np.nan})
    return pd.DataFrame(rows, columns=["task", "problem_id", "share"])


def technique_gain(cop: pd.DataFrame, base: list[str], with_technique: list[str], expert: pd.Series) -> pd.Series:
    """Eq. 13 (Table 2): G(M_L*, M_L) / V(M_L) per task, 0-1 (the expert is in both frontiers)."""
    return relative_gain(cop, with_technique, base, expert)
