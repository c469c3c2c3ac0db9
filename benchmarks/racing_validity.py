"""Are the racing design's numbers as right as the uniform design's? (issue 37, item 3) — on known truth.

``analyze.racing_study.racing_study`` over every generator of the validity study (the `sim` set's own family, then
``known_truth.GENERATORS``), ``sets`` simulated sets of the `sim` set's shape each (six datasets, ten SIMULATED models,
8 runs), each estimated from all its cells (uniform) and from the cells the race runs with the default ``racing``
settings (protected statistics from every problem, Table 1 from every problem weighted by the inverse of each cell's
chance of being recorded — beside it, Table 1 from the Table-1 sample alone — the others from the sample): per statistic
family, the relative bias, the coverage of the 95% interval with its Monte-Carlo standard error, the mean width, and the
racing design's share of the uniform design's USD. SIMULATED.

    COP_DATA_DIR=../shared/data .venv/bin/python benchmarks/racing_validity.py [sets per generator, default 40]
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pandas as pd

from helpers.analyze import known_truth as kt
from helpers.analyze import validity as va
from helpers.analyze.racing_study import racing_study
from helpers.core.context import prepare
from helpers.core.params import Racing, load_params


def main(sets: int) -> None:
    start = time.perf_counter()
    gm = kt.generative_model(prepare(load_params("params/sim.yaml")))
    settings = Racing()
    generators = va.study_generators(gm)
    print(f"{len(generators)} generators x {sets} simulated sets of the `sim` set's shape, 100 bootstrap replicates "
          f"each; racing: Table-1 sample {settings.table1_share:.0%}, margin {settings.margin:g}, protect "
          f"{', '.join(settings.protect)}")
    df = racing_study(gm, generators, settings, repetitions=sets, replicates=100, workers=2)
    worst, table1 = [], []
    for g, rows in df.groupby("generator", sort=False):
        uni, race = rows[rows["design"] == "uniform"].set_index("statistic"), rows[rows["design"]
                                                                                   == "racing"].set_index("statistic")
        alone = rows[rows["design"] == "sample"].set_index("statistic")
        print(f"\n{g}: racing spent {race['usd_pct'].iloc[0]:.1f}% of the uniform design's USD")
        print(f"  {'statistic':<17} {'rel. bias % (uniform / racing)':>31} "
              f"{'coverage % ± MC se (uniform / racing)':>40} {'width (racing / uniform)':>25}  racing from")
        for fam in uni.index:
            u, r = uni.loc[fam], race.loc[fam]
            cov = f"{u.coverage_pct:5.1f} ± {u.coverage_se_pct:3.1f} / {r.coverage_pct:5.1f} ± {r.coverage_se_pct:3.1f}"
            print(f"  {fam:<17} {u.rel_bias_pct:>14.2f} / {r.rel_bias_pct:<14.2f} {cov:>40} "
                  f"{r.mean_width / u.mean_width if u.mean_width else float('nan'):>25.2f}  {r['from']}")
            if fam in alone.index:  # Table 1 weighted: beside it, Table 1 from the sample alone
                a = alone.loc[fam]
                cov = (f"{u.coverage_pct:5.1f} ± {u.coverage_se_pct:3.1f} / "
                       f"{a.coverage_pct:5.1f} ± {a.coverage_se_pct:3.1f}")
                print(f"  {'  (sample alone)':<17} {u.rel_bias_pct:>14.2f} / {a.rel_bias_pct:<14.2f} {cov:>40} "
                      f"{a.mean_width / u.mean_width if u.mean_width else float('nan'):>25.2f}  {a['from']}")
                table1.append((r.coverage_pct - u.coverage_pct, a.coverage_pct - u.coverage_pct,
                               r.mean_width / u.mean_width,
                               a.mean_width / u.mean_width, abs(r.rel_bias_pct - u.rel_bias_pct), g))
            if r["from"] == "every problem":
                worst.append((r.coverage_pct - u.coverage_pct,
                              abs(r.rel_bias_pct - u.rel_bias_pct) if pd.notna(u.rel_bias_pct)
                              else 0.0, g, fam))
    drop = min(worst)
    shift = max(worst, key=lambda w: w[1])
    print(f"\nprotected statistics: largest coverage drop racing vs uniform {drop[0]:+.1f} points ({drop[2]}, "
          f"{drop[3]}); largest change of relative bias {shift[1]:.2f} points ({shift[2]}, {shift[3]})")
    if table1:
        cov_w, cov_s, wid_w, wid_s, bias_w = (np.array([t[i] for t in table1]) for i in range(5))
        print(f"Table 1, weighted from every problem / from the sample alone: coverage minus the uniform design's "
              f"{cov_w.min():+.1f}…{cov_w.max():+.1f} / {cov_s.min():+.1f}…{cov_s.max():+.1f} points; width "
              f"{wid_w.min():.2f}–{wid_w.max():.2f}× / {wid_s.min():.2f}–{wid_s.max():.2f}× the uniform design's; "
              f"relative bias within {bias_w.max():.2f} points of the uniform design's (weighted)")
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 40)
