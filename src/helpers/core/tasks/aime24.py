"""AIME 2024 I and II (30 problems, integer answers 0-999)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers.core.tasks.base import Problem, TaskSpec, read_jsonl, register

NAME = "aime24"


def load(data_dir: Path, options: dict[str, Any]) -> list[Problem]:
    return [
        Problem(NAME, f"aime24-{row['id']}", row["problem"], str(row["answer"]).strip())
        for row in read_jsonl(data_dir / NAME / "test.jsonl", NAME)
    ]


register(TaskSpec(name=NAME, label="AIME 2024", category="complex quantitative", metric="number", load=load,
                  source="QwenLM/Qwen2.5-Math: evaluation/data/aime24/test.jsonl", files=(f"{NAME}/test.jsonl",)))
