"""Table 5's accuracy interval (issue 61, item 2), measured side by side on known truth: the product's
(``means.accuracy_interval``: Jeffreys' at the variance of the runs alone, each problem's R(1 − R) its posterior mean
under the dataset's fitted Beta prior, never wider than the pooled count's) against the pooled count's alone (Jeffreys'
at n_eff = P² / Σ 1/n_i: the bound every dataset obeys, the product's rule until 2026-12).

On every generator of the validity study at the `sim` set's shape (six datasets, ten SIMULATED models), each set drawn
once with 8 runs and read with its first 2, 3, 5 and 8: the coverage of each set's own truth (the mean of its
problems' true pass rates) and the width ÷ the oracle's (3.92 × the sd over the sets of the estimate's error). Then
problems drawn from known rate distributions (128 problems, one model), where the pooled count is exact (every
problem at one rate) or far from it (rates near 0 and 1). SIMULATED.

    COP_DATA_DIR=../shared/data .venv/bin/python benchmarks/accuracy_interval.py [sets, default 100] [seed, default 1]
        [a set's params, default params/sim.yaml]
"""

from __future__ import annotations

import dataclasses
import sys
import time

import numpy as np
import pandas as pd
from scipy.special import betaincinv

from helpers.analyze import known_truth as kt
from helpers.analyze import means
from helpers.analyze import validity as va
from helpers.analyze.policy_study import _oracle_ratio
from helpers.core.context import prepare
from helpers.core.methods import get_method
from helpers.core.params import load_params

RUNS = (2, 3, 5, 8)


def pooled(correct: np.ndarray, runs: np.ndarray, G: np.ndarray, level: float = 0.95):
    """(value, low, high) (T, S): Jeffreys' interval at the pooled count of every run (the rule replaced)."""
    live = np.arange(correct.shape[-1]) < runs[..., None]
    has = runs > 0
    n = np.where(has, runs, 1).astype(float)
    count = G @ has
    value = G @ np.where(has, (live & correct).sum(-1) / n, 0.0) / count
    n_eff = count**2 / (G @ np.where(has, 1 / n, 0.0))
    x, tail = value * n_eff, (1 - level) / 2
    low = np.where(x > 0, betaincinv(x + 0.5, n_eff - x + 0.5, tail), 0.0)
    high = np.where(x < n_eff, betaincinv(x + 0.5, n_eff - x + 0.5, 1 - tail), 1.0)
    return value, low, high


RULES = {"pooled count": pooled, "dataset prior": means.accuracy_interval}


def cell(drawn: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]], rule: str, r: int) -> str:
    """"coverage / width ÷ oracle" of ``rule`` over ``drawn`` sets ((correct, runs, G, truth) each) read at r runs."""
    out = [RULES[rule](c[..., :r], np.minimum(n, r), G) for c, n, G, _ in drawn]
    value, low, high = (np.array([o[i].ravel() for o in out]) for i in range(3))
    truth = np.array([t.ravel() for *_, t in drawn])
    cover = 100 * np.nanmean((low <= truth) & (truth <= high))
    return f"{cover:.1f} / {_oracle_ratio(value, truth, low, high):.2f}"


def on_generators(sets: int, seed: int, params: str) -> pd.DataFrame:
    """One row per generator, a column per (runs, rule): coverage % / width ÷ oracle."""
    gm = kt.generative_model(prepare(load_params(params)))
    gm = dataclasses.replace(gm, methods=[m for m in gm.methods if get_method(m).is_collected])
    rows = {}
    for i, g in enumerate(va.study_generators(gm)):
        drawn = []
        for rep in range(sets):
            rng = np.random.default_rng(seed * 100_003 + 7_919 * i + rep)
            problems = kt.draw_problems(gm, rng, g)
            cube, _ = kt.draw_cube(gm, rng, problems)
            cols = [cube.strategies.index(m) for m in gm.models]
            G = (cube.task_codes[None, :] == np.arange(len(cube.tasks))[:, None]).astype(float)
            rate = kt.truth(gm, problems).rate[0][:, cols]
            drawn.append((cube.correct[:, cols], cube.runs[:, cols], G, G @ rate / G.sum(axis=1)[:, None]))
        rows[g.name] = {(f"{r} runs", rule): cell(drawn, rule, r) for r in RUNS for rule in RULES}
    return pd.DataFrame.from_dict(rows, orient="index")


def on_rates(sets: int, seed: int, problems: int = 128) -> pd.DataFrame:
    """Known rate distributions, one model: coverage % / width ÷ oracle per (distribution, runs) and rule."""
    rng = np.random.default_rng(seed)
    shapes = {"every problem at 0.5": lambda: np.full(problems, 0.5),
              "every problem at 0.1": lambda: np.full(problems, 0.1),
              "uniform on [0, 1]": lambda: rng.uniform(size=problems),
              "Beta(0.3, 0.3)": lambda: rng.beta(0.3, 0.3, size=problems),
              "0.02 or 0.98, half each": lambda: np.where(rng.uniform(size=problems) < 0.5, 0.02, 0.98)}
    rows = {}
    for name, draw in shapes.items():
        for r in (2, 8):
            drawn = []
            for _ in range(sets):
                rate = draw()
                correct = rng.uniform(size=(problems, 1, r)) < rate[:, None, None]
                drawn.append((correct, np.full((problems, 1), r), np.ones((1, problems)), np.array([[rate.mean()]])))
            rows[(name, f"{r} runs")] = {rule: cell(drawn, rule, r) for rule in RULES}
    return pd.DataFrame.from_dict(rows, orient="index")


def main(sets: int = 100, seed: int = 1, params: str = "params/sim.yaml") -> None:
    start = time.perf_counter()
    table = on_generators(sets, seed, params)
    print(f"Table 5's accuracy, {sets} SIMULATED sets per generator (seed {seed}), 95% intervals: coverage % / width "
          "÷ oracle, by runs per problem")
    spans = {}
    for col in table.columns:
        parts = table[col].str.split(" / ", expand=True).astype(float)
        spans[col] = f"{parts[0].min():.1f}-{parts[0].max():.1f} / {parts[1].min():.2f}-{parts[1].max():.2f}"
    table.loc["range"] = pd.Series(spans)
    with pd.option_context("display.width", 250, "display.max_columns", 20):
        print(table.to_string())
    print(f"\nKnown rate distributions, 128 problems, {10 * sets} sets each: coverage % / width ÷ oracle")
    print(on_rates(10 * sets, seed).to_string())
    print(f"\nwall {time.perf_counter() - start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]), *sys.argv[3:4])
