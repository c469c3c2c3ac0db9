"""GPQA Diamond, read from its password-protected zip in memory and never written out as text.

The four choices are shuffled per question with a fixed seed (``task_options.gpqa_diamond.choice_seed``,
default 0), so the correct letter is spread over A-D and the same across runs and machines.
"""

from __future__ import annotations

import csv
import io
import random
import zipfile
from pathlib import Path
from typing import Any

from helpers.core.errors import CostOfPassError
from helpers.core.tasks.base import LETTERS, Problem, TaskSpec, format_choices, missing_data, register

NAME = "gpqa_diamond"
ZIP_PASSWORD = b"deserted-untie-orchid"  # the password GPQA's own distribution uses


def _csv_member(zf: zipfile.ZipFile) -> zipfile.ZipInfo:
    for info in zf.infolist():
        if info.filename.endswith("gpqa_diamond.csv"):
            return info
    raise CostOfPassError(f"{NAME}: the zip holds no gpqa_diamond.csv")


def shuffled_choices(correct: str, incorrect: list[str], record_id: str, seed: int) -> tuple[list[str], str]:
    """The choices in a seeded order per question, and the letter of the correct one."""
    choices = [correct, *incorrect]
    order = list(range(len(choices)))
    random.Random(f"{NAME}:{seed}:{record_id}").shuffle(order)
    shuffled = [choices[i] for i in order]
    return shuffled, LETTERS[order.index(0)]


def load(data_dir: Path, options: dict[str, Any]) -> list[Problem]:
    path = data_dir / NAME / "gpqa_diamond.zip"
    if not path.is_file():
        raise missing_data(NAME, path)
    seed = int(options.get("choice_seed", 0))
    try:
        return _read(path, seed)
    except zipfile.BadZipFile as err:
        raise CostOfPassError(f"{NAME}: {path} is not a readable zip ({err}); fetch it again") from None
    except RuntimeError as err:  # zipfile: "Bad password for file ..."
        raise CostOfPassError(f"{NAME}: cannot open {path} with GPQA's published password ({err}); "
                              "use the zip GPQA distributes") from None


def _read(path: Path, seed: int) -> list[Problem]:
    out = []
    with zipfile.ZipFile(path) as zf, zf.open(_csv_member(zf), pwd=ZIP_PASSWORD) as fh:
        for row in csv.DictReader(io.TextIOWrapper(fh, encoding="utf-8")):
            incorrect = [row[f"Incorrect Answer {i}"].strip() for i in (1, 2, 3)]
            choices, letter = shuffled_choices(row["Correct Answer"].strip(), incorrect, row["Record ID"], seed)
            out.append(
                Problem(NAME, row["Record ID"], format_choices(row["Question"], choices), letter,
                        n_choices=len(choices), metadata={"domain": row.get("High-level domain")})
            )
    return out


register(TaskSpec(name=NAME, label="GPQA Diamond", category="knowledge", metric="choice", load=load,
                  source="idavidrein/gpqa: dataset.zip (gpqa_diamond.csv; password-protected, as distributed)",
                  files=(f"{NAME}/gpqa_diamond.zip",)))
