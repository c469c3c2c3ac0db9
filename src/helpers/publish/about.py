"""The report's "About this run" box: a set's provenance, stated once (captions say only what they show)."""

from __future__ import annotations

import json
import subprocess

from helpers.analyze.estimates import Analysis
from helpers.core.paths import repo_root
from helpers.grade.stage import graded_paths


def code_version() -> str:
    """The checkout's commit (short hash), or the package version where git or the history is missing."""
    from helpers import __version__

    try:
        out = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=repo_root(), capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return f"helpers {__version__} (no git)"
    return f"commit {out.stdout.strip()}" if out.returncode == 0 else f"helpers {__version__} (no git history)"


def about_run(an: Analysis) -> str:
    """Markdown: set, whether simulated, datasets with their problem counts, models by family, runs, methods,
    prices, the expert, the extraction rule, data caveats, the code version and the graded records' counts and
    fingerprint digest."""
    ctx, p = an.ctx, an.ctx.params
    snap = ctx.snapshot
    n = {t: len(v) for t, v in ctx.problems.items()}
    families: dict[str, list[str]] = {}
    for m in an.models:
        families.setdefault(an.families[m], []).append(an.labels[m])
    manifest_path = graded_paths(ctx)["manifest"]
    manifest = json.loads(manifest_path.read_text()) if manifest_path.is_file() else {}
    counts, records = manifest.get("counts", {}), manifest.get("records", {})
    rows = [
        ("set", f"`{p.name}`: {p.description}" if p.description else f"`{p.name}`"),
        ("models", "**SIMULATED** (not real language models)" if an.simulated else "real language models"),
        ("datasets", ", ".join(f"{an.task_labels[t]} ({n[t]} problems)" for t in an.tasks)),
        ("models by family", "; ".join(f"{fam}: {', '.join(names)}" for fam, names in families.items())),
        ("runs", f"{p.n_runs} per model, method and problem; methods: {', '.join(p.methods)}"),
        ("prices", f"snapshot `{snap.name}` of {snap.date} ({snap.source})"),
        ("human expert", f"{p.expert_bound} bound of the expert's cost ({p.fidelity.expert_cost} rule)"),
        ("answer extraction", f"`{p.extraction}`"),
        ("data caveats", " ".join(ctx.caveats) or "none"),
        ("code", code_version()),
        ("graded records", f"{counts.get('calls', '?')} calls, {counts.get('attempts', '?')} attempts; record "
                           f"fingerprints sha256 `{str(records.get('fingerprints_sha256', '?'))[:16]}…`"),
    ]
    table = "\n".join(f"| {k} | {v} |" for k, v in rows)
    return f"**About this run**\n\n| | |\n|---|---|\n{table}"
