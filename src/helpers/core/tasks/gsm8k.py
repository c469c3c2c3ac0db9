"""GSM8K test split: grade-school word problems; the answer follows ``####``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers.core.tasks.base import Problem, TaskSpec, read_jsonl, register

NAME = "gsm8k"


def load(data_dir: Path, options: dict[str, Any]) -> list[Problem]:
    out = []
    for i, row in enumerate(read_jsonl(data_dir / NAME / "test.jsonl", NAME)):
        target = row["answer"].rsplit("####", 1)[-1].strip().replace(",", "")
        out.append(Problem(NAME, f"gsm8k-test-{i:04d}", row["question"], target))
    return out


register(TaskSpec(name=NAME, label="GSM8K", category="basic quantitative", metric="number", load=load,
                  source="openai/grade-school-math: grade_school_math/data/test.jsonl",
                  files=(f"{NAME}/test.jsonl",)))
