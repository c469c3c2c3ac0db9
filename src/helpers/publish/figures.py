"""The paper's figures (matplotlib/seaborn), saved as PNG + SVG under results/<set>/figures/."""

from __future__ import annotations

import functools
import re
import textwrap
from pathlib import Path

import matplotlib
import matplotlib.colors
import matplotlib.dates
import matplotlib.pyplot as plt
import matplotlib.text
import matplotlib.ticker
import numpy as np
import pandas as pd
import seaborn as sns
from cycler import cycler

from helpers.analyze.costofpass import pareto
from helpers.analyze.intervals import EXPERT
from helpers.analyze.statistic import short_label
from helpers.analyze.trends import DecayFit, LogLinearTrend, loglinear_shown, months_since
from helpers.core.numbers import sig
from helpers.publish import names
from helpers.publish.appearance import Appearance, family_palette, marker
from helpers.publish.placement import labels_over_marks, leaders_tangled, place_labels, text_box

# The figures' look, applied only while a figure is made or saved (``styled``): importing this module changes no
# global matplotlib setting and no backend (the CLI runs its kernels with MPLBACKEND=Agg).
STYLE = {**sns.axes_style("whitegrid"), **sns.plotting_context("paper", font_scale=1.2),
         "axes.prop_cycle": cycler(color=sns.color_palette("deep")), "font.family": "sans-serif",  # = sns.set_theme's
         "svg.hashsalt": "cost-of-pass",  # stable clip-path ids: same records, same SVG bytes
         # every text as typed: a fork's "$1 to $2" is drawn, not read as mathtext (log_scale)
         "text.parse_math": False}


def styled(fn):
    """``fn`` run with the figures' ``STYLE`` (``matplotlib.rc_context``): the caller's settings are restored after."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with matplotlib.rc_context(STYLE):
            return fn(*args, **kwargs)

    return wrapper

# Sizes (points) that read at 100% zoom: a figure at most REPORT_WIDTH_IN wide is shown about 1,000 px wide in the
# report, so 8 pt renders at ~10 px; wider figures would shrink their text below that.
REPORT_WIDTH_IN = 11.2
MIN_PANEL_IN = 1.5  # a panel narrower than this (its labels took the room) is a layout problem
DPI = 150
SMALL, NORMAL, TITLE = 8.0, 9.0, 10.0
LEADER = {"arrowstyle": "-", "color": "#999999", "lw": 0.6, "shrinkA": 0, "shrinkB": 3}  # a label to its point
RANGE_COLOR = "#E3C16F"  # the range never-passed problems allow (``unseen``), drawn behind estimates
RANGE_LABEL = "range the records allow (never-passed problems; each cell's sampling bounds)"


def titled(title: str, simulated: bool) -> str:
    return f"{title} — SIMULATED" if simulated else title


@styled
def save_figure(fig, name: str, out_dir: Path) -> tuple[Path, Path]:
    """Write ``<name>.png`` and ``.svg``, and ``<name>.layout.json``: what ``layout_problems`` finds (the browser
    test fails on any)."""
    import json

    out_dir.mkdir(parents=True, exist_ok=True)
    png, svg = out_dir / f"{name}.png", out_dir / f"{name}.svg"
    problems = layout_problems(fig)  # lays the figure out once: the box below and both files reuse that layout
    # fig.tight_layout() leaves a placeholder layout engine, for which every savefig lays the figure out again first
    # (a draw without rendering, whose layout changes nothing): the figure is laid out, so it has none
    fig.set_layout_engine(None)
    box = fig.get_tightbbox(fig.canvas.get_renderer()).padded(matplotlib.rcParams["savefig.pad_inches"])  # inches
    fig.savefig(png, dpi=DPI, bbox_inches=box, metadata={"Software": None})
    fig.savefig(svg, bbox_inches=box, metadata={"Date": None, "Creator": None})  # no timestamp or version
    width_in = box.width  # what the report shows, title and legend included
    if width_in > REPORT_WIDTH_IN * 1.02:
        problems.append(f"figure {width_in:.1f} in wide (at most {REPORT_WIDTH_IN}): its text would read too small")
    (out_dir / f"{name}.layout.json").write_text(json.dumps({"problems": problems}, indent=1) + "\n")
    return png, svg


def show_saved(fig, png: Path) -> None:
    """Close ``fig`` and, inside a notebook's kernel, display its saved PNG (the executed notebook shows what the
    report shows; the Agg backend displays nothing by itself)."""
    plt.close(fig)
    try:
        from IPython import get_ipython
        from IPython.display import Image, display
    except ImportError:
        return
    if get_ipython() is not None:
        display(Image(filename=str(png)))


def _texts(fig) -> list:
    """Every visible, non-empty text of a figure but the tick labels (matplotlib spaces those itself)."""
    ticks = {id(t) for ax in fig.axes for t in (*ax.get_xticklabels(), *ax.get_yticklabels())}
    return [t for t in fig.findobj(matplotlib.text.Text)
            if t.get_visible() and t.get_text().strip() and id(t) not in ticks
            and (t.axes is None or t.axes.get_visible())]


@styled
def layout_problems(fig) -> list[str]:
    """What a reader would trip on: two labels whose boxes overlap, a label over a line, error bar or marker, leaders
    that cross (``leaders_tangled``), a visible panel with nothing drawn or squeezed narrower than ``MIN_PANEL_IN``.
    One line each (``save_figure`` adds a figure wider than ``REPORT_WIDTH_IN``, whose text would render too small)."""
    fig.draw_without_rendering()  # every text placed, nothing rasterised
    renderer = fig.canvas.get_renderer()
    problems = []
    boxes = [(t, text_box(t, renderer)) for t in _texts(fig)]
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1:]:
            inter = box_a.intersection(box_a, box_b)
            if inter is not None and inter.width > 1 and inter.height > 1:
                problems.append(f"labels overlap: {a.get_text()[:40]!r} and {b.get_text()[:40]!r}")
    for ax in fig.axes:
        if ax.get_visible() and ax.get_label() != "<colorbar>" and not ax.has_data() and not ax.texts:
            problems.append(f"empty panel: {ax.get_title()[:40]!r}")
        width_in = ax.get_window_extent(renderer).width / fig.dpi
        if ax.get_visible() and ax.get_label() != "<colorbar>" and ax.has_data() and width_in < MIN_PANEL_IN:
            problems.append(f"panel squeezed to {width_in:.1f} in: {ax.get_title()[:40]!r}")
    return problems + labels_over_marks(fig, renderer) + leaders_tangled(fig, renderer)


def no_data(ax, what: str = "no data", clear_ticks: bool = True) -> None:
    """An empty panel says so, instead of showing bare axes (``clear_ticks``: False where the axes are shared)."""
    ax.text(0.5, 0.5, what, transform=ax.transAxes, ha="center", va="center", fontsize=NORMAL, color="#666666")
    if clear_ticks:
        ax.set_xticks([])
        ax.set_yticks([])


def _grid(n: int, size: tuple[float, float] = (3.7, 3.1), single: tuple[float, float] = (6.4, 4.8)):
    """Up to three panels a row, each ``size`` (inches); a lone panel ``single``, room for its labels."""
    size = single if n == 1 else size
    cols = min(3, n)
    rows = int(np.ceil(n / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(size[0] * cols, size[1] * rows), squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, axes.flat


def _finish_panels(fig, first_ax, title: str, simulated: bool, ncol: int | None = None):
    """One legend below a grid of panels (from the first panel's lines; ``ncol`` columns, default one row), the
    title, a tight layout."""
    handles, names = first_ax.get_legend_handles_labels() if first_ax is not None else ([], [])
    if handles:
        panels = sum(ax.get_visible() for ax in fig.axes)  # one row under three panels; fewer columns under one or two
        ncol = ncol or min(len(names), 3 if panels >= 3 else 2)
        fig.legend(handles, names, loc="upper center", ncol=ncol, bbox_to_anchor=(0.5, 0.0), fontsize=SMALL,
                   frameon=False)
    fig.suptitle(titled(title, simulated), y=1.02, fontsize=TITLE + 1)
    for ax in fig.axes:  # labels not yet placed (``declutter`` moves them inside their panel) take no room: where
        for text in ax.texts:  # they first stand, past a panel's edge, the layout shrank every panel to half its width
            if isinstance(text, matplotlib.text.Annotation):
                text.set_in_layout(False)
    fig.tight_layout()
    return fig


@styled
def figure2_trends(trend: pd.DataFrame, fits: dict[str, DecayFit], look: Appearance, *,
                   loglinear: dict[str, LogLinearTrend] | None = None, paper_halving: dict[str, float] | None = None,
                   ranges: np.ndarray | None = None):
    """Frontier V(M_t) per task over release dates, normalised by the expert-only frontier (%, log axis), with
    the fit of Eq. 11 and the log-linear trend.

    The paper's plug-in steps carry no band: its two-level bootstrap interval held the truth far less often than
    95% on most of the validity study's generators (issue 61; the headline over releases, with validated intervals, is
    the figure
    ``release_policy``). Each release is a point coloured by its model's family and labelled with the model
    (``look``: the set's ``Appearance``). The halving time is titled with its profile interval, or as unreliable
    (``DecayFit.reliable``), beside the paper's (``paper_halving``: task -> months). ``ranges`` (2, steps, T) %: the
    range never-passed problems allow (with its 95% interval), a band. Panels in the set's order of datasets."""
    labels, families, model_labels, simulated = look.task_labels, look.families, look.labels, look.simulated
    order = look.order
    tasks = list(dict.fromkeys(trend["task"]))
    column = {t: j for j, t in enumerate(tasks)}  # the curves' task axis is in ``trend``'s order
    shown = [t for t in (order or tasks) if t in column]
    fig, axes = _grid(len(shown))
    palette = look.family_colors
    labelled = []  # (panel, its release labels): placed once the layout is final
    for ax, task in zip(axes, shown):
        d = trend[(trend.task == task) & trend.date.notna()]
        ax.set_title(labels.get(task, task), fontsize=NORMAL)
        if d.empty:  # no model released: nothing but the expert
            no_data(ax, "no model released")
            continue
        ylim = _trend_ylim(*_trend_curves(ax, d, column[task], ranges))
        named = _release_points(ax, d, palette, families or {}, model_labels or {})
        labelled.append((ax, [t for t, _ in named], [n for _, n in named]))
        note = _trend_fits(ax, d, ylim, fits.get(task), (loglinear or {}).get(task), (paper_halving or {}).get(task))
        _trend_axes(ax, ylim, f"{labels.get(task, task)}\n{note}")
    if families:
        for fam, color in palette.items():  # the release points' colours, once in the legend
            axes[0].scatter([], [], color=color, s=26, label=fam)
    _finish_panels(fig, axes[0] if shown else None, "Frontier cost-of-pass over model releases", simulated)
    place_labels(fig, labelled, shown_names(model_labels or {}))
    return fig


RANGE_DECADES = 1.5  # Figure 2's y axis reaches at most this many decades below the plug-in's lowest step


def _trend_ylim(drawn: list[np.ndarray], range_low: np.ndarray | None) -> tuple[float, float]:
    """A trend panel's y limits (%): what was measured (the plug-in's steps, ``drawn``), not where a fit
    heads; the range's lower edge (``range_low``) extends it by at most ``RANGE_DECADES`` (beyond, its band runs
    off the axis' foot: two decades more would squeeze the steps into a corner)."""
    values = np.concatenate(drawn)
    values = values[np.isfinite(values) & (values > 0)]
    if not values.size:
        return 1e-3, 1e3
    low = values.min() / 2
    below = np.asarray([] if range_low is None else range_low, float)
    below = below[np.isfinite(below) & (below > 0)]
    if below.size:
        low = min(low, max(below.min() / 1.3, values.min() / 10 ** RANGE_DECADES))
    return low, values.max() * 4


def _trend_curves(ax, d: pd.DataFrame, j: int, ranges) -> tuple[list[np.ndarray], np.ndarray | None]:
    """One panel's frontier steps (%, task column ``j`` of ``ranges``): the never-passed range (a band) and the
    plug-in step. Returns what was drawn of the plug-in (its steps) and the range's lower edge (None: no range)."""
    drawn, range_low = [d.normalized_pct.to_numpy(float)], None
    if ranges is not None and ranges.shape[1] == len(d):
        ax.fill_between(d.date, ranges[0, :, j], ranges[1, :, j], step="post", color=RANGE_COLOR, alpha=0.35, lw=0,
                        label=RANGE_LABEL, zorder=0)
        range_low = ranges[0, :, j]
    ax.step(d.date, d.normalized_pct, where="post", color="#333333", lw=1.3, label="plug-in (paper)")
    return drawn, range_low


def _release_points(ax, d: pd.DataFrame, palette: dict[str, str], families: dict[str, str],
                    model_labels: dict[str, str]) -> list:
    """Each release a point coloured by its family; a release that lowered the frontier by 10% or more is named
    (the labels are returned with the names each shows, to be placed by ``place_labels``)."""
    previous, named = np.inf, []
    for _, row in d.iterrows():
        names = row.released.split(", ")
        lowered = row.normalized_pct < previous * 0.9  # named, and drawn over a release of the same day that did not
        # lower it (Llama-3.1-405B's orange point hid the 8B's blue one that its label names)
        ax.scatter(row.date, row.normalized_pct, color=palette.get(families.get(names[0], ""), "#C44E52"),
                   zorder=3.5 if lowered else 3, s=26, edgecolor="white", linewidth=0.5)
        if lowered:
            shown = tuple(model_labels.get(m, m).replace(" (sim)", "") for m in names)
            named.append((ax.annotate(", ".join(shown), (row.date, row.normalized_pct), fontsize=SMALL, color="#333333",
                                      xytext=(5, 5), textcoords="offset points", arrowprops=LEADER), shown))
        previous = min(previous, row.normalized_pct)
    return named


def _trend_fits(ax, d: pd.DataFrame, ylim: tuple[float, float], fit: DecayFit | None, ll: LogLinearTrend | None,
                paper_months: float | None) -> str:
    """Eq. 11's fit and the log-linear trend, drawn only inside ``ylim`` (%); returns the panel's note (halving
    time with its interval or as unreliable, the paper's, the factor per year)."""
    grid = pd.date_range(d.date.min(), d.date.max(), periods=100)
    t = months_since(pd.Series(grid), d.date.min())
    def inside(v):
        return np.where((v >= ylim[0]) & (v <= ylim[1]), v, np.nan)
    if fit is not None and fit.identified and fit.reliable:  # a halving time only where its validity study holds
        ax.plot(grid, inside(fit.a * np.exp(-fit.b * t) + fit.c), color="#C44E52", ls="--", lw=1,
                label="fit a·exp(−bt)+c (Eq. 11)")
        note = f"T½ = {sig(fit.halving_months)} mo {fit.interval_text()}"
    else:
        note = "Eq. 11 not identifiable" if fit is None or not fit.identified else "T½ not shown: unreliable fit"
    if paper_months is not None:
        note += f"; paper {sig(paper_months)} mo"
    if ll is not None and np.isfinite(ll.factor_per_year) and loglinear_shown(ll.n_points)[0]:
        ax.plot(grid, inside(ll.values(t)), color="#8172B3", ls="-.", lw=1, label="log-linear trend")
        note += f"\nlog-linear: ÷{sig(ll.factor_per_year)} per year [{sig(ll.low)}, {sig(ll.high)}]"
    return note


class MonthOrDay(matplotlib.dates.DateFormatter):
    """Date ticks as ``YYYY-MM`` where every tick is a different month's first day, else as ``YYYY-MM-DD`` (a span of
    a few weeks puts two ticks in one month: ``2023-12, 2023-12`` said nothing)."""

    def __init__(self):
        super().__init__("%Y-%m-%d")

    def format_ticks(self, values):
        dates = matplotlib.dates.num2date(values)
        months = [d.strftime("%Y-%m") for d in dates]
        if all(d.day == 1 and d.hour == 0 for d in dates) and len(set(months)) == len(months):
            return months
        return [d.strftime("%Y-%m-%d") for d in dates]


SUPERSCRIPT = str.maketrans("0123456789-−+.", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁻⁺·")


def plain_number(label: str) -> str:
    """A number formatter's mathtext tick label as plain text: ``$\\mathdefault{3\\times10^{-2}}$`` -> ``3×10⁻²``
    (the figures parse no mathtext: ``STYLE``); anything else unchanged."""
    inner = re.fullmatch(r"\$\\mathdefault\{(.*)\}\$", label)
    if inner is None:
        return label
    text = inner.group(1).replace("\\times", "×").replace("-", "−")
    return re.sub(r"\^\{([^}]*)\}", lambda m: m.group(1).translate(SUPERSCRIPT), text)


class PlainNumbers(matplotlib.ticker.Formatter):
    """A log or symlog axis' own formatter (``inner``: which ticks get labels, and their values), its labels written
    as plain text (``plain_number``) instead of mathtext."""

    def __init__(self, inner: matplotlib.ticker.Formatter):
        self.inner = inner

    def set_axis(self, axis) -> None:
        super().set_axis(axis)
        self.inner.set_axis(axis)

    def set_locs(self, locs) -> None:
        self.inner.set_locs(locs)

    def __call__(self, x, pos=None) -> str:
        return plain_number(self.inner(x, pos))

    def format_ticks(self, values) -> list[str]:
        return [plain_number(label) for label in self.inner.format_ticks(values)]


def log_scale(ax, which: str, scale: str = "log", **kwargs) -> None:
    """Put ``ax``'s ``which`` ("x" or "y") axis on ``scale`` ("log", "symlog"), its tick labels plain text."""
    (ax.set_xscale if which == "x" else ax.set_yscale)(scale, **kwargs)
    axis = ax.xaxis if which == "x" else ax.yaxis
    axis.set_major_formatter(PlainNumbers(axis.get_major_formatter()))
    axis.set_minor_formatter(PlainNumbers(axis.get_minor_formatter()))


def _trend_axes(ax, ylim: tuple[float, float], title: str) -> None:
    """A trend panel's log y axis (%), dated x axis and two-line title."""
    log_scale(ax, "y")
    ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_ylim(*ylim)
    ax.set_title(title, fontsize=NORMAL)
    ax.set_ylabel("frontier / expert-only (%, log)", fontsize=SMALL)
    ax.xaxis.set_major_locator(matplotlib.dates.AutoDateLocator(maxticks=5))
    ax.xaxis.set_major_formatter(MonthOrDay())
    ax.tick_params(axis="x", rotation=30, labelsize=SMALL)
    ax.tick_params(axis="y", labelsize=SMALL)
    ax.margins(x=0.12)


@styled
def interval_bars(frame: pd.DataFrame, item: str, title: str, simulated: bool, colors: dict[str, str],
                  ylabel: str = "%", symlog: bool = False, legend: dict[str, str] | None = None):
    """One panel per dataset, a bar per ``item`` (in the frame's order) coloured by ``colors[item]``, with
    ``low``-``high`` whiskers where the frame has them (validated intervals only); ``frame`` columns: task (labels),
    ``item``, value, [low, high], [range_ci_low, range_ci_high]. The legend below the panels keys the whiskers (and
    the range where drawn); ``legend``: name -> colour (the families) adds the bars'."""
    tasks = list(dict.fromkeys(frame["task"]))
    items = list(dict.fromkeys(frame[item]))
    cols = min(3, len(tasks)) or 1
    rows = int(np.ceil(len(tasks) / cols)) or 1
    label_in = 0.075 * max((len(str(i)) for i in items), default=0)  # the shared item labels' width at SMALL text
    width = min(max(3.6 * cols, label_in + 3.0 * cols), REPORT_WIDTH_IN)  # a lone panel keeps room for its bars
    fig, axes = plt.subplots(rows, cols, figsize=(width, 0.24 * len(items) * rows + 1.6 * rows + 0.8),
                             squeeze=False, sharey=True, sharex=True)  # one x scale: panels compare at a glance
    for ax in axes.flat[len(tasks):]:
        ax.set_visible(False)
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
    _shared_x_once(axes, len(tasks), cols)
    fig.suptitle(titled(title, simulated), y=1.0)
    fig.tight_layout()
    from matplotlib.patches import Patch  # the legend below the panels (after the layout: it takes no panel's room)

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
    from matplotlib.lines import Line2D

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


# The routing estimators whose interval the validity study backs (``validity.CROSSFIT_ROUTING``): the plug-in and
# model-based oracles' replicates are a maximum over noisy options, their spread no interval that holds the truth.
ROUTING_BANDED = ("cross-fitted",)


@styled
def routing_frontier(envelope: pd.DataFrame, points: pd.DataFrame, look: Appearance):
    """The oracle-routing cost–accuracy frontier per dataset: accuracy (%) reachable at each budget (USD per
    problem, log axis) by each estimator with its band, every model alone (plug-in, coloured by family, with
    whiskers) and the human expert (star). ``envelope`` / ``points``: ``intervals.routing_frames``; panels in the
    set's order of datasets (``look``)."""
    task_labels, model_labels, colors, simulated, order = look.task_labels, look.labels, look.model_colors, \
        look.simulated, look.order
    present = list(dict.fromkeys(envelope["task"]))
    tasks = [t for t in (order or present) if t in present]
    fig, axes = _grid(len(tasks))
    styles = {"plug-in": ("#333333", "-", "plug-in oracle (paper's estimates; biased up)"),  # no family's colour:
              "model-based": ("#6A3D9A", "--", "model-based oracle"),  # the points are coloured by family
              "cross-fitted": ("#A6166B", "-.", "cross-fitted router (chosen on half the runs, valued on the other)")}
    labelled: list[tuple] = []
    for ax, task in zip(axes, tasks):
        texts = []
        for estimator, (color, ls, label) in styles.items():
            d = envelope[(envelope.task == task) & (envelope.estimator == estimator)]
            if d.empty:
                continue
            ax.plot(d.budget_usd, 100 * d.value, color=color, ls=ls, lw=1.3, label=label)
            if estimator in ROUTING_BANDED and d["low"].notna().any():
                ax.fill_between(d.budget_usd, 100 * d.low, 100 * d.high, color=color, alpha=0.15, lw=0,
                                label=f"{estimator} router's 95% interval")
        p = points[(points.task == task) & (points.estimator == "plug-in")]
        named = []  # each label's model (``place_labels`` numbers them where names would cross)
        for _, row in p.iterrows():
            name = model_labels.get(row.strategy, row.strategy)
            ax.errorbar(row.usd, 100 * row.accuracy, yerr=[[100 * max(row.accuracy - row.acc_low, 0)],
                                                            [100 * max(row.acc_high - row.accuracy, 0)]],
                        fmt="o", ms=4, color=colors.get(name, "#888888"), elinewidth=0.7, capsize=1.5)
            named.append((name.replace(" (sim)", ""),))
            texts.append(ax.annotate(named[-1][0], (row.usd, 100 * row.accuracy), fontsize=SMALL,
                                     xytext=(4, -4), textcoords="offset points", arrowprops=LEADER))
        e = points[(points.task == task) & (points.strategy == EXPERT)]
        ax.scatter(e.usd, 100 * e.accuracy, marker="*", s=90, color="black", zorder=4, label="human expert")
        if not labelled:  # the models' colours, once in the legend: by family; the points' whiskers
            for family, color in look.family_colors.items():
                ax.plot([], [], "o", ms=4, color=color, ls="", label=family)
            ax.errorbar([np.nan], [np.nan], yerr=[[0], [0]], fmt="none", ecolor="#666666", elinewidth=0.7, capsize=1.5,
                        label="a model's 95% interval")
        log_scale(ax, "x")
        ax.set_title(task_labels.get(task, task), fontsize=NORMAL)
        ax.set_xlabel("USD per problem", fontsize=SMALL)
        ax.set_ylabel("accuracy (%)", fontsize=SMALL)
        ax.tick_params(labelsize=SMALL)
        labelled.append((ax, texts, named))
    fig = _finish_panels(fig, axes[0] if tasks else None, "Cost–accuracy frontier of oracle routing", simulated, ncol=2)
    place_labels(fig, labelled, shown_names(model_labels))
    return fig


def shown_names(labels: dict[str, str]) -> list[str]:
    """The set's model labels as figures name points (without " (sim)"), in the set's order of models: the order
    ``place_labels`` numbers them in, the same in every figure of a set."""
    return [label.replace(" (sim)", "") for label in labels.values()]


def _strategy_points(ax, d: pd.DataFrame, cost: np.ndarray, acc: np.ndarray, labels: dict[str, str],
                     colors: dict[str, str], shown_methods: dict[str, str]) -> None:
    """One panel's strategies as points (USD, %) with both intervals: the model's colour, the method's marker
    (recorded in ``shown_methods`` for the legend); one errorbar call per (colour, marker): far fewer artists. Every
    panel's whiskers are drawn under every marker (HumanEval's LDB triangles hid under other points' whiskers)."""
    groups: dict[tuple[str, str], list[int]] = {}
    for k, strategy in enumerate(d.index):
        model, _, method = strategy.partition("+")
        method = method or "vanilla"
        shown_methods.setdefault(method, marker(method))
        groups.setdefault((colors.get(labels.get(model, model), "#888888"), marker(method)), []).append(k)
    c_lo, c_hi = d[("low", "cost_usd")].to_numpy(float), d[("high", "cost_usd")].to_numpy(float)
    a_lo, a_hi = 100 * d[("low", "accuracy")].to_numpy(float), 100 * d[("high", "accuracy")].to_numpy(float)
    for (color, mark), members in groups.items():
        ks = np.array(members)
        ax.errorbar(cost[ks], acc[ks], xerr=[np.maximum(cost[ks] - c_lo[ks], 0), np.maximum(c_hi[ks] - cost[ks], 0)],
                    yerr=[np.maximum(acc[ks] - a_lo[ks], 0), np.maximum(a_hi[ks] - acc[ks], 0)],
                    fmt="none", ecolor=color, elinewidth=0.6, capsize=1.5, alpha=0.9)
        ax.plot(cost[ks], acc[ks], ls="none", marker=mark, ms=5, color=color, alpha=0.9, zorder=2.5)


def cost_accuracy_data(points: pd.DataFrame, expert_usd: dict[str, float]) -> pd.DataFrame:
    """The cost–accuracy figure's data as published (``cost_accuracy.csv``): the strategies' rows (``points``) and the
    human expert's per dataset (strategy ``EXPERT``; accuracy 1, as the paper assumes, and cost its fee per problem in
    USD; low and high empty: an assumption has no interval), so the interactive chart draws the same star."""
    expert = pd.DataFrame([{"statistic": stat, "strategy": EXPERT, "task": task, "value": v,
                            "low": np.nan, "high": np.nan}
                           for task, usd in expert_usd.items() for stat, v in (("accuracy", 1.0), ("cost_usd", usd))])
    return pd.concat([points, expert], ignore_index=True) if not expert.empty else points


@styled
def cost_accuracy(points: pd.DataFrame, expert_usd: dict[str, float], look: Appearance):
    """Every strategy as a point — mean USD per attempt (log axis) against accuracy (%), each with its 95% interval
    where it has one (``intervals.accuracy_cost``: a strategy with runs of its own) — the Pareto frontier through the
    points no other beats on both, and the human expert (star, taken as always right), one panel per dataset, in the
    style of "AI Agents That Matter" Figure 1. ``points``:
    ``intervals.SetStatistics.accuracy_cost`` rows (statistic accuracy / cost_usd, strategy, task, value, low,
    high); ``look``: the set's labels, colours by family (the legend's too) and order of datasets."""
    task_labels, labels, colors, family_colors = look.task_labels, look.labels, look.model_colors, look.family_colors
    wide = points.pivot_table(index=["task", "strategy"], columns="statistic", values=["value", "low", "high"],
                              aggfunc="first")
    present = list(dict.fromkeys(points["task"]))
    tasks = [t for t in (look.order or present) if t in present]
    fig, axes = _grid(len(tasks), (3.7, 3.3))
    shown_methods: dict[str, str] = {}
    labelled = []
    for ax, task in zip(axes, tasks):
        d = wide.loc[task]
        cost, acc = d[("value", "cost_usd")].to_numpy(float), 100 * d[("value", "accuracy")].to_numpy(float)
        _strategy_points(ax, d, cost, acc, labels, colors, shown_methods)
        front = pareto(cost, acc)
        line_x, line_y = list(cost[front]), list(acc[front])
        if task in expert_usd and expert_usd[task] > line_x[-1]:  # the expert, always right, ends the frontier
            line_x.append(expert_usd[task])
            line_y.append(100.0)
        ax.step(line_x, line_y, where="post", color="#333333", lw=1.1, ls="--", label="Pareto frontier (plug-in means)")
        texts, named = [], []
        for k in front:  # the frontier's points are named (``place_labels``: numbered where names would cross)
            model, _, method = d.index[k].partition("+")
            named.append((labels.get(model, model).replace(" (sim)", ""),))  # numbered: the marker tells the method
            texts.append(ax.annotate(named[-1][0] + (f" · {names.method(method)}" if method else ""),
                                     (cost[k], acc[k]), fontsize=SMALL, xytext=(4, -4), textcoords="offset points",
                                     arrowprops=LEADER))
        labelled.append((ax, texts, named))
        if task in expert_usd:
            ax.scatter([expert_usd[task]], [100.0], marker="*", s=110, color="black", zorder=4, label="human expert")
        log_scale(ax, "x")
        ax.set_title(task_labels.get(task, task), fontsize=NORMAL)
        ax.set_xlabel("mean USD per attempt", fontsize=SMALL)
        ax.set_ylabel("accuracy (%)", fontsize=SMALL)
        ax.tick_params(labelsize=SMALL)
    if tasks:
        _strategy_keys(axes[0], family_colors or {}, shown_methods)
    fig = _finish_panels(fig, axes[0] if tasks else None, "Cost and accuracy of every strategy", look.simulated,
                         ncol=4 if len(tasks) >= 3 else 2)  # a lone panel's legend no wider than the panel
    place_labels(fig, labelled, shown_names(labels))
    return fig


def _strategy_keys(ax, family_colors: dict[str, str], shown_methods: dict[str, str]) -> None:
    """The cost-accuracy legend's entries, on ``ax``: each family's colour, each method's marker, hollow so it reads as
    a shape and not as a family's grey (methods sharing a marker, majority vote k=3 and 4, listed once) and the
    whiskers."""
    for family, color in family_colors.items():
        ax.plot([], [], "o", color=color, ls="", label=family)
    by_marker: dict[str, list[str]] = {}
    for method, mark in shown_methods.items():
        by_marker.setdefault(mark, []).append(names.method(method))
    for mark, words in by_marker.items():
        ax.plot([], [], mark, mfc="white", mec="#333333", mew=1.0, ls="", label=names.merged(words))
    ax.errorbar([np.nan], [np.nan], yerr=[[0], [0]], fmt="none", ecolor="#666666", elinewidth=0.6, capsize=1.5,
                label="95% interval")


MODEL_DASHES = ("-", (0, (6, 2)), (0, (1, 1.5)), (0, (6, 2, 1, 2)), (0, (3, 1)))  # models of one family, told apart


FEE_LINES = 8  # more models than this: those cheapest at some fee coloured, the others grey (a bundle of 25 colours
# in 9 families cannot be told apart)


def _next_dash(dashes: dict[str, set[int]], color: str) -> tuple | str:
    """A line's dash (``MODEL_DASHES``): the next of the panel's lines in turn, skipping those its colour has used."""
    mine = dashes.setdefault(color, set())
    k = sum(len(v) for v in dashes.values()) % len(MODEL_DASHES)
    while k in mine and len(mine) < len(MODEL_DASHES):
        k = (k + 1) % len(MODEL_DASHES)
    mine.add(k)
    return MODEL_DASHES[k]


@styled
def fee_curve(curve: pd.DataFrame, fees: dict[str, float], look: Appearance, frontier: str):
    """Table 1 and the frontier as the expert's fee varies (``costofpass.fee_curve``, lines already labelled): one
    panel per dataset, fee per problem (USD, log) against the value (USD per problem, log), one line per model in its
    family's colour and its own dash (the same in every panel), the frontier (``frontier``) a wide pale line under
    them; a vertical line at the fee the set uses (``fees``). With more than ``FEE_LINES`` models, only those that are
    the cheapest alone at some fee on a panel's dataset keep their colour there; the others are thin grey lines. The
    legend, under the panels, keys every line any panel draws."""
    task_labels, simulated = look.task_labels, look.simulated
    tasks = [t for t in look.order if t in set(curve["task"])]
    named = {t: _cheapest_somewhere(curve[curve["task"] == t], frontier) for t in tasks}
    styles = _line_styles([line for line in dict.fromkeys(curve["line"]) if any(line in n for n in named.values())],
                          look.model_colors)
    fig, axes = _grid(len(tasks))
    for ax, task in zip(axes, tasks):
        keyed = False  # the grey lines: keyed once per panel
        for line, g in curve[curve["task"] == task].groupby("line", sort=False):
            if line == frontier:  # wide and pale, under the models: a model that is the frontier shows through it
                ax.plot(g["fee_usd"], g["value"], color="black", lw=5.0, alpha=0.22, solid_capstyle="butt", label=line,
                        zorder=1.5)
            elif line in named[task]:
                ax.plot(g["fee_usd"], g["value"], lw=1.4, label=line, zorder=2, **styles[line])
            else:
                ax.plot(g["fee_usd"], g["value"], color="#BBBBBB", lw=0.8, zorder=1,
                        label=None if keyed else OTHER_MODELS)
                keyed = True
        ax.axvline(fees[task], color="#999999", lw=0.9, ls=":", label="the fee this set assumes")
        log_scale(ax, "x")
        log_scale(ax, "y")
        ax.set_xlabel("expert's fee per problem (USD)")
        ax.set_ylabel("USD per problem")
        ax.set_title(task_labels.get(task, task), fontsize=NORMAL + 1)
    if tasks:
        _key_every_line(axes[0], axes[: len(tasks)])
    return _finish_panels(fig, axes[0] if tasks else None, "What the expert's fee decides", simulated)


OTHER_MODELS = "every other model alone"
EXPERT_ALONE = "the expert alone"
EXPERT_LINE = "#8a4b00"  # the expert alone: a dashed line in its own colour


@styled
def headline_costs(rows: pd.DataFrame, expert: dict[str, float], look: Appearance, frontier: str):
    """The headline as a figure: per dataset (a panel each, in ``look.order``), the cost with up to k tries, then the
    expert (USD per problem, log axis) of ``frontier`` (black, on top) and of each model alone (its family's colour,
    the set's order of models), a dot at the value with its validated 95% interval, and a dashed line at the expert
    alone (``expert``: dataset id -> USD per problem). ``rows``: ``tables.policy_cost``'s numbers (``task``, ``model``
    as labels, ``policy_usd``, ``policy_low``, ``policy_high``); rows without a value are left out. Each panel has its
    own x scale: the datasets' costs differ by orders of magnitude."""
    tasks = [t for t in look.order if t in set(rows["task"])
             and rows.loc[rows["task"] == t, "policy_usd"].notna().any()]
    items = [frontier, *[m for m in dict.fromkeys(rows["model"]) if m != frontier]]
    colors = {**look.model_colors, frontier: "#111111"}
    cols = min(3, len(tasks)) or 1
    grid_rows = int(np.ceil(len(tasks) / cols)) or 1
    label_in = 0.075 * max((len(str(i)) for i in items), default=0)
    fig, axes = plt.subplots(grid_rows, cols, squeeze=False, sharey=True,
                             figsize=(min(max(3.6 * cols, label_in + 3.0 * cols), REPORT_WIDTH_IN),
                                      0.24 * len(items) * grid_rows + 1.6 * grid_rows + 0.8))
    for ax in axes.flat[len(tasks):]:
        ax.set_visible(False)
    for ax, task in zip(axes.flat, tasks):
        _headline_panel(ax, rows[rows["task"] == task].set_index("model").reindex(items),
                        colors, frontier, expert[task])
        ax.set_title(look.task_labels.get(task, task), fontsize=NORMAL)
    axes.flat[0].invert_yaxis()  # the frontier on top
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color="#222222", lw=0.9, marker="o", ms=4, mfc="#888888", mec="white",
                      label="value and 95% interval"),
               Line2D([], [], color=EXPERT_LINE, lw=1.0, ls="--", label=EXPERT_ALONE)]
    handles += [Line2D([], [], ls="none", marker="o", ms=5, color=c, label=f) for f, c in look.family_colors.items()]
    fig.suptitle(titled("Cost with up to k tries, then the expert (USD per problem)", look.simulated), y=1.0)
    fig.tight_layout()
    fig.legend(handles=handles, loc="upper center", ncol=min(len(handles), 5),
               bbox_to_anchor=(0.5, 0.0), fontsize=SMALL,
               frameon=False)
    return fig


def _headline_panel(ax, d: pd.DataFrame, colors: dict[str, str], frontier: str, expert_usd: float) -> None:
    """One dataset's panel of ``headline_costs``: ``d`` indexed by the items (model labels, the frontier's first)."""
    items = list(d.index)
    y, v = np.arange(len(items)), d["policy_usd"].to_numpy(float)
    low, high = d["policy_low"].to_numpy(float), d["policy_high"].to_numpy(float)
    shown = np.isfinite(v) & (v > 0)
    if not shown.any():
        no_data(ax, clear_ticks=False)  # shared y axis: clearing this panel's ticks would clear every panel's
        return
    floor = np.nanmin(np.r_[v[shown], high[np.isfinite(high) & (high > 0)]]) / 4
    low = np.where(np.isfinite(low) & (low > 0), low, floor)  # an interval reaching 0 runs off the log axis
    for i in np.flatnonzero(shown):
        ax.hlines(y[i], low[i], high[i] if np.isfinite(high[i]) else v[i], color="#222222", lw=0.9, zorder=2)
        ax.scatter(v[i], y[i], s=42 if items[i] == frontier else 26, marker="D" if items[i] == frontier else "o",
                   color=colors.get(items[i], "#888888"), edgecolor="white", lw=0.5, zorder=3)
    ax.axvline(expert_usd, color=EXPERT_LINE, lw=1.0, ls="--", zorder=1)
    ax.set_yticks(y, items, fontsize=SMALL)
    for label in ax.get_yticklabels()[:1]:  # the frontier's (a shared axis labels its first column only)
        label.set_fontweight("bold")
    usd_log_axis(ax, floor, max(np.nanmax(np.r_[high[np.isfinite(high)], v[shown]]), expert_usd) * 1.6)
    ax.set_xlabel("USD per problem", fontsize=SMALL)
    ax.tick_params(axis="x", labelsize=SMALL)


def usd_log_axis(ax, low: float, high: float) -> None:
    """``ax``'s x axis from ``low`` to ``high`` USD on a log scale, ticks as plain numbers (``sig``): 1, 2 and 5 of each
    decade over at most two decades (a narrow range would otherwise show one tick, or crowded minor labels), the
    decades alone over more."""
    ax.set_xscale("log")
    ax.set_xlim(low, high)
    subs = (1.0, 2.0, 5.0) if np.log10(high / low) <= 2 else (1.0,)
    ax.xaxis.set_major_locator(matplotlib.ticker.LogLocator(base=10, subs=subs, numticks=12))
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: sig(x)))
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def _line_styles(lines: list[str], colors: dict[str, str]) -> dict[str, dict]:
    """Each model line's colour (its family's) and dash (``MODEL_DASHES``): each its own in turn, never two alike in
    one colour (the SWE-bench panel hid GPT-5 mini under Claude 4.5 Opus and Gemini 3 Pro, all solid)."""
    dashes: dict[str, set[int]] = {}
    return {line: {"color": colors.get(line, "#888888"), "ls": _next_dash(dashes, colors.get(line, "#888888"))}
            for line in lines}


def _key_every_line(first, axes) -> None:
    """Proxies on ``first`` (whose handles the legend reads) for the labels other panels drew and ``first`` did not;
    each label once."""
    have = set(first.get_legend_handles_labels()[1])
    for ax in axes[1:]:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            if label not in have:
                have.add(label)
                proxy = first.plot([], [])[0]
                proxy.update_from(handle)
                proxy.set_label(label)


def _cheapest_somewhere(curve: pd.DataFrame, frontier: str) -> set[str]:
    """Every model line of ``curve`` when there are at most ``FEE_LINES``; else those that are the cheapest model
    alone at some fee on some dataset (ties of two: each; a fee where more tie, as every line does where the fee is
    next to nothing, names none)."""
    models = curve[curve["line"] != frontier]
    if models["line"].nunique() <= FEE_LINES:
        return set(models["line"])
    wide = models.pivot_table(index=["task", "fee_usd"], columns="line", values="value", aggfunc="first")
    least = wide.apply(lambda col: np.isclose(col, wide.min(axis=1), rtol=1e-6, atol=0))
    least = least[least.sum(axis=1) <= 2]
    return {line for line in wide.columns if least[line].any()}


@styled
def price_change(split: pd.DataFrame, task_labels: dict[str, str], simulated: bool, order: list[str]):
    """Change of the frontier between two dates per dataset (% of the first date's), split into its new-models and
    prices parts (Shapley): one horizontal bar per part, a diamond at the total, values printed."""
    d = split.set_index("task").loc[[t for t in order if t in set(split["task"])]]
    fig, ax = plt.subplots(figsize=(7.2, max(0.9 + 0.75 * len(d), 2.6)))  # one dataset: still room under the title
    y = np.arange(len(d))
    for k, (col, name, color) in enumerate((("new_models_pct", "new models", "#4C72B0"),
                                            ("prices_pct", "price changes", "#C44E52"))):
        vals = d[col].to_numpy(dtype=float)
        ax.barh(y + (k - 0.5) * 0.36, vals, height=0.34, color=color, label=name)
        for yi, v in zip(y + (k - 0.5) * 0.36, vals):
            if np.isfinite(v) and abs(v) >= 0.05:  # a zero bar gets no label
                # a minus sign, past the diamond
                ax.annotate(f"{'+' if v > 0 else ''}{sig(v)}%".replace("-", "−"), (v, yi),
                            xytext=(8 if v >= 0 else -8, 0),
                            textcoords="offset points", ha="left" if v >= 0 else "right", va="center", fontsize=SMALL)
    ax.scatter(d["change_pct"], y, marker="D", color="black", zorder=3, label="total change")
    ax.axvline(0, color="grey", lw=0.8)
    every = d[["new_models_pct", "prices_pct", "change_pct"]].to_numpy(float)
    lo, hi = min(np.nanmin(every, initial=0), 0), max(np.nanmax(every, initial=0), 0)
    pad = 0.22 * max(hi - lo, 1e-9)  # room for the value labels inside the axes
    ax.set_xlim(lo - (pad if lo < 0 else 0.05 * pad), hi + (pad if hi > 0 else 0.05 * pad))
    ax.set_yticks(y, [task_labels.get(t, t) for t in d.index])
    ax.invert_yaxis()
    start, end = split["start"].iloc[0], split["end"].iloc[0]
    ax.set_xlabel(f"change of the frontier cost-of-pass, {start} → {end} (% of {start}'s)")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, fontsize=SMALL, frameon=False)
    ax.set_title(titled("Where the frontier's change came from", simulated), pad=28)
    fig.tight_layout()
    return fig


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
