"""The validity study's heat map of how often each generator's headline intervals hold the truth
(``coverage_heatmap``)."""

import matplotlib.colors
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from helpers.analyze.statistic import short_label
from helpers.publish.figures.style import NORMAL, REPORT_WIDTH_IN, SMALL, styled, titled

CONSERVATIVE_PCT = 99.0  # coverage of a 95% interval from which the heat map calls it conservative (wider than needed)


@styled
def coverage_heatmap(table: pd.DataFrame, simulated: bool, target: float = 93.0):
    """Generator (rows) × statistic (columns) heat map of the headline estimator's interval coverage (%), each cell
    also giving how often the range the records allow holds the truth; ``table``: ``validity.generator_study``
    rows (generator, statistic, headline, coverage_pct, range_coverage_pct). Colour: coverage in four bands, blue at
    ``CONSERVATIVE_PCT`` or more (the intervals hold, but are wider than a 95% interval needs), green from ``target``,
    yellow within 3 points below it, red lower."""
    d = table[table["headline"]]
    gens, stats = list(dict.fromkeys(d["generator"])), list(dict.fromkeys(d["statistic"]))
    cov = d.pivot(index="generator", columns="statistic", values="coverage_pct").reindex(index=gens, columns=stats)
    rng = d.pivot(index="generator", columns="statistic",
                  values="range_coverage_pct").reindex(index=gens, columns=stats)
    def pct(c):  # 99.6 is not 100
        return "100" if c >= 99.95 else f"{c:.1f}"
    text = np.array([[("–" if not np.isfinite(c) else pct(c)) + ("" if not np.isfinite(r) else f"\n({r:.0f})")
                      for c, r in zip(cr, rr)] for cr, rr in zip(cov.to_numpy(float), rng.to_numpy(float))])
    fig, ax = plt.subplots(figsize=(min(1.05 * len(stats) + 2.6, REPORT_WIDTH_IN - 1.2), 0.5 * len(gens) + 1.8))
    bounds = [0.0, target - 3.0, target, CONSERVATIVE_PCT, 100.01]  # four colours a reader can tell apart: the shades
    # of one continuous scale made every cell from 94 to 100 the same green, hiding intervals wider than they need be
    cmap = matplotlib.colors.ListedColormap(["#E07B6A", "#F2D17A", "#8CC084", "#9CC3E4"])
    sns.heatmap(cov, annot=text, fmt="", cmap=cmap, norm=matplotlib.colors.BoundaryNorm(bounds, cmap.N),
                cbar_kws={"label": "coverage (%)", "ticks": [(a + b) / 2 for a, b in zip(bounds, bounds[1:])]},
                linewidths=0.5, annot_kws={"fontsize": SMALL, "color": "#222222"}, ax=ax)
    colorbar = ax.collections[0].colorbar
    assert colorbar is not None  # sns.heatmap drew it (cbar=True)
    colorbar.set_ticklabels([f"below {target - 3:g}", f"{target - 3:g} to {target:g}",
                             f"{target:g} to {CONSERVATIVE_PCT:g}",
                             f"{CONSERVATIVE_PCT:g} or more:\nwider than needed"], fontsize=SMALL)
    ax.set_xticklabels([short_label(t.get_text()) for t in ax.get_xticklabels()], rotation=30,
                       ha="right", fontsize=SMALL)
    ax.set_yticklabels(ax.get_yticklabels(), fontsize=SMALL)
    ax.set_xlabel("")
    ax.set_ylabel("")
    ranged = np.isfinite(rng.to_numpy(float)).any()
    ax.set_title(titled("Coverage (%) of the headline 95% intervals" + ("; in brackets, of the range the records allow"
                                                                       if ranged else ""), simulated), fontsize=NORMAL)
    fig.tight_layout()
    return fig
