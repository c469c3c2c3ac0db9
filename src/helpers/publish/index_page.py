"""The index page of a results directory: one line per parameter set whose report exists.

``results/index.html`` links ``results/<set>/report/index.html`` for each set, with its description,
whether it is simulated, its record count and when its report was written. Self-contained HTML
(no script, no remote asset), so it opens from disk.
"""

from __future__ import annotations

import html
import os
import time
from dataclasses import dataclass
from pathlib import Path

from helpers.core.params import Params


@dataclass(frozen=True)
class SetEntry:
    name: str
    description: str
    simulated: bool
    report: Path  # results/<set>/report/index.html
    records: int  # record lines in results/<set>/records
    rendered: str  # UTC time the report was written, YYYY-MM-DD HH:MM


def set_entry(params: Params, simulated: bool) -> SetEntry | None:
    """The index line of a set, or ``None`` when its report has not been rendered."""
    report = params.output_path / "report" / "index.html"
    if not report.is_file():
        return None
    records = sum(_lines(p) for p in sorted(params.records_path.glob("*/*.jsonl")))
    rendered = time.strftime("%Y-%m-%d %H:%M", time.gmtime(report.stat().st_mtime))
    return SetEntry(params.name, params.description or "", simulated, report, records, rendered)


def _lines(path: Path) -> int:
    with path.open("rb") as fh:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 20), b""))


def index_html(entries: list[SetEntry], root: Path) -> str:
    """The page: a table with a link per set (relative to ``root``, where the page is written)."""
    rows = "\n".join(
        f"<tr><td><a href=\"{html.escape(Path(os.path.relpath(e.report, root)).as_posix())}\">{html.escape(e.name)}</a></td>"
        f"<td>{'<strong>SIMULATED</strong> · ' if e.simulated else ''}{html.escape(e.description)}</td>"
        f"<td class=\"n\">{e.records:,}</td><td>{e.rendered} UTC</td></tr>"
        for e in entries
    )
    body = (f"<table><thead><tr><th>set</th><th>what it is</th><th>records</th><th>report written</th></tr></thead>"
            f"<tbody>\n{rows}\n</tbody></table>") if entries else "<p>No report has been rendered yet.</p>"
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Cost-of-Pass reports</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #222; }}
table {{ border-collapse: collapse; width: 100%; }} th, td {{ text-align: left; padding: .4rem .6rem; border-bottom: 1px solid #ddd; }}
td.n {{ text-align: right; font-variant-numeric: tabular-nums; }} td:last-child {{ white-space: nowrap; }}
</style></head><body>
<h1>Cost-of-Pass reports</h1>
<p>An economic evaluation of language models after Erol et al., <em>Cost-of-Pass</em> (arXiv 2504.13359):
the expected USD to obtain one correct answer, per model and on the frontier of models and a human expert.
Each report below was rendered by <code>cost-of-pass</code> from the records of its parameter set.</p>
{body}
</body></html>
"""


def write_index(results_dir: Path, entries: list[SetEntry]) -> Path:
    """Write ``<results_dir>/index.html`` and return its path."""
    results_dir.mkdir(parents=True, exist_ok=True)
    out = results_dir / "index.html"
    out.write_text(index_html(entries, results_dir), encoding="utf-8")
    return out
