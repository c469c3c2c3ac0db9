"""SWE-bench Verified (Jimenez et al., 2024; OpenAI's human-validated 500, 2024): fix a real GitHub issue so that the
repository's hidden tests pass.

The instances are read from ``swebench_bash_only/difficulty.csv`` under the data directory (``instance_id,difficulty``:
all 500, each with the time SWE-bench Verified's annotators estimated an experienced engineer needs to fix it, one of
``DIFFICULTIES``), which becomes the problem's ``metadata["difficulty"]`` and prices the expert per instance
(``core.experts``). No issue text is read: an instance's question is its id. Metric ``verdict``: a fix is judged by
SWE-bench's own harness (the repository's tests in its Docker image), which this project does not run; a set of this
task imports the verdict with the record (``collect.imports.swebench_bash_only``) and grading takes it as it is.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from helpers.core.errors import CostOfPassError
from helpers.core.tasks.base import Problem, TaskSpec, missing_data, register

NAME = "swebench_verified"
FILE = "swebench_bash_only/difficulty.csv"
DIFFICULTIES = ("<15 min fix", "15 min - 1 hour", "1-4 hours", ">4 hours")  # SWE-bench Verified's annotation buckets
MAX_ROWS = 100_000  # a difficulty file of SWE-bench's size has 500 rows (2,294 for the full test split)


def load(data_dir: Path, options: dict[str, Any]) -> list[Problem]:
    path = Path(options.get("file", FILE))
    path = path if path.is_absolute() else data_dir / path
    if not path.is_file():
        raise missing_data(NAME, path)
    problems: list[Problem] = []
    seen: dict[str, int] = {}  # instance id -> its first row
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        if missing := [c for c in ("instance_id", "difficulty") if c not in (reader.fieldnames or [])]:
            raise CostOfPassError(f"{path}: no column(s) {', '.join(missing)} (columns: "
                                  f"{', '.join(reader.fieldnames or [])})")
        for row, r in enumerate(reader, start=2):
            iid, bucket = (r["instance_id"] or "").strip(), (r["difficulty"] or "").strip()
            if row > MAX_ROWS + 1:
                raise CostOfPassError(f"{path}: more than {MAX_ROWS} rows (refused: not SWE-bench's difficulty file)")
            if not iid or bucket not in DIFFICULTIES:
                raise CostOfPassError(f"{path}: row {row}: expected an instance id and one of "
                                      f"{', '.join(DIFFICULTIES)}, got {iid!r}, {bucket!r}")
            if iid in seen:
                raise CostOfPassError(f"{path}: row {row}: instance {iid} again (first at row {seen[iid]})")
            seen[iid] = row
            problems.append(Problem(NAME, iid, iid, "resolved", metadata={"difficulty": bucket}))
    return problems


register(TaskSpec(name=NAME, label="SWE-bench Verified", category="software engineering", metric="verdict", load=load,
                  source="SWE-bench Verified (princeton-nlp/SWE-bench_Verified; OpenAI's "
                  "annotations), instance ids and "
                         "difficulty only", files=(FILE,)))
