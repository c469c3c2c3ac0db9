"""The paper's figures (matplotlib/seaborn), saved as PNG + SVG under results/<set>/figures/."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402

from helpers.analyze.trends import DecayFit, months_since  # noqa: E402

sns.set_theme(style="whitegrid", context="paper", font_scale=1.05)
matplotlib.rcParams["svg.hashsalt"] = "cost-of-pass"  # stable clip-path ids: same records, same SVG bytes
FAMILY_COLORS = {"lightweight": "#4C72B0", "large": "#DD8452", "reasoning": "#55A868"}


def family_palette(families: list[str]) -> dict[str, str]:
    """The paper's three families keep their colours; any other family (a fork's) gets the next ones."""
    spare = iter(c for c in sns.color_palette("colorblind", 10).as_hex() if c not in FAMILY_COLORS.values())
    return {f: FAMILY_COLORS.get(f) or next(spare) for f in families}


def titled(title: str, simulated: bool) -> str:
    return f"{title} — SIMULATED" if simulated else title


def save_figure(fig, name: str, out_dir: Path) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    png, svg = out_dir / f"{name}.png", out_dir / f"{name}.svg"
    fig.savefig(png, dpi=150, bbox_inches="tight", metadata={"Software": None})
    fig.savefig(svg, bbox_inches="tight", metadata={"Date": None, "Creator": None})  # no timestamp or version
    return png, svg


def _grid(n: int):
    cols = min(3, n)
    rows = int(np.ceil(n / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.4 * rows), squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, axes.flat


def figure2_trends(trend: pd.DataFrame, fits: dict[str, DecayFit], labels: dict[str, str], simulated: bool):
    """Frontier V(M_t) per task over release dates, normalised by the expert-only frontier (%), with the fit."""
    tasks = list(dict.fromkeys(trend["task"]))
    fig, axes = _grid(len(tasks))
    for ax, task in zip(axes, tasks):
        d = trend[(trend.task == task) & trend.date.notna()].sort_values("date")
        ax.step(d.date, d.normalized_pct, where="post", color="#333333", lw=1.2)
        ax.scatter(d.date, d.normalized_pct, color="#C44E52", zorder=3, s=18)
        fit = fits.get(task)
        if fit is not None and fit.identified:
            start = d.date.min()
            grid = pd.date_range(start, d.date.max(), periods=100)
            t = months_since(pd.Series(grid), start)
            ax.plot(grid, fit.a * np.exp(-fit.b * t) + fit.c, color="#C44E52", ls="--", lw=1)
            note = f"T½ = {fit.halving_months:.1f} ± {fit.halving_se:.1f} mo"
        else:
            note = "fit not identifiable"
        ax.set_title(f"{labels.get(task, task)}\n{note}", fontsize=9)
        ax.set_ylabel("frontier / expert-only (%)")
        ax.tick_params(axis="x", rotation=30, labelsize=7)
    fig.suptitle(titled("Figure 2. Frontier cost-of-pass over model releases", simulated), y=1.02)
    fig.tight_layout()
    return fig


def heatmap(values: pd.DataFrame, title: str, simulated: bool, fmt: str = ".1f", cbar: str = "%"):
    """A models-by-tasks (or releases-by-tasks) heatmap of percentages."""
    fig, ax = plt.subplots(figsize=(1.3 * values.shape[1] + 3, 0.42 * values.shape[0] + 1.6))
    sns.heatmap(values.astype(float), annot=True, fmt=fmt, cmap="rocket_r", cbar_kws={"label": cbar}, ax=ax,
                linewidths=0.5, annot_kws={"fontsize": 8})
    ax.set_title(titled(title, simulated))
    ax.set_xlabel("")
    ax.set_ylabel("")
    ax.tick_params(axis="x", rotation=25)
    plt.setp(ax.get_xticklabels(), ha="right")
    fig.tight_layout()
    return fig


def figure3_families(values: pd.DataFrame, simulated: bool):
    """Grouped bars: essentialness (%) of each family (hue) per task (x)."""
    long = values.rename_axis("task").reset_index().melt(id_vars="task", var_name="family", value_name="pct")
    fig, ax = plt.subplots(figsize=(9, 3.8))
    sns.barplot(long, x="task", y="pct", hue="family", palette=family_palette(list(values.columns)), ax=ax)
    ax.set_ylabel("relative improvement (%)")
    ax.set_xlabel("")
    ax.set_title(titled("Figure 3. Essentialness of model families (counterfactual)", simulated))
    fig.tight_layout()
    return fig


def release_gains(trend: pd.DataFrame, labels: dict[str, str]) -> pd.DataFrame:
    """Relative gain (%) of each release step (rows: date and models) per task (columns)."""
    d = trend[trend["date"].notna()].copy()
    d["release"] = [f"{dt:%Y-%m-%d} {', '.join(labels.get(m, m) for m in r.split(', '))}" for dt, r in zip(d.date, d.released)]
    out = d.pivot_table(index="release", columns="task", values="relative_gain", sort=False) * 100
    return out[list(dict.fromkeys(d.task))]
