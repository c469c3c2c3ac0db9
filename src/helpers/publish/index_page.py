"""The site of a results directory: one line per parameter set whose report exists, rebuilt from disk.

Each run writes its set's card, ``results/<set>/set.json`` (name, parameter file, a digest of the
parameters, kind — real / imported / simulated —, models, description). ``results/index.html`` lists
every folder beside it with a card and a rendered report, so running one set never drops another.
The card also keeps two parameter files with the same ``name`` from overwriting each other's results.
Self-contained HTML (no script, no remote asset), so it opens from disk.
"""

from __future__ import annotations

import hashlib
import html
import json
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path

from helpers.core.errors import CostOfPassError
from helpers.core.paths import shown
from helpers.grade.stage import write_json

log = logging.getLogger(__name__)
CARD = "set.json"
KIND_TEXT = {"real": "real (models called here)", "committed": "real (recorded here earlier; committed)",
             "imported": "imported records", "simulated": "SIMULATED"}


@dataclass(frozen=True)
class SetEntry:
    name: str
    kind: str  # real / committed (real, recorded earlier and committed) / imported / simulated
    models: list[str]  # display labels
    description: str
    report: Path  # results/<set>/report/index.html
    records: int  # record lines in results/<set>/records
    rendered: str  # UTC time the report was written, YYYY-MM-DD HH:MM
    source: str = ""  # an imported set's source, with its licence


def set_kind(ctx) -> str:
    """``simulated`` if any model is simulated, ``imported`` if the set imports its records, else ``real``."""
    return "simulated" if ctx.simulated else "imported" if ctx.params.import_from is not None else "real"


def params_digest(params) -> str:
    """sha256 of the validated parameters (what the file says, not how it is written)."""
    return hashlib.sha256(params.model_dump_json().encode()).hexdigest()


def committed(folder: Path) -> bool:
    """Whether ``folder`` holds record files the checkout's git history tracks (records made here earlier and
    committed, such as the ``local`` set's)."""
    import subprocess

    from helpers.core.paths import repo_root

    if not folder.is_dir() or not folder.resolve().is_relative_to(repo_root().resolve()):
        return False
    try:
        out = subprocess.run(["git", "ls-files", "--", str(folder.resolve())], cwd=repo_root(), capture_output=True,
                             text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and bool(out.stdout.strip())


def card_of(ctx, params_path: Path) -> dict:
    from helpers.collect.imports import source_name

    params = ctx.params
    return {"name": params.name, "params": str(shown(Path(params_path).resolve())), "digest": params_digest(params),
            "kind": set_kind(ctx), "models": [m.label for m in ctx.models], "description": params.description or "",
            "records_dir": os.path.relpath(params.records_path, params.output_path),  # a repriced set reads another's
            "committed": committed(params.records_path),
            **({"source": source_name(params, long=True)} if params.import_from is not None else {})}


def claim(ctx, params_path: Path, overwrite: bool = False) -> Path:
    """Write the set's card before its first stage; refuse (one line) a folder another parameter set wrote.

    The folder is another set's when its card names another parameter file *and* other parameters;
    ``overwrite`` takes it over. Returns the card's path.
    """
    mine = check_claim(ctx, params_path, overwrite)
    card = ctx.params.output_path / CARD
    card.parent.mkdir(parents=True, exist_ok=True)
    write_json(card, mine)
    return card


def check_claim(ctx, params_path: Path, overwrite: bool = False) -> dict:
    """``claim``'s refusal without its writing (a dry run refuses what the run would): the set's card, or one line
    when its folder is another parameter set's."""
    mine = card_of(ctx, params_path)
    card = ctx.params.output_path / CARD
    old = read_card(card)
    if old and not overwrite and old.get("params") != mine["params"] and old.get("digest") != mine["digest"]:
        raise CostOfPassError(
            f"{ctx.params.source}: field 'name': '{mine['name']}' is already the name of {old.get('params')}, whose "
            f"results are in {shown(card.parent)}; give this set another name, or pass --overwrite to replace them")
    return mine


def read_card(path: Path, warn: bool = False) -> dict:
    """A set's card, or ``{}`` when there is none or it is not one (a JSON object whose ``name``, ``kind`` and
    ``description`` are text and ``models`` a list of text); with ``warn``, a malformed card is one warning line."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        data = exc
    fields_ok = isinstance(data, dict) and all(isinstance(data.get(k, ""), str)
                                               for k in ("name", "kind", "description")) \
        and isinstance(data.get("models", []), list) and all(isinstance(m, str) for m in data.get("models", []))
    if not fields_ok:
        if warn:
            log.warning("skipped %s: not a set card (%s)", path, type(data).__name__ if not isinstance(data, Exception)
                        else f"{type(data).__name__}")
        return {}
    return data


def set_entries(results_dir: Path) -> list[SetEntry]:
    """Every set under ``results_dir`` with a card and a rendered report, by name."""
    entries = []
    for card in sorted(results_dir.glob(f"*/{CARD}")):
        report, data = card.parent / "report" / "index.html", read_card(card, warn=True)
        if not report.is_file() or not data:
            continue
        records_dir = (card.parent / str(data.get("records_dir", "records"))).resolve()  # a repriced set: another's
        records = sum(_lines(p) for p in sorted(records_dir.glob("*/*.jsonl")))
        rendered = time.strftime("%Y-%m-%d %H:%M", time.gmtime(report.stat().st_mtime))
        kind = str(data.get("kind", "real"))
        kind = "committed" if kind == "real" and data.get("committed") else kind
        entries.append(SetEntry(str(data.get("name", card.parent.name)), kind,
                                [str(m) for m in data.get("models", [])], str(data.get("description", "")),
                                report, records, rendered, str(data.get("source", ""))))
    return entries


def _lines(path: Path) -> int:
    with path.open("rb") as fh:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 20), b""))


def _models(models: list[str]) -> str:
    shown_models = ", ".join(models[:6]) + (f" and {len(models) - 6} more" if len(models) > 6 else "")
    return html.escape(shown_models)


def _data_link(entry: SetEntry, root: Path) -> str:
    """Links to the set's data dictionary (``dictionary.write_dictionary``) and its explorer (``explorer``), where
    they were written."""
    links = [(entry.report.parent.parent / "tables" / "index.html", "data (CSV)"),
             (entry.report.parent.parent / "explorer" / "index.html", "every problem")]
    shown_links = [f'<a href="{html.escape(Path(os.path.relpath(p, root)).as_posix())}">{text}</a>'
                   for p, text in links if p.is_file()]
    return f"<br><small>{' · '.join(shown_links)}</small>" if shown_links else ""


def index_html(entries: list[SetEntry], root: Path) -> str:
    """The page: a table with a link per set (relative to ``root``, where the page is written)."""
    rows = "\n".join(
        f"<tr><td><a href=\"{html.escape(Path(os.path.relpath(e.report, root)).as_posix())}\">{html.escape(e.name)}</a>"
        f"{_data_link(e, root)}</td>"
        f"<td class=\"{html.escape(e.kind)}\">{html.escape(KIND_TEXT.get(e.kind, e.kind))}"
        f"{'<br><small>' + html.escape(e.source) + '</small>' if e.source else ''}</td>"
        f"<td>{_models(e.models)}</td><td>{html.escape(e.description)}</td>"
        f"<td class=\"n\">{e.records:,}</td><td>{e.rendered} UTC</td></tr>"
        for e in entries
    )
    body = (f"<table><thead><tr><th>set</th><th>kind</th><th>models</th><th>what it is</th><th>records</th>"
            f"<th>report written</th></tr></thead><tbody>\n{rows}\n</tbody></table>"
            ) if entries else "<p>No report has been rendered yet.</p>"
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Cost-of-Pass reports</title>
<style>
body {{ font-family: system-ui, sans-serif; font-size: 16px; max-width: 72rem; margin: 2rem auto; \
padding: 0 1rem; color: #222; }}
table {{ border-collapse: collapse; width: 100%; }} \
th, td {{ text-align: left; padding: .4rem .6rem; border-bottom: 1px solid #ddd; vertical-align: top; }}
td.n {{ text-align: right; font-variant-numeric: tabular-nums; }} td:last-child {{ white-space: nowrap; }}
td.simulated {{ font-weight: 600; color: #8a4b00; }}
</style></head><body>
<h1>Cost-of-Pass reports</h1>
<p>An economic evaluation of language models after Erol et al., <em>Cost-of-Pass</em> (arXiv 2504.13359):
the expected USD to obtain one correct answer, per model and on the frontier of models and a human expert.
Each report below was rendered by <code>cost-of-pass</code> from the records of its parameter set.
<em>Real</em>: models called by this project; <em>imported</em>: records others made and published;
<em>simulated</em>: drawn from a model of the paper's numbers, not from any language model.</p>
{body}
</body></html>
"""


def write_index(results_dir: Path) -> Path:
    """Rebuild ``<results_dir>/index.html`` from the sets on disk and return its path: under a lock
    (``.index.lock``; runs of two sets finishing together wait for each other), through a temporary file of its own,
    so a reader never sees half a page and no run overwrites another's temporary file."""
    import tempfile

    from filelock import FileLock

    results_dir.mkdir(parents=True, exist_ok=True)
    out = results_dir / "index.html"
    with FileLock(results_dir / ".index.lock", timeout=120):
        fd, tmp = tempfile.mkstemp(prefix=".index.", suffix=".tmp", dir=results_dir)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(index_html(set_entries(results_dir), results_dir))
            os.chmod(tmp, 0o644)
            os.replace(tmp, out)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    return out
