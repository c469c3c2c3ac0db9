"""Others' run files, read and checked whole before anything uses them: mini-SWE-agent and SWE-agent trajectories
(``swe_agent``), ARC Prize attempt files (``arc_prize``), HAL upload files (``hal``) and OpenAI evals records
(``openai_evals``). Each format's module turns its files into runs of one model (``common.RunFile``), one attempt per
problem and run (``common.Attempt``), and refuses anything wrong in one line naming the file and the item; Inspect logs
have their own reader (``core.inspect_logs``). ``FORMATS`` says, per format, its name in a set's ``import_from`` (also
its task's), the command's name, where it comes from, whether its cost is billed USD, and the options it reads.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from helpers.core.runlogs.common import RunFile, check_once


@dataclass(frozen=True)
class Format:
    """One format of run files: ``name`` (``import_from.format`` and the set's one task), ``command`` (``cost-of-pass
    import``'s name for it), ``label`` (the task's label), ``source`` (one line for the about box), its reader's
    module, whether each attempt's cost is the USD billed (``billed``: no price needed, no repricing) and the
    ``import_from`` fields it reads besides ``path``."""

    name: str
    command: str
    label: str
    source: str
    module: str
    billed: bool = False
    options: tuple[str, ...] = ()


FORMATS = {f.name: f for f in (
    Format("mini_swe_agent", "mini-swe-agent", "SWE-bench (agent trajectories)",
           "mini-SWE-agent or SWE-agent trajectories (.traj.json, .traj), each instance's billed instance_cost, with "
           "the SWE-bench harness's report as the verdict", "helpers.core.runlogs.swe_agent", billed=True,
           options=("results",)),
    Format("arc_prize", "arc-prize", "ARC Prize tasks",
           "ARC Prize attempt files (arc-agi-benchmarking: one JSON per task, attempt_1 and attempt_2 per test input), "
           "each attempt's usage", "helpers.core.runlogs.arc_prize", options=("solutions",)),
    Format("hal", "hal", "HAL benchmark",
           "HAL (Holistic Agent Leaderboard) upload files (<run_id>_UPLOAD.json), each task's logged calls' usage",
           "helpers.core.runlogs.hal"),
    Format("openai_evals", "openai-evals", "OpenAI eval",
           "OpenAI evals record logs (JSONL), each sample's sampling events' usage and its match verdict",
           "helpers.core.runlogs.openai_evals"),
)}
COMMANDS = {**{f.command: f.name for f in FORMATS.values()}, "swe-agent": "mini_swe_agent"}  # command name -> format


def reader(fmt: str):
    """The module that reads format ``fmt``: ``inputs(path, options)`` (every file it reads) and ``read(path,
    options)`` (the runs)."""
    return importlib.import_module(FORMATS[fmt].module)


def read_runs(fmt: str, path: Path, options: dict[str, Any] | None = None) -> list[RunFile]:
    """Every run of format ``fmt`` at ``path`` (a file or folder) with its ``options`` (``results``: SWE-bench
    reports; ``solutions``: ARC solutions), each checked whole, and together: one task, one model, each problem and run
    once. Raises one line naming the file and the item on the first thing wrong. Read once per process while the files
    stay the same (their sizes and modification times)."""
    options = {k: v for k, v in (options or {}).items() if v}
    inputs = reader(fmt).inputs(path, options)
    stamp = tuple((str(f), f.stat().st_size, f.stat().st_mtime_ns) for f in inputs)
    return list(_read_runs(fmt, path, json.dumps(options, sort_keys=True), stamp))


@lru_cache(maxsize=4)
def _read_runs(fmt: str, path: Path, options: str, stamp: tuple) -> tuple[RunFile, ...]:
    runs = reader(fmt).read(path, json.loads(options))
    check_once(runs)
    return tuple(runs)
