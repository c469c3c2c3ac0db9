"""Figures draw for any families and any number of releases (including fits that are not identifiable)."""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from helpers.analyze import costofpass as cp
from helpers.analyze.trends import fit_decay
from helpers.publish import figures


def world():
    cop = pd.DataFrame({"a": [1.0, 6.0], "b": [4.0, 2.0]},
                       index=pd.MultiIndex.from_tuples([("t", "p1"), ("t", "p2")], names=["task", "problem_id"]))
    return cop, pd.Series([5.0, 5.0], index=cop.index)


def test_figures_with_a_forks_families(tmp_path):
    cop, expert = world()
    fam = 100 * cp.family_counterfactual(cop, pd.Series({"a": "SmolLM (HF)", "b": "lightweight"}), expert)
    fig = figures.figure3_families(fam, simulated=True)
    assert "SIMULATED" in fig.axes[0].get_title()
    png, svg = figures.save_figure(fig, "f3", tmp_path)
    assert png.stat().st_size > 1000 and svg.is_file()
    plt.close("all")


def test_trend_figures_with_two_releases():
    cop, expert = world()
    trend = cp.frontier_over_time(cop, pd.Series({"a": "2024-01-01", "b": "2024-05-01"}), expert)
    fits = {"t": fit_decay([0.0, 4.0], trend.dropna(subset=["date"])["normalized_pct"])}
    assert not fits["t"].identified
    figures.figure2_trends(trend, fits, {"t": "Task"}, simulated=False)
    plt.close("all")


def test_interval_bars_draw_every_item_with_its_whiskers():
    frame = pd.DataFrame({"task": ["T", "T", "U"], "item": ["A", "B", "A"], "value": [10.0, 300.0, 5.0],
                          "low": [5.0, 100.0, 5.0], "high": [20.0, np.inf, 5.0]})
    fig = figures.interval_bars(frame, "item", "Figure 5", simulated=True, colors={"A": "#123456"}, symlog=True)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["A", "B"] and "SIMULATED" in fig._suptitle.get_text()
    assert len(ax.patches) == 2 and ax.get_xscale() == "symlog"
    plt.close("all")


def test_a_family_keeps_its_colour_whatever_the_order():
    names = ["SmolLM (HF)", "Qwen", "lightweight", "Gemma"]
    assert figures.family_palette(names) == figures.family_palette(list(reversed(names)))
    assert figures.family_palette(names)["lightweight"] == figures.FAMILY_COLORS["lightweight"]
