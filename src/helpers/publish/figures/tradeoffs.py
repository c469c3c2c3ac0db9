"""Accuracy against cost: the oracle-routing frontier (``routing_frontier``) and every strategy with the Pareto
frontier through them (``cost_accuracy``; its data as published, ``cost_accuracy_data``)."""

import numpy as np
import pandas as pd

from helpers.analyze.costofpass import pareto
from helpers.analyze.intervals import EXPERT
from helpers.publish import names
from helpers.publish.appearance import Appearance, marker
from helpers.publish.figures.panels import finish_panels, log_scale, panel_grid, shown_names
from helpers.publish.figures.style import LEADER, NORMAL, SMALL, styled
from helpers.publish.placement import place_labels

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
    fig, axes = panel_grid(len(tasks))
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
    fig = finish_panels(fig, axes[0] if tasks else None, "Cost–accuracy frontier of oracle routing", simulated, ncol=2)
    place_labels(fig, labelled, shown_names(model_labels))
    return fig


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
    fig, axes = panel_grid(len(tasks), (3.7, 3.3))
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
    fig = finish_panels(fig, axes[0] if tasks else None, "Cost and accuracy of every strategy", look.simulated,
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
