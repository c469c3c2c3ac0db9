"""An Inspect task, read from its logs (``core.inspect_logs``): the problems are the logs' samples.

A set that imports Inspect logs (``import_from: {format: inspect, path: ...}``) has the one task ``inspect``; its
``task_options`` carry the logs' ``path`` (filled in from ``import_from.path``, ``core.params``), absolute or under the
data directory. Each sample id is a problem: its question the sample's input, its target the sample's. Metric
``verdict``: the log's scorer judged each answer, this project does not grade it again (``grade.answers``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers.core.errors import CostOfPassError
from helpers.core.tasks.base import Problem, TaskSpec, register

NAME = "inspect"
MAX_CHARS = 20_000  # of a question or target kept for the report (a sample's input can be a whole conversation)


def logs_path(data_dir: Path, options: dict[str, Any]) -> Path:
    """Where the set's logs are: ``options["path"]``, absolute or under ``data_dir``."""
    if not options.get("path"):
        raise CostOfPassError(f"{NAME}: no logs: give import_from {{format: inspect, path: ...}}")
    path = Path(options["path"])
    return path if path.is_absolute() else data_dir / path


def load(data_dir: Path, options: dict[str, Any]) -> list[Problem]:
    from helpers.core.inspect_logs import read_logs

    logs = read_logs(logs_path(data_dir, options), options.get("scorer"), float(options.get("threshold", 1.0)))
    problems: dict[str, Problem] = {}
    for log in logs:
        for s in log.samples:
            problems.setdefault(s.sample_id, Problem(NAME, s.sample_id, s.question[:MAX_CHARS], s.target[:MAX_CHARS],
                                                     metadata={"inspect_task": log.task}))
    return list(problems.values())


def caveat(data_dir: Path, options: dict[str, Any]) -> str:
    """The Inspect task the set's problems come from (its name and logs), for the report's caveats."""
    from helpers.core.inspect_logs import log_files, read_logs

    path = logs_path(data_dir, options)
    logs = read_logs(path, options.get("scorer"), float(options.get("threshold", 1.0)))
    return (f"Inspect task {logs[0].task!r}: the problems are its samples, read from {len(log_files(path))} "
            f"log(s); each answer is judged by the log's own scorer (threshold "
            f"{float(options.get('threshold', 1.0)):g} for partial scores).")


register(TaskSpec(name=NAME, label="Inspect task", category="imported", metric="verdict", load=load,
                  source="Inspect logs (inspect-ai .eval or .json): the samples the log ran", files=("<logs>",),
                  caveat=caveat))
