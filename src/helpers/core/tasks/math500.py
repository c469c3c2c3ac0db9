"""MATH-500 (the Lightman et al. subset of MATH)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers.core.tasks.base import Problem, TaskSpec, read_jsonl, register

NAME = "math500"


def load(data_dir: Path, options: dict[str, Any]) -> list[Problem]:
    return [
        Problem(NAME, row["unique_id"], row["problem"], str(row["answer"]),
                metadata={"subject": row.get("subject"), "level": row.get("level")})
        for row in read_jsonl(data_dir / NAME / "test.jsonl", NAME)
    ]


register(TaskSpec(name=NAME, label="MATH-500", category="complex quantitative", metric="math", load=load,
                  source="openai/prm800k: prm800k/math_splits/test.jsonl", files=(f"{NAME}/test.jsonl",)))
