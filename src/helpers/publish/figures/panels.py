"""Panels and their axes, shared by the figures: grids of panels, the legend under them, an empty panel, log scales
with plain tick labels, date ticks and the names points are labelled with."""

import re

import matplotlib.dates
import matplotlib.pyplot as plt
import matplotlib.text
import matplotlib.ticker
import numpy as np

from helpers.core.numbers import sig
from helpers.publish.figures.style import NORMAL, REPORT_WIDTH_IN, SMALL, TITLE, titled


def no_data(ax, what: str = "no data", clear_ticks: bool = True) -> None:
    """An empty panel says so, instead of showing bare axes (``clear_ticks``: False where the axes are shared)."""
    ax.text(0.5, 0.5, what, transform=ax.transAxes, ha="center", va="center", fontsize=NORMAL, color="#666666")
    if clear_ticks:
        ax.set_xticks([])
        ax.set_yticks([])


def panel_grid(n: int, size: tuple[float, float] = (3.7, 3.1), single: tuple[float, float] = (6.4, 4.8)):
    """Up to three panels a row, each ``size`` (inches); a lone panel ``single``, room for its labels."""
    size = single if n == 1 else size
    cols = min(3, n)
    rows = int(np.ceil(n / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(size[0] * cols, size[1] * rows), squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, axes.flat


def item_grid(panels: int, items: list, **shared):
    """Up to three panels a row sharing one y axis of ``items`` (labels at ``SMALL`` text), a row of height per item;
    the spare panels hidden. Returns the figure and its axes (rows, cols); ``shared``: more of ``plt.subplots``'."""
    cols = min(3, panels) or 1
    rows = int(np.ceil(panels / cols)) or 1
    label_in = 0.075 * max((len(str(i)) for i in items), default=0)  # the shared item labels' width at SMALL text
    width = min(max(3.6 * cols, label_in + 3.0 * cols), REPORT_WIDTH_IN)  # a lone panel keeps room for its bars
    fig, axes = plt.subplots(rows, cols, figsize=(width, 0.24 * len(items) * rows + 1.6 * rows + 0.8),
                             squeeze=False, sharey=True, **shared)
    for ax in axes.flat[panels:]:
        ax.set_visible(False)
    return fig, axes


def finish_panels(fig, first_ax, title: str, simulated: bool, ncol: int | None = None):
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


def shown_names(labels: dict[str, str]) -> list[str]:
    """The set's model labels as figures name points (without " (sim)"), in the set's order of models: the order
    ``place_labels`` numbers them in, the same in every figure of a set."""
    return [label.replace(" (sim)", "") for label in labels.values()]


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
