"""Shards of a set's calls (issue 66 item 5): ``cost-of-pass run SET --shard i/N`` collects and grades only shard
``i`` of ``N``, so an existing scheduler (a Slurm array, a Kubernetes indexed Job, a CI matrix) can run the shards as
separate processes, on one machine or many sharing the output directory.

An attempt (task, problem, model, method, run: all its calls, so a refinement's second call stays with its first) is
in shard ``1 + int(sha256(key)[:16], 16) mod N``: a stable hash of its key, never its position in the plan, so a shard
holds the same attempts whenever it runs, whatever else the set gained or lost. Shard ``i`` of ``N`` writes its
records to files of its own, ``records/<task>/<model>.shard-i-of-N.jsonl``, and grades into ``graded/shard-i-of-N/``;
every reader of the store reads all of a model's files (``collect.records``).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from helpers.core.errors import CostOfPassError

_TEXT = re.compile(r"^([0-9]+)/([0-9]+)$")
SUFFIX = re.compile(r"\.shard-([0-9]+)-of-([0-9]+)$")  # the end of a shard's record file's stem


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``i/N`` with 1 ≤ i ≤ N, both whole numbers; one line saying so otherwise."""
        found = _TEXT.match(text.strip())
        index, count = (int(found[1]), int(found[2])) if found else (0, 0)
        if not found or not 1 <= index <= count:
            raise CostOfPassError(f"--shard {text!r}: give i/N, shard i of N with 1 <= i <= N (e.g. 1/4)")
        return cls(index, count)

    @property
    def text(self) -> str:
        """``i/N``, as the command line takes it."""
        return f"{self.index}/{self.count}"

    @property
    def label(self) -> str:
        """``shard-i-of-N``: the name of the shard's files and folders."""
        return f"shard-{self.index}-of-{self.count}"

    def holds(self, task: str, problem_id: str, model: str, method: str, run: int) -> bool:
        """Whether the attempt with this key is in this shard (``shard_of``)."""
        return shard_of(task, problem_id, model, method, run, self.count) == self.index


def shard_of(task: str, problem_id: str, model: str, method: str, run: int, count: int) -> int:
    """The shard (1-based, of ``count``) an attempt is in: its key's sha256, as a whole number, modulo ``count``."""
    text = "\x1f".join((task, str(problem_id), model, method, str(run)))
    return 1 + int(hashlib.sha256(text.encode()).hexdigest()[:16], 16) % count


def record_model(stem: str) -> str:
    """The model of a record file's stem: ``<model>`` or ``<model>.shard-i-of-N``."""
    return SUFFIX.sub("", stem)
