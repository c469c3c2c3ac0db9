"""The tasks of others' run files (``core.runlogs``): one per format (``mini_swe_agent``, ``arc_prize``, ``hal``,
``openai_evals``), whose problems are the files' problems (instances, ARC tasks, HAL tasks, eval samples).

A set that imports such files (``import_from: {format: <format>, path: ...}``) has the one task of that name; its
``task_options`` carry the files' ``path`` and the format's options (``results``, ``solutions``), filled in from
``import_from`` (``core.params``), absolute or under the data directory. Metric ``verdict``: the source judged each
attempt (SWE-bench's harness, ARC's solutions, the HAL benchmark, the eval's match), this project does not grade it
again (``grade.answers``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers.core.errors import CostOfPassError
from helpers.core.tasks.base import Problem, TaskSpec, register

MAX_CHARS = 20_000  # of a question or target kept for the report (an agent's task can be a whole issue)


def under(data_dir: Path, value: str) -> str:
    path = Path(value)
    return str(path if path.is_absolute() else data_dir / path)


def located(fmt: str, data_dir: Path, options: dict[str, Any]) -> tuple[Path, dict[str, Any]]:
    """The files' path and the format's options, each path absolute or under ``data_dir``."""
    if not options.get("path"):
        raise CostOfPassError(f"{fmt}: no run files: give import_from {{format: {fmt}, path: ...}}")
    extra: dict[str, Any] = {}
    if options.get("solutions"):
        extra["solutions"] = under(data_dir, options["solutions"])
    if options.get("results"):  # each a report, or RUN=REPORT (RUN a subfolder of the path)
        extra["results"] = [f"{run}={under(data_dir, file)}" if sep else under(data_dir, run)
                            for run, sep, file in (r.partition("=") for r in options["results"])]
    return Path(under(data_dir, options["path"])), extra


def runs_of(fmt: str, data_dir: Path, options: dict[str, Any]):
    from helpers.core.runlogs import read_runs

    path, extra = located(fmt, data_dir, options)
    return read_runs(fmt, path, extra)


def loader(fmt: str):
    def load(data_dir: Path, options: dict[str, Any]) -> list[Problem]:
        problems: dict[str, Problem] = {}
        for run in runs_of(fmt, data_dir, options):
            for a in run.samples:
                problems.setdefault(a.sample_id, Problem(fmt, a.sample_id, a.question[:MAX_CHARS], a.target[:MAX_CHARS],
                                                         metadata={"source_task": run.task}))
        return list(problems.values())
    return load


def caveat_of(fmt: str, label: str):
    def caveat(data_dir: Path, options: dict[str, Any]) -> str:
        runs = runs_of(fmt, data_dir, options)
        return (f"{label} {runs[0].task!r}: the problems are the {len({a.sample_id for r in runs for a in r.samples})} "
                f"the run files hold; each attempt is judged by the source's own verdict.")
    return caveat


def register_all() -> None:
    from helpers.core.runlogs import FORMATS

    for f in FORMATS.values():
        register(TaskSpec(name=f.name, label=f.label, category="imported", metric="verdict", load=loader(f.name),
                          source=f.source, files=("<run files>",), caveat=caveat_of(f.name, f.label)))


register_all()
