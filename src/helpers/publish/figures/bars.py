"""Bars with their intervals: a bar per item in a panel per dataset (``interval_bars``), Figure 3's grouped bars of
model families (``figure3_families``), and the range the records allow beside a bar (``range_interval``)."""

import textwrap

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from helpers.core.numbers import sig
from helpers.publish.appearance import family_palette
from helpers.publish.figures.panels import item_grid, log_scale, no_data
from helpers.publish.figures.style import NORMAL, RANGE_LABEL, SMALL, TITLE, styled, titled


@styled
def interval_bars(frame: pd.DataFrame, item: str, title: str, simulated: bool, colors: dict[str, str],
                  ylabel: str = "%", symlog: bool = False, legend: dict[str, str] | None = None):
    """One panel per dataset, a bar per ``item`` (in the frame's order) coloured by ``colors[item]``, with
    ``low``-``high`` whiskers where the frame has them (validated intervals only); ``frame`` columns: task (labels),
    ``item``, value, [low, high], [range_ci_low, range_ci_high]. The legend below the panels keys the whiskers (and
    the range where drawn); ``legend``: name -> colour (the families) adds the bars'."""
    tasks = list(dict.fromkeys(frame["task"]))
    items = list(dict.fromkeys(frame[item]))
    fig, axes = item_grid(len(tasks), items, sharex=True)  # one x scale: panels compare at a glance
    for ax, task in zip(axes.flat, tasks):
        d = frame[frame["task"] == task].set_index(item).reindex(items)
        y, v = np.arange(len(items)), d["value"].to_numpy(float)
        if not np.isfinite(v).any():
            ax.set_title(task, fontsize=NORMAL)
            no_data(ax, clear_ticks=False)  # shared axes: clearing this panel's ticks would clear every panel's
            continue
        if "range_ci_low" in d:  # what never-passed problems allow: an interval below the bar, never a bar
            range_interval(ax, y + 0.32, d["range_ci_low"].to_numpy(float), d["range_ci_high"].to_numpy(float),
                           vertical=False)
        ax.barh(y, v, color=[colors.get(i, "#888888") for i in items], height=0.45)
        ax.plot(v, y, "|", color="#222222", ms=9, mew=1.2)  # the value itself: a bar of 0 has no length to show
        _whiskers(ax, v, y, d)
        ax.set_yticks(y, items, fontsize=SMALL)
        ax.set_title(task, fontsize=NORMAL)
        ax.set_xlabel(ylabel, fontsize=SMALL)
        ax.tick_params(axis="x", labelsize=SMALL)
        if symlog:
            log_scale(ax, "x", "symlog", linthresh=10)
    axes.flat[0].invert_yaxis()  # the y axis is shared: inverted once, the first item on top
    _shared_x_once(axes, len(tasks), axes.shape[1])
    fig.suptitle(titled(title, simulated), y=1.0)
    fig.tight_layout()  # then the legend below the panels: it takes no panel's room
    handles = [Patch(color=c, label=n) for n, c in (legend or {}).items()]  # the bars' colours, where not on the axis
    if "low" in frame:  # every whisker is keyed
        handles.append(axes.flat[0].errorbar([np.nan], [np.nan], xerr=[[0], [0]], fmt="none", ecolor="#222222",
                                             elinewidth=0.8, capsize=2, label="95% interval"))
    if "range_ci_low" in frame:
        handles.append(range_handle())
    fig.legend(handles=handles, loc="upper center", ncol=min(len(handles), 3), bbox_to_anchor=(0.5, 0.0),
               fontsize=SMALL, frameon=False)
    return fig


def _whiskers(ax, v: np.ndarray, y: np.ndarray, d: pd.DataFrame) -> None:
    """Horizontal 95% whiskers from ``d``'s low and high around the values ``v`` at ``y``, where ``d`` has them."""
    if "low" in d:
        err = np.vstack([np.clip(v - d["low"].to_numpy(float), 0, None),
                         np.clip(d["high"].to_numpy(float) - v, 0, None)])
        ax.errorbar(v, y, xerr=np.where(np.isfinite(err), err, 0), fmt="none", ecolor="#222222",
                    elinewidth=0.8, capsize=2)


def _shared_x_once(axes: np.ndarray, panels: int, cols: int) -> None:
    """A grid's shared x axis named under the lowest panel of each column only; a panel with none below it (a last,
    short row) shows its ticks too. ``axes``: the grid (rows, cols), its first ``panels`` in use."""
    for i, ax in enumerate(axes.flat[:panels]):
        if i + cols < panels:
            ax.set_xlabel("")
        else:
            ax.xaxis.set_tick_params(labelbottom=True)


RANGE_LINE = "#B07D12"  # the range's interval: a darker amber than the bands of the line figures, dashed


def range_interval(ax, at, low, high, vertical: bool, label: str | None = None) -> None:
    """The range the records allow as a dashed interval with end caps at positions ``at`` (x for vertical
    intervals, y for horizontal ones), from ``low`` to ``high``: drawn beside a bar, it reads as an interval."""
    style = dict(color=RANGE_LINE, lw=1.3, linestyles=(0, (2.5, 1.5)), zorder=3)
    if vertical:
        ax.vlines(at, low, high, label=label, **style)
        for end in (low, high):
            ax.scatter(at, end, marker="_", s=30, color=RANGE_LINE, lw=1.3, zorder=3)
    else:
        ax.hlines(at, low, high, label=label, **style)
        for end in (low, high):
            ax.scatter(end, at, marker="|", s=30, color=RANGE_LINE, lw=1.3, zorder=3)


def range_handle():
    """The legend entry of ``range_interval``."""
    return Line2D([], [], color=RANGE_LINE, lw=1.3, ls=(0, (2.5, 1.5)), label=RANGE_LABEL)


@styled
def figure3_families(values: pd.DataFrame, simulated: bool, whiskers: pd.DataFrame | None = None,
                     colors: dict[str, str] | None = None):
    """Grouped bars: essentialness (%) of each family (hue) per task (x); ``whiskers`` (task, family and, in %, low
    and high: each bar's 95% interval, where validated; range_ci_low and range_ci_high: the range the records allow;
    tasks as ``values``' index) draws what it has beside each bar; ``colors`` (family -> colour) is the set's own
    mapping (``Appearance.family_colors``), so a family keeps its colour in every figure whichever families this one
    shows."""
    long = values.rename_axis("task").reset_index().melt(id_vars="task", var_name="family", value_name="pct")
    fig, ax = plt.subplots(figsize=(9, 3.8))
    palette = {f: colors[f] for f in values.columns} if colors else family_palette(list(values.columns))
    # the colours of every other figure
    sns.barplot(long, x="task", y="pct", hue="family", palette=palette, saturation=1, ax=ax)
    if whiskers is not None and not whiskers.empty:
        n_fam = len(values.columns)
        width = 0.8 / n_fam
        for k, fam in enumerate(values.columns):
            w = whiskers[whiskers["family"] == fam].set_index("task").reindex(values.index)
            x = np.arange(len(values.index)) - 0.4 + width * (k + 0.5)
            v = values[fam].to_numpy(float)
            if "low" in w:
                err = np.vstack([np.clip(v - w["low"].to_numpy(float), 0, None),
                                 np.clip(w["high"].to_numpy(float) - v, 0, None)])
                ax.errorbar(x, v, yerr=np.nan_to_num(err), fmt="none", ecolor="#222222", elinewidth=0.8, capsize=2,
                            label="95% interval" if k == 0 else None)  # the whiskers' key
            if "range_ci_low" in w:  # an interval beside the bar, never a bar: it cannot be read as a value
                range_interval(ax, x + width * 0.38, w["range_ci_low"].to_numpy(float),
                               w["range_ci_high"].to_numpy(float),
                               vertical=True, label=RANGE_LABEL if k == 0 else None)
    _bar_values(ax, values)
    if "range_ci_low" in (whiskers if whiskers is not None else {}):
        for bars in [c for c in ax.containers if isinstance(c, matplotlib.container.BarContainer)]:
            for bar in bars:  # slimmer bars, same centres: the range's interval stands beside each
                slim = bar.get_width() * 0.55
                bar.set_x(bar.get_x() + (bar.get_width() - slim) / 2)
                bar.set_width(slim)
    if np.nanmax(np.abs(values.to_numpy(float)), initial=0) > 200:
        log_scale(ax, "y", "symlog", linthresh=10)
    ax.set_ylabel("relative improvement (%)")
    ax.set_xlabel("")
    room = max(12, int(7.5 / max(len(values.index), 1) / 0.11))  # characters a dataset's name has under its bars
    ax.set_xticks(range(len(values.index)), [textwrap.fill(str(t), room) for t in values.index])  # else on 2 lines
    ax.set_title(titled("Essentialness of model families (counterfactual; the paper's estimator)", simulated),
                 fontsize=TITLE)
    fig.tight_layout()
    fig.draw_without_rendering()  # the legend goes under the values and the dataset names, wherever they end
    bottom = min((t.get_window_extent().y0 for t in ax.get_xticklabels()), default=ax.bbox.y0)
    to_fig = fig.transFigure.inverted().transform
    if (inside := ax.get_legend()) is not None:  # seaborn's own, inside the panel: the figure's legend replaces it
        inside.remove()
    fig.legend(*ax.get_legend_handles_labels(), loc="upper center", ncol=3, fontsize=SMALL, frameon=False,
               bbox_to_anchor=(to_fig(((ax.bbox.x0 + ax.bbox.x1) / 2, 0))[0], to_fig((0, bottom))[1] - 0.01))
    return fig


def _bar_values(ax, values: pd.DataFrame) -> None:
    """Each bar's value of ``figure3_families``, printed under its bar, below the x axis (the dataset names move
    down to make room): above the bar it would stand at the height of its whisker or range, where a "0" reads as a
    bar of that height. With one dataset, each family's name goes under its value too (SWE-bench's ten families read
    by colour alone)."""
    n_fam = len(values.columns)
    named = {fam: "\n" + textwrap.fill(str(fam), 11) if len(values.index) == 1 else "" for fam in values.columns}
    for k, fam in enumerate(values.columns):
        x = np.arange(len(values.index)) - 0.4 + (0.8 / n_fam) * (k + 0.5)
        for xi, vi in zip(x, values[fam].to_numpy(float)):
            ax.annotate(("–" if np.isnan(vi) else sig(vi, 2)) + named[fam], (xi, 0), xycoords=("data", "axes fraction"),
                        xytext=(0, -7), textcoords="offset points", ha="center", va="top", fontsize=SMALL - 1,
                        color="#333333")
    ax.tick_params(axis="x", pad=17 + 9 * max((t.count("\n") for t in named.values()), default=0))
