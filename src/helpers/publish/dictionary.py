"""The data behind a set's report: ``results/<set>/tables/index.html`` lists every CSV the pipeline wrote, each with
what it is (its catalog title) and a dictionary of its columns.

The columns' descriptions are ``report/text/columns.md``: one ``## <csv stem>`` per table, then one line per column,
``- `<column>`: <what it holds, with its unit>``; a table with one column per dataset describes them all in one line,
``- `(datasets)`: …``. The page is self-contained HTML (no script, no remote asset), every string escaped, links
relative, so it opens from disk and from any static host.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from pathlib import Path

import pandas as pd

from helpers.core.errors import CostOfPassError
from helpers.core.params import Params
from helpers.core.tasks import TASKS
from helpers.publish.text import text_dir

DATASETS = "(datasets)"
PAGE = "index.html"


@lru_cache(maxsize=1)
def columns() -> dict[str, dict[str, str]]:
    """CSV stem -> column -> its description, from ``report/text/columns.md``."""
    path = text_dir() / "columns.md"
    if not path.is_file():
        raise CostOfPassError(f"the data dictionary {path} is missing (report/text/ is part of the checkout)")
    out: dict[str, dict[str, str]] = {}
    stem = None
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("## "):
            stem = line[3:].strip()
            out[stem] = {}
        elif m := re.match(r"- `([^`]+)`: (.+)", line):
            if stem is None:
                raise CostOfPassError(f"{path} line {i}: a column before the first '## <table>' heading")
            out[stem][m.group(1)] = m.group(2).strip()
        elif line.startswith("  ") and stem is not None and out[stem]:  # a description continued on the next line
            last = next(reversed(out[stem]))
            out[stem][last] += " " + line.strip()
    return out


def describe(stem: str, column: str) -> str | None:
    """What ``column`` of ``<stem>.csv`` holds, or None if the dictionary does not say (a dataset id's column: the
    table's ``(datasets)`` line)."""
    table = columns().get(stem, {})
    if column in table:
        return table[column]
    return table.get(DATASETS) if column in TASKS else None


def undescribed(tables_path: Path) -> list[str]:
    """``<stem>.csv: <column>`` for every column of every CSV under ``tables_path`` the dictionary does not describe."""
    out = []
    for csv in sorted(tables_path.glob("*.csv")):
        out += [f"{csv.name}: {c}" for c in pd.read_csv(csv, nrows=0).columns if describe(csv.stem, str(c)) is None]
    return out


def dictionary_html(params: Params) -> str:
    """The page: one section per CSV (in the report's order, then the rest by name), its link, title and columns."""
    from helpers.publish.catalog import CATALOG

    files = {p.stem: p for p in params.tables_path.glob("*.csv")}
    order = [n for n in CATALOG if n in files] + sorted(set(files) - set(CATALOG))
    parts = []
    for stem in order:
        head = pd.read_csv(files[stem], nrows=0).columns
        title = CATALOG[stem].title() if stem in CATALOG else "Data drawn by a figure or used by a table of the report"
        rows = "".join(f"<tr><td><code>{html.escape(str(c))}</code></td>"
                       f"<td>{html.escape(describe(stem, str(c)) or 'not described')}</td></tr>" for c in head)
        parts.append(f'<section id="{html.escape(stem, quote=True)}"><h2><a href="{html.escape(stem, quote=True)}.csv">'
                     f"{html.escape(stem)}.csv</a></h2><p>{html.escape(title)}.</p>"
                     "<table><thead><tr><th>column</th><th>what it "
                     f"holds</th></tr></thead><tbody>{rows}</tbody></table></section>")
    name = html.escape(params.name)
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Data of {name}</title>'
            '<style>body{font:15px/1.5 system-ui,sans-serif;max-width:100ch;margin:1em auto;padding:0 1em}'
            "table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.2em "
            ".5em;vertical-align:top;text-align:left}</style></head><body>"
            '<p><a href="../../index.html">← All sets</a> · <a '
            f'href="../report/index.html">The report of {name}</a></p>'
            f"<h1>The data of {name}</h1><p>Every table and figure of the report, as the CSV the pipeline wrote (full "
            "precision; the report's tables round them), with what each column holds.</p>" + "".join(parts)
            + "</body></html>")


def write_dictionary(params: Params) -> Path:
    """Write ``results/<set>/tables/index.html`` (``dictionary_html``) and return its path."""
    out = params.tables_path / PAGE
    out.write_text(dictionary_html(params), encoding="utf-8")
    return out
