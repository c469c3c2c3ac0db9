"""``cost-of-pass import inspect PATH``: a parameter set made from Inspect logs, checked whole before it is written.

The logs (a ``.eval`` or ``.json`` file, or a folder of them; one model per log) are read and checked by
``core.inspect_logs``; then the set is made and validated as every set is (``core.context.prepare``: models, prices,
expert, problems) from a scratch copy, and only then written: ``params/<name>.yaml`` (task ``inspect``, the logs'
models, ``n_runs`` from the epochs, ``n_problems`` from the samples, the price snapshot, the expert's USD per problem)
and ``params/registry/<name>.yaml`` (one entry per model; Inspect logs carry no release date, so each entry's
``release_date`` is the log's date, marked in ``release_source`` as one to fill in). ``cost-of-pass run`` then runs
the set (``runner.command``). Nothing is written when anything is wrong.
"""

from __future__ import annotations

import argparse
import re
import tempfile
from pathlib import Path
from typing import Any

import yaml

from helpers.core.errors import CostOfPassError
from helpers.core.paths import repo_root, shown

FILL_IN = ("TO FILL IN: Inspect logs carry no release date; the log's date (eval.created) stands in until the "
           "model's public release date is written here")


def add_parser(sub) -> argparse.ArgumentParser:
    """The ``import`` command's arguments."""
    imp = sub.add_parser("import", help="make a parameter set from others' runs (Inspect logs), then run it offline")
    imp.add_argument("format", choices=["inspect"], help="the runs' format")
    imp.add_argument("path", help="an Inspect log (.eval or .json) or a folder of them, one model per log")
    imp.add_argument("--name", required=True, help="the set's name: params/<name>.yaml, results/<name>/")
    imp.add_argument("--expert-usd", required=True, type=float,
                     help="the human expert's cost per problem of this task (USD): what a problem no model "
                     "passes costs")
    imp.add_argument("--prices", required=True, help="the price snapshot (a name in params/prices/ or a YAML path) "
                     "with a price for each model (the registry names printed on a missing one)")
    imp.add_argument("--scorer", help="the scorer whose score is the verdict (needed when the logs have several)")
    imp.add_argument("--threshold", type=float, default=1.0,
                     help="a numeric or partial score at or above this is a pass (default 1.0)")
    imp.add_argument("--description", default="", help="one line for the site and the report (default: said for you)")
    imp.add_argument("--params-dir", default=None, help="where to write the set and its registry (default: params/)")
    imp.add_argument("--output-dir", default=None, help="the set's output_dir (default: results/<name>)")
    imp.add_argument("--no-run", action="store_true", help="write the set, do not run it")
    imp.add_argument("--overwrite", action="store_true", help="replace an existing params/<name>.yaml of this name")
    return imp


def registry_name(model: str, taken: set[str]) -> str:
    """A registry name for Inspect's model name (``provider/model``): its last part, as a file name allows."""
    name = re.sub(r"[^A-Za-z0-9._+-]+", "-", model.rsplit("/", 1)[-1]).strip("-._+") or "model"
    if name in taken:
        name = re.sub(r"[^A-Za-z0-9._+-]+", "-", model).strip("-._+")
    return name


def registry_entries(logs) -> dict[str, dict[str, Any]]:
    """One registry entry per model of the logs (its first log's date stands in for its release date)."""
    entries: dict[str, dict[str, Any]] = {}
    names: dict[str, str] = {}
    for log in logs:
        if log.model in names:
            continue
        name = names[log.model] = registry_name(log.model, set(entries))
        provider = log.model.split("/", 1)[0] if "/" in log.model else "inspect"
        litellm_id = log.model if re.fullmatch(r"[A-Za-z0-9_.-]+/.+", log.model) else f"inspect/{name}"
        entries[name] = {"label": name, "litellm_id": litellm_id, "family": provider,
                         "release_date": log.date.isoformat(), "release_source": FILL_IN,
                         "imported": {"name": log.model}}
    return entries


def snapshot_of(prices: str) -> str:
    """The set's ``price_snapshot``: a snapshot's name as given, a path made absolute (the set may live elsewhere)."""
    return str(Path(prices).resolve()) if prices.endswith((".yaml", ".yml")) or "/" in prices else prices


def set_fields(args: argparse.Namespace, logs, entries: dict[str, dict[str, Any]], registry: str) -> dict[str, Any]:
    """The parameter set's fields, from the logs and the command's arguments."""
    samples = {s.sample_id for log in logs for s in log.samples}
    runs = 1 + max(s.run for log in logs for s in log.samples)
    task = logs[0].task
    fields: dict[str, Any] = {
        "name": args.name,
        "description": args.description or (f"Inspect task {task}: {len(entries)} model(s), {len(samples)} samples x "
                                            f"{runs} epochs, imported from Inspect logs (no calls)."),
        "tasks": ["inspect"], "models": list(entries), "models_file": registry, "methods": ["vanilla"],
        "n_problems": len(samples), "n_runs": runs, "price_snapshot": snapshot_of(args.prices), "budget_usd": 1,
        "expert_usd": {"inspect": args.expert_usd},
        "import_from": {"format": "inspect", "path": str(Path(args.path).resolve()), "threshold": args.threshold},
    }
    if args.scorer:
        fields["import_from"]["scorer"] = args.scorer
    if args.output_dir:
        fields["output_dir"] = str(Path(args.output_dir).resolve())
    return fields


def write_set(folder: Path, args: argparse.Namespace, logs) -> Path:
    """Write the set and its registry under ``folder`` (``<folder>/<name>.yaml``, ``<folder>/registry/<name>.yaml``);
    the set's path."""
    entries = registry_entries(logs)
    registry = folder / "registry" / f"{args.name}.yaml"
    registry.parent.mkdir(parents=True, exist_ok=True)
    header = (f"# The models of the Inspect set {args.name}, written by `cost-of-pass import inspect`: nothing calls "
              "them.\n# release_date: Inspect logs carry none; each is the log's date until you write the model's "
              "public release date (the trend figures read it).\n")
    registry.write_text(header + yaml.safe_dump({"models": entries}, sort_keys=False), encoding="utf-8")
    path = folder / f"{args.name}.yaml"
    fields = set_fields(args, logs, entries, str(registry))
    path.write_text(f"# Made by `cost-of-pass import inspect` from {len(logs)} Inspect log(s).\n"
                    + yaml.safe_dump(fields, sort_keys=False), encoding="utf-8")
    return path


def import_inspect(args: argparse.Namespace, settings) -> Path:
    """Check the logs, make the set in a scratch folder and validate it whole (``prepare``), then write it in place
    and return its path; one line and nothing written on anything wrong."""
    from helpers.core.context import prepare
    from helpers.core.inspect_logs import read_logs
    from helpers.core.params import load_params

    folder = Path(args.params_dir).resolve() if args.params_dir else repo_root() / "params"
    target = folder / f"{args.name}.yaml"
    if target.exists() and not args.overwrite:
        raise CostOfPassError(f"{shown(target)} exists: choose another --name, or --overwrite to replace it")
    logs = read_logs(Path(args.path), args.scorer, args.threshold)
    with tempfile.TemporaryDirectory(prefix="cop-import-") as scratch:
        draft = write_set(Path(scratch), args, logs)
        prepare(load_params(str(draft), settings))  # models, prices, the expert, the problems: every check of a run
    path = write_set(folder, args, logs)
    print(f"wrote {shown(path)} and {shown(folder / 'registry' / f'{args.name}.yaml')} "
          f"({len(logs)} log(s); fill in each model's release_date there)", flush=True)
    return path

