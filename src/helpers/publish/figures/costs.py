"""USD per problem of the frontier and of each model alone: the headline with its intervals (``headline_costs``)
and the values as the expert's fee varies (``fee_curve``)."""

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D

from helpers.publish.appearance import Appearance
from helpers.publish.figures.panels import finish_panels, item_grid, log_scale, no_data, panel_grid, usd_log_axis
from helpers.publish.figures.style import NORMAL, SMALL, styled, titled

EXPERT_ALONE = "the expert alone"
EXPERT_LINE = "#8a4b00"  # the expert alone: a dashed line in its own colour
OTHER_MODELS = "every other model alone"
MODEL_DASHES = ("-", (0, (6, 2)), (0, (1, 1.5)), (0, (6, 2, 1, 2)), (0, (3, 1)))  # models of one family, told apart
FEE_LINES = 8  # more models than this: those cheapest at some fee coloured, the others grey (a bundle of 25 colours
# in 9 families cannot be told apart)


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
    fig, axes = item_grid(len(tasks), items)
    for ax, task in zip(axes.flat, tasks):
        _headline_panel(ax, rows[rows["task"] == task].set_index("model").reindex(items),
                        colors, frontier, expert[task])
        ax.set_title(look.task_labels.get(task, task), fontsize=NORMAL)
    axes.flat[0].invert_yaxis()  # the frontier on top
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
    fig, axes = panel_grid(len(tasks))
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
    return finish_panels(fig, axes[0] if tasks else None, "What the expert's fee decides", simulated)


def _line_styles(lines: list[str], colors: dict[str, str]) -> dict[str, dict]:
    """Each model line's colour (its family's) and dash (``MODEL_DASHES``): each its own in turn, never two alike in
    one colour (the SWE-bench panel hid GPT-5 mini under Claude 4.5 Opus and Gemini 3 Pro, all solid)."""
    dashes: dict[str, set[int]] = {}
    return {line: {"color": colors.get(line, "#888888"), "ls": _next_dash(dashes, colors.get(line, "#888888"))}
            for line in lines}


def _next_dash(dashes: dict[str, set[int]], color: str) -> tuple | str:
    """A line's dash (``MODEL_DASHES``): the next of the panel's lines in turn, skipping those its colour has used."""
    mine = dashes.setdefault(color, set())
    k = sum(len(v) for v in dashes.values()) % len(MODEL_DASHES)
    while k in mine and len(mine) < len(MODEL_DASHES):
        k = (k + 1) % len(MODEL_DASHES)
    mine.add(k)
    return MODEL_DASHES[k]


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
