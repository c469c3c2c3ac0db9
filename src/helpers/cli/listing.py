"""``cost-of-pass ls``: what a user can run and what has run — the parameter sets in ``params/`` and on disk under
``results/`` (with their kind, records and whether a report exists), the datasets, the models of each registry, the
methods and the price snapshots. Plain text, one item per line, nothing computed."""

from __future__ import annotations

from pathlib import Path

from helpers.core.paths import repo_root


def _sets(root: Path) -> list[str]:
    from helpers.publish.index_page import set_entries

    on_disk = {e.name: e for e in set_entries(root / "results")}
    lines = []
    for path in sorted((root / "params").glob("*.yaml")):
        entry = on_disk.pop(path.stem, None)
        state = f"{entry.kind}, {entry.records:,} records, report {entry.rendered} UTC" if entry else "not run here"
        lines.append(f"  {path.stem:<34} params/{path.name}  ({state})")
    lines += [f"  {e.name:<34} results/{e.report.parent.parent.name}/  ({e.kind}, {e.records:,} records)"
              for e in on_disk.values()]  # a reprice or a fork run from elsewhere
    return lines


def listing(root: Path | None = None) -> str:
    """The text ``cost-of-pass ls`` prints."""
    from helpers.core.ledger import ledger_files
    from helpers.core.methods import method_forms
    from helpers.core.models import load_registry
    from helpers.core.prices import load_snapshot
    from helpers.core.tasks import TASKS

    root = root or repo_root()
    out = ["parameter sets (run one: cost-of-pass run params/<set>.yaml)", *_sets(root), "",
           "datasets (tasks:)"]
    out += [f"  {name:<34} {spec.label} ({spec.category})" for name, spec in sorted(TASKS.items())]
    out += ["", "models (models:, by registry file: models_file:)"]
    for registry in sorted((root / "params" / "registry").glob("*.yaml")):
        if registry.name.startswith("expert"):
            continue
        out.append(f"  {registry.relative_to(root)}")
        out += [f"    {m.name:<32} {m.label} ({m.family}, released {m.release_date})"
                for m in load_registry(registry).values()]
    out += ["", "methods (methods:)"] + [f"  {form}" for form in method_forms()]
    out += ["", "price snapshots (price_snapshot:, or the dated ledger with prices: {as_of: YYYY-MM-DD})"]
    for path in ledger_files():
        snap = load_snapshot(path)
        out.append(f"  {path.stem:<34} {snap.date}, {len(snap.prices)} models: {snap.source[:60]}")
    return "\n".join(out)
