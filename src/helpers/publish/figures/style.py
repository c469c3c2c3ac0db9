"""How every figure looks and is saved: the style (``styled``), sizes and shared marks, titles, and saving with the
layout check (``save_figure``, ``layout_problems``)."""

import functools
import json
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import matplotlib.text
import seaborn as sns
from cycler import cycler

from helpers.publish.placement import labels_over_marks, leaders_tangled, text_box

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
