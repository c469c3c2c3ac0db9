"""Which stages a rerun may skip: each stage's inputs hashed into a key, kept in ``results/<set>/stages.json``.

A stage's key covers the code (``src/helpers`` with its data files, the notebooks, the report notebook and its
captions and prose, the model and expert registries), the parameter set as validated, its price files (its snapshot,
and the ledger's files that price one of its models), the sampled problems, and what the stage
reads: the record shards (names and sizes) for collection and grading, and the grading stage's actual output
files (its manifest and tables, by content) for grading itself and for 03-07 and the report. A stage whose key equals the one recorded after its last success, and whose
executed notebook exists, is skipped; ``--force`` runs everything.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from helpers.core.context import Context
from helpers.core.paths import repo_root
from helpers.grade.boundary import UNISOLATED_ENV
from helpers.grade.stage import graded_paths, write_json

STAMPS = "stages.json"
CODE_GLOBS = ("src/helpers/**/*.py", "src/helpers/**/*.json", "notebooks/*.ipynb", "report/*.ipynb", "report/text/*.md",
              "params/registry/*.yaml", "params/experts*.yaml")  # the checks' calibration; captions (prices: set_digest)


def _sha(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def code_digest(root: Path | None = None) -> str:
    """sha256 over the pipeline's code and registries (paths and bytes)."""
    root = root or repo_root()
    h = hashlib.sha256()
    for pattern in CODE_GLOBS:
        for path in sorted(root.glob(pattern)):
            h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def set_digest(ctx: Context) -> str:
    """The validated parameters (with where they came from), the model and price files, and the sampled problems."""
    p = ctx.params
    problems = [f"{q.task}/{q.problem_id}/{q.target}" for qs in ctx.problems.values() for q in qs]
    files = [path.read_bytes().hex() for path in (p.models_path, *p.price_files, *ledger_files_of(ctx)) if path.is_file()]
    source = p.import_path  # an imported set's source (a zip can be large: its size and time stand for it)
    if source is not None and source.is_file():
        files.append(f"{source}:{source.stat().st_size}:{source.stat().st_mtime_ns}")
    return _sha(p.model_dump_json(), str(p.source), *files, *problems)


def ledger_files_of(ctx: Context) -> list[Path]:
    """The files of the dated price ledger that price one of the set's models (the new-models / prices split reads
    them): a price file for other models changes no stage of this set."""
    from helpers.core.ledger import files_pricing

    return files_pricing(m.name for m in ctx.models)


def records_digest(ctx: Context) -> str:
    """The record shards' names and sizes (the store is append-only: a new record changes a size)."""
    root = ctx.params.records_path
    shards = sorted(root.glob("*/*.jsonl")) if root.is_dir() else []
    return _sha(*(f"{s.relative_to(root)}:{s.stat().st_size}" for s in shards))


def graded_digest(ctx: Context) -> str:
    """sha256 over the grading stage's actual outputs — its manifest and every table it lists — so a changed or lost
    file changes the key ("none" for a file that is missing): a plain rerun grades again and rebuilds them."""
    h = hashlib.sha256()
    for name, path in sorted(graded_paths(ctx).items()):
        h.update(name.encode() + b"\0")
        if path.is_file():
            with path.open("rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    h.update(block)
        else:
            h.update(b"none")
    return h.hexdigest()


class StageKeys:
    """The recorded keys of a set's stages, and the current ones, computed when asked (after earlier stages ran)."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.path = ctx.params.output_path / STAMPS
        self.recorded = json.loads(self.path.read_text()) if self.path.is_file() else {}
        self.base = _sha(code_digest(), set_digest(ctx))

    def current(self, stage: str) -> str:
        """The stage's key now: collection reads the records; grading the records and what it wrote last (a file
        changed or lost since makes it run again); the analyses and the report the graded files."""
        if stage == "01_collect":
            reads = records_digest(self.ctx)
        elif stage == "02_grade":  # and whether code is graded inside the boundary (a verdict says which it had)
            reads = _sha(records_digest(self.ctx), graded_digest(self.ctx), os.environ.get(UNISOLATED_ENV, ""))
        else:
            reads = graded_digest(self.ctx)
        return _sha(self.base, stage, reads)

    def unchanged(self, stage: str) -> bool:
        return self.recorded.get(stage) == self.current(stage)

    def record(self, stage: str) -> None:
        self.recorded[stage] = self.current(stage)
        write_json(self.path, self.recorded)

    def forget(self, stage: str) -> None:
        if self.recorded.pop(stage, None) is not None:
            write_json(self.path, self.recorded)
