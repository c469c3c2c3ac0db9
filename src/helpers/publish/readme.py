"""The README's result: one figure and three sentences computed from a set's results, never typed.

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

START = "<!-- result: start (python -m helpers.publish.readme writes this block) -->"
END = "<!-- result: end -->"
SET = "swebench_bash_only"
FIGURE = "headline_costs"
IMAGE = "docs/img/result_headline.png"
RELEASES = "figure2_frontier_over_time"  # the models and their release span


def _releases(tables: Path) -> tuple[int, str, str]:
    """The release steps of a one-dataset set's Figure 2 data: (how many, first date, last date)."""
    fig = pd.read_csv(tables / f"{RELEASES}.csv").dropna(subset=["date"])
    return len(fig), str(fig["date"].iloc[0]), str(fig["date"].iloc[-1])


def result_block(results: Path) -> str:
    """The block (Markdown, ``START`` to ``END``) from ``results`` (a set's folder): the headline drawn (the figure
    the report's first screen shows) and two sentences quoting its findings table: the frontier of all models and
    each model alone under "up to k tries, then the expert", whether a model is the cheapest beyond doubt, and the
    paper's frontier beside them, labelled as the paper's."""
    tables = results / "tables"
    label = next(iter(json.loads((tables / "run_context.json").read_text(encoding="utf-8"))["task_labels"].values()))
    found = pd.read_csv(tables / "findings.csv").iloc[0]
    n, first, last = _releases(tables)
    cheapest, paper = str(found["cheapest single model (USD)"]), str(found["the paper's frontier (USD)"])
    cheapest = ("no model is the cheapest beyond doubt" if cheapest.startswith("none beyond doubt")
                else f"the cheapest beyond doubt is {cheapest}")
    return "\n".join([
        START,
        f'<img src="{IMAGE}" width="560" alt="On {html.escape(label)}: the cost with one try, then the expert, of '
        'the frontier of all models and of each model alone, with 95% intervals">',
        "",
        f"On the SWE-bench bash-only leaderboard's real bills (imported: {n} release dates from {first} to {last}, one "
        f"run per issue), choosing the model for each issue of {label} on the other issues and letting the human "
        f"expert take what it fails costs {found['frontier of all models (USD)']} (USD per issue). "
        f"Each model alone, then the expert, costs {found['each model alone (USD)']}, and {cheapest}. The paper's "
        f"frontier, each issue's cheapest model picked on the very runs it is read on, reads "
        f"{paper}.",
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
