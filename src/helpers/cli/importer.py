"""``cost-of-pass import FORMAT PATH``: a parameter set made from others' runs, checked whole before it is written.

The formats: ``inspect`` (Inspect logs, read by ``core.inspect_logs``), ``mini-swe-agent`` (or ``swe-agent``: agent
trajectories with the SWE-bench harness's report), ``arc-prize`` (ARC Prize attempt files), ``hal`` (HAL upload files)
and ``openai-evals`` (OpenAI evals record logs), read by ``core.runlogs``. Every one goes the same way: the files (a
file or a folder, one model per import) are read and checked whole, one line naming the file and the item on anything
wrong; then the set is made and validated as every set is (``core.context.prepare``: models, prices, expert,
problems) from a scratch copy, and only then written: ``params/<name>.yaml`` (the format's one task, the model(s),
``n_runs`` and ``n_problems`` from the files, the price snapshot, the expert's USD per problem) and
``params/registry/<name>.yaml`` (one entry per model; run files carry no release date, so each entry's
``release_date`` is the run's date, marked in ``release_source`` as one to fill in). ``cost-of-pass run`` then runs
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
from helpers.core.runlogs import COMMANDS, FORMATS

FILL_IN = ("TO FILL IN: run files carry no release date; the run's date stands in until the model's public release "
           "date is written here")
OPTIONS = {"scorer": "inspect", "results": "mini_swe_agent", "solutions": "arc_prize"}  # option -> its one format
BILLED_SNAPSHOT = "billed_usd"  # the snapshot of a set whose USD is billed (no price needed)


def add_parser(sub) -> argparse.ArgumentParser:
    """The ``import`` command's arguments."""
    imp = sub.add_parser("import", help="make a parameter set from others' runs (Inspect logs, agent trajectories, "
                         "ARC Prize attempts, HAL uploads, OpenAI evals logs), then run it offline")
    imp.add_argument("format", choices=["inspect", *COMMANDS], help="the runs' format")
    imp.add_argument("path", help="the run files: a file or a folder of them, one model per import")
    imp.add_argument("--name", required=True, help="the set's name: params/<name>.yaml, results/<name>/")
    imp.add_argument("--expert-usd", required=True, type=float,
                     help="the human expert's cost per problem of this task (USD): what a problem no model "
                     "passes costs")
    imp.add_argument("--prices", help="the price snapshot (a name in params/prices/ or a YAML path) with a price for "
                     "each model (the registry names printed on a missing one); mini-swe-agent: optional (its cost is "
                     "billed USD), a snapshot that prices the model adds the computed cost beside the billed")
    imp.add_argument("--scorer", help="inspect: the scorer whose score is the verdict (needed when the logs have "
                     "several)")
    imp.add_argument("--threshold", type=float, default=1.0,
                     help="inspect: a numeric or partial score at or above this is a pass (default 1.0)")
    imp.add_argument("--results", action="append", help="mini-swe-agent: the SWE-bench harness's report (resolved_ids "
                     "or {instance_id: {resolved}}); several runs: RUN=FILE per run folder (a subfolder of PATH)")
    imp.add_argument("--solutions", help="arc-prize: the ARC solutions JSON ({task_id: [grid, ...]}); without it "
                     "each attempt's own 'correct' is the verdict")
    imp.add_argument("--description", default="", help="one line for the site and the report (default: said for you)")
    imp.add_argument("--params-dir", default=None, help="where to write the set and its registry (default: params/)")
    imp.add_argument("--output-dir", default=None, help="the set's output_dir (default: results/<name>)")
    imp.add_argument("--no-run", action="store_true", help="write the set, do not run it")
    imp.add_argument("--overwrite", action="store_true", help="replace an existing params/<name>.yaml of this name")
    return imp


def format_of(args: argparse.Namespace) -> str:
    """The set's format (``import_from.format``, also its task) of the command's ``format``."""
    return "inspect" if args.format == "inspect" else COMMANDS[args.format]


def check_arguments(args: argparse.Namespace, fmt: str) -> None:
    """One line when an option is given to a format that does not read it, or a priced format has no prices."""
    for option, owner in OPTIONS.items():
        if getattr(args, option) and fmt != owner:
            raise CostOfPassError(f"--{option} is for {owner.replace('_', '-')} runs, not {args.format}")
    if not args.prices and not (fmt in FORMATS and FORMATS[fmt].billed):
        raise CostOfPassError(f"{args.format} runs are priced from their tokens: give --prices (a snapshot with a "
                              "price for the model)")


def options_of(args: argparse.Namespace) -> dict[str, Any]:
    """The format's options with their files made absolute (the set may live elsewhere)."""
    out: dict[str, Any] = {}
    if args.results:
        out["results"] = [f"{run}={Path(file).resolve()}" if sep else str(Path(run).resolve())
                          for run, sep, file in (r.partition("=") for r in args.results)]
    if args.solutions:
        out["solutions"] = str(Path(args.solutions).resolve())
    return out


def read_source(args: argparse.Namespace, fmt: str) -> list:
    """The runs of the files (Inspect logs or ``core.runlogs.common.RunFile``), checked whole."""
    if fmt == "inspect":
        from helpers.core.inspect_logs import read_logs

        return read_logs(Path(args.path), args.scorer, args.threshold)
    from helpers.core.runlogs import read_runs

    return read_runs(fmt, Path(args.path), options_of(args))


def registry_name(model: str, taken: set[str]) -> str:
    """A registry name for a source's model name (``provider/model``): its last part, as a file name allows."""
    name = re.sub(r"[^A-Za-z0-9._+-]+", "-", model.rsplit("/", 1)[-1]).strip("-._+") or "model"
    if name in taken:
        name = re.sub(r"[^A-Za-z0-9._+-]+", "-", model).strip("-._+")
    return name


def registry_entries(logs, fmt: str = "inspect") -> dict[str, dict[str, Any]]:
    """One registry entry per model of the runs (its first run's date stands in for its release date)."""
    entries: dict[str, dict[str, Any]] = {}
    names: dict[str, str] = {}
    prefix = fmt if fmt == "inspect" else FORMATS[fmt].command
    for log in logs:
        if log.model in names:
            continue
        name = names[log.model] = registry_name(log.model, set(entries))
        provider = log.model.split("/", 1)[0] if "/" in log.model else prefix
        litellm_id = log.model if re.fullmatch(r"[A-Za-z0-9_.-]+/.+", log.model) else f"{prefix}/{name}"
        imported: dict[str, Any] = {"name": log.model}
        if fmt in FORMATS and FORMATS[fmt].billed:
            imported["billed_usd"] = True
        entries[name] = {"label": name, "litellm_id": litellm_id, "family": provider,
                         "release_date": log.date.isoformat(), "release_source": FILL_IN, "imported": imported}
    return entries


def snapshot_of(prices: str) -> str:
    """The set's ``price_snapshot``: a snapshot's name as given, a path made absolute (the set may live elsewhere)."""
    return str(Path(prices).resolve()) if prices.endswith((".yaml", ".yml")) or "/" in prices else prices


def import_from(args: argparse.Namespace, fmt: str) -> dict[str, Any]:
    """The set's ``import_from``: the format, the files' absolute path, and the format's options."""
    spec: dict[str, Any] = {"format": fmt, "path": str(Path(args.path).resolve())}
    if fmt == "inspect":
        spec["threshold"] = args.threshold
        if args.scorer:
            spec["scorer"] = args.scorer
    return {**spec, **options_of(args)}


def set_fields(args: argparse.Namespace, logs, entries: dict[str, dict[str, Any]], registry: str) -> dict[str, Any]:
    """The parameter set's fields, from the runs and the command's arguments."""
    fmt = format_of(args)
    samples = {s.sample_id for log in logs for s in log.samples}
    runs = 1 + max(s.run for log in logs for s in log.samples)
    kind = f"Inspect task {logs[0].task}" if fmt == "inspect" else f"{logs[0].task} ({FORMATS[fmt].label})"
    fields: dict[str, Any] = {
        "name": args.name,
        "description": args.description or (f"{kind}: {len(entries)} model(s), {len(samples)} problems x {runs} "
                                            f"runs, imported from {args.format} runs (no calls)."),
        "tasks": [fmt], "models": list(entries), "models_file": registry, "methods": ["vanilla"],
        "n_problems": len(samples), "n_runs": runs, "price_snapshot": snapshot_of(args.prices or BILLED_SNAPSHOT),
        "budget_usd": 1, "expert_usd": {fmt: args.expert_usd}, "import_from": import_from(args, fmt),
    }
    if args.output_dir:
        fields["output_dir"] = str(Path(args.output_dir).resolve())
    return fields


def write_set(folder: Path, args: argparse.Namespace, logs) -> Path:
    """Write the set and its registry under ``folder`` (``<folder>/<name>.yaml``, ``<folder>/registry/<name>.yaml``);
    the set's path."""
    entries = registry_entries(logs, format_of(args))
    registry = folder / "registry" / f"{args.name}.yaml"
    registry.parent.mkdir(parents=True, exist_ok=True)
    header = (f"# The models of the imported set {args.name}, written by `cost-of-pass import {args.format}`: nothing "
              "calls them.\n# release_date: run files carry none; each is the run's date until you write the "
              "model's public release date (the trend figures read it).\n")
    registry.write_text(header + yaml.safe_dump({"models": entries}, sort_keys=False), encoding="utf-8")
    path = folder / f"{args.name}.yaml"
    fields = set_fields(args, logs, entries, str(registry))
    path.write_text(f"# Made by `cost-of-pass import {args.format}` from {len(logs)} run file(s) or folder(s).\n"
                    + yaml.safe_dump(fields, sort_keys=False), encoding="utf-8")
    return path


def import_runs(args: argparse.Namespace, settings) -> Path:
    """Check the run files, make the set in a scratch folder and validate it whole (``prepare``), then write it in
    place and return its path; one line and nothing written on anything wrong."""
    from helpers.core.context import prepare
    from helpers.core.params import load_params

    fmt = format_of(args)
    check_arguments(args, fmt)
    folder = Path(args.params_dir).resolve() if args.params_dir else repo_root() / "params"
    target = folder / f"{args.name}.yaml"
    if target.exists() and not args.overwrite:
        raise CostOfPassError(f"{shown(target)} exists: choose another --name, or --overwrite to replace it")
    logs = read_source(args, fmt)
    with tempfile.TemporaryDirectory(prefix="cop-import-") as scratch:
        draft = write_set(Path(scratch), args, logs)
        prepare(load_params(str(draft), settings))  # models, prices, the expert, the problems: every check of a run
    path = write_set(folder, args, logs)
    print(f"wrote {shown(path)} and {shown(folder / 'registry' / f'{args.name}.yaml')} "
          f"({len(logs)} run file(s) or folder(s); fill in each model's release_date there)", flush=True)
    return path
