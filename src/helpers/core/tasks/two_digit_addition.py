"""Two Digit Addition: the paper's fixed 250-problem set, or problems generated from a seed."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from helpers.core.errors import CostOfPassError
from helpers.core.tasks.base import Problem, TaskSpec, read_jsonl, register

NAME = "two_digit_addition"


def generate(n: int = 250, seed: int = 0, low: int = 10, high: int = 99) -> list[Problem]:
    """``n`` distinct problems "What is a + b?" with a, b uniform in [low, high]; id ``a+b``."""
    if n > (high - low + 1) ** 2:
        raise CostOfPassError(f"{NAME}: cannot generate {n} distinct pairs in [{low}, {high}]")
    rng = random.Random(f"{NAME}:{seed}")
    seen: dict[str, Problem] = {}
    while len(seen) < n:
        a, b = rng.randint(low, high), rng.randint(low, high)
        pid = f"{a}+{b}"
        seen.setdefault(pid, Problem(NAME, pid, f"What is {a} + {b}?", str(a + b), metadata={"a": a, "b": b}))
    return list(seen.values())


def load(data_dir: Path, options: dict[str, Any]) -> list[Problem]:
    """``options.source``: ``file`` (default; ``two_digit_addition/test.jsonl``) or ``generated``
    (with ``options.n`` and ``options.seed``)."""
    source = options.get("source", "file")
    if source == "generated":
        return generate(int(options.get("n", 250)), int(options.get("seed", 0)))
    if source != "file":
        raise CostOfPassError(f"{NAME}: task_options.source must be 'file' or 'generated', got {source!r}")
    return [
        Problem(NAME, f"tda-{i:03d}", row["input"], str(row["target"]).strip())
        for i, row in enumerate(read_jsonl(data_dir / NAME / "test.jsonl", NAME))
    ]


register(TaskSpec(name=NAME, label="Two Digit Addition", category="basic quantitative", metric="number", load=load,
                  source="mhamzaerol/Cost-of-Pass (the paper's 250-row set); or generated from a seed",
                  files=(f"{NAME}/test.jsonl",)))
