"""Saving a report figure (``figures.style.save_figure``: the layout check, the PNG and the SVG) as it is, against
the same with the placeholder layout engine ``fig.tight_layout()`` leaves on the figure (what it did before), for
which matplotlib lays the figure out again before each file: CPU seconds per figure, side by side in one run.

    .venv/bin/python benchmarks/figure_save.py [FIGURES]     # default 20 per side, the sides alternating

The figure is synthetic but drawn the figures' own way: three panels (``panel_grid``) of six series of 20 points on a
log axis, one legend and a title (``finish_panels``). Printed: the median CPU seconds per figure of each side, their
ratio, and whether the two sides wrote the same PNG bytes.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("MPLBACKEND", "Agg")


def figure():
    """A three-panel figure laid out as the report's are."""
    import numpy as np

    from helpers.publish.figures import panels

    fig, axes = panels.panel_grid(3)
    rng = np.random.default_rng(0)
    for j, ax in enumerate(axes):
        for k in range(6):
            ax.plot(np.arange(20), 1 + rng.random(20).cumsum(), marker="o", label=f"model {k}")
        panels.log_scale(ax, "y")
        ax.set(title=f"dataset {j}", xlabel="release", ylabel="USD")
    return panels.finish_panels(fig, axes[0], "A synthetic figure", simulated=True)


def save(before: bool, out: Path) -> tuple[float, bytes]:
    """(CPU seconds, PNG bytes) of drawing and saving one figure; ``before``: keep tight_layout's placeholder engine."""
    import matplotlib.pyplot as plt

    from helpers.publish.figures import style

    start = time.process_time()
    fig = figure()
    if before:
        fig.set_layout_engine = lambda *args, **kwargs: None  # save_figure's call leaves the placeholder in place
    png, _ = style.save_figure(fig, "bench", out)
    plt.close(fig)
    return time.process_time() - start, png.read_bytes()


def main(n: int) -> None:
    seen: dict[bool, list[float]] = {True: [], False: []}
    pngs: dict[bool, bytes] = {}
    with tempfile.TemporaryDirectory() as tmp:
        save(False, Path(tmp))  # warm: imports, fonts
        for _ in range(n):
            for before in (True, False):
                cpu, pngs[before] = save(before, Path(tmp) / str(before))
                seen[before].append(cpu)
    now, old = statistics.median(seen[False]), statistics.median(seen[True])
    print(f"a three-panel figure drawn and saved (layout check, PNG, SVG), {n} per side; median CPU s per figure")
    print(f"{'with tight_layout placeholder (before)':<42} {old:>8.3f}")
    print(f"{'without it (save_figure now)':<42} {now:>8.3f}")
    print(f"now / before: x{now / old:.2f}; PNG bytes identical: {pngs[True] == pngs[False]}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
