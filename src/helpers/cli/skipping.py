"""Which stages a rerun may skip: each stage's inputs hashed into a key, kept in ``results/<set>/stages.json``.

A stage's key covers the code it runs (``stage_code``: the packages of ``src/helpers`` its notebook imports, directly
or through the modules it imports, with their data files; the notebook; for the analyses and the report the captions
and prose of ``report/text``, for the report its notebook), the registries every set reads (experts, imported
models), the parameter set as validated, its model registry and price files (its snapshot, and the ledger's files that
price one of its models), the sampled problems, and what the stage reads: the record shards (names and sizes) for
collection and grading, and the grading stage's actual output files (its manifest and tables, by content) for grading
itself and for 03-07 and the report. Editing ``publish/`` re-runs no collection or grading. A stage whose key equals
the one recorded after its last success, and whose executed notebook exists, is skipped; ``--force`` runs everything.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import re
from pathlib import Path

import yaml

from helpers.core.context import Context
from helpers.core.paths import repo_root
from helpers.grade.stage import graded_paths, write_json

STAMPS = "stages.json"
REGISTRIES = ("params/registry/expert_costs.yaml", "params/registry/imported.yaml")  # every set's (models: set_digest)
MODULE_NAME = re.compile(r"helpers(\.\w+)+(:\w+)?")  # a registry's "helpers.x.y:function" string imports x.y too


def _sha(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _notebook(stage: str, root: Path) -> Path:
    return root / ("report/index.ipynb" if stage == "report" else f"notebooks/{stage}.ipynb")


def _helpers_imported(source: str) -> set[str]:
    """The ``helpers`` module names a Python source imports (anywhere in it), or names in a "module:function" string."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and MODULE_NAME.fullmatch(node.value):
            names.add(node.value.split(":")[0])
    return {n for n in names if n.split(".")[0] == "helpers"}


@functools.lru_cache(maxsize=None)
def _file_imports(path: str, mtime_ns: int, size: int) -> frozenset[str]:
    """``_helpers_imported`` of a file, parsed once per version of it (the runner asks for eight stages, twice each)."""
    return frozenset(_helpers_imported(Path(path).read_text(encoding="utf-8")))


def _module_file(name: str, src: Path) -> Path | None:
    path = src.joinpath(*name.split("."))
    return next((p for p in (path.with_suffix(".py"), path / "__init__.py") if p.is_file()), None)


def stage_code(stage: str, root: Path | None = None) -> list[Path]:
    """The files whose change re-runs ``stage``: every file (code and data) of each package of ``src/helpers`` that
    holds a module the stage's notebook imports, directly or through other modules (a package, not a module: a
    script such as the sandbox's server runs beside the module that starts it), and the notebook itself; the
    analyses and the report add ``report/text`` (captions, prose), the report its own module. Sorted paths."""
    root = root or repo_root()
    src = root / "src"
    nb = json.loads(_notebook(stage, root).read_text(encoding="utf-8"))
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    todo = _helpers_imported("\n".join(line for line in code.splitlines() if not line.lstrip().startswith(("%", "!"))))
    todo |= {"helpers.core.notebooks"} | ({"helpers.publish.report"} if stage == "report" else set())
    seen: set[Path] = set()
    while todo:
        name = todo.pop()
        parts = name.split(".")
        for i in range(1, len(parts) + 1):  # a module's parent packages run their __init__ first
            path = _module_file(".".join(parts[:i]), src)
            if path is not None and path not in seen:
                seen.add(path)
                stat = path.stat()
                todo |= _file_imports(str(path), stat.st_mtime_ns, stat.st_size)
    top = src / "helpers"  # its own files are the library's surface (api.py), not a stage's: only what ran
    files = {f for pkg in {p.parent for p in seen} - {top} for f in pkg.iterdir() if f.suffix in (".py", ".json")}
    files |= {p for p in seen if p.parent == top}
    files.add(_notebook(stage, root))
    if stage[:2] not in ("01", "02"):
        files |= set((root / "report" / "text").glob("*.md"))
    return sorted(files)


def content(path: Path) -> bytes:
    """What a file says, for a fingerprint: a YAML file's parsed data (keys sorted; so an edited comment, a re-indent
    or reordered keys change nothing), any other file's bytes (and a YAML file that does not parse: its bytes)."""
    if path.suffix in (".yaml", ".yml"):
        try:
            return json.dumps(yaml.safe_load(path.read_text(encoding="utf-8")), sort_keys=True, default=str).encode()
        except (yaml.YAMLError, UnicodeDecodeError):
            pass
    return path.read_bytes()


def code_digest(stage: str, root: Path | None = None) -> str:
    """sha256 over the code ``stage`` runs (``stage_code``) and the registries every set reads (paths and
    ``content``)."""
    root = root or repo_root()
    h = hashlib.sha256()
    for path in [*stage_code(stage, root), *(root / r for r in REGISTRIES)]:
        if path.is_file():
            h.update(str(path.relative_to(root)).encode() + b"\0" + content(path) + b"\0")
    return h.hexdigest()


def set_digest(ctx: Context) -> str:
    """The validated parameters (with where they came from), the model and price files, and the sampled problems."""
    p = ctx.params
    problems = [f"{q.task}/{q.problem_id}/{q.target}" for qs in ctx.problems.values() for q in qs]
    files = [content(path).hex() for path in (p.models_path, *p.price_files, *ledger_files_of(ctx)) if path.is_file()]
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


def published_digest(ctx: Context) -> str:
    """sha256 over what the analyses published for the report to read: every table, caption, lead and note (``.csv``,
    ``.md``) under the set's tables and figures folders, by name and content."""
    h = hashlib.sha256()
    for folder in (ctx.params.tables_path, ctx.params.figures_path):
        for path in sorted(folder.glob("*")) if folder.is_dir() else []:
            if path.suffix in (".csv", ".md") and path.is_file():
                h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


class StageKeys:
    """The recorded keys of a set's stages, and the current ones, computed when asked (after earlier stages ran)."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.path = ctx.params.output_path / STAMPS
        self.recorded = json.loads(self.path.read_text()) if self.path.is_file() else {}
        self.base = set_digest(ctx)
        self.code: dict[str, str] = {}  # stage -> code_digest: the code does not change while the runner runs

    def current(self, stage: str) -> str:
        """The stage's key now: collection reads the records; grading the records and what it wrote last (a file
        changed or lost since makes it run again); the analyses the graded files; the report also the tables and
        captions the analyses wrote (a stage that ran again, e.g. after its notebook changed, renders it again)."""
        if stage == "01_collect":
            reads = records_digest(self.ctx)
        elif stage == "02_grade":  # and whether code is graded inside the boundary (a verdict says which it had)
            reads = _sha(records_digest(self.ctx), graded_digest(self.ctx),
                         "1" if self.ctx.params.settings.unisolated_grading else "")
        elif stage == "report":
            reads = _sha(graded_digest(self.ctx), published_digest(self.ctx))
        else:
            reads = graded_digest(self.ctx)
        if stage not in self.code:
            self.code[stage] = code_digest(stage)
        return _sha(self.base, self.code[stage], stage, reads)

    def unchanged(self, stage: str) -> bool:
        return self.recorded.get(stage) == self.current(stage)

    def record(self, stage: str) -> None:
        self.recorded[stage] = self.current(stage)
        write_json(self.path, self.recorded)

    def forget(self, stage: str) -> None:
        if self.recorded.pop(stage, None) is not None:
            write_json(self.path, self.recorded)
