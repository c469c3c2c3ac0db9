"""The frontier on runs it never saw: how optimistic the in-sample frontier is (the winner's curse, measured).

The plug-in frontier picks, per problem, the strategy whose observed cost-of-pass is lowest and reports that lowest
observed value; a strategy that was lucky on the runs it had is both picked and flattered. Here the n runs of every
cell are split into two halves of h = n // 2 (an odd run left out): on half A each problem's strategy is chosen and
the in-sample frontier read (the plug-in on A: min over strategies of C/R, and the expert's cost), then the same
plug-in is read for the chosen strategies on half B, which took no part in the choice. The two are the same function
of the same number of runs, so their difference isolates the selection: optimism = in-sample − held-out (USD per
problem; negative: the in-sample frontier reads too cheap), averaged over ``SPLITS`` rotations of the halves, with a
95% interval over problems resampled within the dataset. Beside it, the bootstrap's estimate of the same bias at the
same h runs (runs resampled within each cell of half A, ``BOOT`` replicates: their mean frontier minus A's), so a
reader sees whether the bootstrap's bias correction matches what held-out runs show. Only collected strategies whose
every cell has the same n ≥ 4 runs are used (the frontier of all models: their vanilla runs).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from helpers.analyze.bootstrap import RunCube

MIN_RUNS = 4
SPLITS = 10  # rotations of the halves (all of them when there are fewer)
BOOT = 100  # run-level bootstrap replicates per split
REPLICATES = 1000  # problem resamples of the interval


def _cop(usd: np.ndarray, correct: np.ndarray) -> np.ndarray:
    """Plug-in cost-of-pass over the last axis (runs): mean cost / pass rate, ∞ where nothing passed."""
    rate = correct.mean(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(rate > 0, usd.mean(axis=-1) / rate, np.inf)


def split_frontier(usd: np.ndarray, correct: np.ndarray, expert: np.ndarray, a: list[int], b: list[int]
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Per problem (P,): the plug-in frontier on runs ``a`` (the choice's own reading) and the chosen strategies'
    plug-in on runs ``b`` (min with the expert, as the frontier is). ``usd``, ``correct``: (P, S, n); ``expert``: (P,)."""
    cop_a = _cop(usd[:, :, a], correct[:, :, a])
    best = cop_a.argmin(axis=1)
    rows = np.arange(len(expert))
    low = cop_a[rows, best]
    expert_wins = expert <= low
    held = _cop(usd[rows, best][:, b], correct[rows, best][:, b])
    return np.where(expert_wins, expert, low), np.where(expert_wins, expert, np.minimum(held, expert))


def bootstrap_bias(usd: np.ndarray, correct: np.ndarray, expert: np.ndarray, a: list[int], replicates: int,
                   rng: np.random.Generator) -> float:
    """The run-level bootstrap's estimate of the plug-in frontier's bias on runs ``a`` (USD per problem): the mean
    frontier over ``replicates`` resamples of each cell's runs minus the frontier of the runs themselves."""
    P, S, _ = usd.shape
    h = len(a)
    point = np.minimum(_cop(usd[:, :, a], correct[:, :, a]).min(axis=1), expert).mean()
    draws = np.asarray(a)[rng.integers(0, h, size=(replicates, P, S, h))]
    idx = np.arange(P)[None, :, None, None], np.arange(S)[None, None, :, None]
    cop = _cop(usd[idx[0], idx[1], draws], correct[idx[0], idx[1], draws])  # (B, P, S)
    return float(np.minimum(cop.min(axis=2), expert).mean(axis=1).mean() - point)


def holdout_frontier(cube: RunCube, expert: np.ndarray, strategies: list[str], seed: int = 0, level: float = 0.95
                     ) -> pd.DataFrame:
    """Per dataset: runs n and half h, the in-sample and held-out frontier of ``strategies`` on h runs, the optimism
    (in-sample − held-out, USD and % of held-out) with its ``level`` interval over problems, and the bootstrap's bias
    estimate at h runs. A dataset whose cells do not all have the same n ≥ ``MIN_RUNS`` runs gets NaN and a ``note``."""
    cols = [cube.strategies.index(s) for s in strategies if s in cube.strategies]
    rng = np.random.default_rng([seed, 7])
    q = 100 * (1 - level) / 2
    starts = [*cube.task_starts, len(cube.problems)]
    rows = []
    for t, task in enumerate(cube.tasks):
        lo, hi = starts[t], starts[t + 1]
        runs = cube.runs[lo:hi][:, cols]
        n = int(runs.min()) if runs.size else 0
        row = {"task": task, "runs": n, "half": n // 2, "strategies": len(cols)}
        if not cols or n < MIN_RUNS or (runs != n).any():
            rows.append({**row, "note": f"needs the same n >= {MIN_RUNS} runs in every cell (has {n}"
                         + (f" to {int(runs.max())}" if runs.size and runs.max() != n else "") + ")"})
            continue
        usd = cube.usd[lo:hi][:, cols, :n].astype(float)
        correct = cube.correct[lo:hi][:, cols, :n].astype(float)
        e = np.asarray(expert[lo:hi], float)
        h = n // 2
        halves = list(combinations(range(n), h))
        picks = rng.choice(len(halves), size=min(SPLITS, len(halves)), replace=False)
        inside, held, bias = np.zeros(hi - lo), np.zeros(hi - lo), []
        for i in picks:
            a = list(halves[i])
            b = [k for k in range(n) if k not in a][:h]
            x, y = split_frontier(usd, correct, e, a, b)
            inside += x / len(picks)
            held += y / len(picks)
            bias.append(bootstrap_bias(usd, correct, e, a, BOOT, rng))
        diff = inside - held
        draws = rng.integers(0, hi - lo, size=(REPLICATES, hi - lo))
        d_lo, d_hi = np.percentile(diff[draws].mean(axis=1), [q, 100 - q])
        rows.append({**row, "in_sample_usd": inside.mean(), "held_out_usd": held.mean(), "optimism_usd": diff.mean(),
                     "optimism_low": d_lo, "optimism_high": d_hi, "optimism_pct": 100 * diff.mean() / held.mean(),
                     "bootstrap_bias_half_usd": float(np.mean(bias)), "note": ""})
    return pd.DataFrame(rows, columns=["task", "runs", "half", "strategies", "in_sample_usd", "held_out_usd",
                                       "optimism_usd", "optimism_low", "optimism_high", "optimism_pct",
                                       "bootstrap_bias_half_usd", "note"])
