"""The frontier over time: over model releases with its fitted decay (Figure 2, ``figure2_trends``), and its change
between two dates split into new models and price changes (``price_change``)."""

import matplotlib.dates
import matplotlib.pyplot as plt
import matplotlib.ticker
import numpy as np
import pandas as pd

from helpers.analyze.trends import DecayFit, LogLinearTrend, loglinear_shown, months_since
from helpers.core.numbers import sig
from helpers.publish.appearance import Appearance
from helpers.publish.figures.panels import MonthOrDay, finish_panels, log_scale, no_data, panel_grid, shown_names
from helpers.publish.figures.style import LEADER, NORMAL, RANGE_COLOR, RANGE_LABEL, SMALL, styled, titled
from helpers.publish.placement import place_labels


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
    fig, axes = panel_grid(len(shown))
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
    finish_panels(fig, axes[0] if shown else None, "Frontier cost-of-pass over model releases", simulated)
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
