"""Gains between routed choices: do their intervals hold the truth, and how wide are they? (issue 61, items 2-3)

A choice routed problem by problem by a difficulty the models share (the headline's since 2026-12-02,
``policy.set_policy``: ``policy.crossfit_halves(..., own_weights=(), difficulty_folds=5)``, ``frontier_choice``'s
"difficulty" rule) moves some problems of a dataset to another option when a technique, a family or a release is
added, so the paired differences spread over the problems far more than the runs' noise the set's own truth differs
by. Its gains take the delta method's interval at the estimate from each problem's run-level variance
(``policy.routed_gain_interval``, ``analyze.split_variance.delta_ratio``; Fieller's before 2026-12-02, evening). On
the same SIMULATED sets per generator of the validity study (``validity.study_generators``, seed 1), this prints for
each gain family (Table 2's techniques, Figures 3-5) the coverage of the set's own truth, the width over the
oracle's (3.92 × the sd of the estimate's error over the sets; over the intervals bounded in every set), the share
of intervals with an infinite end and the false findings, beside the rule before it (every half-split, not routed:
Student's t and the parts' interval, ``policy.gain_interval``). The routed frontier's own interval:
``frontier_choice.py 40``.

    COP_DATA_DIR=../shared/data .venv/bin/python benchmarks/routed_gains.py [sets per generator, default 20]
"""

from __future__ import annotations

import sys
import time

import pandas as pd
from frontier_choice import study_under  # benchmarks/: policy_study.study under another way of choosing

from helpers.analyze.statistic import ESSENTIAL, FAMILY, RELEASE_GAIN, TECHNIQUE_GAIN

RULES = ("every-half-split", "difficulty")  # the rule before 2026-12-02, and the headline's since
KINDS = (TECHNIQUE_GAIN, FAMILY, RELEASE_GAIN, ESSENTIAL)
COLUMNS = {"coverage_pct": "{:.1f}", "width_vs_oracle": "{:.2f}", "unbounded_pct": "{:.1f}",
           "false_findings_pct": "{:.1f}"}


def main(sets: int = 20, seed: int = 1) -> None:
    start = time.perf_counter()
    labels = {k.label: k.short if k.short else k.name for k in KINDS}
    long = pd.concat([study_under(rule, sets, seed).assign(rule=rule) for rule in RULES], ignore_index=True)
    long = long[long["statistic"].isin(labels)].assign(statistic=lambda t: t["statistic"].map(labels))
    print(f"{sets} sets per generator, seed {seed}, 13 generators; SIMULATED")
    for col, fmt in COLUMNS.items():
        table = long.pivot_table(index="generator", columns=["statistic", "rule"], values=col, sort=False)
        table = table.dropna(axis=1, how="all")
        low, high = table.min(), table.max()
        ranges = pd.Series([f"{fmt.format(a)} - {fmt.format(b)}" for a, b in zip(low, high, strict=True)],
                           index=table.columns)
        print(f"\n{col}, range over the generators:")
        print(ranges.unstack("rule")[list(RULES)].to_string())
    print(f"\nwall {time.perf_counter() - start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
