"""The fee part's interval of "up to k tries, then the expert" (issue 61), measured side by side: "prior" (what each
problem's runs say under an empirical-Bayes prior of the failure rates, ``fee_prior.fee_interval``, the default) and
"poisson" (the weighted Poisson interval bounded by the failed runs, what it replaced), on every generator of the
validity study at the `sim` set's shape (six datasets, 128 problems in five and 30 in one, ten SIMULATED models,
8 runs, k = 4).

For each method ``fee_prior.METHOD`` is set and ``policy_study.study`` run on the same sets (the same seeds): per
generator the coverage of the set's own truth and the width ÷ the oracle's (3.92 × the sd over the sets of the
estimate's error) of each model alone, of the frontier and of the technique gains. The seed (default 1) draws sets
the method was not developed on (it was built on seed 0's sets). SIMULATED.

    COP_DATA_DIR=../shared/data .venv/bin/python benchmarks/fee_interval_study.py [sets, default 40]
        [methods, comma-separated, default prior,poisson] [seed, default 1] [runs per cell, default the set's 8]
        [a set's params, default params/sim.yaml]
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time

import pandas as pd

from helpers.analyze import fee_prior, policy_study, statistic
from helpers.analyze import known_truth as kt
from helpers.analyze import validity as va
from helpers.core.context import prepare
from helpers.core.params import load_params

ROWS = {"each model alone": statistic.FAMILY_LABELS["table1"], "frontier": statistic.POLICY_FRONTIER.label,
        "technique gains (no effect)": statistic.FAMILY_LABELS["technique gain"]}


def measure(method: str, sets: int, seed: int, runs: int = 0, params: str = "params/sim.yaml") -> pd.DataFrame:
    """Long table (method, statistic, generator, coverage_pct, width_vs_oracle) of ``method`` on ``sets`` sets per
    generator drawn from ``seed`` (``runs`` runs per cell instead of the set's 8 where given)."""
    fee_prior.METHOD = method
    gm = kt.generative_model(prepare(load_params(params)))
    gm = dataclasses.replace(gm, n_runs=runs) if runs else gm
    table = policy_study.study(gm, va.study_generators(gm), sets, seed=seed, workers=os.cpu_count() or 1)
    out = []
    for name, label in ROWS.items():
        d = table[table["statistic"] == label][["generator", "coverage_pct", "width_vs_oracle"]]
        out.append(d.assign(method=method, statistic=name))
    return pd.concat(out, ignore_index=True)


def show(long: pd.DataFrame) -> None:
    """Print per statistic a generator × method table of coverage (%) and width ÷ oracle, then each one's range."""
    for name in ROWS:
        d = long[long["statistic"] == name]
        cells = d.assign(cell=d["coverage_pct"].map("{:.1f}".format) + " / " + d["width_vs_oracle"].map(
            "{:.2f}".format)).pivot(index="generator", columns="method", values="cell")
        span = d.groupby("method").agg(c0=("coverage_pct", "min"), c1=("coverage_pct", "max"),
                                       w0=("width_vs_oracle", "min"), w1=("width_vs_oracle", "max"))
        cells.loc["range"] = [f"{r.c0:.1f}-{r.c1:.1f} / {r.w0:.2f}-{r.w1:.2f}"
                              for r in span.loc[cells.columns].itertuples()]
        print(f"\n{name}: coverage % / width ÷ oracle")
        print(cells.to_string())


def main(sets: int = 40, methods: str = "prior,poisson", seed: int = 1, runs: int = 0,
         params: str = "params/sim.yaml") -> None:
    start = time.perf_counter()
    parts = [measure(m, sets, seed, runs, params) for m in methods.split(",")]
    shape = f", {runs} runs per cell" if runs else ""
    print(f"{sets} sets per generator, seed {seed}{shape}, 95% intervals; SIMULATED")
    show(pd.concat(parts, ignore_index=True))
    print(f"\nwall {time.perf_counter() - start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    args = sys.argv[1:]
    params = args.pop() if args and args[-1].endswith(".yaml") else "params/sim.yaml"  # a set's params, last
    main(*(int(a) if i != 1 else a for i, a in enumerate(args[:4])), params=params)
