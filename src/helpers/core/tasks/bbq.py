"""BBQ (Bias Benchmark for QA): context + question, three lettered choices.

The public release has 11 categories; a data directory may hold only some of them. Which ones
were used (and which were missing) is reported by ``caveat``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers.core.tasks.base import LETTERS, Problem, TaskSpec, format_choices, missing_data, read_jsonl, register

NAME = "bbq"
CATEGORIES = (
    "Age", "Disability_status", "Gender_identity", "Nationality", "Physical_appearance",
    "Race_ethnicity", "Race_x_SES", "Race_x_gender", "Religion", "SES", "Sexual_orientation",
)


def available(data_dir: Path) -> list[str]:
    return [c for c in CATEGORIES if (data_dir / NAME / f"{c}.jsonl").is_file()]


def load(data_dir: Path, options: dict[str, Any]) -> list[Problem]:
    wanted = options.get("categories") or available(data_dir)
    if not wanted:
        raise missing_data(NAME, data_dir / NAME / "<Category>.jsonl")
    out = []
    for cat in wanted:
        for row in read_jsonl(data_dir / NAME / f"{cat}.jsonl", NAME):
            choices = [row["ans0"], row["ans1"], row["ans2"]]
            stem = f"{row['context'].strip()} {row['question'].strip()}"
            out.append(
                Problem(NAME, f"bbq-{cat}-{row['example_id']}", format_choices(stem, choices),
                        LETTERS[int(row["label"])], n_choices=3,
                        metadata={"category": cat, "context_condition": row.get("context_condition")})
            )
    return out


def caveat(data_dir: Path, options: dict[str, Any]) -> str:
    used = options.get("categories") or available(data_dir)
    missing = [c for c in CATEGORIES if c not in used]
    if not missing:
        return ""
    return f"BBQ: {len(used)} of {len(CATEGORIES)} categories used; not available: {', '.join(missing)}."


register(TaskSpec(name=NAME, label="BBQ", category="knowledge", metric="choice", load=load,
                  source="nyu-mll/BBQ: data/<Category>.jsonl", files=(f"{NAME}/<Category>.jsonl",), caveat=caveat))
