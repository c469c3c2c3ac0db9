"""Two-level bootstrap of a set's attempts: every analysis recomputed on replicates, vectorised.

One replicate resamples the problems of each dataset with replacement, and, independently, the runs
of each (problem, strategy) with replacement (as many as were recorded). Collected strategies
(vanilla, self-refine, …) are re-estimated from their resampled runs; strategies estimated from
vanilla runs (majority vote, best-of-N) from the *same* resampled vanilla runs as their model, in
closed form (``vote_math``). A replicate in which a strategy has no passing run gives it cost-of-pass
∞ on that problem, so the problem's frontier falls back on the other strategies and, at worst, on
the human expert's cost (the expert is in every frontier: values stay finite).

Shapes: P problems (task-major, contiguous per task), S strategies, n = most runs of any cell,
B replicates, T tasks. ``Replicates.cop`` is (B, P, S) USD; ``weights`` (B, P) counts how often
each problem was drawn; ``frontier(strategies)`` is (B, T) USD. Replicate 0 of ``point_estimate``
is the data itself (weights 1, runs as recorded), so point estimates and intervals come from the
same code.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from helpers.analyze.costofpass import cost_of_pass
from helpers.analyze.unseen import CONFIDENCE, Bounds, cell_box, floor_cop
from helpers.core.methods import get_method
from helpers.core.methods.base import RunStats
from helpers.grade.estimates import PROBLEM, strategy_name

DEFAULT_REPLICATES = 1000
CHUNK = 50  # replicates drawn at once (memory: CHUNK x P x S x n)


@dataclass
class RunCube:
    """A set's complete attempts as arrays over (problem, collected strategy, run).

    ``usd`` (P, S, n) USD per attempt, NaN where a cell has fewer runs; ``correct`` (P, S, n) bool;
    ``runs`` (P, S) complete attempts per cell (0: no estimate, cost-of-pass ∞); ``answer`` (P, S, n)
    answer class of each run within its cell (0..n-1); ``class_ok`` (P, S, n) whether class j is correct.
    ``derived``: (strategy name, index of its model's vanilla strategy, method name) of the strategies
    estimated from vanilla runs.
    """

    problems: pd.MultiIndex
    task_codes: np.ndarray
    tasks: list[str]
    strategies: list[str]
    usd: np.ndarray
    correct: np.ndarray
    runs: np.ndarray
    answer: np.ndarray
    class_ok: np.ndarray
    derived: list[tuple[str, int, str]]

    @property
    def all_strategies(self) -> list[str]:
        return self.strategies + [d[0] for d in self.derived]

    @property
    def task_starts(self) -> np.ndarray:
        return np.flatnonzero(np.r_[True, self.task_codes[1:] != self.task_codes[:-1]])

    def first_runs(self, k: int) -> "RunCube":
        """The cube as if each cell had made only its first ``k`` runs (what fewer paid runs would have recorded)."""
        import dataclasses

        return dataclasses.replace(self, usd=self.usd[..., :k], correct=self.correct[..., :k],
                                   runs=np.minimum(self.runs, k), answer=self.answer[..., :k],
                                   class_ok=self.class_ok[..., :k])


def percentile_interval(samples: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """The ``level`` percentile interval over axis 0 of ``samples`` (replicates or draws, (B, …)): (low, high), each
    of the trailing shape; NaN, without numpy's warning, where no sample is a number (e.g. a routing budget below
    every strategy's cost, where nothing is reachable)."""
    q = 100 * (1 - level) / 2
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "All-NaN slice", RuntimeWarning)
        lo, hi = np.nanpercentile(samples, [q, 100 - q], axis=0)
    return lo, hi


def run_cube(attempts: pd.DataFrame, methods: list[str], problems: pd.MultiIndex | None = None) -> RunCube:
    """Arrays of the complete attempts (columns task, problem_id, model, method, correct, usd, answer_key).

    ``methods``: the set's methods; those with an estimator become derived strategies of every model
    with vanilla runs. ``problems``: the (task, problem_id) rows to use (default: those attempted).
    """
    done = attempts[attempts["complete"]] if "complete" in attempts else attempts
    done = done.assign(strategy=[strategy_name(m, me) for m, me in zip(done["model"], done["method"])])
    problems = pd.MultiIndex.from_frame((done[PROBLEM].drop_duplicates() if problems is None else
                                         problems.to_frame(index=False)).sort_values(PROBLEM))  # task-major
    strategies = sorted(done["strategy"].unique())
    p_idx = problems.get_indexer(pd.MultiIndex.from_frame(done[PROBLEM]))
    s_idx = pd.Index(strategies).get_indexer(done["strategy"])
    order = np.lexsort((s_idx, p_idx))  # each cell's runs contiguous (their recorded order kept)
    order = order[p_idx[order] >= 0]
    done, p_idx, s_idx = done.iloc[order], p_idx[order], s_idx[order]
    slot = done.groupby([p_idx, s_idx], sort=False).cumcount().to_numpy()
    P, S, n = len(problems), len(strategies), int(slot.max()) + 1 if len(slot) else 1
    usd = np.full((P, S, n), np.nan)
    correct = np.zeros((P, S, n), dtype=bool)
    usd[p_idx, s_idx, slot] = done["usd"].to_numpy(dtype=float)
    correct[p_idx, s_idx, slot] = done["correct"].fillna(False).to_numpy(dtype=bool)
    runs = np.zeros((P, S), dtype=np.int64)
    np.add.at(runs, (p_idx, s_idx), 1)
    # answer classes within each cell: codes 0.. in order of first appearance
    key = done["answer_key"].astype(object).where(done["answer_key"].notna(), "\x00no answer").to_numpy() \
        if "answer_key" in done else np.asarray(["?"] * len(done), dtype=object)
    cell = p_idx * S + s_idx
    classes = pd.DataFrame({"cell": cell, "key": key}).groupby(["cell", "key"], sort=False).ngroup().to_numpy()
    first = pd.Series(classes).groupby(cell).transform("min").to_numpy()
    answer = np.zeros((P, S, n), dtype=np.int64)
    answer[p_idx, s_idx, slot] = classes - first  # dense within a cell: ngroup numbers a cell's keys consecutively
    class_ok = np.zeros((P, S, n), dtype=bool)
    np.logical_or.at(class_ok, (p_idx, s_idx, classes - first), correct[p_idx, s_idx, slot])
    tasks = list(dict.fromkeys(problems.get_level_values("task")))
    task_codes = pd.Index(tasks).get_indexer(problems.get_level_values("task"))
    derived = []
    for name in methods:
        if get_method(name).estimator is None:
            continue
        for s, strategy in enumerate(strategies):
            if "+" not in strategy:  # a model's vanilla strategy
                derived.append((strategy_name(strategy, name), s, name))
    return RunCube(problems, task_codes, tasks, strategies, usd, correct, runs, answer, class_ok, derived)


def _rate_from_runs(method: str):
    """The method's pass rate from its vanilla runs (``Method.rate_from_runs``); one line when it has none."""
    rate = get_method(method).rate_from_runs
    if rate is None:
        raise ValueError(f"method {method!r} is derived from vanilla runs but has no Method.rate_from_runs")
    return rate


def _estimates(cube: RunCube, idx: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(C, R) of every strategy, (b, P, S_all): from runs resampled by ``idx`` (b, P, S, n) or as recorded."""
    P, S, n = cube.usd.shape
    valid = np.arange(n) < cube.runs[..., None]  # (P, S, n)
    full = bool(valid.all())  # every cell has all n runs: no padding to mask
    vanilla = sorted({s for _, s, _ in cube.derived})
    if idx is None:
        usd, correct = cube.usd[None], cube.correct[None]
        answer = np.where(valid, cube.answer, n)[None][:, :, vanilla]
    else:
        flat = np.arange(P * S, dtype=np.int32).reshape(P, S, 1) * n + idx
        usd, correct = cube.usd.ravel()[flat], cube.correct.ravel()[flat]
        answer = cube.answer.ravel()[flat[:, :, vanilla]]
        if not full:
            correct &= valid
            answer = np.where(valid[:, vanilla], answer, n)  # padding votes for no class
    runs = cube.runs[None]
    with np.errstate(invalid="ignore", divide="ignore"):
        cost = (usd if full else np.where(valid, usd, 0.0)).sum(-1) / runs
        rate = correct.sum(-1) / runs
    if not cube.derived:
        return cost, rate
    cols = {s: i for i, s in enumerate(vanilla)}
    cells = np.arange(np.prod(answer.shape[:-1])).reshape(answer.shape[:-1] + (1,)) * (n + 1)
    sizes = np.bincount((cells + answer).ravel(), minlength=cells.size * (n + 1)).reshape(answer.shape[:-1] + (n + 1,))
    stats = RunStats(runs=runs[:, :, vanilla], passed=correct[:, :, vanilla].sum(-1),
                     sizes=sizes[..., :n],  # runs per answer class (the last bin: padding)
                     class_ok=np.broadcast_to(cube.class_ok[None][:, :, vanilla], answer.shape[:-1] + (n,)))
    per_method = {method: _rate_from_runs(method)(stats) for method in dict.fromkeys(d[2] for d in cube.derived)}
    costs, rates = [cost], [rate]
    for _, s, method in cube.derived:
        costs.append(get_method(method).billed_calls * cost[:, :, s, None])
        rates.append(per_method[method][:, :, cols[s], None])
    return np.concatenate(costs, axis=-1), np.concatenate(rates, axis=-1)


@dataclass
class Replicates:
    """Cost-of-pass of every strategy on B replicates (B = 1: the data itself) and the problems' weights."""

    cube: RunCube
    cop: np.ndarray  # (B, P, S_all) USD, inf where R = 0 or no runs
    weights: np.ndarray  # (B, P) times each problem was drawn
    expert: np.ndarray  # (P,) USD
    cost: np.ndarray  # (B, P, S_all) C, USD per attempt (NaN: no runs)
    rate: np.ndarray  # (B, P, S_all) R, 0-1 (NaN: no runs)
    _by_strategy: np.ndarray | None = field(default=None, repr=False)  # cop as (S, B, P), made when needed

    @property
    def strategies(self) -> list[str]:
        return self.cube.all_strategies

    def frontier(self, strategies) -> np.ndarray:
        """V_{p~D}(M ∪ {expert}) per replicate and task, (B, T) USD: per problem the minimum of the
        strategies' cost-of-pass and the expert's cost, averaged over the replicate's problems."""
        index = pd.Index(self.strategies)
        cols = index.get_indexer(list(strategies))
        if (cols < 0).any():
            raise KeyError(f"no estimates for strategies {[s for s, c in zip(strategies, cols) if c < 0]}")
        if self._by_strategy is None:  # (S, B, P): one contiguous block per strategy (float64: an interval's ends
            # and its point agree)
            self._by_strategy = np.ascontiguousarray(self.cop.transpose(2, 0, 1), dtype=np.float64)
        per_problem = np.broadcast_to(self.expert.astype(np.float64), self.cop.shape[:2]).copy()
        for c in cols:
            np.minimum(per_problem, self._by_strategy[c], out=per_problem)
        starts = self.cube.task_starts
        w = self.weights
        return np.add.reduceat(w * per_problem, starts, axis=1) / np.add.reduceat(w, starts, axis=1)

    def bounds(self, confidence: float = CONFIDENCE) -> Bounds:
        """Per-problem bounds of every frontier (``unseen.Bounds``): never-passed cells at their floor."""
        floor = floor_cop(self.cost, self.rate, self.cube.runs, self.cube.derived, confidence)
        return Bounds(self.cop, floor, self.expert, self.weights, self.cube.task_starts, self.strategies)

    def box(self, confidence: float = CONFIDENCE) -> Bounds:
        """Per-problem bounds of every frontier with every cell anywhere its runs allow (``unseen.cell_box``): the
        identified range widened by each cell's sampling error (the data itself only, B = 1)."""
        floor, ceiling = cell_box(self.cube, confidence)
        return Bounds(self.cop, floor, self.expert, self.weights, self.cube.task_starts, self.strategies, ceiling)

    def mean_per_task(self, values: np.ndarray) -> np.ndarray:
        """(B, P, X) per-problem values -> (B, T, X) weighted means over each task's problems with a value
        (NaN: no runs, skipped; NaN where a task has none), e.g. ``rate`` -> accuracy, ``cost`` -> USD per attempt."""
        w = (self.weights[..., None] * np.isfinite(values)).astype(values.dtype)
        starts = self.cube.task_starts
        with np.errstate(invalid="ignore", divide="ignore"):
            return (np.add.reduceat(np.where(w > 0, values, 0.0) * w, starts, axis=1)
                    / np.add.reduceat(w, starts, axis=1))


def point_estimate(cube: RunCube, expert: np.ndarray) -> Replicates:
    """The data itself as one replicate."""
    cost, rate = _estimates(cube, None)
    return Replicates(cube, cost_of_pass(cost, rate), np.ones((1, len(cube.problems))), np.asarray(expert, float),
                      cost, rate)


def draw_runs(cube: RunCube, b: int, rng: np.random.Generator) -> np.ndarray:
    """(b, P, S, n) indices of the runs each replicate draws, with replacement among each cell's runs."""
    P, S, n = cube.usd.shape
    if (cube.runs == n).all():  # every cell has all its runs: one draw range
        return rng.integers(0, n, size=(b, P, S, n), dtype=np.uint8 if n <= 255 else np.int32)
    idx = (rng.random((b, P, S, n), dtype=np.float32) * np.maximum(cube.runs, 1)[..., None]).astype(np.int32)
    return np.minimum(idx, np.maximum(cube.runs, 1)[..., None] - 1)


def resampled_costs(cube: RunCube, replicates: int, seed: int = 0) -> np.ndarray:
    """(B, P, S) mean USD per attempt of each collected strategy over resampled runs (float32; NaN: no runs)."""
    rng = np.random.default_rng([seed, 2])
    P, S, n = cube.usd.shape
    valid = np.arange(n) < cube.runs[..., None]
    flat_base = np.arange(P * S, dtype=np.int32).reshape(P, S, 1) * n
    out = []
    for start in range(0, replicates, CHUNK):
        usd = cube.usd.ravel()[flat_base + draw_runs(cube, min(CHUNK, replicates - start), rng)]
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append((np.where(valid, usd, 0.0).sum(-1) / cube.runs).astype(np.float32))
    return np.concatenate(out)


def problem_weights(cube: RunCube, replicates: int, seed: int = 0) -> np.ndarray:
    """(B, P) how often each problem is drawn when each dataset's problems are resampled with replacement."""
    rng = np.random.default_rng([seed, 1])  # a stream of its own: the runs' draws do not shift it
    P = len(cube.problems)
    w = np.zeros((replicates, P))
    for lo, hi in zip(cube.task_starts, [*cube.task_starts[1:], P]):
        w[:, lo:hi] = rng.multinomial(hi - lo, np.full(hi - lo, 1 / (hi - lo)), size=replicates)
    return w


def bootstrap(cube: RunCube, expert: np.ndarray, replicates: int = DEFAULT_REPLICATES, seed: int = 0,
              levels: str = "problems+runs", weights: np.ndarray | None = None, stream: int = 0
              ) -> tuple[Replicates, Replicates]:
    """(point estimate, B replicates) of the two-level bootstrap (``levels="runs"``: runs only; ``"problems"``:
    problems only, each cell's runs as recorded). ``weights`` (B, P): the problem draws to use (default
    ``problem_weights(cube, B, seed)``); ``stream``: another random stream for the runs' draws (a worker's share of
    the replicates)."""
    rng = np.random.default_rng(seed if stream == 0 else [seed, 3, stream])
    P = len(cube.problems)
    if levels == "runs":
        weights = np.ones((replicates, P))
    elif weights is None:
        weights = problem_weights(cube, replicates, seed)
    if levels == "problems":  # every replicate's estimates are the data's: only the problems' weights differ
        point = point_estimate(cube, expert)
        b = len(weights)
        wide = [np.broadcast_to(a, (b, *a.shape[1:])) for a in (point.cop, point.cost, point.rate)]
        return point, Replicates(cube, wide[0], np.asarray(weights, float), point.expert, wide[1], wide[2])
    cops, costs, rates = [], [], []
    for start in range(0, replicates, CHUNK):
        b = min(CHUNK, replicates - start)
        cost, rate = _estimates(cube, draw_runs(cube, b, rng))
        cops.append(cost_of_pass(cost, rate))
        costs.append(cost)
        rates.append(rate)
    expert = np.asarray(expert, float)
    return point_estimate(cube, expert), Replicates(cube, np.concatenate(cops), np.asarray(weights, float), expert,
                                                    np.concatenate(costs), np.concatenate(rates))
