"""The README's result: one figure and two sentences computed from a set's results, never typed.

    python -m helpers.publish.readme [results/<set>]    # rewrite the README's block and copy its figure to docs/img/

The block sits between ``START`` and ``END`` in ``README.md``; ``tests/test_readme.py`` checks, after the README's
commands have run the set, that the block is exactly what this module writes from the results on disk.
"""

from __future__ import annotations

import html
import json
import shutil
import sys
from pathlib import Path

import pandas as pd

from helpers.core.paths import repo_root
from helpers.publish.formats import fmt_usd

START = "<!-- result: start (python -m helpers.publish.readme writes this block) -->"
END = "<!-- result: end -->"
SET = "swebench_bash_only"
FIGURE = "figure2_frontier_over_time"
IMAGE = "docs/img/result_figure2.png"


def _frontier_path(tables: Path) -> tuple[int, str, str, float, float]:
    """Figure 2's data of a one-dataset set: (releases, first date, last date, first and last frontier in USD)."""
    fig = pd.read_csv(tables / f"{FIGURE}.csv").dropna(subset=["date"])
    return len(fig), str(fig["date"].iloc[0]), str(fig["date"].iloc[-1]), float(fig["frontier_usd"].iloc[0]), \
        float(fig["frontier_usd"].iloc[-1])


def result_block(results: Path) -> str:
    """The block (Markdown, ``START`` to ``END``) from ``results`` (a set's folder): Figure 2 of its one dataset and
    two sentences quoting its findings table (what the paper's frontier is made of, each model alone)."""
    tables = results / "tables"
    label = next(iter(json.loads((tables / "run_context.json").read_text(encoding="utf-8"))["task_labels"].values()))
    found = pd.read_csv(tables / "findings.csv").iloc[0]
    n, first, last, start, end = _frontier_path(tables)
    paper = str(found["the paper's frontier (USD)"]).split(": ", 1)[-1]
    cheapest = str(found["cheapest single model (USD)"])
    cheapest = ("no model is the cheapest beyond doubt" if cheapest.startswith("none beyond doubt")
                else f"the cheapest beyond doubt is {cheapest}")
    return "\n".join([
        START,
        f'<img src="{IMAGE}" width="560" alt="The paper\'s Figure 2 on {html.escape(label)}: the frontier '
        'cost-of-pass over model releases">',
        "",
        f"On the SWE-bench bash-only leaderboard's real bills (imported: {n} models released {first} to {last}, one run "
        f"per issue), the paper's frontier cost-of-pass on {label} falls from {fmt_usd(start)} to {fmt_usd(end)} USD per issue as "
        "models arrive (the paper's Figure 2, above, in % of the expert alone). "
        f"That last value is {paper}: each model alone, then the expert, costs "
        f"{found['each model alone (USD)']}, and {cheapest}.",
        END])


def write(readme: Path, results: Path) -> None:
    """Rewrite the README's block from ``results`` and copy its figure to ``IMAGE``."""
    text = readme.read_text(encoding="utf-8")
    if START not in text or END not in text:
        raise SystemExit(f"{readme}: the markers of the result block are missing")
    before, rest = text.split(START, 1)
    readme.write_text(before + result_block(results) + rest.split(END, 1)[1], encoding="utf-8")
    image = readme.parent / IMAGE
    image.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(results / "figures" / f"{FIGURE}.png", image)


if __name__ == "__main__":
    write(repo_root() / "README.md", Path(sys.argv[1]) if len(sys.argv) > 1 else repo_root() / "results" / SET)
